/* ceiling_swa.c - a hand-fused, single-thread SWA for the benchmark harness.
 *
 * The rows of queries/swa.airq's datagen source (key = uniform(0, K-1) from
 * column 0, value = uniform(1, 100) from column 1, air.h's formulas) summed
 * per key in 10-second tumbling windows of ingestion time, in one loop with
 * one clock read per 1024 rows: what one core does, for the harness's ratios.
 *
 *   ceiling_swa [--duration S] [--seed N] [--keys K] [--limit N] [--dump]
 *
 * --keys  distinct keys (default 1000, as in SWA); the sums are a dense array.
 * --limit rows 0..N-1 then stop; with --dump, "key,sum" over all windows for
 *         every key seen, for checking against airc on the same seed.
 * Prints one JSON line on stdout: events, secs, events_per_s, cpu_s, windows,
 * checksum.
 */
#include "air.h"
#include "ceiling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define BATCH 1024      /* rows per clock read */
#define WINDOW_MS 10000 /* tumbling window size */

typedef struct State {
  int64_t keys;     /* distinct keys */
  int64_t *sum;     /* this window, per key */
  int64_t *seen;    /* rows this window, per key (a key is emitted if > 0) */
  int64_t *total;   /* every window, per key (--dump) */
  int64_t windows;  /* result rows emitted */
  double checksum;  /* keeps the results observable */
} State;

static void close_window(State *s, int64_t wstart) {
  for (int64_t k = 0; k < s->keys; k++) {
    if (!s->seen[k])
      continue;
    s->checksum += (double)s->sum[k] + (double)(wstart % 7);
    s->windows++;
    if (s->total)
      s->total[k] += s->sum[k];
  }
  memset(s->sum, 0, (size_t)s->keys * sizeof *s->sum);
  memset(s->seen, 0, (size_t)s->keys * sizeof *s->seen);
}

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n, size);
  if (!p) {
    fprintf(stderr, "ceiling_swa: out of memory\n");
    exit(1);
  }
  return p;
}

static void usage(void) {
  fprintf(stderr, "usage: ceiling_swa [--duration S] [--seed N] [--keys K] [--limit N] [--dump]\n");
  exit(2);
}

int main(int argc, char **argv) {
  double duration = 10;
  int64_t seed = 42;
  uint64_t limit = 0;
  int dump = 0;
  State s;
  memset(&s, 0, sizeof s);
  s.keys = 1000;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--duration") && a + 1 < argc)
      duration = atof(argv[++a]);
    else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
      seed = strtoll(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "--keys") && a + 1 < argc)
      s.keys = strtoll(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "--limit") && a + 1 < argc)
      limit = strtoull(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "--dump"))
      dump = 1;
    else
      usage();
  }
  if (s.keys < 1)
    usage();
  s.sum = xcalloc((size_t)s.keys, sizeof *s.sum);
  s.seen = xcalloc((size_t)s.keys, sizeof *s.seen);
  if (dump)
    s.total = xcalloc((size_t)s.keys, sizeof *s.total);

  const int64_t hi = s.keys - 1;
  uint64_t i = 0;
  int64_t wstart = INT64_MIN;
  double t0 = mono_s(), t1 = t0;
  for (;;) {
    int64_t ts = air_now_ms();
    t1 = mono_s();
    if (limit == 0 && t1 - t0 >= duration)
      break;
    uint64_t n = BATCH;
    if (limit && limit - i < n)
      n = limit - i;
    if (n == 0)
      break;
    int64_t ws = air_tumble_start(ts, WINDOW_MS);
    if (ws != wstart) {
      if (wstart != INT64_MIN)
        close_window(&s, wstart);
      wstart = ws;
    }
    for (uint64_t end = i + n; i < end; i++) {
      const uint64_t h = air_gen_row(seed, i);
      int64_t key = air_gen_uniform(air_gen_col(h, 0), 0, hi);
      int64_t value = air_gen_uniform(air_gen_col(h, 1), 1, 100);
      s.sum[key] += value;
      s.seen[key]++;
    }
  }
  t1 = mono_s();
  if (wstart != INT64_MIN)
    close_window(&s, wstart);

  double secs = t1 - t0;
  if (dump) {
    for (int64_t k = 0; k < s.keys; k++)
      if (s.total[k])
        printf("%lld,%lld\n", (long long)k, (long long)s.total[k]);
    return 0;
  }
  printf("{\"program\":\"ceiling_swa\",\"mode\":\"swa\",\"keys\":%lld,\"events\":%llu,"
         "\"secs\":%.3f,\"events_per_s\":%.1f,\"cpu_s\":%.3f,\"windows\":%lld,\"checksum\":%.1f}\n",
         (long long)s.keys, (unsigned long long)i, secs, secs > 0 ? (double)i / secs : 0.0, cpu_s(),
         (long long)s.windows, s.checksum);
  return 0;
}
