/* comm.c - the main thread's MPI loop. Only this thread calls MPI
 * (MPI_THREAD_FUNNELED). Vertex threads hand it batches through one bounded
 * queue per (destination rank, edge); it posts at most AIR_MAX_INFLIGHT
 * synchronous sends per (rank, edge), and receives on an edge only while
 * that edge's consumer has room, so it never blocks and memory stays
 * bounded: a slow consumer leaves messages with their senders, whose sends
 * then do not complete, whose queues fill, whose producers block.
 *
 * Queues and send slots are per edge, not per rank: with one queue per rank,
 * batches for a full consumer blocked the batches behind them for other
 * consumers, and two ranks sending to each other's full consumers waited on
 * each other for ever (seen with --no-fuse YSB, 2 ranks x 2 threads). Per
 * edge, a full consumer holds up only its own producers, and the vertex
 * graph has no cycle. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "air_int.h"

/* [vertex] The producers' side: a batch for another rank waits in its queue
 * for the comm loop below. */
void air_batch_send(AirRuntime *rt, AirEdge *e, int dest, AirBatch *b) {
  if (dest == rt->rank) {
    /* Same rank: straight to the consumer, no MPI. */
    if (!e->consumer)
      air_fatal(rt, "edge %d has no consumer on rank %d", e->id, dest);
    air_queue_push(e->consumer->inq, b);
  } else {
    air_queue_push(rt->outq[dest * AIR_MAX_EDGES + e->id], b);
  }
}

typedef struct Inflight {
  MPI_Request req[AIR_MAX_INFLIGHT];
  AirBatch *b[AIR_MAX_INFLIGHT];
  int n;
} Inflight;

/* Complete finished sends to d and post new ones; true if anything moved.
 * MPI keeps messages of one (sender, tag, comm) in posting order, and the
 * queue is FIFO, so each sender's rows and watermarks arrive in order. */
static bool pump_sends(AirRuntime *rt, Inflight *f, int d, AirQueue *q) {
  bool moved = false;
  for (int i = 0; i < f->n;) {
    int flag = 0;
    MPI_Test(&f->req[i], &flag, MPI_STATUS_IGNORE);
    if (flag) {
      free(f->b[i]);
      f->n--;
      f->req[i] = f->req[f->n];
      f->b[i] = f->b[f->n];
      moved = true;
    } else {
      i++;
    }
  }
  while (f->n < AIR_MAX_INFLIGHT) {
    AirBatch *b = air_queue_try_pop(q);
    if (!b)
      break;
    size_t bytes = sizeof *b + (size_t)b->nrows * rt->edges[b->edge]->row_size;
    /* Issend, not Isend: completion means the receiver took it, so the
     * number of batches between two ranks stays bounded. */
    MPI_Issend(b, (int)bytes, MPI_BYTE, d, b->edge, rt->comm, &f->req[f->n]);
    air_stat_add(rt, AIR_STAT_BYTES_SENT, (int64_t)bytes);
    air_stat_add(rt, AIR_STAT_MESSAGES, 1);
    f->b[f->n++] = b;
    moved = true;
  }
  return moved;
}

static bool pump_receives(AirRuntime *rt, AirEdge *e) {
  bool moved = false;
  AirQueue *q = e->consumer->inq;
  for (int k = 0; k < AIR_RECV_BURST && air_queue_has_room(q); k++) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, e->id, rt->comm, &flag, &st);
    if (!flag)
      break;
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    AirBatch *b = air_xmalloc(rt, (size_t)bytes);
    MPI_Recv(b, bytes, MPI_BYTE, st.MPI_SOURCE, e->id, rt->comm, MPI_STATUS_IGNORE);
    if ((size_t)bytes < sizeof *b || b->edge != e->id || b->nrows < 0 ||
        (size_t)bytes != sizeof *b + (size_t)b->nrows * e->row_size)
      air_fatal(rt, "malformed batch of %d bytes from rank %d on edge %d", bytes, st.MPI_SOURCE,
                e->id);
    if (e->heard && !(b->flags & AIR_BATCH_BARRIER) && b->sender >= 0 && b->sender < rt->world * e->ppr) {
      if (b->wm > atomic_load_explicit(&e->heard[b->sender], memory_order_relaxed))
        atomic_store_explicit(&e->heard[b->sender], b->wm, memory_order_relaxed);
      atomic_store_explicit(&e->heard_idle[b->sender], (b->flags & AIR_BATCH_IDLE) != 0, memory_order_relaxed);
    }
    air_queue_push_force(q, b);
    moved = true;
  }
  return moved;
}

static void nap_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* No MPI operation of ours is left that MPI_Finalize would wait on: the
 * end barrier, when this rank posted it, completed (every rank posted it,
 * in the comm loop or on its way out, air_fatal_main). */
static bool barrier_done(AirRuntime *rt) {
  if (!rt->barrier_posted || rt->end_barrier == MPI_REQUEST_NULL) return true;
  int flag = 0;
  MPI_Test(&rt->end_barrier, &flag, MPI_STATUS_IGNORE);
  return flag;
}

static _Noreturn void die(void) {
  fflush(NULL);
  _exit(1);
}

/* One step of quieting this rank's MPI traffic on the way out: receive and
 * drop whatever other ranks sent (batches, progress, stop and cut words),
 * so their sends complete, and test our own batches in flight. True when
 * all of ours completed. */
static bool quiet_step(AirRuntime *rt) {
  static const int other_tags[] = {AIR_TAG_PROGRESS, AIR_TAG_STOP,       AIR_TAG_CUT_REPORT,
                                   AIR_TAG_CUT,      AIR_TAG_CKPT_START, AIR_TAG_CKPT_DONE};
  int ntags = AIR_MAX_EDGES + (int)(sizeof other_tags / sizeof other_tags[0]);
  for (int k = 0; k < ntags; k++) {
    int tag = k < AIR_MAX_EDGES ? k : other_tags[k - AIR_MAX_EDGES];
    for (int burst = 0; burst < AIR_RECV_BURST; burst++) {
      int flag = 0, bytes = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, tag, rt->comm, &flag, &st);
      if (!flag)
        break;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      void *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
      if (!buf) /* cannot take it: stay on the path without MPI_Finalize */
        return false;
      MPI_Recv(buf, bytes, MPI_BYTE, st.MPI_SOURCE, tag, rt->comm, MPI_STATUS_IGNORE);
      free(buf);
    }
  }
  bool done = true;
  if (rt->inflight && rt->outq)
    for (int i = 0; i < rt->world * AIR_MAX_EDGES; i++) {
      Inflight *f = &rt->inflight[i];
      for (int j = 0; j < f->n; j++) {
        int flag = 0;
        if (f->req[j] != MPI_REQUEST_NULL)
          MPI_Test(&f->req[j], &flag, MPI_STATUS_IGNORE);
        done &= f->req[j] == MPI_REQUEST_NULL;
      }
    }
  return done;
}

#define FATAL_GATHER_S 0.25 /* rank 0 waits this long for other ranks' messages */
#define FATAL_ALONE_S 3.0   /* a rank whose rank 0 does not answer prints alone */
#define FATAL_ACK_S 5.0     /* rank 0 waits this long for the others to say they go */
#define FATAL_QUIET_S 2.0   /* a rank waits this long for its sends to complete */

/* Every rank agreed to end. When none has MPI traffic pending (each one's
 * sends completed, the end barrier completed: barrier_done) they leave
 * through MPI_Finalize: no rank is then an "abnormal" exit the launcher
 * cleans up by killing the others (mpirun's status would be 9, the kill's,
 * instead of 1). The job's status is then rank 0's: the others leave with
 * 0 once finalized, and rank 0 with 1 a moment after them, because a rank
 * that leaves with 1 while another is still finishing MPI_Finalize gets
 * that one killed all the same. Otherwise (a rank not quiet in time) they
 * leave at one word, and the launcher may still see a kill. */
static _Noreturn void die_agreed(AirRuntime *rt, bool finalize) {
  fflush(NULL);
  double t = air_mono_s();
  while (finalize && !barrier_done(rt) && air_mono_s() - t < FATAL_QUIET_S) {
    quiet_step(rt);
    nap_us(50);
  }
  if (finalize && barrier_done(rt)) {
    MPI_Finalize();
    if (rt->rank != 0) _exit(0);
    if (rt->world > 1) nap_us(200 * 1000);
  }
  _exit(1);
}

/* A fatal error on any rank ends every rank with status 1. Rank 0 prints
 * the messages (its own and the others', each once), tells every rank to
 * end, and waits for each to answer; a rank answers once its batches in
 * flight completed (every rank drops what it receives meanwhile), saying
 * whether it may leave through MPI_Finalize. Then rank 0's second word
 * sends all out at once. */
void air_fatal_main(AirRuntime *rt) {
  char *msg = rt->fatal_msg; /* empty when another rank's error brought us here */
  /* Every rank comes here or has posted the end barrier (the comm loop
   * posts it when its rank is done). Here the others post it at rank 0's
   * word, and rank 0 once every one has answered: so no rank sees it
   * complete while another could still take it for the end of the run.
   * Completed, all may leave through MPI_Finalize (die_agreed). */
  if (rt->rank != 0) {
    MPI_Request req = MPI_REQUEST_NULL;
    if (msg[0])
      MPI_Isend(msg, (int)strlen(msg) + 1, MPI_CHAR, 0, AIR_TAG_FATAL, rt->comm, &req);
    double t0 = air_mono_s();
    for (;;) {
      int flag = 0;
      MPI_Iprobe(0, AIR_TAG_FATAL, rt->comm, &flag, MPI_STATUS_IGNORE);
      if (flag) {
        /* rank 0's word to end: our error text (sent before it, so
         * received before the answer) is done; quiet our sends, then
         * answer with one byte, 1 when we may finalize */
        char none, ok, go;
        MPI_Recv(&none, 1, MPI_CHAR, 0, AIR_TAG_FATAL, rt->comm, MPI_STATUS_IGNORE);
        if (!rt->barrier_posted) {
          MPI_Ibarrier(rt->comm, &rt->end_barrier);
          rt->barrier_posted = true;
        }
        if (req != MPI_REQUEST_NULL)
          MPI_Wait(&req, MPI_STATUS_IGNORE);
        double t1 = air_mono_s();
        bool quiet;
        while (!(quiet = quiet_step(rt)) && air_mono_s() - t1 < FATAL_QUIET_S)
          nap_us(50);
        ok = quiet;
        MPI_Send(&ok, 1, MPI_CHAR, 0, AIR_TAG_FATAL, rt->comm);
        /* then all leave at once, at rank 0's second word (2: finalize),
         * taking what others still send until then */
        t1 = air_mono_s();
        while (air_mono_s() - t1 < 2 * FATAL_ACK_S) {
          MPI_Iprobe(0, AIR_TAG_FATAL, rt->comm, &flag, MPI_STATUS_IGNORE);
          if (flag) {
            MPI_Recv(&go, 1, MPI_CHAR, 0, AIR_TAG_FATAL, rt->comm, MPI_STATUS_IGNORE);
            die_agreed(rt, go == 2);
          }
          quiet_step(rt);
          nap_us(50);
        }
        die();
      }
      if (req != MPI_REQUEST_NULL)
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
      quiet_step(rt);
      if (air_mono_s() - t0 > FATAL_ALONE_S) {
        fprintf(stderr, "%s: error: rank %d: %s\n", rt->name, rt->rank,
                msg[0] ? msg : "another rank failed");
        die();
      }
      nap_us(1000);
    }
  }
  /* Rank 0: print distinct messages as they come, then end everyone. A
   * failed run leaves no sink file, not even its .tmp. */
  char seen[8][sizeof rt->fatal_msg];
  int nseen = 0;
  air_sink_files_remove(rt);
  fflush(stdout);
  air_progress_clear(rt);
  if (msg[0]) {
    fprintf(stderr, "%s: error: %s\n", rt->name, msg);
    snprintf(seen[nseen++], sizeof seen[0], "%s", msg);
  }
  /* Gather the others' messages for a moment, tell every rank to end,
   * then wait for each one's answer (a late error message is printed as
   * it comes). A rank that never answers is left to the launcher after
   * FATAL_ACK_S. */
  int acks = 0;
  bool told = false, all_ok = true;
  double t0 = air_mono_s();
  while (rt->world > 1 && acks < rt->world - 1 && air_mono_s() - t0 < FATAL_GATHER_S + FATAL_ACK_S) {
    if (!told && air_mono_s() - t0 >= FATAL_GATHER_S) {
      fflush(stderr);
      char none = 0;
      for (int r = 1; r < rt->world; r++) {
        MPI_Request req;
        MPI_Isend(&none, 1, MPI_CHAR, r, AIR_TAG_FATAL, rt->comm, &req);
        MPI_Request_free(&req);
      }
      told = true;
    }
    quiet_step(rt);
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, AIR_TAG_FATAL, rt->comm, &flag, &st);
    if (!flag) {
      nap_us(200);
      continue;
    }
    char text[sizeof rt->fatal_msg];
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    if (n < 0 || n > (int)sizeof text)
      n = 0;
    MPI_Recv(text, n, MPI_CHAR, st.MPI_SOURCE, AIR_TAG_FATAL, rt->comm, MPI_STATUS_IGNORE);
    if (n <= 1) { /* an answer (only after told; error texts are longer) */
      all_ok &= n == 1 && text[0] == 1;
      if (++acks == rt->world - 1) { /* every rank waits for the word: go */
        if (!rt->barrier_posted) {
          MPI_Ibarrier(rt->comm, &rt->end_barrier);
          rt->barrier_posted = true;
        }
        double t1 = air_mono_s();
        bool quiet;
        while (!(quiet = quiet_step(rt) && barrier_done(rt)) && air_mono_s() - t1 < FATAL_QUIET_S)
          nap_us(50);
        char go = all_ok && quiet ? 2 : 1;
        for (int r = 1; r < rt->world; r++)
          MPI_Send(&go, 1, MPI_CHAR, r, AIR_TAG_FATAL, rt->comm);
        if (go == 2)
          die_agreed(rt, true);
        /* rank 0 leaves last */
        t1 = air_mono_s();
        while (air_mono_s() - t1 < 0.05)
          nap_us(1000);
        die();
      }
      continue;
    }
    text[n - 1] = '\0';
    bool dup = false;
    for (int i = 0; i < nseen; i++)
      dup |= strcmp(seen[i], text) == 0;
    if (!dup) {
      fprintf(stderr, "%s: error: rank %d: %s\n", rt->name, st.MPI_SOURCE, text);
      if (nseen < 8)
        snprintf(seen[nseen++], sizeof seen[0], "%s", text);
    }
  }
  fflush(stderr);
  if (rt->world == 1)
    die_agreed(rt, quiet_step(rt));
  die();
}

void air_fatal_poll(AirRuntime *rt) {
  if (atomic_load(&rt->fatal))
    air_fatal_main(rt);
  int flag = 0;
  MPI_Iprobe(rt->rank == 0 ? MPI_ANY_SOURCE : 0, AIR_TAG_FATAL, rt->comm, &flag,
             MPI_STATUS_IGNORE);
  if (flag)
    air_fatal_main(rt);
}

static bool sends_drained(AirRuntime *rt, const Inflight *inf) {
  for (int i = 0; i < rt->world * AIR_MAX_EDGES; i++)
    if (rt->outq[i] && (inf[i].n || air_queue_count(rt->outq[i])))
      return false;
  return true;
}

/* A rank is done when its vertex threads ended and its sends completed.
 * Its consumers ended only after AIR_WM_END from every sender, the last
 * thing each sends, so nothing more can arrive for them; the barrier only
 * keeps MPI's blocking collectives that follow (which spin) from burning a
 * core while other ranks still work. */
/* SIGINT or SIGTERM to one rank stops the whole job, as it does when the
 * launcher forwards it to every rank: otherwise the other ranks' sources
 * would run on (forever, without --duration or a limit). The rank that got
 * it tells every other; each then stops its sources, so every open window
 * closes and the results are written as at a normal end. */
static void poll_stop(AirRuntime *rt, bool *told) {
  int sig = 0, from = rt->rank, flag = 0;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, AIR_TAG_STOP, rt->comm, &flag, &st);
  if (flag) {
    MPI_Recv(&sig, 1, MPI_INT, st.MPI_SOURCE, AIR_TAG_STOP, rt->comm, MPI_STATUS_IGNORE);
    from = st.MPI_SOURCE;
  }
  if (*told)
    return;
  if (!sig && (sig = air_signal_seen()) != 0) {
    for (int r = 0; r < rt->world; r++) {
      if (r == rt->rank)
        continue;
      MPI_Request req;
      MPI_Isend(&sig, 1, MPI_INT, r, AIR_TAG_STOP, rt->comm, &req);
      MPI_Request_free(&req); /* 4 bytes go eagerly; nobody waits on it */
    }
  }
  if (!sig)
    return;
  *told = true;
  atomic_store(&rt->stop_sig, sig);
  atomic_store(&rt->stop, true);
  if (rt->rank == 0 && !rt->quiet)
    fprintf(stderr, "airc: %s: %s on rank %d: stopping the sources at one cut\n", rt->name,
            sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal", from);
}

void air_comm_run(AirRuntime *rt) {
  Inflight *inf = air_xmalloc(rt, (size_t)rt->world * AIR_MAX_EDGES * sizeof *inf);
  for (int i = 0; i < rt->world * AIR_MAX_EDGES; i++)
    inf[i].n = 0;
  AirEdge *recv[AIR_MAX_EDGES];
  int nrecv = 0;
  for (int i = 0; i < AIR_MAX_EDGES; i++) {
    AirEdge *e = rt->edges[i];
    if (e && e->consumer && e->consumer->active)
      recv[nrecv++] = e;
  }
  rt->inflight = inf; /* for a fatal error's way out */
  long idle_us = AIR_IDLE_MIN_US;
  bool local_done = false, stop_told = false;
  rt->end_barrier = MPI_REQUEST_NULL;
  for (;;) {
    air_fatal_poll(rt);
    poll_stop(rt, &stop_told);
    air_cut_poll(rt);
    air_ckpt_poll(rt, local_done);
    bool moved = false;
    for (int i = 0; i < rt->world * AIR_MAX_EDGES; i++)
      if (rt->outq[i])
        moved |= pump_sends(rt, &inf[i], i / AIR_MAX_EDGES, rt->outq[i]);
    for (int i = 0; i < nrecv; i++)
      moved |= pump_receives(rt, recv[i]);
    if (!local_done && atomic_load(&rt->live) == 0 && sends_drained(rt, inf)) {
      local_done = true;
      air_progress_poll(rt, true); /* the last report goes before the barrier */
      MPI_Ibarrier(rt->comm, &rt->end_barrier);
      rt->barrier_posted = true;
    }
    air_progress_poll(rt, local_done);
    if (local_done) {
      int flag = 0;
      MPI_Test(&rt->end_barrier, &flag, MPI_STATUS_IGNORE);
      if (flag && air_progress_settled(rt))
        break;
    }
    if (moved) {
      idle_us = AIR_IDLE_MIN_US;
    } else {
      struct timespec ts = {0, idle_us * 1000};
      nanosleep(&ts, NULL);
      idle_us = idle_us * 2 > AIR_IDLE_MAX_US ? AIR_IDLE_MAX_US : idle_us * 2;
    }
  }
  /* Stop notices sent before their senders reached the barrier: receive
   * them, so none is left unmatched at MPI_Finalize. */
  for (int flag = 1; flag;) {
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, AIR_TAG_STOP, rt->comm, &flag, &st);
    if (flag) {
      int sig;
      MPI_Recv(&sig, 1, MPI_INT, st.MPI_SOURCE, AIR_TAG_STOP, rt->comm, MPI_STATUS_IGNORE);
    }
  }
  air_cut_finish(rt);
  air_ckpt_finish(rt);
  air_progress_finish(rt);
  rt->inflight = NULL;
  free(inf);
}
