/* plan.c - the logical plan: each query becomes a chain of the paper's
 * operators, Source -> [Filter] -> [StaticJoin] -> [Filter] ->
 * Map | Reduce | Aggregation -> Sink.
 *
 * Conjuncts of WHERE that read only the stream go before the StaticJoin (the
 * paper's YSB dataflow: Filter, then StaticJoin), the rest after it.
 */
#include "airc.h"

#include <string.h>

/* ---- which columns a chain reads ---------------------------------------- */

static bool mark_used_node(void *ch_, const Expr *e) {
  Chain *ch = ch_;
  if (e->kind == EX_COLUMN && e->from_idx >= 0 && e->from_idx < 2 && ch->used[e->from_idx])
    ch->used[e->from_idx][e->col_idx] = true;
  return true;
}

/* Mark the columns e reads (e NULL: none). */
static void mark_used(Chain *ch, const Expr *e) { expr_walk(e, mark_used_node, ch); }

/* ---- conjuncts ---------------------------------------------------------- */

typedef struct ReadsOnly {
  int from;   /* the FROM item */
  bool other; /* a column of another was seen */
} ReadsOnly;

static bool reads_only_node(void *ro_, const Expr *e) {
  ReadsOnly *ro = ro_;
  if (e->kind == EX_COLUMN && e->from_idx != ro->from) ro->other = true;
  return !ro->other;
}

/* Does e read columns of FROM item `from` only? */
static bool reads_only(const Expr *e, int from) {
  ReadsOnly ro = {from, false};
  expr_walk(e, reads_only_node, &ro);
  return !ro.other;
}

/* A fresh conjunct list: copies of the nodes' heads so that `next` links of
 * the original tree stay untouched. */
typedef struct ConjList {
  Expr *head, *tail;
} ConjList;

static void conj_add(Arena *a, ConjList *l, Expr *e) {
  Expr *c = arena_alloc(a, sizeof *c);
  *c = *e;
  c->next = NULL;
  if (l->tail)
    l->tail->next = c;
  else
    l->head = c;
  l->tail = c;
}

/* WHERE's conjuncts: those reading only the first FROM item go before the
 * join, those reading only a joined stream into its leg, the rest after. */
static void split_conjuncts(Arena *a, Expr *e, const Select *s, ConjList *pre,
                            ConjList *pre1, ConjList *post) {
  if (e->kind == EX_BINARY && e->op == OP_AND) {
    split_conjuncts(a, e->lhs, s, pre, pre1, post);
    split_conjuncts(a, e->rhs, s, pre, pre1, post);
    return;
  }
  if (s->comma_join && e == s->join_on) /* FROM a, b: the key equality is the join's */
    return;
  /* a side an outer join pads is tested after it: its NULLs are the join's */
  if (s->nfrom == 1 || (reads_only(e, 0) && !s->right_join))
    conj_add(a, pre, e);
  else if (!s->table_join && reads_only(e, 1) && !s->left_join)
    conj_add(a, pre1, e);
  else
    conj_add(a, post, e);
}

/* ---- chains ------------------------------------------------------------- */

static void add_op(Arena *a, Chain *ch, int *cap, Operator op) {
  if (ch->nops == *cap) {
    int ncap = *cap ? *cap * 2 : 8;
    Operator *n = arena_alloc(a, sizeof *n * ncap);
    if (ch->nops) memcpy(n, ch->ops, sizeof *n * ch->nops);
    ch->ops = n;
    *cap = ncap;
  }
  ch->ops[ch->nops++] = op;
}

// chain = Source Filter? StaticJoin? Filter? (Map | Reduce | Aggregation) Sink
//       | Source Filter? Join Filter? Map Sink,   leg 1 = Source Filter?
static void build_chain(Arena *a, Chain *ch) {
  Select *s = ch->sel;
  int cap = 0, cap1 = 0;
  bool stream_join = s->nfrom == 2 && !s->table_join;
  ch->join_at = -1;
  add_op(a, ch, &cap, (Operator){.kind = OP_SOURCE, .rel = ch->source});

  ConjList pre = {0}, pre1 = {0}, post = {0};
  if (s->where) split_conjuncts(a, s->where, s, &pre, &pre1, &post);
  if (!s->left_join && !s->right_join) /* an outer join tests them as it matches (cg_rows.c) */
    for (int i = 0; i < s->njoin_rest; i++) conj_add(a, &post, s->join_rest[i]);
  if (pre.head) add_op(a, ch, &cap, (Operator){.kind = OP_FILTER, .pred = pre.head});
  if (s->nfrom == 2 && s->table_join)
    add_op(a, ch, &cap, (Operator){.kind = OP_STATIC_JOIN, .rel = s->from[1].rel});
  if (stream_join) {
    ch->source1 = s->from[1].rel;
    Chain leg = {0};
    add_op(a, &leg, &cap1, (Operator){.kind = OP_SOURCE, .rel = ch->source1});
    if (pre1.head) add_op(a, &leg, &cap1, (Operator){.kind = OP_FILTER, .pred = pre1.head});
    ch->ops1 = leg.ops;
    ch->nops1 = leg.nops;
    ch->join_at = ch->nops;
    add_op(a, ch, &cap, (Operator){.kind = OP_JOIN, .rel = ch->source1});
  }
  if (post.head) add_op(a, ch, &cap, (Operator){.kind = OP_FILTER, .pred = post.head});

  switch (s->qkind) {
  case QK_AGGREGATION: add_op(a, ch, &cap, (Operator){.kind = OP_AGGREGATION}); break;
  case QK_REDUCE: add_op(a, ch, &cap, (Operator){.kind = OP_REDUCE}); break;
  case QK_JOIN:
  case QK_MAP: add_op(a, ch, &cap, (Operator){.kind = OP_MAP}); break;
  }
  ch->windowed = s->qkind != QK_MAP && !s->interval_join; /* an interval join's rows go on at once */
  ch->session = s->window && s->window->kind == WIN_SESSION;
  if (ch->stmt->kind == ST_CREATE_STREAM_AS) ch->derived = ch->stmt->rel;
  Relation *sink = ch->stmt->kind == ST_INSERT ? ch->stmt->rel : ch->derived;
  add_op(a, ch, &cap, (Operator){.kind = OP_SINK, .rel = sink});

  for (int f = 0; f < s->nfrom; f++) {
    Relation *r = s->from[f].rel;
    ch->used[f] = arena_alloc(a, sizeof(bool) * (r->ncols ? r->ncols : 1));
    if (r->time_col >= 0) ch->used[f][r->time_col] = true;
  }
  if (s->nfrom == 2 && s->table_join)
    ch->used[1][s->from[1].rel->key_col] = true;
  mark_used(ch, s->where);
  mark_used(ch, s->join_on);
  mark_used(ch, s->having);
  for (int i = 0; i < s->nout; i++) mark_used(ch, s->out[i].expr);
  for (int i = 0; i < s->nkeys; i++) mark_used(ch, s->keys[i]);
  for (int i = 0; i < s->naggs; i++) mark_used(ch, s->aggs[i]);
}

Plan *plan_build(Arena *a, Diag *d, Program *p, Catalog *cat) {
  Plan *pl = arena_alloc(a, sizeof *pl);
  pl->cat = cat;
  int n = 0;
  for (Stmt *st = p->stmts; st; st = st->next)
    if (st->select) n++;
  pl->chains = arena_alloc(a, sizeof(Chain) * (n ? n : 1));
  /* the first INSERT INTO each sink, by catalog index */
  Stmt **first = arena_alloc(a, sizeof(Stmt *) * (size_t)(cat && cat->nrels ? cat->nrels : 1));
  Stmt *stdout_by = NULL; /* the INSERT INTO a sink = 'stdout' */
  int queries = 0; /* user statements so far */
  for (Stmt *st = p->stmts; st; st = st->next) {
    if (!st->select) continue;
    if (st->kind == ST_INSERT && st->rel) {
      Stmt *prev = first[st->rel->index];
      if (prev) {
        diag_error(d, st->name_loc, "sink '%s' already has an INSERT INTO; write each query to its own sink",
                   st->rel->name);
        diag_note(d, prev->name_loc, "the first INSERT INTO '%s' is here", st->rel->name);
      } else {
        first[st->rel->index] = st;
      }
    }
    Select *s = st->select;
    if (!s->from[0].rel) continue;
    Chain *ch = &pl->chains[pl->nchains];
    ch->stmt = st;
    ch->sel = s;
    ch->source = s->from[0].rel;
    ch->index = pl->nchains++;
    /* a WITH query precedes its statement, which is the next query */
    ch->number = st->owner ? queries + 1 : ++queries;
    if (st->owner)
      snprintf(ch->label, sizeof ch->label, "query %d (%s %.60s)", ch->number, st->subquery ? "subquery" : "WITH",
               st->name);
    else
      snprintf(ch->label, sizeof ch->label, "query %d", ch->number);
    build_chain(a, ch);
    if (!ch->derived && st->kind != ST_INSERT) pl->nstdout++;
    /* a sink = 'stdout' has standard output to itself: its lines are not
     * tagged with the query's number (JSON lines stay JSON) */
    if (st->kind == ST_INSERT && st->rel && st->rel->sink && !st->rel->sink->file && !st->rel->sink->ops) {
      if (stdout_by)
        diag_error(d, st->name_loc, "sink '%s' (sink = 'stdout') would share standard output with another query; "
                   "write one of them to a file or another sink", st->rel->name);
      stdout_by = st;
    }
  }
  for (Stmt *st = p->stmts; st && stdout_by; st = st->next)
    if (st->select && st->kind == ST_SELECT) {
      diag_error(d, stdout_by->name_loc, "sink '%s' (sink = 'stdout') would share standard output with the "
                 "SELECT on line %d; write one of them to a file or another sink", stdout_by->rel->name, st->loc.line);
      break;
    }
  if (pl->nchains == 0 && d->nerrors == 0) {
    SrcLoc end = {1, 1, 1};
    diag_error(d, end, "the program has no query: add a SELECT or INSERT INTO statement");
  }
  return pl;
}

int chain_join_op(const Chain *ch) {
  for (int i = 0; i < ch->nops; i++)
    if (ch->ops[i].kind == OP_STATIC_JOIN || ch->ops[i].kind == OP_JOIN) return i;
  return -1;
}
