/* Unit tests for runtime/csv.c (through the MPI-free air_csv_open_at). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "data_int.h"

static char *write_temp(const char *data, size_t n) {
  char *path = strdup("/tmp/air_test_csv_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, data, n), (ssize_t)n);
  close(fd);
  return path;
}

/* A reader of path without a declaration to check: header skips the first
 * record unchecked. */
static AirCsv *open_csv(const char *path, bool header) {
  AirCsvDef def = {.path = path, .name = "t", .header = header ? AIR_CSV_HEADER_SKIP : AIR_CSV_NO_HEADER,
                   .time_col = -1};
  return air_csv_open_at(NULL, &def);
}

/* world readers of def's file, its blocks of `block` bytes dealt to them
 * as to ranks (air_csv_split_local). */
static void open_split(const AirCsvDef *def, int world, uint64_t block, AirCsv **rs) {
  struct stat st;
  assert_int_equal(stat(def->path, &st), 0);
  for (int r = 0; r < world; r++) {
    rs[r] = air_csv_open_at(NULL, def);
    assert_non_null(rs[r]);
    assert_null(air_csv_error(rs[r]));
  }
  air_csv_split_local(rs, world, (uint64_t)st.st_size, block);
}

typedef struct Rec {
  int nf;              /* air_csv_next's result */
  long line;           /* its line */
  char f[8][64];       /* fields as C strings */
} Rec;

/* Reads every record of path into recs; returns count. */
static int read_all(const char *data, bool header, Rec *recs, int maxrecs) {
  char *path = write_temp(data, strlen(data));
  AirCsv *c = open_csv(path, header);
  assert_non_null(c);
  AirField f[8];
  int n = 0, nf;
  long line;
  while ((nf = air_csv_next(c, f, 8, &line)) != -1) {
    assert_true(n < maxrecs);
    recs[n].nf = nf;
    recs[n].line = line;
    for (int k = 0; k < nf && k < 8; k++) {
      assert_true(f[k].n < 64);
      memcpy(recs[n].f[k], f[k].p, f[k].n);
      recs[n].f[k][f[k].n] = '\0';
    }
    n++;
  }
  assert_int_equal(air_csv_next(c, f, 8, &line), -1); /* EOF is sticky */
  air_csv_close(c);
  unlink(path);
  free(path);
  return n;
}

static void test_csv_plain_and_header(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("a,b,c\n1,2,3\n4,,6\n", true, r, 4);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].nf, 3);
  assert_int_equal(r[0].line, 2);
  assert_string_equal(r[0].f[0], "1");
  assert_string_equal(r[0].f[2], "3");
  assert_int_equal(r[1].line, 3);
  assert_string_equal(r[1].f[1], "");
  /* without header the first line is a record */
  n = read_all("a,b,c\n1,2,3\n", false, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[0].f[0], "a");
  assert_int_equal(r[0].line, 1);
}

static void test_csv_quoting(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("\"x,y\",\"he said \"\"hi\"\"\",plain,\"\"\n"
                   "\"\"\"\",\"a\"\"\"\"b\"\n",
                   false, r, 4);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].nf, 4);
  assert_string_equal(r[0].f[0], "x,y");
  assert_string_equal(r[0].f[1], "he said \"hi\"");
  assert_string_equal(r[0].f[2], "plain");
  assert_string_equal(r[0].f[3], "");
  assert_int_equal(r[1].nf, 2);
  assert_string_equal(r[1].f[0], "\"");
  assert_string_equal(r[1].f[1], "a\"\"b");
}

static void test_csv_crlf(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("h1,h2\r\n1,two\r\n\"q\",\"r\"\r\n3,x\ry\r\n", true, r, 4);
  assert_int_equal(n, 4);
  assert_string_equal(r[0].f[1], "two");
  assert_string_equal(r[1].f[0], "q");
  assert_string_equal(r[1].f[1], "r");
  assert_int_equal(r[2].nf, 2); /* a lone CR ends a record too */
  assert_string_equal(r[2].f[1], "x");
  assert_int_equal(r[2].line, 4);
  assert_int_equal(r[3].nf, 1);
  assert_string_equal(r[3].f[0], "y");
  assert_int_equal(r[3].line, 5);
}

/* Old Mac files end lines with a lone CR: each is a line end, blank lines
 * included, and a CR inside quotes counts as a line for line numbers. */
static void test_csv_cr_only(void **state) {
  (void)state;
  Rec r[8];
  int n = read_all("a,b\r1,2\r\r\"x\ry\",3\r\"q\"\r4,\"z\r\n\"\r\"bad\"x\r5,6", true, r, 8);
  assert_int_equal(n, 6);
  assert_int_equal(r[0].line, 2);
  assert_string_equal(r[0].f[1], "2");
  assert_int_equal(r[1].line, 4); /* line 3 was blank */
  assert_string_equal(r[1].f[0], "x\ry");
  assert_string_equal(r[1].f[1], "3");
  assert_int_equal(r[2].line, 6);
  assert_int_equal(r[2].nf, 1);
  assert_string_equal(r[2].f[0], "q");
  assert_int_equal(r[3].line, 7);
  assert_string_equal(r[3].f[1], "z\r\n"); /* one line: "\r\n" is one line end */
  assert_int_equal(r[4].line, 9);
  assert_int_equal(r[4].nf, -2);
  assert_int_equal(r[5].line, 10);
  assert_string_equal(r[5].f[1], "6");
  /* an unterminated quote costs its own line, ended by a lone CR */
  n = read_all("x,\"abc\rok,3\r", false, r, 8);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].nf, -2);
  assert_int_equal(r[1].line, 2);
  assert_string_equal(r[1].f[0], "ok");
}

/* A CR that is the last byte of the first buffer (1 MiB) cannot say yet
 * whether a LF follows: the reader must look at the next bytes before it
 * decides where the record ends and how many lines it took. */
static void test_csv_cr_at_buffer_end(void **state) {
  (void)state;
  static const char *const tails[] = {
      "a,b\r\nc,d\n",   /* CRLF split by the buffer end: one line end */
      "a,b\rc,d\n",      /* a lone CR */
      "\"a\r\nb\",c\nd,e\n", /* CRLF inside quotes */
      "\"a\rb\",c\nd,e\n",   /* a lone CR inside quotes */
      "a,b\r\r\nc,d\n",  /* a lone CR (a line end), then a blank CRLF line */
  };
  enum { MIB = 1 << 20 };
  for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
    const char *tail = tails[t];
    size_t cr = strchr(tail, '\r') - tail; /* the CR lands at offset MIB - 1 */
    char *data = malloc(MIB + 64);
    size_t len = 0;
    long lines = 0;
    while (len + 16 < MIB - 1 - cr) {
      len += (size_t)sprintf(data + len, "%06ld,filler\n", lines);
      lines++;
    }
    size_t fill = MIB - 1 - cr - len; /* one last filler of the exact length */
    memset(data + len, 'z', fill - 1);
    data[len + fill - 1] = '\n';
    len += fill;
    lines++;
    memcpy(data + len, tail, strlen(tail));
    assert_int_equal(data[MIB - 1], '\r');
    len += strlen(tail);
    char *path = write_temp(data, len);
    AirCsv *c = open_csv(path, false);
    AirField f[4];
    long line;
    for (long i = 0; i < lines; i++) assert_true(air_csv_next(c, f, 4, &line) >= 1);
    assert_int_equal(air_csv_next(c, f, 4, &line), 2);
    assert_int_equal(line, lines + 1);
    char first[8] = "";
    memcpy(first, f[0].p, f[0].n < 7 ? f[0].n : 7);
    assert_int_equal(air_csv_next(c, f, 4, &line), 2);
    /* the record after: one line later, two when the first held a line end
     * in quotes or was followed by a blank line */
    long want = lines + 2 + (t >= 2);
    if (line != want) fail_msg("tail %zu: second record on line %ld, not %ld", t, line, want);
    assert_int_equal(air_csv_next(c, f, 4, &line), -1);
    if (t == 2 || t == 3) assert_int_equal(first[1], '\r');
    air_csv_close(c);
    unlink(path);
    free(path);
    free(data);
  }
}

/* A UTF-8 byte order mark (what some editors write first) is no data. */
static void test_csv_bom_skipped(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("\xEF\xBB\xBF" "a,b\n1,2\n", false, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[0].f[0], "a");
  assert_int_equal(r[0].line, 1);
  n = read_all("\xEF\xBB\xBF", false, r, 4);
  assert_int_equal(n, 0);
  /* only at the start of the file */
  n = read_all("a\n\xEF\xBB\xBF" "b\n", false, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[1].f[0], "\xEF\xBB\xBF" "b");
}

static void test_csv_embedded_newline(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("\"line1\nline2\",z\nnext,1\n\"a\r\nb\",c\r\n", false, r, 4);
  assert_int_equal(n, 3);
  assert_string_equal(r[0].f[0], "line1\nline2");
  assert_string_equal(r[0].f[1], "z");
  assert_int_equal(r[0].line, 1);
  assert_int_equal(r[1].line, 3);
  assert_string_equal(r[1].f[0], "next");
  assert_string_equal(r[2].f[0], "a\r\nb"); /* quoted bytes kept as they are */
  assert_int_equal(r[2].line, 4);
}

static void test_csv_bad_quoting(void **state) {
  (void)state;
  Rec r[8];
  int n = read_all("\"ab\"c,d\n"      /* text after closing quote */
                   "ok,1\n"
                   "ab\"c,d\n"        /* quote inside unquoted field */
                   "\"x\" ,y\n"       /* space after closing quote */
                   "ok,2\n"
                   "x,\"abc\n"        /* never closed */
                   "ok,3\n",
                   false, r, 8);
  assert_int_equal(n, 7);
  assert_int_equal(r[0].nf, -2);
  assert_int_equal(r[0].line, 1);
  assert_int_equal(r[1].nf, 2);
  assert_string_equal(r[1].f[1], "1");
  assert_int_equal(r[1].line, 2);
  assert_int_equal(r[2].nf, -2);
  assert_int_equal(r[2].line, 3);
  assert_int_equal(r[3].nf, -2);
  assert_int_equal(r[3].line, 4);
  assert_string_equal(r[4].f[1], "2");
  assert_int_equal(r[5].nf, -2);
  assert_int_equal(r[5].line, 6);
  /* the unclosed quote costs only its own line */
  assert_int_equal(r[6].nf, 2);
  assert_string_equal(r[6].f[1], "3");
  assert_int_equal(r[6].line, 7);
}

static void test_csv_unterminated_resumes_next_line(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("x,\"abc\nok,3\n", false, r, 4);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].nf, -2);
  assert_int_equal(r[0].line, 1);
  assert_int_equal(r[1].nf, 2);
  assert_string_equal(r[1].f[1], "3");
  assert_int_equal(r[1].line, 2);
}

static void test_csv_final_record_without_newline(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("a,b\n1,2", false, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[1].f[1], "2");
  n = read_all("a,b\n\"1\",\"2\"", false, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[1].f[1], "2");
  n = read_all("a,", false, r, 4);
  assert_int_equal(n, 1);
  assert_int_equal(r[0].nf, 2);
  n = read_all("a,b\r", false, r, 4);
  assert_int_equal(n, 1);
  assert_string_equal(r[0].f[1], "b");
  n = read_all("", false, r, 4);
  assert_int_equal(n, 0);
}

static void test_csv_blank_lines_skipped(void **state) {
  (void)state;
  Rec r[8];
  int n = read_all("\nh\n1\n\n2\n\r\n3\n\n", true, r, 8);
  assert_int_equal(n, 3);
  assert_string_equal(r[0].f[0], "1");
  assert_int_equal(r[0].line, 3);
  assert_int_equal(r[1].line, 5);
  assert_int_equal(r[2].line, 7);
  /* a quoted empty field and bare commas are records, not blank lines */
  n = read_all("\"\"\n,,\n", false, r, 8);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].nf, 1);
  assert_string_equal(r[0].f[0], "");
  assert_int_equal(r[1].nf, 3);
}

static void test_csv_field_count_beyond_max(void **state) {
  (void)state;
  char *path = write_temp("1,2,3,4,5\n", 10);
  AirCsv *c = open_csv(path, false);
  AirField f[2];
  long line;
  assert_int_equal(air_csv_next(c, f, 2, &line), 5); /* true count */
  assert_int_equal(f[1].n, 1);
  assert_memory_equal(f[1].p, "2", 1);
  assert_int_equal(air_csv_next(c, f, 2, &line), -1);
  air_csv_close(c);
  air_csv_close(NULL);
  unlink(path);
  free(path);
}

/* Records (some multi-line, some bad) dealt over 1..4 ranks in blocks of
 * several sizes: each record is read by exactly one rank, each rank's in
 * file order. */
static void test_csv_share_split(void **state) {
  (void)state;
  enum { N = 1000 };
  size_t cap = N * 40 + 64, len = 0;
  char *data = malloc(cap);
  len += (size_t)sprintf(data + len, "id,text\n");
  for (int i = 0; i < N; i++) {
    if (i % 10 == 3) len += (size_t)sprintf(data + len, "%d,\"multi\nline %d\"\n", i, i);
    else if (i % 17 == 5) len += (size_t)sprintf(data + len, "%d,bad\"quote\n", i);
    else len += (size_t)sprintf(data + len, "%d,t%d\n", i, i);
    if (i % 50 == 0) len += (size_t)sprintf(data + len, "\n"); /* blank: no index */
  }
  char *path = write_temp(data, len);
  static const uint64_t blocks[] = {1, 7, 64, 1000, 0};
  for (int world = 1; world <= 4; world++) {
    for (size_t bi = 0; bi < sizeof blocks / sizeof *blocks; bi++) {
      int *owner = calloc(N, sizeof *owner);
      AirCsv *rs[4];
      AirCsvDef def = {.path = path, .name = "t", .header = AIR_CSV_HEADER_SKIP, .time_col = -1};
      open_split(&def, world, blocks[bi], rs);
      for (int rank = 0; rank < world; rank++) {
        AirField f[4];
        long line, last = 0;
        int nf;
        while ((nf = air_csv_next(rs[rank], f, 4, &line)) != -1) {
          assert_true(line > last);
          last = line;
          int id;
          if (nf == -2) {
            /* a bad row: which one, from its line (lines before: header,
             * one per record, one more per multi-line and per blank) */
            id = -1;
            for (int i = 0, l = 2; i < N && id < 0; i++) {
              if (l == line) id = i;
              l += 1 + (i % 10 == 3) + (i % 50 == 0);
            }
            assert_true(id >= 0 && id % 17 == 5 && id % 10 != 3);
          } else {
            assert_int_equal(nf, 2);
            char buf[16];
            memcpy(buf, f[0].p, f[0].n);
            buf[f[0].n] = '\0';
            id = atoi(buf);
          }
          owner[id]++;
        }
        air_csv_close(rs[rank]);
      }
      for (int i = 0; i < N; i++)
        if (owner[i] != 1) fail_msg("world %d block %llu: record %d read %d times", world,
                                    (unsigned long long)blocks[bi], i, owner[i]);
      free(owner);
    }
  }
  unlink(path);
  free(path);
  free(data);
}

/* One record as a reader returned it. */
typedef struct Got {
  long line;
  int nf;
  int64_t wm, ts;
  AirParse ok;
  char text[96]; /* its fields joined by '|' */
} Got;

static int read_got(AirCsv *c, Got *g, int max) {
  AirField f[4];
  long line;
  int nf, n = 0;
  while ((nf = air_csv_next(c, f, 4, &line)) != AIR_CSV_END) {
    assert_true(n < max);
    Got *x = &g[n++];
    memset(x, 0, sizeof *x);
    x->line = line;
    x->nf = nf;
    x->wm = air_csv_row_wm(c);
    x->ok = air_csv_time(c, &x->ts);
    size_t at = 0;
    for (int k = 0; k < nf && k < 4; k++) {
      assert_true(at + f[k].n + 2 < sizeof x->text);
      if (k) x->text[at++] = '|';
      memcpy(x->text + at, f[k].p, f[k].n);
      at += f[k].n;
    }
    /* the watermark to send never passes this record's W */
    assert_true(air_csv_scanned_wm(c) >= x->wm);
  }
  return n;
}

/* Every block size from 1 byte to the whole file, on 2 and 3 ranks, of
 * files with CRLF, a lone CR, line ends inside quotes (LF, CRLF, CR,
 * blank lines), quoted times, blank lines, bad quoting, a wrong field
 * count, a byte order mark and a header, a last line without its end, and
 * an unterminated quote: the records of all ranks together are the
 * records of one whole-file read, the same lines, fields, event times and
 * W(i), each once, each rank's in file order. */
static void test_csv_split_every_boundary(void **state) {
  (void)state;
  static const char *const files[] = {
      "\xEF\xBB\xBFk,ts,t\r\n"
      "a,100,x\r\n"
      "b,90,\"multi\nline\"\r\n"
      "\r\n"
      "c,300,\"cr\rinside\"\n"
      "d,50,\"crlf\r\ninside, \"\"q\"\"\"\n"
      "e,400,plain\r"
      "f,bad\"q,1\n"
      "g,350\n"
      "\n\n"
      "h,\"500\",quoted ts\n"
      "i,20,\"\n\n\"\n"
      "j,600,\"a\r\n\r\nb\"\r\n"
      "k,x12,bad ts\n"
      "l,660,\"\"\"\n\"\"\"\n"
      "m,700,last without its end",
      "k,ts,t\n"
      "a,10,\"x\n\"\n"
      "b,20,z\n"
      "c,30,\"never closed\n"
      "d,40,w\r"
      "e,5,y\n",
  };
  static const char *const cols[] = {"k", "ts", "t"};
  for (size_t fi = 0; fi < sizeof files / sizeof *files; fi++) {
    size_t len = strlen(files[fi]);
    char *path = write_temp(files[fi], len);
    AirCsvDef def = {.path = path, .name = "s", .header = AIR_CSV_HEADER, .cols = cols, .ncols = 3,
                     .time_col = 1, .wm_bound_ms = 15};
    Got want[64], got[64];
    AirCsv *one = air_csv_open_at(NULL, &def);
    int nwant = read_got(one, want, 64);
    air_csv_close(one);
    assert_true(nwant >= 5);
    for (int world = 1; world <= 3; world++) {
      for (uint64_t block = 1; block <= len + 1; block++) {
        AirCsv *rs[3];
        open_split(&def, world, block, rs);
        int seen[64] = {0}, ngot = 0;
        for (int r = 0; r < world; r++) {
          int n = read_got(rs[r], got, 64);
          for (int k = 0; k < n; k++) {
            int w = 0;
            while (w < nwant && want[w].line != got[k].line) w++;
            if (w == nwant) fail_msg("file %zu world %d block %llu: rank %d read a record at line %ld", fi,
                                     world, (unsigned long long)block, r, got[k].line);
            if (k) assert_true(got[k].line > got[k - 1].line);
            const Got *a = &want[w], *b = &got[k];
            if (a->nf != b->nf || strcmp(a->text, b->text) != 0 || a->wm != b->wm || a->ok != b->ok ||
                (a->ok == AIR_PARSE_OK && a->ts != b->ts))
              fail_msg("file %zu world %d block %llu: line %ld: '%s' nf %d W %lld, not '%s' nf %d W %lld",
                       fi, world, (unsigned long long)block, b->line, b->text, b->nf, (long long)b->wm,
                       a->text, a->nf, (long long)a->wm);
            seen[w]++;
            ngot++;
          }
          air_csv_close(rs[r]);
        }
        assert_int_equal(ngot, nwant);
        for (int w = 0; w < nwant; w++) assert_int_equal(seen[w], 1);
      }
    }
    unlink(path);
    free(path);
  }
}

/* W(i) follows the file's record order whatever the rank count and the
 * block size: a rank starts each of its blocks from the largest time of
 * every record before it (the split's scan of the blocks). A time
 * counts when its record has the declared field count and a valid
 * TIMESTAMP there, even when another field is bad. */
static void test_csv_watermarks(void **state) {
  (void)state;
  enum { N = 3000, BOUND = 50 };
  static int64_t ts[N];
  static bool counts[N];
  size_t cap = (size_t)N * 48 + 64, len = 0;
  char *data = malloc(cap);
  len += (size_t)sprintf(data + len, "k,ts\n");
  uint64_t r = 1;
  for (int i = 0; i < N; i++) {
    r = air_mix64(r);
    ts[i] = 1000 + 10 * i - (int64_t)(r % 500); /* out of order */
    counts[i] = true;
    switch (r % 11) {
    case 0: len += (size_t)sprintf(data + len, "x,%" PRId64 ",extra\n", ts[i]); counts[i] = false; break;
    case 1: len += (size_t)sprintf(data + len, "x,%" PRId64 "z\n", ts[i]); counts[i] = false; break;
    case 2: len += (size_t)sprintf(data + len, "bad\"q,%" PRId64 "\n", ts[i]); counts[i] = false; break;
    case 3: len += (size_t)sprintf(data + len, "x,99999999999999999\n"); counts[i] = false; break; /* year > 9999 */
    case 4: len += (size_t)sprintf(data + len, "%s,\"%" PRId64 "\"\r\n", "\"a\"\"b\"", ts[i]); break;
    default: len += (size_t)sprintf(data + len, "k%d,%" PRId64 "\n", i, ts[i]); break;
    }
  }
  char *path = write_temp(data, len);
  static int64_t want[N];
  int64_t top = AIR_WM_NONE;
  for (int i = 0; i < N; i++) {
    want[i] = top == AIR_WM_NONE ? AIR_WM_NONE : top - BOUND;
    if (counts[i] && ts[i] > top) top = ts[i];
  }
  static const char *const cols[] = {"k", "ts"};
  static const uint64_t blocks[] = {1, 100, 4096, 0};
  for (int world = 1; world <= 3; world++) {
    for (size_t bi = 0; bi < sizeof blocks / sizeof *blocks; bi++) {
      AirCsvDef def = {.path = path, .name = "s", .header = AIR_CSV_HEADER, .cols = cols,
                       .ncols = 2, .time_col = 1, .wm_bound_ms = BOUND};
      AirCsv *rs[3];
      open_split(&def, world, blocks[bi], rs);
      int total = 0;
      for (int rank = 0; rank < world; rank++) {
        AirCsv *c = rs[rank];
        AirField f[3];
        long line;
        int nf;
        while ((nf = air_csv_next(c, f, 3, &line)) != AIR_CSV_END) {
          int i = (int)line - 2; /* one line per record after the header */
          total++;
          if (air_csv_row_wm(c) != want[i])
            fail_msg("world %d: record %d: W %" PRId64 ", not %" PRId64, world, i, air_csv_row_wm(c), want[i]);
          /* the watermark to send covers this record and every one before
           * it, and no later record of this reader has a W below it */
          int64_t upto = i + 1 < N ? want[i + 1] : (top - BOUND);
          assert_true(air_csv_scanned_wm(c) == upto);
          int64_t t = 0;
          if (nf == 2) assert_int_equal(air_csv_time(c, &t) == AIR_PARSE_OK, counts[i]);
          if (nf == 2 && counts[i]) assert_true(t == ts[i]);
        }
        air_csv_close(c);
      }
      assert_int_equal(total, N);
    }
  }
  unlink(path);
  free(path);
  free(data);
}

/* More than the 1 MiB buffer: records straddle refills, and one field is
 * bigger than the whole initial buffer. */
static void test_csv_large_file_and_record(void **state) {
  (void)state;
  enum { N = 60000, BIG = 3 << 20 };
  size_t cap = (size_t)N * 64 + BIG + 64, len = 0;
  char *data = malloc(cap);
  for (int i = 0; i < N; i++)
    len += (size_t)sprintf(data + len, "%d,\"q,\"\"%d\"\"\n\",%s\n", i, i,
                           i % 2 ? "odd" : "even");
  data[len++] = '"';
  memset(data + len, 'z', BIG);
  len += BIG;
  len += (size_t)sprintf(data + len, "\",end\n");
  char *path = write_temp(data, len);
  AirCsv *c = open_csv(path, false);
  AirField f[4];
  long line;
  for (int i = 0; i < N; i++) {
    assert_int_equal(air_csv_next(c, f, 4, &line), 3);
    assert_int_equal(line, 1 + 2L * i);
    char want[64];
    int wn = sprintf(want, "q,\"%d\"\n", i);
    assert_int_equal(f[1].n, (size_t)wn);
    assert_memory_equal(f[1].p, want, (size_t)wn);
    assert_int_equal(f[2].n, i % 2 ? 3 : 4);
  }
  assert_int_equal(air_csv_next(c, f, 4, &line), 2);
  assert_int_equal(f[0].n, (size_t)BIG);
  assert_int_equal(f[0].p[BIG - 1], 'z');
  assert_int_equal(f[1].n, 3);
  assert_int_equal(air_csv_next(c, f, 4, &line), -1);
  air_csv_close(c);
  unlink(path);
  free(path);
  free(data);
}

/* air_csv_rows_hint: near the count for even lines, under it (never far
 * over) when the lines grow longer, and unaffected by what was read. */
static void test_csv_rows_hint(void **state) {
  (void)state;
  enum { N = 200000 };
  char *data = malloc((size_t)N * 48);
  size_t len = 0;
  for (int i = 0; i < N; i++) len += (size_t)sprintf(data + len, "%d,%d,%d\n", i, i % 1000, i % 97);
  char *path = write_temp(data, len);
  AirCsv *c = open_csv(path, true);
  AirField f[4];
  long line;
  assert_int_equal(air_csv_next(c, f, 4, &line), 3); /* the reader's position does not matter */
  size_t h = air_csv_rows_hint(c);
  assert_true(h > N * 0.9 && h < N * 1.1);
  assert_int_equal(air_csv_next(c, f, 4, &line), 3);
  assert_int_equal(line, 3);
  air_csv_close(c);
  unlink(path);
  free(path);
  /* short lines first, then ten times longer ones: the longest sample rules */
  len = 0;
  for (int i = 0; i < N; i++)
    len += (size_t)sprintf(data + len, i < N / 2 ? "%d\n" : "%d,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", i % 10);
  path = write_temp(data, len);
  c = open_csv(path, false);
  h = air_csv_rows_hint(c);
  assert_true(h <= N && h > N / 2);
  air_csv_close(c);
  unlink(path);
  free(path);
  free(data);
  /* no regular file: no hint */
  c = open_csv("/dev/null", false);
  assert_non_null(c);
  assert_int_equal(air_csv_rows_hint(c), 0);
  air_csv_close(c);
}

/* header = true: the header's fields must be the declared names, in order
 * (ASCII case-insensitive); header = 'skip' takes any first line. */
static void test_csv_header_check(void **state) {
  (void)state;
  static const char *const cols[] = {"driver", "fare", "ts"};
  static const struct {
    const char *data;
    AirCsvHeader header;
    const char *error; /* after "path:" */
  } cases[] = {
      {"driver,fare,ts\n1,2,3\n", AIR_CSV_HEADER, NULL},
      {"Driver,FARE,Ts\r\n1,2,3\r\n", AIR_CSV_HEADER, NULL},
      {"\xEF\xBB\xBF\"driver\",fare,\"ts\"\n1,2,3\n", AIR_CSV_HEADER, NULL},
      {"", AIR_CSV_HEADER, NULL}, /* no header, no rows: nothing to check */
      {"ts,driver,fare\n1,2,3\n", AIR_CSV_HEADER,
       "1: header 'ts,driver,fare' does not match the columns of stream 'trips' (driver, fare, ts): "
       "fix the file or the declaration, or write header = 'skip'"},
      {"\ndriver,fare\n1,2,3\n", AIR_CSV_HEADER, "2: header 'driver,fare' does not match"},
      {"driver,fare,ts,x\n", AIR_CSV_HEADER, "1: header 'driver,fare,ts,x' does not match"},
      {"driver,fares,ts\n", AIR_CSV_HEADER, "1: header 'driver,fares,ts' does not match"},
      {"driver,\"fa\"re\",ts\n", AIR_CSV_HEADER, "1: header 'driver,\"fa\"re\",ts' does not match"},
      {"1,2,3\n1,2,3\n", AIR_CSV_HEADER, "1: header '1,2,3' does not match"},
      {"ts,driver,fare\n1,2,3\n", AIR_CSV_HEADER_SKIP, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *path = write_temp(cases[k].data, strlen(cases[k].data));
    AirCsvDef def = {.path = path, .name = "trips", .header = cases[k].header, .cols = cols, .ncols = 3, .time_col = 2};
    AirCsv *c = air_csv_open_at(NULL, &def);
    assert_non_null(c);
    const char *e = air_csv_error(c);
    if (!cases[k].error) {
      if (e) fail_msg("case %zu: %s", k, e);
      AirField f[4];
      long line;
      int nf = air_csv_next(c, f, 4, &line);
      if (cases[k].data[0]) {
        assert_int_equal(nf, 3); /* the header is not a record */
        assert_memory_equal(f[0].p, "1", 1);
      } else {
        assert_int_equal(nf, AIR_CSV_END);
      }
    } else {
      char want[512];
      snprintf(want, sizeof want, "%s:%s", path, cases[k].error);
      if (!e || strncmp(e, want, strlen(want)) != 0) fail_msg("case %zu: '%s', not '%s...'", k, e ? e : "(none)", want);
    }
    air_csv_close(c);
    unlink(path);
    free(path);
  }
}

static double mono_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* rate = 200 records/s over all ranks: each of 2 ranks reads its share at
 * 100/s, and the reader hands back AIR_CSV_WAIT while it waits
 * (5 ms or more between records). */
static void test_csv_rate(void **state) {
  (void)state;
  char data[60 * 8 + 1];
  size_t len = 0;
  for (int i = 0; i < 60; i++) len += (size_t)sprintf(data + len, "%d\n", i);
  char *path = write_temp(data, len);
  for (int world = 1; world <= 2; world++) {
    AirCsvDef def = {.path = path, .name = "t", .time_col = -1, .rate = 200};
    AirCsv *rs[2];
    open_split(&def, world, 24, rs); /* blocks of 7-8 records */
    int all = 0;
    for (int r = 0; r < world; r++) {
      AirField f[2];
      long line;
      int nf, got = 0, waits = 0;
      double t0 = mono_s();
      while ((nf = air_csv_next(rs[r], f, 2, &line)) != AIR_CSV_END) {
        if (nf == AIR_CSV_WAIT) waits++;
        else got++;
      }
      double secs = mono_s() - t0, want = got / (200.0 / world);
      if (secs < want * 0.9 || secs > want + 1.5)
        fail_msg("world %d: %d records at %d/s took %.3f s", world, got, 200 / world, secs);
      if (world == 2) assert_true(got >= 20 && got <= 40);
      assert_true(waits > 0);
      all += got;
      air_csv_close(rs[r]);
    }
    assert_int_equal(all, 60);
  }
  unlink(path);
  free(path);
}

/* The writer of a FIFO: connects after a pause, writes in pieces (records
 * cut in two), pauses again, closes. */
typedef struct Writer {
  const char *path;
  int records;
} Writer;

static void *fifo_writer(void *arg) {
  const Writer *w = arg;
  struct timespec pause = {0, 150 * 1000 * 1000};
  nanosleep(&pause, NULL);
  int fd = open(w->path, O_WRONLY);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "id,v\n", 5), 5);
  for (int i = 0; i < w->records; i++) {
    char rec[32];
    int n = sprintf(rec, "%d,x%d\n", i, i);
    if (i % 100 == 7) { /* half a record, a pause, the rest */
      assert_int_equal(write(fd, rec, 2), 2);
      nanosleep(&pause, NULL);
      assert_int_equal(write(fd, rec + 2, (size_t)n - 2), n - 2);
    } else {
      assert_int_equal(write(fd, rec, (size_t)n), n);
    }
  }
  close(fd);
  return NULL;
}

/* A FIFO is read whole, by one reader, through poll(2): before its writer
 * connects, read(2) returns 0 as at the end of a file, which must not end
 * the input. */
static void test_csv_fifo(void **state) {
  (void)state;
  char dir[] = "/tmp/air_test_fifo_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/in.csv", dir);
  assert_int_equal(mkfifo(path, 0600), 0);
  Writer w = {path, 300};
  AirCsvDef def = {.path = path, .name = "t", .header = AIR_CSV_HEADER_SKIP, .ncols = 2, .time_col = -1};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, fifo_writer, &w), 0);
  /* opened before the writer connects: it waits for the header */
  AirCsv *c = air_csv_open_at(NULL, &def);
  assert_non_null(c);
  AirField f[3];
  long line;
  int nf, n = 0;
  while ((nf = air_csv_next(c, f, 3, &line)) != AIR_CSV_END) {
    assert_int_equal(nf, 2);
    assert_int_equal(line, n + 2);
    char want[16];
    int wn = sprintf(want, "x%d", n);
    assert_int_equal(f[1].n, (size_t)wn);
    assert_memory_equal(f[1].p, want, (size_t)wn);
    n++;
  }
  pthread_join(t, NULL);
  assert_int_equal(n, 300);
  assert_null(air_csv_error(c));
  air_csv_close(c);
  unlink(path);
  rmdir(dir);
}

/* A file cut shorter while it is read is an error, not a silent end. */
static void test_csv_truncated_while_read(void **state) {
  (void)state;
  enum { N = 300000 };
  char *data = malloc((size_t)N * 16);
  size_t len = 0;
  for (int i = 0; i < N; i++) len += (size_t)sprintf(data + len, "%d,%d\n", i, i % 7);
  char *path = write_temp(data, len);
  AirCsv *c = open_csv(path, false);
  AirField f[3];
  long line;
  assert_int_equal(air_csv_next(c, f, 3, &line), 2); /* the first 1 MiB is read */
  assert_int_equal(truncate(path, 100), 0);
  int n = 1;
  while (air_csv_next(c, f, 3, &line) != AIR_CSV_END) n++;
  assert_true(n < N);
  const char *e = air_csv_error(c);
  assert_non_null(e);
  char want[256];
  snprintf(want, sizeof want, "cannot read '%s': it shrank to 100 bytes while being read", path);
  if (strncmp(e, want, strlen(want)) != 0) fail_msg("'%s'", e);
  air_csv_close(c);
  unlink(path);
  free(path);
  free(data);
}

static void test_csv_missing_file(void **state) {
  (void)state;
  errno = 0;
  assert_null(open_csv("/nonexistent/dir/x.csv", false));
  assert_int_equal(errno, ENOENT);
  assert_null(open_csv("/tmp", false));
  assert_int_equal(errno, EISDIR);
}

/* The first 10 bad rows are printed as path:line: why, all are counted. */
static void test_csv_bad_row_reports_first_ten(void **state) {
  (void)state;
  char *path = write_temp("x\n", 2);
  AirCsv *c = open_csv(path, false);
  char errpath[] = "/tmp/air_test_err_XXXXXX";
  int efd = mkstemp(errpath);
  fflush(stderr);
  int saved = dup(2);
  dup2(efd, 2);
  for (long i = 1; i <= 15; i++) air_csv_bad_row(c, i * 10, "wrong field count");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  assert_int_equal(air_csv_bad_count(c), 15);
  FILE *e = fopen(errpath, "r");
  char line[512], want[512];
  int n = 0;
  while (fgets(line, sizeof line, e)) {
    n++;
    snprintf(want, sizeof want, "%s:%d: wrong field count\n", path, n * 10);
    assert_string_equal(line, want);
  }
  assert_int_equal(n, 10);
  assert_string_equal(air_csv_path(c), path);
  fclose(e);
  close(efd);
  unlink(errpath);
  air_csv_close(c);
  unlink(path);
  free(path);
}

/* format = 'json': a TIMESTAMP column ('t') takes a number or a string
 * (ISO-8601 text, parsed later as a csv field is), nothing else. */
static void test_csv_json_time(void **state) {
  (void)state;
  const char *data = "{\"ts\": \"2026-12-03T10:00:00Z\"}\n{\"ts\": 5}\n{\"ts\": true}\n";
  char *path = write_temp(data, strlen(data));
  static const char *const cols[] = {"ts"};
  AirCsvDef def = {.path = path, .name = "j", .cols = cols, .ncols = 1, .time_col = -1, .json = true,
                   .json_kinds = "t"};
  AirCsv *c = air_csv_open_at(NULL, &def);
  assert_non_null(c);
  AirField f[2];
  long line;
  int64_t t;
  assert_int_equal(air_csv_next(c, f, 2, &line), 1);
  assert_true(air_parse_ts(f[0], &t) == AIR_PARSE_OK && t == INT64_C(1796292000000));
  assert_int_equal(air_csv_next(c, f, 2, &line), 1);
  assert_true(air_parse_ts(f[0], &t) == AIR_PARSE_OK && t == 5);
  assert_int_equal(air_csv_next(c, f, 2, &line), AIR_CSV_BAD_QUOTING);
  assert_string_equal(air_csv_bad_why(c), "field 'ts' is true or false; its column takes a number or a time string");
  air_csv_close(c);
  unlink(path);
  free(path);
}

/* format = 'json': escapes undone into UTF-8 (a surrogate pair into one
 * code point, a lone surrogate into U+FFFD), keys in any order, unknown
 * keys skipped whatever they hold, and each kind of bad line with its
 * reason. */
static void test_csv_json_lines(void **state) {
  (void)state;
  const char *data =
      "{\"b\": 2, \"a\": \"x\\u00e9\\uD83D\\uDE00\\\"\\/\\n\", \"skip\": [{\"q\": \"}\"}, null]}\n"
      "\t\n"
      "{\"a\": \"lone \\uD800 x\", \"b\": -1.5e3}\r\n"
      "{\"a\": \"x\", \"b\": tru}\n"
      "{\"a\": \"x\"}\n"
      "{\"a\": \"x\", \"b\": \"2\"}\n"
      "{\"a\": \"x\", \"b\": 2,}\n"
      "{\"a\": \"x\\q\", \"b\": 2}\n"
      "{\"a\": \"x\", \"b\": 2}";
  char *path = write_temp(data, strlen(data));
  static const char *const cols[] = {"a", "b"};
  AirCsvDef def = {.path = path, .name = "j", .cols = cols, .ncols = 2, .time_col = -1, .json = true,
                   .json_kinds = "sn"};
  AirCsv *c = air_csv_open_at(NULL, &def);
  assert_non_null(c);
  AirField f[3];
  long line;
  assert_int_equal(air_csv_next(c, f, 3, &line), 2);
  assert_int_equal(line, 1);
  assert_int_equal(f[0].n, strlen("x\xc3\xa9\xf0\x9f\x98\x80\"/\n"));
  assert_memory_equal(f[0].p, "x\xc3\xa9\xf0\x9f\x98\x80\"/\n", f[0].n);
  assert_int_equal(f[1].n, 1);
  assert_memory_equal(f[1].p, "2", 1);
  assert_int_equal(air_csv_next(c, f, 3, &line), 2); /* the blank line is no record */
  assert_int_equal(line, 3);
  assert_memory_equal(f[0].p, "lone \xef\xbf\xbd x", f[0].n);
  assert_memory_equal(f[1].p, "-1.5e3", f[1].n);
  assert_int_equal(air_csv_next(c, f, 3, &line), AIR_CSV_BAD_QUOTING);
  assert_int_equal(line, 4);
  assert_string_equal(air_csv_bad_why(c), "bad JSON: a malformed value");
  assert_int_equal(air_csv_next(c, f, 3, &line), 2); /* a missing key is NULL */
  assert_int_equal(line, 5);
  assert_memory_equal(f[0].p, "x", 1);
  assert_ptr_equal(f[1].p, air_null_field);
  const char *why[] = {"field 'b' is a string; its column takes a number",
                       "bad JSON: a key (a string) expected at byte 19",
                       "bad JSON: an unterminated or malformed string"};
  for (int k = 0; k < 3; k++) {
    assert_int_equal(air_csv_next(c, f, 3, &line), AIR_CSV_BAD_QUOTING);
    assert_int_equal(line, 6 + k);
    assert_string_equal(air_csv_bad_why(c), why[k]);
  }
  assert_int_equal(air_csv_next(c, f, 3, &line), 2); /* the last line, without its line end */
  assert_int_equal(line, 9);
  assert_int_equal(air_csv_next(c, f, 3, &line), AIR_CSV_END);
  air_csv_close(c);
  unlink(path);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_csv_plain_and_header),
      cmocka_unit_test(test_csv_quoting),
      cmocka_unit_test(test_csv_crlf),
      cmocka_unit_test(test_csv_cr_only),
      cmocka_unit_test(test_csv_cr_at_buffer_end),
      cmocka_unit_test(test_csv_bom_skipped),
      cmocka_unit_test(test_csv_embedded_newline),
      cmocka_unit_test(test_csv_bad_quoting),
      cmocka_unit_test(test_csv_unterminated_resumes_next_line),
      cmocka_unit_test(test_csv_final_record_without_newline),
      cmocka_unit_test(test_csv_blank_lines_skipped),
      cmocka_unit_test(test_csv_field_count_beyond_max),
      cmocka_unit_test(test_csv_share_split),
      cmocka_unit_test(test_csv_watermarks),
      cmocka_unit_test(test_csv_split_every_boundary),
      cmocka_unit_test(test_csv_large_file_and_record),
      cmocka_unit_test(test_csv_header_check),
      cmocka_unit_test(test_csv_rate),
      cmocka_unit_test(test_csv_fifo),
      cmocka_unit_test(test_csv_truncated_while_read),
      cmocka_unit_test(test_csv_missing_file),
      cmocka_unit_test(test_csv_bad_row_reports_first_ten),
      cmocka_unit_test(test_csv_json_lines),
      cmocka_unit_test(test_csv_json_time),
      cmocka_unit_test(test_csv_rows_hint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
