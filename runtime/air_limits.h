/* air_limits.h - the constants the airc compiler and the libair runtime
 * share: the TIMESTAMP range, the edge limit, the YSB generator's fields.
 * air.h includes it; airc includes it alone (it holds no runtime API), so
 * the compiler's checks and the runtime's behaviour cannot drift apart. */
#ifndef AIR_LIMITS_H
#define AIR_LIMITS_H

#include <stdint.h>

/* Event times are SQL TIMESTAMPs, ms since the epoch in years 1 to 9999
 * (0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, UTC): window
 * arithmetic on them, their windows and watermark bounds (at most the
 * range, checked by airc) never overflows int64. */
#define AIR_TS_MIN INT64_C(-62135596800000)
#define AIR_TS_MAX INT64_C(253402300799999)

/* The slice length of a HOPPING window of size ms every adv ms whose
 * windows share slices (slide.c; airc decides, the runtime cuts): every
 * window boundary is a multiple of it. */
static inline int64_t air_slice_len(int64_t size_ms, int64_t adv_ms) {
  while (adv_ms) {
    int64_t t = size_ms % adv_ms;
    size_ms = adv_ms;
    adv_ms = t;
  }
  return size_ms;
}

#define AIR_MAX_EDGES 64 /* edge ids are 0..AIR_MAX_EDGES-1 (MPI tags) */

/* The ysb generator's fields, in the order of its schema (air.h says how
 * each is made). */
enum {
  AIR_YSB_USER_ID, AIR_YSB_PAGE_ID, AIR_YSB_AD_ID, AIR_YSB_AD_TYPE,
  AIR_YSB_EVENT_TYPE, AIR_YSB_IP, AIR_YSB_TS,
};
#define AIR_YSB_ADS 1000      /* ads, ad k of campaign k / 10 */
#define AIR_YSB_CAMPAIGNS 100 /* campaigns */

#endif /* AIR_LIMITS_H */
