/* csv.c - RFC 4180 record reader for csv sources and tables.
 *
 * The file is read with read(2) into one large buffer. A record is first
 * scanned to its end (a small state machine that knows quoting), recording
 * field boundaries; only when the whole record is in the buffer are quoted
 * fields unescaped in place. So running out of buffer mid-record just means
 * "compact, refill, scan the record again" - the buffer is never modified
 * before the record is complete.
 *
 * Decisions beyond RFC 4180:
 *  - records end at "\n", "\r\n" or a lone "\r" (old Mac files), each one
 *    line for line numbers, also inside quotes; a final record without a
 *    line end counts;
 *  - a UTF-8 byte order mark at the start of the file is skipped;
 *  - a completely empty line (nothing but its line end) is skipped: it is no
 *    record, has no index and is never reported (a trailing blank line is
 *    common and harmless);
 *  - a quote inside an unquoted field, or text after a closing quote, is bad
 *    quoting: the record is consumed to its line end and reported as -2;
 *  - an opening quote never closed before end of file is bad quoting of the
 *    line it starts on; reading resumes on the next line.
 * A stream's regular file is split in blocks among the ranks, each
 * reading only its own (the split, near the end of this file); every rank
 * agrees on record indices, line numbers and W(i) all the same.
 * Anything else (a FIFO, standard input) rank 0 alone reads (air_csv_open),
 * and so a file followed as it grows (follow = true): at its end the reader
 * waits for more bytes (a last line without its line end is not a record
 * yet), and only a stop ends it.
 * A stop parks the reader between records and it reads on to the agreed
 * cut (cut.c, air_csv_bind).
 */
#include "air_int.h"
#include "data_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CSV_BUF_INIT (1 << 20) /* bytes; doubled for records that do not fit */
#define CSV_BAD_SHOWN 10       /* bad rows printed in full per file */
#define CSV_PACE_MAX 4096      /* records asked of the pacer at once */
#define CSV_POLL_MS 100        /* a stop is seen this soon while waiting on a pipe */

const char air_null_field[1] = "";

typedef struct Span {
  size_t a, b; /* field bytes buf[a..b) before unescaping */
  bool esc;    /* quoted and holding "" escapes */
  bool quoted; /* quoted (a JSON string): empty, it is '', not NULL */
} Span;

struct AirCsv {
  AirCsvRow row;  /* first: read inline by air_csv_row_wm, air_csv_time */
  AirRuntime *rt; /* stats; NULL in tests */
  char *path;     /* as given, for messages */
  char *name;     /* the stream or table */
  bool table;     /* a table: every rank reads every record */
  int ncols;      /* declared fields per record */
  int time_col;   /* the event-time column, -1 for a table */
  int64_t bound;  /* the WATERMARK bound, ms */
  int fd;         /* the file, -1 for bytes in memory or an empty share */
  bool polled;    /* not a regular file: wait in poll(2), never in read(2) */
  bool follow;    /* a growing file (follow = true): its end is no end, wait for more */
  AirTcp *tcp;    /* source = 'tcp': the bytes come from here (rank 0), fd is -1 */
  struct TcpSeg *segs; /* tcp: which sender each stretch of buf came from, oldest first */
  int nsegs, capsegs;
  AirKafka *kafka; /* source = 'kafka': one message at a time in buf (kafka.c), fd is -1 */
  const AirKafkaOps *kops;
  int kpart;       /* the message's partition (this rank's index) */
  int64_t koff;    /* ... and offset */
  int64_t kfloor;  /* the largest watermark given out: no row is judged below it */
  bool kmulti;     /* the record's message held more than one line */
  bool tmsg;       /* the event time is the message's timestamp (time_from_message) */
  bool tproc;      /* the time is the clock's when the record is read (proc_time) */
  int64_t kts;     /* ... of the message in buf, or AIR_WM_NONE */
  bool json;      /* format = 'json': one object per line (scan_json) */
  const char *const *cols; /* the declared column names (json: the keys) */
  size_t *col_len;         /* their lengths */
  const char *kinds;       /* json: per column 'n' number, 's' string, 'b' boolean */
  char why[200];           /* why the record just scanned is bad (json), for air_csv_bad_why */
  bool eof;       /* read(2) returned 0 */
  bool stopped;   /* a stop was requested while waiting for bytes */
  bool idle;      /* a stream's polled writer sent nothing for CSV_POLL_MS */
  bool done;      /* end of input returned (end of file or a stop) */
  uint64_t offset; /* bytes read from fd */
  char *buf;      /* file bytes buf[pos..len) not yet consumed */
  size_t cap;     /* allocated bytes of buf */
  size_t len;     /* valid bytes of buf */
  size_t pos;     /* start of the next record */
  size_t rec;     /* start of the record just scanned */
  long line;      /* 1-based line number at pos */
  uint64_t index; /* records seen after the header */
  bool start;     /* nothing consumed yet: a byte order mark may come */
  bool no_header; /* header = false: a bad first line may be a header after all */
  Span *spans;    /* field boundaries of the current record */
  int nspans;     /* allocated entries of spans */
  long bad;       /* rows passed to air_csv_bad_row */
  uint64_t taken; /* records returned (this rank's share), good or bad */
  AirBadLimit bad_limit; /* when bad rows fail the run */
  double bad_max;
  char *error;    /* what ends the run, when kept (tests, or rank 0 alone reading) */
  bool keep_error; /* keep it in error instead of air_fatal */
  int64_t maxts;      /* the largest counted event time scanned, or AIR_WM_NONE */
  double rate;        /* replay at this many records/s (a stream's; 0: unthrottled) */
  AirPace pace;       /* ... this rank's share of it */
  uint64_t budget;    /* records of this rank's the pacer let go, not read yet */
  AirVertex *v;       /* the source vertex a stop parks (air_csv_bind), or NULL */
  int64_t cut;        /* records before it are read after a stop, -1 while none */
  uint64_t stop_at;   /* no byte at or after this file offset is read (UINT64_MAX: none) */
  struct CsvSplit *split; /* a regular file's stream read in blocks by the ranks (below) */
  int64_t cutmax;         /* split: the largest event time before the cut */
  int64_t ck_seen;        /* the last checkpoint whose barrier it asked for (ckpt.c) */
  int64_t *ck_thr;        /* resumed in blocks: block b's records before ck_thr[b % ck_nthr] */
  int ck_nthr;            /* were read before the checkpoint (by rank b % ck_nthr of then) */
};

static _Noreturn void csv_oom(void) { air_oom("csv buffer"); }
static void split_mpi(AirRuntime *rt, AirCsv *c, uint64_t size);
static void split_free(struct CsvSplit *s);
static void skip_to(AirCsv *c, int64_t k, bool count_ts);

static void ensure_spans(AirCsv *c, int max) {
  if (max <= c->nspans) return;
  Span *s = realloc(c->spans, (size_t)max * sizeof *s);
  if (!s) csv_oom();
  c->spans = s;
  c->nspans = max;
}

enum { SCAN_WAIT = -4, SCAN_MORE = -3, SCAN_BAD = -2, SCAN_EOF = -1 };
static inline int next_record(AirCsv *c, int max, long *line);
static inline void fill_fields(AirCsv *c, AirField *fields, int nf, int max);

/* The header record against the declared names (ASCII case-insensitive,
 * in order): on a mismatch, c->error says so. */
static void check_header(AirCsv *c, const AirCsvDef *def) {
  ensure_spans(c, def->ncols + 1);
  long line = 0;
  int nf = next_record(c, def->ncols + 1, &line); /* at open: unbound, never SCAN_WAIT */
  if (nf == SCAN_EOF || nf == SCAN_WAIT || def->header == AIR_CSV_HEADER_SKIP) return;
  /* The line as it is in the file, before unescaping changes it. */
  size_t n = c->pos - c->rec;
  const char *raw = c->buf + c->rec;
  while (n > 0 && (raw[n - 1] == '\n' || raw[n - 1] == '\r')) n--;
  char text[160];
  size_t shown = n < sizeof text - 4 ? n : sizeof text - 4;
  for (size_t k = 0; k < shown; k++)
    text[k] = (unsigned char)raw[k] < ' ' || raw[k] == 0x7f ? '?' : raw[k];
  strcpy(text + shown, n > shown ? "..." : "");
  bool same = nf == def->ncols;
  if (same) {
    AirField f[def->ncols > 0 ? def->ncols : 1];
    fill_fields(c, f, nf, def->ncols);
    for (int k = 0; k < nf && same; k++)
      same = f[k].n == strlen(def->cols[k]) && strncasecmp(f[k].p, def->cols[k], f[k].n) == 0;
  }
  if (same) return;
  size_t cap = sizeof text + 256 + strlen(c->path) + strlen(c->name);
  for (int k = 0; k < def->ncols; k++) cap += strlen(def->cols[k]) + 2;
  char *m = malloc(cap);
  if (!m) csv_oom();
  size_t at = (size_t)snprintf(m, cap, "%s:%ld: header '%s' does not match the columns of %s '%s' (",
                               c->path, line, text, c->table ? "table" : "stream", c->name);
  for (int k = 0; k < def->ncols; k++)
    at += (size_t)snprintf(m + at, cap - at, "%s%s", k ? ", " : "", def->cols[k]);
  snprintf(m + at, cap - at, "): fix the file or the declaration, or write header = 'skip'");
  c->error = m;
}

/* A reader of fd (-1: none yet) without its header read. */
static AirCsv *reader_new(AirRuntime *rt, const AirCsvDef *def, int fd) {
  AirCsv *c = calloc(1, sizeof *c);
  if (!c) csv_oom();
  c->rt = rt;
  c->path = strdup(def->path);
  c->name = strdup(def->name ? def->name : "");
  c->table = def->table;
  c->ncols = def->ncols;
  c->time_col = def->table ? -1 : def->time_col;
  c->tmsg = !def->table && def->time_from_message;
  c->tproc = !def->table && def->proc_time;
  c->no_header = def->header == AIR_CSV_NO_HEADER;
  c->bound = def->wm_bound_ms;
  c->maxts = c->row.wm = AIR_WM_NONE;
  c->fd = fd;
  c->cap = CSV_BUF_INIT;
  c->buf = malloc(c->cap);
  c->nspans = 16;
  c->spans = malloc((size_t)c->nspans * sizeof *c->spans);
  if (!c->path || !c->name || !c->buf || !c->spans) csv_oom();
  c->line = 1;
  c->start = true;
  c->eof = fd < 0;
  c->cut = -1;
  c->stop_at = UINT64_MAX;
  c->follow = def->follow && !def->table;
  c->json = def->json;
  c->cols = def->cols;
  c->kinds = def->json_kinds;
  c->col_len = malloc((size_t)(def->ncols > 0 ? def->ncols : 1) * sizeof *c->col_len);
  if (!c->col_len) csv_oom();
  for (int k = 0; k < def->ncols; k++) c->col_len[k] = def->cols ? strlen(def->cols[k]) : 0;
  c->bad_limit = def->bad_limit;
  c->bad_max = def->bad_max;
  c->rate = def->table ? 0 : (double)def->rate;
  air_pace_init(&c->pace, c->rate);
  return c;
}

/* The file, or -1 with errno (a directory is EISDIR). Anything but a
 * regular file (a FIFO, /dev/stdin, a character device) is opened without
 * blocking, *polled: opening a FIFO for reading would otherwise wait for a
 * writer, and a read wait for data, deaf to a stop. */
static int open_input(const char *path, bool *polled) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    int e = S_ISDIR(st.st_mode) ? EISDIR : errno;
    close(fd);
    errno = e;
    return -1;
  }
  *polled = !S_ISREG(st.st_mode);
  if (!*polled) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

static AirCsv *open_reader(AirRuntime *rt, const AirCsvDef *def, bool keep_error) {
  bool polled = false;
  int fd = open_input(def->path, &polled);
  if (fd < 0) return NULL;
  AirCsv *c = reader_new(rt, def, fd);
  c->polled = polled;
  c->keep_error = keep_error || !rt;
  if (def->header != AIR_CSV_NO_HEADER) check_header(c, def);
  return c;
}

AirCsv *air_csv_open_at(AirRuntime *rt, const AirCsvDef *def) {
  return open_reader(rt, def, false);
}

const char *air_csv_error(const AirCsv *c) { return c->error; }

static void refill(AirCsv *c);

/* Read all of a table's file (rank 0, a file that is not regular). */
static void read_all_bytes(AirCsv *c) {
  while (!c->eof && !c->stopped) refill(c);
}

/* A stream's records go to the ranks by record index, and each rank reads
 * the file itself, which works for a regular file only: ranks reading one
 * FIFO or pipe would each get part of its bytes. So rank 0 looks at the
 * path and tells every rank (this runs on the main thread of every rank,
 * in the same order, before air_run: a collective is safe). A regular file
 * every rank opens and reads (a table whole, a stream its blocks); of
 * anything else, rank 0 alone reads a stream, taking every record (the
 * other ranks' share is empty: they end at once, and the plan's exchanges
 * spread the keyed work), and reads a table whole and sends its bytes to
 * every rank, since each needs all of it. */
enum { IN_REGULAR, IN_STREAMED, IN_ERROR };

/* A stream's reader, the runtime's from now on (for air_csv_settle). */
static AirCsv *keep_stream(AirRuntime *rt, AirCsv *c) {
  AirCsv **v = realloc(rt->csvs, (size_t)(rt->ncsvs + 1) * sizeof *v);
  if (!v) csv_oom();
  v[rt->ncsvs++] = c;
  rt->csvs = v;
  return c;
}

/* source = 'tcp': rank 0 listens (now, so a port in use fails the run
 * before it starts) or will connect; the other ranks' share is empty. */
static AirCsv *open_tcp(AirRuntime *rt, const AirCsvDef *d) {
  char err[512] = "";
  AirTcp *t = NULL;
  int failed = 0;
  if (rt->rank == 0) {
    char who[256];
    snprintf(who, sizeof who, "airc: %s: stream '%s'", rt->name, d->name ? d->name : "?");
    t = air_tcp_open(d->tcp_listen ? d->tcp_listen : d->tcp_connect, d->tcp_listen != NULL, who, err,
                     sizeof err);
    failed = t == NULL;
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, rt->comm);
  if (failed) {
    MPI_Bcast(err, (int)sizeof err, MPI_CHAR, 0, rt->comm);
    err[sizeof err - 1] = '\0';
    air_fatal(rt, "stream '%s': %s", d->name ? d->name : "?", err);
  }
  AirCsv *c = reader_new(rt, d, -1);
  if (t) {
    c->tcp = t;
    c->eof = false;
    c->polled = true;
  }
  return keep_stream(rt, c);
}

/* source = 'kafka': every rank reads its partitions (kafka.c). */
static AirCsv *open_kafka(AirRuntime *rt, const AirCsvDef *d) {
  char err[768] = "";
  AirKafka *k = d->kafka->ops->open(rt, d->kafka, d->name ? d->name : "?", err, sizeof err);
  if (!k) air_fatal(rt, "%s", err);
  AirCsv *c = reader_new(rt, d, -1);
  c->kafka = k;
  c->kops = d->kafka->ops;
  c->kfloor = AIR_WM_NONE;
  c->eof = false;
  c->polled = true;
  return keep_stream(rt, c);
}

AirCsv *air_csv_open(AirRuntime *rt, const AirCsvDef *def) {
  AirCsvDef d = *def;
  if (air_rate_override(rt) >= 0) d.rate = air_rate_override(rt);
  if (!d.table && (d.tcp_listen || d.tcp_connect)) return open_tcp(rt, &d);
  if (!d.table && d.kafka) return open_kafka(rt, &d);
  int verdict[3] = {IN_REGULAR, 0, 0}; /* kind, errno, length of rank 0's error */
  AirCsv *c = NULL;
  uint64_t size = 0; /* a regular file's, as rank 0 sees it */
  if (rt->rank == 0) {
    struct stat st;
    if (stat(d.path, &st) == 0) size = (uint64_t)st.st_size;
    if (stat(d.path, &st) != 0 || S_ISDIR(st.st_mode)) {
      verdict[0] = IN_ERROR;
      verdict[1] = S_ISDIR(st.st_mode) ? EISDIR : errno;
    } else if (!S_ISREG(st.st_mode) || d.single) {
      verdict[0] = IN_STREAMED;
      AirCsvDef raw = d;
      raw.header = AIR_CSV_NO_HEADER; /* a table's is checked after the copy */
      /* errors are kept, and told to every rank below: the others wait */
      c = open_reader(rt, d.table ? &raw : &d, true);
      if (!c) {
        verdict[0] = IN_ERROR;
        verdict[1] = errno;
      } else if (d.table) {
        read_all_bytes(c);
      }
      if (c && c->error) verdict[2] = (int)strlen(c->error) + 1;
      if (c) c->keep_error = false;
    }
  }
  MPI_Bcast(verdict, 3, MPI_INT, 0, rt->comm);
  if (verdict[0] == IN_ERROR) air_fatal(rt, "cannot open '%s': %s", d.path, strerror(verdict[1]));
  if (verdict[2]) { /* from reading what only rank 0 reads */
    char msg[sizeof rt->fatal_msg];
    if (c) snprintf(msg, sizeof msg, "%s", c->error);
    MPI_Bcast(msg, verdict[2] < (int)sizeof msg ? verdict[2] : (int)sizeof msg, MPI_CHAR, 0, rt->comm);
    msg[sizeof msg - 1] = '\0';
    air_fatal(rt, "%s", msg);
  }
  if (verdict[0] == IN_REGULAR) {
    /* (one rank resuming a checkpoint of several reads in their blocks) */
    bool split = !d.table && (rt->world > 1 || air_ckpt_old_split(rt));
    c = air_csv_open_at(rt, &d);
    if (!c) air_fatal(rt, "cannot open '%s': %s", d.path, strerror(errno));
    if (split) {
      MPI_Bcast(&size, 1, MPI_UINT64_T, 0, rt->comm);
      if (!c->error) split_mpi(rt, c, size);
    }
  } else if (!d.table) {
    if (rt->rank != 0) c = reader_new(rt, &d, -1); /* an empty share */
  } else {
    uint64_t n = rt->rank == 0 ? c->len : 0;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, rt->comm);
    if (rt->rank != 0) {
      c = reader_new(rt, &d, -1);
      if (n > c->cap) {
        air_memory_check(n, "a table read from a pipe");
        free(c->buf);
        c->buf = malloc(n);
        if (!c->buf) csv_oom();
        c->cap = n;
      }
      c->len = n;
    }
    for (uint64_t at = 0; at < n; at += 1u << 30) {
      uint64_t k = n - at < (1u << 30) ? n - at : (1u << 30);
      MPI_Bcast(c->buf + at, (int)k, MPI_CHAR, 0, rt->comm);
    }
    c->eof = true;
    c->no_header = d.header == AIR_CSV_NO_HEADER;
    if (d.header != AIR_CSV_NO_HEADER) check_header(c, &d);
  }
  if (c->error) air_fatal(rt, "%s", c->error);
  return d.table ? c : keep_stream(rt, c);
}

void air_csv_close(AirCsv *c) {
  if (!c) return;
  if (c->fd >= 0) close(c->fd);
  air_tcp_close(c->tcp);
  free(c->segs);
  if (c->kops) c->kops->close(c->kafka);
  free(c->buf);
  free(c->spans);
  free(c->col_len);
  free(c->ck_thr);
  split_free(c->split);
  free(c->path);
  free(c->name);
  free(c->error);
  free(c);
}

const char *air_csv_path(const AirCsv *c) { return c->path; }

/* The file's size over the mean length of its lines in three samples
 * (start, middle, end), taking the longest mean: an estimate that errs
 * low when line lengths vary, so a table sized by it grows at most a few
 * times instead of wasting memory. pread leaves the reader's offset alone. */
size_t air_csv_rows_hint(const AirCsv *c) {
  enum { SAMPLE = 64 * 1024 };
  struct stat st;
  if (c->fd < 0 || fstat(c->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return 0;
  uint64_t size = (uint64_t)st.st_size;
  static char buf[SAMPLE]; /* the main thread loads tables, one at a time */
  double longest = 0;
  uint64_t at[3] = {0, size / 2, size > SAMPLE ? size - SAMPLE : 0};
  for (int k = 0; k < 3; k++) {
    ssize_t got = pread(c->fd, buf, SAMPLE, (off_t)at[k]);
    if (got <= 0) continue;
    size_t lines = 0;
    for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + got - p))) != NULL; p++) lines++;
    double mean = (double)got / (double)(lines ? lines : 1);
    if (mean > longest) longest = mean;
  }
  return longest > 0 ? (size_t)((double)size / longest) + 1 : 0;
}

long air_csv_bad_count(const AirCsv *c) { return c->bad; }

/* "stream 'x' ('path'): ..." over its max_bad_rows, or NULL: bad of
 * records (the counts of all ranks, or this rank's for a count limit as
 * rows go bad). */
static const char *over_limit(const AirCsv *c, uint64_t bad, uint64_t records, char *msg,
                              size_t n) {
  const char *what = c->table ? "table" : "stream";
  if (c->bad_limit == AIR_BAD_NO_GOOD && records > 0 && bad == records)
    snprintf(msg, n, "%s '%s' ('%s'): all %llu records are bad rows, none was read%s", what,
             c->name, c->path, (unsigned long long)records,
             records > CSV_BAD_SHOWN ? " (the first ones are listed above)" : "");
  else if (c->bad_limit == AIR_BAD_COUNT && (double)bad > c->bad_max)
    snprintf(msg, n, "%s '%s' ('%s'): more than max_bad_rows = %.0f bad rows", what, c->name,
             c->path, c->bad_max);
  else if (c->bad_limit == AIR_BAD_PCT && records > 0 &&
           100.0 * (double)bad > c->bad_max * (double)records)
    snprintf(msg, n, "%s '%s' ('%s'): %llu of %llu records are bad rows (%.2f%%), more than "
             "max_bad_rows = '%g%%'", what, c->name, c->path, (unsigned long long)bad,
             (unsigned long long)records, 100.0 * (double)bad / (double)records, c->bad_max);
  else
    return NULL;
  return msg;
}

/* tcp: buf[at, at + len) came from sender `who`, its first line number
 * `line` among that sender's lines, so a bad row names its sender and line. */
struct TcpSeg {
  size_t at, len;
  long line;
  char who[64];
};

static void tcp_seg_add(AirCsv *c, size_t at, size_t len) {
  if (c->nsegs == c->capsegs) {
    int cap = c->capsegs ? 2 * c->capsegs : 8;
    struct TcpSeg *s = realloc(c->segs, (size_t)cap * sizeof *s);
    if (!s) csv_oom();
    c->segs = s;
    c->capsegs = cap;
  }
  struct TcpSeg *s = &c->segs[c->nsegs++];
  s->at = at;
  s->len = len;
  snprintf(s->who, sizeof s->who, "%s", air_tcp_from(c->tcp, &s->line));
}

/* buf is about to lose its first `gone` bytes: stretches within them go,
 * one cut by them keeps its rest, its first line number advanced past the
 * lines it lost (counted here, before the bytes move) */
static void tcp_seg_shift(AirCsv *c, size_t gone) {
  int k = 0;
  for (int i = 0; i < c->nsegs; i++) {
    struct TcpSeg s = c->segs[i];
    if (s.at + s.len <= gone) continue;
    if (s.at < gone) {
      for (const char *q = c->buf + s.at, *e = c->buf + gone; (q = memchr(q, '\n', (size_t)(e - q))); q++)
        s.line++;
      s.len -= gone - s.at;
      s.at = gone;
    }
    s.at -= gone;
    c->segs[k++] = s;
  }
  c->nsegs = k;
}

/* "sender 127.0.0.1:40122, its line 17" for the record at buf[at] */
static bool tcp_where(const AirCsv *c, size_t at, char *out, size_t n) {
  for (int i = 0; i < c->nsegs; i++) {
    const struct TcpSeg *s = &c->segs[i];
    if (at < s->at || at >= s->at + s->len) continue;
    long line = s->line;
    for (const char *q = c->buf + s->at, *e = c->buf + at; (q = memchr(q, '\n', (size_t)(e - q))); q++)
      line++;
    snprintf(out, n, "sender %s, its line %ld", s->who, line);
    return true;
  }
  return false;
}

void air_csv_bad_row(AirCsv *c, long line, const char *why) {
  c->bad++;
  /* every rank reads all of a table: one of them speaks for it */
  bool speak = !c->rt || !c->table || c->rt->rank == 0;
  if (c->rt && speak) air_stat_add(c->rt, AIR_STAT_BAD_ROWS, 1);
  if (speak && c->bad <= CSV_BAD_SHOWN && c->kafka) {
    char where[400];
    c->kops->where(c->kafka, c->kpart, c->koff, where, sizeof where);
    fprintf(stderr, "%s: %s\n", where, why);
  } else if (speak && c->bad <= CSV_BAD_SHOWN) {
    char from[128];
    if (c->tcp && tcp_where(c, c->rec, from, sizeof from))
      fprintf(stderr, "%s:%ld (%s): %s\n", c->path, line, from, why);
    else
      fprintf(stderr, "%s:%ld: %s\n", c->path, line, why);
    if (line == 1 && c->no_header && !c->tcp)
      fputs("  (if line 1 names the columns, the file has a header: say header = true)\n", stderr);
  }
  char msg[768];
  if (c->rt && c->bad_limit == AIR_BAD_COUNT &&
      over_limit(c, (uint64_t)c->bad, (uint64_t)c->bad, msg, sizeof msg))
    air_fatal(c->rt, "%s", msg);
}

int air_csv_settle(AirRuntime *rt) {
  int failed = 0;
  for (int i = 0; i < rt->ncsvs; i++) {
    AirCsv *c = rt->csvs[i];
    uint64_t mine[2] = {(uint64_t)c->bad, c->taken}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, rt->comm);
    char msg[768];
    if (over_limit(c, all[0], all[1], msg, sizeof msg)) {
      failed = 1;
      if (rt->rank == 0) fprintf(stderr, "%s: error: %s\n", rt->name, msg);
    }
    air_csv_close(c);
  }
  free(rt->csvs);
  rt->csvs = NULL;
  rt->ncsvs = 0;
  return failed;
}

/* What ends the run (air_fatal); kept in c->error in tests (rt NULL), where
 * the input then ends. */
static void read_failed(AirCsv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void read_failed(AirCsv *c, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!c->keep_error) air_fatal(c->rt, "%s", msg);
  if (!c->error) c->error = strdup(msg);
  c->eof = true;
}

/* read(2) into p, waiting in poll(2) for a file that is not regular, so a
 * stop is seen within CSV_POLL_MS even while no writer has come or the
 * writer is idle (c->stopped, and 0 is returned). A FIFO opened without a
 * writer polls as not ready, not as hung up, so an early 0 from read (as
 * read gives before any writer) is never taken for the end of the file.
 * A stream's reader (bound to its vertex) whose writer stays idle for
 * CSV_POLL_MS returns -2 (c->idle): its loop then ends the chunk, so the
 * watermark of the records read so far goes out and the windows it
 * completes are written while the writer waits (tail -f | ./q). */
static ssize_t read_some(AirCsv *c, char *p, size_t n) {
  if (c->tcp) {
    for (;;) {
      if (c->cut < 0 && c->rt && air_should_stop(c->rt)) {
        c->stopped = true;
        return 0;
      }
      ssize_t k = air_tcp_read(c->tcp, p, n, CSV_POLL_MS);
      if (k == -2 && c->v) {
        c->idle = true;
        return -2;
      }
      if (k != -2) return k;
    }
  }
  if (c->follow) {
    /* A regular file is always readable: at its end, look again every
     * 10 ms, as tail -f does, and tell the loop when 100 ms passed idle. */
    for (int waited = 0;; waited += 10) {
      if (c->cut < 0 && c->rt && air_should_stop(c->rt)) {
        c->stopped = true;
        return 0;
      }
      ssize_t k = read(c->fd, p, n);
      if (k > 0 || (k < 0 && errno != EINTR && errno != EAGAIN)) return k;
      struct stat st;
      if (fstat(c->fd, &st) == 0 && (uint64_t)st.st_size < c->offset) return 0; /* refill says it shrank */
      if (waited >= CSV_POLL_MS && c->v) {
        c->idle = true;
        return -2;
      }
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
  for (;;) {
    if (c->polled) {
      if (c->cut < 0 && c->rt && air_should_stop(c->rt)) {
        c->stopped = true;
        return 0;
      }
      struct pollfd pf = {.fd = c->fd, .events = POLLIN};
      int r = poll(&pf, 1, CSV_POLL_MS);
      if (r == 0 && c->v) {
        c->idle = true;
        return -2;
      }
      if (r == 0 || (r < 0 && errno == EINTR)) continue;
      if (r < 0) return -1;
    }
    ssize_t k = read(c->fd, p, n);
    if (k >= 0 || (errno != EINTR && errno != EAGAIN)) return k;
  }
}

/* More bytes after buf[len): compact, grow if a record fills the buffer. */
/* source = 'kafka': the next message, alone in the buffer with a line end
 * of its own (one it ends with is dropped first). */
static void refill_kafka(AirCsv *c) {
  c->len = c->pos = 0;
  for (;;) {
    if (c->cut < 0 && c->rt && air_should_stop(c->rt)) {
      c->stopped = true;
      return;
    }
    AirKafkaMsg m;
    int r = c->kops->next(c->kafka, CSV_POLL_MS, &m);
    if (r < 0) {
      c->eof = true;
      c->kops->lag(c->kafka);
      return;
    }
    if (r == 0) {
      if (c->v) {
        c->idle = true;
        return;
      }
      continue;
    }
    size_t n = m.n;
    if (n > 0 && m.p[n - 1] == '\n') n--;
    if (n > 0 && m.p[n - 1] == '\r') n--;
    if (n + 1 > c->cap) {
      char *b = realloc(c->buf, n + 1);
      if (!b) csv_oom();
      c->buf = b;
      c->cap = n + 1;
    }
    if (n) memcpy(c->buf, m.p, n);
    c->buf[n] = '\n';
    c->len = n + 1;
    c->kpart = m.part;
    c->koff = m.offset;
    c->kts = m.ts;
    return;
  }
}

static void refill(AirCsv *c) {
  if (c->kafka) {
    refill_kafka(c);
    return;
  }
  if (c->fd < 0 && !c->tcp) {
    c->eof = true;
    return;
  }
  if (c->pos > 0) {
    if (c->tcp) tcp_seg_shift(c, c->pos);
    memmove(c->buf, c->buf + c->pos, c->len - c->pos);
    c->len -= c->pos;
    c->pos = 0;
  }
  if (c->len == c->cap) {
    if (c->cap > SIZE_MAX / 2) csv_oom();
    char *b = realloc(c->buf, c->cap * 2);
    if (!b) csv_oom();
    c->buf = b;
    c->cap *= 2;
  }
  size_t room = c->cap - c->len;
  if (c->stop_at != UINT64_MAX) { /* a block's end (the split, below) */
    if (c->offset >= c->stop_at) {
      c->eof = true;
      return;
    }
    if (room > c->stop_at - c->offset) room = (size_t)(c->stop_at - c->offset);
  }
  ssize_t n = read_some(c, c->buf + c->len, room);
  if (n == -2) return; /* c->idle: nothing yet */
  if (n < 0) {
    read_failed(c, "cannot read '%s': %s", c->path, strerror(errno));
    return;
  }
  if (c->stopped) return;
  if (c->tcp && n > 0) tcp_seg_add(c, c->len, (size_t)n);
  c->len += (size_t)n;
  c->offset += (uint64_t)n;
  c->eof = n == 0;
  /* A file cut shorter while it is read would give neither its old rows
   * nor its new ones: the run fails instead of ending on a partial file. */
  struct stat st;
  if (!c->polled && !c->tcp && fstat(c->fd, &st) == 0 && (uint64_t)st.st_size < c->offset)
    read_failed(c, "cannot read '%s': it shrank to %lld bytes while being read (%llu read): "
                "truncated or rewritten during the run", c->path, (long long)st.st_size,
                (unsigned long long)c->offset);
}

enum { ST_START, ST_PLAIN, ST_QUOTED, ST_CLOSED, ST_BAD };

/* The length of the line end at buf[i] (a '\n' or '\r'): 2 for "\r\n",
 * else 1; 0 for a '\r' that ends the bytes read so far, which the next
 * byte decides. */
static int eol_len(const AirCsv *c, size_t i) {
  if (c->buf[i] == '\n') return 1;
  if (i + 1 < c->len) return c->buf[i + 1] == '\n' ? 2 : 1;
  return c->eof ? 1 : 0;
}

static bool is_eol(char ch) { return ch == '\n' || ch == '\r'; }

/* Scan the record at pos: its field count (boundaries of the first `max` in
 * spans), SCAN_BAD, SCAN_EOF, or SCAN_MORE when the buffer ends first. *end
 * is where the next record starts, *lines the line ends consumed. */
static inline __attribute__((always_inline)) int scan(AirCsv *c, int max, size_t *end, long *lines) {
  const char *b = c->buf;
  size_t i = c->pos, len = c->len;
  size_t fa = i, qend = i; /* field start; closing quote of a quoted field */
  bool esc = false;
  int st = ST_START, nf = 0, k;
  long nl = 0;

#define ADD(A, B, E, Q)                                                      \
  do {                                                                       \
    if (nf < max) c->spans[nf] = (Span){(A), (B), (E), (Q)};                 \
    nf++;                                                                    \
  } while (0)

  for (; i < len; i++) {
    char ch = b[i];
    switch (st) {
    case ST_START:
      if (ch == '"') {
        st = ST_QUOTED;
        fa = i + 1;
        esc = false;
      } else if (ch == ',') {
        ADD(i, i, false, false);
        fa = i + 1;
      } else if (is_eol(ch)) {
        ADD(i, i, false, false);
        goto record_end;
      } else {
        st = ST_PLAIN;
        fa = i;
      }
      break;
    case ST_PLAIN:
      if (ch == ',') {
        ADD(fa, i, false, false);
        st = ST_START;
        fa = i + 1;
      } else if (is_eol(ch)) {
        ADD(fa, i, false, false);
        goto record_end;
      } else if (ch == '"') {
        st = ST_BAD;
      }
      break;
    case ST_QUOTED:
      if (ch == '"') {
        st = ST_CLOSED;
        qend = i;
      } else if (ch == '\n') {
        nl++;
      } else if (ch == '\r') { /* a line of its own unless "\r\n" (counted at '\n') */
        if (!(k = eol_len(c, i))) return SCAN_MORE;
        nl += k == 1;
      }
      break;
    case ST_CLOSED:
      if (ch == '"') { /* "" inside quotes */
        st = ST_QUOTED;
        esc = true;
      } else if (ch == ',') {
        ADD(fa, qend, esc, true);
        st = ST_START;
        fa = i + 1;
      } else if (is_eol(ch)) {
        ADD(fa, qend, esc, true);
        goto record_end;
      } else {
        st = ST_BAD;
      }
      break;
    case ST_BAD:
      if (is_eol(ch)) {
        if (!(k = eol_len(c, i))) return SCAN_MORE;
        *end = i + (size_t)k;
        *lines = nl + 1;
        return SCAN_BAD;
      }
      break;
    }
  }

  if (!c->eof && !(c->kafka && i > c->pos)) return SCAN_MORE; /* a kafka message ends its record */
  if (i == c->pos) return SCAN_EOF;
  *end = len;
  *lines = nl;
  switch (st) {
  case ST_START: ADD(len, len, false, false); break;
  case ST_PLAIN: ADD(fa, len, false, false); break;
  case ST_CLOSED: ADD(fa, qend, esc, true); break;
  case ST_BAD: return SCAN_BAD;
  case ST_QUOTED: {
    /* Unterminated: only the line it starts on is bad. */
    for (size_t j = c->pos; j < len; j++)
      if (is_eol(b[j])) {
        *end = j + (size_t)eol_len(c, j);
        *lines = 1;
        return SCAN_BAD;
      }
    *lines = 0;
    return SCAN_BAD;
  }
  }
  return nf;

record_end:
  if (!(k = eol_len(c, i))) return SCAN_MORE;
  *end = i + (size_t)k;
  *lines = nl + 1;
  return nf;
#undef ADD
}

/* ---- format = 'json' --------------------------------------------------
 * One object per line (JSON strings cannot hold a raw line end, so a line
 * is a record): the declared columns are its keys, each exactly once, in
 * any order; other keys are skipped, whatever their values. A number for
 * a number column (INT, BIGINT, DOUBLE, TIMESTAMP as epoch ms), a string
 * for a VARCHAR, true/false for a BOOLEAN; null, a nested object or
 * array, a missing or repeated key, or anything that is not one JSON
 * object makes the line a bad row, with the reason. A schema-driven
 * scanner: no tree is built, values stay in the buffer (strings unescaped
 * in place by fill_fields). */

enum { JSON_BLANK = -5 };

static inline const char *json_ws(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  return p;
}

/* The end of the string whose opening quote is at p[-1]: its closing
 * quote, or NULL; *esc when it holds escapes (checked here). */
static const char *json_str_end(const char *p, const char *e, bool *esc) {
  *esc = false;
  while (p < e) {
    const char *q = memchr(p, '"', (size_t)(e - p));
    const char *bs = memchr(p, '\\', (size_t)((q ? q : e) - p));
    if (!bs) {
      for (const char *k = p; k < (q ? q : e); k++)
        if ((unsigned char)*k < 0x20) return NULL; /* a raw control character */
      return q;
    }
    for (const char *k = p; k < bs; k++)
      if ((unsigned char)*k < 0x20) return NULL;
    *esc = true;
    if (bs + 1 >= e) return NULL;
    char x = bs[1];
    if (x == 'u') {
      if (bs + 6 > e) return NULL;
      for (int i = 2; i < 6; i++) {
        char h = bs[i];
        if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) return NULL;
      }
      p = bs + 6;
    } else if (x == '"' || x == '\\' || x == '/' || x == 'b' || x == 'f' || x == 'n' || x == 'r' || x == 't') {
      p = bs + 2;
    } else {
      return NULL;
    }
  }
  return NULL;
}

/* The end of a JSON number at p (RFC 8259 grammar), or NULL. */
static const char *json_num_end(const char *p, const char *e) {
  if (p < e && *p == '-') p++;
  if (p >= e) return NULL;
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9')
    while (p < e && *p >= '0' && *p <= '9') p++;
  else
    return NULL;
  if (p < e && *p == '.') {
    p++;
    if (p >= e || *p < '0' || *p > '9') return NULL;
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p >= e || *p < '0' || *p > '9') return NULL;
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  return p;
}

/* Past any JSON value at p (to skip an unknown key's), or NULL. */
static const char *json_skip(const char *p, const char *e, int depth) {
  if (p >= e || depth > 64) return NULL;
  bool esc;
  switch (*p) {
  case '"': {
    const char *q = json_str_end(p + 1, e, &esc);
    return q ? q + 1 : NULL;
  }
  case '{':
  case '[': {
    char close = *p == '{' ? '}' : ']';
    p = json_ws(p + 1, e);
    if (p < e && *p == close) return p + 1;
    for (;;) {
      if (close == '}') {
        if (p >= e || *p != '"') return NULL;
        const char *q = json_str_end(p + 1, e, &esc);
        if (!q) return NULL;
        p = json_ws(q + 1, e);
        if (p >= e || *p != ':') return NULL;
        p = json_ws(p + 1, e);
      }
      p = json_skip(p, e, depth + 1);
      if (!p) return NULL;
      p = json_ws(p, e);
      if (p < e && *p == ',') {
        p = json_ws(p + 1, e);
        continue;
      }
      return p < e && *p == close ? p + 1 : NULL;
    }
  }
  case 't': return e - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
  case 'f': return e - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL;
  case 'n': return e - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
  default: return json_num_end(p, e);
  }
}

static int json_bad(AirCsv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int json_bad(AirCsv *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, sizeof c->why, fmt, ap);
  va_end(ap);
  return SCAN_BAD;
}

static const char *kind_name(char k) {
  return k == 's' ? "a string" : k == 'b' ? "true or false" : k == 't' ? "a number or a time string" : "a number";
}

/* The JSON line at pos: ncols (spans in column order), SCAN_BAD (c->why),
 * JSON_BLANK, SCAN_EOF, or SCAN_MORE when its line end is not read yet. */
static int scan_json(AirCsv *c, int max, size_t *end, long *lines) {
  const char *b = c->buf, *p = b + c->pos, *e = b + c->len;
  const char *nl = p;
  while (nl < e && *nl != '\n' && *nl != '\r') nl++;
  if (nl == e && !c->eof) return SCAN_MORE;
  if (nl == e && p == e) return SCAN_EOF;
  size_t after = (size_t)(nl - b);
  if (nl < e) {
    int k = eol_len(c, after);
    if (!k) return SCAN_MORE;
    after += (size_t)k;
  }
  *end = after;
  *lines = nl < e ? 1 : 0;
  e = nl; /* the line, without its end */
  p = json_ws(p, e);
  if (p == e) return JSON_BLANK;
  int ncols = c->ncols;
  uint64_t seen[(ncols + 63) / 64 + 1];
  memset(seen, 0, sizeof seen);
  int nseen = 0;
  if (*p != '{') return json_bad(c, "not a JSON object");
  p = json_ws(p + 1, e);
  if (p < e && *p == '}') {
    p++;
  } else {
    for (;;) {
      if (p >= e || *p != '"') return json_bad(c, "bad JSON: a key (a string) expected at byte %zu",
                                               (size_t)(p - (b + c->pos)) + 1);
      bool kesc;
      const char *ka = p + 1, *kb = json_str_end(ka, e, &kesc);
      if (!kb) return json_bad(c, "bad JSON: an unterminated or malformed string");
      int col = -1;
      if (!kesc) /* keys with escapes match no column (column names are plain) */
        for (int k = 0; k < ncols; k++)
          if (c->col_len[k] == (size_t)(kb - ka) && memcmp(c->cols[k], ka, c->col_len[k]) == 0) {
            col = k;
            break;
          }
      p = json_ws(kb + 1, e);
      if (p >= e || *p != ':') return json_bad(c, "bad JSON: ':' expected after a key");
      p = json_ws(p + 1, e);
      if (col < 0) {
        p = json_skip(p, e, 0);
        if (!p) return json_bad(c, "bad JSON: a malformed value");
      } else {
        if (seen[col / 64] >> (col % 64) & 1) return json_bad(c, "field '%s' is given twice", c->cols[col]);
        seen[col / 64] |= (uint64_t)1 << (col % 64);
        nseen++;
        char want = c->kinds ? c->kinds[col] : 'n';
        const char *va = p, *vb;
        bool esc = false;
        char got;
        if (p < e && *p == '"') {
          vb = json_str_end(p + 1, e, &esc);
          if (!vb) return json_bad(c, "bad JSON: an unterminated or malformed string");
          va = p + 1;
          p = vb + 1;
          got = 's';
        } else if (p < e && (*p == 't' || *p == 'f')) {
          vb = json_skip(p, e, 0);
          if (!vb) return json_bad(c, "bad JSON: a malformed value");
          p = vb;
          got = 'b';
        } else if (p < e && (*p == '{' || *p == '[')) {
          return json_bad(c, "field '%s' is %s (nested values are not read)", c->cols[col],
                          *p == '{' ? "an object" : "an array");
        } else if (p < e && *p == 'n') { /* null: NULL (an empty span, not quoted) */
          vb = json_skip(p, e, 0);
          if (!vb) return json_bad(c, "bad JSON: a malformed value");
          p = vb;
          va = vb = b;
          got = want;
        } else {
          vb = json_num_end(p, e);
          if (!vb) return json_bad(c, "bad JSON: a malformed value of field '%s'", c->cols[col]);
          p = vb;
          got = 'n';
        }
        if (got != want && !(want == 't' && (got == 'n' || got == 's'))) /* a TIMESTAMP: ms or ISO text */
          return json_bad(c, "field '%s' is %s; its column takes %s", c->cols[col], kind_name(got), kind_name(want));
        if (col < max) c->spans[col] = (Span){(size_t)(va - b), (size_t)(vb - b), esc, got == 's' && va != b};
      }
      p = json_ws(p, e);
      if (p < e && *p == ',') {
        p = json_ws(p + 1, e);
        continue;
      }
      if (p < e && *p == '}') {
        p++;
        break;
      }
      return json_bad(c, "bad JSON: ',' or '}' expected at byte %zu", (size_t)(p - (b + c->pos)) + 1);
    }
  }
  if (json_ws(p, e) != e) return json_bad(c, "text after the JSON object");
  if (nseen < ncols) /* a missing field is NULL */
    for (int k = 0; k < ncols && k < max; k++)
      if (!(seen[k / 64] >> (k % 64) & 1)) c->spans[k] = (Span){0, 0, false, false};
  return ncols;
}

/* A JSON string's bytes p[0..n) with its escapes undone, in place (the
 * result is never longer); the new length. \uXXXX (with surrogate pairs)
 * becomes UTF-8; a lone surrogate becomes U+FFFD. */
static size_t json_unescape(char *p, size_t n) {
  size_t j = 0;
  for (size_t k = 0; k < n; k++) {
    if (p[k] != '\\') {
      p[j++] = p[k];
      continue;
    }
    char x = p[++k];
    switch (x) {
    case 'b': p[j++] = '\b'; break;
    case 'f': p[j++] = '\f'; break;
    case 'n': p[j++] = '\n'; break;
    case 'r': p[j++] = '\r'; break;
    case 't': p[j++] = '\t'; break;
    case 'u': {
      unsigned u = (unsigned)strtoul((char[5]){p[k + 1], p[k + 2], p[k + 3], p[k + 4], 0}, NULL, 16);
      k += 4;
      if (u >= 0xD800 && u < 0xDC00 && k + 6 < n + 0 && p[k + 1] == '\\' && p[k + 2] == 'u') {
        unsigned lo = (unsigned)strtoul((char[5]){p[k + 3], p[k + 4], p[k + 5], p[k + 6], 0}, NULL, 16);
        if (lo >= 0xDC00 && lo < 0xE000) {
          u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
          k += 6;
        }
      }
      if (u >= 0xD800 && u < 0xE000) u = 0xFFFD;
      if (u < 0x80) {
        p[j++] = (char)u;
      } else if (u < 0x800) {
        p[j++] = (char)(0xC0 | u >> 6);
        p[j++] = (char)(0x80 | (u & 0x3F));
      } else if (u < 0x10000) {
        p[j++] = (char)(0xE0 | u >> 12);
        p[j++] = (char)(0x80 | (u >> 6 & 0x3F));
        p[j++] = (char)(0x80 | (u & 0x3F));
      } else {
        p[j++] = (char)(0xF0 | u >> 18);
        p[j++] = (char)(0x80 | (u >> 12 & 0x3F));
        p[j++] = (char)(0x80 | (u >> 6 & 0x3F));
        p[j++] = (char)(0x80 | (u & 0x3F));
      }
      break;
    }
    default: p[j++] = x; break; /* " \ / */
    }
  }
  return j;
}

/* A record holding nothing but its line end. */
static bool blank_record(const AirCsv *c, int nf) {
  return nf == 1 && is_eol(c->buf[c->pos]);
}

static size_t unescape(char *p, size_t n) {
  size_t j = 0;
  for (size_t k = 0; k < n; k++) {
    p[j++] = p[k];
    if (p[k] == '"') k++; /* the second quote of "" */
  }
  return j;
}

/* The next record that is not blank: its field count (the boundaries of
 * the first `max` in spans), SCAN_BAD, or SCAN_EOF at the end of input;
 * *line is where it starts, c->rec its first byte. */
/* Inlined into air_csv_next: a call per record cost 3% of a 1-rank csv query (perf). */
static inline __attribute__((always_inline)) int next_record(AirCsv *c, int max, long *line) {
  for (;;) {
    if (c->start) {
      if (c->len - c->pos < 3 && !c->eof) {
        refill(c);
        if (c->stopped) return SCAN_EOF;
        /* No record yet: nothing to send a watermark for, but a kafka
         * rank whose partitions are idle from the start goes as far as
         * the other ranks (air_csv_scanned_wm), so its loop must run. */
        if (c->idle && c->kafka) {
          c->idle = false;
          return SCAN_WAIT;
        }
        c->idle = false;
        continue;
      }
      if (c->len - c->pos >= 3 && memcmp(c->buf + c->pos, "\xEF\xBB\xBF", 3) == 0) c->pos += 3;
      c->start = false;
    }
    size_t end = 0;
    long nl = 0;
    int nf = c->json ? scan_json(c, max, &end, &nl) : scan(c, max, &end, &nl);
    if (nf == JSON_BLANK) { /* a line of blanks is no record, as an empty csv line */
      c->pos = end;
      c->line += nl;
      continue;
    }
    if (nf == SCAN_MORE) {
      /* --duration or a signal stops a file source too, here, once per
       * buffer and between records, so no record is cut in two. */
      if (!c->v && c->rt && air_should_stop(c->rt)) return SCAN_EOF;
      refill(c);
      if (c->stopped) return SCAN_EOF;
      if (c->idle) { /* the partial record stays in the buffer, scanned again */
        c->idle = false;
        return SCAN_WAIT;
      }
      continue;
    }
    if (nf == SCAN_EOF) return SCAN_EOF;
    *line = c->line;
    c->rec = c->pos;
    bool blank = blank_record(c, nf);
    c->pos = end;
    c->line += nl;
    if (!blank) return nf;
  }
}

/* The first min(nf, max) fields of the record just scanned, unescaped. */
static inline __attribute__((always_inline)) void fill_fields(AirCsv *c, AirField *fields, int nf, int max) {
  int nfill = nf < max ? nf : max;
  for (int k = 0; k < nfill; k++) {
    Span *s = &c->spans[k];
    fields[k].p = s->a == s->b && !s->quoted ? air_null_field : c->buf + s->a;
    fields[k].n = !s->esc ? s->b - s->a
                  : c->json ? json_unescape(c->buf + s->a, s->b - s->a)
                            : unescape(c->buf + s->a, s->b - s->a);
  }
}

static int64_t minus_bound(const AirCsv *c, int64_t maxts) {
  int64_t wm;
  if (maxts == AIR_WM_NONE || __builtin_sub_overflow(maxts, c->bound, &wm)) return AIR_WM_NONE;
  return wm;
}

/* Record nf's event time, when it counts (ncols fields, a valid TIMESTAMP
 * in the time column): AIR_PARSE_OK and *ts. */
static inline AirParse record_ts(const AirCsv *c, int nf, int64_t *ts) {
  if (nf != c->ncols || c->time_col < 0) return AIR_PARSE_INVALID;
  const Span *t = &c->spans[c->time_col];
  /* "" in a number makes it no number: no need to unescape */
  return t->esc ? AIR_PARSE_INVALID : air_parse_ts((AirField){c->buf + t->a, t->b - t->a}, ts);
}

/* ---- a regular file's stream split across ranks in blocks -------------
 * On more than one rank, a stream read from a regular file is cut into
 * blocks of AIR_CSV_BLOCK bytes (default 4 MiB) after its header, dealt
 * round robin: block b is rank b % world's. Each rank reads only its own
 * blocks (before, every rank scanned the whole file and kept the records
 * i with i % world == rank, so ranks added scanning, not speed). Round
 * robin, not one range per rank, so the ranks move through the file's
 * event time together: the windows held open waiting for the slowest rank
 * span a few blocks, not half the file.
 *
 * A block holds the records that start at or after its first record
 * boundary at or after its offset, up to the next block's. Finding that
 * boundary from the middle of a file is ambiguous: a line end may be
 * inside a quoted field. So a block's owner takes the first line start
 * after its offset as a candidate and scans from there to the first record
 * boundary at or after the next block's offset (the scan is the reader's
 * own, so quoting, CRLF, a lone CR and blank lines are what the main pass
 * sees), counting records and lines and keeping the largest counted event
 * time. The ranks exchange these (one MPI_Allreduce of a table, MAX), and
 * every rank checks the chain from the header on: a block whose candidate
 * is not where the scan of the block before it (itself checked) ended
 * started inside quotes; its owner scans it again from that end, and the
 * exchange repeats. A file without quoted line ends takes one round; one
 * with them at many block starts takes more rounds (each at least one
 * block further), never a wrong split.
 *
 * Then every rank knows, for each of its blocks, the index of its first
 * record, its first line number and the largest counted event time of all
 * records before it, which is what W(i) needs: record indices, line
 * numbers, lateness and cuts are those of a whole-file read, whatever the
 * split and the number of ranks. The cost is the scan above, the event
 * time of each own record parsed a second time (one pass over the rank's
 * share before the run, not over the file). A file is read up to its size
 * when the run starts (rank 0's stat): what is appended later is not read
 * (follow = true reads a growing file). */

enum { BK_START, BK_END, BK_RECS, BK_LINES, BK_MAXTS, BK_FIELDS };
#define CSV_BLOCK_DEFAULT (4u << 20)
#define CSV_BLOCKS_MAX (1u << 16) /* a larger file takes larger blocks */

typedef struct CsvSplit {
  uint64_t data, size; /* the first record's offset (after a header), the file's size */
  uint64_t block;      /* bytes per block */
  size_t nblocks;
  int rank, world;     /* block b is rank b % world's */
  int64_t *tab;        /* nblocks x BK_FIELDS, combined over ranks with MAX */
  bool *valid;         /* BK_START is the block's first record boundary */
  uint64_t *from;      /* own blocks: where the next scan starts, SPLIT_NONE for none */
  int64_t *recbase, *linebase, *maxbefore; /* per block, once every one is valid */
  long line0;          /* the first record's line number */
  size_t next;         /* the own block the main pass reads next */
} CsvSplit;
#define SPLIT_NONE UINT64_MAX

static uint64_t split_off(const CsvSplit *s, size_t b) {
  return b >= s->nblocks ? s->size : s->data + (uint64_t)b * s->block;
}

/* The reader at file offset `at`, its buffer empty, reading up to stop. */
static void reader_seek(AirCsv *c, uint64_t at, uint64_t stop) {
  c->pos = c->len = 0;
  c->offset = at;
  c->stop_at = stop;
  c->eof = at >= stop;
  if (lseek(c->fd, (off_t)at, SEEK_SET) < 0)
    read_failed(c, "cannot read '%s': %s", c->path, strerror(errno));
}

/* The first line start at or after `at` (data: the first record), or the
 * file's size: after a '\n', or after a '\r' not followed by '\n'. */
static uint64_t line_start_after(AirCsv *c, const CsvSplit *s, uint64_t at) {
  if (at <= s->data) return s->data;
  char b[1 << 16];
  uint64_t p = at - 1; /* b[0] is the byte before the candidate */
  while (p < s->size) {
    ssize_t n = pread(c->fd, b, sizeof b, (off_t)p);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) read_failed(c, "cannot read '%s': %s", c->path, strerror(errno));
      return s->size;
    }
    if ((uint64_t)n > s->size - p) n = (ssize_t)(s->size - p);
    for (ssize_t k = 0; k < n; k++) {
      if (b[k] == '\n') return p + (uint64_t)k + 1;
      if (b[k] == '\r') {
        if (k + 1 < n) {
          if (b[k + 1] != '\n') return p + (uint64_t)k + 1;
        } else if (p + (uint64_t)k + 1 >= s->size) {
          return s->size;
        } else {
          break; /* the next read decides: it starts at this '\r' */
        }
      }
    }
    p += (uint64_t)n - (b[n - 1] == '\r' && p + (uint64_t)n < s->size ? 1 : 0);
  }
  return s->size;
}

/* The csv record at p (before e) when it holds no quote and its line end
 * is in the buffer: where the next one starts, its field count in *nf
 * (0 for an empty line) and its field tc in [*ta, *tb); else NULL (scan
 * decides). A third of the split's cost went to the general scan. */
static inline const char *plain_record(const char *p, const char *e, int tc, int *nf, const char **ta,
                                       const char **tb) {
  int n = 0;
  const char *fa = p, *start = p;
  for (; p < e; p++) {
    unsigned char ch = (unsigned char)*p;
    if (ch > ',') continue; /* digits and letters */
    if (ch == ',') {
      if (n == tc) *ta = fa, *tb = p;
      n++;
      fa = p + 1;
    } else if (ch == '\n' || ch == '\r') {
      break;
    } else if (ch == '"') {
      return NULL;
    }
  }
  if (p == e) return NULL;
  if (n == tc) *ta = fa, *tb = p;
  *nf = p == start ? 0 : n + 1;
  if (*p == '\n') return p + 1;
  if (p + 1 == e) return NULL; /* "\r\n" or a lone '\r': the next byte decides */
  return p + (p[1] == '\n' ? 2 : 1);
}

/* Scan own block b from `from` to the first record boundary at or after
 * the next block's offset: its row of the table. */
static void split_scan(AirCsv *c, CsvSplit *s, size_t b, uint64_t from, int64_t maxrecs) {
  int64_t *row = s->tab + b * BK_FIELDS;
  uint64_t lim = split_off(s, b + 1);
  int64_t recs = 0, lines = 0, maxts = AIR_WM_NONE;
  /* The largest plain time field (digits, no leading zero, at most 14 of
   * them: always a valid TIMESTAMP) is kept as text: for those, longer is
   * larger and equal lengths compare as bytes, so most records cost a
   * memcmp, not a parse; one parse at the end. A field that is not
   * larger as text cannot hold a larger number (a non-digit leaves it
   * fewer digits), whatever it is. Other fields are parsed. */
  char best[16];
  size_t bestn = 0;
  reader_seek(c, from, s->size);
  ensure_spans(c, c->time_col + 1);
  while (c->offset - c->len + c->pos < lim && recs < maxrecs && !c->error) {
    const char *ta = NULL, *tb = NULL, *next;
    int pf;
    if (!c->json && (next = plain_record(c->buf + c->pos, c->buf + c->len, c->time_col, &pf, &ta, &tb))) {
      lines++;
      c->pos = (size_t)(next - c->buf);
      if (pf == 0) continue; /* an empty line: no record */
      recs++;
      if (pf != c->ncols) continue;
      size_t n = (size_t)(tb - ta);
      if (n - 1 < 14 && (ta[0] != '0' || n == 1)) {
        if (n < bestn) continue;
        if (n == bestn) { /* inline: a call to memcmp cost more than the compare */
          size_t k = 0;
          while (k < n && ta[k] == best[k]) k++;
          if (k == n || (unsigned char)ta[k] < (unsigned char)best[k]) continue;
        }
        size_t k = 0;
        while (k < n && (unsigned)(ta[k] - '0') <= 9) k++;
        if (k == n) {
          memcpy(best, ta, n);
          bestn = n;
          continue;
        }
      }
      int64_t ts;
      if (air_parse_ts((AirField){ta, n}, &ts) == AIR_PARSE_OK && ts > maxts) maxts = ts;
      continue;
    }
    size_t end = 0;
    long nl = 0;
    int nf = c->json ? scan_json(c, c->time_col + 1, &end, &nl) : scan(c, c->time_col + 1, &end, &nl);
    if (nf == SCAN_MORE) {
      refill(c);
      continue;
    }
    if (nf == SCAN_EOF) break;
    lines += nl;
    bool blank = nf == JSON_BLANK || (nf >= 0 && blank_record(c, nf));
    int64_t ts;
    if (!blank) {
      recs++;
      if (record_ts(c, nf, &ts) == AIR_PARSE_OK && ts > maxts) maxts = ts;
    }
    c->pos = end;
  }
  int64_t ts;
  if (bestn && air_parse_ts((AirField){best, bestn}, &ts) == AIR_PARSE_OK && ts > maxts) maxts = ts;
  row[BK_START] = (int64_t)from;
  row[BK_END] = (int64_t)(c->offset - c->len + c->pos);
  row[BK_RECS] = recs;
  row[BK_LINES] = lines;
  row[BK_MAXTS] = maxts;
}

/* The split of c's file (its header read) over world ranks, c being rank's
 * reader; size is the file's size as rank 0 saw it, block the bytes per
 * block (0: the default). Nothing is scanned yet. */
static CsvSplit *split_new(AirCsv *c, uint64_t size, uint64_t block, int rank, int world) {
  CsvSplit *s = calloc(1, sizeof *s);
  if (!s) csv_oom();
  if (c->start) { /* no header: a byte order mark may start the file */
    char bom[3];
    s->data = pread(c->fd, bom, 3, 0) == 3 && memcmp(bom, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    c->start = false;
  } else {
    s->data = c->offset - (c->len - c->pos);
  }
  s->size = size > s->data ? size : s->data;
  s->block = block ? block : CSV_BLOCK_DEFAULT;
  uint64_t bytes = s->size - s->data;
  if (bytes / s->block >= CSV_BLOCKS_MAX) s->block = bytes / CSV_BLOCKS_MAX + 1;
  s->nblocks = bytes ? (size_t)((bytes + s->block - 1) / s->block) : 1;
  s->rank = rank;
  s->world = world;
  s->tab = malloc(s->nblocks * BK_FIELDS * sizeof *s->tab);
  s->valid = calloc(s->nblocks, sizeof *s->valid);
  s->from = malloc(s->nblocks * sizeof *s->from);
  s->recbase = malloc(s->nblocks * sizeof *s->recbase);
  s->linebase = malloc(s->nblocks * sizeof *s->linebase);
  s->maxbefore = malloc(s->nblocks * sizeof *s->maxbefore);
  if (!s->tab || !s->valid || !s->from || !s->recbase || !s->linebase || !s->maxbefore) csv_oom();
  for (size_t b = 0; b < s->nblocks; b++)
    s->from[b] = (int)(b % (size_t)world) != rank ? SPLIT_NONE
                 : b == 0 ? s->data : line_start_after(c, s, split_off(s, b));
  s->line0 = c->line;
  s->next = (size_t)rank;
  return s;
}

/* One round: scan the own blocks that need it. The table then holds this
 * rank's rows and INT64_MIN in the others', for the MAX over ranks. */
static void split_round(AirCsv *c, CsvSplit *s) {
  for (size_t b = 0; b < s->nblocks; b++) {
    int64_t *row = s->tab + b * BK_FIELDS;
    if ((int)(b % (size_t)s->world) != s->rank) {
      for (int k = 0; k < BK_FIELDS; k++) row[k] = INT64_MIN;
    } else if (s->from[b] != SPLIT_NONE) {
      split_scan(c, s, b, s->from[b], INT64_MAX);
      s->from[b] = SPLIT_NONE;
    }
  }
}

/* With every rank's rows in the table: true when each block starts where
 * the block before it ended (the first after the header), and then each
 * block's first record index, line and the largest event time before it
 * are known; else the own blocks to scan again are marked. */
static bool split_resolve(CsvSplit *s) {
  bool all = true;
  for (size_t b = 0; b < s->nblocks; b++) {
    const int64_t *row = s->tab + b * BK_FIELDS;
    s->valid[b] = false;
    if (b == 0) {
      s->valid[b] = row[BK_START] == (int64_t)s->data;
    } else if (s->valid[b - 1]) {
      int64_t want = s->tab[(b - 1) * BK_FIELDS + BK_END];
      s->valid[b] = row[BK_START] == want;
      if (!s->valid[b] && (int)(b % (size_t)s->world) == s->rank) s->from[b] = (uint64_t)want;
    }
    all = all && s->valid[b];
  }
  if (!all) return false;
  int64_t recs = 0, line = s->line0, mx = AIR_WM_NONE;
  for (size_t b = 0; b < s->nblocks; b++) {
    const int64_t *row = s->tab + b * BK_FIELDS;
    s->recbase[b] = recs;
    s->linebase[b] = line;
    s->maxbefore[b] = mx;
    recs += row[BK_RECS];
    line += row[BK_LINES];
    if (row[BK_MAXTS] > mx) mx = row[BK_MAXTS];
  }
  return true;
}

/* The reader at the start of its next own block; false when none is left. */
static bool split_next(AirCsv *c) {
  CsvSplit *s = c->split;
  if (s->next >= s->nblocks) return false;
  size_t b = s->next;
  /* past a stop's cut: not entered (its start would raise the watermark
   * above W(cut)) */
  if (c->cut >= 0 && s->recbase[b] >= c->cut) return false;
  s->next += (size_t)s->world;
  const int64_t *row = s->tab + b * BK_FIELDS;
  int64_t done = c->ck_thr ? c->ck_thr[b % (size_t)c->ck_nthr] : INT64_MIN; /* resumed: read before */
  if (done >= s->recbase[b] + row[BK_RECS]) return split_next(c); /* the whole block */
  reader_seek(c, (uint64_t)row[BK_START], (uint64_t)row[BK_END]);
  c->index = (uint64_t)s->recbase[b];
  c->line = s->linebase[b];
  if (s->maxbefore[b] > c->maxts) c->maxts = s->maxbefore[b];
  if (done > s->recbase[b]) skip_to(c, done, true);
  return true;
}

/* A stop's cut at record k (cut.c, the same k on every rank): the largest
 * counted event time of records 0..k-1, which the reader's last watermark
 * must be (every rank's the same, as when each scanned the whole file; a
 * rank whose blocks end before k knows it only for whole blocks). The
 * part of the block holding k before it is scanned here again, by a
 * reader of its own (a new open file description: the main reader's
 * offset and buffer stay as they are). */
static int64_t split_cut_max(AirCsv *c, int64_t k) {
  CsvSplit *s = c->split;
  size_t b = 0;
  while (b + 1 < s->nblocks && s->recbase[b + 1] <= k) b++;
  const int64_t *row = s->tab + b * BK_FIELDS;
  int64_t mx = s->maxbefore[b], part = k - s->recbase[b];
  if (part >= row[BK_RECS]) return row[BK_MAXTS] > mx ? row[BK_MAXTS] : mx;
  if (part <= 0) return mx;
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", c->fd);
  int fd = open(self, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fd = open(c->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    read_failed(c, "cannot read '%s' again for the stop: %s", c->path, strerror(errno));
    return mx;
  }
  AirCsv t = {.path = c->path, .name = c->name, .ncols = c->ncols, .time_col = c->time_col, .fd = fd,
              .json = c->json, .cols = c->cols, .col_len = c->col_len, .kinds = c->kinds, .rt = c->rt,
              .keep_error = c->keep_error, .cap = CSV_BUF_INIT, .stop_at = UINT64_MAX};
  t.buf = malloc(t.cap);
  if (!t.buf) csv_oom();
  int64_t saved[BK_FIELDS];
  memcpy(saved, row, sizeof saved);
  split_scan(&t, s, b, (uint64_t)row[BK_START], part);
  int64_t got = row[BK_MAXTS];
  memcpy(s->tab + b * BK_FIELDS, saved, sizeof saved);
  close(fd);
  free(t.buf);
  free(t.spans);
  free(t.error);
  return got > mx ? got : mx;
}

static void split_free(CsvSplit *s) {
  if (!s) return;
  free(s->tab);
  free(s->valid);
  free(s->from);
  free(s->recbase);
  free(s->linebase);
  free(s->maxbefore);
  free(s);
}

static uint64_t split_block_env(void) {
  const char *e = getenv("AIR_CSV_BLOCK");
  char *end;
  unsigned long long v = e ? strtoull(e, &end, 10) : 0;
  return e && *e && !*end ? (uint64_t)v : 0;
}

/* c (rank's reader, its header read) reads its blocks from now on. */
static void split_attach(AirCsv *c, CsvSplit *s) {
  c->split = s;
  air_pace_init(&c->pace, c->rate / s->world); /* each rank paces its share */
  if (!split_next(c)) { /* no block of its own: nothing to read */
    c->pos = c->len = 0;
    c->stop_at = c->offset;
    c->eof = true;
  }
}

/* The split over MPI: rounds until every block is where the one before it ended. */
static void split_mpi(AirRuntime *rt, AirCsv *c, uint64_t size) {
  CsvSplit *s = split_new(c, size, split_block_env(), rt->rank, rt->world);
  for (int round = 1;; round++) {
    split_round(c, s);
    MPI_Allreduce(MPI_IN_PLACE, s->tab, (int)(s->nblocks * BK_FIELDS), MPI_INT64_T, MPI_MAX, rt->comm);
    if (split_resolve(s)) break;
    if (round == 3 && rt->rank == 0)
      fprintf(stderr, "%s: note: stream '%s': line ends inside quoted fields at many block starts of "
              "'%s': its split across ranks takes more rounds\n", rt->name, c->name, c->path);
  }
  split_attach(c, s);
}

void air_csv_split_local(AirCsv **readers, int world, uint64_t size, uint64_t block) {
  CsvSplit *s[world];
  for (int r = 0; r < world; r++) s[r] = split_new(readers[r], size, block, r, world);
  size_t n = s[0]->nblocks * BK_FIELDS;
  for (;;) {
    for (int r = 0; r < world; r++) split_round(readers[r], s[r]);
    for (size_t k = 0; k < n; k++) /* what MPI_Allreduce(MAX) makes */
      for (int r = 1; r < world; r++)
        if (s[r]->tab[k] > s[0]->tab[k]) s[0]->tab[k] = s[r]->tab[k];
    for (int r = 1; r < world; r++) memcpy(s[r]->tab, s[0]->tab, n * sizeof *s[0]->tab);
    bool all = true;
    for (int r = 0; r < world; r++) all = split_resolve(s[r]) && all;
    if (all) break;
  }
  for (int r = 0; r < world; r++) split_attach(readers[r], s[r]);
}

int air_csv_next(AirCsv *c, AirField *fields, int max, long *line) {
  if (max < 0) max = 0;
  /* the time column is parsed for the watermark even when not asked for */
  int want = max > c->time_col + 1 ? max : c->time_col + 1;
  ensure_spans(c, want);
  while (!c->done) {
    if (c->cut < 0 && c->v && (c->stopped || air_should_stop(c->rt))) {
      /* A stop: park between records, then read the records before the
       * cut every rank agreed on (cut.c), and no more. */
      c->cut = air_source_park(c->v, (int64_t)c->index);
      if (c->split && c->cut >= 0) c->cutmax = split_cut_max(c, c->cut);
      if (c->kafka) { /* each rank's own partitions: it ends where it is */
        c->cut = (int64_t)c->index;
        c->kops->lag(c->kafka);
      }
      c->stopped = false;
    }
    if (c->v && atomic_load_explicit(&c->rt->ck_req, memory_order_relaxed) > c->ck_seen &&
        air_ckpt_due(c->v, 0, &c->ck_seen, (int64_t)c->index))
      return AIR_CSV_BARRIER; /* a checkpoint: the records before index are read */
    if (c->cut >= 0 && c->index >= (uint64_t)c->cut) break;
    if (c->budget == 0) {
      /* a slice of about 1 ms of records at a time (all when unthrottled) */
      if (!c->v && c->rt && air_should_stop(c->rt)) break;
      if (!(c->budget = air_pace_take(&c->pace, CSV_PACE_MAX))) return AIR_CSV_WAIT;
    }
    long start;
    int nf = next_record(c, want, &start);
    if (nf == SCAN_WAIT) return AIR_CSV_WAIT; /* the writer is idle: the loop sends its watermark */
    if (nf == SCAN_EOF && c->stopped && c->v) continue; /* the stop came while waiting */
    if (nf == SCAN_EOF && c->split && !c->stopped && split_next(c)) continue;
    if (nf == SCAN_EOF) break;
    c->index++;
    /* a kafka message is one record: more lines in it make it a bad row */
    c->kmulti = c->kafka && c->pos < c->len && nf != SCAN_EOF;
    if (c->kmulti) c->pos = c->len;
    int64_t *maxts = c->kafka ? c->kops->maxts(c->kafka, c->kpart) : &c->maxts;
    int64_t before = *maxts, ts = 0;
    AirParse ok = AIR_PARSE_INVALID;
    if (nf == c->ncols && c->time_col >= 0 && !c->kmulti) {
      ok = record_ts(c, nf, &ts);
      if (ok == AIR_PARSE_OK && ts > *maxts) *maxts = ts;
    } else if (c->tmsg && nf == c->ncols && !c->kmulti) {
      /* the message's timestamp, counted as a time field of the record would be */
      ts = c->kts;
      ok = ts == AIR_WM_NONE ? AIR_PARSE_INVALID
           : ts < AIR_TS_MIN || ts > AIR_TS_MAX ? AIR_PARSE_RANGE : AIR_PARSE_OK;
      if (ok == AIR_PARSE_OK && ts > *maxts) *maxts = ts;
    } else if (c->tproc && nf == c->ncols && !c->kmulti) {
      /* processing time: the clock now, never behind the watermark given out */
      ts = air_now_ms();
      if (ts < *maxts) ts = *maxts;
      ok = AIR_PARSE_OK;
      *maxts = ts;
    }
    c->budget--;
    c->taken++;
    c->row.wm = minus_bound(c, before);
    if (c->kafka && c->row.wm < c->kfloor) c->row.wm = c->kfloor;
    c->row.ts_ok = ok;
    c->row.ts = ts;
    if (line) *line = c->kafka ? (long)c->koff : start;
    if (nf == SCAN_BAD || c->kmulti) return AIR_CSV_BAD_QUOTING;
    fill_fields(c, fields, nf, max);
    return nf;
  }
  c->done = true;
  /* past the cut: its watermark, W(cut), whichever rank read what */
  if (c->split && c->cut >= 0 && c->cutmax > c->maxts) c->maxts = c->cutmax;
  if (c->follow && c->pos < c->len && !memchr(c->buf + c->pos, '\n', c->len - c->pos) &&
      !memchr(c->buf + c->pos, '\r', c->len - c->pos))
    fprintf(stderr, "%s:%ld: warning: stream '%s' stopped before this last line ended (%zu bytes "
            "without a line end, not read)\n", c->path, c->line, c->name, c->len - c->pos);
  char msg[768];
  /* a table's counts are the same on every rank: each decides alone */
  if (c->table && c->rt && !c->keep_error && !air_should_stop(c->rt) &&
      over_limit(c, (uint64_t)c->bad, c->taken, msg, sizeof msg))
    air_fatal(c->rt, "%s", msg);
  return AIR_CSV_END;
}

int64_t air_csv_scanned_wm(AirCsv *c) {
  if (c->tproc) { /* processing time: the clock, also while nothing comes (no row to come is behind it) */
    int64_t now = air_now_ms();
    if (now > c->maxts) c->maxts = now;
    return c->maxts;
  }
  if (!c->kafka) return minus_bound(c, c->maxts);
  /* the partitions' minimum, never below what was given out before */
  int64_t m = c->kops->wm(c->kafka, c->bound);
  /* None holds it (all idle, or at their end): this rank must not hold
   * back the other ranks' windows either, so it goes as far as they went
   * (Flink marks such a reader idle; here it takes their watermark, so
   * that what it reads later is judged late against what it sent). */
  if (c->v) air_source_idle(c->v, m == AIR_WM_END);
  if (m == AIR_WM_END && c->v) {
    int64_t peers = air_peer_wm(c->v);
    if (peers != AIR_WM_NONE && peers != AIR_WM_END) m = peers;
  }
  if (m != AIR_WM_END && m > c->kfloor) c->kfloor = m;
  return c->kfloor;
}

const char *air_csv_bad_why(const AirCsv *c) {
  if (c->kmulti) return "the message holds more than one line (one record per message)";
  return c->json ? c->why : "bad quoting";
}

void air_csv_bind(AirCsv *c, AirVertex *v) { c->v = c->rt ? v : NULL; }

bool air_csv_cut(const AirCsv *c, int64_t *k) {
  *k = c->cut;
  return c->cut >= 0;
}

/* ---- checkpoints: where the reader is ----------------------------------- */

void air_csv_save(AirCkptW *w, const AirCsv *c) {
  if (c->kafka) { /* the offsets, and the watermark given out */
    int64_t v[2] = {(int64_t)c->index, c->bad};
    air_ckpt_put(w, v, sizeof v);
    air_ckpt_put_i64(w, c->kfloor);
    c->kops->save(c->kafka, w);
    return;
  }
  int64_t v[11] = {(int64_t)c->index, c->line, (int64_t)(c->offset - (c->len - c->pos)), (int64_t)c->stop_at,
                   c->maxts, c->bad, (int64_t)c->taken, c->start, c->split ? (int64_t)c->split->next : -1,
                   c->split ? (int64_t)c->split->nblocks : -1, 0};
  air_ckpt_put(w, v, sizeof v);
}

void air_csv_load(AirCkptR *r, AirCsv *c) {
  if (c->kafka) {
    int64_t v[2];
    air_ckpt_get(r, v, sizeof v);
    if (air_ckpt_rescaled(r)) {
      if (!air_ckpt_dropping(r)) c->bad += (long)v[1];
    } else {
      c->index = (uint64_t)v[0];
      c->bad = (long)v[1];
    }
    c->kfloor = air_ckpt_get_min(r, c->kfloor);
    c->kops->load(c->kafka, r);
    return;
  }
  int64_t v[11];
  air_ckpt_get(r, v, sizeof v);
  if (air_ckpt_rescaled(r)) { /* air_csv_seek skipped what was read; the counts add up */
    if (!air_ckpt_dropping(r)) {
      c->bad += (long)v[5];
      c->taken += (uint64_t)v[6];
    }
    return;
  }
  if ((v[9] >= 0) != (c->split != NULL) || (c->split && v[9] != (int64_t)c->split->nblocks))
    air_fatal(c->rt, "checkpoint: '%s' is not cut into the blocks it was when the checkpoint was taken "
              "(the file changed)", c->path);
  if (c->fd < 0) air_fatal(c->rt, "checkpoint: stream '%s' cannot seek in '%s'", c->name, c->path);
  reader_seek(c, (uint64_t)v[2], (uint64_t)v[3]);
  c->index = (uint64_t)v[0];
  c->line = (long)v[1];
  c->maxts = v[4];
  c->bad = (long)v[5];
  c->taken = (uint64_t)v[6];
  c->start = v[7] != 0;
  if (c->split) c->split->next = (size_t)v[8];
}

/* Records up to k skipped: each scanned as air_csv_next does, its event
 * time counted for the watermark when count_ts (a whole-file read). */
static void skip_to(AirCsv *c, int64_t k, bool count_ts) {
  int want = c->ncols + 1 > c->time_col + 1 ? c->ncols + 1 : c->time_col + 1;
  ensure_spans(c, want);
  while ((int64_t)c->index < k) {
    long start;
    int nf = next_record(c, want, &start);
    if (nf == SCAN_EOF || nf == SCAN_WAIT) break;
    c->index++;
    int64_t ts;
    if (count_ts && nf == c->ncols && c->time_col >= 0 && record_ts(c, nf, &ts) == AIR_PARSE_OK && ts > c->maxts)
      c->maxts = ts;
  }
}

/* Records read before the checkpoint skipped (its reader had none of its
 * own, or the ranks changed): in blocks, block b's records before pos[b %
 * n] were read then (rank b % n of n read it; INT64_MAX: all of its blocks);
 * one reader of the whole file read the records before pos[0]. The
 * watermark's base is then that of a whole-file read at each first record. */
void air_csv_seek(AirCsv *c, const int64_t *pos, int n) {
  if (n < 1) return;
  if (c->kafka) {
    c->kops->seek(c->kafka, pos, n);
    return;
  }
  if (c->fd < 0 || c->polled) air_fatal(c->rt, "checkpoint: stream '%s' cannot seek in '%s'", c->name, c->path);
  CsvSplit *s = c->split;
  if (!s) { /* a whole-file reader then and now */
    if (pos[0] == INT64_MAX) {
      c->pos = c->len = 0;
      c->stop_at = c->offset;
      c->eof = true;
    } else {
      skip_to(c, pos[0], true);
    }
    return;
  }
  free(c->ck_thr);
  c->ck_thr = malloc((size_t)n * sizeof *c->ck_thr);
  if (!c->ck_thr) csv_oom();
  memcpy(c->ck_thr, pos, (size_t)n * sizeof *pos);
  c->ck_nthr = n;
  s->next = (size_t)s->rank; /* from the first own block again, skipping what was read */
  c->maxts = AIR_WM_NONE;
  c->pos = c->len = 0;
  c->stop_at = c->offset;
  c->eof = true;
  c->start = false;
}
