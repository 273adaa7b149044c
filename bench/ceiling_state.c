/* ceiling_state.c - hand-written limits for big state (issue 14): the events
 * of a datagen stream (key = uniform(0, K-1) from column 0, value =
 * uniform(1, 100) from column 1, ts = sequence(0, 1): air.h's formulas, as
 * bench.py's STATE_TEMPLATE declares them), aggregated by one thread with
 * one open-addressing table, sorted with qsort and written with the
 * runtime's integer writer: the same result bytes as airc's query.
 *
 *   ceiling_state --mode agg|session --keys K --events N [--seed S] [--gap MS]
 *
 * agg:     one window holding every event: "key,total,n,WINDOW_END" sorted
 *          by key (SUM, COUNT, WINDOW_END = the window's size, 6 hours).
 * session: SESSION (GAP MS) per key, the events in time order: a session
 *          closes when a key's next event is gap or more after its last;
 *          "key,total,n,WINDOW_START,WINDOW_END" ordered by WINDOW_END, key.
 * Results go to stdout; one JSON line (events, secs, events_per_s, cpu_s,
 * rows, bytes_per_key) to stderr.
 */
#include "air.h"
#include "ceiling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW_MS (6 * 3600 * 1000LL) /* the agg query's TUMBLING size */

/* A table slot: key EMPTY is a free slot (keys are 0..K-1). */
#define EMPTY INT64_MIN
typedef struct Slot {
  int64_t key;
  int64_t sum, n;
} Slot;
typedef struct SSlot { /* session mode: the key's open session too */
  int64_t key;
  int64_t sum, n;
  int64_t start, last;
} SSlot;

typedef struct Row {
  int64_t key, sum, n, start, end;
} Row;

static Row *rows;
static size_t nrows, caprows;

static void add_row(int64_t key, int64_t sum, int64_t n, int64_t start, int64_t end) {
  if (nrows == caprows) {
    caprows = caprows ? caprows * 2 : 1024;
    Row *r = realloc(rows, caprows * sizeof *r);
    if (!r) {
      fprintf(stderr, "ceiling_state: out of memory\n");
      exit(1);
    }
    rows = r;
  }
  rows[nrows++] = (Row){key, sum, n, start, end};
}

static int by_key(const void *a, const void *b) {
  const Row *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

static int by_end_key(const void *a, const void *b) {
  const Row *x = a, *y = b;
  if (x->end != y->end) return (x->end > y->end) - (x->end < y->end);
  return (x->key > y->key) - (x->key < y->key);
}

int main(int argc, char **argv) {
  const char *mode = "agg";
  int64_t keys = 1000, seed = 7, gap = 0;
  uint64_t events = 1000000;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--mode")) mode = argv[a + 1];
    else if (!strcmp(argv[a], "--keys")) keys = strtoll(argv[a + 1], NULL, 10);
    else if (!strcmp(argv[a], "--events")) events = strtoull(argv[a + 1], NULL, 10);
    else if (!strcmp(argv[a], "--seed")) seed = strtoll(argv[a + 1], NULL, 10);
    else if (!strcmp(argv[a], "--gap")) gap = strtoll(argv[a + 1], NULL, 10);
    else {
      fprintf(stderr, "usage: ceiling_state --mode agg|session --keys K --events N [--seed S] [--gap MS]\n");
      return 2;
    }
  }
  bool session = !strcmp(mode, "session");
  if (keys < 1 || (session && gap < 1)) return 2;
  size_t cap = 16;
  while (cap / 4 * 3 < (size_t)keys) cap *= 2;
  size_t mask = cap - 1, slot_bytes = session ? sizeof(SSlot) : sizeof(Slot);
  Slot *t = session ? NULL : malloc(cap * sizeof *t);
  SSlot *st = session ? malloc(cap * sizeof *st) : NULL;
  if (!t && !st) return 1;
  for (size_t j = 0; j < cap; j++) {
    if (t) t[j].key = EMPTY;
    else st[j].key = EMPTY;
  }
  double t0 = mono_s();
  for (uint64_t i = 0; i < events; i++) {
    const uint64_t h = air_gen_row(seed, i);
    int64_t key = air_gen_uniform(air_gen_col(h, 0), 0, keys - 1);
    int64_t value = air_gen_uniform(air_gen_col(h, 1), 1, 100);
    int64_t ts = (int64_t)i;
    size_t j = air_hash_u64((uint64_t)key) & mask;
    if (!session) {
      while (t[j].key != EMPTY && t[j].key != key) j = (j + 1) & mask;
      if (t[j].key == EMPTY) t[j] = (Slot){key, 0, 0};
      t[j].sum += value;
      t[j].n++;
      continue;
    }
    while (st[j].key != EMPTY && st[j].key != key) j = (j + 1) & mask;
    SSlot *s = &st[j];
    if (s->key == EMPTY) {
      *s = (SSlot){key, 0, 0, ts, ts};
    } else if (ts >= s->last + gap) {
      add_row(key, s->sum, s->n, s->start, s->last + gap);
      s->sum = s->n = 0;
      s->start = ts;
    }
    s->sum += value;
    s->n++;
    s->last = ts;
  }
  for (size_t j = 0; j < cap; j++) {
    if (t && t[j].key != EMPTY) add_row(t[j].key, t[j].sum, t[j].n, 0, WINDOW_MS);
    if (st && st[j].key != EMPTY) add_row(st[j].key, st[j].sum, st[j].n, st[j].start, st[j].last + gap);
  }
  qsort(rows, nrows, sizeof *rows, session ? by_end_key : by_key);
  static char obuf[1 << 16];
  setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
  fputs(session ? "key,total,n,WINDOW_START,WINDOW_END\n" : "key,total,n,WINDOW_END\n", stdout);
  for (size_t r = 0; r < nrows; r++) {
    air_write_i64(stdout, rows[r].key);
    fputc(',', stdout);
    air_write_i64(stdout, rows[r].sum);
    fputc(',', stdout);
    air_write_i64(stdout, rows[r].n);
    fputc(',', stdout);
    if (session) {
      air_write_i64(stdout, rows[r].start);
      fputc(',', stdout);
    }
    air_write_i64(stdout, rows[r].end);
    fputc('\n', stdout);
  }
  fflush(stdout);
  double secs = mono_s() - t0;
  fprintf(stderr, "{\"program\":\"ceiling_state\",\"mode\":\"%s\",\"keys\":%lld,\"events\":%llu,"
          "\"secs\":%.3f,\"events_per_s\":%.1f,\"cpu_s\":%.3f,\"rows\":%zu,\"bytes_per_key\":%.1f}\n",
          mode, (long long)keys, (unsigned long long)events, secs, secs > 0 ? (double)events / secs : 0.0,
          cpu_s(), nrows, (double)(cap * slot_bytes) / (double)keys);
  return 0;
}
