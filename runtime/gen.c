/* gen.c - deterministic row generators: values, UUIDs, YSB, and pacing.
 *
 * Row i is a pure function of (seed, i) (formulas in air.h), so a generator
 * instance only decides *which* indices it makes and *when*: indices are
 * dealt round-robin over every instance of every rank, and each instance is
 * paced on its own at rate / (world * threads) events/s (pace.c). Nothing is shared
 * between instances, so generators scale with threads and ranks and the
 * stream is the same for any rate, world size or thread count.
 */
#include "air_int.h"
#include "data_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- values ------------------------------------------------------------ */

static const char HEX[] = "0123456789abcdef";

void air_gen_uuid(uint64_t r, char out[37]) {
  unsigned char b[16];
  uint64_t lo = air_mix64(r);
  for (int k = 0; k < 8; k++) {
    b[k] = (unsigned char)(r >> (56 - 8 * k));
    b[8 + k] = (unsigned char)(lo >> (56 - 8 * k));
  }
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  char *o = out;
  for (int k = 0; k < 16; k++) {
    if (k == 4 || k == 6 || k == 8 || k == 10) *o++ = '-';
    *o++ = HEX[b[k] >> 4];
    *o++ = HEX[b[k] & 15];
  }
  *o = '\0';
}

void air_ysb_ad_uuid(int ad, char out[37]) {
  air_gen_uuid(air_mix64(0xADADADAD00000000ULL + (uint64_t)ad), out);
}

void air_ysb_campaign_uuid(int campaign, char out[37]) {
  air_gen_uuid(air_mix64(0xCAC0CAC000000000ULL + (uint64_t)campaign), out);
}

static const char *const YSB_AD_TYPES[] = {"banner", "modal",
                                           "sponsored-search", "mail",
                                           "mobile"};
static const char *const YSB_EVENT_TYPES[] = {"view", "click", "purchase"};

/* Copies s into out, NUL-padded to cap (truncated if cap is too small, which
 * the compiler prevents by sizing the columns). */
static void fill_padded(char *out, size_t cap, const char *s, size_t n) {
  if (cap == 0) return;
  if (n > cap - 1) n = cap - 1;
  memcpy(out, s, n);
  memset(out + n, 0, cap - n);
}

/* YSB strings NUL-padded to AIR_YSB_PAD bytes, so that filling a column of
 * at most that many bytes is one fixed-size copy (air_ysb_fill in air.h).
 * The 1000 ad ids are formatted once, at program start: making one per
 * event was a third of the YSB generator's time (perf). */
char air_ysb_ad_ids_padded[AIR_YSB_ADS][AIR_YSB_PAD];
const char air_ysb_event_types_padded[3][AIR_YSB_PAD] = {"view", "click", "purchase"};
const char air_ysb_ad_types_padded[5][AIR_YSB_PAD] = {"banner", "modal", "sponsored-search", "mail",
                                                      "mobile"};

uint64_t air_ysb_ad_hashes[AIR_YSB_ADS];

__attribute__((constructor)) static void ysb_ad_ids_init(void) {
  for (int k = 0; k < AIR_YSB_ADS; k++) {
    air_ysb_ad_uuid(k, air_ysb_ad_ids_padded[k]);
    air_ysb_ad_hashes[k] = air_hash_bytes(air_ysb_ad_ids_padded[k], 37);
  }
}

void air_ysb_fill_slow(int field, uint64_t r, char *out, size_t cap) {
  char buf[37];
  const char *s = buf;
  switch (field) {
  case AIR_YSB_USER_ID:
  case AIR_YSB_PAGE_ID:
    air_gen_uuid(r, buf);
    break;
  case AIR_YSB_AD_ID:
    s = air_ysb_ad_ids_padded[r % AIR_YSB_ADS];
    break;
  case AIR_YSB_AD_TYPE:
    s = YSB_AD_TYPES[r % 5];
    break;
  case AIR_YSB_EVENT_TYPE:
    s = YSB_EVENT_TYPES[r % 3];
    break;
  case AIR_YSB_IP: {
    uint32_t a = (uint32_t)r;
    snprintf(buf, sizeof buf, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
             (a >> 8) & 255, a & 255);
    break;
  }
  default:
    buf[0] = '\0';
    break;
  }
  fill_padded(out, cap, s, strlen(s));
}

/* ---- dealing and pacing ------------------------------------------------ */

struct AirGen {
  AirRuntime *rt;     /* stop requests; NULL in tests */
  AirVertex *v;       /* the source vertex (its stop's cut); NULL in tests */
  int64_t cut;        /* the agreed cut (rows before it are made), -1 while none */
  uint64_t next;      /* global index of the next row */
  uint64_t stride;    /* world * threads */
  uint64_t remaining; /* rows this instance still makes (UINT64_MAX: no limit) */
  AirPace pace;       /* rate / stride rows/s (pace.c) */
  int64_t seed;       /* the stream's seed */
  bool done;          /* end reached */
  int inst;           /* the instance (of the vertex, on this rank) */
  uint64_t limit;     /* the stream's limit, 0: none */
  int64_t ck_seen;    /* the last checkpoint whose barrier it sent */
  bool ck_due;        /* a checkpoint was asked for: its barrier goes next */
  int64_t *skip;      /* resumed on other ranks or threads: instance j of then made */
  uint64_t nskip;     /* its rows (index mod nskip == j) before skip[j] */
  uint64_t skip_hi;   /* ... all below the least, none from the largest on */
};

AirGen *air_gen_open_at(AirRuntime *rt, int rank, int world, int instance,
                        int threads, int64_t rate, int64_t limit,
                        int64_t seed) {
  AirGen *g = calloc(1, sizeof *g);
  if (!g) air_oom("generator");
  if (world < 1) world = 1;
  if (threads < 1) threads = 1;
  uint64_t base = (uint64_t)rank * (uint64_t)threads + (uint64_t)instance;
  g->rt = rt;
  g->cut = -1;
  g->inst = instance;
  g->limit = limit > 0 ? (uint64_t)limit : 0;
  g->next = base;
  g->stride = (uint64_t)world * (uint64_t)threads;
  if (limit > 0)
    g->remaining = base >= (uint64_t)limit
                       ? 0
                       : ((uint64_t)limit - 1 - base) / g->stride + 1;
  else
    g->remaining = UINT64_MAX;
  air_pace_init(&g->pace, rate > 0 ? (double)rate / (double)g->stride : 0.0);
  g->seed = seed;
  return g;
}

/* Owned by the runtime's vertex thread that opened it; close it with
 * air_gen_close when the source function ends. */
AirGen *air_gen_open(AirVertex *v, int instance, int64_t rate, int64_t limit,
                     int64_t seed, bool seed_given) {
  AirRuntime *rt = air_vertex_runtime(v);
  int64_t over = air_rate_override(rt);
  if (over >= 0) rate = over;
  if (!seed_given) seed = air_default_seed(rt);
  /* The vertex's instance count, not --threads: the dealing must match the
   * instances that actually run or rows would be lost or repeated. */
  AirGen *g = air_gen_open_at(rt, air_rank(rt), air_world(rt), instance,
                              v->instances, rate, limit, seed);
  g->v = v;
  return g;
}

size_t air_gen_next(AirGen *g, size_t max, uint64_t *first, uint64_t *stride,
                    int64_t *now_ms) {
  *stride = g->stride;
  *first = g->next;
  if (!g->done && g->cut < 0 && g->rt && air_should_stop(g->rt)) {
    if (!g->v) {
      g->done = true;
    } else {
      /* A stop: every instance of every rank makes its rows before the
       * agreed cut, then ends (cut.c). */
      int64_t k = air_source_park(g->v, (int64_t)g->next);
      uint64_t own = (uint64_t)k > g->next ? ((uint64_t)k - g->next + g->stride - 1) / g->stride : 0;
      if (own < g->remaining) g->remaining = own;
      g->cut = k;
    }
  }
  if (!g->done && g->v && air_ckpt_due(g->v, g->inst, &g->ck_seen, (int64_t)g->next)) {
    g->ck_due = true; /* its barrier, between this chunk and the next */
    *now_ms = air_now_ms();
    return 0;
  }
  if (g->skip && g->next < g->skip_hi) { /* resumed: rows made before the checkpoint are not made again */
    while (g->remaining && g->next < g->skip_hi && (int64_t)g->next < g->skip[g->next % g->nskip]) {
      g->next += g->stride;
      if (g->remaining != UINT64_MAX) g->remaining--;
    }
    *first = g->next;
  }
  if (!g->done && g->remaining == 0)
    g->done = true;
  if (g->done || max == 0) {
    *now_ms = air_now_ms();
    return 0;
  }
  uint64_t want = g->remaining < max ? g->remaining : max;
  if (g->skip && g->next < g->skip_hi) { /* up to the next row made before the checkpoint */
    uint64_t run = 0, i = g->next;
    while (run < want && i < g->skip_hi && (int64_t)i >= g->skip[i % g->nskip]) {
      run++;
      i += g->stride;
    }
    if (run < want && i < g->skip_hi) want = run;
  }
  uint64_t n = air_pace_take(&g->pace, want);
  if (n == 0) { /* pacing: time for the caller's watermark */
    *now_ms = air_now_ms();
    return 0;
  }
  g->next += n * g->stride;
  if (g->remaining != UINT64_MAX) g->remaining -= n;
  *now_ms = air_now_ms();
  return (size_t)n;
}

bool air_gen_done(const AirGen *g) { return g->done && !g->ck_due; }

bool air_gen_barrier(AirGen *g) {
  bool due = g->ck_due;
  g->ck_due = false;
  return due;
}

bool air_gen_cut(const AirGen *g, int64_t *k) {
  *k = g->cut;
  return g->cut >= 0;
}

/* Checkpoints: where this instance is in its share of the rows. */
void air_gen_save(AirCkptW *w, const AirGen *g) {
  air_ckpt_put_i64(w, (int64_t)g->next);
  air_ckpt_put_i64(w, (int64_t)g->remaining);
  air_ckpt_put_i64(w, (int64_t)g->stride);
}

void air_gen_load(AirCkptR *r, AirGen *g) {
  uint64_t next = (uint64_t)air_ckpt_get_i64(r), remaining = (uint64_t)air_ckpt_get_i64(r);
  uint64_t stride = (uint64_t)air_ckpt_get_i64(r);
  if (air_ckpt_rescaled(r)) return; /* air_gen_seek put it at the cut */
  if (stride != g->stride || next % g->stride != g->next % g->stride)
    air_fatal(g->rt, "checkpoint: a generator's share of the rows differs");
  g->next = next;
  g->remaining = remaining;
}

/* Rows made before the checkpoint skipped: instance j of then (of n) made
 * its rows, index mod n == j, below pos[j] (all of them when it had ended). */
void air_gen_seek(AirGen *g, const int64_t *pos, int n) {
  if (n < 1) return;
  free(g->skip);
  g->skip = malloc((size_t)n * sizeof *g->skip);
  if (!g->skip) air_oom("generator");
  g->nskip = (uint64_t)n;
  int64_t lo = INT64_MAX, hi = 0;
  for (int j = 0; j < n; j++) {
    int64_t p = pos[j] == INT64_MAX && g->limit ? (int64_t)g->limit : pos[j];
    g->skip[j] = p;
    if (p < lo) lo = p;
    if (p > hi) hi = p;
  }
  g->skip_hi = (uint64_t)hi;
  if (lo == INT64_MAX) { /* every instance had ended */
    g->remaining = 0;
    return;
  }
  if ((uint64_t)lo > g->next) { /* below the least, all made */
    uint64_t m = ((uint64_t)lo - g->next + g->stride - 1) / g->stride;
    g->next += m * g->stride;
    if (g->remaining != UINT64_MAX) g->remaining = g->remaining > m ? g->remaining - m : 0;
  }
}

void air_gen_end(AirGen *g, const char *source, const char *why) {
  static atomic_bool said;
  g->done = true;
  if (g->rt && air_rank(g->rt) == 0 && !atomic_exchange(&said, true))
    fprintf(stderr, "airc: %s: source '%s' ends: %s\n", g->rt->name, source, why);
}

int64_t air_gen_seed(const AirGen *g) { return g->seed; }

void air_gen_close(AirGen *g) {
  if (g) free(g->skip);
  free(g);
}
