/* ckpt.c - consistent checkpoints while the dataflow runs, and resume.
 *
 * A checkpoint is a cut of the whole dataflow taken by barriers that flow
 * with the rows (Chandy-Lamport, as Flink's asynchronous barrier snapshots),
 * in airc's master-less style: rank 0 only starts it and writes its manifest.
 *
 *  1. Rank 0 asks every rank for checkpoint N (AIR_TAG_CKPT_START). Each
 *     source instance, between two rows, notes its position (its own order
 *     of rows: a generator's next row index, a file's next record index,
 *     each Kafka partition's next offset), writes its state (position,
 *     watermark, partial aggregates) and sends a barrier on every port,
 *     after the rows before it. No source waits for another.
 *  2. A consumer takes a barrier from each of its (edge, sender) slots;
 *     batches from a slot whose barrier came are held back until every
 *     slot's came (alignment; a slot that ended counts as come). Then its
 *     state is exactly that of the rows before the barriers: it writes it,
 *     sends the barrier on, and takes the held batches (vertex.c). The
 *     collector writes its held rows and the length its sink file has
 *     (flushed and fsync'd).
 *  3. Each rank tells rank 0 when all its vertex instances wrote (or ended),
 *     with each source instance's position (AIR_TAG_CKPT_DONE); rank 0 then
 *     writes DIR/ckpt-N/MANIFEST (the positions, the files, their sizes and
 *     CRC32C) through a rename: the checkpoint counts only then. Older ones
 *     beyond --checkpoint-keep are deleted.
 *
 * A stop (SIGINT, SIGTERM, --duration) closes windows early, so a
 * checkpoint that a stop overtook is dropped, and none starts after one.
 * Resume: rank 0 picks the newest checkpoint whose manifest and files
 * verify (a torn or corrupt one is named and set aside), every vertex
 * reads its file before the threads start (sources on their thread), and
 * the collector cuts its sink file back to the length recorded. On another
 * number of ranks or threads, a consumer reads every rank's file and keeps
 * the keys it owns now (the exchange's hash), and a source instance skips
 * what the instances of then had read (their positions in the manifest)
 * and folds in their partial aggregates. The files: DIR/ckpt-N/rR-vV-iI
 * (rank, vertex, instance), each a header, the state, and a trailer with
 * the length and CRC32C. docs/design.md, "Checkpoints".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "air_int.h"
#include "air_optparse.h"

/* snprintf, for paths and messages that may be cut (never past cap). */
static void fmt(char *out, size_t cap, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *out, size_t cap, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  vsnprintf(out, cap, f, ap);
  va_end(ap);
}

/* ---- CRC32C (Castagnoli), eight bytes a step ---------------------------- */

static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    crc_tab[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++) crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

/* The CRC32C of p[0..n) continuing crc (0 to start). */
static uint32_t crc32c(uint32_t crc, const void *p, size_t n) {
  pthread_once(&crc_once, crc_init);
  const unsigned char *b = p;
  crc = ~crc;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    w ^= crc;
    crc = crc_tab[7][w & 0xff] ^ crc_tab[6][(w >> 8) & 0xff] ^ crc_tab[5][(w >> 16) & 0xff] ^
          crc_tab[4][(w >> 24) & 0xff] ^ crc_tab[3][(w >> 32) & 0xff] ^ crc_tab[2][(w >> 40) & 0xff] ^
          crc_tab[1][(w >> 48) & 0xff] ^ crc_tab[0][w >> 56];
    b += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ crc_tab[0][(crc ^ *b++) & 0xff];
  return ~crc;
}

/* ---- the state of a run's checkpoints ----------------------------------- */

#define CK_MAGIC "AIRCKPT1"
#define CK_TRAILER 0x21444e45u /* "END!" */
#define CK_HEADER 40           /* magic, fingerprint, id, rank, vertex, instance, 0 */
#define CK_BUF (1 << 20)
#define CK_MAX_SOURCES 64

typedef struct AirCkpt {
  char *dir;            /* --checkpoint-dir (or the --resume directory) */
  int64_t interval_ms;  /* --checkpoint-interval; 0: none taken (only resumed) */
  int keep;             /* --checkpoint-keep */
  uint64_t fp;          /* the query's fingerprint */
  char fps[17];         /* ... as hex */
  int64_t resumed;      /* the checkpoint the state comes from, 0: none */
  int old_world, old_threads; /* ... taken on these (rescaled: not this run's) */
  int old_nsrc;         /* ... per source vertex, in definition order: */
  int old_inst[CK_MAX_SOURCES];       /* its instances per rank then */
  int old_npos[CK_MAX_SOURCES];       /* its instances in all then */
  int64_t *old_pos[CK_MAX_SOURCES];   /* each one's position at its barrier */
  int64_t next_id;      /* rank 0: the next checkpoint's id */
  double next_at;       /* rank 0: when it starts (monotonic s) */
  /* the checkpoint under way (0: none) */
  int64_t cur;
  bool done_sent;
  int nsrc;             /* source vertices, in definition order */
  AirVertex **src;
  int64_t *cur_pos[CK_MAX_SOURCES]; /* rank 0: per source, each instance's position at its barrier */
  int ndone;            /* rank 0: ranks heard */
  bool all_ok;          /* rank 0: no rank saw a stop */
  int64_t files;        /* rank 0: files the ranks said they wrote */
  _Atomic int64_t wrote;  /* this rank: files written for cur */
  _Atomic int64_t bytes;  /* this rank: their bytes */
  double started;       /* rank 0: when cur began */
  /* rank 0: for the summary */
  int64_t completed, dropped, last_bytes, max_bytes, cur_bytes;
  double last_s, max_s, total_s;
  double restore_s;     /* resuming: verifying (rank 0) and reading the state, the largest over ranks */
  _Atomic int64_t load_us; /* this rank: reading the state (sources add theirs) */
} AirCkpt;

bool air_ckpt_on(const AirRuntime *rt) { return rt->ck && rt->ck->interval_ms > 0; }
bool air_ckpt_resuming(const AirRuntime *rt) { return rt->ck && rt->ck->resumed > 0; }

static void ck_path(const AirCkpt *ck, int64_t id, const char *name, char *out, size_t cap) {
  if (name)
    fmt(out, cap, "%s/ckpt-%06" PRId64 "/%s", ck->dir, id, name);
  else
    fmt(out, cap, "%s/ckpt-%06" PRId64, ck->dir, id);
}

/* A vertex instance's state (suffix ""); with ".n", only the counts of one
 * that had ended. */
static void file_name(int rank, int vertex, int inst, const char *suffix, char *out, size_t cap) {
  fmt(out, cap, "r%d-v%d-i%d%s", rank, vertex, inst, suffix);
}

/* fsync a directory, so a rename in it is durable. */
static void sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
}

/* ---- writing a file ------------------------------------------------------ */

struct AirCkptW {
  AirRuntime *rt;
  FILE *f;
  char path[4096], tmp[4200];
  uint32_t crc;
  uint64_t n;     /* bytes after the header */
  char *buf;
};

static void w_raw(AirCkptW *w, const void *p, size_t n) {
  if (n && fwrite(p, 1, n, w->f) != n)
    air_fatal(w->rt, "checkpoint: cannot write '%s': %s", w->tmp, strerror(errno ? errno : EIO));
  w->crc = crc32c(w->crc, p, n);
}

void air_ckpt_put(AirCkptW *w, const void *p, size_t n) {
  w_raw(w, p, n);
  w->n += n;
}

void air_ckpt_put_i64(AirCkptW *w, int64_t v) { air_ckpt_put(w, &v, sizeof v); }

static void put_header(AirCkptW *w, const AirCkpt *ck, int64_t id, int vertex, int inst) {
  unsigned char h[CK_HEADER];
  memset(h, 0, sizeof h);
  memcpy(h, CK_MAGIC, 8);
  memcpy(h + 8, &ck->fp, 8);
  memcpy(h + 16, &id, 8);
  int32_t r = w->rt->rank, v = vertex, i = inst;
  memcpy(h + 24, &r, 4);
  memcpy(h + 28, &v, 4);
  memcpy(h + 32, &i, 4);
  w_raw(w, h, sizeof h);
}

static AirCkptW *writer_open(AirRuntime *rt, int64_t id, int vertex, int inst, const char *suffix) {
  AirCkpt *ck = rt->ck;
  AirCkptW *w = air_xmalloc(rt, sizeof *w);
  memset(w, 0, sizeof *w);
  w->rt = rt;
  char name[64];
  file_name(rt->rank, vertex, inst, suffix, name, sizeof name);
  ck_path(ck, id, name, w->path, sizeof w->path);
  fmt(w->tmp, sizeof w->tmp, "%s.tmp", w->path);
  w->f = fopen(w->tmp, "wb");
  if (!w->f) air_fatal(rt, "checkpoint: cannot write '%s': %s", w->tmp, strerror(errno));
  w->buf = air_xmalloc(rt, CK_BUF);
  setvbuf(w->f, w->buf, _IOFBF, CK_BUF);
  put_header(w, ck, id, vertex, inst);
  return w;
}

/* The trailer, then durable (fsync), then the file's own name. */
static void writer_close(AirCkptW *w) {
  uint64_t n = w->n;
  uint32_t crc = w->crc, magic = CK_TRAILER;
  unsigned char t[16];
  memcpy(t, &n, 8);
  memcpy(t + 8, &crc, 4);
  memcpy(t + 12, &magic, 4);
  if (fwrite(t, 1, sizeof t, w->f) != sizeof t || fflush(w->f) != 0 || fsync(fileno(w->f)) != 0)
    air_fatal(w->rt, "checkpoint: cannot write '%s': %s", w->tmp, strerror(errno ? errno : EIO));
  fclose(w->f);
  if (rename(w->tmp, w->path) != 0)
    air_fatal(w->rt, "checkpoint: cannot rename '%s': %s", w->tmp, strerror(errno));
  AirCkpt *ck = w->rt->ck;
  atomic_fetch_add(&ck->wrote, 1);
  atomic_fetch_add(&ck->bytes, (int64_t)(n + CK_HEADER + sizeof t));
  free(w->buf);
  free(w);
}

/* ---- reading a file ------------------------------------------------------ */

struct AirCkptR {
  AirRuntime *rt;
  FILE *f;
  char path[4096];
  uint64_t left;  /* state bytes not read yet */
  bool rescaled;  /* the checkpoint was taken on another number of ranks or threads */
  bool first;     /* the first file read into this state (scalars: the rest fold by min) */
  bool drop;      /* rescaled: its scalars are read, its keyed state is another instance's */
};

bool air_ckpt_dropping(const AirCkptR *r) { return r->drop; }

size_t air_ckpt_share(const AirCkptR *r, size_t n) {
  if (r->drop) return 0;
  return r->rescaled ? n / (size_t)r->rt->world + n / (size_t)r->rt->world / 8 + 1 : n;
}

bool air_ckpt_rescaled(const AirCkptR *r) { return r->rescaled; }

bool air_ckpt_keeps(const AirCkptR *r, uint64_t hash) {
  return !r->rescaled || (int)(hash % (uint64_t)r->rt->world) == r->rt->rank;
}

int64_t air_ckpt_get_min(AirCkptR *r, int64_t cur) {
  int64_t v = air_ckpt_get_i64(r);
  return r->first || v < cur ? v : cur;
}

void air_ckpt_get(AirCkptR *r, void *p, size_t n) {
  if (n > r->left || (n && fread(p, 1, n, r->f) != n))
    air_fatal(r->rt, "checkpoint: '%s' ends before its state does: it was written by another build of "
              "the query (start afresh with another --checkpoint-dir)", r->path);
  r->left -= n;
}

int64_t air_ckpt_get_i64(AirCkptR *r) {
  int64_t v;
  air_ckpt_get(r, &v, sizeof v);
  return v;
}

/* Checks a file whole: its header says what it should, its trailer its
 * length and CRC32C. NULL when good, else why not (static text). */
static const char *verify_file(const char *path, const AirCkpt *ck, int64_t id, uint64_t *size, uint32_t *crc_out) {
  FILE *f = fopen(path, "rb");
  if (!f) return errno == ENOENT ? "missing" : "cannot be read";
  static _Thread_local char why[160];
  unsigned char *buf = malloc(CK_BUF);
  if (!buf) {
    fclose(f);
    return "out of memory";
  }
  struct stat sb;
  const char *bad = NULL;
  if (fstat(fileno(f), &sb) != 0 || sb.st_size < CK_HEADER + 16) {
    bad = "truncated (shorter than its header and trailer)";
  } else {
    uint64_t body = (uint64_t)sb.st_size - 16, done = 0;
    uint32_t crc = 0;
    unsigned char h[CK_HEADER];
    if (fread(h, 1, CK_HEADER, f) != CK_HEADER || memcmp(h, CK_MAGIC, 8) != 0) {
      bad = "not a checkpoint file";
    } else {
      uint64_t fp;
      int64_t fid;
      memcpy(&fp, h + 8, 8);
      memcpy(&fid, h + 16, 8);
      if (fp != ck->fp) bad = "written by another query";
      else if (fid != id) bad = "belongs to another checkpoint";
      crc = crc32c(0, h, CK_HEADER);
      done = CK_HEADER;
    }
    while (!bad && done < body) {
      size_t want = body - done < CK_BUF ? (size_t)(body - done) : CK_BUF;
      size_t got = fread(buf, 1, want, f);
      if (got == 0) {
        bad = "cannot be read";
        break;
      }
      crc = crc32c(crc, buf, got);
      done += got;
    }
    unsigned char t[16];
    if (!bad && fread(t, 1, 16, f) != 16) bad = "truncated";
    if (!bad) {
      uint64_t n;
      uint32_t c, m;
      memcpy(&n, t, 8);
      memcpy(&c, t + 8, 4);
      memcpy(&m, t + 12, 4);
      if (m != CK_TRAILER || n != body - CK_HEADER) {
        bad = "truncated or torn (its trailer does not match its length)";
      } else if (c != crc) {
        fmt(why, sizeof why, "corrupt (CRC32C %08x, its trailer says %08x)", crc, c);
        bad = why;
      } else {
        *size = (uint64_t)sb.st_size;
        *crc_out = c;
      }
    }
  }
  free(buf);
  fclose(f);
  return bad;
}

/* Opens the file of (vertex, inst) of the resumed checkpoint; NULL when
 * this instance wrote none (it had ended: it starts empty and ends). */
static AirCkptR *reader_open(AirRuntime *rt, int rank, int vertex, int inst, const char *suffix) {
  AirCkpt *ck = rt->ck;
  char name[64];
  file_name(rank, vertex, inst, suffix, name, sizeof name);
  AirCkptR *r = air_xmalloc(rt, sizeof *r);
  memset(r, 0, sizeof *r);
  r->rt = rt;
  ck_path(ck, ck->resumed, name, r->path, sizeof r->path);
  r->f = fopen(r->path, "rb");
  if (!r->f) {
    free(r);
    return NULL;
  }
  struct stat sb;
  unsigned char h[CK_HEADER];
  if (fstat(fileno(r->f), &sb) != 0 || sb.st_size < CK_HEADER + 16 || fread(h, 1, CK_HEADER, r->f) != CK_HEADER)
    air_fatal(rt, "checkpoint: cannot read '%s'", r->path);
  r->left = (uint64_t)sb.st_size - CK_HEADER - 16;
  r->rescaled = ck->old_world != rt->world || ck->old_threads != rt->threads;
  r->first = true;
  return r;
}

static void reader_close(AirCkptR *r) {
  if (r->left)
    air_fatal(r->rt, "checkpoint: '%s' holds %" PRIu64 " bytes more than the query's state: it was written "
              "by another build of the query (start afresh with another --checkpoint-dir)", r->path, r->left);
  fclose(r->f);
  free(r);
}

/* ---- directories --------------------------------------------------------- */

/* The checkpoint ids in dir, newest first; complete[i]: it has a MANIFEST. */
static int list_ids(const AirCkpt *ck, int64_t **ids) {
  *ids = NULL;
  DIR *d = opendir(ck->dir);
  if (!d) return 0;
  int n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    if (strncmp(e->d_name, "ckpt-", 5) != 0) continue;
    long long id = strtoll(e->d_name + 5, &end, 10);
    if (*end || id <= 0) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      int64_t *p = realloc(*ids, (size_t)cap * sizeof *p);
      if (!p) break;
      *ids = p;
    }
    (*ids)[n++] = id;
  }
  closedir(d);
  for (int i = 1; i < n; i++) /* newest first */
    for (int j = i; j > 0 && (*ids)[j] > (*ids)[j - 1]; j--) {
      int64_t t = (*ids)[j];
      (*ids)[j] = (*ids)[j - 1];
      (*ids)[j - 1] = t;
    }
  return n;
}

static bool has_manifest(const AirCkpt *ck, int64_t id) {
  char p[4200];
  ck_path(ck, id, "MANIFEST", p, sizeof p);
  return access(p, F_OK) == 0;
}

static void remove_ckpt(const AirCkpt *ck, int64_t id) {
  char dir[4200], p[4400];
  ck_path(ck, id, NULL, dir, sizeof dir);
  /* the manifest first: a half-removed checkpoint is an incomplete one */
  ck_path(ck, id, "MANIFEST", p, sizeof p);
  unlink(p);
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      fmt(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

/* ---- the manifest -------------------------------------------------------- */

/* Rank 0, once every rank wrote: lists the checkpoint's files with their
 * sizes and CRC32C (from each trailer), then renames it into place. False
 * (and why) when the files are not the ones the ranks said they wrote. */
static bool write_manifest(AirRuntime *rt, int64_t id, int64_t expect, char *why, size_t whycap) {
  AirCkpt *ck = rt->ck;
  char dir[4200], p[4400], tmp[4400];
  ck_path(ck, id, NULL, dir, sizeof dir);
  DIR *d = opendir(dir);
  if (!d) {
    fmt(why, whycap, "cannot read '%s': %s", dir, strerror(errno));
    return false;
  }
  size_t cap = 4096, len = 0;
  char *text = air_xmalloc(rt, cap);
  len += (size_t)snprintf(text + len, cap - len, "airc-checkpoint 1\nfingerprint %s\nid %" PRId64
                          "\nworld %d\nthreads %d\n", ck->fps, id, rt->world, rt->threads);
  /* per source, each instance's position at its barrier: where one
   * without a file of its own (it had ended; another number of ranks) starts */
  for (int i = 0; i < ck->nsrc; i++) {
    int inst = ck->src[i]->instances, n = rt->world * inst;
    size_t need = len + 64 + (size_t)n * 24;
    if (need > cap) {
      cap = need * 2;
      char *q = realloc(text, cap);
      if (!q) air_oom("checkpoint manifest");
      text = q;
    }
    len += (size_t)snprintf(text + len, cap - len, "source %d %d %d", i, inst, n);
    for (int k = 0; k < n; k++) len += (size_t)snprintf(text + len, cap - len, " %" PRId64, ck->cur_pos[i][k]);
    len += (size_t)snprintf(text + len, cap - len, "\n");
  }
  int64_t found = 0;
  struct dirent *e;
  bool ok = true;
  while (ok && (e = readdir(d))) {
    if (e->d_name[0] != 'r' || strstr(e->d_name, ".tmp")) continue;
    fmt(p, sizeof p, "%s/%s", dir, e->d_name);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    unsigned char t[16];
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size < CK_HEADER + 16 ||
        pread(fd, t, 16, sb.st_size - 16) != 16) {
      fmt(why, whycap, "cannot read '%s'", p);
      ok = false;
    } else {
      uint32_t crc;
      memcpy(&crc, t + 8, 4);
      if (len + 256 + strlen(e->d_name) > cap) {
        cap = cap * 2 + strlen(e->d_name);
        char *q = realloc(text, cap);
        if (!q) air_oom("checkpoint manifest");
        text = q;
      }
      len += (size_t)snprintf(text + len, cap - len, "file %s %lld %08x\n", e->d_name, (long long)sb.st_size, crc);
      found++;
    }
    if (fd >= 0) close(fd);
  }
  closedir(d);
  if (ok && found != expect) {
    fmt(why, whycap, "'%s' holds %" PRId64 " state files, the ranks wrote %" PRId64, dir, found, expect);
    ok = false;
  }
  if (ok) {
    uint32_t crc = crc32c(0, text, len);
    len += (size_t)snprintf(text + len, cap - len, "end %08x\n", crc);
    fmt(tmp, sizeof tmp, "%s/MANIFEST.tmp", dir);
    fmt(p, sizeof p, "%s/MANIFEST", dir);
    FILE *f = fopen(tmp, "w");
    if (!f || fwrite(text, 1, len, f) != len || fflush(f) != 0 || fsync(fileno(f)) != 0) {
      fmt(why, whycap, "cannot write '%s': %s", tmp, strerror(errno ? errno : EIO));
      ok = false;
    }
    if (f) fclose(f);
    if (ok && rename(tmp, p) != 0) {
      fmt(why, whycap, "cannot rename '%s': %s", tmp, strerror(errno));
      ok = false;
    }
    if (ok) sync_dir(dir);
  }
  free(text);
  return ok;
}

typedef struct Manifest {
  char fp[64];
  int64_t id;
  int world, threads;
  int nsrc;
  int inst[CK_MAX_SOURCES];
  int npos[CK_MAX_SOURCES];
  int64_t *pos[CK_MAX_SOURCES];
  int nfiles;
  char (*name)[64];
  uint64_t *size;
  uint32_t *crc;
} Manifest;

static void manifest_free(Manifest *m) {
  for (int i = 0; i < m->nsrc; i++) free(m->pos[i]);
  free(m->name);
  free(m->size);
  free(m->crc);
  memset(m, 0, sizeof *m);
}

/* Reads and checks a manifest; NULL when good, else why not. */
static const char *read_manifest(const AirCkpt *ck, int64_t id, Manifest *m) {
  char p[4200];
  memset(m, 0, sizeof *m);
  ck_path(ck, id, "MANIFEST", p, sizeof p);
  FILE *f = fopen(p, "r");
  if (!f) return "has no MANIFEST (a checkpoint cut short)";
  char *line = NULL;
  size_t lcap = 0;
  uint32_t crc = 0;
  bool ended = false, head = false;
  const char *bad = NULL;
  while (!bad && getline(&line, &lcap, f) > 0) {
    if (!strncmp(line, "end ", 4)) {
      unsigned c = 0;
      if (sscanf(line + 4, "%8x", &c) != 1 || c != crc) bad = "its MANIFEST is corrupt (CRC32C)";
      ended = true;
      break;
    }
    crc = crc32c(crc, line, strlen(line));
    if (!strcmp(line, "airc-checkpoint 1\n")) head = true;
    else if (!strncmp(line, "fingerprint ", 12)) sscanf(line + 12, "%63s", m->fp);
    else if (!strncmp(line, "id ", 3)) m->id = strtoll(line + 3, NULL, 10);
    else if (!strncmp(line, "world ", 6)) m->world = atoi(line + 6);
    else if (!strncmp(line, "threads ", 8)) m->threads = atoi(line + 8);
    else if (!strncmp(line, "source ", 7)) {
      int i, inst, n, used;
      if (sscanf(line + 7, "%d %d %d%n", &i, &inst, &n, &used) != 3 || i != m->nsrc || i >= CK_MAX_SOURCES ||
          n < 1 || n > 1 << 24) {
        bad = "its MANIFEST is corrupt";
        break;
      }
      m->pos[i] = malloc((size_t)n * sizeof *m->pos[i]);
      if (!m->pos[i]) {
        bad = "out of memory";
        break;
      }
      m->inst[i] = inst;
      m->npos[i] = n;
      m->nsrc++;
      char *q = line + 7 + used;
      for (int k = 0; k < n && !bad; k++) {
        char *e;
        m->pos[i][k] = strtoll(q, &e, 10);
        if (e == q) bad = "its MANIFEST is corrupt";
        q = e;
      }
    } else if (!strncmp(line, "file ", 5)) {
      int n = m->nfiles + 1;
      void *a = realloc(m->name, (size_t)n * sizeof *m->name), *b = realloc(m->size, (size_t)n * sizeof *m->size),
           *c = realloc(m->crc, (size_t)n * sizeof *m->crc);
      if (a) m->name = a;
      if (b) m->size = b;
      if (c) m->crc = c;
      if (!a || !b || !c) bad = "out of memory";
      unsigned long long sz = 0;
      unsigned cr = 0;
      if (!bad && sscanf(line + 5, "%63s %llu %8x", m->name[m->nfiles], &sz, &cr) != 3) bad = "its MANIFEST is corrupt";
      if (!bad) {
        m->size[m->nfiles] = sz;
        m->crc[m->nfiles] = cr;
        m->nfiles = n;
      }
    }
  }
  free(line);
  fclose(f);
  if (!bad && (!ended || !head)) bad = "its MANIFEST is incomplete";
  if (!bad && m->id != id) bad = "its MANIFEST names another checkpoint";
  return bad;
}

/* ---- setup and resume ---------------------------------------------------- */

static uint64_t parse_fp(const char *s) { return strtoull(s, NULL, 16); }

static bool mkdir_p(const char *dir) {
  char p[4096];
  fmt(p, sizeof p, "%s", dir);
  for (char *q = p + 1; *q; q++) {
    if (*q != '/') continue;
    *q = '\0';
    mkdir(p, 0777);
    *q = '/';
  }
  return mkdir(p, 0777) == 0 || errno == EEXIST;
}

/* Rank 0: the newest checkpoint that verifies, or 0. A newer one that
 * does not is named on stderr and removed (a resumed run numbers its own
 * from there on); one of another query or shape ends the run. */
static int64_t choose(AirRuntime *rt, bool required, char *err, size_t errcap) {
  AirCkpt *ck = rt->ck;
  int64_t *ids;
  int n = list_ids(ck, &ids);
  int64_t chosen = 0;
  for (int i = 0; i < n && !chosen; i++) {
    Manifest m;
    const char *bad = read_manifest(ck, ids[i], &m);
    char file[4200] = "";
    if (!bad && strcmp(m.fp, ck->fps) != 0) {
      fmt(err, errcap, "checkpoint '%s/ckpt-%06" PRId64 "' was written by another query (fingerprint %s, this "
                "program's %s): resume it with the program that wrote it, or start afresh with another "
                "--checkpoint-dir", ck->dir, ids[i], m.fp, ck->fps);
      chosen = -1;
      manifest_free(&m);
      break;
    }
    for (int k = 0; !bad && k < m.nfiles; k++) {
      uint64_t size = 0;
      uint32_t crc = 0;
      ck_path(ck, ids[i], m.name[k], file, sizeof file);
      bad = verify_file(file, ck, ids[i], &size, &crc);
      if (!bad && (size != m.size[k] || crc != m.crc[k])) bad = "not the file its MANIFEST lists";
    }
    if (bad && !has_manifest(ck, ids[i])) {
      remove_ckpt(ck, ids[i]); /* cut short by the failure: nothing to say */
    } else if (bad) {
      char dirp[4200], badp[4300];
      ck_path(ck, ids[i], NULL, dirp, sizeof dirp);
      fmt(badp, sizeof badp, "%s.bad", dirp);
      bool moved = rename(dirp, badp) == 0;
      fprintf(stderr, "%s: warning: checkpoint '%s' is not usable: %s%s%s; %s%s%s\n", rt->name, dirp,
              *file && strstr(bad, "MANIFEST") == NULL ? file : "",
              *file && strstr(bad, "MANIFEST") == NULL ? " is " : "", bad,
              moved ? "kept as '" : "", moved ? badp : "", moved ? "'" : "");
      if (!moved) remove_ckpt(ck, ids[i]);
    } else {
      chosen = ids[i];
      ck->old_world = m.world;
      ck->old_threads = m.threads;
      ck->old_nsrc = m.nsrc;
      for (int k = 0; k < m.nsrc; k++) {
        ck->old_inst[k] = m.inst[k];
        ck->old_npos[k] = m.npos[k];
        ck->old_pos[k] = m.pos[k]; /* kept */
        m.pos[k] = NULL;
      }
    }
    manifest_free(&m);
  }
  free(ids);
  if (!chosen && required) {
    fmt(err, errcap, "--resume: no complete checkpoint in '%s'", ck->dir);
    chosen = -1;
  }
  return chosen;
}

/* A bad flag or checkpoint: every rank gets here alike (the same argv, or
 * rank 0's verdict broadcast); rank 0 says why. */
static _Noreturn void setup_fail(AirRuntime *rt, const char *msg, int status) {
  if (rt->rank == 0) fprintf(stderr, "%s: error: %s\n", rt->name, msg);
  MPI_Finalize();
  exit(status);
}

void air_checkpoint_setup(AirRuntime *rt, const char *fingerprint) {
  double t0 = air_mono_s();
  const char *dir = rt->ck_flags[0], *interval = rt->ck_flags[1], *keep = rt->ck_flags[2],
             *resume = rt->ck_flags[3];
  if (!dir && !resume) {
    if (interval || keep) setup_fail(rt, "--checkpoint-interval and --checkpoint-keep need --checkpoint-dir DIR", 2);
    return;
  }
  bool auto_resume = resume && !strcmp(resume, "auto");
  if (auto_resume && !dir) setup_fail(rt, "--resume auto needs --checkpoint-dir DIR (where to look)", 2);
  AirCkpt *ck = air_xmalloc(rt, sizeof *ck);
  memset(ck, 0, sizeof *ck);
  rt->ck = ck;
  ck->dir = strdup(dir ? dir : resume);
  if (!ck->dir) air_oom("checkpoint directory");
  size_t dl = strlen(ck->dir);
  while (dl > 1 && ck->dir[dl - 1] == '/') ck->dir[--dl] = '\0';
  ck->interval_ms = 10000;
  char err[1024] = "";
  if (interval && (!air_parse_duration(interval, &ck->interval_ms) || ck->interval_ms < 1)) {
    fmt(err, sizeof err, "bad --checkpoint-interval '%s' (a duration such as '10s', '500ms' or '2min')", interval);
    setup_fail(rt, err, 2);
  }
  if (!dir) ck->interval_ms = 0; /* --resume DIR alone: read, take none */
  ck->keep = 2;
  if (keep) {
    char *end;
    long k = strtol(keep, &end, 10);
    if (*end || end == keep || k < 1 || k > 1000) {
      fmt(err, sizeof err, "bad --checkpoint-keep '%s' (1..1000)", keep);
      setup_fail(rt, err, 2);
    }
    ck->keep = (int)k;
  }
  ck->fp = parse_fp(fingerprint);
  fmt(ck->fps, sizeof ck->fps, "%016" PRIx64, ck->fp);
  if (rt->rank == 0) {
    int64_t chosen = 0;
    if (dir && !mkdir_p(ck->dir)) {
      fmt(err, sizeof err, "cannot create the checkpoint directory '%s': %s", ck->dir, strerror(errno));
      chosen = -1;
    } else if (resume) {
      chosen = choose(rt, !auto_resume, err, sizeof err);
      if (chosen > 0) fprintf(stderr, "%s: resuming from checkpoint '%s/ckpt-%06" PRId64 "'\n", rt->name, ck->dir, chosen);
    } else if (dir) { /* a fresh run must not mix with an older one's */
      int64_t *ids;
      int n = list_ids(ck, &ids), whole = 0;
      for (int i = 0; i < n; i++) {
        if (has_manifest(ck, ids[i])) whole++;
        else remove_ckpt(ck, ids[i]);
      }
      free(ids);
      if (whole) {
        fmt(err, sizeof err, "'%s' holds checkpoints of an earlier run of the job: continue it with "
                 "--resume auto, or remove them (or give another --checkpoint-dir) to start afresh", ck->dir);
        chosen = -1;
      }
    }
    ck->resumed = chosen;
  }
  MPI_Bcast(&ck->resumed, 1, MPI_INT64_T, 0, rt->comm);
  int lay[3] = {ck->old_world, ck->old_threads, ck->old_nsrc};
  MPI_Bcast(lay, 3, MPI_INT, 0, rt->comm);
  ck->old_world = lay[0];
  ck->old_threads = lay[1];
  ck->old_nsrc = lay[2];
  MPI_Bcast(ck->old_inst, CK_MAX_SOURCES, MPI_INT, 0, rt->comm);
  MPI_Bcast(ck->old_npos, CK_MAX_SOURCES, MPI_INT, 0, rt->comm);
  for (int i = 0; i < ck->old_nsrc; i++) {
    if (rt->rank != 0) ck->old_pos[i] = air_xmalloc(rt, (size_t)ck->old_npos[i] * sizeof(int64_t));
    MPI_Bcast(ck->old_pos[i], ck->old_npos[i], MPI_INT64_T, 0, rt->comm);
  }
  ck->restore_s = air_mono_s() - t0; /* rank 0 verified the files meanwhile */
  if (ck->resumed < 0) setup_fail(rt, err, 1);
  ck->next_id = ck->resumed + 1;
}

/* ---- vertices ------------------------------------------------------------ */

void air_vertex_ckpt(AirVertex *v, AirCkptSaveFn save, AirCkptLoadFn load, void *ctx) {
  v->ck_save = save;
  v->ck_load = load;
  v->ck_ctx = ctx;
}

void air_source_ckpt(AirVertex *v, AirCkptSaveFn save, AirCkptLoadFn load, AirCkptSeekFn seek) {
  air_vertex_ckpt(v, save, load, NULL);
  v->ck_seek = seek;
}

/* The counts of an instance that had ended (it wrote no state): a file of
 * their own, "rR-vV-iI.n", written by its rank's main thread. */
static void write_counts(AirVertex *v, int inst, int64_t id) {
  AirCkptW *w = writer_open(v->rt, id, v->index, inst, ".n");
  air_ckpt_put_i64(w, AIR_STAT_COUNT);
  air_ckpt_put(w, v->ck_stats[inst], sizeof v->ck_stats[inst]);
  writer_close(w);
}

static void read_counts(AirVertex *v, AirCkptR *r, int to, bool count) {
  int64_t n = air_ckpt_get_i64(r);
  for (int64_t s = 0; s < n; s++) {
    int64_t c = air_ckpt_get_i64(r);
    if (count && s < AIR_STAT_COUNT && air_stat_carried((AirStat)s)) {
      v->ck_stats[to][s] += c;
      air_stat_restore(v->rt, (AirStat)s, c);
    }
  }
}

static void load_counts(AirVertex *v, int rank, int inst, int to, bool count) {
  AirCkptR *r = reader_open(v->rt, rank, v->index, inst, ".n");
  if (!r) return;
  read_counts(v, r, to, count);
  reader_close(r);
}

/* Reads the file of (rank, v, inst) into ctx; false when there is none. */
/* Reads the file of (rank, v, inst) into ctx; false when there is none.
 * Its counts go to instance `to` (and the run's totals) when count. */
static bool load_file(AirVertex *v, int rank, int inst, void *ctx, bool first, bool drop, int to, bool count) {
  AirCkptR *r = reader_open(v->rt, rank, v->index, inst, "");
  if (!r) return false;
  r->first = first;
  r->drop = drop;
  v->ck_load(r, ctx);
  read_counts(v, r, to, count);
  reader_close(r);
  return true;
}

static bool same_layout(const AirRuntime *rt) {
  return rt->ck->old_world == rt->world && rt->ck->old_threads == rt->threads;
}

bool air_ckpt_old_split(const AirRuntime *rt) { return air_ckpt_resuming(rt) && rt->ck->old_world > 1; }

/* A consumer's state: its own file; rescaled, every rank's, each keeping
 * the keys this rank owns now. */
static void load_state(AirVertex *v, void *ctx) {
  AirRuntime *rt = v->rt;
  double t0 = air_mono_s();
  if (same_layout(rt)) {
    if (!load_file(v, rt->rank, 0, ctx, true, false, 0, true)) load_counts(v, rt->rank, 0, 0, true);
  } else { /* every rank's state; rank q's counts to rank q mod N */
    bool first = true;
    for (int q = 0; q < rt->ck->old_world; q++) {
      if (load_file(v, q, 0, ctx, first, false, 0, q % rt->world == rt->rank)) first = false;
      else load_counts(v, q, 0, 0, q % rt->world == rt->rank);
    }
  }
  atomic_fetch_add(&rt->ck->load_us, (int64_t)((air_mono_s() - t0) * 1e6));
}

void air_ckpt_start(AirRuntime *rt) {
  for (int i = 0; i < rt->nvertices; i++) {
    AirVertex *v = rt->vertices[i];
    v->ck_done = air_xmalloc(rt, (size_t)v->instances * sizeof *v->ck_done);
    v->ck_taken = air_xmalloc(rt, (size_t)v->instances * sizeof *v->ck_taken);
    v->ck_pos = air_xmalloc(rt, (size_t)v->instances * sizeof *v->ck_pos);
    v->ck_stats = NULL;
    if (rt->ck) { /* counts carried by checkpoints */
      v->ck_stats = air_xmalloc(rt, (size_t)v->instances * sizeof *v->ck_stats);
      memset(v->ck_stats, 0, (size_t)v->instances * sizeof *v->ck_stats);
    }
    for (int t = 0; t < v->instances; t++) {
      atomic_init(&v->ck_done[t], 0);
      atomic_init(&v->ck_taken[t], 0);
      atomic_init(&v->ck_pos[t], 0);
    }
  }
  AirCkpt *ck = rt->ck;
  if (!ck) return;
  for (int i = 0; i < rt->nvertices; i++) {
    AirVertex *v = rt->vertices[i];
    if (v->source && v->active && !v->ck_load && rt->rank == 0)
      rmdir(ck->dir); /* made for nothing: gone again when empty */
    if (v->source && v->active && !v->ck_load)
      air_fatal(rt, "checkpoints: %s cannot be checkpointed: checkpoints cover csv files, datagen and "
                "kafka sources (not tcp and stdin, which cannot be read again: docs/guarantees.md)", v->name);
  }
  for (int i = 0; i < rt->nvertices; i++) {
    AirVertex *v = rt->vertices[i];
    if (!v->source && v->active && v->ck_load && ck->resumed) load_state(v, v->ck_ctx);
  }
  ck->nsrc = 0;
  for (int i = 0; i < rt->nvertices; i++) ck->nsrc += rt->vertices[i]->source;
  if (ck->nsrc > CK_MAX_SOURCES) air_fatal(rt, "checkpoints: more than %d sources", CK_MAX_SOURCES);
  ck->src = air_xmalloc(rt, (size_t)(ck->nsrc ? ck->nsrc : 1) * sizeof *ck->src);
  int n = 0;
  for (int i = 0; i < rt->nvertices; i++)
    if (rt->vertices[i]->source) ck->src[n++] = rt->vertices[i];
  for (int i = 0; i < ck->nsrc; i++)
    ck->cur_pos[i] = air_xmalloc(rt, (size_t)rt->world * (size_t)ck->src[i]->instances * sizeof(int64_t));
  ck->next_at = air_mono_s() + (double)ck->interval_ms / 1000.0;
}

/* A source instance's state: its own file; or (it had ended, or the ranks
 * or threads changed) every instance's position then, from the manifest,
 * and then, rescaled, the partial aggregates of the instances of then
 * whose number maps to it. */
void air_ckpt_source_begin(AirVertex *v, int inst, void *st) {
  AirRuntime *rt = v->rt;
  AirCkpt *ck = rt->ck;
  if (!air_ckpt_resuming(rt) || !v->ck_load) return;
  double t0 = air_mono_s();
  int si = 0;
  while (si < ck->nsrc && ck->src[si] != v) si++;
  if (!(same_layout(rt) && load_file(v, rt->rank, inst, st, true, false, inst, true))) {
    v->ck_seek(st, ck->old_pos[si], ck->old_npos[si]);
    if (same_layout(rt)) load_counts(v, rt->rank, inst, inst, true); /* it had ended */
    if (!same_layout(rt)) {
      /* every file of then for the least watermark (the rows to come may
       * be any instance's of then), the partials of those that map here */
      int oi = ck->old_inst[si], n = rt->world * v->instances, me = rt->rank * v->instances + inst;
      bool first = true;
      for (int q = 0; q < ck->old_world; q++)
        for (int i = 0; i < oi; i++)
          if (load_file(v, q, i, st, first, (q * oi + i) % n != me, inst, (q * oi + i) % n == me)) first = false;
          else load_counts(v, q, i, inst, (q * oi + i) % n == me);
    }
  }
  atomic_fetch_add(&ck->load_us, (int64_t)((air_mono_s() - t0) * 1e6));
}

/* Writes v's instance state for checkpoint id (on its thread). */
static void write_state(AirVertex *v, int inst, int64_t id, void *ctx) {
  AirRuntime *rt = v->rt;
  if (v->ck_save) {
    AirCkptW *w = writer_open(rt, id, v->index, inst, "");
    v->ck_save(w, ctx);
    air_ckpt_put_i64(w, AIR_STAT_COUNT); /* then this instance's counts */
    air_ckpt_put(w, v->ck_stats[inst], sizeof v->ck_stats[inst]);
    writer_close(w);
  }
  atomic_store(&v->ck_taken[inst], id);
  atomic_store(&v->ck_done[inst], id);
}

bool air_ckpt_due(AirVertex *v, int inst, int64_t *seen, int64_t pos) {
  int64_t req = atomic_load_explicit(&v->rt->ck_req, memory_order_acquire);
  if (req <= *seen) return false;
  *seen = req;
  atomic_store(&v->ck_pos[inst], pos);
  atomic_store(&v->ck_taken[inst], req);
  return true;
}

void air_ckpt_source_barrier(AirVertex *v, int inst, void *st) {
  int64_t id = atomic_load(&v->ck_taken[inst]);
  write_state(v, inst, id, st);
  for (AirOut *o = atomic_load(&v->outs); o; o = o->next)
    if (o->instance == inst) air_out_barrier(o, id);
}

void air_ckpt_vertex_barrier(AirVertex *v, int64_t id) {
  write_state(v, 0, id, v->ck_ctx);
  for (AirOut *o = atomic_load(&v->outs); o; o = o->next) air_out_barrier(o, id);
}

void air_ckpt_instance_ended(AirVertex *v, int inst) {
  if (v->ck_done) atomic_store(&v->ck_done[inst], INT64_MAX);
}

/* ---- the main thread's side ---------------------------------------------- */

static void send_i64s(AirRuntime *rt, const int64_t *v, int n, int dest, int tag) {
  MPI_Send(v, n, MPI_INT64_T, dest, tag, rt->comm); /* a few bytes: eager */
}

/* Every vertex instance of this rank wrote cur, or ended. */
static bool local_done(AirRuntime *rt) {
  AirCkpt *ck = rt->ck;
  for (int i = 0; i < rt->nvertices; i++) {
    AirVertex *v = rt->vertices[i];
    if (!v->active) continue;
    for (int t = 0; t < v->instances; t++)
      if (atomic_load(&v->ck_done[t]) < ck->cur) return false;
  }
  return true;
}

static void begin(AirRuntime *rt, int64_t id) {
  AirCkpt *ck = rt->ck;
  ck->cur = id;
  ck->done_sent = false;
  ck->ndone = 0;
  ck->all_ok = true;
  ck->files = 0;
  ck->cur_bytes = 0;
  atomic_store(&ck->wrote, 0);
  atomic_store(&ck->bytes, 0);
  atomic_store_explicit(&rt->ck_req, id, memory_order_release);
}

/* A rank's word that its part of cur is written: {id, ok, files, bytes,
 * then per source the position of each of its instances at its barrier
 * (INT64_MAX: it had ended, all its rows were read)}. */
static void take_done(AirRuntime *rt, int from, const int64_t *d) {
  AirCkpt *ck = rt->ck;
  ck->ndone++;
  ck->all_ok &= d[1] != 0;
  ck->files += d[2];
  ck->cur_bytes += d[3];
  const int64_t *p = d + 4;
  for (int i = 0; i < ck->nsrc; i++) {
    int inst = ck->src[i]->instances;
    for (int t = 0; t < inst; t++) ck->cur_pos[i][from * inst + t] = *p++;
  }
}

/* Rank 0: every rank wrote its part of cur (ok: none saw a stop). */
static void complete(AirRuntime *rt) {
  AirCkpt *ck = rt->ck;
  int64_t id = ck->cur;
  double took = air_mono_s() - ck->started;
  char why[512];
  bool ok = ck->all_ok && !air_should_stop(rt);
  if (ok && !write_manifest(rt, id, ck->files, why, sizeof why)) {
    ok = false;
    fprintf(stderr, "%s: warning: checkpoint %" PRId64 " dropped: %s\n", rt->name, id, why);
  }
  if (ok) {
    ck->completed++;
    ck->last_s = took;
    ck->last_bytes = ck->cur_bytes;
    if (ck->cur_bytes > ck->max_bytes) ck->max_bytes = ck->cur_bytes;
    ck->total_s += took;
    if (took > ck->max_s) ck->max_s = took;
    /* older complete ones beyond keep, and any incomplete older one, go */
    int64_t *ids;
    int n = list_ids(ck, &ids), complete_seen = 0;
    for (int i = 0; i < n; i++) {
      if (ids[i] > id) continue;
      bool whole = has_manifest(ck, ids[i]);
      if (whole && complete_seen < ck->keep) {
        complete_seen++;
        continue;
      }
      remove_ckpt(ck, ids[i]);
    }
    free(ids);
  } else {
    ck->dropped++;
    remove_ckpt(ck, id);
  }
  ck->cur = 0;
  ck->next_at = air_mono_s() + (double)ck->interval_ms / 1000.0;
}

void air_ckpt_poll(AirRuntime *rt, bool done) {
  AirCkpt *ck = rt->ck;
  if (!ck || ck->interval_ms == 0) return;
  int nd = 4;
  for (int i = 0; i < ck->nsrc; i++) nd += ck->src[i]->instances;
  int64_t d[nd];
  /* messages */
  for (int tag = AIR_TAG_CKPT_START; tag <= AIR_TAG_CKPT_DONE; tag++) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, tag, rt->comm, &flag, &st);
    if (!flag) continue;
    tag--; /* the same tag again: there may be more */
    int n = 0;
    MPI_Get_count(&st, MPI_INT64_T, &n);
    int64_t buf[n > 0 ? n : 1];
    MPI_Recv(buf, n, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, rt->comm, MPI_STATUS_IGNORE);
    if (st.MPI_TAG == AIR_TAG_CKPT_START)
      begin(rt, buf[0]);
    else if (rt->rank == 0 && n == nd && buf[0] == ck->cur)
      take_done(rt, st.MPI_SOURCE, buf);
  }
  /* rank 0 starts one when it is due: not after a stop, not at the end */
  if (rt->rank == 0 && !ck->cur && !done && !air_should_stop(rt) && air_mono_s() >= ck->next_at) {
    int64_t id = ck->next_id++;
    char dir[4200];
    ck_path(ck, id, NULL, dir, sizeof dir);
    if (!mkdir_p(dir)) air_fatal(rt, "checkpoint: cannot create '%s': %s", dir, strerror(errno));
    ck->started = air_mono_s();
    for (int r = 1; r < rt->world; r++) send_i64s(rt, &id, 1, r, AIR_TAG_CKPT_START);
    begin(rt, id);
  }
  if (!ck->cur) return;
  if (!ck->done_sent && local_done(rt)) {
    ck->done_sent = true;
    /* tests: this rank dies once its part of checkpoint N is written,
     * before rank 0 can write the manifest (AIR_CKPT_KILL=N:rank) */
    const char *kill_at = getenv("AIR_CKPT_KILL");
    long long kn = -1;
    int kr = -1;
    if (kill_at && sscanf(kill_at, "%lld:%d", &kn, &kr) == 2 && kn == ck->cur && kr == rt->rank) raise(SIGKILL);
    /* instances that had ended wrote no state: their counts, for the totals */
    for (int i = 0; i < rt->nvertices; i++) {
      AirVertex *v = rt->vertices[i];
      for (int t = 0; v->active && v->ck_save && t < v->instances; t++)
        if (atomic_load(&v->ck_done[t]) == INT64_MAX && atomic_load(&v->ck_taken[t]) != ck->cur)
          write_counts(v, t, ck->cur);
    }
    d[0] = ck->cur;
    d[1] = !air_should_stop(rt);
    d[2] = atomic_load(&ck->wrote);
    d[3] = atomic_load(&ck->bytes);
    int at = 4;
    for (int i = 0; i < ck->nsrc; i++) {
      AirVertex *v = ck->src[i];
      for (int t = 0; t < v->instances; t++)
        d[at++] = v->active && atomic_load(&v->ck_taken[t]) == ck->cur ? atomic_load(&v->ck_pos[t]) : INT64_MAX;
    }
    if (rt->rank == 0) {
      take_done(rt, 0, d);
    } else {
      send_i64s(rt, d, nd, 0, AIR_TAG_CKPT_DONE);
      ck->cur = 0; /* rank 0 decides; this rank waits for the next start */
    }
  }
  if (rt->rank == 0 && ck->cur && ck->done_sent && ck->ndone == rt->world) complete(rt);
}

void air_ckpt_finish(AirRuntime *rt) {
  if (!rt->ck) return;
  for (int flag = 1; flag;) {
    MPI_Status st;
    flag = 0;
    for (int tag = AIR_TAG_CKPT_START; tag <= AIR_TAG_CKPT_DONE && !flag; tag++)
      MPI_Iprobe(MPI_ANY_SOURCE, tag, rt->comm, &flag, &st);
    if (flag) {
      int n = 0;
      MPI_Get_count(&st, MPI_INT64_T, &n);
      int64_t buf[n > 0 ? n : 1];
      MPI_Recv(buf, n, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, rt->comm, MPI_STATUS_IGNORE);
    }
  }
  /* a checkpoint the end overtook is no checkpoint */
  if (rt->rank == 0 && rt->ck->cur) {
    remove_ckpt(rt->ck, rt->ck->cur);
    rt->ck->dropped++;
    rt->ck->cur = 0;
  }
}

void air_ckpt_end(AirRuntime *rt, int status) {
  AirCkpt *ck = rt->ck;
  if (!ck || rt->rank != 0 || ck->interval_ms == 0) return;
  /* A job that completed needs none: rerun, it starts afresh. A stopped
   * or failed one keeps them for --resume. */
  if (status == 0 && !air_cut_happened(rt) && !air_should_stop(rt)) {
    int64_t *ids;
    int n = list_ids(ck, &ids);
    for (int i = 0; i < n; i++) remove_ckpt(ck, ids[i]);
    free(ids);
    rmdir(ck->dir); /* when empty */
  }
}

/* [main, collective] Before the summary: the restore's time, the largest
 * over the ranks (sources read their state on their threads, in it). */
void air_ckpt_settle(AirRuntime *rt) {
  AirCkpt *ck = rt->ck;
  if (!ck) return;
  double t = ck->restore_s + (double)atomic_load(&ck->load_us) / 1e6;
  MPI_Reduce(&t, &ck->restore_s, 1, MPI_DOUBLE, MPI_MAX, 0, rt->comm);
}

void air_ckpt_describe(const AirRuntime *rt, FILE *out, bool json) {
  const AirCkpt *ck = rt->ck;
  if (!ck) return;
  if (json) {
    fprintf(out, ",\"checkpoints\":{\"completed\":%" PRId64 ",\"dropped\":%" PRId64
            ",\"resumed_from\":%" PRId64 ",\"last_ms\":%.3f,\"max_ms\":%.3f,\"mean_ms\":%.3f,\"last_bytes\":%"
            PRId64 ",\"max_bytes\":%" PRId64 ",\"restore_ms\":%.3f}",
            ck->completed, ck->dropped, ck->resumed, ck->last_s * 1e3, ck->max_s * 1e3,
            ck->completed ? ck->total_s * 1e3 / (double)ck->completed : 0.0, ck->last_bytes, ck->max_bytes,
            ck->resumed ? ck->restore_s * 1e3 : 0.0);
    return;
  }
  fprintf(out, "checkpoints %" PRId64 " (mean %.1f ms, max %.1f ms, last %.1f MB), dropped %" PRId64,
          ck->completed, ck->completed ? ck->total_s * 1e3 / (double)ck->completed : 0.0, ck->max_s * 1e3,
          (double)ck->last_bytes / 1e6, ck->dropped);
  if (ck->resumed) fprintf(out, "; resumed from ckpt-%06" PRId64 " in %.1f ms", ck->resumed, ck->restore_s * 1e3);
}

void air_ckpt_free(AirRuntime *rt) {
  for (int i = 0; i < rt->nvertices; i++) {
    AirVertex *v = rt->vertices[i];
    free((void *)v->ck_done);
    free((void *)v->ck_taken);
    free((void *)v->ck_pos);
    free(v->ck_stats);
    v->ck_done = v->ck_taken = v->ck_pos = NULL;
    v->ck_stats = NULL;
  }
  AirCkpt *ck = rt->ck;
  if (!ck) return;
  for (int i = 0; i < ck->nsrc; i++) free(ck->cur_pos[i]);
  for (int i = 0; i < ck->old_nsrc; i++) free(ck->old_pos[i]);
  free(ck->src);
  free(ck->dir);
  free(ck);
  rt->ck = NULL;
}
