/* Unit tests for runtime/slide.c: hopping windows from shared slices,
 * against a per-window evaluation of the same rows with the same lateness
 * (a row goes into every window of its that has not ended by the
 * watermark when it arrives). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air.h"

typedef struct Acc {
  int64_t maxts, sum, n, min;
} Acc;

static void merge_acc(void *dst, const void *src) {
  Acc *d = dst;
  const Acc *s = src;
  if (s->maxts > d->maxts) d->maxts = s->maxts;
  d->sum += s->sum;
  d->n += s->n;
  if (s->min < d->min) d->min = s->min;
}

static void add_row(Acc *a, bool is_new, int64_t ts, int64_t v) {
  if (is_new) {
    a->maxts = ts;
    a->min = v;
  }
  if (ts > a->maxts) a->maxts = ts;
  if (v < a->min) a->min = v;
  a->sum += v;
  a->n++;
}

#define NKEYS 7

/* Per window (by start, a multiple of adv from -size) and key. */
typedef struct Ref {
  int64_t adv, base;
  size_t nw;
  Acc (*acc)[NKEYS];
  bool (*has)[NKEYS];
  bool (*emitted)[NKEYS];
} Ref;

static size_t ref_slot(Ref *r, int64_t ws) {
  assert_true(ws >= r->base);
  size_t i = (size_t)((ws - r->base) / r->adv);
  assert_true(i < r->nw);
  return i;
}

typedef struct Check {
  Ref *ref;
  int64_t size;
  int64_t last_end;
  size_t rows;
} Check;

static void on_window(const void *key, int64_t ws, int64_t we, void *acc, void *cx) {
  Check *c = cx;
  int64_t k;
  memcpy(&k, key, 8);
  assert_int_equal(we - ws, c->size);
  assert_true(we >= c->last_end); /* windows close in order of end */
  c->last_end = we;
  size_t i = ref_slot(c->ref, ws);
  assert_true(c->ref->has[i][k]);
  assert_false(c->ref->emitted[i][k]);
  c->ref->emitted[i][k] = true;
  const Acc *got = acc, *want = &c->ref->acc[i][k];
  assert_int_equal(got->n, want->n);
  assert_int_equal(got->sum, want->sum);
  assert_int_equal(got->min, want->min);
  assert_int_equal(got->maxts, want->maxts);
  c->rows++;
}

/* One random stream through AirSlide and the reference: rows mostly in
 * order, some behind the watermark (late for some or all windows), the
 * watermark advancing in steps. */
static void run_case(unsigned seed, int64_t size, int64_t adv, int steps) {
  srand(seed);
  /* times stay below steps * (adv + 3 size) */
  Ref ref = {adv, -size - adv, (size_t)(((int64_t)steps * (adv + 3 * size) + 2 * size) / adv + 4), 0, 0, 0};
  ref.acc = calloc(ref.nw, sizeof *ref.acc);
  ref.has = calloc(ref.nw, sizeof *ref.has);
  ref.emitted = calloc(ref.nw, sizeof *ref.emitted);
  assert_true(ref.acc && ref.has && ref.emitted);
  AirSlide *s = air_slide_new(8, sizeof(Acc), size, adv, merge_acc);
  int64_t len = air_slice_len(size, adv);
  Check c = {&ref, size, INT64_MIN, 0};
  int64_t wm = AIR_WM_NONE, top = 0, late = 0, rows = 0;
  for (int step = 0; step < steps; step++) {
    int64_t ts;
    int r = rand() % 100;
    if (r < 85) ts = top + rand() % (adv + 1);
    else if (r < 95) ts = top - rand() % (2 * size); /* behind: late for some windows or all */
    else ts = top + rand() % (3 * size);              /* a gap */
    if (ts < 0) ts = 0;
    if (ts > top) top = ts;
    int64_t k = rand() % NKEYS, v = rand() % 1000 - 500;
    /* the reference: every window of ts not ended by wm */
    bool any = false;
    for (int64_t ws = air_hop_first_start(ts, size, adv); ws <= ts; ws += adv) {
      if (wm != AIR_WM_NONE && ws + size <= wm) continue;
      any = true;
      size_t i = ref_slot(&ref, ws);
      add_row(&ref.acc[i][k], !ref.has[i][k], ts, v);
      ref.has[i][k] = true;
    }
    if (!any) late++;
    /* AirSlide, as the generated code uses it */
    int64_t sl = air_tumble_start(ts, len);
    bool is_new;
    if (sl >= air_slide_cut(s) && sl >= air_slide_window_cut(wm, size, adv)) {
      Acc *a = air_slide_acc(s, sl, &k, air_hash_u64((uint64_t)k), &is_new);
      add_row(a, is_new, ts, v);
    } else {
      for (int64_t ws = air_hop_first_start(ts, size, adv); ws <= ts; ws += adv) {
        if (wm != AIR_WM_NONE && ws + size <= wm) continue;
        Acc *a = air_slide_extra(s, ws, &k, air_hash_u64((uint64_t)k), &is_new);
        add_row(a, is_new, ts, v);
      }
    }
    rows++;
    if (rand() % 20 == 0) {
      int64_t w = top - rand() % size;
      if (wm == AIR_WM_NONE || w > wm) {
        wm = w;
        air_slide_close(s, wm, on_window, &c);
      }
    }
  }
  air_slide_close(s, AIR_WM_END, on_window, &c);
  /* every (window, key) with rows came out exactly once */
  for (size_t i = 0; i < ref.nw; i++)
    for (int k = 0; k < NKEYS; k++) assert_true(ref.has[i][k] == ref.emitted[i][k]);
  free(ref.acc);
  free(ref.has);
  free(ref.emitted);
  assert_true(c.rows > 0);
  assert_true(late > 0 || size / adv < 2);
  (void)rows;
  air_slide_free(s);
}

static void test_slide_matches_per_window(void **state) {
  (void)state;
  run_case(1, 1000, 100, 3000); /* 10 windows per row, slice = advance */
  run_case(2, 1000, 300, 3000); /* advance does not divide size: slices of 100 */
  run_case(3, 600, 400, 3000);  /* slices of 200; a slice's first window may end well after it */
  run_case(4, 10000, 10, 600);  /* 1000 windows per row */
  run_case(5, 7, 3, 3000);      /* tiny, co-prime: slices of 1 ms */
  for (unsigned seed = 10; seed < 40; seed++) { /* random shapes */
    srand(seed);
    int64_t adv = 1 + rand() % 50, size = adv * (1 + rand() % 12) + rand() % adv;
    if (size <= adv) size = adv + 1;
    run_case(seed, size, adv, 1500);
  }
}

static void test_slide_partials_cover_every_row(void **state) {
  (void)state;
  /* the partial side: advance_cut, pop_slice and pop_extra hand out every
   * row once, slices before the cut and extras of ended windows */
  AirSlide *s = air_slide_new(8, sizeof(Acc), 1000, 250, merge_acc);
  int64_t k = 3;
  bool is_new;
  Acc *a = air_slide_acc(s, 0, &k, 1, &is_new);
  add_row(a, is_new, 10, 5);
  a = air_slide_acc(s, 250, &k, 1, &is_new);
  add_row(a, is_new, 260, 6);
  a = air_slide_extra(s, 500, &k, 1, &is_new);
  add_row(a, is_new, 700, 7);
  assert_int_equal(air_slide_advance_cut(s, 1100), 1000);
  int64_t st, n = 0;
  AirHash *h;
  while ((h = air_slide_pop_slice(s, &st)) != NULL) {
    assert_true(st == 0 || st == 250);
    n++;
    air_slide_recycle(s, h);
  }
  assert_int_equal(n, 2);
  assert_null(air_slide_pop_extra(s, 1100, &st)); /* [500, 1500) is open */
  h = air_slide_pop_extra(s, 1500, &st);
  assert_non_null(h);
  assert_int_equal(st, 500);
  air_slide_recycle_extra(s, h);
  /* the cut never moves back */
  assert_int_equal(air_slide_advance_cut(s, 900), 1000);
  air_slide_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slide_matches_per_window),
      cmocka_unit_test(test_slide_partials_cover_every_row),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
