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
static AirCsv *open_csv(const char *path, bool header, int rank, int world) {
  AirCsvDef def = {.path = path, .name = "t", .header = header ? AIR_CSV_HEADER_SKIP : AIR_CSV_NO_HEADER,
                   .time_col = -1};
  return air_csv_open_at(NULL, &def, rank, world);
}

typedef struct Rec {
  int nf;              /* air_csv_next's result */
  long line;           /* its line */
  char f[8][64];       /* fields as C strings */
} Rec;

/* Reads every record of path (rank/world share) into recs; returns count. */
static int read_all(const char *data, bool header, int rank, int world, Rec *recs,
                    int maxrecs) {
  char *path = write_temp(data, strlen(data));
  AirCsv *c = open_csv(path, header, rank, world);
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
  int n = read_all("a,b,c\n1,2,3\n4,,6\n", true, 0, 1, r, 4);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].nf, 3);
  assert_int_equal(r[0].line, 2);
  assert_string_equal(r[0].f[0], "1");
  assert_string_equal(r[0].f[2], "3");
  assert_int_equal(r[1].line, 3);
  assert_string_equal(r[1].f[1], "");
  /* without header the first line is a record */
  n = read_all("a,b,c\n1,2,3\n", false, 0, 1, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[0].f[0], "a");
  assert_int_equal(r[0].line, 1);
}

static void test_csv_quoting(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("\"x,y\",\"he said \"\"hi\"\"\",plain,\"\"\n"
                   "\"\"\"\",\"a\"\"\"\"b\"\n",
                   false, 0, 1, r, 4);
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
  int n = read_all("h1,h2\r\n1,two\r\n\"q\",\"r\"\r\n3,x\ry\r\n", true, 0, 1, r, 4);
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
  int n = read_all("a,b\r1,2\r\r\"x\ry\",3\r\"q\"\r4,\"z\r\n\"\r\"bad\"x\r5,6", true, 0, 1, r, 8);
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
  n = read_all("x,\"abc\rok,3\r", false, 0, 1, r, 8);
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
    AirCsv *c = open_csv(path, false, 0, 1);
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
  int n = read_all("\xEF\xBB\xBF" "a,b\n1,2\n", false, 0, 1, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[0].f[0], "a");
  assert_int_equal(r[0].line, 1);
  n = read_all("\xEF\xBB\xBF", false, 0, 1, r, 4);
  assert_int_equal(n, 0);
  /* only at the start of the file */
  n = read_all("a\n\xEF\xBB\xBF" "b\n", false, 0, 1, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[1].f[0], "\xEF\xBB\xBF" "b");
}

static void test_csv_embedded_newline(void **state) {
  (void)state;
  Rec r[4];
  int n = read_all("\"line1\nline2\",z\nnext,1\n\"a\r\nb\",c\r\n", false, 0, 1, r, 4);
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
                   false, 0, 1, r, 8);
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
  int n = read_all("x,\"abc\nok,3\n", false, 0, 1, r, 4);
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
  int n = read_all("a,b\n1,2", false, 0, 1, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[1].f[1], "2");
  n = read_all("a,b\n\"1\",\"2\"", false, 0, 1, r, 4);
  assert_int_equal(n, 2);
  assert_string_equal(r[1].f[1], "2");
  n = read_all("a,", false, 0, 1, r, 4);
  assert_int_equal(n, 1);
  assert_int_equal(r[0].nf, 2);
  n = read_all("a,b\r", false, 0, 1, r, 4);
  assert_int_equal(n, 1);
  assert_string_equal(r[0].f[1], "b");
  n = read_all("", false, 0, 1, r, 4);
  assert_int_equal(n, 0);
}

static void test_csv_blank_lines_skipped(void **state) {
  (void)state;
  Rec r[8];
  int n = read_all("\nh\n1\n\n2\n\r\n3\n\n", true, 0, 1, r, 8);
  assert_int_equal(n, 3);
  assert_string_equal(r[0].f[0], "1");
  assert_int_equal(r[0].line, 3);
  assert_int_equal(r[1].line, 5);
  assert_int_equal(r[2].line, 7);
  /* a quoted empty field and bare commas are records, not blank lines */
  n = read_all("\"\"\n,,\n", false, 0, 1, r, 8);
  assert_int_equal(n, 2);
  assert_int_equal(r[0].nf, 1);
  assert_string_equal(r[0].f[0], "");
  assert_int_equal(r[1].nf, 3);
}

static void test_csv_field_count_beyond_max(void **state) {
  (void)state;
  char *path = write_temp("1,2,3,4,5\n", 10);
  AirCsv *c = open_csv(path, false, 0, 1);
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

/* Records (some multi-line, some bad) dealt over 1..4 ranks: each record is
 * read by exactly one rank, rank r getting indices r, r+W, ... */
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
  for (int world = 1; world <= 4; world++) {
    int *owner = calloc(N, sizeof *owner);
    for (int rank = 0; rank < world; rank++) {
      AirCsv *c = open_csv(path, true, rank, world);
      AirField f[4];
      long line;
      int nf, k = 0;
      while ((nf = air_csv_next(c, f, 4, &line)) != -1) {
        int want = rank + k * world;
        k++;
        if (want % 17 == 5 && want % 10 != 3) {
          assert_int_equal(nf, -2);
          owner[want]++;
          continue;
        }
        assert_int_equal(nf, 2);
        char buf[16];
        memcpy(buf, f[0].p, f[0].n);
        buf[f[0].n] = '\0';
        assert_int_equal(atoi(buf), want);
        owner[want]++;
      }
      air_csv_close(c);
    }
    for (int i = 0; i < N; i++) assert_int_equal(owner[i], 1);
    free(owner);
  }
  unlink(path);
  free(path);
  free(data);
}

/* W(i) follows the file's record order whatever the rank count: every
 * reader parses the time column of every record, others' too. A time
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
  for (int world = 1; world <= 3; world++) {
    for (int rank = 0; rank < world; rank++) {
      AirCsvDef def = {.path = path, .name = "s", .header = AIR_CSV_HEADER, .cols = cols,
                       .ncols = 2, .time_col = 1, .wm_bound_ms = BOUND};
      AirCsv *c = air_csv_open_at(NULL, &def, rank, world);
      assert_null(air_csv_error(c));
      AirField f[3];
      long line;
      int nf;
      for (int i = rank; (nf = air_csv_next(c, f, 3, &line)) != AIR_CSV_END; i += world) {
        if (air_csv_row_wm(c) != want[i]) fail_msg("world %d: record %d: W %" PRId64 ", not %" PRId64, world, i, air_csv_row_wm(c), want[i]);
        /* the watermark to send covers this record and every one before */
        int64_t upto = i + 1 < N ? want[i + 1] : (top - BOUND);
        assert_true(air_csv_scanned_wm(c) == upto);
        int64_t t = 0;
        if (nf == 2) assert_int_equal(air_csv_time(c, &t) == AIR_PARSE_OK, counts[i]);
        if (nf == 2 && counts[i]) assert_true(t == ts[i]);
      }
      assert_true(air_csv_scanned_wm(c) == top - BOUND); /* all of the file, at its end */
      air_csv_close(c);
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
  AirCsv *c = open_csv(path, false, 0, 1);
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
  AirCsv *c = open_csv(path, true, 0, 1);
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
  c = open_csv(path, false, 0, 1);
  h = air_csv_rows_hint(c);
  assert_true(h <= N && h > N / 2);
  air_csv_close(c);
  unlink(path);
  free(path);
  free(data);
  /* no regular file: no hint */
  c = open_csv("/dev/null", false, 0, 1);
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
    AirCsv *c = air_csv_open_at(NULL, &def, 0, 1);
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

/* rate = 200 records/s over all ranks: 60 records take 0.3 s however many
 * ranks share them, and the reader hands back AIR_CSV_WAIT while it waits
 * (5 ms or more between records). */
static void test_csv_rate(void **state) {
  (void)state;
  char data[60 * 8 + 1];
  size_t len = 0;
  for (int i = 0; i < 60; i++) len += (size_t)sprintf(data + len, "%d\n", i);
  char *path = write_temp(data, len);
  for (int world = 1; world <= 2; world++) {
    AirCsvDef def = {.path = path, .name = "t", .time_col = -1, .rate = 200};
    AirCsv *c = air_csv_open_at(NULL, &def, world - 1, world);
    AirField f[2];
    long line;
    int nf, got = 0, waits = 0;
    double t0 = mono_s();
    while ((nf = air_csv_next(c, f, 2, &line)) != AIR_CSV_END) {
      if (nf == AIR_CSV_WAIT) waits++;
      else got++;
    }
    double secs = mono_s() - t0;
    assert_int_equal(got, 60 / world);
    if (secs < 0.28 || secs > 2.0) fail_msg("world %d: %d records at 200/s took %.3f s", world, got, secs);
    assert_true(waits > 0);
    air_csv_close(c);
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
  AirCsv *c = air_csv_open_at(NULL, &def, 0, 1);
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
  AirCsv *c = open_csv(path, false, 0, 1);
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
  assert_null(open_csv("/nonexistent/dir/x.csv", false, 0, 1));
  assert_int_equal(errno, ENOENT);
  assert_null(open_csv("/tmp", false, 0, 1));
  assert_int_equal(errno, EISDIR);
}

/* The first 10 bad rows are printed as path:line: why, all are counted. */
static void test_csv_bad_row_reports_first_ten(void **state) {
  (void)state;
  char *path = write_temp("x\n", 2);
  AirCsv *c = open_csv(path, false, 0, 1);
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
  AirCsv *c = air_csv_open_at(NULL, &def, 0, 1);
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
  const char *why[] = {"bad JSON: a malformed value", "missing field 'b'",
                       "field 'b' is a string; its column takes a number",
                       "bad JSON: a key (a string) expected at byte 19",
                       "bad JSON: an unterminated or malformed string"};
  for (int k = 0; k < 5; k++) {
    assert_int_equal(air_csv_next(c, f, 3, &line), AIR_CSV_BAD_QUOTING);
    assert_int_equal(line, 4 + k);
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
      cmocka_unit_test(test_csv_large_file_and_record),
      cmocka_unit_test(test_csv_header_check),
      cmocka_unit_test(test_csv_rate),
      cmocka_unit_test(test_csv_fifo),
      cmocka_unit_test(test_csv_truncated_while_read),
      cmocka_unit_test(test_csv_missing_file),
      cmocka_unit_test(test_csv_bad_row_reports_first_ten),
      cmocka_unit_test(test_csv_json_lines),
      cmocka_unit_test(test_csv_rows_hint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
