/* Unit tests for runtime/format.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "air.h"

static AirField fld(const char *s) { return (AirField){s, strlen(s)}; }

static void test_format_parse_i64(void **state) {
  (void)state;
  int64_t v = 0;
  assert_true(air_parse_i64(fld("0"), &v) && v == 0);
  assert_true(air_parse_i64(fld("-0"), &v) && v == 0);
  assert_true(air_parse_i64(fld("+5"), &v) && v == 5);
  assert_true(air_parse_i64(fld("-42"), &v) && v == -42);
  assert_true(air_parse_i64(fld("007"), &v) && v == 7);
  assert_true(air_parse_i64(fld("9223372036854775807"), &v) && v == INT64_MAX);
  assert_true(air_parse_i64(fld("-9223372036854775808"), &v) && v == INT64_MIN);
  v = 123;
  assert_false(air_parse_i64(fld("9223372036854775808"), &v));
  assert_false(air_parse_i64(fld("-9223372036854775809"), &v));
  assert_false(air_parse_i64(fld("99999999999999999999999"), &v));
  assert_false(air_parse_i64(fld(""), &v));
  assert_false(air_parse_i64(fld("-"), &v));
  assert_false(air_parse_i64(fld("+"), &v));
  assert_false(air_parse_i64(fld(" 1"), &v));
  assert_false(air_parse_i64(fld("1 "), &v));
  assert_false(air_parse_i64(fld("1a"), &v));
  assert_false(air_parse_i64(fld("1.0"), &v));
  assert_false(air_parse_i64(fld("--1"), &v));
  assert_int_equal(v, 123); /* untouched on failure */
  /* the field is bounded by n, not by a NUL */
  assert_true(air_parse_i64((AirField){"12345", 3}, &v) && v == 123);
}

static void test_format_parse_i32_overflow(void **state) {
  (void)state;
  int32_t v = 9;
  assert_true(air_parse_i32(fld("2147483647"), &v) && v == INT32_MAX);
  assert_true(air_parse_i32(fld("-2147483648"), &v) && v == INT32_MIN);
  assert_false(air_parse_i32(fld("2147483648"), &v));
  assert_false(air_parse_i32(fld("-2147483649"), &v));
  assert_false(air_parse_i32(fld("4294967296"), &v));
  assert_false(air_parse_i32(fld("x"), &v));
  assert_int_equal(v, INT32_MIN);
}

static void test_format_parse_double(void **state) {
  (void)state;
  double d = 0;
  assert_int_equal(air_parse_double(fld("3.5"), &d), AIR_PARSE_OK);
  assert_true(d == 3.5);
  assert_true(air_parse_double(fld("-0.25"), &d) == AIR_PARSE_OK && d == -0.25);
  assert_true(air_parse_double(fld("1e3"), &d) == AIR_PARSE_OK && d == 1000.0);
  assert_true(air_parse_double(fld("2.5E-3"), &d) == AIR_PARSE_OK && d == 2.5e-3);
  assert_true(air_parse_double(fld("1e+300"), &d) == AIR_PARSE_OK && d == 1e300);
  assert_true(air_parse_double(fld("+7"), &d) == AIR_PARSE_OK && d == 7.0);
  assert_true(air_parse_double(fld(".5"), &d) == AIR_PARSE_OK && d == 0.5);
  assert_true(air_parse_double(fld("-0"), &d) == AIR_PARSE_OK && d == 0 && signbit(d));
  assert_true(air_parse_double(fld("0e999"), &d) == AIR_PARSE_OK && d == 0); /* zero is in range */
  assert_true(air_parse_double(fld("4.9e-324"), &d) == AIR_PARSE_OK && d > 0); /* subnormal */
  /* the words air_write_double writes, in any case, infinities signed */
  const char *infs[] = {"inf", "+inf", "INF", "Infinity", "+infinity", "iNfInItY"};
  for (size_t k = 0; k < sizeof infs / sizeof infs[0]; k++)
    assert_true(air_parse_double(fld(infs[k]), &d) == AIR_PARSE_OK && isinf(d) && d > 0);
  assert_true(air_parse_double(fld("-inf"), &d) == AIR_PARSE_OK && isinf(d) && d < 0);
  assert_true(air_parse_double(fld("-INFINITY"), &d) == AIR_PARSE_OK && isinf(d) && d < 0);
  assert_true(air_parse_double(fld("nan"), &d) == AIR_PARSE_OK && isnan(d));
  assert_true(air_parse_double(fld("NaN"), &d) == AIR_PARSE_OK && isnan(d));
  d = 1.25;
  /* out of range: finite text that overflows, a nonzero that rounds to 0 */
  assert_int_equal(air_parse_double(fld("1e400"), &d), AIR_PARSE_RANGE);
  assert_int_equal(air_parse_double(fld("-1e400"), &d), AIR_PARSE_RANGE);
  assert_int_equal(air_parse_double(fld("1e-400"), &d), AIR_PARSE_RANGE);
  assert_int_equal(air_parse_double(fld("-0.0001e-330"), &d), AIR_PARSE_RANGE);
  /* not decimal: hex, bare dots, spaces, words strtod knows */
  const char *bad[] = {"", " 1", "1 ", "1e", "1e+", "abc", "1.5x", "0x1p4", "0x10", "1.",
                       ".", "-", "+", "e5", ".e5", "--1", "1..2", "in", "infin", "nan(1)",
                       "-nan", "+nan", "1,5", "1_000", "\xd9\xa1"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    if (air_parse_double(fld(bad[k]), &d) != AIR_PARSE_INVALID) fail_msg("'%s' taken as a DOUBLE", bad[k]);
  assert_int_equal(air_parse_double((AirField){"1\0002", 3}, &d), AIR_PARSE_INVALID);
  assert_true(d == 1.25); /* untouched on failure */
  /* field bounded by n: "2.5" out of "2.57" */
  assert_true(air_parse_double((AirField){"2.57", 3}, &d) == AIR_PARSE_OK && d == 2.5);
  /* longer than the stack copy */
  char longnum[300];
  memset(longnum, '0', sizeof longnum);
  longnum[0] = '1';
  longnum[1] = '.';
  longnum[299] = '\0';
  assert_true(air_parse_double(fld(longnum), &d) == AIR_PARSE_OK && d == 1.0);
}

/* TIMESTAMPs outside years 1..9999 are out of range: window arithmetic
 * near INT64_MAX would overflow. */
static void test_format_parse_ts(void **state) {
  (void)state;
  int64_t t = 5;
  assert_true(air_parse_ts(fld("0"), &t) == AIR_PARSE_OK && t == 0);
  assert_true(air_parse_ts(fld("1700000000000"), &t) == AIR_PARSE_OK && t == 1700000000000);
  assert_true(air_parse_ts(fld("-62135596800000"), &t) == AIR_PARSE_OK && t == AIR_TS_MIN);
  assert_true(air_parse_ts(fld("253402300799999"), &t) == AIR_PARSE_OK && t == AIR_TS_MAX);
  t = 5;
  assert_int_equal(air_parse_ts(fld("-62135596800001"), &t), AIR_PARSE_RANGE);
  assert_int_equal(air_parse_ts(fld("253402300800000"), &t), AIR_PARSE_RANGE);
  assert_int_equal(air_parse_ts(fld("9223372036854775807"), &t), AIR_PARSE_RANGE);
  assert_int_equal(air_parse_ts(fld("-9223372036854775808"), &t), AIR_PARSE_RANGE);
  assert_int_equal(air_parse_ts(fld("9223372036854775808"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("12x4"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("1.5"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld(""), &t), AIR_PARSE_INVALID);
  assert_int_equal(t, 5);
  /* ISO-8601 text; the values worked out by hand (2000-01-01 is day 10957) */
  assert_true(air_parse_ts(fld("1970-01-01"), &t) == AIR_PARSE_OK && t == 0);
  assert_true(air_parse_ts(fld("1970-01-01T00:00:01.5Z"), &t) == AIR_PARSE_OK && t == 1500);
  assert_true(air_parse_ts(fld("1970-01-01 00:00:01.123456"), &t) == AIR_PARSE_OK && t == 1123);
  assert_true(air_parse_ts(fld("1970-01-02 00:00:00+01:00"), &t) == AIR_PARSE_OK && t == 82800000);
  assert_true(air_parse_ts(fld("1969-12-31T23:30:00-00:30"), &t) == AIR_PARSE_OK && t == 0);
  assert_true(air_parse_ts(fld("2000-03-01"), &t) == AIR_PARSE_OK && t == INT64_C(951868800000));
  assert_true(air_parse_ts(fld("2000-02-29 00:00:00"), &t) == AIR_PARSE_OK && t == INT64_C(951782400000));
  assert_true(air_parse_ts(fld("0001-01-01"), &t) == AIR_PARSE_OK && t == AIR_TS_MIN);
  assert_true(air_parse_ts(fld("9999-12-31 23:59:59.999"), &t) == AIR_PARSE_OK && t == AIR_TS_MAX);
  t = 5;
  assert_int_equal(air_parse_ts(fld("9999-12-31T23:59:59.999-00:01"), &t), AIR_PARSE_RANGE);
  assert_int_equal(air_parse_ts(fld("2001-02-29"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("2026-04-31"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("1970-01-01 24:00:00"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("1970-01-01T00:00:00."), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("1970-01-01T00:00"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("1970-1-01"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("1970-01-01Z"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("1970-01-01T00:00:00+24:00"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_ts(fld("1970-01-01 00:00:00 "), &t), AIR_PARSE_INVALID);
  assert_int_equal(t, 5);
}

/* DATE: 'yyyy-MM-dd' alone, a day that exists, as its midnight's ms; written back */
static void test_format_date(void **state) {
  (void)state;
  int64_t t = 5;
  assert_true(air_parse_date(fld("1970-01-01"), &t) == AIR_PARSE_OK && t == 0);
  assert_true(air_parse_date(fld("1969-12-31"), &t) == AIR_PARSE_OK && t == -86400000);
  assert_true(air_parse_date(fld("2000-02-29"), &t) == AIR_PARSE_OK && t == INT64_C(951782400000));
  assert_true(air_parse_date(fld("0001-01-01"), &t) == AIR_PARSE_OK && t == AIR_TS_MIN);
  assert_true(air_parse_date(fld("9999-12-31"), &t) == AIR_PARSE_OK && t == AIR_TS_MAX - 86399999);
  t = 5;
  assert_int_equal(air_parse_date(fld("2001-02-29"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_date(fld("0000-01-01"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_date(fld("2026-1-05"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_date(fld("2026-01-05 00:00:00"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_date(fld("1700000000000"), &t), AIR_PARSE_INVALID);
  assert_int_equal(air_parse_date(fld(""), &t), AIR_PARSE_INVALID);
  assert_int_equal(t, 5);
  char buf[64];
  *air_put_date(buf, 0, false) = '\0';
  assert_string_equal(buf, "1970-01-01");
  *air_put_date(buf, -86400000, true) = '\0';
  assert_string_equal(buf, "\"1969-12-31\"");
  *air_put_date(buf, AIR_TS_MIN, false) = '\0';
  assert_string_equal(buf, "0001-01-01");
  *air_put_date(buf, INT64_MIN / 86400000 * 86400000, true) = '\0'; /* past year 9999: wider, still bounded */
  assert_true(strlen(buf) <= AIR_PUT_DATE_MAX);
}

/* timestamp_format = 'iso': UTC, to the ms, quoted for JSON */
static void test_format_put_ts_iso(void **state) {
  (void)state;
  char buf[64];
  *air_put_ts_iso(buf, 1500, false) = '\0';
  assert_string_equal(buf, "1970-01-01 00:00:01.500");
  *air_put_ts_iso(buf, -1, true) = '\0';
  assert_string_equal(buf, "\"1969-12-31 23:59:59.999\"");
  *air_put_ts_iso(buf, AIR_TS_MAX, false) = '\0';
  assert_string_equal(buf, "9999-12-31 23:59:59.999");
  *air_put_ts_iso(buf, AIR_TS_MIN, false) = '\0';
  assert_string_equal(buf, "0001-01-01 00:00:00.000");
  assert_true(strlen(buf) + 2 <= AIR_PUT_TS_ISO_MAX);
}

static void test_format_parse_bool(void **state) {
  (void)state;
  bool b = false;
  assert_true(air_parse_bool(fld("true"), &b) && b);
  assert_true(air_parse_bool(fld("FALSE"), &b) && !b);
  assert_true(air_parse_bool(fld("True"), &b) && b);
  assert_true(air_parse_bool(fld("0"), &b) && !b);
  assert_true(air_parse_bool(fld("1"), &b) && b);
  assert_false(air_parse_bool(fld("yes"), &b));
  assert_false(air_parse_bool(fld(""), &b));
  assert_false(air_parse_bool(fld("truex"), &b));
  assert_false(air_parse_bool(fld("2"), &b));
}

static void test_format_parse_str(void **state) {
  (void)state;
  char dst[4];
  memset(dst, 'x', sizeof dst);
  assert_int_equal(air_parse_str(fld("ab"), dst, 3), AIR_PARSE_OK);
  assert_memory_equal(dst, "ab\0\0", 4);
  assert_int_equal(air_parse_str(fld("abc"), dst, 3), AIR_PARSE_OK);
  assert_memory_equal(dst, "abc\0", 4);
  assert_int_equal(air_parse_str(fld(""), dst, 3), AIR_PARSE_OK);
  assert_memory_equal(dst, "\0\0\0\0", 4);
  assert_int_equal(air_parse_str(fld("abcd"), dst, 3), AIR_PARSE_RANGE);
  /* a NUL is named as such, also in a field that is too long */
  assert_int_equal(air_parse_str((AirField){"a\0b", 3}, dst, 3), AIR_PARSE_NUL);
  assert_int_equal(air_parse_str((AirField){"abc\0", 4}, dst, 3), AIR_PARSE_NUL);
}

/* Runs fn's output through a memory stream and returns it (static buffer). */
static char outbuf[1024];
static FILE *open_out(void) {
  FILE *f = fmemopen(outbuf, sizeof outbuf, "w");
  assert_non_null(f);
  return f;
}
static const char *close_out(FILE *f) {
  fputc('\0', f);
  fclose(f);
  return outbuf;
}

static const char *fmt_double(double v) {
  FILE *f = open_out();
  air_write_double(f, v);
  return close_out(f);
}

static void test_format_write_double_known(void **state) {
  (void)state;
  /* Expected strings: Python's repr (shortest round trip), in C's %g form */
  assert_string_equal(fmt_double(0.1), "0.1");
  assert_string_equal(fmt_double(3.0), "3");
  assert_string_equal(fmt_double(-2.5), "-2.5");
  assert_string_equal(fmt_double(0.1 + 0.2), "0.30000000000000004");
  assert_string_equal(fmt_double(1.0 / 3.0), "0.3333333333333333");
  assert_string_equal(fmt_double(1e300), "1e+300");
  assert_string_equal(fmt_double(2.5e-308), "2.5e-308");
  assert_string_equal(fmt_double(123456789.123), "123456789.123");
  assert_string_equal(fmt_double(0.0), "0");
  assert_string_equal(fmt_double(INFINITY), "inf");
  assert_string_equal(fmt_double(-INFINITY), "-inf");
  assert_string_equal(fmt_double(NAN), "nan");
}

static void test_format_write_double_round_trip(void **state) {
  (void)state;
  uint64_t s = 99;
  int n = 0;
  while (n < 200000) {
    s = air_mix64(s);
    double v;
    if (n % 2) {
      memcpy(&v, &s, sizeof v); /* arbitrary bit patterns */
      if (!isfinite(v)) continue;
    } else {
      v = (double)(s >> 11) / (double)(1ULL << 53) * 1000.0; /* everyday values */
    }
    const char *out = fmt_double(v);
    double back = 0;
    if (air_parse_double((AirField){out, strlen(out)}, &back) != AIR_PARSE_OK ||
        memcmp(&back, &v, sizeof v) != 0)
      fail_msg("%a printed as %s, read back as %a", v, out, back);
    n++;
  }
  /* and the words it writes */
  const double special[] = {INFINITY, -INFINITY, NAN, -0.0, 4.9406564584124654e-324, 1.7976931348623157e308};
  for (size_t k = 0; k < sizeof special / sizeof special[0]; k++) {
    const char *out = fmt_double(special[k]);
    double back = 0;
    assert_int_equal(air_parse_double((AirField){out, strlen(out)}, &back), AIR_PARSE_OK);
    if (isnan(special[k])) assert_true(isnan(back));
    else assert_memory_equal(&back, &special[k], sizeof back);
  }
}

static const char *fmt_str(const char *s) {
  FILE *f = open_out();
  air_write_str(f, s);
  return close_out(f);
}

static void test_format_write_str_quoting(void **state) {
  (void)state;
  assert_string_equal(fmt_str("abc"), "abc");
  assert_string_equal(fmt_str(""), "\"\""); /* the empty string; NULL is the empty field */
  assert_string_equal(fmt_str("in side"), "in side");
  assert_string_equal(fmt_str("a,b"), "\"a,b\"");
  assert_string_equal(fmt_str("say \"hi\""), "\"say \"\"hi\"\"\"");
  assert_string_equal(fmt_str(" lead"), "\" lead\"");
  assert_string_equal(fmt_str("trail "), "\"trail \"");
  assert_string_equal(fmt_str("a\nb"), "\"a\nb\"");
  assert_string_equal(fmt_str("a\rb"), "\"a\rb\"");
  assert_string_equal(fmt_str("\""), "\"\"\"\"");
}

static void test_format_write_i64_and_bool(void **state) {
  (void)state;
  FILE *f = open_out();
  air_write_i64(f, 0);
  fputc(' ', f);
  air_write_i64(f, -5);
  fputc(' ', f);
  air_write_i64(f, INT64_MAX);
  fputc(' ', f);
  air_write_i64(f, INT64_MIN);
  fputc(' ', f);
  air_write_i64(f, 1700000000123LL);
  fputc(' ', f);
  air_write_bool(f, true);
  fputc(' ', f);
  air_write_bool(f, false);
  assert_string_equal(close_out(f),
                      "0 -5 9223372036854775807 -9223372036854775808 1700000000123 true false");
}

/* The rule air_put_double keeps (its integral shortcut must write the same
 * bytes): the fewest of 15, 16, 17 significant digits that read back. */
static const char *ref_double(double v, char *buf, size_t n) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, v);
    if (prec == 17 || strtod(buf, NULL) == v) break;
  }
  return buf;
}

static void test_format_put_same_as_printf(void **state) {
  (void)state;
  char got[64], want[64];
  const double edge[] = {0.0, -0.0, 1.0, -1.0, 999999999999999.0, -999999999999999.0, 1e15, -1e15,
                         1e15 + 1, 9007199254740992.0, -9007199254740993.0, 4503599627370497.5,
                         1e300, 0.5, -2.5, 123456789012345.0};
  for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++) {
    *air_put_double(got, edge[k]) = '\0';
    assert_string_equal(got, ref_double(edge[k], want, sizeof want));
  }
  uint64_t s = 7;
  for (int n = 0; n < 300000; n++) {
    s = air_mix64(s);
    int64_t i = (int64_t)s >> (s % 64); /* every magnitude */
    double v = n % 3 == 0 ? (double)i : n % 3 == 1 ? (double)(i % 100000) / 8 : (double)(i % 2000000000);
    *air_put_double(got, v) = '\0';
    if (strcmp(got, ref_double(v, want, sizeof want)) != 0)
      fail_msg("%a: air_put_double wrote %s, %%g rule %s", v, got, want);
    *air_put_i64(got, i) = '\0';
    snprintf(want, sizeof want, "%lld", (long long)i);
    if (strcmp(got, want) != 0)
      fail_msg("air_put_i64 wrote %s for %s", got, want);
  }
  const int64_t ends[] = {0, 9, 10, 99, 100, -1, -10, INT64_MAX, INT64_MIN, INT64_MIN + 1};
  for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
    char *e = air_put_i64(got, ends[k]);
    assert_true(e - got <= AIR_PUT_I64_MAX);
    *e = '\0';
    snprintf(want, sizeof want, "%lld", (long long)ends[k]);
    assert_string_equal(got, want);
  }
  /* the longest double and JSON escaping stay inside their bounds */
  char *e = air_put_double(got, -2.2250738585072014e-308);
  assert_int_equal(e - got, AIR_PUT_DOUBLE_MAX);
  char js[6 * 3 + 2 + 1];
  e = air_put_json_str(js, "\x01\x1f\x02");
  assert_int_equal(e - js, 6 * 3 + 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_parse_i64),
      cmocka_unit_test(test_format_parse_i32_overflow),
      cmocka_unit_test(test_format_parse_double),
      cmocka_unit_test(test_format_parse_ts),
      cmocka_unit_test(test_format_date),
      cmocka_unit_test(test_format_put_ts_iso),
      cmocka_unit_test(test_format_parse_bool),
      cmocka_unit_test(test_format_parse_str),
      cmocka_unit_test(test_format_write_double_known),
      cmocka_unit_test(test_format_write_double_round_trip),
      cmocka_unit_test(test_format_write_str_quoting),
      cmocka_unit_test(test_format_write_i64_and_bool),
      cmocka_unit_test(test_format_put_same_as_printf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
