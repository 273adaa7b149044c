/* Unit tests for runtime/xsum.c: exact DOUBLE sums (AirXsum). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <float.h>
#include <math.h>

#include "air.h"

static double sum_of(const double *v, size_t n) {
  AirXsum s;
  memset(&s, 0, sizeof s);
  for (size_t i = 0; i < n; i++)
    air_xsum_add(&s, v[i]);
  return air_xsum_value(&s);
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) { return rng_state = air_mix64(rng_state); }

/* A random double that is a multiple of 2^-40 below 2^60 in magnitude, so
 * that the exact sum of up to 2^20 of them, times 2^40, fits an __int128:
 * the independent reference below. */
static double random_scaled(__int128 *scaled) {
  int bits = 1 + (int)(rnd() % 53);             /* significant bits */
  int shift = (int)(rnd() % (100 - bits + 1));  /* position in [2^-40, 2^60) */
  uint64_t m = rnd() >> (64 - bits);
  __int128 v = (__int128)m << shift;
  if (rnd() & 1)
    v = -v;
  *scaled = v;
  return ldexp((double)v, -40); /* exact: at most 53 significant bits */
}

static void test_xsum_matches_an_exact_integer_sum(void **state) {
  (void)state;
  enum { N = 2000 };
  static double v[N];
  for (int trial = 0; trial < 50; trial++) {
    __int128 total = 0;
    for (int i = 0; i < N; i++) {
      __int128 sc;
      v[i] = random_scaled(&sc);
      total += sc;
    }
    /* GCC converts __int128 to double rounding to nearest, ties to even;
     * scaling by 2^-40 is exact here (far from the subnormals). */
    double want = ldexp((double)total, -40);
    assert_true(same_bits(sum_of(v, N), want));
  }
}

static void test_xsum_does_not_depend_on_order_or_merging(void **state) {
  (void)state;
  enum { N = 3000 };
  static double v[N];
  for (int i = 0; i < N; i++) {
    /* every exponent, both signs, some specials excluded */
    uint64_t b = rnd();
    memcpy(&v[i], &b, sizeof b);
    if (!isfinite(v[i]))
      v[i] = (double)(int64_t)b;
  }
  double first = sum_of(v, N);
  for (int round = 0; round < 20; round++) {
    for (int i = N - 1; i > 0; i--) { /* Fisher-Yates */
      int j = (int)(rnd() % (uint64_t)(i + 1));
      double t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
    assert_true(same_bits(sum_of(v, N), first));
    /* three partial sums (three ranks), merged in a random order */
    AirXsum part[3], total;
    memset(part, 0, sizeof part);
    memset(&total, 0, sizeof total);
    for (int i = 0; i < N; i++)
      air_xsum_add(&part[rnd() % 3], v[i]);
    int order = (int)(rnd() % 3);
    for (int k = 0; k < 3; k++)
      air_xsum_merge(&total, &part[(order + k) % 3]);
    assert_true(same_bits(air_xsum_value(&total), first));
  }
}

static void test_xsum_known_values(void **state) {
  (void)state;
  /* Adding left to right gives 0.125 and 0.6000000000000001. */
  double a[] = {1e15, 0.1, -1e15};
  assert_true(same_bits(sum_of(a, 3), 0.1));
  double b[] = {0.1, 0.2, 0.3};
  assert_true(same_bits(sum_of(b, 3), 0.6));
  double c[] = {-0.5, -0.25};
  assert_true(same_bits(sum_of(c, 2), -0.75));
  /* ties to even: 2^53 + 1 is halfway between 2^53 and 2^53 + 2 */
  double two53 = 9007199254740992.0;
  double d[] = {two53, 1.0};
  assert_true(same_bits(sum_of(d, 2), two53));
  double e[] = {two53, 3.0};
  assert_true(same_bits(sum_of(e, 2), two53 + 4.0));
  double f[] = {two53, 1.0, ldexp(1.0, -30)}; /* just above the half */
  assert_true(same_bits(sum_of(f, 3), two53 + 2.0));
  double g[] = {-two53, -1.0, -ldexp(1.0, -30)};
  assert_true(same_bits(sum_of(g, 3), -(two53 + 2.0)));
}

static void test_xsum_extremes(void **state) {
  (void)state;
  double tiny = ldexp(1.0, -1074);
  double a[] = {tiny, tiny, tiny};
  assert_true(same_bits(sum_of(a, 3), 3 * tiny));
  double b[] = {DBL_MAX, DBL_MAX};
  assert_true(same_bits(sum_of(b, 2), INFINITY));
  double c[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
  assert_true(same_bits(sum_of(c, 3), DBL_MAX));
  double d[] = {-DBL_MAX, -DBL_MAX};
  assert_true(same_bits(sum_of(d, 2), -INFINITY));
  double e[] = {DBL_MAX, tiny, -DBL_MAX};
  assert_true(same_bits(sum_of(e, 3), tiny));
  /* a thousand times the largest double and back */
  AirXsum s;
  memset(&s, 0, sizeof s);
  for (int i = 0; i < 1000; i++)
    air_xsum_add(&s, DBL_MAX);
  for (int i = 0; i < 999; i++)
    air_xsum_add(&s, -DBL_MAX);
  assert_true(same_bits(air_xsum_value(&s), DBL_MAX));
}

static void test_xsum_zero_and_specials(void **state) {
  (void)state;
  AirXsum s;
  memset(&s, 0, sizeof s);
  assert_true(same_bits(air_xsum_value(&s), 0.0));
  air_xsum_add(&s, -0.0);
  assert_true(same_bits(air_xsum_value(&s), 0.0)); /* an exact zero is +0 */
  air_xsum_add(&s, 2.5);
  air_xsum_add(&s, -2.5);
  assert_true(same_bits(air_xsum_value(&s), 0.0));
  air_xsum_add(&s, INFINITY);
  assert_true(same_bits(air_xsum_value(&s), INFINITY));
  air_xsum_add(&s, 1.0);
  assert_true(same_bits(air_xsum_value(&s), INFINITY));
  air_xsum_add(&s, -INFINITY);
  assert_true(isnan(air_xsum_value(&s)));
  AirXsum n;
  memset(&n, 0, sizeof n);
  air_xsum_add(&n, 1.0);
  air_xsum_add(&n, NAN);
  assert_true(isnan(air_xsum_value(&n)));
  AirXsum m;
  memset(&m, 0, sizeof m);
  air_xsum_add(&m, -INFINITY);
  AirXsum p;
  memset(&p, 0, sizeof p);
  air_xsum_add(&p, 7.0);
  air_xsum_merge(&p, &m);
  assert_true(same_bits(air_xsum_value(&p), -INFINITY));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_xsum_matches_an_exact_integer_sum),
      cmocka_unit_test(test_xsum_does_not_depend_on_order_or_merging),
      cmocka_unit_test(test_xsum_known_values),
      cmocka_unit_test(test_xsum_extremes),
      cmocka_unit_test(test_xsum_zero_and_specials),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
