/* test_dense.c - window state indexed by a key in a known range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "air.h"

typedef struct Acc {
  int64_t n;   /* rows */
  int64_t sum; /* of keys */
} Acc;

static void test_dense_acc_new_then_existing(void **state) {
  (void)state;
  AirDense *d = air_dense_new(-5, 5, sizeof(Acc));
  bool is_new;
  Acc *a = air_dense_acc(d, 0, -5, &is_new);
  assert_true(is_new);
  assert_int_equal(a->n, 0); /* zeroed */
  a->n = 7;
  Acc *b = air_dense_acc(d, 0, -5, &is_new);
  assert_false(is_new);
  assert_ptr_equal(a, b);
  assert_int_equal(b->n, 7);
  /* the same key in another window is another accumulator */
  Acc *c = air_dense_acc(d, 10, -5, &is_new);
  assert_true(is_new);
  assert_ptr_not_equal(a, c);
  assert_int_equal(air_dense_open_count(d), 2);
  air_dense_free(d);
}

/* Windows close in start order, each handing out exactly its touched keys,
 * and a recycled window comes back zeroed. */
static void test_dense_pop_order_and_recycle(void **state) {
  (void)state;
  AirDense *d = air_dense_new(0, 99, sizeof(Acc));
  bool is_new;
  /* windows of 10 ms starting at 20, 0, 10 (made out of order) */
  int64_t starts[] = {20, 0, 10};
  for (int w = 0; w < 3; w++)
    for (int64_t k = 0; k < 100; k += 10 + w) {
      Acc *a = air_dense_acc(d, starts[w], k, &is_new);
      a->n++;
      a->sum += k;
    }
  int64_t ws;
  assert_false(air_dense_pop_closed(d, 9, 10, &ws)); /* [0,10) needs wm >= 10 */
  int64_t expect_start[] = {0, 10};
  int expect_step[] = {11, 12}; /* window 0 was filled with step 11, window 10 with 12 */
  for (int i = 0; i < 2; i++) {
    assert_true(air_dense_pop_closed(d, 20, 10, &ws));
    assert_int_equal(ws, expect_start[i]);
    size_t pos = 0, n = 0;
    int64_t key, sum = 0;
    void *ap;
    while (air_dense_next(d, &pos, &key, &ap)) {
      assert_int_equal(key % expect_step[i], 0);
      assert_int_equal(((Acc *)ap)->n, 1);
      sum += ((Acc *)ap)->sum;
      n++;
    }
    /* keys 0, s, 2s, ... < 100 */
    size_t want_n = (size_t)(99 / expect_step[i] + 1);
    assert_int_equal(n, want_n);
    assert_int_equal(sum, expect_step[i] * (int64_t)(want_n * (want_n - 1) / 2));
  }
  assert_false(air_dense_pop_closed(d, 20, 10, &ws)); /* [20,30) is still open */
  air_dense_recycle(d);
  /* a new window reuses a recycled one: zeroed */
  Acc *a = air_dense_acc(d, 100, 0, &is_new);
  assert_true(is_new);
  assert_int_equal(a->n, 0);
  assert_true(air_dense_pop_closed(d, INT64_MAX, 10, &ws));
  assert_int_equal(ws, 20);
  air_dense_free(d);
}

static void test_dense_no_watermark_yet(void **state) {
  (void)state;
  AirDense *d = air_dense_new(0, 0, sizeof(Acc));
  bool is_new;
  air_dense_acc(d, 0, 0, &is_new);
  int64_t ws;
  assert_false(air_dense_pop_closed(d, AIR_WM_NONE, 10, &ws)); /* no overflow at INT64_MIN */
  air_dense_free(d);
  air_dense_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dense_acc_new_then_existing),
      cmocka_unit_test(test_dense_pop_order_and_recycle),
      cmocka_unit_test(test_dense_no_watermark_yet),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
