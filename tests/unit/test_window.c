/* Unit tests for runtime/window.c and the window arithmetic in air.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "air.h"

static void test_window_floor_div(void **state) {
  (void)state;
  assert_int_equal(air_floor_div(7, 2), 3);
  assert_int_equal(air_floor_div(-7, 2), -4);
  assert_int_equal(air_floor_div(-6, 2), -3);
  assert_int_equal(air_floor_div(0, 5), 0);
  assert_int_equal(air_floor_div(-1, 1000), -1);
  assert_int_equal(air_floor_div(-1000, 1000), -1);
  assert_int_equal(air_floor_div(-1001, 1000), -2);
  assert_int_equal(air_floor_div(999, 1000), 0);
}

static void test_window_tumble_start(void **state) {
  (void)state;
  assert_int_equal(air_tumble_start(12345, 1000), 12000);
  assert_int_equal(air_tumble_start(12000, 1000), 12000);
  assert_int_equal(air_tumble_start(11999, 1000), 11000);
  assert_int_equal(air_tumble_start(-1, 1000), -1000);
  assert_int_equal(air_tumble_start(-1000, 1000), -1000);
  assert_int_equal(air_tumble_start(-1001, 1000), -2000);
  assert_int_equal(air_tumble_start(1700000000123LL, 10000), 1700000000000LL);
}

static void test_window_hop_first_start(void **state) {
  (void)state;
  /* size 10 s, advance 1 s: ts 12345 lies in [3000,13000) ... [12000,22000) */
  assert_int_equal(air_hop_first_start(12345, 10000, 1000), 3000);
  /* ts on a boundary: [2000,12000) excludes 12000, so 3000 is first */
  assert_int_equal(air_hop_first_start(12000, 10000, 1000), 3000);
  assert_int_equal(air_hop_first_start(12999, 10000, 1000), 3000);
  assert_int_equal(air_hop_first_start(-500, 2000, 1000), -2000);
  /* advance not dividing size: size 5, adv 3; ts 7 in [3,8) and [6,11) */
  assert_int_equal(air_hop_first_start(7, 5, 3), 3);
  /* advance == size is tumbling */
  assert_int_equal(air_hop_first_start(12345, 1000, 1000), 12000);
}

/* Brute force: every multiple s of adv with s <= ts < s + size. */
static void test_window_hop_matches_brute_force(void **state) {
  (void)state;
  const int64_t sizes[] = {1, 2, 5, 10, 60};
  const int64_t advs[] = {1, 2, 3, 5, 10};
  for (size_t si = 0; si < 5; si++)
    for (size_t ai = 0; ai < 5; ai++) {
      int64_t size = sizes[si], adv = advs[ai];
      if (adv > size) continue;
      for (int64_t ts = -100; ts <= 100; ts++) {
        int64_t lowest = INT64_MAX;
        for (int64_t s = -300; s <= 300; s++)
          if (s % adv == 0 && s <= ts && ts < s + size && s < lowest) lowest = s;
        assert_int_equal(air_hop_first_start(ts, size, adv), lowest);
      }
    }
}

typedef struct Acc {
  int64_t count;
} Acc;

static void add(AirWindows *w, int64_t start, int64_t key, int64_t n) {
  bool is_new;
  Acc *a = air_windows_acc(w, start, &key, air_hash_u64((uint64_t)key), &is_new);
  if (is_new) assert_int_equal(a->count, 0);
  a->count += n;
}

static int64_t get(AirHash *h, int64_t key) {
  Acc *a = air_hash_find(h, &key, air_hash_u64((uint64_t)key));
  return a ? a->count : -1;
}

static void test_window_acc_and_pop_order(void **state) {
  (void)state;
  AirWindows *w = air_windows_new(sizeof(int64_t), sizeof(Acc));
  add(w, 2000, 1, 1);
  add(w, 1000, 1, 10);
  add(w, 3000, 2, 100);
  add(w, 1000, 2, 20);
  add(w, 2000, 1, 1);
  add(w, -1000, 9, 7);
  assert_int_equal(air_windows_open_count(w), 4);

  int64_t start = 0;
  assert_null(air_windows_pop_closed(w, AIR_WM_NONE, 1000, &start));
  AirHash *h = air_windows_pop_closed(w, 0, 1000, &start);
  assert_non_null(h);
  assert_int_equal(start, -1000);
  assert_int_equal(get(h, 9), 7);
  air_windows_recycle(w, h);

  /* [1000,2000) closes at wm 2000, not 1999 */
  assert_null(air_windows_pop_closed(w, 1999, 1000, &start));
  h = air_windows_pop_closed(w, 2000, 1000, &start);
  assert_non_null(h);
  assert_int_equal(start, 1000);
  assert_int_equal(air_hash_count(h), 2);
  assert_int_equal(get(h, 1), 10);
  assert_int_equal(get(h, 2), 20);
  air_windows_recycle(w, h);
  assert_null(air_windows_pop_closed(w, 2000, 1000, &start));
  assert_int_equal(air_windows_open_count(w), 2);

  /* The end of stream closes everything, earliest first. */
  h = air_windows_pop_closed(w, AIR_WM_END, 1000, &start);
  assert_int_equal(start, 2000);
  assert_int_equal(get(h, 1), 2);
  air_windows_recycle(w, h);
  h = air_windows_pop_closed(w, AIR_WM_END, 1000, &start);
  assert_int_equal(start, 3000);
  assert_int_equal(get(h, 2), 100);
  air_windows_recycle(w, h);
  assert_null(air_windows_pop_closed(w, AIR_WM_END, 1000, &start));
  assert_int_equal(air_windows_open_count(w), 0);
  air_windows_free(w);
  air_windows_free(NULL);
}

static void test_window_recycle_reuses_cleared_table(void **state) {
  (void)state;
  AirWindows *w = air_windows_new(sizeof(int64_t), sizeof(Acc));
  for (int64_t k = 0; k < 500; k++) add(w, 0, k, 1);
  int64_t start;
  AirHash *h = air_windows_pop_closed(w, 1000, 1000, &start);
  assert_int_equal(air_hash_count(h), 500);
  air_windows_recycle(w, h);
  /* The next new window takes the recycled table, empty and zeroed. */
  add(w, 5000, 3, 4);
  AirHash *h2 = air_windows_pop_closed(w, 6000, 1000, &start);
  assert_ptr_equal(h, h2);
  assert_int_equal(start, 5000);
  assert_int_equal(air_hash_count(h2), 1);
  assert_int_equal(get(h2, 3), 4);
  assert_int_equal(get(h2, 0), -1);
  air_windows_recycle(w, h2);
  air_windows_free(w);
}

/* The cached window must not outlive its pop: a row for the same start
 * after the pop opens a fresh window. */
static void test_window_cache_invalidated_by_pop(void **state) {
  (void)state;
  AirWindows *w = air_windows_new(sizeof(int64_t), sizeof(Acc));
  add(w, 0, 1, 1);
  int64_t start;
  AirHash *h = air_windows_pop_closed(w, 1000, 1000, &start);
  assert_non_null(h);
  air_windows_recycle(w, h);
  add(w, 0, 1, 5);
  assert_int_equal(air_windows_open_count(w), 1);
  h = air_windows_pop_closed(w, 1000, 1000, &start);
  assert_int_equal(get(h, 1), 5);
  air_windows_recycle(w, h);
  air_windows_free(w);
}

/* Many open windows (hopping 60 s / 1 s) inserted out of order. */
static void test_window_many_open(void **state) {
  (void)state;
  AirWindows *w = air_windows_new(sizeof(int64_t), sizeof(Acc));
  for (int64_t i = 0; i < 100; i++) {
    int64_t s = ((i * 37) % 100) * 1000;
    add(w, s, 0, s);
  }
  assert_int_equal(air_windows_open_count(w), 100);
  int64_t start, prev = -1;
  AirHash *h;
  int n = 0;
  while ((h = air_windows_pop_closed(w, AIR_WM_END, 60000, &start))) {
    assert_true(start > prev);
    assert_int_equal(get(h, 0), start);
    prev = start;
    n++;
    air_windows_recycle(w, h);
  }
  assert_int_equal(n, 100);
  air_windows_free(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_window_floor_div),
      cmocka_unit_test(test_window_tumble_start),
      cmocka_unit_test(test_window_hop_first_start),
      cmocka_unit_test(test_window_hop_matches_brute_force),
      cmocka_unit_test(test_window_acc_and_pop_order),
      cmocka_unit_test(test_window_recycle_reuses_cleared_table),
      cmocka_unit_test(test_window_cache_invalidated_by_pop),
      cmocka_unit_test(test_window_many_open),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
