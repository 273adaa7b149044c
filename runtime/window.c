/* window.c - the open windows of one windowed operator.
 *
 * Only a handful of windows are open at once (one for a tumbling window
 * behind the watermark, size/advance for a hopping one), so they live in a
 * small array sorted by start; events arrive roughly in time order, so the
 * last window used is cached and most rows skip even that search. Closed
 * tables are cleared and reused so a steady stream allocates nothing.
 */
#include "air.h"

#include <stdlib.h>
#include <string.h>

#define WIN_TABLE_CAP 64 /* entries a fresh window table holds before growing */
#define WIN_FREE_MAX 64  /* recycled tables kept for reuse */

typedef struct OpenWindow {
  int64_t start;  /* window start, ms */
  AirHash *table; /* key -> accumulator */
} OpenWindow;

struct AirWindows {
  size_t key_size;     /* bytes per group key */
  size_t acc_size;     /* bytes per accumulator */
  OpenWindow *open;    /* sorted by start, ascending */
  size_t nopen;        /* used entries of open */
  size_t open_cap;     /* allocated entries of open */
  AirHash **free;      /* cleared tables for reuse */
  size_t nfree;        /* used entries of free */
  int64_t last_start;  /* start of the cached window */
  AirHash *last_table; /* cached window's table, NULL when none */
};

static _Noreturn void windows_oom(void) { air_oom("window state"); }

/* Owned by the caller; free with air_windows_free. */
AirWindows *air_windows_new(size_t key_size, size_t acc_size) {
  AirWindows *w = calloc(1, sizeof *w);
  if (!w) windows_oom();
  w->key_size = key_size;
  w->acc_size = acc_size;
  w->open_cap = 16;
  w->open = malloc(w->open_cap * sizeof *w->open);
  w->free = malloc(WIN_FREE_MAX * sizeof *w->free);
  if (!w->open || !w->free) windows_oom();
  return w;
}

void air_windows_free(AirWindows *w) {
  if (!w) return;
  for (size_t i = 0; i < w->nopen; i++) air_hash_free(w->open[i].table);
  for (size_t i = 0; i < w->nfree; i++) air_hash_free(w->free[i]);
  free(w->open);
  free(w->free);
  free(w);
}

size_t air_windows_open_count(const AirWindows *w) { return w->nopen; }

bool air_windows_first_start(const AirWindows *w, int64_t *win_start) {
  if (w->nopen == 0) return false;
  *win_start = w->open[0].start;
  return true;
}

static AirHash *window_table(AirWindows *w, int64_t start) {
  /* Binary search for the first window with start >= the wanted one. */
  size_t lo = 0, hi = w->nopen;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w->open[mid].start < start) lo = mid + 1;
    else hi = mid;
  }
  if (lo < w->nopen && w->open[lo].start == start) return w->open[lo].table;

  if (w->nopen == w->open_cap) {
    size_t cap = w->open_cap * 2;
    air_memory_check(cap * sizeof *w->open, "the list of open windows");
    OpenWindow *o = realloc(w->open, cap * sizeof *o);
    if (!o) windows_oom();
    w->open = o;
    w->open_cap = cap;
  }
  memmove(&w->open[lo + 1], &w->open[lo], (w->nopen - lo) * sizeof *w->open);
  AirHash *t = w->nfree > 0 ? w->free[--w->nfree]
                            : air_hash_new(w->key_size, w->acc_size, WIN_TABLE_CAP);
  w->open[lo].start = start;
  w->open[lo].table = t;
  w->nopen++;
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
  w->nopen--;
  memmove(&w->open[0], &w->open[1], w->nopen * sizeof *w->open);
  if (w->last_table == first.table) w->last_table = NULL;
  if (win_start) *win_start = first.start;
  return first.table;
}

void air_windows_recycle(AirWindows *w, AirHash *h) {
  if (!h) return;
  if (w->nfree == WIN_FREE_MAX) {
    air_hash_free(h);
    return;
  }
  air_hash_clear(h);
  w->free[w->nfree++] = h;
}
