/* progress.c - the live progress line rank 0 draws on a terminal.
 *
 * Counters are per rank, so rank 0 alone cannot know the totals. Rather than
 * a periodic collective (every rank would have to start the same number of
 * them, in the same order as the barrier that ends the run), each other rank
 * sends its counters to rank 0 about once a second, point to point, from
 * the comm loop: AIR_STAT_COUNT numbers, nothing when the line is off. Its
 * last report is flagged; rank 0 leaves the comm loop only when it has every
 * rank's last one, so no report is left unreceived at MPI_Finalize.
 *
 * The line is on when rank 0's stderr is a terminal: its own, or, under a
 * launcher that pipes the ranks' output (mpirun, srun), the launcher's.
 * Off a terminal, and with --quiet, nothing is sent and nothing drawn.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "air_int.h"

#define PROGRESS_EVERY_S 1.0

struct AirProgress {
  double next_s;                         /* monotonic time of the next report or redraw */
  /* ranks other than 0 */
  int64_t msg[2][AIR_STAT_COUNT + 2];    /* [0] periodic, [1] last: counters, is last, time in us */
  MPI_Request req[2];
  bool sent_last;
  /* rank 0 */
  int64_t *latest;                       /* world x AIR_STAT_COUNT: each rank's last report */
  int64_t *rep_events;                   /* per rank: events in at its previous report */
  double *rep_s;                         /* per rank: its clock at that report, s since its start */
  double *rate;                          /* per rank: events/s between its last two reports */
  int nlast;                             /* other ranks whose last report arrived */
  bool drawn;                            /* a line is on the screen */
};

static bool is_tty_path(const char *p) {
  return strncmp(p, "/dev/pts/", 9) == 0 || strncmp(p, "/dev/tty", 8) == 0;
}

/* The parent of pid and its command name, from /proc. */
static pid_t parent_of(pid_t pid, char *comm, size_t n) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[got] = '\0';
  /* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
  char *open = strchr(buf, '('), *close = strrchr(buf, ')');
  if (!open || !close || close < open)
    return -1;
  snprintf(comm, n, "%.*s", (int)(close - open - 1), open + 1);
  int ppid = -1;
  char state;
  if (sscanf(close + 1, " %c %d", &state, &ppid) != 2)
    return -1;
  return (pid_t)ppid;
}

static bool is_launcher(const char *comm) {
  return !strcmp(comm, "mpirun") || !strncmp(comm, "mpiexec", 7) || !strcmp(comm, "srun");
}

/* Does file descriptor fd end on a terminal? Directly, or, when it is a
 * pipe, through the launcher a few processes up (mpirun -> proxy -> rank)
 * whose own fd is a terminal. A launcher whose fd is a pipe or a file
 * (mpirun ... 2>&1 | tee log) means no. */
static bool fd_on_terminal(int fd) {
  if (isatty(fd))
    return true;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
    return false;
  char comm[64];
  pid_t pid = getppid();
  for (int depth = 0; depth < 4 && pid > 1; depth++) {
    pid_t up = parent_of(pid, comm, sizeof comm);
    if (is_launcher(comm)) {
      char path[64], link[PATH_MAX];
      snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
      ssize_t n = readlink(path, link, sizeof link - 1);
      if (n <= 0)
        return false;
      link[n] = '\0';
      return is_tty_path(link);
    }
    pid = up;
  }
  return false;
}

void air_progress_init(AirRuntime *rt) {
  int on = 0;
  if (rt->rank == 0 && !rt->quiet && fd_on_terminal(2)) {
    on = 1;
    rt->stdout_tty = fd_on_terminal(1);
  }
  MPI_Bcast(&on, 1, MPI_INT, 0, rt->comm);
  for (int i = 0; i < AIR_MAX_SINKS; i++)
    atomic_init(&rt->sink_wm[i], AIR_WM_NONE);
  if (!on)
    return;
  AirProgress *p = air_xmalloc(rt, sizeof *p);
  memset(p, 0, sizeof *p);
  p->req[0] = p->req[1] = MPI_REQUEST_NULL;
  if (rt->rank == 0) {
    size_t w = (size_t)rt->world;
    p->latest = calloc(w * AIR_STAT_COUNT, sizeof *p->latest);
    p->rep_events = calloc(w, sizeof *p->rep_events);
    p->rep_s = calloc(w, sizeof *p->rep_s);
    p->rate = calloc(w, sizeof *p->rate);
    if (!p->latest || !p->rep_events || !p->rep_s || !p->rate)
      air_fatal(rt, "out of memory");
  }
  rt->progress = p;
}

int air_progress_sink(AirRuntime *rt) {
  return rt->nsinks < AIR_MAX_SINKS ? rt->nsinks++ : -1;
}

void air_progress_sink_wm(AirRuntime *rt, int slot, int64_t wm) {
  if (slot >= 0)
    atomic_store_explicit(&rt->sink_wm[slot], wm, memory_order_relaxed);
}

static void snapshot(AirRuntime *rt, int64_t *out) {
  for (int i = 0; i < AIR_STAT_COUNT; i++)
    out[i] = atomic_load_explicit(&rt->stats.count[i], memory_order_relaxed);
}

static void send_report(AirRuntime *rt, int which) {
  AirProgress *p = rt->progress;
  snapshot(rt, p->msg[which]);
  p->msg[which][AIR_STAT_COUNT] = which;
  p->msg[which][AIR_STAT_COUNT + 1] = (int64_t)((air_mono_s() - rt->t0) * 1e6);
  MPI_Isend(p->msg[which], AIR_STAT_COUNT + 2, MPI_INT64_T, 0, AIR_TAG_PROGRESS, rt->comm,
            &p->req[which]);
}

/* Rates come from each rank's own clock between its own reports, so the
 * moment a report reaches rank 0 does not make the sum jitter. */
static void note_rate(AirProgress *p, int r, int64_t events, double t_s) {
  double dt = t_s - p->rep_s[r];
  if (dt > 0.2) {
    p->rate[r] = (double)(events - p->rep_events[r]) / dt;
    p->rep_events[r] = events;
    p->rep_s[r] = t_s;
  }
}

static void receive_reports(AirRuntime *rt) {
  AirProgress *p = rt->progress;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, AIR_TAG_PROGRESS, rt->comm, &flag, &st);
    if (!flag)
      return;
    int64_t m[AIR_STAT_COUNT + 2];
    MPI_Recv(m, AIR_STAT_COUNT + 2, MPI_INT64_T, st.MPI_SOURCE, AIR_TAG_PROGRESS, rt->comm,
             MPI_STATUS_IGNORE);
    int r = st.MPI_SOURCE;
    memcpy(p->latest + (size_t)r * AIR_STAT_COUNT, m, AIR_STAT_COUNT * sizeof *m);
    note_rate(p, r, m[AIR_STAT_EVENTS_IN], (double)m[AIR_STAT_COUNT + 1] / 1e6);
    if (m[AIR_STAT_COUNT])
      p->nlast++;
  }
}

/* "1.23 M" */
static void human(char *buf, size_t n, double v) {
  if (v >= 1e9)
    snprintf(buf, n, "%.2f G", v / 1e9);
  else if (v >= 1e6)
    snprintf(buf, n, "%.2f M", v / 1e6);
  else if (v >= 1e4)
    snprintf(buf, n, "%.1f k", v / 1e3);
  else
    snprintf(buf, n, "%.0f", v);
}

/* The watermark part: how far results trail the wall clock when event time
 * is close to it (ingestion time, live data); for older data (a file), how
 * far into event time the results are. Unknown before the first watermark. */
static void watermark_text(AirRuntime *rt, char *buf, size_t n) {
  int64_t wm = AIR_WM_END;
  for (int i = 0; i < rt->nsinks; i++) {
    int64_t w = atomic_load_explicit(&rt->sink_wm[i], memory_order_relaxed);
    if (w < wm)
      wm = w;
  }
  buf[0] = '\0';
  if (rt->nsinks == 0 || wm == AIR_WM_NONE || wm >= AIR_WM_STOP)
    return;
  int64_t lag = air_now_ms() - wm;
  if (lag > -60000 && lag < 24 * 3600 * 1000) { /* a little ahead: clocks of other nodes */
    snprintf(buf, n, " | wm lag %.1f s", lag > 0 ? (double)lag / 1000 : 0.0);
  } else {
    time_t secs = (time_t)(wm / 1000);
    struct tm tm;
    if (gmtime_r(&secs, &tm))
      strftime(buf, n, " | wm %Y-%m-%d %H:%M:%S", &tm);
  }
}

static void draw(AirRuntime *rt, double now) {
  AirProgress *p = rt->progress;
  int64_t total[AIR_STAT_COUNT];
  snapshot(rt, p->latest); /* rank 0's own row, current */
  note_rate(p, 0, p->latest[AIR_STAT_EVENTS_IN], now - rt->t0);
  memset(total, 0, sizeof total);
  double rate = 0;
  for (int r = 0; r < rt->world; r++) {
    for (int i = 0; i < AIR_STAT_COUNT; i++)
      total[i] += p->latest[(size_t)r * AIR_STAT_COUNT + i];
    rate += p->rate[r];
  }
  char r[32], wm[64];
  human(r, sizeof r, rate);
  watermark_text(rt, wm, sizeof wm);
  char lag[48] = "";
  if (atomic_load(&rt->has_lag))
    snprintf(lag, sizeof lag, " | kafka lag %lld", (long long)total[AIR_STAT_SOURCE_LAG]);
  fprintf(stderr, "\r\033[K%s: %.0f s | %s events/s | %lld windows%s | late %lld%s", rt->name,
          now - rt->t0, r, (long long)total[AIR_STAT_WINDOWS], wm,
          (long long)total[AIR_STAT_LATE], lag);
  fflush(stderr);
  p->drawn = true;
}

void air_progress_poll(AirRuntime *rt, bool done) {
  AirProgress *p = rt->progress;
  if (!p)
    return;
  if (rt->rank == 0)
    receive_reports(rt);
  else if (done && !p->sent_last) {
    send_report(rt, 1);
    p->sent_last = true;
  }
  double now = air_mono_s();
  if (p->next_s == 0)
    p->next_s = rt->t0 + PROGRESS_EVERY_S;
  if (now < p->next_s)
    return;
  p->next_s = now + PROGRESS_EVERY_S;
  if (rt->rank == 0) {
    draw(rt, now);
  } else if (!p->sent_last) {
    int flag = 1;
    if (p->req[0] != MPI_REQUEST_NULL)
      MPI_Test(&p->req[0], &flag, MPI_STATUS_IGNORE);
    if (flag) /* else rank 0 is behind: skip this report */
      send_report(rt, 0);
  }
}

bool air_progress_settled(AirRuntime *rt) {
  AirProgress *p = rt->progress;
  return !p || rt->rank != 0 || p->nlast == rt->world - 1;
}

void air_progress_clear(AirRuntime *rt) {
  AirProgress *p = rt ? rt->progress : NULL;
  if (p && p->drawn) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = false;
  }
}

void air_progress_finish(AirRuntime *rt) {
  AirProgress *p = rt->progress;
  if (!p)
    return;
  if (rt->rank != 0) {
    MPI_Wait(&p->req[0], MPI_STATUS_IGNORE);
    MPI_Wait(&p->req[1], MPI_STATUS_IGNORE);
  }
  air_progress_clear(rt);
  free(p->latest);
  free(p->rep_events);
  free(p->rep_s);
  free(p->rate);
  free(p);
  rt->progress = NULL;
}

void air_progress_stdout(AirRuntime *rt, FILE *out) {
  if (rt->progress && rt->stdout_tty && out == stdout)
    fputs("\r\033[K", out);
}
