/* air_query.h - what every program airc generates shares: the chunk and
 * watermark periods, the runtime pointer g_rt, and the q_* helpers its
 * expressions call (division that counts division by zero, conversions,
 * comparisons, IN lists, window arithmetic). Included once, by the one C
 * file airc writes, after air.h; installed beside it.
 *
 * Everything here is static: each program has its own g_rt and inlines the
 * helpers it uses. */
#ifndef AIR_QUERY_H
#define AIR_QUERY_H

#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "air.h"

#define CHUNK_ROWS 1024    /* rows a source makes or reads per clock read */
#define WM_EVERY_MS 5      /* a source's watermark period while no window closes */

static AirRuntime *g_rt; /* this rank's runtime */

/* ---- NULL (docs/design.md "NULL") ------------------------------------------
 * A value of a nullable type holds NULL in band, as its type's sentinel: the
 * smallest INT, BIGINT and TIMESTAMP (the one whose negation wraps), one
 * quiet NaN's bit pattern for DOUBLE (other NaNs are values), the one-byte
 * string 0xFF for VARCHAR (never in UTF-8), and 2 for BOOLEAN (its C type is
 * then int8_t: 0 false, 1 true, 2 unknown). Rows, keys and accumulators
 * carry them like any value; the code the compiler writes tests for them
 * only where a type may be NULL. Result rows order NULL after every value,
 * as PostgreSQL orders them (q_order_i64n). */
#define AIR_NULL_I32 INT32_MIN
#define AIR_NULL_I64 INT64_MIN
#define AIR_NULL_BOOL 2
#define AIR_NULL_STR "\377"
#define AIR_NULL_F64_BITS UINT64_C(0x7ff80000000a1100)
static inline double air_null_f64(void) {
  uint64_t u = AIR_NULL_F64_BITS;
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}
static inline bool q_isnull_f64(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u == AIR_NULL_F64_BITS;
}
static inline bool q_isnull_i32(int32_t x) { return x == AIR_NULL_I32; }
static inline bool q_isnull_i64(int64_t x) { return x == AIR_NULL_I64; }
static inline bool q_isnull_bool(int x) { return x == AIR_NULL_BOOL; }
static inline bool q_isnull_str(const char *s) { return (unsigned char)s[0] == 0xff && s[1] == 0; }
/* Order of integers that may be NULL: NULL after every value. */
static inline int q_order_i64n(int64_t a, int64_t b) {
  if (a == AIR_NULL_I64 || b == AIR_NULL_I64) return (a == AIR_NULL_I64) - (b == AIR_NULL_I64);
  return a < b ? -1 : a > b;
}
static inline int q_order_i32n(int32_t a, int32_t b) {
  if (a == AIR_NULL_I32 || b == AIR_NULL_I32) return (a == AIR_NULL_I32) - (b == AIR_NULL_I32);
  return a < b ? -1 : a > b;
}
/* ... NULL before every value (NULLS FIRST, or NULLS LAST with DESC): the
 * order above, but for a NULL. */
static inline int q_order_i64nl(int64_t a, int64_t b) {
  int r = q_order_i64n(a, b);
  return a == AIR_NULL_I64 || b == AIR_NULL_I64 ? -r : r;
}
static inline int q_order_i32nl(int32_t a, int32_t b) {
  int r = q_order_i32n(a, b);
  return a == AIR_NULL_I32 || b == AIR_NULL_I32 ? -r : r;
}
static inline int q_order_boolnl(int a, int b) { /* AIR_NULL_BOOL, 2, after 0 and 1 otherwise */
  int r = (a > b) - (a < b);
  return a == AIR_NULL_BOOL || b == AIR_NULL_BOOL ? -r : r;
}
static inline int q_order_strnl(const char *a, const char *b) {
  bool na = q_isnull_str(a), nb = q_isnull_str(b);
  if (na || nb) return (int)nb - (int)na;
  return strcmp(a, b);
}
/* A NULL keeps being NULL in a wider type. */
static inline int64_t q_n_i32_i64(int32_t x) { return x == AIR_NULL_I32 ? AIR_NULL_I64 : x; }
static inline double q_n_i32_f64(int32_t x) { return x == AIR_NULL_I32 ? air_null_f64() : x; }
static inline double q_n_i64_f64(int64_t x) { return x == AIR_NULL_I64 ? air_null_f64() : (double)x; }
/* A BOOLEAN field into a nullable BOOLEAN (int8_t). */
static inline bool air_parse_bool8(AirField f, int8_t *out) {
  bool b;
  if (!air_parse_bool(f, &b)) return false;
  *out = b;
  return true;
}
/* SQL's three-valued AND, OR and NOT over 0, 1 and 2 (unknown). */
static inline int8_t q_and3(int a, int b) { return a == 0 || b == 0 ? 0 : a == 2 || b == 2 ? 2 : 1; }
static inline int8_t q_or3(int a, int b) { return a == 1 || b == 1 ? 1 : a == 2 || b == 2 ? 2 : 0; }
static inline int8_t q_not3(int a) { return a == 2 ? 2 : !a; }

/* A division by zero or a text that does not convert, counted. While every
 * rank computes the same values (an IN (SELECT ...) set made from the table
 * each holds), q_uncounted is set on all but rank 0: the summary counts
 * them once, whatever the number of ranks. */
static bool q_uncounted;
static inline void q_count(AirStat s) {
  if (!q_uncounted) air_stat_add(g_rt, s, 1);
}

/* Integer arithmetic wraps as two's complement; division by zero gives 0 and
 * is counted (docs/language.md section 7). */
static inline int64_t q_div_i64(int64_t a, int64_t b) {
  if (b == 0) {
    q_count(AIR_STAT_DIV_ZERO);
    return 0;
  }
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  return a / b;
}
static inline int64_t q_mod_i64(int64_t a, int64_t b) {
  if (b == 0) {
    q_count(AIR_STAT_DIV_ZERO);
    return 0;
  }
  if (b == -1) return 0;
  return a % b;
}
static inline int32_t q_div_i32(int32_t a, int32_t b) { return (int32_t)q_div_i64(a, b); }
static inline int32_t q_mod_i32(int32_t a, int32_t b) { return (int32_t)q_mod_i64(a, b); }
/* ... where the result may be NULL: of a NULL operand, or (counted) by zero */
#define Q_DIVMOD_NULL(NAME, T, NUL, OP, COUNT)                              \
  static inline T NAME(T a, T b) {                                          \
    if (a == NUL || b == NUL) return NUL;                                   \
    return b == 0 ? (COUNT(a, b), NUL) : OP(a, b);                          \
  }
Q_DIVMOD_NULL(q_div_i64n, int64_t, AIR_NULL_I64, q_div_i64, q_div_i64)
Q_DIVMOD_NULL(q_mod_i64n, int64_t, AIR_NULL_I64, q_mod_i64, q_mod_i64)
Q_DIVMOD_NULL(q_div_i32n, int32_t, AIR_NULL_I32, q_div_i32, q_div_i64)
Q_DIVMOD_NULL(q_mod_i32n, int32_t, AIR_NULL_I32, q_mod_i32, q_mod_i64)
#undef Q_DIVMOD_NULL
/* DOUBLE division by zero gives the IEEE result (inf, nan) and is counted. */
static inline double q_div_f64(double a, double b) {
  if (b == 0.0) q_count(AIR_STAT_DIV_ZERO);
  return a / b;
}
static inline int64_t q_abs_i64(int64_t a) { return a < 0 ? (int64_t)(0 - (uint64_t)a) : a; }
static inline int32_t q_abs_i32(int32_t a) { return a < 0 ? (int32_t)(0 - (uint32_t)a) : a; }
static inline int64_t q_min_i64(int64_t a, int64_t b) { return b < a ? b : a; }
static inline int64_t q_max_i64(int64_t a, int64_t b) { return b > a ? b : a; }
/* DOUBLE to integer saturates; NaN gives 0. */
static inline int64_t q_f64_to_i64(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775807.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)x;
}
static inline int32_t q_f64_to_i32(double x) {
  if (x != x) return 0;
  if (x >= 2147483647.0) return INT32_MAX;
  if (x <= -2147483648.0) return INT32_MIN;
  return (int32_t)x;
}
/* Copy a string into a NUL-padded column of cap bytes (cap - 1 usable). */
static inline void q_strcpy(char *dst, size_t cap, const char *src) {
  size_t n = strnlen(src, cap - 1);
  memcpy(dst, src, n);
  memset(dst + n, 0, cap - n);
}
static inline bool q_fits(const char *s, size_t maxlen) { return strnlen(s, maxlen + 1) <= maxlen; }
/* CAST to VARCHAR(n): into buf (at least max(n + 1, 32) bytes), cut to n. */
static inline const char *q_i64_str(char *buf, size_t n, int64_t v) {
  snprintf(buf, 32, "%" PRId64, v);
  buf[n] = '\0';
  return buf;
}
static inline const char *q_f64_str(char *buf, size_t n, double v) {
  for (int prec = 15; prec <= 17; prec++) { /* the shortest that reads back */
    snprintf(buf, 32, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  buf[n] = '\0';
  return buf;
}
static inline const char *q_str_cut(char *buf, size_t n, const char *s) {
  size_t l = strnlen(s, n);
  memcpy(buf, s, l);
  buf[l] = '\0';
  return buf;
}
/* CAST from VARCHAR: text that is not a number gives 0 (there are no
 * NULLs yet) and is counted (cast_errors), as TO_TIMESTAMP's. */
static inline void q_cast_error(void) { q_count(AIR_STAT_CAST_ERRORS); }
static inline int64_t q_str_i64(const char *s) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno) {
    q_cast_error();
    return 0;
  }
  return (int64_t)v;
}
static inline double q_str_f64(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end) {
    q_cast_error();
    return 0.0;
  }
  return v;
}
static inline bool q_str_bool(const char *s) {
  if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0) return true;
  if (strcasecmp(s, "false") != 0 && strcmp(s, "0") != 0) q_cast_error();
  return false;
}
/* CAST of text: NULL of NULL, and NULL (counted) of text that is no value. */
/* CAST(s AS TIMESTAMP) and CAST(s AS DATE) through the field's parser */
static inline int64_t q_str_timen(const char *s, AirParse (*parse)(AirField, int64_t *)) {
  int64_t t;
  if (q_isnull_str(s)) return AIR_NULL_I64;
  if (parse((AirField){s, strlen(s)}, &t) == AIR_PARSE_OK) return t;
  q_cast_error();
  return AIR_NULL_I64;
}
/* CAST(s AS TIMESTAMP): ms since the epoch, or ISO-8601 text (air_parse_ts) */
static inline int64_t q_str_tsn(const char *s) { return q_str_timen(s, air_parse_ts); }
/* CAST(s AS DATE): 'yyyy-MM-dd' (air_parse_date), else NULL, counted */
static inline int64_t q_str_daten(const char *s) { return q_str_timen(s, air_parse_date); }
/* CAST(ts AS DATE): the midnight UTC of its day (a DATE is the ms of one) */
static inline int64_t q_ts_date(int64_t ts) { return air_tumble_start(ts, 86400000); }
/* CAST(d AS VARCHAR(n)): 'yyyy-MM-dd', cut to n bytes */
/* CAST(TIMESTAMP AS VARCHAR(n)): 'yyyy-MM-dd HH:mm:ss.SSS' in UTC, as
 * results write it (and Flink casts a TIMESTAMP(3)), cut to n bytes */
static inline const char *q_ts_str(char *buf, size_t n, int64_t t) {
  char tmp[AIR_PUT_TS_ISO_MAX + 1];
  *air_put_ts_iso(tmp, t, false) = '\0';
  return q_str_cut(buf, n, tmp);
}
static inline const char *q_date_str(char *buf, size_t n, int64_t d) {
  char tmp[AIR_PUT_DATE_MAX + 1];
  *air_put_date(tmp, d, false) = '\0';
  return q_str_cut(buf, n, tmp);
}
static inline int64_t q_str_i64n(const char *s) {
  if (q_isnull_str(s)) return AIR_NULL_I64;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno || v == AIR_NULL_I64) {
    q_cast_error();
    return AIR_NULL_I64;
  }
  return (int64_t)v;
}
static inline int32_t q_str_i32n(const char *s) {
  int64_t v = q_str_i64n(s);
  if (v == AIR_NULL_I64) return AIR_NULL_I32;
  if (v <= AIR_NULL_I32 || v > INT32_MAX) {
    q_cast_error();
    return AIR_NULL_I32;
  }
  return (int32_t)v;
}
static inline double q_str_f64n(const char *s) {
  if (q_isnull_str(s)) return air_null_f64();
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end) {
    q_cast_error();
    return air_null_f64();
  }
  return v;
}
static inline int8_t q_str_booln(const char *s) {
  if (q_isnull_str(s)) return AIR_NULL_BOOL;
  if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0) return 1;
  if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0) return 0;
  q_cast_error();
  return AIR_NULL_BOOL;
}
/* ---- scalar functions (docs/language.md "Functions") ----------------------
 * A string function writes into buf, a compound literal the generated code
 * sizes from the result's VARCHAR(n) (n + 1 bytes: every result fits), and
 * returns it. Bytes, not characters: UPPER and LOWER change ASCII letters,
 * positions count bytes. */
static inline const char *q_upper(char *buf, const char *s) {
  size_t i = 0;
  for (; s[i]; i++) buf[i] = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 'a' + 'A') : s[i];
  buf[i] = '\0';
  return buf;
}
static inline const char *q_lower(char *buf, const char *s) {
  size_t i = 0;
  for (; s[i]; i++) buf[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
  buf[i] = '\0';
  return buf;
}
/* TRIM: the spaces at both ends */
static inline const char *q_trim(char *buf, const char *s) {
  while (*s == ' ') s++;
  size_t n = strlen(s);
  while (n > 0 && s[n - 1] == ' ') n--;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return buf;
}
/* SUBSTRING(s, start[, len]): the bytes at positions [start, start + len)
 * that s has (1-based; a start below 1 still counts, as in PostgreSQL); a
 * negative len gives '' */
static inline const char *q_substr(char *buf, const char *s, int64_t start, int64_t len, bool has_len) {
  int64_t n = (int64_t)strlen(s), from = start, to = n + 1;
  if (has_len) to = len < 0 ? from : (start > INT64_MAX - len ? INT64_MAX : start + len);
  if (from < 1) from = 1;
  if (to > n + 1) to = n + 1;
  size_t k = to > from ? (size_t)(to - from) : 0;
  memcpy(buf, s + (k ? from - 1 : 0), k);
  buf[k] = '\0';
  return buf;
}
/* REPLACE(s, from, to): every occurrence of from, left to right, not
 * overlapping; an empty from changes nothing. cap bounds the result. */
static inline const char *q_replace(char *buf, size_t cap, const char *s, const char *from, const char *to) {
  size_t fl = strlen(from), tl = strlen(to), o = 0;
  while (*s && o < cap - 1) {
    if (fl && strncmp(s, from, fl) == 0) {
      size_t k = tl < cap - 1 - o ? tl : cap - 1 - o;
      memcpy(buf + o, to, k);
      o += k;
      s += fl;
    } else {
      buf[o++] = *s++;
    }
  }
  buf[o] = '\0';
  return buf;
}
static inline const char *q_concat(char *buf, const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  memmove(buf, a, la); /* a may be an earlier step's buffer, never buf itself */
  memcpy(buf + la, b, lb);
  buf[la + lb] = '\0';
  return buf;
}
/* SPLIT_INDEX(s, delim, i): the i-th piece (from 0) of s split at every
 * delim; NULL when there is none (a negative i, past the last, an empty
 * delim past piece 0, which is s), as Flink's */
static inline const char *q_split_index(char *buf, const char *s, const char *delim, int64_t idx) {
  size_t dl = strlen(delim);
  buf[0] = '\0';
  if (idx < 0) return AIR_NULL_STR;
  if (dl == 0) {
    if (idx != 0) return AIR_NULL_STR;
    strcpy(buf, s);
    return buf;
  }
  for (int64_t i = 0;; i++) {
    const char *e = strstr(s, delim);
    size_t k = e ? (size_t)(e - s) : strlen(s);
    if (i == idx) {
      memcpy(buf, s, k);
      buf[k] = '\0';
      return buf;
    }
    if (!e) return AIR_NULL_STR;
    s = e + dl;
  }
}
/* LOCATE(sub, s, from), POSITION(sub IN s): the 1-based byte place of the
 * first sub in s at or after place from (below 1: from 1), 0 when none;
 * an empty sub is at from (when from is within s, or just past it) */
static inline int32_t q_locate(const char *sub, const char *s, int64_t from) {
  int64_t n = (int64_t)strlen(s);
  if (from < 1) from = 1;
  if (from > n + 1) return 0;
  const char *hit = strstr(s + from - 1, sub);
  return hit ? (int32_t)(hit - s + 1) : 0;
}
/* s LIKE p: '%' any bytes, '_' one byte, every other byte itself (no
 * ESCAPE); greedy with one backtrack point, linear in practice */
static inline bool q_like(const char *s, const char *p) {
  const char *star = NULL, *mark = NULL;
  while (*s) {
    if (*p == '%') {
      star = ++p;
      mark = s;
    } else if (*p == '_' || *p == *s) {
      p++;
      s++;
    } else if (star) {
      p = star;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (*p == '%') p++;
  return *p == '\0';
}
/* field 0..5: year, month, day, hour, minute, second of ts (ms) */
static inline int64_t q_time_field(int64_t ts, int field) {
  int64_t days = air_floor_div(ts, 86400000);
  int64_t ms = ts - days * 86400000;
  if (field >= 3) return field == 3 ? ms / 3600000 : field == 4 ? ms / 60000 % 60 : ms / 1000 % 60;
  int64_t y, m, d;
  air_civil(days, &y, &m, &d);
  return field == 0 ? y : field == 1 ? m : d;
}
/* DATE_FORMAT(ts, fmt): yyyy, yy, MM, dd, HH, mm, ss and SSS replaced by
 * ts's fields (UTC, zero-padded), every other byte copied: the result is
 * exactly as long as fmt. */
static inline const char *q_date_format(char *buf, int64_t ts, const char *fmt) {
  static const struct { const char *pat; int field, width, mod; } pats[] = {
      {"yyyy", 0, 4, 10000}, {"SSS", 6, 3, 1000}, {"yy", 0, 2, 100}, {"MM", 1, 2, 100},
      {"dd", 2, 2, 100},     {"HH", 3, 2, 100},   {"mm", 4, 2, 100}, {"ss", 5, 2, 100}};
  char *o = buf;
  while (*fmt) {
    size_t k = 0;
    for (; k < sizeof pats / sizeof pats[0]; k++)
      if (strncmp(fmt, pats[k].pat, (size_t)pats[k].width) == 0) break;
    if (k == sizeof pats / sizeof pats[0]) {
      *o++ = *fmt++;
      continue;
    }
    int64_t v = pats[k].field == 6 ? ((ts % 1000) + 1000) % 1000 : q_time_field(ts, pats[k].field);
    v %= pats[k].mod;
    if (v < 0) v = -v;
    for (int i = pats[k].width - 1; i >= 0; i--, v /= 10) o[i] = (char)('0' + v % 10);
    o += pats[k].width;
    fmt += pats[k].width;
  }
  *o = '\0';
  return buf;
}
/* TO_TIMESTAMP(s): text as air_parse_time_text reads it; other text is
 * NULL, counted as a conversion error. */
static inline int64_t q_to_timestamp(const char *s) {
  int64_t t;
  if (air_parse_time_text(s, strlen(s), &t) == AIR_PARSE_OK) return t;
  q_cast_error();
  return AIR_NULL_I64;
}

/* REGEXP_LIKE and REGEXP_EXTRACT: POSIX extended expressions, compiled
 * once (the compiler checked the pattern with the same regcomp). */
static inline void q_regcomp(regex_t *re, const char *pattern) {
  int rc = regcomp(re, pattern, REG_EXTENDED);
  if (rc != 0) {
    char why[128];
    regerror(rc, re, why, sizeof why);
    fprintf(stderr, "airc: error: regular expression '%s': %s\n", pattern, why);
    exit(1);
  }
}
/* true when s holds a match anywhere (anchor with ^ and $ for all of s) */
static inline bool q_regexp_like(const regex_t *re, const char *s) { return regexec(re, s, 0, NULL, 0) == 0; }
/* the first match (group 0) or its group-th parenthesized part; NULL when
 * there is no match, or no such group, or the group took no part, as
 * Flink's */
static inline const char *q_regexp_extract(char *buf, const regex_t *re, const char *s, int64_t group) {
  regmatch_t m[10];
  buf[0] = '\0';
  if (group < 0 || group > 9 || (size_t)group > re->re_nsub) return AIR_NULL_STR;
  if (regexec(re, s, (size_t)group + 1, m, 0) != 0 || m[group].rm_so < 0) return AIR_NULL_STR;
  size_t k = (size_t)(m[group].rm_eo - m[group].rm_so);
  memcpy(buf, s + m[group].rm_so, k);
  buf[k] = '\0';
  return buf;
}

/* MOD of DOUBLEs: fmod, its sign the dividend's; by zero NaN, counted */
static inline double q_mod_f64(double a, double b) {
  if (b == 0.0) q_count(AIR_STAT_DIV_ZERO);
  return fmod(a, b);
}
/* ROUND(x, d): half away from zero at d decimal places (d < 0: tens,
 * hundreds, ...) */
static inline double q_round_f64(double x, int64_t d) {
  if (d == 0) return round(x);
  if (d > 308 || d < -308) return d > 0 ? x : 0.0 * x;
  double p = pow(10.0, (double)(d < 0 ? -d : d));
  if (d < 0) return round(x / p) * p;
  double y = x * p; /* from 2^52 up a double has no fraction: nothing to round */
  return isfinite(y) && fabs(y) < 4503599627370496.0 ? round(y) / p : x;
}
static inline int64_t q_round_i64(int64_t x, int64_t d) {
  if (d >= 0) return x;
  if (d < -18) return 0;
  int64_t p = 1;
  for (int64_t i = 0; i < -d; i++) p *= 10;
  int64_t r = x % p, q = x - r; /* toward zero */
  if (r >= 0 ? r * 2 >= p : -r * 2 >= p) /* away from zero, wrapping as integer arithmetic does */
    q = (int64_t)((uint64_t)q + (x >= 0 ? (uint64_t)p : (uint64_t)0 - (uint64_t)p));
  return q;
}

/* The first window of a row: rows of one chunk of a generator share their
 * ingestion time, so the division is done once per distinct time. */
typedef struct QWinCache {
  int64_t ts; /* the last event time seen */
  int64_t ws; /* its first window's start */
} QWinCache;
static inline int64_t q_hop_first(QWinCache *c, int64_t ts, int64_t size, int64_t adv) {
  if (ts != c->ts) {
    c->ts = ts;
    c->ws = air_hop_first_start(ts, size, adv);
  }
  return c->ws;
}
/* The last window end at or before wm (air_slide_window_cut), for the
 * watermark of the last row asked about: rows come in runs of one. */
typedef struct QCutCache {
  int64_t wm;  /* the watermark asked about last */
  int64_t cut; /* its window cut */
} QCutCache;
static inline int64_t q_slide_cut(QCutCache *c, int64_t wm, int64_t size, int64_t adv) {
  if (wm != c->wm) {
    c->wm = wm;
    c->cut = air_slide_window_cut(wm, size, adv);
  }
  return c->cut;
}
/* A watermark held back by hold ms (no watermark, a stop and the end stay). */
static inline int64_t q_wm_back(int64_t wm, int64_t hold) {
  return wm == AIR_WM_NONE || wm >= AIR_WM_STOP ? wm : wm - hold;
}
/* The largest of sequence(a, b)'s first n values, which end at AIR_TS_MAX:
 * the watermark of a generator cut by a stop after n rows. */
static inline int64_t q_seq_max(int64_t a, int64_t b, int64_t n) {
  if (n <= 0) return AIR_WM_NONE;
  if (b < 0 || a >= AIR_TS_MAX) return a < AIR_TS_MAX ? a : AIR_TS_MAX;
  if ((uint64_t)(n - 1) > (uint64_t)(AIR_TS_MAX - a) / (uint64_t)b) return AIR_TS_MAX;
  return a + (n - 1) * b;
}
/* A pipeline's row counters, added to the stats once per batch. */
static inline void q_count_rows(int64_t filtered, int64_t unmatched, int64_t late) {
  if (filtered) air_stat_add(g_rt, AIR_STAT_FILTERED, filtered);
  if (unmatched) air_stat_add(g_rt, AIR_STAT_UNMATCHED, unmatched);
  if (late) air_stat_add(g_rt, AIR_STAT_LATE, late);
}
static inline int q_cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }
/* DOUBLE comparison as SQL engines make it (PostgreSQL, Spark): NaN equals
 * NaN and is greater than every number; -0 equals 0. */
static inline int q_cmp_f64(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a == b) return 0;
  return (a != a) - (b != b); /* at least one NaN */
}
/* A total order refining q_cmp_f64, -0 before +0: MIN, MAX and the order of
 * result rows do not depend on the order rows arrive in. */
static inline int q_order_f64(double a, double b) {
  int r = q_cmp_f64(a, b);
  if (r != 0 || a != 0) return r;
  return (int)(signbit(b) != 0) - (int)(signbit(a) != 0);
}
/* ... where either may be NULL: NULL after every value, NaN too */
static inline int q_order_f64n(double a, double b) {
  bool na = q_isnull_f64(a), nb = q_isnull_f64(b);
  if (na || nb) return na == nb ? 0 : na ? 1 : -1;
  return q_order_f64(a, b);
}
static inline int q_order_f64nl(double a, double b) {
  int r = q_order_f64n(a, b);
  return q_isnull_f64(a) || q_isnull_f64(b) ? -r : r;
}
/* LEAST and GREATEST in the order of MIN and MAX (NaN above every number,
 * -0 below +0); of VARCHARs, in the byte order of comparisons (strcmp). */
static inline double q_min_f64(double a, double b) { return q_order_f64(b, a) < 0 ? b : a; }
static inline double q_max_f64(double a, double b) { return q_order_f64(b, a) > 0 ? b : a; }
static inline const char *q_min_str(const char *a, const char *b) { return strcmp(b, a) < 0 ? b : a; }
static inline const char *q_max_str(const char *a, const char *b) { return strcmp(b, a) > 0 ? b : a; }
/* x IN (a long list of constants): binary search in the sorted v[0..n-1]. */
static inline bool q_in_i64(int64_t x, const int64_t *v, size_t n) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (v[m] < x) lo = m + 1;
    else hi = m;
  }
  return lo < n && v[lo] == x;
}
static inline bool q_in_f64(double x, const double *v, size_t n) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (q_cmp_f64(v[m], x) < 0) lo = m + 1;
    else hi = m;
  }
  return lo < n && q_cmp_f64(v[lo], x) == 0;
}
static inline bool q_in_str(const char *x, const char *const *v, size_t n) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (strcmp(v[m], x) < 0) lo = m + 1;
    else hi = m;
  }
  return lo < n && strcmp(v[lo], x) == 0;
}
/* A Top-N of a window's rows (docs/design.md "Top-N"): its accumulator
 * holds the partition's first rows in cmp order, sorted, *cnt <= n of
 * them, each `size` bytes. A row goes in where it sorts, the last one out
 * when full; a partial's list merges row by row until its rows sort past a
 * full list's last. */
static inline void q_top_insert(void *top, uint32_t *cnt, uint32_t n, const void *row, size_t size,
                                int (*cmp)(const void *, const void *)) {
  char *a = (char *)top;
  uint32_t lo = 0, hi = *cnt;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (cmp(a + (size_t)mid * size, row) <= 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo >= n) return;
  uint32_t kept = *cnt < n ? *cnt : n - 1; /* rows before the insertion that stay */
  memmove(a + (size_t)(lo + 1) * size, a + (size_t)lo * size, (size_t)(kept - lo) * size);
  memcpy(a + (size_t)lo * size, row, size);
  if (*cnt < n) (*cnt)++;
}

static inline void q_top_merge(void *top, uint32_t *cnt, const void *other, uint32_t m, uint32_t n, size_t size,
                               int (*cmp)(const void *, const void *)) {
  const char *b = (const char *)other;
  for (uint32_t i = 0; i < m; i++) {
    if (*cnt == n && cmp(b + (size_t)i * size, (const char *)top + (size_t)(n - 1) * size) >= 0) break;
    q_top_insert(top, cnt, n, b + (size_t)i * size, size, cmp);
  }
}

/* A DOUBLE group or join key: -0 as 0 and every NaN as one NaN, so that
 * values equal under q_cmp_f64 are one key (hashed and compared as bytes). */
static inline double q_f64_key(double x) {
  if (x != x) return q_isnull_f64(x) ? x : NAN; /* NULL is a key of its own */
  return x == 0 ? 0.0 : x;
}

/* x IN (SELECT ... FROM table): the subquery's values, made once at the
 * start on every rank from the table it holds whole. A hash set of 8-byte
 * keys (integers, TIMESTAMP and BOOLEAN as int64_t; DOUBLEs as q_f64_key
 * makes them, so -0 = 0 and NaN = NaN as comparisons have it) or of
 * strings NUL-padded to klen bytes; `nulls`: a NULL was among the values,
 * which makes a miss NULL rather than false (SQL's three-valued IN). */
typedef struct QSubSet {
  AirHash *h;
  size_t klen; /* key bytes: 8, or a VARCHAR(n)'s n + 1 */
  bool nulls;
} QSubSet;
static inline void q_subset_init(QSubSet *s, size_t klen, size_t rows) {
  s->h = air_hash_new(klen, 0, rows);
  s->klen = klen;
  s->nulls = false;
}
static inline void q_subset_add(QSubSet *s, const void *k) {
  bool is_new;
  air_hash_upsert(s->h, k, air_hash_bytes(k, s->klen), &is_new);
}
static inline bool q_subset_has(const QSubSet *s, const void *k) {
  return air_hash_find(s->h, k, air_hash_bytes(k, s->klen)) != NULL;
}
static inline void q_subset_add_i64(QSubSet *s, int64_t x) { q_subset_add(s, &x); }
static inline bool q_subset_has_i64(const QSubSet *s, int64_t x) { return q_subset_has(s, &x); }
static inline void q_subset_add_f64(QSubSet *s, double x) {
  double k = q_f64_key(x);
  q_subset_add(s, &k);
}
static inline bool q_subset_has_f64(const QSubSet *s, double x) {
  double k = q_f64_key(x);
  return q_subset_has(s, &k);
}
/* a string is a key NUL-padded to klen bytes (into `add`, or looked up in
 * s); one longer than the set's strings is in none of them */
static inline bool q_subset_str(const QSubSet *s, const char *x, QSubSet *add) {
  size_t n = strlen(x);
  if (n >= s->klen) return false;
  char k[s->klen];
  memset(k, 0, s->klen);
  memcpy(k, x, n);
  if (add) q_subset_add(add, k);
  return add || q_subset_has(s, k);
}
static inline void q_subset_add_str(QSubSet *s, const char *x) { (void)q_subset_str(s, x, s); }
static inline bool q_subset_has_str(const QSubSet *s, const char *x) { return q_subset_str(s, x, NULL); }
/* three-valued: NULL when x was (found AIR_NULL_BOOL), true when found,
 * else NULL when the set holds a NULL, else false */
static inline int8_t q_subset3(const QSubSet *s, int found) {
  return found == AIR_NULL_BOOL ? AIR_NULL_BOOL : found ? 1 : s->nulls ? AIR_NULL_BOOL : 0;
}

#endif /* AIR_QUERY_H */
