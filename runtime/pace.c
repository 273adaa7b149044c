/* pace.c - rows at a rate: the pacer of generators and csv replay.
 *
 * A source asks for up to n rows; the pacer says how many may go now, after
 * sleeping as the rate needs. Rows go in slices of about 1 ms, so a source
 * reads the clock once per slice, not per row. A wait longer than a couple
 * of milliseconds returns 0 after a short sleep instead, so that the source
 * can send its watermark and see a stop request. A source that falls
 * behind (backpressure) keeps a backlog of at most 0.1 s: it does not flood
 * the pipeline to catch up.
 */
#include "data_int.h"

#include <time.h>

#define PACE_SLICE_NS 1000000LL      /* rows of ~1 ms go together */
#define PACE_NAP_NS 2000000LL        /* longer waits return 0 to the caller */
#define PACE_MAX_SLEEP_NS 10000000LL /* ... after sleeping at most this */
#define PACE_BURST_S 0.1             /* backlog kept when falling behind */

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns) {
  if (ns <= 0) return;
  struct timespec ts = {.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
  /* An interrupted sleep just returns early: the caller re-reads the clock
   * and the stop flag. */
  nanosleep(&ts, NULL);
}

void air_pace_init(AirPace *p, double rate) {
  p->rate = rate > 0 ? rate : 0;
  p->t0_ns = 0;
  p->emitted = 0;
}

uint64_t air_pace_take(AirPace *p, uint64_t n) {
  if (p->rate <= 0 || n == 0) return n;
  int64_t now = mono_ns();
  if (p->t0_ns == 0) p->t0_ns = now;
  /* Rows allowed so far: one at t0, then rate per second. */
  double avail = (double)(now - p->t0_ns) * 1e-9 * p->rate + 1.0 - p->emitted;
  double burst = p->rate * PACE_BURST_S + (double)n;
  if (avail > burst) {
    /* Behind (backpressure): forget the backlog beyond burst rather than
     * flooding the pipeline to catch up. */
    p->t0_ns = now - (int64_t)((p->emitted + burst - 1.0) / p->rate * 1e9);
    avail = burst;
  }
  double want = p->rate * (double)PACE_SLICE_NS * 1e-9;
  if (want < 1.0) want = 1.0;
  if (want > (double)n) want = (double)n;
  if (avail < want) {
    int64_t wait = (int64_t)((want - avail) / p->rate * 1e9) + 1;
    if (wait > PACE_NAP_NS) {
      sleep_ns(wait < PACE_MAX_SLEEP_NS ? wait : PACE_MAX_SLEEP_NS);
      return 0;
    }
    sleep_ns(wait);
    now = mono_ns();
    avail = (double)(now - p->t0_ns) * 1e-9 * p->rate + 1.0 - p->emitted;
    if (avail < 1.0) return 0; /* woke early (signal) */
  }
  if ((double)n > avail) n = (uint64_t)avail;
  p->emitted += (double)n;
  return n;
}
