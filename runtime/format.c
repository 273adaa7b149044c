/* format.c - CSV field parsers and the writers used by format callbacks.
 *
 * Parsers accept the whole field or nothing: a row with "12x" in an INT
 * column is a bad row, not 12. Writers produce what the parsers (and any
 * RFC 4180 reader) read back to the same value, so results round-trip.
 */
#include "air.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool air_parse_i64(AirField f, int64_t *out) {
  const char *p = f.p, *e = f.p + f.n;
  bool neg = false;
  if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
  if (p == e) return false;
  /* Accumulate the magnitude as unsigned: -9223372036854775808 fits there. */
  uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  uint64_t v = 0;
  for (; p < e; p++) {
    unsigned d = (unsigned)(*p - '0');
    if (d > 9) return false;
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

bool air_parse_i32(AirField f, int32_t *out) {
  int64_t v;
  if (!air_parse_i64(f, &v) || v < INT32_MIN || v > INT32_MAX) return false;
  *out = (int32_t)v;
  return true;
}

/* [+-]?(digits[.digits]|.digits)([eE][+-]?digits)? over [p, e): true when
 * the whole range matches; *nonzero tells whether a mantissa digit is not 0. */
static bool decimal_syntax(const char *p, const char *e, bool *nonzero) {
  size_t before = 0, after = 0;
  *nonzero = false;
  if (p < e && (*p == '+' || *p == '-')) p++;
  for (; p < e && *p >= '0' && *p <= '9'; p++, before++) *nonzero |= *p != '0';
  if (p < e && *p == '.') {
    for (p++; p < e && *p >= '0' && *p <= '9'; p++, after++) *nonzero |= *p != '0';
    if (after == 0) return false; /* "1." and "." */
  }
  if (before + after == 0) return false;
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < e && (*p == '+' || *p == '-')) p++;
    size_t exp = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++) exp++;
    if (exp == 0) return false;
  }
  return p == e;
}

static bool field_is(AirField f, const char *word) {
  size_t n = strlen(word);
  return f.n == n && strncasecmp(f.p, word, n) == 0;
}

/* Decimal numbers and the words air_write_double writes, nothing else:
 * strtod alone also takes hex ("0x1p4" is 16), leading spaces, and turns
 * 1e400 and 1e-400 into inf and 0 without a word. */
AirParse air_parse_double(AirField f, double *out) {
  AirField w = f;
  bool neg = false;
  if (w.n > 0 && (w.p[0] == '+' || w.p[0] == '-')) {
    neg = w.p[0] == '-';
    w.p++, w.n--;
  }
  if (field_is(w, "inf") || field_is(w, "infinity")) {
    *out = neg ? -INFINITY : INFINITY;
    return AIR_PARSE_OK;
  }
  if (field_is(f, "nan")) {
    *out = NAN;
    return AIR_PARSE_OK;
  }
  bool nonzero;
  if (!decimal_syntax(f.p, f.p + f.n, &nonzero)) return AIR_PARSE_INVALID;
  /* strtod needs a NUL; numbers longer than the stack copy are rare enough
   * to malloc. */
  char small[128];
  char *s = f.n < sizeof small ? small : malloc(f.n + 1);
  if (!s) return AIR_PARSE_INVALID;
  memcpy(s, f.p, f.n);
  s[f.n] = '\0';
  double v = strtod(s, NULL);
  if (s != small) free(s);
  /* Subnormals are in range; overflow to infinity or underflow to zero not. */
  if (isinf(v) || (v == 0 && nonzero)) return AIR_PARSE_RANGE;
  *out = v;
  return AIR_PARSE_OK;
}

/* n digits at *p (not past e) into *v, *p past them; false when fewer */
static bool digits(const char **p, const char *e, int n, int64_t *v) {
  *v = 0;
  for (int k = 0; k < n; k++, (*p)++) {
    if (*p >= e || **p < '0' || **p > '9') return false;
    *v = *v * 10 + (**p - '0');
  }
  return true;
}
static bool byte(const char **p, const char *e, char c) {
  if (*p >= e || **p != c) return false;
  (*p)++;
  return true;
}
AirParse air_parse_time_text(const char *s, size_t n, int64_t *out) {
  const char *p = s, *e = s + n;
  int64_t y, mo, d, h = 0, mi = 0, se = 0, ms = 0, off = 0;
  if (!digits(&p, e, 4, &y) || !byte(&p, e, '-') || !digits(&p, e, 2, &mo) || !byte(&p, e, '-') ||
      !digits(&p, e, 2, &d))
    return AIR_PARSE_INVALID;
  if (p < e && (*p == 'T' || *p == ' ')) {
    p++;
    if (!digits(&p, e, 2, &h) || !byte(&p, e, ':') || !digits(&p, e, 2, &mi) || !byte(&p, e, ':') ||
        !digits(&p, e, 2, &se))
      return AIR_PARSE_INVALID;
    if (byte(&p, e, '.')) {
      int k = 0;
      for (; p < e && *p >= '0' && *p <= '9'; p++, k++)
        if (k < 3) ms = ms * 10 + (*p - '0');
      if (k == 0) return AIR_PARSE_INVALID;
      for (; k < 3; k++) ms *= 10;
    }
    if (p < e && (*p == '+' || *p == '-')) {
      int64_t sign = *p++ == '-' ? -1 : 1, oh, om;
      if (!digits(&p, e, 2, &oh) || !byte(&p, e, ':') || !digits(&p, e, 2, &om) || oh > 23 || om > 59)
        return AIR_PARSE_INVALID;
      off = sign * (oh * 60 + om) * 60000;
    } else {
      byte(&p, e, 'Z');
    }
  }
  if (p != e || !air_date_exists(y, mo, d) || h > 23 || mi > 59 || se > 59)
    return AIR_PARSE_INVALID; /* 2026-02-30 is no date */
  int64_t t = (air_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) * 1000 + ms - off;
  if (t < AIR_TS_MIN || t > AIR_TS_MAX) return AIR_PARSE_RANGE; /* years 1 to 9999, the offset applied */
  *out = t;
  return AIR_PARSE_OK;
}

char *air_put_ts_iso(char *p, int64_t ts, bool quote) {
  int64_t days = air_floor_div(ts, 86400000), ms = ts - days * 86400000, y, m, d;
  air_civil(days, &y, &m, &d);
  int n = sprintf(p, "%s%04d-%02d-%02d %02d:%02d:%02d.%03d%s", quote ? "\"" : "", (int)y, (int)m, (int)d,
                  (int)(ms / 3600000), (int)(ms / 60000 % 60), (int)(ms / 1000 % 60), (int)(ms % 1000),
                  quote ? "\"" : "");
  return p + n;
}

AirParse air_parse_date(AirField f, int64_t *out) {
  if (f.n != 10) return AIR_PARSE_INVALID; /* the date alone: no time, no epoch number */
  return air_parse_time_text(f.p, f.n, out);
}

char *air_put_date(char *p, int64_t day_ms, bool quote) {
  int64_t days = air_floor_div(day_ms, 86400000), y, m, d;
  air_civil(days, &y, &m, &d);
  int n = sprintf(p, "%s%04d-%02d-%02d%s", quote ? "\"" : "", (int)y, (int)m, (int)d, quote ? "\"" : "");
  return p + n;
}

AirParse air_parse_ts(AirField f, int64_t *out) {
  int64_t v;
  if (!air_parse_i64(f, &v)) return air_parse_time_text(f.p, f.n, out); /* ISO-8601 text */
  if (v < AIR_TS_MIN || v > AIR_TS_MAX) return AIR_PARSE_RANGE;
  *out = v;
  return AIR_PARSE_OK;
}

bool air_parse_bool(AirField f, bool *out) {
  if (field_is(f, "true") || field_is(f, "1")) *out = true;
  else if (field_is(f, "false") || field_is(f, "0")) *out = false;
  else return false;
  return true;
}

AirParse air_parse_str(AirField f, char *dst, size_t maxlen) {
  /* A NUL would end the string early: the row would not be what the file says. */
  if (memchr(f.p, '\0', f.n)) return AIR_PARSE_NUL;
  if (f.n > maxlen) return AIR_PARSE_RANGE;
  memcpy(dst, f.p, f.n);
  memset(dst + f.n, 0, maxlen + 1 - f.n);
  return AIR_PARSE_OK;
}

/* The writers put their text at p (room for AIR_PUT_*_MAX bytes, or the
 * string bound of air_put_str and air_put_json_str) and return the byte
 * after it: the collector formats whole windows into one buffer and writes
 * it with one fwrite (formatting through stdio's per-call locks and
 * bookkeeping was most of rank 0's output time). */

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

char *air_put_u64(char *p, uint64_t u) {
  char buf[20], *q = buf + sizeof buf;
  while (u >= 100) {
    unsigned d = (unsigned)(u % 100) * 2;
    u /= 100;
    *--q = digit_pairs[d + 1];
    *--q = digit_pairs[d];
  }
  if (u >= 10) {
    unsigned d = (unsigned)u * 2;
    *--q = digit_pairs[d + 1];
    *--q = digit_pairs[d];
  } else {
    *--q = (char)('0' + u);
  }
  size_t n = (size_t)(buf + sizeof buf - q);
  memcpy(p, q, n);
  return p + n;
}

char *air_put_i64(char *p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return air_put_u64(p, 0 - (uint64_t)v);
  }
  return air_put_u64(p, (uint64_t)v);
}

char *air_put_double(char *p, double v) {
  if (isnan(v)) {
    memcpy(p, "nan", 3);
    return p + 3;
  }
  if (isinf(v)) {
    memcpy(p, v < 0 ? "-inf" : "inf", v < 0 ? 4 : 3);
    return p + (v < 0 ? 4 : 3);
  }
  /* An integral value below 10^15 in magnitude: %.15g writes its digits
   * (from 10^15 on, an exponent), and they read back exactly. */
  if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v)))
    return air_put_i64(p, (int64_t)v);
  /* The fewest significant digits that read back exactly; 17 always do. */
  char buf[AIR_PUT_DOUBLE_MAX + 8];
  int n = 0;
  for (int prec = 15; prec <= 17; prec++) {
    n = snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (prec == 17 || strtod(buf, NULL) == v) break;
  }
  memcpy(p, buf, (size_t)n);
  return p + n;
}

char *air_put_str(char *p, const char *s) {
  size_t n = strlen(s);
  bool quote = n == 0 || s[0] == ' ' || s[n - 1] == ' '; /* "": the empty string, not NULL */
  if (!quote && strpbrk(s, ",\"\r\n")) quote = true;
  if (!quote) {
    memcpy(p, s, n);
    return p + n;
  }
  *p++ = '"';
  for (; *s; s++) {
    if (*s == '"') *p++ = '"';
    *p++ = *s;
  }
  *p++ = '"';
  return p;
}

char *air_put_bool(char *p, bool v) {
  memcpy(p, v ? "true" : "false", v ? 4 : 5);
  return p + (v ? 4 : 5);
}

char *air_put_json_str(char *p, const char *s) {
  static const char hex[] = "0123456789abcdef";
  *p++ = '"';
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    switch (*c) {
    case '"': *p++ = '\\'; *p++ = '"'; break;
    case '\\': *p++ = '\\'; *p++ = '\\'; break;
    case '\b': *p++ = '\\'; *p++ = 'b'; break;
    case '\f': *p++ = '\\'; *p++ = 'f'; break;
    case '\n': *p++ = '\\'; *p++ = 'n'; break;
    case '\r': *p++ = '\\'; *p++ = 'r'; break;
    case '\t': *p++ = '\\'; *p++ = 't'; break;
    default:
      if (*c < 0x20) {
        memcpy(p, "\\u00", 4);
        p[4] = hex[*c >> 4];
        p[5] = hex[*c & 15];
        p += 6;
      } else {
        *p++ = (char)*c;
      }
    }
  }
  *p++ = '"';
  return p;
}

char *air_put_json_double(char *p, double v) {
  if (isnan(v) || isinf(v)) { /* JSON has no NaN or infinity */
    memcpy(p, "null", 4);
    return p + 4;
  }
  return air_put_double(p, v);
}

void air_write_i64(FILE *f, int64_t v) {
  char buf[AIR_PUT_I64_MAX];
  fwrite(buf, 1, (size_t)(air_put_i64(buf, v) - buf), f);
}

void air_write_double(FILE *f, double v) {
  char buf[AIR_PUT_DOUBLE_MAX];
  fwrite(buf, 1, (size_t)(air_put_double(buf, v) - buf), f);
}

void air_write_str(FILE *f, const char *s) {
  size_t n = strlen(s);
  char small[256], *buf = 2 * n + 2 <= sizeof small ? small : malloc(2 * n + 2);
  if (!buf) {
    fputs(s, f); /* out of memory: unquoted rather than lost */
    return;
  }
  fwrite(buf, 1, (size_t)(air_put_str(buf, s) - buf), f);
  if (buf != small) free(buf);
}

void air_write_bool(FILE *f, bool v) { fputs(v ? "true" : "false", f); }

void air_write_json_str(FILE *f, const char *s) {
  size_t n = strlen(s);
  char small[256], *buf = 6 * n + 2 <= sizeof small ? small : malloc(6 * n + 2);
  if (!buf) {
    fputs(s, f);
    return;
  }
  fwrite(buf, 1, (size_t)(air_put_json_str(buf, s) - buf), f);
  if (buf != small) free(buf);
}

void air_write_json_double(FILE *f, double v) {
  char buf[AIR_PUT_DOUBLE_MAX];
  fwrite(buf, 1, (size_t)(air_put_json_double(buf, v) - buf), f);
}
