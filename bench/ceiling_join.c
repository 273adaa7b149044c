/* ceiling_join.c - hand-written limits for joins (issue 14 target 5): one
 * thread, one hash table, the same rows as bench.py's JOIN queries (air.h's
 * datagen formulas) and the same result bytes as airc's.
 *
 *   ceiling_join --mode stream --rows N --keys K
 *   ceiling_join --mode table --events N --table-rows T --path FILE
 *   ceiling_join --mode regular --rows N --events E
 *
 * stream: left rows i < N of seed 7 (k = uniform(0, K-1) from column 0,
 *         v = uniform(1, 100) from column 1), right rows of seed 8 (k, w
 *         the same way), ts = sequence(0, 1), all in one window of 6 hours.
 *         The right side is hashed (chains of row indices), every left row
 *         probes it; the pairs "k,v,w,WINDOW_END" sorted by (k, v, w).
 * table:  FILE is "k,g,w" with a header, T rows, k unique; it is read into
 *         an open-addressing table. Events i < N of seed 7 (k =
 *         uniform(0, T + T/10 - 1), so about one in 11 misses; v =
 *         uniform(1, 100)) look k up; matches are summed per g (SUM(v * w),
 *         COUNT(*)) in one window of 6 hours: "g,total,n,WINDOW_END" by g.
 * regular: a regular join (no window) of auctions i < N of seed 7 (k = i,
 *         v = uniform(1, 100) from column 1) with bids i < E of seed 8 (k =
 *         uniform(0, N - 1) from column 0, w = uniform(1, 100) from column
 *         1): the auctions are hashed, every bid probes them, each pair
 *         "k,v,w" written as it is found (airc's order differs: compare
 *         sorted).
 * Results go to stdout; one JSON line (secs, load_s, rows, ...) to stderr.
 */
#include "air.h"
#include "ceiling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW_MS (6 * 3600 * 1000LL) /* the queries' TUMBLING size */
#define NIL UINT32_MAX

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "ceiling_join: out of memory\n");
    exit(1);
  }
  return p;
}

static size_t pow2_at_least(size_t n) {
  size_t c = 16;
  while (c < n) c *= 2;
  return c;
}

/* ---- stream-stream ---------------------------------------------------- */

typedef struct Side {
  int64_t k, x;
} Side;
typedef struct Pair {
  int64_t k, v, w;
} Pair;

static int by_pair(const void *a, const void *b) {
  const Pair *x = a, *y = b;
  if (x->k != y->k) return (x->k > y->k) - (x->k < y->k);
  if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
  return (x->w > y->w) - (x->w < y->w);
}

static void gen_side(Side *s, size_t n, int64_t seed, int64_t keys) {
  for (size_t i = 0; i < n; i++) {
    const uint64_t h = air_gen_row(seed, i);
    s[i].k = air_gen_uniform(air_gen_col(h, 0), 0, keys - 1);
    s[i].x = air_gen_uniform(air_gen_col(h, 1), 1, 100);
  }
}

/* Chains of rows s[0..n) per home slot of their key, in row order (head
 * per slot, next per row, NIL-ended); returns the slot mask. */
static size_t build_chains(const Side *s, size_t n, uint32_t **headp, uint32_t **nextp) {
  size_t cap = pow2_at_least(2 * n), mask = cap - 1;
  uint32_t *head = xmalloc(cap * sizeof *head), *next = xmalloc(n * sizeof *next);
  memset(head, 0xff, cap * sizeof *head);
  for (size_t i = n; i-- > 0;) {
    size_t j = air_hash_u64((uint64_t)s[i].k) & mask;
    next[i] = head[j];
    head[j] = (uint32_t)i;
  }
  *headp = head;
  *nextp = next;
  return mask;
}

static size_t stream_join(size_t n, int64_t keys, double *load_s) {
  double t0 = mono_s();
  Side *l = xmalloc(n * sizeof *l), *r = xmalloc(n * sizeof *r);
  gen_side(l, n, 7, keys);
  gen_side(r, n, 8, keys);
  *load_s = mono_s() - t0;
  /* build: chains of right rows per home slot, in row order */
  uint32_t *head, *next;
  size_t mask = build_chains(r, n, &head, &next);
  size_t np = 0, capp = n + 16;
  Pair *p = xmalloc(capp * sizeof *p);
  for (size_t i = 0; i < n; i++) {
    for (uint32_t j = head[air_hash_u64((uint64_t)l[i].k) & mask]; j != NIL; j = next[j]) {
      if (r[j].k != l[i].k) continue;
      if (np == capp) {
        capp *= 2;
        Pair *q = realloc(p, capp * sizeof *p);
        if (!q) exit(1);
        p = q;
      }
      p[np++] = (Pair){l[i].k, l[i].x, r[j].x};
    }
  }
  qsort(p, np, sizeof *p, by_pair);
  fputs("k,v,w,WINDOW_END\n", stdout);
  for (size_t i = 0; i < np; i++) {
    air_write_i64(stdout, p[i].k);
    fputc(',', stdout);
    air_write_i64(stdout, p[i].v);
    fputc(',', stdout);
    air_write_i64(stdout, p[i].w);
    fputc(',', stdout);
    air_write_i64(stdout, WINDOW_MS);
    fputc('\n', stdout);
  }
  free(l);
  free(r);
  free(head);
  free(next);
  free(p);
  return np;
}

static size_t regular_join(size_t n, size_t events, double *load_s) {
  double t0 = mono_s();
  Side *a = xmalloc(n * sizeof *a);
  for (size_t i = 0; i < n; i++) {
    a[i].k = (int64_t)i;
    a[i].x = air_gen_uniform(air_gen_col(air_gen_row(7, i), 1), 1, 100);
  }
  uint32_t *head, *next;
  size_t mask = build_chains(a, n, &head, &next);
  *load_s = mono_s() - t0;
  size_t np = 0;
  fputs("k,v,w\n", stdout);
  for (size_t i = 0; i < events; i++) {
    const uint64_t h = air_gen_row(8, i);
    int64_t k = air_gen_uniform(air_gen_col(h, 0), 0, (int64_t)n - 1);
    int64_t w = air_gen_uniform(air_gen_col(h, 1), 1, 100);
    for (uint32_t j = head[air_hash_u64((uint64_t)k) & mask]; j != NIL; j = next[j]) {
      if (a[j].k != k) continue;
      air_write_i64(stdout, k);
      fputc(',', stdout);
      air_write_i64(stdout, a[j].x);
      fputc(',', stdout);
      air_write_i64(stdout, w);
      fputc('\n', stdout);
      np++;
    }
  }
  free(a);
  free(head);
  free(next);
  return np;
}

/* ---- stream-table ----------------------------------------------------- */

#define EMPTY INT64_MIN
typedef struct TSlot {
  int64_t k, g, w;
} TSlot;

static int64_t field(const char **pp) {
  const char *p = *pp;
  int neg = *p == '-';
  p += neg;
  int64_t v = 0;
  while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
  if (*p == ',') p++;
  *pp = p;
  return neg ? -v : v;
}

static size_t table_join(const char *path, size_t trows, size_t events, double *load_s) {
  double t0 = mono_s();
  size_t cap = pow2_at_least(trows + trows / 3 + 1), mask = cap - 1;
  TSlot *t = xmalloc(cap * sizeof *t);
  for (size_t j = 0; j < cap; j++) t[j].k = EMPTY;
  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    exit(1);
  }
  static char fbuf[1 << 20];
  setvbuf(f, fbuf, _IOFBF, sizeof fbuf);
  char line[256];
  if (!fgets(line, sizeof line, f)) exit(1); /* the header */
  while (fgets(line, sizeof line, f)) {
    const char *p = line;
    int64_t k = field(&p), g = field(&p), w = field(&p);
    size_t j = air_hash_u64((uint64_t)k) & mask;
    while (t[j].k != EMPTY && t[j].k != k) j = (j + 1) & mask;
    t[j] = (TSlot){k, g, w};
  }
  fclose(f);
  *load_s = mono_s() - t0;
  /* the groups: g is small and dense in the bench's file (0..G-1) */
  size_t ng = 1024;
  int64_t *sum = calloc(ng, sizeof *sum), *cnt = calloc(ng, sizeof *cnt);
  if (!sum || !cnt) exit(1);
  int64_t hi = (int64_t)(trows + trows / 10) - 1;
  for (size_t i = 0; i < events; i++) {
    const uint64_t h = air_gen_row(7, i);
    int64_t k = air_gen_uniform(air_gen_col(h, 0), 0, hi);
    int64_t v = air_gen_uniform(air_gen_col(h, 1), 1, 100);
    size_t j = air_hash_u64((uint64_t)k) & mask;
    while (t[j].k != EMPTY && t[j].k != k) j = (j + 1) & mask;
    if (t[j].k == EMPTY) continue; /* unmatched */
    size_t g = (size_t)t[j].g;
    if (g >= ng) {
      size_t n2 = ng;
      while (n2 <= g) n2 *= 2;
      sum = realloc(sum, n2 * sizeof *sum);
      cnt = realloc(cnt, n2 * sizeof *cnt);
      if (!sum || !cnt) exit(1);
      memset(sum + ng, 0, (n2 - ng) * sizeof *sum);
      memset(cnt + ng, 0, (n2 - ng) * sizeof *cnt);
      ng = n2;
    }
    sum[g] = (int64_t)((uint64_t)sum[g] + (uint64_t)v * (uint64_t)t[j].w);
    cnt[g]++;
  }
  fputs("g,total,n,WINDOW_END\n", stdout);
  size_t rows = 0;
  for (size_t g = 0; g < ng; g++) {
    if (!cnt[g]) continue;
    air_write_i64(stdout, (int64_t)g);
    fputc(',', stdout);
    air_write_i64(stdout, sum[g]);
    fputc(',', stdout);
    air_write_i64(stdout, cnt[g]);
    fputc(',', stdout);
    air_write_i64(stdout, WINDOW_MS);
    fputc('\n', stdout);
    rows++;
  }
  free(t);
  free(sum);
  free(cnt);
  return rows;
}

int main(int argc, char **argv) {
  const char *mode = "stream", *path = NULL;
  int64_t keys = 1000000;
  size_t rows = 1000000, events = 10000000, trows = 10000000;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--mode")) mode = argv[a + 1];
    else if (!strcmp(argv[a], "--rows")) rows = strtoull(argv[a + 1], NULL, 10);
    else if (!strcmp(argv[a], "--keys")) keys = strtoll(argv[a + 1], NULL, 10);
    else if (!strcmp(argv[a], "--events")) events = strtoull(argv[a + 1], NULL, 10);
    else if (!strcmp(argv[a], "--table-rows")) trows = strtoull(argv[a + 1], NULL, 10);
    else if (!strcmp(argv[a], "--path")) path = argv[a + 1];
    else {
      fprintf(stderr, "usage: ceiling_join --mode stream --rows N --keys K | "
                      "--mode table --events N --table-rows T --path FILE | --mode regular --rows N --events E\n");
      return 2;
    }
  }
  bool table = !strcmp(mode, "table"), regular = !strcmp(mode, "regular");
  if ((table && (!path || trows < 1)) || (!table && (keys < 1 || rows < 1 || rows >= NIL))) return 2;
  static char obuf[1 << 16];
  setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
  double t0 = mono_s(), load_s = 0;
  size_t out = table     ? table_join(path, trows, events, &load_s)
               : regular ? regular_join(rows, events, &load_s)
                         : stream_join(rows, keys, &load_s);
  fflush(stdout);
  double secs = mono_s() - t0;
  size_t in = table ? events : regular ? rows + events : 2 * rows;
  fprintf(stderr, "{\"program\":\"ceiling_join\",\"mode\":\"%s\",\"events\":%zu,\"secs\":%.3f,\"load_s\":%.3f,"
          "\"events_per_s\":%.1f,\"cpu_s\":%.3f,\"rows\":%zu}\n",
          mode, in, secs, load_s, secs > 0 ? (double)in / secs : 0.0, cpu_s(), out);
  return 0;
}
