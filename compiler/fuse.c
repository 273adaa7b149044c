/* fuse.c - the physical plan: which operators of a chain run fused as one
 * loop on a rank (the paper's pipelining), and where rows cross ranks.
 *
 * Fused: stateless operators run in the source's loop, and an aggregate is
 * split into a per-rank partial aggregate (in that loop) and a final one
 * after an exchange on the group key, so per-key partials cross ranks, not
 * raw rows. Not fused (--no-fuse, the paper's AIR-P): every operator is its
 * own vertex and every edge a message; stateless edges spread rows by a hash
 * of the row, keyed operators receive rows by key hash.
 */
#include "airc.h"


#include <string.h>

typedef struct Fuser {
  Arena *a;
  Physical *ph;
  int cap_st, cap_e;
} Fuser;

static int add_stage(Fuser *f, Stage st) {
  Physical *ph = f->ph;
  if (ph->nstages == f->cap_st) {
    int ncap = f->cap_st ? f->cap_st * 2 : 16;
    Stage *n = arena_alloc(f->a, sizeof *n * ncap);
    if (ph->nstages) memcpy(n, ph->stages, sizeof *n * ph->nstages);
    ph->stages = n;
    f->cap_st = ncap;
  }
  st.id = ph->nstages + 1;
  st.edge = st.edge1 = -1;
  ph->stages[ph->nstages] = st;
  return ph->nstages++;
}

/* Rows of stage `from` go to input `to_input` of stage `to`. */
static void connect(Fuser *f, int from, int to, ExchangeKind kind, int to_input) {
  Physical *ph = f->ph;
  if (ph->nedges == f->cap_e) {
    int ncap = f->cap_e ? f->cap_e * 2 : 16;
    PEdge *n = arena_alloc(f->a, sizeof *n * ncap);
    if (ph->nedges) memcpy(n, ph->edges, sizeof *n * ph->nedges);
    ph->edges = n;
    f->cap_e = ncap;
  }
  int id = ph->nedges++;
  ph->edges[id] = (PEdge){.id = id, .kind = kind, .from = from, .to = to, .to_input = to_input};
  Stage *t = &ph->stages[to];
  if (to_input == 0) {
    t->edge = id;
    t->in = kind;
  } else {
    t->edge1 = id;
  }
  Stage *fr = &ph->stages[from];
  if (fr->nouts < AIRC_MAX_OUTS)
    fr->outs[fr->nouts++] = id;
  else if (!ph->too_many)
    ph->too_many = fr->chain; /* main.c reports it */
}

static ExchangeKind exchange_into(const Chain *ch, const Operator *op) {
  switch (op->kind) {
  case OP_AGGREGATION:
  case OP_JOIN: return XR_KEYHASH;
  case OP_REDUCE: return ch->sel->nkeys ? XR_KEYHASH : XR_SINGLE;
  case OP_SINK: return XR_GATHER;
  default: return XR_ROWHASH;
  }
}

/* The first stage of a leg reads a derived stream: its rows come from the
 * pipeline making that stream, on the same rank. */
static void feed_leg(Fuser *f, Plan *plan, int reader, int stage, const Relation *rel) {
  if (rel->kind != REL_DERIVED) return;
  /* its chain comes before the reader's, mostly just before: searched
   * from there down (from the first, 100k queries spent 44% here) */
  for (int c = reader - 1; c >= 0; c--)
    if (plan->chains[c].derived == rel) {
      connect(f, plan->chains[c].producer, stage, XR_SAME, 0);
      return;
    }
}

/* One stage per operator in [from, to] of a leg, chained by messages;
 * returns the last stage's index (or prev when the range is empty). */
static int unfused_run(Fuser *f, Chain *ch, int leg, int from, int to, int prev, int prev_input) {
  const Operator *ops = leg ? ch->ops1 : ch->ops;
  for (int i = from; i <= to; i++) {
    if (ch->sel->expand > 1 && (ops[i].kind == OP_AGGREGATION || ops[i].kind == OP_REDUCE)) {
      /* a row's copies have keys of their own, so no key routes the row:
       * it goes to any rank, whose partial takes its copies (codegen) */
      int part = add_stage(f, (Stage){.chain = ch, .leg = leg, .first = i, .last = i, .partial = true});
      if (prev >= 0) connect(f, prev, part, XR_ROWHASH, prev_input);
      prev = add_stage(f, (Stage){.chain = ch, .leg = leg, .first = i, .last = i, .final = true});
      connect(f, part, prev, exchange_into(ch, &ops[i]), 0);
      prev_input = 0;
      continue;
    }
    int st = add_stage(f, (Stage){.chain = ch, .leg = leg, .first = i, .last = i});
    if (prev >= 0) connect(f, prev, st, exchange_into(ch, &ops[i]), prev_input);
    prev = st;
    prev_input = 0;
  }
  return prev;
}

// fused chain = [Source .. Map|Aggregation(partial)] -> [Aggregation(final)] -> [Sink]
static const Operator *ops_of(const Stage *st) { return st->leg ? st->chain->ops1 : st->chain->ops; }
static bool is_join(const Stage *st) {
  return st->leg == 0 && st->chain->join_at >= 0 && st->first == st->chain->join_at;
}

/* A per-rank partial aggregate in a source's loop whose one group key is a
 * generated uniform(lo, hi) integer column of a small range keeps its
 * windows in arrays indexed by the key (AirDense) instead of hash tables. */
static bool dense_key(const Stage *st, int64_t *lo, int64_t *hi) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  if (!st->partial || st->edge >= 0 || ch->session || s->nkeys != 1) return false;
  /* an array of every key per window costs its size per window: not for
   * an updating query's short intervals (EMIT CHANGES: a window per ms) */
  if (s->updating && s->emit_ms < 1000) return false;
  if (select_grace(s)) return false; /* late rows go on as partials of their own (cg_rows.c) */
  const Expr *k = s->keys[0];
  const Relation *r = ch->source;
  if (k->kind != EX_COLUMN || k->from_idx != 0) return false;
  const Column *col = &r->cols[k->col_idx];
  if ((col->type.kind != TY_INT && col->type.kind != TY_BIGINT) || col->gen.kind != GEN_UNIFORM) return false;
  if (col->gen.a > col->gen.b || (uint64_t)col->gen.b - (uint64_t)col->gen.a >= (1u << 16)) return false;
  /* an INT column wraps values outside int32: they would leave [lo, hi] */
  if (col->type.kind == TY_INT && (col->gen.a < INT32_MIN || col->gen.b > INT32_MAX)) return false;
  *lo = col->gen.a;
  *hi = col->gen.b;
  return true;
}

/* Overlapping HOPPING windows of an aggregate share slices: one update per
 * row instead of one per window (issue 14: HOPPING 10 s by 100 ms was 73x
 * slower than TUMBLING). Joins keep rows per window. */
int64_t chain_slice_ms(const Chain *ch) {
  const WindowSpec *w = ch->sel->window;
  if (!ch->windowed || ch->session || ch->join_at >= 0 || !w || w->kind != WIN_HOPPING) return 0;
  if (ch->sel->topn_rows) return 0; /* its rows carry their window's bounds (cg_rows.c) */
  if (w->advance_ms >= w->size_ms) return 0;
  return air_slice_len(w->size_ms, w->advance_ms);
}

static StateShape state_of(const Stage *st) {
  const Operator *ops = ops_of(st);
  OperatorKind last = ops[st->last].kind;
  bool agg = (last == OP_AGGREGATION || last == OP_REDUCE) && ops[st->first].kind != OP_SINK;
  StateShape sh = {STATE_NONE, 0, 0, 0};
  if (is_join(st))
    sh.kind = STATE_JOIN;
  else if (st->chain->session && agg)
    sh.kind = STATE_SESSIONS;
  else if (dense_key(st, &sh.lo, &sh.hi))
    sh.kind = STATE_DENSE;
  else if (st->partial || st->final || agg)
    sh.kind = STATE_WINDOWS;
  if (sh.kind == STATE_WINDOWS || sh.kind == STATE_DENSE) sh.slice_ms = chain_slice_ms(st->chain);
  return sh;
}

typedef struct ReadCols {
  int f;      /* the FROM item */
  bool *cols; /* its columns read */
} ReadCols;

static bool mark_read(void *rc_, const Expr *e) {
  ReadCols *rc = rc_;
  if (e->kind == EX_COLUMN && e->from_idx == rc->f) rc->cols[e->col_idx] = true;
  return true;
}

/* Stage si's late columns (Stage.late): a generator makes only the columns
 * the queries read, and when one query's loop is the only reader and
 * starts with a Filter, the columns that Filter does not read are made only
 * for the rows it passes (for YSB: the ad id of a third of the events). */
static void late_columns(Arena *a, Physical *ph, int si) {
  Stage *st = &ph->stages[si];
  const Chain *ch = st->chain;
  const Relation *r = st->leg ? ch->source1 : ch->source;
  const Operator *ops = ops_of(st);
  if (st->edge >= 0 || st->first != 0 || r->kind != REL_SOURCE || r->source->all_columns) return;
  if (st->last < 1 || ops[1].kind != OP_FILTER) return;
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *o = &ph->stages[i];
    const Relation *orl = o->leg ? o->chain->source1 : o->chain->source;
    if (i != si && o->edge < 0 && o->first == 0 && orl == r) return; /* another loop reads it too */
  }
  bool *read = arena_alloc(a, (size_t)r->ncols * sizeof(bool));
  ReadCols rc = {st->leg, read};
  for (const Expr *p = ops[1].pred; p; p = p->next) expr_walk(p, mark_read, &rc);
  bool *late = arena_alloc(a, (size_t)r->ncols * sizeof(bool));
  bool any = false;
  for (int c = 0; c < r->ncols; c++) {
    late[c] = !read[c] && c != r->time_col && ch->used[st->leg][c];
    any |= late[c];
  }
  if (any) st->late = late;
}

Physical *fuse_plan(Arena *a, Plan *plan, bool fuse) {
  Physical *ph = arena_alloc(a, sizeof *ph);
  ph->plan = plan;
  ph->fused = fuse;
  Fuser f = {.a = a, .ph = ph};
  for (int c = 0; c < plan->nchains; c++) {
    Chain *ch = &plan->chains[c];
    int sink = ch->nops - 1, last = sink - 1;
    int j = ch->join_at;
    int first0 = ph->nstages, first1 = -1, producer;
    if (!fuse) {
      int l0 = unfused_run(&f, ch, 0, 0, j >= 0 ? j - 1 : last, -1, 0);
      if (j >= 0) {
        first1 = ph->nstages;
        int l1 = unfused_run(&f, ch, 1, 0, ch->nops1 - 1, -1, 0);
        int js = add_stage(&f, (Stage){.chain = ch, .first = j, .last = j});
        connect(&f, l0, js, XR_KEYHASH, 0);
        connect(&f, l1, js, XR_KEYHASH, 1);
        producer = unfused_run(&f, ch, 0, j + 1, last, js, 0);
      } else {
        producer = l0;
      }
    } else if (j >= 0) {
      int s0 = add_stage(&f, (Stage){.chain = ch, .first = 0, .last = j - 1});
      first1 = add_stage(&f, (Stage){.chain = ch, .leg = 1, .first = 0, .last = ch->nops1 - 1});
      producer = add_stage(&f, (Stage){.chain = ch, .first = j, .last = last});
      connect(&f, s0, producer, XR_KEYHASH, 0);
      connect(&f, first1, producer, XR_KEYHASH, 1);
    } else if (ch->windowed && !ch->session) {
      int s0 = add_stage(&f, (Stage){.chain = ch, .first = 0, .last = last, .partial = true});
      producer = add_stage(&f, (Stage){.chain = ch, .first = last, .last = last, .final = true});
      connect(&f, s0, producer, exchange_into(ch, &ch->ops[last]), 0);
    } else if (ch->session) {
      int s0 = add_stage(&f, (Stage){.chain = ch, .first = 0, .last = last - 1});
      producer = add_stage(&f, (Stage){.chain = ch, .first = last, .last = last});
      connect(&f, s0, producer, exchange_into(ch, &ch->ops[last]), 0);
    } else {
      producer = add_stage(&f, (Stage){.chain = ch, .first = 0, .last = last});
    }
    feed_leg(&f, plan, (int)(ch - plan->chains), first0, ch->source);
    if (first1 >= 0) feed_leg(&f, plan, (int)(ch - plan->chains), first1, ch->source1);
    ch->producer = producer;
    if (!ch->derived) {
      int ss = add_stage(&f, (Stage){.chain = ch, .first = sink, .last = sink});
      connect(&f, producer, ss, XR_GATHER, 0);
    }
  }
  for (int i = 0; i < ph->nstages; i++) {
    ph->stages[i].state = state_of(&ph->stages[i]);
    late_columns(a, ph, i);
  }
  return ph;
}

Payload edge_payload(const Physical *ph, const PEdge *e) {
  const Stage *to = &ph->stages[e->to];
  if (to->final) return PAY_PARTIALS;
  if (e->kind == XR_GATHER || e->kind == XR_SAME) return PAY_RESULTS;
  if (to->leg == 1 || (is_join(to) && e->to_input == 1)) return PAY_RIGHT_ROWS;
  if (is_join(to)) return PAY_LEFT_ROWS; /* no room for the side the join brings */
  return PAY_ROWS;
}

