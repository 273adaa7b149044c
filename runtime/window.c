/* window.c - the open windows of one windowed operator.
 *
 * Only a handful of windows are open at once (one for a tumbling window
 * behind the watermark, size/advance for a hopping one), so they live in a
 * small array sorted by start; events arrive roughly in time order, so the
 * last window used is cached and most rows skip even that search. Closed
 * tables are cleared and reused so a steady stream allocates nothing.
 */
#include "air.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define WIN_TABLE_CAP 64 /* entries a fresh window table holds before growing */
#define WIN_FREE_MAX 64  /* recycled tables kept for reuse */
#define WIN_FREE_SMALL 4096 /* ... when they are small (EMIT CHANGES opens a window per ms) */
#define SAMPLE_ROWS 65536 /* a partial's rows between two checks that pre-aggregating pays */
#define STAGE_MIN_KEYS ((size_t)1 << 15) /* entries held when a partial's rows are staged (air_windows_staging) */

typedef struct OpenWindow {
  int64_t start;  /* window start, ms */
  AirHash *table; /* key -> accumulator */
} OpenWindow;

/* The open windows are a binary min-heap by start (open[0] closes first)
 * and an index start -> table beside it (open addressing, tombstones):
 * one window per millisecond (an updating query's EMIT CHANGES) keeps
 * thousands open, which rows of several ranks open out of order; a sorted
 * array moved its tail on each insert (69% of a 2-rank run in memmove). */
enum { SLOT_EMPTY, SLOT_FULL, SLOT_GONE };

struct AirWindows {
  size_t key_size;     /* bytes per group key */
  size_t acc_size;     /* bytes per accumulator */
  OpenWindow *open;    /* a min-heap by start */
  size_t nopen;        /* used entries of open */
  size_t open_cap;     /* allocated entries of open */
  OpenWindow *idx;     /* start -> table, icap slots (a power of two) */
  unsigned char *islot; /* SLOT_* of each */
  size_t icap, ifill;  /* slots, and those full or gone */
  size_t table_cap;    /* entries a fresh table holds before growing (WIN_TABLE_CAP) */
  AirHash **free;      /* cleared tables for reuse */
  size_t nfree;        /* used entries of free */
  int64_t last_start;  /* start of the cached window */
  AirHash *last_table; /* cached window's table, NULL when none */
  /* a per-rank partial's adaptive pre-aggregation (air_windows_partial_acc) */
  size_t raw_min_keys; /* entries the open tables must hold before raw pays */
  bool raw;            /* rows go on unaggregated */
  int64_t raw_until;   /* ... until the window starting here closes */
  uint32_t sample_every; /* rows between two checks (SAMPLE_ROWS) */
  uint32_t sample_rows, sample_new; /* rows upserted / new keys since the last check */
  int64_t raw_rows;    /* rows sent on unaggregated, not yet added to the total */
  size_t stage_min_keys; /* entries the open tables hold when staging starts */
};

static _Atomic int64_t raw_rows_total; /* --stats-json partial_raw_rows */

int64_t air_windows_raw_rows(void) { return atomic_load(&raw_rows_total); }

static void add_raw_rows(AirWindows *w) {
  if (w->raw_rows) atomic_fetch_add(&raw_rows_total, w->raw_rows);
  w->raw_rows = 0;
}

static _Noreturn void windows_oom(void) { air_oom("window state"); }

/* Owned by the caller; free with air_windows_free. */
AirWindows *air_windows_new(size_t key_size, size_t acc_size) {
  AirWindows *w = calloc(1, sizeof *w);
  if (!w) windows_oom();
  w->key_size = key_size;
  w->acc_size = acc_size;
  w->open_cap = 16;
  w->raw_min_keys = (size_t)1 << 20;
  w->sample_every = SAMPLE_ROWS;
  w->stage_min_keys = STAGE_MIN_KEYS;
  /* tests: the raw path on small inputs */
  const char *env = getenv("AIR_PARTIAL_RAW_KEYS");
  if (env && *env) w->raw_min_keys = (size_t)strtoull(env, NULL, 10);
  env = getenv("AIR_PARTIAL_SAMPLE_ROWS");
  if (env && *env && strtoul(env, NULL, 10) > 0) w->sample_every = (uint32_t)strtoul(env, NULL, 10);
  env = getenv("AIR_PARTIAL_STAGE_KEYS");
  if (env && *env) w->stage_min_keys = (size_t)strtoull(env, NULL, 10);
  w->table_cap = WIN_TABLE_CAP;
  w->open = malloc(w->open_cap * sizeof *w->open);
  w->free = malloc(WIN_FREE_SMALL * sizeof *w->free);
  w->icap = 64;
  w->idx = malloc(w->icap * sizeof *w->idx);
  w->islot = calloc(w->icap, 1);
  if (!w->open || !w->free || !w->idx || !w->islot) windows_oom();
  return w;
}

void air_windows_free(AirWindows *w) {
  if (!w) return;
  add_raw_rows(w);
  for (size_t i = 0; i < w->nopen; i++) air_hash_free(w->open[i].table);
  for (size_t i = 0; i < w->nfree; i++) air_hash_free(w->free[i]);
  free(w->open);
  free(w->free);
  free(w->idx);
  free(w->islot);
  free(w);
}

size_t air_windows_open_count(const AirWindows *w) { return w->nopen; }

bool air_windows_first_start(const AirWindows *w, int64_t *win_start) {
  if (w->nopen == 0) return false;
  *win_start = w->open[0].start;
  return true;
}

void air_windows_small(AirWindows *w) { w->table_cap = 4; }

static size_t idx_home(const AirWindows *w, int64_t start) {
  return (size_t)air_mix64((uint64_t)start) & (w->icap - 1);
}

static AirHash *idx_find(const AirWindows *w, int64_t start) {
  for (size_t i = idx_home(w, start);; i = (i + 1) & (w->icap - 1)) {
    if (w->islot[i] == SLOT_EMPTY) return NULL;
    if (w->islot[i] == SLOT_FULL && w->idx[i].start == start) return w->idx[i].table;
  }
}

static void idx_put(AirWindows *w, int64_t start, AirHash *t) {
  size_t i = idx_home(w, start);
  while (w->islot[i] == SLOT_FULL) i = (i + 1) & (w->icap - 1);
  if (w->islot[i] == SLOT_EMPTY) w->ifill++;
  w->islot[i] = SLOT_FULL;
  w->idx[i] = (OpenWindow){start, t};
}

/* The index made anew for the open windows: at most half full, no tombstones. */
static void idx_rebuild(AirWindows *w) {
  size_t cap = 64;
  while (cap < 4 * (w->nopen + 1)) cap *= 2;
  if (cap != w->icap) {
    free(w->idx);
    free(w->islot);
    w->idx = malloc(cap * sizeof *w->idx);
    w->islot = malloc(cap);
    if (!w->idx || !w->islot) windows_oom();
    w->icap = cap;
  }
  memset(w->islot, SLOT_EMPTY, w->icap);
  w->ifill = 0;
  for (size_t i = 0; i < w->nopen; i++) idx_put(w, w->open[i].start, w->open[i].table);
}

static void idx_del(AirWindows *w, int64_t start) {
  for (size_t i = idx_home(w, start);; i = (i + 1) & (w->icap - 1)) {
    if (w->islot[i] == SLOT_EMPTY) return;
    if (w->islot[i] == SLOT_FULL && w->idx[i].start == start) {
      w->islot[i] = SLOT_GONE;
      return;
    }
  }
}

static void heap_swap(OpenWindow *a, OpenWindow *b) {
  OpenWindow t = *a;
  *a = *b;
  *b = t;
}

static AirHash *window_table(AirWindows *w, int64_t start) {
  AirHash *found = idx_find(w, start);
  if (found) return found;
  if (w->nopen == w->open_cap) {
    size_t cap = w->open_cap * 2;
    air_memory_check(cap * sizeof *w->open, "the list of open windows");
    OpenWindow *o = realloc(w->open, cap * sizeof *o);
    if (!o) windows_oom();
    w->open = o;
    w->open_cap = cap;
  }
  AirHash *t = w->nfree > 0 ? w->free[--w->nfree]
                            : air_hash_new(w->key_size, w->acc_size, w->table_cap);
  size_t i = w->nopen++;
  w->open[i] = (OpenWindow){start, t};
  while (i > 0 && w->open[(i - 1) / 2].start > w->open[i].start) { /* up the heap */
    heap_swap(&w->open[(i - 1) / 2], &w->open[i]);
    i = (i - 1) / 2;
  }
  if (2 * (w->ifill + 1) > w->icap) idx_rebuild(w);
  else idx_put(w, start, t);
  return t;
}

/* The accumulator of (win_start, key), zeroed when new. Valid until the
 * next call on w. */
void *air_windows_acc(AirWindows *w, int64_t win_start, const void *key,
                      uint64_t hash, bool *is_new) {
  if (!w->last_table || w->last_start != win_start) {
    w->last_table = window_table(w, win_start);
    w->last_start = win_start;
  }
  return air_hash_upsert(w->last_table, key, hash, is_new);
}

/* The accumulator of (win_start, key), or NULL when that window or key is
 * not open: an interval join's probe of the other side's time buckets.
 * Opens nothing; valid until the next call that may add to w. */
void *air_windows_find(const AirWindows *w, int64_t win_start, const void *key, uint64_t hash) {
  AirHash *t = idx_find(w, win_start);
  return t ? air_hash_find(t, key, hash) : NULL;
}

/* Pre-aggregating a per-rank partial pays when its table takes many rows
 * per key, or is small enough to stay in cache. With as many keys as rows
 * (10M keys, 20M events in one window) it pays nothing: every row is a
 * cache miss in the partial table, and again, as a partial, in the final
 * one, which holds every key a second time. So every SAMPLE_ROWS rows the
 * partial checks: when its open tables hold at least raw_min_keys entries
 * (default 2^20, 32 MiB of slots for a BIGINT key: past the caches) and at
 * least a quarter of the sampled rows were new keys, it stops taking rows
 * (NULL: the caller sends the row on as a partial of one row) until the
 * windows open now have closed, then samples again. The rows already in
 * its tables go on as partials when their window closes; the final stage
 * merges both alike (merges are exact), so the results do not change.
 * Flink's two-phase aggregation can skip its local phase the same way. */
void *air_windows_partial_acc(AirWindows *w, int64_t win_start, const void *key, uint64_t hash, bool *is_new) {
  if (w->raw) {
    w->raw_rows++;
    return NULL;
  }
  void *acc = air_windows_acc(w, win_start, key, hash, is_new);
  w->sample_new += *is_new;
  if (++w->sample_rows < w->sample_every) return acc;
  size_t held = 0;
  for (size_t i = 0; i < w->nopen; i++) held += air_hash_count(w->open[i].table);
  if (held >= w->raw_min_keys && w->sample_new * 4 >= w->sample_rows) {
    w->raw = true;
    w->raw_until = w->open[0].start; /* the latest open window's start */
    for (size_t i = 1; i < w->nopen; i++)
      if (w->open[i].start > w->raw_until) w->raw_until = w->open[i].start;
  }
  w->sample_rows = w->sample_new = 0;
  return acc;
}

/* A partial's table upsert waits for one cache miss per row once its
 * tables outgrow the caches (perf: 80% of a 100k-key run on the load of
 * the slot), and a row-at-a-time loop overlaps few of them. Past
 * STAGE_MIN_KEYS entries (32k: a table of 64k 32-byte slots, 2 MiB, the
 * size of this machine's L2 caches together) the generated loop stages
 * rows and merges them AIR_STAGE_ROWS at a time, prefetching each row's
 * slot AIR_STAGE_AHEAD rows before its merge. Below it the tables are in
 * cache and the direct update is cheaper than staging's copy. Not while
 * raw: rows go on as they come. */

bool air_windows_staging(const AirWindows *w) {
  if (w->raw) return false;
  size_t held = 0;
  for (size_t i = 0; i < w->nopen && held < w->stage_min_keys; i++) held += air_hash_count(w->open[i].table);
  return held >= w->stage_min_keys;
}

/* The table of the window starting at win_start is the cached one most of
 * the time (one window open, or rows in time order); others are not
 * looked up for a hint. */
void air_windows_prefetch(const AirWindows *w, int64_t win_start, const void *key, uint64_t hash) {
  if (w->last_table && w->last_start == win_start) air_hash_prefetch(w->last_table, key, hash);
}

/* start + size_ms <= wm without overflow (wm may be AIR_WM_NONE/END). */
static bool window_closed(int64_t start, int64_t size_ms, int64_t wm) {
  int64_t end;
  if (__builtin_add_overflow(start, size_ms, &end)) return wm == AIR_WM_END;
  return end <= wm;
}

/* The caller owns the returned table until it hands it back with
 * air_windows_recycle. */
AirHash *air_windows_pop_closed(AirWindows *w, int64_t wm, int64_t size_ms,
                                int64_t *win_start) {
  if (w->nopen == 0 || !window_closed(w->open[0].start, size_ms, wm))
    return NULL;
  OpenWindow first = w->open[0];
  w->open[0] = w->open[--w->nopen];
  for (size_t i = 0;;) { /* down the heap */
    size_t c = 2 * i + 1;
    if (c >= w->nopen) break;
    if (c + 1 < w->nopen && w->open[c + 1].start < w->open[c].start) c++;
    if (w->open[i].start <= w->open[c].start) break;
    heap_swap(&w->open[i], &w->open[c]);
    i = c;
  }
  idx_del(w, first.start);
  if (w->last_table == first.table) w->last_table = NULL;
  if (w->raw && first.start >= w->raw_until) w->raw = false;
  add_raw_rows(w);
  if (win_start) *win_start = first.start;
  return first.table;
}

void air_windows_recycle(AirWindows *w, AirHash *h) {
  if (!h) return;
  if (w->nfree == WIN_FREE_SMALL || (w->nfree >= WIN_FREE_MAX && air_hash_cap(h) > 4 * w->table_cap)) {
    air_hash_free(h);
    return;
  }
  air_hash_clear(h);
  w->free[w->nfree++] = h;
}

/* ---- checkpoints: the open windows, each its start and table ----------- */

void air_windows_save(AirCkptW *w, const AirWindows *win, AirCkptValSaveFn val) {
  air_ckpt_put_i64(w, (int64_t)win->nopen);
  for (size_t i = 0; i < win->nopen; i++) {
    air_ckpt_put_i64(w, win->open[i].start);
    air_hash_save(w, win->open[i].table, val);
  }
}

void air_windows_load(AirCkptR *r, AirWindows *win, AirCkptValLoadFn val, AirCkptRouteFn route,
                      AirAccMergeFn merge) {
  int64_t n = air_ckpt_get_i64(r);
  for (int64_t i = 0; i < n; i++) {
    int64_t start = air_ckpt_get_i64(r);
    AirHash *t = window_table(win, start); /* (empty, when dropping: closes as none) */
    win->last_table = NULL;
    air_hash_load(r, t, val, route, merge);
  }
}
