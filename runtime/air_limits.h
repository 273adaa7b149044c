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

/* Dates of the proleptic Gregorian calendar (TIMESTAMP text, DATE values
 * and literals; a DATE is the ms of its midnight UTC). */
#define AIR_DAY_MS INT64_C(86400000)
/* Days since 1970-01-01 of y-m-d, by 400-year eras of 146097 days. */
static inline int64_t air_days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}
/* Whether y-m-d is a date of years 1 to 9999 (2026-02-30 is none). */
static inline int air_date_exists(int64_t y, int64_t m, int64_t d) {
  static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= mdays[m - 1] && !(m == 2 && d == 29 && !leap);
}

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

/* What a source, table or sink option holds, for overrides at run time
 * (--set rel.key=value, AIRC_SET_rel__key): airc writes each relation's
 * options into the program with their type (kinds.c's option_keys), the
 * runtime parses the compiled text and the overrides alike (options.c,
 * with air_optparse.h, whose checks and messages sema_ddl.c uses too). */
typedef enum AirOptType {
  AIR_OPT_NA,       /* not an option of this relation's kind: refused with its message */
  AIR_OPT_FIXED,    /* part of the compiled plan (source, sink, format): refused */
  AIR_OPT_PATH,     /* a file name, not empty */
  AIR_OPT_NAME,     /* a string, not empty (a consumer group) */
  AIR_OPT_TEXT,     /* any string, empty too (a redis sink's key prefix) */
  AIR_OPT_BOOL,     /* true or false (also 1, 0) */
  AIR_OPT_HEADER,   /* true, false or skip */
  AIR_OPT_COUNT,    /* an integer >= 0 (rate, limit) */
  AIR_OPT_INT,      /* an integer (seed) */
  AIR_OPT_DURATION, /* '5 s', '500 ms', '2 min': ms */
  AIR_OPT_TIMEOUT,  /* a duration of at least 1 ms */
  AIR_OPT_HOSTPORT, /* host:port */
  AIR_OPT_BROKERS,  /* host:port,host:port */
  AIR_OPT_TOPICS,   /* a topic or several: a,b */
  AIR_OPT_TOPIC,    /* one topic (a sink's) */
  AIR_OPT_START,    /* earliest, latest, [topic:]partition:offset,... */
  AIR_OPT_END,      /* latest or none */
  AIR_OPT_BAD_ROWS, /* a count or 'P%' */
  AIR_OPT_PROPS,    /* kafka.<property> = value, passed through */
} AirOptType;

/* One option of one relation, as airc writes it into the program. */
typedef struct AirOptDef {
  const char *rel;  /* the relation's name */
  const char *key;  /* the option ("kafka.*" for AIR_OPT_PROPS) */
  AirOptType type;
  const char *text; /* its value as compiled (the default when not given), or NULL: none */
  const char *why;  /* AIR_OPT_NA, AIR_OPT_FIXED: the message refusing it */
  int role;         /* what the relation is: 0 a stream, 1 a sink, 2 a table */
} AirOptDef;

#endif /* AIR_LIMITS_H */
