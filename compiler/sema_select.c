/* sema_select.c - SELECT: its items, aggregates, GROUP BY, JOIN ON and
 * WINDOW. */
#include "sema_int.h"

/* ---------------------------------------------------------------------
 * Aggregate queries
 * --------------------------------------------------------------------- */

typedef struct AggCollect {
  Sema *s;
  PtrVec aggs;
} AggCollect;

static void collect_aggs(void *arg, Expr *e) {
  AggCollect *ac = arg;
  if (e->kind == EX_CALL && e->agg != AGG_NONE) {
    for (int i = 0; i < ac->aggs.n; i++) {
      if (expr_equal(ac->aggs.v[i], e)) {
        e->agg_idx = i;
        return;
      }
    }
    e->agg_idx = ac->aggs.n;
    vec_push(ac->s->arena, &ac->aggs, e);
    return;
  }
  expr_each_child(e, collect_aggs, arg);
}

/* After aggregation only keys, aggregates, window bounds and constants
 * exist; anything else in the select list or HAVING is an error. */
static void check_grouped(void *arg, Expr *e) {
  Scope *sc = arg;
  Select *sel = sc->sel;
  for (int k = 0; k < sel->nkeys; k++) {
    if (expr_equal(e, sel->keys[k])) {
      e->key_idx = k;
      return;
    }
  }
  if (e->kind == EX_CALL && e->agg != AGG_NONE)
    return;
  if (e->kind == EX_COLUMN) {
    if (!is_err(e->type))
      diag_error(sc->s->d, e->loc,
                 "column '%s' must appear in GROUP BY or be used in an aggregate",
                 expr_label(e));
    return;
  }
  expr_each_child(e, check_grouped, arg);
}

/* ---------------------------------------------------------------------
 * JOIN ON: one equality between an expression over each side
 * --------------------------------------------------------------------- */

static void side_mask(void *arg, Expr *e) {
  int *mask = arg;
  if (e->kind == EX_COLUMN && e->from_idx >= 0)
    *mask |= 1 << e->from_idx;
  expr_each_child(e, side_mask, arg);
}

static int sides_of(Expr *e) {
  int m = 0;
  side_mask(&m, e);
  return m;
}

static void collect_conjuncts(Expr *e, PtrVec *out, Arena *a) {
  if (e->kind == EX_BINARY && e->op == OP_AND) {
    collect_conjuncts(e->lhs, out, a);
    collect_conjuncts(e->rhs, out, a);
    return;
  }
  vec_push(a, out, e);
}

/* A join with a table must look it up by its PRIMARY KEY. */
static void check_table_key(Scope *sc) {
  Select *sel = sc->sel;
  if (!sel->table_join || !sel->join_rkey || !sc->rel[1] || sc->rel[1]->key_col < 0)
    return;
  Relation *tab = sc->rel[1];
  Expr *r = sel->join_rkey;
  if (r->kind != EX_COLUMN || r->col_idx != tab->key_col)
    diag_error(sc->s->d, r->loc, "a JOIN with table '%s' must match its PRIMARY KEY '%s'",
               tab->name, tab->cols[tab->key_col].name);
}

/* Is c an equality between an expression over each side? */
static bool side_equality(Expr *c) {
  if (c->kind != EX_BINARY || c->op != OP_EQ) return false;
  int ml = sides_of(c->lhs), mr = sides_of(c->rhs);
  return (ml == 1 && mr == 2) || (ml == 2 && mr == 1);
}

/* FROM a, b: WHERE (checked) must hold an equality between the sides,
 * which becomes the join's key (a table's: the one on its PRIMARY KEY);
 * every conjunct of WHERE, that one too, is still tested after the join. */
static void check_comma_join(Scope *sc) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  PtrVec conj = {0};
  if (sel->where) collect_conjuncts(sel->where, &conj, s->arena);
  Expr *key = NULL;
  for (int i = 0; i < conj.n; i++) {
    Expr *c = conj.v[i];
    if (!side_equality(c)) continue;
    int ml = sides_of(c->lhs);
    Expr *r = ml == 2 ? c->lhs : c->rhs;
    bool pk = sel->table_join && sc->rel[1] && r->kind == EX_COLUMN && r->col_idx == sc->rel[1]->key_col;
    if (!key || pk) key = c;
    if (pk || !sel->table_join) break;
  }
  if (!key) {
    diag_error(s->d, sel->from[1].loc,
               "a join written 'FROM %s, %s' needs an equality between the two in WHERE "
               "(such as %s.k = %s.k); other joins are not supported",
               sc->qual[0], sc->qual[1], sc->qual[0], sc->qual[1]);
    return;
  }
  int ml = sides_of(key->lhs);
  sel->join_on = key;
  sel->join_lkey = ml == 1 ? key->lhs : key->rhs;
  sel->join_rkey = ml == 1 ? key->rhs : key->lhs;
  check_table_key(sc);
}

/* ---- interval joins ----------------------------------------------------
 * A conjunct that bounds one stream's event time by the other's:
 *   X BETWEEN Y [+|- interval] AND Y [+|- interval]
 *   X op Y [+|- interval]     (op one of <, <=, >, >=; either side may
 *                              carry the interval)
 * X and Y the event-time columns of the two streams. Each narrows
 * d = from[1].ts - from[0].ts to [lo, hi]. */
/* e as ts_f + off: the event-time column of FROM item *f, plus or minus an
 * INTERVAL literal. */
static bool time_term(const Scope *sc, const Expr *e, int *f, int64_t *off) {
  *off = 0;
  if (e->kind == EX_BINARY && (e->op == OP_ADD || e->op == OP_SUB) && e->rhs->kind == EX_INTERVAL) {
    *off = e->op == OP_ADD ? e->rhs->ival : -e->rhs->ival;
    e = e->lhs;
  } else if (e->kind == EX_BINARY && e->op == OP_ADD && e->lhs->kind == EX_INTERVAL) {
    *off = e->lhs->ival;
    e = e->rhs;
  }
  if (e->kind != EX_COLUMN || e->from_idx < 0 || e->from_idx > 1 || !sc->rel[e->from_idx]) return false;
  *f = e->from_idx;
  return sc->rel[*f]->time_col == e->col_idx;
}

static void bound_d(TimeBounds *tb, bool upper, int64_t v) {
  if (upper && (!tb->hi_set || v < tb->hi)) tb->hi = v;
  if (!upper && (!tb->lo_set || v > tb->lo)) tb->lo = v;
  if (upper) tb->hi_set = true;
  else tb->lo_set = true;
}

/* x op y over two time terms: a bound of d, when they are of both streams. */
static bool time_cmp(const Scope *sc, OpKind op, const Expr *x, const Expr *y, TimeBounds *tb) {
  int fx, fy;
  int64_t cx, cy;
  if (!time_term(sc, x, &fx, &cx) || !time_term(sc, y, &fy, &cy) || fx == fy) return false;
  /* ts_fx + cx op ts_fy + cy: ts_fx - ts_fy op cy - cx; for fx = 0 that is
   * -d op cy - cx, d op' cx - cy with op mirrored */
  int64_t c = fx == 1 ? cy - cx : cx - cy;
  bool upper;
  switch (op) {
  case OP_LE: upper = fx == 1; break;
  case OP_LT: upper = fx == 1; c += fx == 1 ? -1 : 1; break;
  case OP_GE: upper = fx == 0; break;
  case OP_GT: upper = fx == 0; c += fx == 0 ? -1 : 1; break;
  default: return false;
  }
  bound_d(tb, upper, c);
  return true;
}

static bool time_bound(const Scope *sc, const Expr *c, TimeBounds *tb) {
  TimeBounds t = *tb;
  bool ok = c->kind == EX_BETWEEN ? time_cmp(sc, OP_GE, c->lhs, c->rhs, &t) && time_cmp(sc, OP_LE, c->lhs, c->third, &t)
                                  : c->kind == EX_BINARY && time_cmp(sc, c->op, c->lhs, c->rhs, &t);
  if (!ok) return false;
  if (!tb->lo_set && !tb->hi_set) t.loc = c->loc;
  *tb = t;
  return true;
}

/* The name of FROM item f's event-time column. */
static const char *time_name(const Scope *sc, int f) {
  const Relation *r = sc->rel[f];
  return r->time_col >= 0 ? r->cols[r->time_col].name : "ts";
}

/* A regular join (no WINDOW, no time bounds or one only, no state_ttl):
 * every row of both sides is kept for ever. ON's one-way bound, if any,
 * is tested on each pair, as the rest of ON (WHERE's stays in WHERE). An
 * outer one writes changes: its padded rows are taken back. */
static void regular_join(Scope *sc) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  /* an outer one: a kept row that met none goes on padded at once, and is
   * taken back when its first match comes (airc.h, join_retracts) */
  sel->join_retracts = sel->left_join || sel->right_join;
  if (sc->tb_on.n) {
    Expr **rest = arena_alloc(s->arena, sizeof(Expr *) * (size_t)(sel->njoin_rest + sc->tb_on.n));
    for (int i = 0; i < sel->njoin_rest; i++) rest[i] = sel->join_rest[i];
    for (int i = 0; i < sc->tb_on.n; i++) rest[sel->njoin_rest + i] = sc->tb_on.v[i];
    sel->join_rest = rest;
    sel->njoin_rest += sc->tb_on.n;
  }
  sel->interval_join = true; /* planned as one whose bounds are all of time (airc.h) */
  sel->regular_join = true;
  if (!sel->state_ttl) /* one not positive: check_state_ttl's error says what to write */
      diag_warning(s->d, sel->from[1].loc, "this join keeps every row of both inputs; set state_ttl to keep each "
                 "for that much event time (WITH (state_ttl = 1 HOUR) after the query: an interval join of "
                 "%s.%s - %s.%s within 1 hour either way), or join per WINDOW",
                 sc->qual[1], time_name(sc, 1), sc->qual[0], time_name(sc, 0));
}

/* Is the join of two streams without a WINDOW an interval join (bounds in
 * ON, or in WHERE, or a state_ttl), a regular join (none), and a sound one? */
static void check_interval_join(Scope *sc) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  if (sel->where) {
    PtrVec conj = {0};
    collect_conjuncts(sel->where, &conj, s->arena);
    for (int i = 0; i < conj.n; i++)
      if (time_bound(sc, conj.v[i], &sc->tb) && (sel->left_join || sel->right_join)) {
        /* WHERE is tested after an outer join: on the padded rows too */
        diag_error(s->d, ((Expr *)conj.v[i])->loc, "an outer interval join's time bounds go in ON: in WHERE "
                   "they are tested after the join, and drop every padded row (its times are NULL)");
        return;
      }
  }
  TimeBounds *tb = &sc->tb;
  const char *t0 = time_name(sc, 0), *t1 = time_name(sc, 1);
  /* WITH (state_ttl = d): the interval join of d = b.ts - a.ts in [-d, d],
   * within the bounds written if any (check_state_ttl reports a bad d) */
  const Expr *ttl = sel->state_ttl;
  if (ttl && ttl->kind == EX_INTERVAL && ttl->ival > AIRC_MAX_SPAN_MS) {
    diag_error(s->d, ttl->loc, "this state_ttl is longer than the TIMESTAMP range: without it the join keeps "
               "every row (a regular join)");
    return;
  }
  if (ttl && ttl->kind == EX_INTERVAL && ttl->ival > 0) {
    if (!tb->lo_set && !tb->hi_set) tb->loc = sel->state_ttl_loc;
    bound_d(tb, false, -ttl->ival);
    bound_d(tb, true, ttl->ival);
  }
  if (!tb->lo_set || !tb->hi_set) {
    regular_join(sc);
    return;
  }
  if (tb->lo > tb->hi) {
    diag_error(s->d, tb->loc, "these time bounds leave no pair to join: %s.%s - %s.%s would be at least %lld "
               "ms and at most %lld ms", sc->qual[1], t1, sc->qual[0], t0, (long long)tb->lo, (long long)tb->hi);
    return;
  }
  sel->interval_join = true;
  sel->ij_lo = tb->lo;
  sel->ij_hi = tb->hi;
}

/* Which window bound e names as a window TVF's column (L.window_start,
 * L.window_end, L.window_time, of a FROM item that is a window TVF): 1, 2,
 * 3; else 0. */
static int tvf_window_word(const Scope *sc, const Expr *e) {
  if (e->kind != EX_COLUMN || !e->qual || !e->name) return 0;
  int w = strcasecmp(e->name, "window_start") == 0 ? 1 : strcasecmp(e->name, "window_end") == 0 ? 2
          : strcasecmp(e->name, "window_time") == 0 ? 3 : 0;
  for (int i = 0; i < sc->nfrom && w; i++)
    if (sc->qual[i] && strcmp(sc->qual[i], e->qual) == 0 && sc->sel->from[i].tvf && sc->rel[i] &&
        find_col(sc->rel[i], e->name) < 0)
      return w;
  return 0;
}

/* ON without the conjuncts L.window_start = R.window_start (window_end,
 * window_time) of two window TVFs, as Flink's window joins are written:
 * the rows of a windowed join's pair share their window anyway. */
static Expr *drop_window_equalities(const Scope *sc, Expr *e) {
  if (!e) return NULL;
  if (e->kind == EX_BINARY && e->op == OP_AND) {
    Expr *l = drop_window_equalities(sc, e->lhs), *r = drop_window_equalities(sc, e->rhs);
    if (!l || !r) return l ? l : r;
    e->lhs = l;
    e->rhs = r;
    return e;
  }
  if (e->kind == EX_BINARY && e->op == OP_EQ && tvf_window_word(sc, e->lhs) &&
      tvf_window_word(sc, e->lhs) == tvf_window_word(sc, e->rhs) && strcmp(e->lhs->qual, e->rhs->qual) != 0)
    return NULL;
  return e;
}

static void check_join(Scope *sc) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  if (sel->join_on && sel->window && sel->from[0].tvf && sel->from[1].tvf) {
    Expr *on = drop_window_equalities(sc, sel->join_on);
    if (!on)
      diag_error(s->d, sel->join_on->loc, "this window join's ON names only the window: it needs the key the "
                 "rows meet on as well (ON L.k = R.k AND L.window_start = R.window_start ...)");
    sel->join_on = on;
    if (!on) return;
  }
  if (!sel->join_on) {
    diag_error(s->d, sel->from[1].loc, "JOIN needs an ON condition");
    return;
  }
  sc->clause = CL_ON;
  Type t = check_expr(sc, sel->join_on);
  if (is_err(t) || !sc->rel[0] || !sc->rel[1])
    return;
  PtrVec conj = {0}, rest = {0};
  bool bad = false;
  collect_conjuncts(sel->join_on, &conj, s->arena);
  /* Several equalities: one is the key the rows are hashed (or, with a
   * table, looked up) on, the others are tested on each joined row. With a
   * table the key is the equality on its PRIMARY KEY, wherever it stands;
   * between streams the first. */
  int key_at = -1;
  for (int i = 0; i < conj.n && sel->table_join && sc->rel[1]->key_col >= 0 && key_at < 0; i++) {
    Expr *c = conj.v[i];
    if (c->kind != EX_BINARY || c->op != OP_EQ) continue;
    int ml = sides_of(c->lhs), mr = sides_of(c->rhs);
    Expr *r = ml == 2 && mr == 1 ? c->lhs : ml == 1 && mr == 2 ? c->rhs : NULL;
    if (r && r->kind == EX_COLUMN && r->col_idx == sc->rel[1]->key_col) key_at = i;
  }
  for (int i = 0; i < conj.n; i++) {
    Expr *c = conj.v[i];
    Expr *l = NULL, *r = NULL;
    if (c->kind == EX_BINARY && c->op == OP_EQ) {
      int ml = sides_of(c->lhs), mr = sides_of(c->rhs);
      if (ml == 1 && mr == 2) {
        l = c->lhs;
        r = c->rhs;
      } else if (ml == 2 && mr == 1) {
        l = c->rhs;
        r = c->lhs;
      }
    }
    if (!l && !sel->table_join && time_bound(sc, c, &sc->tb)) { /* an interval join's */
      vec_push(s->arena, &sc->tb_on, c);
      continue;
    }
    if (!l) { /* another condition: tested on each pair (on an outer join, as it matches) */
      vec_push(s->arena, &rest, c);
      continue;
    }
    if (sel->join_lkey || (key_at >= 0 && i != key_at)) {
      vec_push(s->arena, &rest, c);
      continue;
    }
    sel->join_lkey = l;
    sel->join_rkey = r;
  }
  if (!sel->join_lkey) {
    if (bad) return;
    if (sel->table_join)
      diag_error(s->d, sel->join_on->loc, "JOIN ON with a TABLE needs an equality between an expression over '%s' "
                 "and one over '%s': the lookup of its row (ON %s.k = %s.key AND ...)",
                 sc->qual[0], sc->qual[1], sc->qual[0], sc->qual[1]);
    else
      diag_error(s->d, sel->join_on->loc, "JOIN ON needs an equality between an expression over '%s' and one over "
                 "'%s': the key the rows meet on (an interval join's too: ON %s.k = %s.k AND ...)",
                 sc->qual[0], sc->qual[1], sc->qual[0], sc->qual[1]);
    return;
  }
  sel->join_rest = (Expr **)rest.v;
  sel->njoin_rest = rest.n;
  if (sel->right_join && sel->table_join)
    diag_error(s->d, sel->from[1].loc, "%s JOIN with a TABLE: a table's rows are looked up by the stream's, never "
               "emitted on their own; put the stream first and write LEFT JOIN (docs/language.md, \"Joins\")",
               sel->left_join ? "FULL" : "RIGHT");
  check_table_key(sc);
}

/* ---------------------------------------------------------------------
 * WINDOW
 * --------------------------------------------------------------------- */

static int64_t window_len(Sema *s, Expr *e, const char *what) {
  if (!e)
    return 0;
  init_ann(e);
  if (e->kind != EX_INTERVAL) {
    diag_error(s->d, e->loc, "window %s must be an interval such as 10 SECONDS", what);
    return 0;
  }
  e->type = mk_type(TY_INTERVAL);
  if (e->ival <= 0) {
    diag_error(s->d, e->loc, "window %s must be positive", what);
    return 0;
  }
  if (e->ival > AIRC_MAX_SPAN_MS) {
    diag_error(s->d, e->loc,
               "window %s of %lld ms is longer than the TIMESTAMP range (years 1 to 9999, "
               "%lld ms)", what, (long long)e->ival, (long long)AIRC_MAX_SPAN_MS);
    return 0;
  }
  return e->ival;
}

static void check_window(Sema *s, WindowSpec *w) {
  switch (w->kind) {
  case WIN_TUMBLING:
    w->size_ms = window_len(s, w->size, "SIZE");
    w->advance_ms = w->size_ms;
    break;
  case WIN_HOPPING:
    w->size_ms = window_len(s, w->size, "SIZE");
    w->advance_ms = window_len(s, w->advance, "ADVANCE BY");
    if (w->size_ms > 0 && w->advance_ms > w->size_ms)
      diag_error(s->d, w->advance->loc, "ADVANCE BY (%lld ms) must not exceed SIZE (%lld ms)",
                 (long long)w->advance_ms, (long long)w->size_ms);
    else if (w->advance_ms > 0 &&
             (w->size_ms + w->advance_ms - 1) / w->advance_ms > AIRC_WARN_WINDOWS_PER_ROW)
      diag_warning(s->d, w->advance->loc,
                   "every row falls in %lld windows (SIZE / ADVANCE BY): aggregates share "
                   "slices, but each window makes its own result rows (and a join keeps the row "
                   "in every one)",
                   (long long)((w->size_ms + w->advance_ms - 1) / w->advance_ms));
    break;
  case WIN_SESSION:
    w->gap_ms = window_len(s, w->gap, "GAP");
    break;
  default:
    diag_error(s->d, w->loc, "internal: window without a kind");
    break;
  }
  if (w->grace) w->grace_ms = window_len(s, w->grace, "GRACE PERIOD");
}

/* WINDOW ... GRACE PERIOD: what takes it (a TUMBLING aggregation whose
 * rows are its aggregates, written as a changelog); the rest refused. */
static void check_grace(Scope *sc, bool sjoin, bool aggq) {
  Select *sel = sc->sel;
  Sema *s = sc->s;
  WindowSpec *w = sel->window;
  const char *why = NULL;
  if (w->kind == WIN_SESSION)
    why = "a SESSION window takes no GRACE PERIOD yet (a late row could merge two sessions already written)";
  else if (w->kind == WIN_HOPPING)
    why = "a HOPPING window takes no GRACE PERIOD yet (its windows share slices); a TUMBLING one does";
  else if (sjoin || !aggq || sel->topn_rows)
    why = "GRACE PERIOD is for windowed aggregations (GROUP BY or aggregates): a JOIN or a window's rows take none";
  else if (sel->order_by || sel->limit || sel->top_n)
    why = "a window with a GRACE PERIOD takes no ORDER BY or LIMIT: its late rows change results already written";
  else if (sel->emit == EMIT_FINAL)
    why = "EMIT FINAL writes each window once, and a GRACE PERIOD updates it: write one or the other";
  if (why) {
    diag_error(s->d, w->grace->loc, "%s", why);
    w->grace_ms = 0;
  }
}

/* ---------------------------------------------------------------------
 * Updating queries: aggregates without a WINDOW (airc.h, Select.updating)
 * --------------------------------------------------------------------- */

/* All of time as one interval: EMIT FINAL's, closed by the end of input. */
#define UPDATING_FINAL_MS (INT64_C(1) << 62)

/* An updating query: its emission interval as a tumbling window of the
 * plan (every later phase sees a window), and what it cannot take. */
static void check_updating(Scope *sc) {
  Select *sel = sc->sel;
  Sema *s = sc->s;
  int64_t ms = 1; /* EMIT CHANGES, the default: every millisecond of event time that changed a key */
  if (sel->emit == EMIT_FINAL) {
    ms = UPDATING_FINAL_MS;
  } else if (sel->emit == EMIT_EVERY) {
    Expr *e = sel->emit_every;
    init_ann(e);
    e->type = mk_type(TY_INTERVAL);
    if (e->kind != EX_INTERVAL || e->ival <= 0) {
      diag_error(s->d, e->loc, "EMIT EVERY needs a positive interval such as 10 SECONDS");
    } else if (e->ival > AIRC_MAX_SPAN_MS) {
      diag_error(s->d, e->loc, "EMIT EVERY's interval is longer than the TIMESTAMP range; "
                 "EMIT FINAL writes the table once, at the end of the input");
    } else {
      ms = e->ival;
    }
  }
  if (sel->order_by || sel->limit) {
    diag_error(s->d, sel->order_by ? sel->order_by->expr->loc : sel->limit_loc,
               "an updating query (GROUP BY without WINDOW) takes no ORDER BY or LIMIT: each emission's "
               "changes are written in the order of the GROUP BY keys");
    sel->order_by = NULL; /* said once */
    sel->limit = 0;
    return;
  }
  if (sel->topn_rows) {
    diag_error(s->d, sel->loc, "a Top-N needs a WINDOW here: an updating query (GROUP BY without WINDOW) does "
               "not keep its rows yet");
    return;
  }
  WindowSpec *w = arena_alloc(s->arena, sizeof(WindowSpec));
  w->kind = WIN_TUMBLING;
  w->loc = sel->loc;
  w->size_ms = w->advance_ms = ms;
  w->emit = sel->emit == EMIT_NONE ? EMIT_CHANGES : sel->emit;
  sel->window = w;
  sel->updating = true;
  sel->emit_ms = ms;
  const Relation *in = sc->rel[0];
  if (in && relation_unbounded(in) && sel->emit == EMIT_FINAL)
    diag_warning(s->d, sel->emit_loc, "'%s' has no end, and EMIT FINAL writes the table at the end of the input: "
                 "only a stop with --on-stop emit writes it; EMIT EVERY writes its changes as they come", in->name);
  else if (in && relation_unbounded(in) && !sel->state_ttl)
    diag_warning(s->d, sel->nkeys ? sel->keys[0]->loc : sel->loc,
                 "this updating query keeps every key it has seen, and '%s' has no end: its state grows with "
                 "the keys; WITH (state_ttl = 1 HOUR) after EMIT drops the keys idle that long", in->name);
}

/* WITH (state_ttl = d): how long an updating query keeps a key no row
 * touched, in event time (Select.ttl_ms); how far apart in event time a
 * join's rows can meet (check_interval_join: the interval join of [-d, d]).
 * A window's state ends with it. */
static void check_state_ttl(Scope *sc, bool sjoin) {
  Select *sel = sc->sel;
  Sema *s = sc->s;
  Expr *e = sel->state_ttl;
  init_ann(e);
  e->type = mk_type(TY_INTERVAL);
  if (e->kind != EX_INTERVAL || e->ival <= 0) {
    diag_error(s->d, e->loc, "state_ttl must be a positive interval such as 1 HOUR");
    return;
  }
  if (sjoin && !sel->window) { /* a join's rows: check_interval_join made it an interval join of [-d, d] */
    sel->ttl_ms = e->ival;
    return;
  }
  if (!sel->updating || sjoin) {
    diag_error(s->d, sel->state_ttl_loc, "state_ttl is for updating queries (GROUP BY without WINDOW) and joins "
               "of two streams without a WINDOW: %s",
               sel->window ? "a window's state ends when the window closes" : "this query keeps no state");
    return;
  }
  if (sel->emit == EMIT_FINAL) {
    diag_error(s->d, sel->state_ttl_loc, "state_ttl drops keys idle that long, and EMIT FINAL writes the table "
               "once, at the end: write EMIT EVERY or EMIT CHANGES");
    return;
  }
  sel->ttl_ms = e->ival;
}

/* A query over an updating stream: a row adds or takes itself back, so
 * only an unwindowed aggregation of aggregates that take rows back, or
 * rows passed on one by one (a filter, a table's lookup) can read it. */
static void check_retract(Scope *sc, bool sjoin) {
  Select *sel = sc->sel;
  Sema *s = sc->s;
  int f = sc->rel[0] && sc->rel[0]->updating ? 0 : 1;
  const Relation *r = sc->rel[f];
  if (sjoin || (sel->window && !sel->updating)) {
    bool ojoin = r->def && r->def->select && r->def->select->join_retracts;
    diag_error(s->d, sel->from[f].loc,
               "'%s' is an updating stream (%s): %s over it is not "
               "supported; aggregate it without a WINDOW (EMIT EVERY gives its state at each interval)",
               r->name, ojoin ? "an outer join without WINDOW, whose padded rows are taken back"
                        : r->def && r->def->select && select_grace(r->def->select) ? "the changes of a window with a GRACE PERIOD"
                                                                                   : "the changes of a GROUP BY without WINDOW",
               sjoin ? "a JOIN of two streams" : "a WINDOW");
    diag_note(s->d, r->loc, "'%s' is declared here", r->name);
    return;
  }
  for (int j = 0; j < sel->naggs; j++) {
    const Expr *a = sel->aggs[j];
    if (!agg_defs[a->agg].retract) {
      diag_error(s->d, a->loc,
                 "%s cannot take rows back, and '%s' is an updating stream whose rows are taken back when "
                 "they change: over it, use COUNT, SUM or AVG",
                 agg_defs[a->agg].name, r->name);
      diag_note(s->d, r->loc, "'%s' is declared here", r->name);
      return;
    }
  }
  if (sel->emit == EMIT_FINAL && !sel->updating) {
    diag_error(s->d, sel->emit_loc, "EMIT FINAL is for aggregates: this query passes each change on");
    return;
  }
  sel->retract = true;
}

/* ---------------------------------------------------------------------
 * SELECT
 * --------------------------------------------------------------------- */

static const char *out_name(SelectItem *it) {
  Expr *e = it->expr;
  if (it->alias)
    return it->alias;
  switch (e->kind) {
  case EX_COLUMN: return e->name;
  case EX_WINDOW_START: /* as written: Flink's window_start */
  case EX_WINDOW_END: return e->text ? e->text : e->kind == EX_WINDOW_START ? "WINDOW_START" : "WINDOW_END";
  default: return e->text ? e->text : "?column?";
  }
}

static void resolve_from(Scope *sc) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  sc->nfrom = sel->nfrom;
  if (sel->comma_join && sel->nfrom == 2) {
    /* FROM table, stream (Nexmark's q4: FROM auction A, bid B): an inner
     * join is the same either way, and a table is looked up by the
     * stream's rows, so it goes second ('*' lists the stream's columns first) */
    const Relation *a = scope_find(s, sel->from[0].name), *b = scope_find(s, sel->from[1].name);
    if (a && b && a->kind == REL_TABLE && b->kind != REL_TABLE) {
      FromItem t = sel->from[0];
      sel->from[0] = sel->from[1];
      sel->from[1] = t;
    }
  }
  for (int i = 0; i < sel->nfrom; i++) {
    FromItem *f = &sel->from[i];
    f->rel = NULL;
    sc->qual[i] = f->alias ? f->alias : f->name;
    Relation *r = scope_find(s, f->name);
    if (!r) {
      diag_error(s->d, f->loc, "unknown stream '%s'", f->name);
      const Relation *other = NULL; /* a WITH query of another statement */
      for (int k = 0; k < s->cat->nrels && !other; k++)
        if (s->cat->rels[k]->owner && strcmp(s->cat->rels[k]->name, f->name) == 0) other = s->cat->rels[k];
      if (other) {
        diag_note(s->d, other->loc, "a %s '%s' is here, seen only by its own statement",
                  other->def->subquery ? "subquery" : "WITH query", f->name);
        sc->bad_from = true;
        continue;
      }
      suggest_relation(s, f->loc, f->name,
                       i == 0 ? 1u << REL_SOURCE | 1u << REL_DERIVED
                              : 1u << REL_SOURCE | 1u << REL_DERIVED | 1u << REL_TABLE);
      sc->bad_from = true;
      continue;
    }
    if (r->kind == REL_SINK) {
      diag_error(s->d, f->loc, "cannot read from sink '%s'", f->name);
      sc->bad_from = true;
      continue;
    }
    if (r->kind == REL_TABLE && i == 0) {
      if (sel->comma_join)
        diag_error(s->d, f->loc, "table '%s' goes second: FROM stream, %s (a table is looked up by the stream's rows)",
                   f->name, f->name);
      else
        diag_error(s->d, f->loc, "table '%s' can only be the right side of a JOIN", f->name);
      sc->bad_from = true;
      continue;
    }
    if (r->kind == REL_TABLE)
      sel->table_join = true;
    r->used = true;
    f->rel = r;
    sc->rel[i] = r;
    if (f->tvf_time && (r->time_col < 0 || strcmp(r->cols[r->time_col].name, f->tvf_time) != 0)) {
      if (r->time_col < 0)
        diag_error(s->d, f->tvf_time_loc, "'%s' has no event time to window", f->name);
      else
        diag_error(s->d, f->tvf_time_loc,
                   "DESCRIPTOR(%s): the window's time is '%s', the event time of '%s' (its WATERMARK's column)",
                   f->tvf_time, r->cols[r->time_col].name, f->name);
      sc->bad_from = true;
    }
  }
  if (sel->nfrom == 2 && strcmp(sc->qual[0], sc->qual[1]) == 0) {
    FromItem *f = &sel->from[1];
    diag_error(s->d, f->alias ? f->alias_loc : f->loc,
               "'%s' names both sides of the JOIN; give them different aliases", sc->qual[1]);
    sc->bad_from = true;
    sc->rel[1] = NULL;
  }
}

/* Checks one query.  If stream is not NULL the query defines that stream
 * and its output names must be distinct.  If out_locs is not NULL it gets
 * the location of each output column, for later messages.  Clauses are
 * checked in source order after FROM, so messages mostly come in order. */
/* A Top-N of a window's rows (ROW_NUMBER() over a windowed query without
 * aggregates, build_row_number, or its ORDER BY ... LIMIT n): planned as an aggregation grouped by the
 * partition's columns whose accumulator is the partition's first `limit`
 * rows in order, so that each rank keeps its own first n before the
 * exchange (cg_rows.c). The partition: the first limit_part ORDER BY items,
 * positions of output columns. */
#define TOPN_ROWS_MAX 1000
static void check_topn_rows(Scope *sc) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  if (sel->window->kind == WIN_SESSION) return; /* refused by the rewrite */
  if (sel->limit > TOPN_ROWS_MAX) /* (still planned as one below, for the messages after) */
    diag_error(s->d, sel->limit_loc, "a Top-N of a window's rows keeps at most %d rows per partition (their "
               "first n are its state on every rank): rank an aggregate instead, or keep fewer", TOPN_ROWS_MAX);
  sel->topn_rows = true;
  sel->nkeys = sel->limit_part;
  sel->keys = arena_alloc(s->arena, sizeof(Expr *) * (size_t)(sel->nkeys ? sel->nkeys : 1));
  const OrderItem *o = sel->order_by;
  for (int k = 0; k < sel->nkeys && o; k++, o = o->next) {
    int pos = (int)o->expr->ival - 1; /* the rewrite's positions */
    sel->keys[k] = sel->out[pos].expr;
    if (sel->keys[k]->type.kind == TY_NULL) {
      diag_error(s->d, sel->keys[k]->loc, "NULL has no type here: write CAST(NULL AS type)");
      sel->topn_rows = false;
    }
  }
}

/* A Top-N's conditions beside rownum <= n (Select.rank_where): over the
 * rows it writes, numbered, their columns the outputs by the names the
 * ranked query gives them (a relation of them, read as a derived stream's
 * rows are, O rows: cg_types.c's keep_O). */
static void check_rank_where(Scope *outer) {
  Sema *s = outer->s;
  Select *sel = outer->sel;
  Relation *r = arena_alloc(s->arena, sizeof(Relation));
  r->kind = REL_DERIVED;
  r->name = "the numbered rows";
  r->loc = sel->loc;
  r->time_col = r->meta_col = r->proc_col = r->key_col = r->index = -1;
  r->ncols = sel->nout;
  r->cols = arena_alloc(s->arena, sizeof(Column) * (size_t)(sel->nout ? sel->nout : 1));
  for (int i = 0; i < sel->nout; i++)
    r->cols[i] = (Column){.name = sel->rank_names[i], .type = sel->out[i].type, .loc = sel->out[i].expr->loc,
                          .ysb_field = -1};
  Select *none = arena_alloc(s->arena, sizeof(Select)); /* no join, no window: the rows alone */
  none->nfrom = 1;
  none->from[0].rel = r;
  Scope sc = {.s = s, .sel = none, .rel = {r}, .qual = {NULL}, .nfrom = 1, .clause = CL_WHERE};
  for (Expr *c = sel->rank_where; c; c = c->next) {
    Type t = check_expr(&sc, c);
    char b[32];
    if (!is_err(t) && t.kind != TY_BOOL) {
      diag_error(s->d, c->loc, "WHERE condition must be BOOLEAN, not %s", tyname(t, b));
      note_decl(&sc, c);
    }
  }
}

/* ORDER BY and LIMIT: each names an output column (by name, position or
 * its very expression); they order and cut each window's rows as written. */
static void check_order(Scope *sc, const char *stream) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  SrcLoc at = sel->order_by ? sel->order_by->expr->loc : sel->limit_loc;
  if (stream) {
    diag_error(s->d, at, sel->top_n ? "a ROW_NUMBER() Top-N cuts the results a query writes, not a derived stream "
                                      "('%s')"
                                    : "ORDER BY and LIMIT order and cut the results a query writes, not a derived "
                                      "stream ('%s')",
               stream);
    return;
  }
  if (!sel->window) {
    diag_error(s->d, at, "ORDER BY and LIMIT apply to each window's results and need a WINDOW clause");
    return;
  }
  for (OrderItem *o = sel->order_by; o; o = o->next) {
    Expr *e = o->expr;
    o->out = -1;
    if (e->kind == EX_INT) {
      init_ann(e);
      if (e->ival >= 1 && e->ival <= sel->nout)
        o->out = (int)e->ival - 1;
      else
        diag_error(s->d, e->loc, "ORDER BY %lld: the select list has %d column%s", (long long)e->ival, sel->nout,
                   sel->nout == 1 ? "" : "s");
      continue;
    }
    if (e->kind == EX_COLUMN && !e->qual) {
      int second = -1;
      for (int i = 0; i < sel->nout; i++)
        if (strcmp(sel->out[i].name, e->name) == 0) {
          if (o->out < 0) o->out = i;
          else if (second < 0) second = i;
        }
      if (second >= 0) {
        diag_error(s->d, e->loc, "ORDER BY %s is ambiguous: columns %d and %d of the select list are both named so",
                   e->name, o->out + 1, second + 1);
        continue;
      }
    }
    if (o->out >= 0) {
      init_ann(e);
      continue;
    }
    sc->clause = CL_HAVING;
    if (is_err(check_expr(sc, e)))
      continue;
    for (int i = 0; i < sel->nout && o->out < 0; i++)
      if (expr_equal(e, sel->out[i].expr)) o->out = i;
    if (o->out < 0)
      diag_error(s->d, e->loc, "ORDER BY must name a column of the select list (its name, its position, or its "
                               "expression)");
  }
  /* Flink's Top-N ranks NULL as the smallest value, airc's ORDER BY after
   * every value: where they differ and the query does not say, say so */
  int k = 0;
  for (const OrderItem *o = sel->order_by; o && sel->top_n; o = o->next, k++)
    if (k >= sel->limit_part && o->out >= 0 && o->nulls == NULLS_DEFAULT && sel->out[o->out].type.nullable)
      diag_warning(s->d, o->expr->loc, "'%s' may be NULL: NULL ranks %s here (after every value, first with DESC), "
                   "%s in Flink; write NULLS FIRST or NULLS LAST to say which", sel->out[o->out].name,
                   o->desc ? "first" : "last", o->desc ? "last" : "first");
}

void check_select(Sema *s, Select *sel, SrcLoc **out_locs, const char *stream) {
  if (!sel)
    return; /* the parser reported why */
  Scope sc = {.s = s, .sel = sel};
  sel->qkind = QK_MAP;
  sel->out = NULL;
  sel->nout = 0;
  sel->aggs = NULL;
  sel->naggs = 0;
  sel->keys = NULL;
  sel->nkeys = 0;
  sel->join_lkey = sel->join_rkey = NULL;
  sel->join_rest = NULL;
  sel->njoin_rest = 0;
  sel->table_join = false;
  sel->time_from = 0;
  resolve_from(&sc);

  /* select list, with '*' expanded into one column reference per column */
  sc.clause = CL_SELECT;
  PtrVec items = {0}; /* Expr * per output */
  PtrVec names = {0};
  PtrVec locs = {0};
  for (SelectItem *it = sel->items; it; it = it->next) {
    Expr *e = it->expr;
    if (e->kind != EX_STAR) {
      if (check_expr(&sc, e).kind == TY_NULL) {
        diag_error(s->d, e->loc, "NULL has no type here: write CAST(NULL AS type)");
        e->type = mk_type(TY_ERROR);
      }
      vec_push(s->arena, &items, e);
      vec_push(s->arena, &names, (void *)out_name(it));
      SrcLoc *l = arena_alloc(s->arena, sizeof(SrcLoc));
      *l = it->alias ? it->alias_loc : e->loc;
      vec_push(s->arena, &locs, l);
      continue;
    }
    init_ann(e);
    if (it->alias)
      diag_error(s->d, it->alias_loc, "'*' cannot have an alias");
    int lo = 0, hi = sc.nfrom;
    if (e->qual) {
      int i = qual_index(&sc, e->qual);
      if (i < 0) {
        if (!sc.bad_from)
          unknown_qualifier(&sc, e);
        continue;
      }
      lo = i;
      hi = i + 1;
    }
    for (int i = lo; i < hi; i++) {
      Relation *r = sc.rel[i];
      if (!r)
        continue;
      for (int c = 0; c < r->ncols; c++) {
        Expr *ce = new_expr(s->arena, EX_COLUMN, e->loc);
        init_ann(ce);
        ce->name = r->cols[c].name;
        ce->name_loc = e->loc;
        ce->qual = sc.nfrom == 2 ? sc.qual[i] : NULL;
        ce->text = ce->qual ? arena_printf(s->arena, "%s.%s", ce->qual, ce->name) : ce->name;
        ce->from_idx = i;
        ce->col_idx = c;
        ce->type = r->cols[c].type;
        ce->type.nullable |= join_padded(sel, i);
        vec_push(s->arena, &items, ce);
        vec_push(s->arena, &names, (void *)ce->name);
        SrcLoc *l = arena_alloc(s->arena, sizeof(SrcLoc));
        *l = e->loc;
        vec_push(s->arena, &locs, l);
      }
    }
  }
  sel->nout = items.n;
  sel->out = arena_alloc(s->arena, sizeof(OutCol) * (size_t)(items.n ? items.n : 1));
  for (int i = 0; i < items.n; i++) {
    Expr *e = items.v[i];
    sel->out[i] = (OutCol){.name = names.v[i], .type = e->type, .expr = e};
  }

  int errors_before_on = s->d->nerrors;
  if (sel->nfrom == 2 && !sel->comma_join)
    check_join(&sc);
  bool on_ok = s->d->nerrors == errors_before_on;

  bool where_ok = true;
  if (sel->where) {
    sc.clause = CL_WHERE;
    Type t = check_expr(&sc, sel->where);
    char b[32];
    where_ok = !is_err(t);
    if (!is_err(t) && t.kind != TY_BOOL) {
      diag_error(s->d, sel->where->loc, "WHERE condition must be BOOLEAN, not %s", tyname(t, b));
      note_decl(&sc, sel->where);
      where_ok = false;
    }
  }
  if (sel->nfrom == 2 && sel->comma_join && where_ok && sc.rel[0] && sc.rel[1])
    check_comma_join(&sc);

  sc.clause = CL_GROUP_BY;
  sel->nkeys = list_len(sel->group_by);
  if (sel->nkeys) {
    sel->keys = arena_alloc(s->arena, sizeof(Expr *) * (size_t)sel->nkeys);
    int k = 0;
    for (Expr *g = sel->group_by; g; g = g->next) {
      sel->keys[k++] = g;
      if (check_expr(&sc, g).kind == TY_NULL) {
        diag_error(s->d, g->loc, "NULL has no type here: write CAST(NULL AS type)");
        g->type = mk_type(TY_ERROR);
      }
    }
  }

  if (sel->window) {
    check_window(s, sel->window);
    warn_hopping(s, sel->window);
    warn_window(&sc);
  }

  if (sel->having) {
    sc.clause = CL_HAVING;
    Type t = check_expr(&sc, sel->having);
    char b[32];
    if (!is_err(t) && t.kind != TY_BOOL)
      diag_error(s->d, sel->having->loc, "HAVING condition must be BOOLEAN, not %s",
                 tyname(t, b));
  }

  /* distinct aggregates, in order of first appearance */
  AggCollect ac = {.s = s};
  for (int i = 0; i < sel->nout; i++)
    collect_aggs(&ac, sel->out[i].expr);
  if (sel->having)
    collect_aggs(&ac, sel->having);
  sel->naggs = ac.aggs.n;
  sel->aggs = (Expr **)ac.aggs.v;

  bool aggq = sel->naggs > 0 || sel->nkeys > 0;
  bool sjoin = sel->nfrom == 2 && !sel->table_join && sc.rel[0] && sc.rel[1];
  if ((sel->top_n || sel->limit) && sel->window && !aggq && !sjoin) /* a window's first rows */
    check_topn_rows(&sc);
  if (sel->window && (sc.tb.lo_set || sc.tb.hi_set)) {
    diag_error(s->d, sc.tb.loc, "a JOIN whose ON bounds one stream's event time by the other's is an interval "
               "join, and takes no WINDOW: drop the bound, or the WINDOW (to aggregate an interval join's rows "
               "per window, write the join in WITH and aggregate that)");
  } else if (!sel->window && aggq && !sjoin) {
    check_updating(&sc);
  } else if (!sel->window) {
    if (sel->nkeys)
      diag_error(s->d, sel->keys[0]->loc, "GROUP BY over a JOIN of two streams needs a WINDOW clause");
    else if (sel->naggs)
      diag_error(s->d, sel->aggs[0]->loc, "aggregate %s over a JOIN of two streams needs a WINDOW clause",
                 expr_label(sel->aggs[0]));
    if (sjoin && on_ok)
      check_interval_join(&sc);
  } else if (sjoin && aggq) {
    Expr *first = sel->nkeys ? sel->keys[0] : sel->aggs[0];
    diag_error(s->d, first->loc,
               "aggregates over a JOIN of two streams are not supported directly; "
               "aggregate the join's rows as a subquery, FROM (SELECT ... JOIN ... WINDOW ...) AS j");
  } else if (!sjoin && !aggq && !sc.bad_from && !sel->topn_rows) {
    diag_error(s->d, sel->window->loc, "WINDOW needs an aggregate or a JOIN of two streams");
  }
  if (sel->having && !aggq)
    diag_error(s->d, sel->having->loc, "HAVING needs GROUP BY or an aggregate");
  if (sel->window && sel->window->grace && sel->window->grace_ms > 0 && !sel->updating) check_grace(&sc, sjoin, aggq);
  if (sel->state_ttl) check_state_ttl(&sc, sjoin);
  if ((sc.rel[0] && sc.rel[0]->updating) || (sc.nfrom == 2 && sc.rel[1] && sc.rel[1]->updating))
    check_retract(&sc, sjoin);
  else if (sel->emit != EMIT_NONE && sel->emit != EMIT_FINAL && !sel->updating)
    diag_error(s->d, sel->emit_loc, "EMIT %s is for updating queries (GROUP BY without WINDOW): a WINDOW's "
               "result is written once, when it closes", sel->emit == EMIT_EVERY ? "EVERY" : "CHANGES");

  bool keys_ok = true;
  for (int k = 0; k < sel->nkeys; k++)
    keys_ok = keys_ok && !is_err(sel->keys[k]->type);
  if (aggq && !sjoin && keys_ok) {
    for (int i = 0; i < sel->nout; i++)
      check_grouped(&sc, sel->out[i].expr);
    if (sel->having)
      check_grouped(&sc, sel->having);
  }

  if (sel->topn_rows)
    sel->qkind = sel->nkeys ? QK_AGGREGATION : QK_REDUCE;
  else if (sjoin)
    sel->qkind = QK_JOIN;
  else if (sel->nkeys)
    sel->qkind = QK_AGGREGATION;
  else if (sel->naggs)
    sel->qkind = QK_REDUCE;
  else
    sel->qkind = QK_MAP;
  warn_conditions(s, sel);
  if (sel->order_by || sel->limit)
    check_order(&sc, stream);
  if (sel->rank_where && !stream)
    check_rank_where(&sc);

  if (stream) {
    for (int i = 0; i < sel->nout; i++) {
      for (int j = 0; j < i; j++) {
        if (strcmp(sel->out[i].name, sel->out[j].name) == 0) {
          diag_error(s->d, *(SrcLoc *)locs.v[i], "duplicate column '%s' in stream '%s'",
                     sel->out[i].name, stream);
          diag_note(s->d, *(SrcLoc *)locs.v[j], "'%s' was first defined here",
                    sel->out[j].name);
          break;
        }
      }
    }
  }
  if (out_locs) {
    *out_locs = arena_alloc(s->arena, sizeof(SrcLoc) * (size_t)(locs.n ? locs.n : 1));
    for (int i = 0; i < locs.n; i++)
      (*out_locs)[i] = *(SrcLoc *)locs.v[i];
  }
}
