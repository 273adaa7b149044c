/* slide.c - hopping windows that share their work: slices and two stacks.
 *
 * A HOPPING window of size S every A overlaps S/A others, and updating each
 * of them per row made HOPPING 10 s by 100 ms 73x slower than TUMBLING on
 * the same events (issue 14). Here a row updates one *slice*: time is cut
 * into slices of L = gcd(S, A) ms, every window boundary is a slice
 * boundary, and a window's accumulators are the merge of its S/L slices'.
 *
 * Merging S/L slices per window and key would only move the cost to the
 * close. The slices of the windows being closed form a FIFO (a window
 * drops its oldest slices and takes new ones), so they are kept as two
 * stacks (the "two-stacks" sliding aggregation; Scotty and Cutty share
 * slices the same way): the back stack takes new slices and keeps one
 * running merge of them all; the front stack holds, per slice, the merge
 * of that slice and every newer one in the front (its suffix). A window is
 * then front's oldest suffix merged with the back's running merge: two
 * tables, whatever S/A. When the front empties, the back is turned into
 * suffixes in one pass, newest first. Each slice is merged a constant
 * number of times in all, so closing costs O(keys) per window.
 *
 * Merges are exact (integer sums wrap, DOUBLE sums are AirXsum, MIN, MAX,
 * COUNT), so any grouping of slices gives the bytes a per-window
 * evaluation gives.
 *
 * Lateness stays per window. A row whose slice is still open (its start at
 * or after the cut: no window holding it has closed) goes into the slice;
 * a row some of whose windows already closed (it is behind the watermark)
 * goes into the windows still open, as before slicing, into a per-window
 * table of "extras" merged into the window when it closes.
 */
#include "air.h"

#include <stdlib.h>
#include <string.h>

typedef struct Stacked {
  int64_t start; /* slice start, ms */
  AirHash *tab;  /* front: the suffix merge; back: the slice itself */
} Stacked;

struct AirSlide {
  size_t key_size, acc_size;
  int64_t size, adv, len; /* window size, advance, slice length, ms */
  AirAccMergeFn merge;
  AirWindows *slices; /* slices not yet stacked: start -> key -> acc */
  AirWindows *extras; /* per window start, the rows only some of its windows took */
  int64_t cut;        /* slices starting before this are closed */
  int64_t done;       /* end of the last window closed (valid when the stacks are not empty) */
  Stacked *q;         /* ring: [head, split) front, [split, tail) back; indices grow */
  size_t qcap;        /* a power of two */
  size_t head, split, tail;
  AirHash *back;      /* merge of the back stack's slices */
  unsigned char *tmp; /* one accumulator: a window's result being combined */
};

static _Noreturn void slide_oom(void) { air_oom("sliding window state"); }

AirSlide *air_slide_new(size_t key_size, size_t acc_size, int64_t size_ms, int64_t adv_ms,
                        AirAccMergeFn merge) {
  AirSlide *s = calloc(1, sizeof *s);
  if (!s) slide_oom();
  s->key_size = key_size;
  s->acc_size = acc_size;
  s->size = size_ms;
  s->adv = adv_ms;
  s->len = air_slice_len(size_ms, adv_ms);
  s->merge = merge;
  s->slices = air_windows_new(key_size, acc_size);
  s->extras = air_windows_new(key_size, acc_size);
  s->cut = AIR_WM_NONE;
  s->done = AIR_WM_NONE;
  s->qcap = 16;
  s->q = malloc(s->qcap * sizeof *s->q);
  s->tmp = malloc(acc_size ? acc_size : 1);
  s->back = air_hash_new(key_size, acc_size, 16);
  if (!s->q || !s->tmp) slide_oom();
  return s;
}

void air_slide_free(AirSlide *s) {
  if (!s) return;
  air_windows_free(s->slices);
  air_windows_free(s->extras);
  for (size_t i = s->head; i < s->tail; i++) air_hash_free(s->q[i & (s->qcap - 1)].tab);
  air_hash_free(s->back);
  free(s->q);
  free(s->tmp);
  free(s);
}

int64_t air_slide_cut(const AirSlide *s) { return s->cut; }

/* The largest window end <= wm (AIR_WM_NONE when there is no watermark;
 * a stop or the end passes every window). */
int64_t air_slide_window_cut(int64_t wm, int64_t size_ms, int64_t adv_ms) {
  if (wm == AIR_WM_NONE || wm >= AIR_WM_STOP) return wm;
  return air_floor_div(wm - size_ms, adv_ms) * adv_ms + size_ms;
}

/* The smallest window end > t. */
static int64_t next_end(const AirSlide *s, int64_t t) {
  return air_floor_div(t - s->size, s->adv) * s->adv + s->size + s->adv;
}

void *air_slide_acc(AirSlide *s, int64_t slice_start, const void *key, uint64_t hash, bool *is_new) {
  return air_windows_acc(s->slices, slice_start, key, hash, is_new);
}

void *air_slide_extra(AirSlide *s, int64_t win_start, const void *key, uint64_t hash, bool *is_new) {
  return air_windows_acc(s->extras, win_start, key, hash, is_new);
}

int64_t air_slide_advance_cut(AirSlide *s, int64_t wm) {
  int64_t c = air_slide_window_cut(wm, s->size, s->adv);
  if (c > s->cut) s->cut = c;
  return s->cut;
}

AirHash *air_slide_pop_slice(AirSlide *s, int64_t *slice_start) {
  return air_windows_pop_closed(s->slices, s->cut, s->len, slice_start);
}

AirHash *air_slide_pop_extra(AirSlide *s, int64_t wm, int64_t *win_start) {
  return air_windows_pop_closed(s->extras, wm, s->size, win_start);
}

/* A table from air_slide_pop_slice. */
void air_slide_recycle(AirSlide *s, AirHash *h) { air_windows_recycle(s->slices, h); }

/* A table from air_slide_pop_extra. */
void air_slide_recycle_extra(AirSlide *s, AirHash *h) { air_windows_recycle(s->extras, h); }

/* ---- the two stacks ----------------------------------------------------- */

#define Q(s, i) ((s)->q[(i) & ((s)->qcap - 1)])

/* dst[key] = merge(dst[key], src's accumulators), for every key of src. */
static void merge_table(AirSlide *s, AirHash *dst, const AirHash *src) {
  size_t pos = 0;
  const void *k;
  void *a;
  uint64_t h;
  while (air_hash_next_h(src, &pos, &k, &a, &h)) {
    bool is_new;
    void *d = air_hash_upsert(dst, k, h, &is_new);
    if (is_new) memcpy(d, a, s->acc_size);
    else s->merge(d, a);
  }
}

static void push_back(AirSlide *s, int64_t start, AirHash *tab) {
  if (s->tail - s->head == s->qcap) {
    size_t cap = s->qcap * 2;
    air_memory_check(cap * sizeof *s->q, "the slices of the open windows");
    Stacked *n = malloc(cap * sizeof *n);
    if (!n) slide_oom();
    for (size_t i = s->head; i < s->tail; i++) n[i & (cap - 1)] = Q(s, i);
    free(s->q);
    s->q = n;
    s->qcap = cap;
  }
  Q(s, s->tail) = (Stacked){start, tab};
  s->tail++;
  merge_table(s, s->back, tab);
}

/* The back stack becomes the front: each slice's table becomes the merge of
 * it and every newer one, newest first. */
static void flip(AirSlide *s) {
  for (size_t i = s->tail - 1; i > s->head; i--) merge_table(s, Q(s, i - 1).tab, Q(s, i).tab);
  s->split = s->tail;
  air_hash_clear(s->back);
}

static void pop_front(AirSlide *s) {
  if (s->head == s->split) flip(s);
  air_windows_recycle(s->slices, Q(s, s->head).tab);
  s->head++;
  if (s->head > s->split) s->split = s->head;
}

/* Call emit for every key of window [ws, we): front's oldest suffix, the
 * back's running merge and the window's extras x (may be NULL), merged. */
static void emit_window(AirSlide *s, int64_t ws, int64_t we, AirHash *x, AirSessionEmitFn emit,
                        void *ctx) {
  AirHash *f = s->head < s->split ? Q(s, s->head).tab : NULL;
  AirHash *b = s->split < s->tail ? s->back : NULL;
  AirHash *parts[3] = {f, b, x};
  for (int p = 0; p < 3; p++) {
    if (!parts[p]) continue;
    size_t pos = 0;
    const void *k;
    void *a;
    uint64_t h;
    while (air_hash_next_h(parts[p], &pos, &k, &a, &h)) {
      bool seen = false; /* merged already, with an earlier part */
      for (int e = 0; e < p && !seen; e++) seen = parts[e] && air_hash_find(parts[e], k, h);
      if (seen) continue;
      memcpy(s->tmp, a, s->acc_size);
      for (int l = p + 1; l < 3; l++) {
        const void *o = parts[l] ? air_hash_find(parts[l], k, h) : NULL;
        if (o) s->merge(s->tmp, o);
      }
      emit(k, ws, we, s->tmp, ctx);
    }
  }
}

size_t air_slide_close(AirSlide *s, int64_t wm, AirSessionEmitFn emit, void *ctx) {
  int64_t limit = air_slide_window_cut(wm, s->size, s->adv);
  size_t n = 0;
  for (;;) {
    /* the next window end with something in it */
    int64_t b = INT64_MAX, st;
    if (s->head < s->tail) {
      int64_t nb = next_end(s, s->done);
      if (nb - s->size <= Q(s, s->tail - 1).start) b = nb;
    }
    if (air_windows_first_start(s->slices, &st)) {
      int64_t nb = next_end(s, st);
      if (nb < b) b = nb;
    }
    if (air_windows_first_start(s->extras, &st) && st + s->size < b) b = st + s->size;
    if (b == INT64_MAX || b > limit) break;
    AirHash *tab;
    while ((tab = air_windows_pop_closed(s->slices, b, s->len, &st)) != NULL)
      push_back(s, st, tab); /* ours until handed back (pop_front) */
    while (s->head < s->tail && Q(s, s->head).start < b - s->size) pop_front(s);
    AirHash *x = NULL;
    int64_t xs;
    if (air_windows_first_start(s->extras, &xs) && xs == b - s->size)
      x = air_windows_pop_closed(s->extras, b, s->size, &xs);
    emit_window(s, b - s->size, b, x, emit, ctx);
    if (x) air_windows_recycle(s->extras, x);
    s->done = b;
    n++;
  }
  if (limit > s->cut) s->cut = limit;
  return n;
}

/* ---- checkpoints: slices, extras, both stacks as they are --------------- */

void air_slide_save(AirCkptW *w, const AirSlide *s) {
  air_windows_save(w, s->slices, NULL);
  air_windows_save(w, s->extras, NULL);
  air_ckpt_put_i64(w, s->cut);
  air_ckpt_put_i64(w, s->done);
  air_ckpt_put_i64(w, (int64_t)(s->tail - s->head));
  air_ckpt_put_i64(w, (int64_t)(s->split - s->head));
  for (size_t i = s->head; i < s->tail; i++) {
    air_ckpt_put_i64(w, Q(s, i).start);
    air_hash_save(w, Q(s, i).tab, NULL);
  }
  air_hash_save(w, s->back, NULL);
}

void air_slide_load(AirCkptR *r, AirSlide *s) {
  /* a per-rank partial's slices fold into another's (merge); a final
   * stage's stacks differ from rank to rank and do not */
  AirAccMergeFn merge = air_ckpt_rescaled(r) ? s->merge : NULL;
  air_windows_load(r, s->slices, NULL, NULL, merge);
  air_windows_load(r, s->extras, NULL, NULL, merge);
  s->cut = air_ckpt_get_min(r, s->cut);
  s->done = air_ckpt_get_min(r, s->done);
  int64_t n = air_ckpt_get_i64(r), split = air_ckpt_get_i64(r);
  if (n < 0 || split < 0 || split > n) air_fatal(NULL, "checkpoint: a sliding window's stacks do not fit");
  if (n > 0 && air_ckpt_rescaled(r) && !air_ckpt_dropping(r))
    air_fatal(NULL, "checkpoint: the shared slices of a HOPPING window's results cannot be spread over another "
              "number of ranks: resume on as many ranks and threads as the checkpoint was taken with");
  if (n == 0) {
    air_hash_load(r, s->back, NULL, NULL, merge);
    return;
  }
  while (s->qcap < (size_t)n) s->qcap *= 2;
  Stacked *q = malloc(s->qcap * sizeof *q);
  if (!q) slide_oom();
  free(s->q);
  s->q = q;
  s->head = 0;
  s->tail = (size_t)n;
  s->split = (size_t)split;
  for (int64_t i = 0; i < n; i++) {
    s->q[i].start = air_ckpt_get_i64(r);
    s->q[i].tab = air_hash_new(s->key_size, s->acc_size, 16);
    air_hash_load(r, s->q[i].tab, NULL, NULL, NULL);
  }
  air_hash_load(r, s->back, NULL, NULL, NULL);
}
