/* xsum.c - exact sums of doubles (the adding half is inline in air.h).
 *
 * The sum is an integer N in units of 2^-1074 held in two's complement; its
 * value is rounded to a double only when read, once, to nearest with ties
 * to even, as IEEE rounds a single operation. So the result is the
 * correctly rounded exact sum, whatever the order of the additions.
 */
#include "air.h"

#include <math.h>

void air_xsum_merge(AirXsum *dst, const AirXsum *src) {
  uint64_t c = 0;
  for (int k = 0; k < AIR_XSUM_LIMBS; k++) {
    uint64_t a = dst->limb[k], t = a + src->limb[k];
    uint64_t c1 = t < a;
    t += c;
    c = c1 | (t < c);
    dst->limb[k] = t;
  }
  dst->special |= src->special;
}

/* Bit k of the magnitude n. */
static int bit_at(const uint64_t *n, int k) { return (int)((n[k / 64] >> (k % 64)) & 1); }

/* Any bit of n below bit k? */
static bool any_below(const uint64_t *n, int k) {
  for (int i = 0; i < k / 64; i++)
    if (n[i])
      return true;
  return k % 64 && (n[k / 64] & ((UINT64_C(1) << (k % 64)) - 1));
}

/* The 53 bits n[from .. from + 52] as an integer. */
static uint64_t bits53(const uint64_t *n, int from) {
  int i = from / 64, off = from % 64;
  uint64_t v = n[i] >> off;
  if (off && i + 1 < AIR_XSUM_LIMBS)
    v |= n[i + 1] << (64 - off);
  return v & ((UINT64_C(1) << 53) - 1);
}

double air_xsum_value(const AirXsum *s) {
  if (s->special & AIR_XSUM_NAN || (s->special & AIR_XSUM_PINF && s->special & AIR_XSUM_NINF))
    return NAN;
  if (s->special & AIR_XSUM_PINF)
    return INFINITY;
  if (s->special & AIR_XSUM_NINF)
    return -INFINITY;
  uint64_t n[AIR_XSUM_LIMBS];
  bool neg = s->limb[AIR_XSUM_LIMBS - 1] >> 63;
  uint64_t c = 1;
  for (int k = 0; k < AIR_XSUM_LIMBS; k++) { /* the magnitude */
    n[k] = neg ? ~s->limb[k] + c : s->limb[k];
    if (neg)
      c = c && n[k] == 0;
  }
  int top = AIR_XSUM_LIMBS - 1;
  while (top >= 0 && n[top] == 0)
    top--;
  if (top < 0)
    return 0.0;
  int p = top * 64 + 63 - __builtin_clzll(n[top]); /* the highest bit set */
  double v;
  if (p < 53) {
    v = ldexp((double)n[0], -1074); /* below 2^53 units: exact */
  } else {
    int from = p - 52;
    uint64_t m = bits53(n, from);
    int half = bit_at(n, from - 1);
    if (half && (any_below(n, from - 1) || (m & 1)))
      m++; /* 2^53 after a carry is still exact as a double */
    v = ldexp((double)m, from - 1074);
  }
  return neg ? -v : v;
}

void air_var_add(AirXsum *s, AirXsum *q, double x) {
  air_xsum_add(s, x);
  double p = x * x;
  air_xsum_add(q, p);
  if (isfinite(p)) air_xsum_add(q, fma(x, x, -p)); /* x * x - p, exactly */
}

/* The exact sum s as hi + lo: hi rounded, lo the rest rounded. */
static void double_double(const AirXsum *s, double *hi, double *lo) {
  *hi = air_xsum_value(s);
  *lo = 0.0;
  if (!isfinite(*hi)) return;
  AirXsum t = *s;
  air_xsum_add(&t, -*hi);
  *lo = air_xsum_value(&t);
}

double air_var_value(const AirXsum *s, const AirXsum *q, int64_t n, bool samp, bool root) {
  double h1, l1, h2, l2, dn = (double)n;
  double_double(s, &h1, &l1);
  double_double(q, &h2, &l2);
  if (!isfinite(h1) || !isfinite(h2)) return NAN; /* an infinity or NaN among the values */
  double p = h1 * h1, e = fma(h1, h1, -p) + 2.0 * h1 * l1; /* S1^2 ~ p + e */
  double qh = p / dn, ql = (fma(-qh, dn, p) + e) / dn;     /* S1^2 / n ~ qh + ql */
  AirXsum m;
  memset(&m, 0, sizeof m);
  air_xsum_add(&m, h2);
  air_xsum_add(&m, l2);
  air_xsum_add(&m, -qh);
  air_xsum_add(&m, -ql);
  double m2 = air_xsum_value(&m); /* the sum of squared deviations */
  if (m2 < 0) m2 = 0;
  double v = m2 / (samp ? dn - 1 : dn);
  return root ? sqrt(v) : v;
}
