/* Unit tests for runtime/gen.c. Expected values come from an independent
 * Python transcription of the formulas documented in air.h (see the
 * comment at each constant). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "data_int.h"

/* python3: M=(1<<64)-1
 * def mix64(z): z=(z+0x9E3779B97F4A7C15)&M; z=((z^(z>>30))*0xBF58476D1CE4E5B9)&M
 *               z=((z^(z>>27))*0x94D049BB133111EB)&M; return z^(z>>31)
 * (mix64(0) is also splitmix64's well-known first output for seed 0.) */
static void test_gen_mix64_reference_values(void **state) {
  (void)state;
  assert_true(air_mix64(0) == 0xe220a8397b1dcdafULL);
  assert_true(air_mix64(1) == 0x910a2dec89025cc1ULL);
  assert_true(air_mix64(0xdeadbeefULL) == 0x4adfb90f68c9eb9bULL);
  assert_true(air_mix64(UINT64_MAX) == 0xe4d971771b652c20ULL);
}

/* row(seed,i) = mix64((mix64(seed & M) + i) & M); col(H,c) = mix64((H+c) & M) */
static void test_gen_row_and_col_reference_values(void **state) {
  (void)state;
  uint64_t h = air_gen_row(42, 7);
  assert_true(h == 0xfe2f108189f83df6ULL);
  assert_true(air_gen_row(-1, 0) == 0x5dc20aa7b2a27137ULL);
  assert_true(air_gen_col(h, 3) == 0x7017364a7f5e7a5eULL);
  /* -5 + col(H,1) % 11 */
  assert_int_equal(air_gen_uniform(air_gen_col(h, 1), -5, 5), -3);
  assert_int_equal(air_gen_uniform(12345, 7, 7), 7);
}

static void check_uuid_shape(const char *u) {
  assert_int_equal(strlen(u), 36);
  for (int i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      assert_int_equal(u[i], '-');
    } else {
      assert_true((u[i] >= '0' && u[i] <= '9') || (u[i] >= 'a' && u[i] <= 'f'));
    }
  }
  assert_int_equal(u[14], '4');                 /* version nibble */
  assert_non_null(strchr("89ab", u[19]));       /* RFC 4122 variant */
}

static void test_gen_uuid_format(void **state) {
  (void)state;
  char u[37];
  uint64_t r = 1;
  for (int i = 0; i < 1000; i++) {
    r = air_mix64(r);
    air_gen_uuid(r, u);
    check_uuid_shape(u);
  }
}

/* python3: uuid(r): b = r.to_bytes(8,'big') + mix64(r).to_bytes(8,'big');
 * b[6] = b[6]&0x0f|0x40; b[8] = b[8]&0x3f|0x80; hex split 8-4-4-4-12 */
static void test_gen_uuid_reference_values(void **state) {
  (void)state;
  char u[37];
  air_gen_uuid(0, u);
  assert_string_equal(u, "00000000-0000-4000-a220-a8397b1dcdaf");
  air_gen_uuid(0x0123456789abcdefULL, u);
  assert_string_equal(u, "01234567-89ab-4def-957a-3807a48faa9d");
  air_ysb_ad_uuid(0, u);
  assert_string_equal(u, "20b353a5-3347-4f4e-86fb-0a678c337339");
  air_ysb_ad_uuid(999, u);
  assert_string_equal(u, "43c6e206-778b-4ceb-ae7f-c008c7a176fd");
  air_ysb_campaign_uuid(0, u);
  assert_string_equal(u, "a10f6245-81aa-426c-a4b6-5df0d08ea9e5");
  air_ysb_campaign_uuid(99, u);
  assert_string_equal(u, "90220a3e-ffa8-4cdd-ac14-ea001779f106");
}

static void test_gen_ysb_fill_reference_values(void **state) {
  (void)state;
  uint64_t h = air_gen_row(42, 7);
  char out[40];
  memset(out, 'x', sizeof out);
  air_ysb_fill(AIR_YSB_IP, air_gen_col(h, AIR_YSB_IP), out, 16);
  assert_string_equal(out, "25.226.124.177");
  assert_int_equal(out[15], 0); /* NUL padded to cap */
  assert_int_equal(out[16], 'x');
  air_ysb_fill(AIR_YSB_AD_TYPE, air_gen_col(h, AIR_YSB_AD_TYPE), out, 17);
  assert_string_equal(out, "banner");
  for (int i = 6; i < 17; i++) assert_int_equal(out[i], 0);
  air_ysb_fill(AIR_YSB_EVENT_TYPE, air_gen_col(h, AIR_YSB_EVENT_TYPE), out, 10);
  assert_string_equal(out, "click");
  air_ysb_fill(AIR_YSB_AD_ID, air_gen_col(h, AIR_YSB_AD_ID), out, 37);
  assert_string_equal(out, "f3284dd3-9222-4348-b9f8-2148076ab2b9");
  air_ysb_fill(AIR_YSB_USER_ID, 0, out, 37);
  assert_string_equal(out, "00000000-0000-4000-a220-a8397b1dcdaf");
  /* Longest values fit the schema's columns exactly. */
  air_ysb_fill(AIR_YSB_AD_TYPE, 2, out, 17);
  assert_string_equal(out, "sponsored-search");
  air_ysb_fill(AIR_YSB_IP, 0xffffffffULL, out, 16);
  assert_string_equal(out, "255.255.255.255");
}

/* Ads and campaigns are distinct and stable; an ad id drawn by the
 * generator is always one of the 1000 table ads. */
static void test_gen_ysb_ad_campaign_mapping(void **state) {
  (void)state;
  static char ads[AIR_YSB_ADS][37];
  for (int k = 0; k < AIR_YSB_ADS; k++) {
    air_ysb_ad_uuid(k, ads[k]);
    check_uuid_shape(ads[k]);
  }
  for (int a = 0; a < AIR_YSB_ADS; a++)
    for (int b = a + 1; b < AIR_YSB_ADS; b++) assert_string_not_equal(ads[a], ads[b]);
  char c1[37], c2[37];
  for (int j = 0; j < AIR_YSB_CAMPAIGNS; j++) {
    air_ysb_campaign_uuid(j, c1);
    air_ysb_campaign_uuid(j, c2);
    assert_string_equal(c1, c2);
    check_uuid_shape(c1);
  }
  char out[37];
  for (uint64_t r = 0; r < 3000; r += 7) {
    air_ysb_fill(AIR_YSB_AD_ID, r, out, sizeof out);
    assert_string_equal(out, ads[r % AIR_YSB_ADS]);
  }
}

/* All instances of all ranks together make 0..limit-1, each exactly once,
 * in increasing order per instance. */
static void check_partition(int world, int threads, int64_t limit, size_t max) {
  unsigned char *seen = calloc((size_t)limit + 1, 1);
  for (int p = 0; p < world; p++)
    for (int t = 0; t < threads; t++) {
      AirGen *g = air_gen_open_at(NULL, p, world, t, threads, 0, limit, 5);
      uint64_t first, stride, expect = (uint64_t)(p * threads + t);
      int64_t now;
      size_t n;
      while ((n = air_gen_next(g, max, &first, &stride, &now)) > 0) {
        assert_int_equal(stride, (uint64_t)(world * threads));
        assert_int_equal(first, expect);
        for (size_t k = 0; k < n; k++) {
          uint64_t i = first + k * stride;
          assert_true(i < (uint64_t)limit);
          assert_int_equal(seen[i], 0);
          seen[i] = 1;
        }
        expect = first + n * stride;
      }
      assert_true(air_gen_done(g));
      assert_int_equal(air_gen_seed(g), 5);
      air_gen_close(g);
    }
  for (int64_t i = 0; i < limit; i++) assert_int_equal(seen[i], 1);
  free(seen);
}

static void test_gen_partition_exact_limit(void **state) {
  (void)state;
  check_partition(1, 1, 1000, 64);
  check_partition(3, 2, 1000, 64);
  check_partition(2, 3, 1001, 7);
  check_partition(4, 1, 3, 100);  /* fewer rows than instances */
  check_partition(3, 2, 1, 100);
  air_gen_close(NULL);
}

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 3000 rows/s over 3 instances on one rank: 300 rows in ~0.1 s. */
static void test_gen_pacing_rate(void **state) {
  (void)state;
  double t0 = mono_s();
  size_t total = 0;
  for (int t = 0; t < 3; t++) {
    AirGen *g = air_gen_open_at(NULL, 0, 1, t, 3, 3000, 900, 1);
    double s0 = mono_s();
    uint64_t first, stride;
    int64_t now;
    size_t made = 0;
    while (!air_gen_done(g)) made += air_gen_next(g, 1000, &first, &stride, &now);
    double el = mono_s() - s0;
    assert_int_equal(made, 300);
    /* instance rate 1000/s: the 300th row is due at 0.299 s */
    assert_true(el > 0.28 && el < 0.6);
    total += made;
    air_gen_close(g);
  }
  assert_int_equal(total, 900);
  assert_true(mono_s() - t0 < 2.0);
}

/* A slow generator returns 0 (not done) with the time while it waits, so
 * the caller can advance its watermark; each call is short. */
static void test_gen_pacing_slow_returns_zero(void **state) {
  (void)state;
  AirGen *g = air_gen_open_at(NULL, 0, 1, 0, 1, 10, 2, 1);
  uint64_t first, stride;
  int64_t now = 0;
  size_t n = air_gen_next(g, 100, &first, &stride, &now);
  assert_int_equal(n, 1); /* the first row is due at once */
  assert_true(now > 1600000000000LL);
  int zeros = 0;
  while (n < 2) {
    double s0 = mono_s();
    now = 0;
    size_t k = air_gen_next(g, 100, &first, &stride, &now);
    assert_true(mono_s() - s0 < 0.05);
    assert_true(now > 1600000000000LL);
    if (k == 0) {
      assert_false(air_gen_done(g));
      zeros++;
    }
    n += k;
  }
  assert_true(zeros >= 3); /* 100 ms in naps of at most 10 ms */
  assert_int_equal(first, 1);
  air_gen_next(g, 100, &first, &stride, &now);
  assert_true(air_gen_done(g));
  air_gen_close(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gen_mix64_reference_values),
      cmocka_unit_test(test_gen_row_and_col_reference_values),
      cmocka_unit_test(test_gen_uuid_format),
      cmocka_unit_test(test_gen_uuid_reference_values),
      cmocka_unit_test(test_gen_ysb_fill_reference_values),
      cmocka_unit_test(test_gen_ysb_ad_campaign_mapping),
      cmocka_unit_test(test_gen_partition_exact_limit),
      cmocka_unit_test(test_gen_pacing_rate),
      cmocka_unit_test(test_gen_pacing_slow_returns_zero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
