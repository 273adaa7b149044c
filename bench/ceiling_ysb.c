/* ceiling_ysb.c - a hand-fused, single-thread YSB for the benchmark harness.
 *
 * What one core of this machine does on YSB when nobody stands in the way:
 * the rows of airc's ysb generator (air_gen_row / air_gen_col /
 * air_ysb_fill, so the events are the very same strings), filtered on
 * event_type = 'view', joined ad_id -> campaign through a hash table built at
 * load, and counted per campaign in 10-second tumbling windows of ingestion
 * time, in one loop with one clock read per 1024 rows. No threads, no
 * queues, no MPI. The harness reports every airc figure as a ratio to this.
 *
 *   ceiling_ysb [--duration S] [--seed N] [--limit N] [--full|--eager] [--star] [--dump]
 *
 * --full  materializes all seven fields of the 136-byte logical event before
 *         filtering (the default makes only what the query reads, lazily:
 *         event_type first, ad_id only for the rows that pass).
 * --eager makes the columns the query reads (ad_id, event_type) for every
 *         row before filtering, as airc's fused loop does: the gap between
 *         this and the default is the price of eager column generation.
 * --star  YSB*: clicks and views per campaign and window, then the
 *         click-through rate clicks / views at each window's end.
 * --limit rows 0..N-1 then stop (with --dump: total count per campaign over
 *         all windows, one "campaign_uuid,count" line each, for checking
 *         against airc's output on the same seed and limit).
 * Prints one JSON line on stdout: events, secs, events_per_s, cpu_s, windows,
 * checksum.
 */
#include "air.h"
#include "ceiling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define BATCH 1024                       /* rows per clock read */
#define WINDOW_MS 10000                  /* tumbling window size */
#define TAB_SIZE 4096                    /* join table slots, power of two */
#define UUID_LEN 36

typedef struct AdSlot {
  char ad[UUID_LEN + 1]; /* the ad's uuid; "" = empty slot */
  int campaign;          /* 0..AIR_YSB_CAMPAIGNS-1 */
} AdSlot;

/* The full logical event (36+36+36+16+9+15 characters and an 8-byte ts:
 * the paper's 136-byte event, rounded up by the NULs). */
typedef struct Event {
  char user_id[37];
  char page_id[37];
  char ad_id[37];
  char ad_type[17];
  char event_type[10];
  char ip[16];
  int64_t ts;
} Event;

static AdSlot g_tab[TAB_SIZE];

/* The first 16 characters of a random uuid are 14 random hex digits: plenty
 * to spread 1000 keys; equality is still checked on all 36. */
static inline uint64_t ad_hash(const char *ad) {
  uint64_t a, b;
  memcpy(&a, ad, 8);
  memcpy(&b, ad + 8, 8);
  return air_mix64(a ^ (b * 0x9E3779B97F4A7C15ULL));
}

static void tab_load(void) {
  for (int k = 0; k < AIR_YSB_ADS; k++) {
    char ad[37];
    air_ysb_ad_uuid(k, ad);
    size_t j = ad_hash(ad) & (TAB_SIZE - 1);
    while (g_tab[j].ad[0])
      j = (j + 1) & (TAB_SIZE - 1);
    memcpy(g_tab[j].ad, ad, sizeof ad);
    g_tab[j].campaign = k / (AIR_YSB_ADS / AIR_YSB_CAMPAIGNS);
  }
}

static inline int tab_find(const char *ad) {
  size_t j = ad_hash(ad) & (TAB_SIZE - 1);
  while (g_tab[j].ad[0]) {
    if (memcmp(g_tab[j].ad, ad, UUID_LEN + 1) == 0)
      return g_tab[j].campaign;
    j = (j + 1) & (TAB_SIZE - 1);
  }
  return -1;
}

typedef struct Counts {
  int64_t views[AIR_YSB_CAMPAIGNS];  /* this window */
  int64_t clicks[AIR_YSB_CAMPAIGNS]; /* this window (--star) */
  int64_t total[AIR_YSB_CAMPAIGNS];  /* every window (--dump) */
  int64_t windows;                   /* result rows emitted */
  double checksum;                   /* keeps the results observable */
} Counts;

/* A window ends: its results are "emitted" into the checksum, as a sink
 * that costs next to nothing. */
static void close_window(Counts *c, int64_t wstart, int star) {
  for (int k = 0; k < AIR_YSB_CAMPAIGNS; k++) {
    if (star) {
      if (c->views[k] && c->clicks[k]) {
        c->checksum += (double)c->clicks[k] / (double)c->views[k];
        c->windows++;
      }
    } else if (c->views[k]) {
      c->checksum += (double)c->views[k] + (double)(wstart % 7);
      c->windows++;
    }
    c->total[k] += star ? c->clicks[k] : c->views[k];
  }
  memset(c->views, 0, sizeof c->views);
  memset(c->clicks, 0, sizeof c->clicks);
}

static void usage(void) {
  fprintf(stderr, "usage: ceiling_ysb [--duration S] [--seed N] [--limit N] "
                  "[--full|--eager] [--star] [--dump]\n");
  exit(2);
}

int main(int argc, char **argv) {
  double duration = 10;
  int64_t seed = 42;
  uint64_t limit = 0;
  int full = 0, eager = 0, star = 0, dump = 0;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--duration") && a + 1 < argc)
      duration = atof(argv[++a]);
    else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
      seed = strtoll(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "--limit") && a + 1 < argc)
      limit = strtoull(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "--full"))
      full = 1;
    else if (!strcmp(argv[a], "--eager"))
      eager = 1;
    else if (!strcmp(argv[a], "--star"))
      star = 1;
    else if (!strcmp(argv[a], "--dump"))
      dump = 1;
    else
      usage();
  }

  tab_load();
  static Counts c;
  uint64_t i = 0;
  int64_t wstart = INT64_MIN;
  double t0 = mono_s(), t1 = t0;
  for (;;) {
    int64_t ts = air_now_ms();
    t1 = mono_s();
    if (limit == 0 && t1 - t0 >= duration)
      break;
    uint64_t n = BATCH;
    if (limit && limit - i < n)
      n = limit - i;
    if (n == 0)
      break;
    int64_t ws = air_tumble_start(ts, WINDOW_MS);
    if (ws != wstart) {
      if (wstart != INT64_MIN)
        close_window(&c, wstart, star);
      wstart = ws;
    }
    for (uint64_t end = i + n; i < end; i++) {
      const uint64_t h = air_gen_row(seed, i);
      Event e;
      if (full) {
        air_ysb_fill(AIR_YSB_USER_ID, air_gen_col(h, AIR_YSB_USER_ID), e.user_id, sizeof e.user_id);
        air_ysb_fill(AIR_YSB_PAGE_ID, air_gen_col(h, AIR_YSB_PAGE_ID), e.page_id, sizeof e.page_id);
        air_ysb_fill(AIR_YSB_AD_ID, air_gen_col(h, AIR_YSB_AD_ID), e.ad_id, sizeof e.ad_id);
        air_ysb_fill(AIR_YSB_AD_TYPE, air_gen_col(h, AIR_YSB_AD_TYPE), e.ad_type, sizeof e.ad_type);
        air_ysb_fill(AIR_YSB_EVENT_TYPE, air_gen_col(h, AIR_YSB_EVENT_TYPE), e.event_type,
                     sizeof e.event_type);
        air_ysb_fill(AIR_YSB_IP, air_gen_col(h, AIR_YSB_IP), e.ip, sizeof e.ip);
        e.ts = ts;
        /* An opaque use, so the unread fields are really made. */
        __asm__ volatile("" : : "r"(&e) : "memory");
      } else {
        if (eager)
          air_ysb_fill(AIR_YSB_AD_ID, air_gen_col(h, AIR_YSB_AD_ID), e.ad_id, sizeof e.ad_id);
        air_ysb_fill(AIR_YSB_EVENT_TYPE, air_gen_col(h, AIR_YSB_EVENT_TYPE), e.event_type,
                     sizeof e.event_type);
      }
      int is_view = memcmp(e.event_type, "view", 5) == 0;
      int is_click = star && memcmp(e.event_type, "click", 6) == 0;
      if (!is_view && !is_click)
        continue;
      if (!full && !eager)
        air_ysb_fill(AIR_YSB_AD_ID, air_gen_col(h, AIR_YSB_AD_ID), e.ad_id, sizeof e.ad_id);
      int k = tab_find(e.ad_id);
      if (k < 0)
        continue;
      if (is_view)
        c.views[k]++;
      else
        c.clicks[k]++;
    }
  }
  t1 = mono_s();
  if (wstart != INT64_MIN)
    close_window(&c, wstart, star);

  double secs = t1 - t0;
  if (dump) {
    for (int k = 0; k < AIR_YSB_CAMPAIGNS; k++) {
      char uuid[37];
      air_ysb_campaign_uuid(k, uuid);
      printf("%s,%lld\n", uuid, (long long)c.total[k]);
    }
    return 0;
  }
  printf("{\"program\":\"ceiling_ysb\",\"mode\":\"%s%s\",\"events\":%llu,\"secs\":%.3f,"
         "\"events_per_s\":%.1f,\"cpu_s\":%.3f,\"windows\":%lld,\"checksum\":%.1f}\n",
         star ? "star" : "ysb", full ? "-full" : eager ? "-eager" : "", (unsigned long long)i, secs,
         secs > 0 ? (double)i / secs : 0.0, cpu_s(), (long long)c.windows, c.checksum);
  return 0;
}
