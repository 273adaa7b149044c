/* Unit tests for runtime/vec.c: AirVec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "air.h"

typedef struct Row {
  int64_t ts;
  int32_t v;
  char tag[5];
} Row;

static void test_vec_push_keeps_rows(void **state) {
  (void)state;
  AirVec v = {0};
  for (int i = 0; i < 1000; i++) {
    Row r = {.ts = i * 7, .v = -i};
    r.tag[0] = (char)('a' + i % 26);
    air_vec_push(&v, &r, sizeof r);
    assert_int_equal(v.n, i + 1);
    assert_true(v.cap >= v.n);
  }
  /* Doubling from 16: 16, 32, ..., 1024. */
  assert_int_equal(v.cap, 1024);
  const Row *rows = v.data;
  for (int i = 0; i < 1000; i++) {
    assert_int_equal(rows[i].ts, i * 7);
    assert_int_equal(rows[i].v, -i);
    assert_int_equal(rows[i].tag[0], 'a' + i % 26);
  }
  air_vec_free(&v);
  assert_null(v.data);
  assert_int_equal(v.n, 0);
  assert_int_equal(v.cap, 0);
  air_vec_free(&v); /* twice is fine */
  air_vec_free(NULL);
}

static void test_vec_first_push_and_reuse(void **state) {
  (void)state;
  AirVec v = {0};
  int64_t x = 42;
  air_vec_push(&v, &x, sizeof x);
  assert_int_equal(v.n, 1);
  assert_int_equal(v.cap, 2); /* VEC_FIRST_CAP */
  assert_int_equal(((int64_t *)v.data)[0], 42);
  air_vec_free(&v);
  /* Empty again after free: pushing starts over. */
  x = 7;
  air_vec_push(&v, &x, sizeof x);
  assert_int_equal(v.n, 1);
  assert_int_equal(((int64_t *)v.data)[0], 7);
  air_vec_free(&v);
}

/* A consumer may empty the rows it used by setting n = 0 and push again. */
static void test_vec_reset_n_reuses_storage(void **state) {
  (void)state;
  AirVec v = {0};
  for (int64_t i = 0; i < 20; i++) air_vec_push(&v, &i, sizeof i);
  assert_int_equal(v.cap, 32);
  void *data = v.data;
  v.n = 0;
  for (int64_t i = 100; i < 130; i++) air_vec_push(&v, &i, sizeof i);
  assert_ptr_equal(v.data, data);
  assert_int_equal(((int64_t *)v.data)[29], 129);
  air_vec_free(&v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vec_push_keeps_rows),
      cmocka_unit_test(test_vec_first_push_and_reuse),
      cmocka_unit_test(test_vec_reset_n_reuses_storage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
