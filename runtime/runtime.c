/* runtime.c - one AirRuntime per rank: flags, MPI start and end, clock,
 * signals, fatal errors, and air_run tying the threads and the comm loop
 * together. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "air_int.h"

/* Process-wide state, because what needs it cannot be handed the runtime:
 * the signal seen (a signal handler; sources see it through
 * air_should_stop), and the memory guard's runtime and budget (mem_rt,
 * below: allocators deep in the data structures). */
static volatile sig_atomic_t signalled;

static void on_signal(int sig) {
  signalled = sig;
}

int air_signal_seen(void) { return signalled; }

double air_mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* MPI_Wtime is not guaranteed to count from the epoch, and event times in
 * rows are epoch milliseconds, so latency needs the real-time clock. */
int64_t air_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int air_rank(const AirRuntime *rt) { return rt->rank; }
int air_world(const AirRuntime *rt) { return rt->world; }
int64_t air_rate_override(const AirRuntime *rt) { return rt->rate; }
int air_threads(const AirRuntime *rt) { return rt->threads; }
double air_duration_s(const AirRuntime *rt) { return rt->duration_s; }
int64_t air_default_seed(const AirRuntime *rt) { return rt->seed; }
AirRuntime *air_vertex_runtime(const AirVertex *v) { return v->rt; }

#define AIR_STACK_BASE ((size_t)8 << 20) /* what glibc gives a thread by default */

void air_stack_hint(AirRuntime *rt, size_t bytes) {
  rt->stack_bytes = bytes > SIZE_MAX - AIR_STACK_BASE ? SIZE_MAX : AIR_STACK_BASE + bytes;
}

bool air_on_stop_emit(const AirRuntime *rt) { return rt->on_stop_emit; }

bool air_should_stop(const AirRuntime *rt) {
  if (signalled)
    return true;
  if (atomic_load_explicit(&rt->stop, memory_order_relaxed))
    return true;
  if (rt->duration_s > 0 && air_mono_s() - rt->t0 >= rt->duration_s) {
    /* stop_sig stays 0: the --duration ended the run */
    atomic_store_explicit(&((AirRuntime *)rt)->stop, true, memory_order_relaxed);
    return true;
  }
  return false;
}

/* Every rank may hit the same error (a file missing everywhere), on any
 * thread, while only the main thread may use MPI. So the message is parked
 * in the runtime and the main thread (here, or in the comm loop) tells rank
 * 0, which prints each distinct message once and then tells every rank to
 * exit with status 1 on its own (mpirun would otherwise kill the slower
 * ones and print its own alarm). */
void air_fatal(AirRuntime *rt, const char *fmt, ...) {
  char msg[sizeof rt->fatal_msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!rt) {
    fflush(stdout);
    fprintf(stderr, "airc: error: %s\n", msg);
    _exit(1);
  }
  pthread_mutex_lock(&rt->fatal_mu);
  if (!atomic_load(&rt->fatal)) {
    memcpy(rt->fatal_msg, msg, sizeof msg);
    atomic_store(&rt->fatal, true);
  }
  pthread_mutex_unlock(&rt->fatal_mu);
  atomic_store(&rt->stop, true);
  if (pthread_equal(pthread_self(), rt->main_thread))
    air_fatal_main(rt);
  for (;;)
    pause(); /* the main thread ends the process */
}

void air_fail(AirRuntime *rt, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s: error: %s\n", rt->name, msg);
  atomic_store(&rt->status, 1);
}

void *air_xmalloc(AirRuntime *rt, size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p)
    air_fatal(rt, "out of memory (%zu bytes)", n);
  return p;
}

static void usage(FILE *f, const char *name) {
  fprintf(f,
          "usage: mpirun -np N %s [options]\n"
          "  --rate R          events per second over all ranks (0 = unthrottled)\n"
          "  --duration S      stop the sources after S seconds (at one cut, as SIGINT)\n"
          "  --on-stop drop|emit  windows still open at a stop: left out (default) or\n"
          "                    written as they are\n"
          "  --threads T       generator threads per rank (default 1)\n"
          "  --stats           more detail in the summary\n"
          "  --stats-json FILE write the summary as JSON\n"
          "  --quiet           no summary\n"
          "  --set REL.OPTION=VALUE  override an option of a source, table or sink\n"
          "                    (path, topic, brokers, rate, max_bad_rows, ...; not\n"
          "                    source, sink or format); also from the environment as\n"
          "                    AIRC_SET_REL__OPTION=VALUE ('.' in OPTION as '__'),\n"
          "                    which --set overrides\n"
          "  --checkpoint-dir DIR  take checkpoints into DIR (csv files and datagen\n"
          "                    sources; docs/guarantees.md)\n"
          "  --checkpoint-interval D  every D (default 10s; '500ms', '2min')\n"
          "  --checkpoint-keep K  complete checkpoints kept (default 2)\n"
          "  --resume auto|DIR  continue from the newest complete checkpoint (auto:\n"
          "                    of --checkpoint-dir, or start afresh when there is none)\n"
          "  --help            this text\n",
          name);
}

/* Every rank parses the same argv, so every rank reaches the same verdict;
 * rank 0 alone prints, then all leave through MPI_Finalize. */
static void bad_flag(AirRuntime *rt, const char *fmt, const char *arg) {
  if (rt->rank == 0) {
    fprintf(stderr, "%s: error: ", rt->name);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try --help)\n");
  }
  MPI_Finalize();
  exit(2);
}

static bool parse_i64(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end)
    return false;
  *out = v;
  return true;
}

static bool parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v == v))
    return false;
  *out = v;
  return true;
}

/* Flags are removed from argv; the rest is left for the caller. */
static void parse_flags(AirRuntime *rt, int *argc, char ***argv) {
  int n = *argc;
  char **av = *argv;
  int keep = 1;
  for (int i = 1; i < n; i++) {
    char *a = av[i];
    char *val = NULL;
    char flag[64];
    const char *eq = strchr(a, '=');
    if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof flag) {
      memcpy(flag, a, (size_t)(eq - a));
      flag[eq - a] = '\0';
      val = (char *)eq + 1;
    } else {
      snprintf(flag, sizeof flag, "%s", a);
    }
    bool takes = !strcmp(flag, "--rate") || !strcmp(flag, "--duration") ||
                 !strcmp(flag, "--threads") || !strcmp(flag, "--stats-json") ||
                 !strcmp(flag, "--on-stop") || !strcmp(flag, "--set") ||
                 !strcmp(flag, "--checkpoint-dir") || !strcmp(flag, "--checkpoint-interval") ||
                 !strcmp(flag, "--checkpoint-keep") || !strcmp(flag, "--resume");
    if (takes && !val) {
      if (i + 1 >= n)
        bad_flag(rt, "option '%s' needs a value", flag);
      val = av[++i];
    } else if (!takes && val) {
      bad_flag(rt, "option '%s' takes no value", flag);
    }
    if (!strcmp(flag, "--rate")) {
      if (!parse_i64(val, &rt->rate) || rt->rate < 0)
        bad_flag(rt, "bad --rate '%s' (events/s, >= 0)", val);
    } else if (!strcmp(flag, "--duration")) {
      if (!parse_double(val, &rt->duration_s) || rt->duration_s < 0)
        bad_flag(rt, "bad --duration '%s' (seconds, >= 0)", val);
    } else if (!strcmp(flag, "--threads")) {
      int64_t t;
      if (!parse_i64(val, &t) || t < 1 || t > 256)
        bad_flag(rt, "bad --threads '%s' (1..256)", val);
      rt->threads = (int)t;
    } else if (!strcmp(flag, "--on-stop")) {
      if (strcmp(val, "drop") && strcmp(val, "emit"))
        bad_flag(rt, "bad --on-stop '%s' (drop or emit)", val);
      rt->on_stop_emit = !strcmp(val, "emit");
    } else if (!strcmp(flag, "--set")) {
      /* checked by air_options, against the program's table */
      const char **s = realloc(rt->sets, sizeof *s * (size_t)(rt->nsets + 1));
      char **o = realloc(rt->set_origins, sizeof *o * (size_t)(rt->nsets + 1));
      if (s) rt->sets = s;
      if (o) rt->set_origins = o;
      if (!s || !o) bad_flag(rt, "out of memory at '%s'", flag);
      rt->sets[rt->nsets] = val;
      rt->set_origins[rt->nsets++] = NULL;
    } else if (!strcmp(flag, "--checkpoint-dir")) {
      rt->ck_flags[0] = val; /* checked by air_checkpoint_setup */
    } else if (!strcmp(flag, "--checkpoint-interval")) {
      rt->ck_flags[1] = val;
    } else if (!strcmp(flag, "--checkpoint-keep")) {
      rt->ck_flags[2] = val;
    } else if (!strcmp(flag, "--resume")) {
      rt->ck_flags[3] = val;
    } else if (!strcmp(flag, "--stats-json")) {
      rt->stats_json = val;
    } else if (!strcmp(flag, "--stats")) {
      rt->show_stats = true;
    } else if (!strcmp(flag, "--quiet")) {
      rt->quiet = true;
    } else if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
      if (rt->rank == 0)
        usage(stdout, rt->name);
      MPI_Finalize();
      exit(0);
    } else if (a[0] == '-') {
      bad_flag(rt, "unknown option '%s'", a);
    } else {
      av[keep++] = a;
    }
  }
  av[keep] = NULL;
  *argc = keep;
}

/* ---- memory guard --------------------------------------------------------
 * Linux overcommits: a group table that outgrows RAM is not refused by
 * malloc, its pages are, later, by the OOM killer's SIGKILL, which says
 * nothing. So every large growth of run-time state (hash tables, held
 * results, join buffers) first asks air_memory_check whether this rank
 * would pass its budget, and ends the run with a message instead. The
 * budget is AIR_MEMORY_LIMIT_MB (per rank; 0 turns the guard off), by
 * default 75% of the node's memory (or of its cgroup limit, if lower)
 * shared by the ranks on this node. */
#define MEM_CHECK_MIN ((size_t)1 << 20) /* smaller growths are not checked */

static AirRuntime *mem_rt;   /* for air_fatal; NULL before air_init (unit tests) */
static size_t mem_limit;     /* bytes per rank; 0 = not computed yet */
static bool mem_off;         /* AIR_MEMORY_LIMIT_MB=0 */

void air_oom(const char *what) {
  air_fatal(mem_rt, "out of memory (%s)", what);
}

static size_t node_memory(void) {
  size_t total = 0;
  FILE *f = fopen("/proc/meminfo", "r");
  if (f) {
    unsigned long long kb;
    char line[256];
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
        total = (size_t)kb * 1024;
        break;
      }
    fclose(f);
  }
  f = fopen("/sys/fs/cgroup/memory.max", "r"); /* "max" when unlimited */
  if (f) {
    unsigned long long b;
    if (fscanf(f, "%llu", &b) == 1 && b > 0 && (total == 0 || b < total))
      total = (size_t)b;
    fclose(f);
  }
  return total ? total : (size_t)4 << 30; /* no /proc: assume a small node */
}

static void memory_limit_init(int local_ranks) {
  const char *env = getenv("AIR_MEMORY_LIMIT_MB");
  int64_t mb;
  if (env && *env && parse_i64(env, &mb) && mb >= 0) {
    mem_off = mb == 0;
    mem_limit = (size_t)mb << 20;
    return;
  }
  if (env && *env)
    fprintf(stderr, "airc: warning: ignoring AIR_MEMORY_LIMIT_MB='%s' (megabytes per rank)\n", env);
  mem_limit = node_memory() / 4 * 3 / (size_t)(local_ranks > 0 ? local_ranks : 1);
}

static size_t resident_bytes(void) {
  unsigned long long size = 0, res = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  if (fscanf(f, "%llu %llu", &size, &res) != 2)
    res = 0;
  fclose(f);
  return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}

/* Growths below MEM_CHECK_MIN are added up, and checked together once they
 * reach it: a HOPPING window of 1000 hours by 1 second opens 3.6 million
 * small tables for one row, each too small to be checked alone. */
static _Atomic size_t mem_pending;

void air_memory_check(size_t more, const char *what) {
  if (mem_off)
    return;
  if (more < MEM_CHECK_MIN) {
    size_t before = atomic_fetch_add_explicit(&mem_pending, more, memory_order_relaxed);
    if (before + more < MEM_CHECK_MIN)
      return;
    more = atomic_exchange_explicit(&mem_pending, 0, memory_order_relaxed);
    if (more < MEM_CHECK_MIN)
      return; /* another thread took this round's check */
  }
  if (mem_limit == 0)
    memory_limit_init(1);
  size_t rss = resident_bytes();
  if (more <= mem_limit && rss <= mem_limit - more)
    return;
  air_fatal(mem_rt,
            "memory limit: %s needs %zu MB more, this rank holds %zu MB of its %zu MB "
            "(AIR_MEMORY_LIMIT_MB sets the limit per rank)",
            what, more >> 20, rss >> 20, mem_limit >> 20);
}

AirRuntime *air_init(int *argc, char ***argv, const char *query_name) {
  /* Batches are malloc'd by the thread that fills them and freed by the one
   * that reads them. glibc trims a thread's heap each time its free top
   * passes 128 KB (the default threshold), so the next batches were fresh
   * pages: perf on HOPPING 10 s by 100 ms (2M result rows) put 1/4 of the
   * run in page faults of batch writes, 0.93 s against 0.67 s with 8 MB
   * kept. Memory stays bounded by the queues either way. */
  mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
  int provided;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "%s: error: MPI_Init_thread failed\n", query_name);
    exit(1);
  }
  AirRuntime *rt = calloc(1, sizeof *rt);
  if (!rt) {
    fprintf(stderr, "%s: error: out of memory\n", query_name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  rt->name = query_name;
  rt->main_thread = pthread_self();
  pthread_mutex_init(&rt->fatal_mu, NULL);
  atomic_init(&rt->fatal, false);
  MPI_Comm_dup(MPI_COMM_WORLD, &rt->comm);
  MPI_Comm_rank(rt->comm, &rt->rank);
  MPI_Comm_size(rt->comm, &rt->world);
  if (provided < MPI_THREAD_FUNNELED)
    air_fatal(rt, "MPI library lacks MPI_THREAD_FUNNELED support");
  rt->rate = -1;
  rt->threads = 1;
  atomic_init(&rt->stop, false);
  atomic_init(&rt->stop_sig, 0);
  atomic_init(&rt->status, 0);
  atomic_init(&rt->live, 0);
  air_stats_init(&rt->stats);
  parse_flags(rt, argc, argv);

  /* One clock value for all ranks, so unseeded generators agree. */
  int64_t seed = 0;
  if (rt->rank == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    seed = (int64_t)air_mix64((uint64_t)ts.tv_sec * 1000000000u +
                              (uint64_t)ts.tv_nsec + (uint64_t)getpid());
  }
  MPI_Bcast(&seed, 1, MPI_INT64_T, 0, rt->comm);
  rt->seed = seed;
  air_progress_init(rt);

  /* The memory budget is shared by the ranks of one node. */
  MPI_Comm node;
  int local_ranks = 1;
  if (MPI_Comm_split_type(rt->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
      MPI_SUCCESS) {
    MPI_Comm_size(node, &local_ranks);
    MPI_Comm_free(&node);
  }
  memory_limit_init(local_ranks);
  mem_rt = rt;

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* A sink on a pipe or FIFO whose reader went away: the write fails with
   * EPIPE and the collector says so, instead of a silent death by SIGPIPE
   * (which mpirun would report only as a bad termination). */
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, NULL);
  rt->t0 = air_mono_s();
  return rt;
}

int air_run(AirRuntime *rt) {
  /* One outbound queue per (destination, edge); every edge exists now. */
  rt->outq = calloc((size_t)rt->world * AIR_MAX_EDGES, sizeof *rt->outq);
  if (!rt->outq)
    air_fatal(rt, "out of memory");
  for (int d = 0; d < rt->world; d++) {
    if (d == rt->rank)
      continue;
    for (int e = 0; e < AIR_MAX_EDGES; e++) {
      if (!rt->edges[e])
        continue;
      rt->outq[d * AIR_MAX_EDGES + e] = air_queue_new(AIR_OUTQ_BATCHES);
      if (!rt->outq[d * AIR_MAX_EDGES + e])
        air_fatal(rt, "out of memory");
    }
  }
  air_ckpt_start(rt);
  rt->t0 = air_mono_s();
  air_vertices_start(rt);
  air_comm_run(rt);
  air_vertices_join(rt);
  double elapsed = air_mono_s() - rt->t0;
  air_ckpt_settle(rt);
  air_stats_finish(rt, elapsed);

  /* Any rank's failure (a result file that could not be written) fails the
   * job everywhere. */
  int status = atomic_load(&rt->status), all = 0;
  if (air_csv_settle(rt)) status = 1;
  MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MAX, rt->comm);
  all = air_sink_files_settle(rt, all);
  air_ckpt_end(rt, all);

  air_ckpt_free(rt);
  air_vertices_free(rt);
  air_cut_free(rt);
  for (int i = 0; rt->outq && i < rt->world * AIR_MAX_EDGES; i++)
    air_queue_free(rt->outq[i]);
  free(rt->outq);
  air_stats_free(&rt->stats);
  air_options_free(rt);
  pthread_mutex_destroy(&rt->fatal_mu);
  MPI_Comm_free(&rt->comm);
  mem_rt = NULL;
  free(rt);
  MPI_Finalize();
  return all;
}
