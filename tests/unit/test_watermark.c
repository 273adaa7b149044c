/* Unit tests of the watermark min rule (runtime/watermark.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "air_int.h"

static void test_watermark_starts_at_none(void **state) {
  (void)state;
  AirWm w;
  assert_int_equal(air_wm_init(&w, 3), 0);
  assert_true(w.min == AIR_WM_NONE);
  air_wm_free(&w);
}

static void test_watermark_no_senders_is_end(void **state) {
  (void)state;
  AirWm w;
  assert_int_equal(air_wm_init(&w, 0), 0);
  assert_true(w.min == AIR_WM_END);
  assert_false(air_wm_update(&w, 0, 5));
  air_wm_free(&w);
}

static void test_watermark_min_over_senders(void **state) {
  (void)state;
  AirWm w;
  air_wm_init(&w, 3);
  assert_false(air_wm_update(&w, 0, 100)); /* others still at NONE */
  assert_false(air_wm_update(&w, 2, 50));
  assert_true(w.min == AIR_WM_NONE);
  assert_true(air_wm_update(&w, 1, 70)); /* min(100, 70, 50) */
  assert_int_equal(w.min, 50);
  assert_true(air_wm_update(&w, 2, 200)); /* min(100, 70, 200) */
  assert_int_equal(w.min, 70);
  assert_false(air_wm_update(&w, 0, 150)); /* slot 1 still holds 70 */
  assert_int_equal(w.min, 70);
  air_wm_free(&w);
}

static void test_watermark_ignores_regression(void **state) {
  (void)state;
  AirWm w;
  air_wm_init(&w, 2);
  air_wm_update(&w, 0, 10);
  assert_true(air_wm_update(&w, 1, 20));
  assert_int_equal(w.min, 10);
  assert_false(air_wm_update(&w, 0, 5)); /* backwards: ignored */
  assert_false(air_wm_update(&w, 0, 10)); /* repeated: no change */
  assert_int_equal(w.min, 10);
  assert_true(air_wm_update(&w, 0, 15));
  assert_int_equal(w.min, 15);
  air_wm_free(&w);
}

static void test_watermark_ties_need_every_slot(void **state) {
  (void)state;
  AirWm w;
  air_wm_init(&w, 3);
  air_wm_update(&w, 0, 7);
  air_wm_update(&w, 1, 7);
  assert_true(air_wm_update(&w, 2, 7));
  assert_int_equal(w.min, 7);
  assert_false(air_wm_update(&w, 0, 9));
  assert_false(air_wm_update(&w, 1, 9));
  assert_true(air_wm_update(&w, 2, 8));
  assert_int_equal(w.min, 8);
  air_wm_free(&w);
}

static void test_watermark_end_after_every_sender_ended(void **state) {
  (void)state;
  AirWm w;
  air_wm_init(&w, 2);
  assert_false(air_wm_update(&w, 1, AIR_WM_END));
  assert_true(air_wm_update(&w, 0, 3));
  assert_int_equal(w.min, 3);
  assert_true(air_wm_update(&w, 0, AIR_WM_END));
  assert_true(w.min == AIR_WM_END);
  assert_false(air_wm_update(&w, 0, AIR_WM_END));
  air_wm_free(&w);
}

static void test_watermark_rejects_bad_slot(void **state) {
  (void)state;
  AirWm w;
  air_wm_init(&w, 1);
  assert_false(air_wm_update(&w, -1, 10));
  assert_false(air_wm_update(&w, 1, 10));
  assert_true(w.min == AIR_WM_NONE);
  assert_true(air_wm_update(&w, 0, 10));
  air_wm_free(&w);
}

/* Against a brute-force minimum over a pseudo-random sequence of updates. */
static void test_watermark_matches_reference(void **state) {
  (void)state;
  enum { N = 17, STEPS = 20000 };
  AirWm w;
  int64_t ref[N];
  air_wm_init(&w, N);
  for (int i = 0; i < N; i++)
    ref[i] = AIR_WM_NONE;
  int64_t ref_min = AIR_WM_NONE;
  uint64_t r = 12345;
  for (int s = 0; s < STEPS; s++) {
    r = r * 6364136223846793005ULL + 1442695040888963407ULL;
    int slot = (int)((r >> 33) % N);
    int64_t wm = (int64_t)((r >> 13) % 1000) + s / 10;
    if (wm > ref[slot])
      ref[slot] = wm;
    int64_t m = ref[0];
    for (int i = 1; i < N; i++)
      if (ref[i] < m)
        m = ref[i];
    bool up = air_wm_update(&w, slot, wm);
    assert_int_equal(up, m > ref_min);
    ref_min = m;
    assert_true(w.min == ref_min);
  }
  air_wm_free(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_watermark_starts_at_none),
      cmocka_unit_test(test_watermark_no_senders_is_end),
      cmocka_unit_test(test_watermark_min_over_senders),
      cmocka_unit_test(test_watermark_ignores_regression),
      cmocka_unit_test(test_watermark_ties_need_every_slot),
      cmocka_unit_test(test_watermark_end_after_every_sender_ended),
      cmocka_unit_test(test_watermark_rejects_bad_slot),
      cmocka_unit_test(test_watermark_matches_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
