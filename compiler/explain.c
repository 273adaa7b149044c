/* explain.c - `airc --explain`: the plan as text (explain_dot.c draws it),
 * and what both say about durations, windows, state and payloads.
 */
#include "airc.h"

#include <inttypes.h>

#include <stdarg.h>
#include <string.h>
/* ---- state and payloads ---------------------------------------------------- */

typedef struct Text {
  char *p;
  size_t n, used;
} Text;

static void text_add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends to t; text past its end is cut, the cut marked "..." */
static void text_add(Text *t, const char *fmt, ...) {
  if (t->used + 1 >= t->n) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->p + t->used, t->n - t->used, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  if ((size_t)k < t->n - t->used) {
    t->used += (size_t)k;
    return;
  }
  t->used = t->n - 1;
  if (t->n > 4) memcpy(t->p + t->n - 4, "...", 4);
}

static void text_list(Text *t, Expr **v, int n) {
  char buf[512];
  for (int i = 0; i < n; i++) text_add(t, "%s%s", i ? ", " : "", plan_label(v[i], buf, sizeof buf));
}

/* An ORDER BY item's NULLS FIRST or NULLS LAST, as written. */
static const char *nulls_word(const OrderItem *oi) {
  return oi->nulls == NULLS_FIRST ? " NULLS FIRST" : oi->nulls == NULLS_LAST ? " NULLS LAST" : "";
}

/* A Top-N of a window's rows (Select.topn_rows): what its accumulator keeps,
 * "the first 2 rows by x DESC". */
static const char *topn_label(const Select *s, char *buf, size_t n) {
  int k = 0, len = snprintf(buf, n, "the first %lld rows by", (long long)s->limit);
  for (const OrderItem *oi = s->order_by; oi && len >= 0 && (size_t)len < n; oi = oi->next, k++)
    if (k >= s->limit_part)
      len += snprintf(buf + len, n - (size_t)len, "%s %s%s%s", k > s->limit_part ? "," : "", s->out[oi->out].name,
                      oi->desc ? " DESC" : "", nulls_word(oi));
  return buf;
}

/* What shared slices add to a stage's state line. */
static void slices(Text *t, const Stage *st) {
  if (!st->state.slice_ms) return;
  const WindowSpec *w = st->chain->sel->window;
  text_add(t, "; slices of %lld ms, %lld per window", (long long)st->state.slice_ms,
           (long long)(w->size_ms / st->state.slice_ms));
  if (st->partial)
    text_add(t, ", sent as they close");
  else
    text_add(t, ", merged per window by two stacks");
  text_add(t, "; a row behind the watermark goes into its open windows alone");
}

void describe_state(const Stage *st, char *buf, size_t n) {
  Text t = {buf, n, 0};
  buf[0] = '\0';
  const Select *s = st->chain->sel;
  const char *per = st->state.slice_ms ? "per open slice" : s->updating ? "per open interval" : "per open window";
  char tb[256];
  switch (st->state.kind) {
  case STATE_NONE: return;
  case STATE_WINDOWS:
    if (s->nkeys) {
      text_add(&t, "%s, a hash table (", per);
      text_list(&t, s->keys, s->nkeys);
      text_add(&t, ") -> ");
    } else {
      text_add(&t, "%s, one accumulator row: ", per);
    }
    text_list(&t, s->aggs, s->naggs);
    if (s->topn_rows) text_add(&t, "%s", topn_label(s, tb, sizeof tb));
    slices(&t, st);
    if (s->updating && !st->partial) {
      char a[32];
      text_add(&t, "; and per key its running aggregates and last row, ");
      if (s->ttl_ms) text_add(&t, "dropped once idle for %s (state_ttl)", explain_ms(s->ttl_ms, a, sizeof a));
      else text_add(&t, "kept for ever (unbounded: WITH (state_ttl = ...) bounds it)");
    }
    return;
  case STATE_DENSE:
    text_add(&t, "%s, an array indexed by %s - %lld (%lld keys) -> ", per, s->keys[0]->text,
             (long long)st->state.lo, (long long)(st->state.hi - st->state.lo + 1));
    text_list(&t, s->aggs, s->naggs);
    if (s->topn_rows) text_add(&t, "%s", topn_label(s, tb, sizeof tb));
    slices(&t, st);
    return;
  case STATE_SESSIONS:
    text_add(&t, "per key (");
    text_list(&t, s->keys, s->nkeys);
    text_add(&t, "), its open sessions, merged when they meet -> ");
    text_list(&t, s->aggs, s->naggs);
    return;
  case STATE_JOIN:
    if (s->regular_join)
      text_add(&t, "per %s, every row of both inputs, kept for ever (unbounded state: a state_ttl would bound it)",
               s->join_lkey->text);
    else if (s->interval_join)
      text_add(&t, "per %s, the rows of both sides, in time buckets each dropped once the watermark is %" PRId64
               " ms past its end%s", s->join_lkey->text, ijoin_keep_ms(s),
               s->left_join || s->right_join ? ", sending then the rows of a kept side that met none, padded" : "");
    else
      text_add(&t, "per open window, the rows of both sides, hashed on %s when it closes", s->join_lkey->text);
    return;
  }
}

/* The columns of FROM item f the chain reads, ", a.k, a.x". */
static void text_used(Text *t, const Chain *ch, int f) {
  const FromItem *fi = &ch->sel->from[f];
  const char *q = fi->alias ? fi->alias : fi->name;
  for (int i = 0; i < fi->rel->ncols; i++)
    if (ch->used[f][i]) text_add(t, ", %s.%s", q, fi->rel->cols[i].name);
}

static bool reads_any(const Chain *ch, int f) {
  for (int i = 0; i < ch->sel->from[f].rel->ncols; i++)
    if (ch->used[f][i]) return true;
  return false;
}

void describe_late(const Stage *st, char *buf, size_t n) {
  Text t = {buf, n, 0};
  buf[0] = '\0';
  if (!st->late) return;
  const Chain *ch = st->chain;
  const FromItem *fi = &ch->sel->from[st->leg];
  bool first = true;
  for (int c = 0; c < fi->rel->ncols; c++)
    if (st->late[c]) {
      text_add(&t, "%s%s.%s", first ? "" : ", ", fi->alias ? fi->alias : fi->name, fi->rel->cols[c].name);
      first = false;
    }
}

/* Every field of the row struct an edge carries, as codegen lays it out
 * (cg_types.c: R, RB, P, O): the fixed fields first, then the columns; of an
 * R row, the FROM item's columns the sender cannot fill yet (before the
 * join that brings them) are room sent unfilled, and said so. */
void describe_payload(const Physical *ph, const PEdge *e, char *buf, size_t n) {
  Text t = {buf, n, 0};
  buf[0] = '\0';
  const Stage *fs = &ph->stages[e->from];
  const Chain *to = ph->stages[e->to].chain, *from = fs->chain;
  switch (edge_payload(ph, e)) {
  case PAY_ROWS: {
    text_add(&t, "event time, source watermark, window bounds%s", to->sel->retract ? ", op" : "");
    text_used(&t, to, 0);
    if (to->sel->nfrom < 2 || !reads_any(to, 1)) return;
    /* from[1]'s columns exist once its StaticJoin or Join ran */
    int j = chain_join_op(to);
    bool filled = fs->chain == to && fs->leg == 0 && j >= 0 && j <= fs->last;
    if (filled) {
      text_used(&t, to, 1);
    } else {
      text_add(&t, "; room sent unfilled for");
      size_t at = t.used;
      text_used(&t, to, 1);
      if (t.used > at + 2 && t.p[at] == ',') memmove(t.p + at, t.p + at + 1, t.used - at);
    }
    return;
  }
  case PAY_LEFT_ROWS:
  case PAY_RIGHT_ROWS:
    text_add(&t, "event time, source watermark, window bounds");
    text_used(&t, to, edge_payload(ph, e) == PAY_RIGHT_ROWS);
    return;
  case PAY_PARTIALS:
    text_add(&t, "window start");
    if (to->sel->nkeys) {
      text_add(&t, ", key (");
      text_list(&t, to->sel->keys, to->sel->nkeys);
      text_add(&t, ")");
    }
    text_add(&t, ", latest event time, partial ");
    text_list(&t, to->sel->aggs, to->sel->naggs);
    if (to->sel->topn_rows) {
      char tb[256];
      text_add(&t, "%s", topn_label(to->sel, tb, sizeof tb));
    }
    return;
  case PAY_RESULTS:
    text_add(&t, "%s, event time, source watermark%s", from->sel->updating ? "emission" : "window end",
             select_changes(from->sel) ? ", op" : "");
    if (from->windowed && from->join_at < 0 && from->sel->nkeys) {
      text_add(&t, ", key (");
      text_list(&t, from->sel->keys, from->sel->nkeys);
      text_add(&t, ")");
    }
    for (int i = 0; i < from->sel->nout; i++) text_add(&t, ", %s", from->sel->out[i].name);
    return;
  }
}

/* ---- --explain ---------------------------------------------------------- */

const char *explain_ms(int64_t ms, char *buf, size_t n) {
  if (ms % 3600000 == 0) snprintf(buf, n, "%lld h", (long long)(ms / 3600000));
  else if (ms % 60000 == 0) snprintf(buf, n, "%lld min", (long long)(ms / 60000));
  else if (ms % 1000 == 0) snprintf(buf, n, "%lld s", (long long)(ms / 1000));
  else snprintf(buf, n, "%lld ms", (long long)ms);
  return buf;
}

const char *explain_window(const WindowSpec *w, char *buf, size_t n) {
  char a[32], b[32];
  buf[0] = '\0';
  if (w && w->emit != EMIT_NONE) { /* an updating query's intervals */
    if (w->emit == EMIT_EVERY) snprintf(buf, n, "no window: EMIT EVERY %s", explain_ms(w->size_ms, a, sizeof a));
    else if (w->emit == EMIT_FINAL) snprintf(buf, n, "no window: EMIT FINAL (the table at the end of the input)");
    else snprintf(buf, n, "no window: EMIT CHANGES (per ms of event time)");
    return buf;
  }
  switch (w ? w->kind : WIN_NONE) {
  case WIN_TUMBLING: snprintf(buf, n, "TUMBLING size %s", explain_ms(w->size_ms, a, sizeof a)); break;
  case WIN_HOPPING:
    snprintf(buf, n, "HOPPING size %s advance %s", explain_ms(w->size_ms, a, sizeof a),
             explain_ms(w->advance_ms, b, sizeof b));
    break;
  case WIN_SESSION: snprintf(buf, n, "SESSION gap %s", explain_ms(w->gap_ms, a, sizeof a)); break;
  case WIN_NONE: break;
  }
  return buf;
}

static void print_ms(FILE *out, int64_t ms) {
  char b[32];
  fputs(explain_ms(ms, b, sizeof b), out);
}

static void print_window(FILE *out, const WindowSpec *w) {
  char b[96];
  fputs(explain_window(w, b, sizeof b), out);
}

static void print_conjuncts(FILE *out, const Expr *e) {
  for (const Expr *c = e; c; c = c->next)
    fprintf(out, "%s%s", c == e ? "" : " AND ", c->text ? c->text : "?");
}

static void print_op(FILE *out, const Chain *ch, const Operator *op) {
  const Select *s = ch->sel;
  fprintf(out, "%s", op_name(op->kind));
  switch (op->kind) {
  case OP_SOURCE: fprintf(out, " %s", op->rel->name); break;
  case OP_FILTER:
    fputc(' ', out);
    print_conjuncts(out, op->pred);
    break;
  case OP_STATIC_JOIN:
    fprintf(out, " %s ON %s", op->rel->name, s->join_on && s->join_on->text ? s->join_on->text : "?");
    break;
  case OP_AGGREGATION:
  case OP_REDUCE:
    if (s->expand > 1) fprintf(out, " each row as %d copies (copy 0 to %d, one per DISTINCT argument);", s->expand,
                               s->expand - 1);
    if (s->nkeys) {
      fprintf(out, " GROUP BY ");
      for (int i = 0; i < s->nkeys; i++)
        fprintf(out, "%s%s", i ? ", " : "", s->keys[i]->text);
    }
    fprintf(out, "%s", s->nkeys ? "; " : " ");
    char buf[512];
    for (int i = 0; i < s->naggs; i++)
      fprintf(out, "%s%s", i ? ", " : "", plan_label(s->aggs[i], buf, sizeof buf));
    if (s->naggs) fprintf(out, "; ");
    if (s->topn_rows) {
      char tb[256];
      fprintf(out, "%s (a Top-N of the window's rows); ", topn_label(s, tb, sizeof tb));
    }
    print_window(out, s->window);
    if (s->having) fprintf(out, "; HAVING %s", s->having->text);
    break;
  case OP_JOIN:
    fprintf(out, " %s ON %s; ", op->rel->name, s->join_on && s->join_on->text ? s->join_on->text : "?");
    if (s->left_join || s->right_join) {
      const char *l = s->from[0].rel->name, *r = s->from[1].rel->name;
      fprintf(out, "%s OUTER: ", s->left_join && s->right_join ? "FULL" : s->left_join ? "LEFT" : "RIGHT");
      if (s->left_join) fprintf(out, "%s rows without a match go on, %s's columns NULL; ", l, r);
      if (s->right_join) fprintf(out, "%s rows without a match go on, %s's columns NULL; ", r, l);
    }
    if (s->regular_join)
      fprintf(out, "regular: no time bounds, every row of both kept for ever, each pair as its later row comes%s",
              s->join_retracts ? "; a kept row that met none goes on padded at once (+I), taken back (-D) when its "
                                 "first match comes" : "");
    else if (s->interval_join)
      fprintf(out, "interval: %s's time - %s's from %" PRId64 " ms to %" PRId64 " ms, each pair as its later row comes",
              s->from[1].rel->name, s->from[0].rel->name, s->ij_lo, s->ij_hi);
    else
      print_window(out, s->window);
    break;
  case OP_MAP:
    fputc(' ', out);
    for (int i = 0; i < s->nout; i++) fprintf(out, "%s%s", i ? ", " : "", s->out[i].name);
    break;
  case OP_SINK:
    if (op->rel && op->rel->kind == REL_DERIVED)
      fprintf(out, " stream %s", op->rel->name);
    else if (op->rel)
      fprintf(out, " %s (%s '%s'%s)", op->rel->name, op->rel->sink->name, op->rel->path ? op->rel->path : op->rel->topics ? op->rel->topics : "",
              op->rel->json ? ", JSON lines" : "");
    else
      fprintf(out, " stdout");
    break;
  default: break;
  }
}

static void print_time(FILE *out, const Relation *r) {
  if (r->time_col < 0) return;
  fprintf(out, "    time: %s.%s", r->name, r->cols[r->time_col].name);
  if (r->ingestion_time)
    fprintf(out, ", ingestion time; watermark = wall clock (advances while idle)\n");
  else if (r->proc_col >= 0)
    fprintf(out, ", processing time (PROCTIME(): the wall clock when each row is read); watermark = wall clock "
                 "(advances while idle)\n");
  else if (r->has_watermark) {
    fprintf(out, ", from the data; watermark = max %s - ", r->cols[r->time_col].name);
    print_ms(out, r->wm_bound_ms);
    fprintf(out, " per rank; end of input = end of time\n");
  } else
    fprintf(out, ", from the data, in order per rank; watermark = last %s; end of input = end of time\n",
            r->cols[r->time_col].name);
}

/* A derived stream's event time and watermark (sema.c's derive_time). */
static void print_derived_time(FILE *out, const Relation *r) {
  const Select *s = r->def->select;
  const char *col = r->cols[r->time_col].name;
  fprintf(out, "    time: %s.%s, ", r->name, col);
  if (s->regular_join) {
    fprintf(out, "an implicit column after the outputs: the later time of each pair, raised to 1 ms past the "
                 "watermark either row had when read if at or behind it; watermark = its input's\n");
    return;
  }
  if (s->interval_join) {
    fprintf(out, "%s; watermark = its input's minus ", r->implicit_time ? "an implicit column after the outputs: "
                 "the later time of each pair" : "a joined stream's event time");
    print_ms(out, r->wm_hold_ms);
    fprintf(out, " (the most a pair's time can trail the row that made it%s)\n",
            s->left_join || s->right_join ? ", a bucket more for a padded row, sent when its bucket is dropped" : "");
    return;
  }
  if (!s->window) {
    fprintf(out, "the event time of its input's rows; watermark = its input's%s\n",
            r->updating ? "; each row a change (+I, -U, +U, -D)" : "");
    return;
  }
  if (s->updating) {
    fprintf(out, "an implicit column after the outputs: the time of each change (its emission's last ms); "
                 "watermark = its query's minus 1 ms; each row a change (+I, -U, +U, -D)\n");
    return;
  }
  if (r->implicit_time)
    fprintf(out, "an implicit column after the outputs: the latest event time of the rows behind each result");
  else
    fprintf(out, "%s of each result", s->out[r->time_col].expr->text);
  fprintf(out, "; watermark = its query's");
  if (r->wm_hold_ms) {
    fprintf(out, " minus ");
    print_ms(out, r->wm_hold_ms);
    fprintf(out, " (the most %s trails its window's end)", col);
  }
  fputc('\n', out);
}

static void print_keys(FILE *out, const Select *s) {
  for (int i = 0; i < s->nkeys; i++) fprintf(out, "%s%s", i ? ", " : "", s->keys[i]->text);
}

/* How rows reach stage st on edge e. */
static void print_edge(FILE *out, const Physical *ph, const PEdge *e) {
  const Stage *to = &ph->stages[e->to];
  const Stage *from = &ph->stages[e->from];
  const Select *s = to->chain->sel;
  fprintf(out, "      <-- edge %d from pipeline %d: ", e->id, from->id);
  switch (e->kind) {
  case XR_LOCAL: fprintf(out, "function call\n"); return;
  case XR_ROWHASH:
    fprintf(out, "%s\n", s->retract ? "changes, on the same rank (a key's stay in order)" : "rows spread by hash(row) % ranks");
    return;
  case XR_SAME: fprintf(out, "rows of stream %s, on the same rank\n", from->chain->derived->name); return;
  case XR_GATHER: fprintf(out, "%s to rank 0\n", select_changes(s) ? "changes (+I, -U, +U, -D)" : "results"); return;
  case XR_SINGLE:
    fprintf(out, "%s to rank 0 (no key)\n",
            !to->final ? "rows" : to->state.slice_ms ? "per-rank partial aggregates per slice" : "per-rank partial aggregates");
    return;
  case XR_KEYHASH:
    if (to->chain->join_at >= 0 && to->first == to->chain->join_at) {
      const Expr *k = e->to_input ? s->join_rkey : s->join_lkey;
      fprintf(out, "%s rows by hash(%s) %% ranks\n", e->to_input ? "right" : "left", k && k->text ? k->text : "?");
      return;
    }
    fprintf(out, "%s by hash(",
            !to->final ? "rows" : to->state.slice_ms ? "per-key partial aggregates per slice" : "per-key partial aggregates");
    print_keys(out, s);
    fprintf(out, ") %% ranks\n");
    return;
  }
}

/* Each x IN (SELECT ...) of an expression, and those of its subquery's
 * WHERE: the sets the program makes before any row flows. */
static void print_sets(FILE *out, const Expr *e);
static bool print_set(void *ctx, const Expr *e) {
  FILE *out = ctx;
  if (e->key_idx >= 0) return false; /* after aggregation: read from the GROUP BY key, which makes it */
  if (e->kind != EX_IN_SELECT) return true;
  const Relation *r = e->sub->from[0].rel;
  fprintf(out, "  set of table %s, made at the start on every rank: %s\n", r ? r->name : "?", e->text ? e->text : "?");
  print_sets(out, e->sub->where);
  return true;
}
static void print_sets(FILE *out, const Expr *e) {
  for (; e; e = e->next) expr_walk(e, print_set, out);
}

void explain_print(FILE *out, const Physical *ph) {
  const Plan *pl = ph->plan;
  const Catalog *cat = pl->cat;
  fprintf(out, "plan for %s (%s)\n", pl->query_path, ph->fused ? "fused" : "not fused: every edge is a message");

  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    if (r->kind == REL_TABLE) {
      fprintf(out, "table %s: %s, key %s; loaded whole on every rank\n", r->name,
              r->source->table_desc,
              r->cols[r->key_col].name);
      continue;
    }
    if (r->kind != REL_SOURCE && r->kind != REL_DERIVED) continue;
    int nconsumers = 0;
    for (int c = 0; c < pl->nchains; c++)
      if (pl->chains[c].source == r || pl->chains[c].source1 == r) nconsumers++;
    if (r->kind == REL_DERIVED) {
      int q = 0;
      for (int c = 0; c < pl->nchains; c++)
        if (pl->chains[c].derived == r) q = c;
      fprintf(out, "stream %s: derived, the results of %s\n", r->name, pl->chains[q].label);
      print_derived_time(out, r);
    } else {
    fprintf(out, "source %s: %s", r->name, r->source->desc);
    if (r->path) fprintf(out, " '%s'%s", r->path, r->header ? " with header" : "");
    if (r->json) fprintf(out, ", JSON lines");
    if (r->follow) fprintf(out, ", followed as it grows (read on rank 0; a stop ends it)");
    if (r->tcp_listen) fprintf(out, ", listening on %s (senders connect; a stop ends it)", r->tcp_listen);
    if (r->tcp_connect) fprintf(out, ", connecting to %s (reconnecting; a stop ends it)", r->tcp_connect);
    if (r->rate) fprintf(out, ", rate %lld events/s over all ranks", (long long)r->rate);
    if (r->has_seed) fprintf(out, ", seed %lld", (long long)r->seed);
    if (r->has_limit) fprintf(out, ", limit %lld", (long long)r->limit);
    fprintf(out, "\n");
    print_time(out, r);
    }
    if (nconsumers > 1) {
      fprintf(out, "    Split: %d consumers (", nconsumers);
      int k = 0;
      for (int c = 0; c < pl->nchains; c++)
        if (pl->chains[c].source == r || pl->chains[c].source1 == r)
          fprintf(out, "%s%s", k++ ? ", " : "", pl->chains[c].label);
      fprintf(out, ")%s\n", ph->fused ? ", each branch runs in the source's loop"
                                          : ", branch b routes to edge of branch b (b * ranks + hash % ranks)");
    } else if (nconsumers == 0) {
      fprintf(out, "    unused\n");
    }
  }

  for (int c = 0; c < pl->nchains; c++) {
    const Chain *ch = &pl->chains[c];
    const char *what = ch->stmt->kind == ST_INSERT ? "INSERT INTO"
                       : ch->derived                 ? "CREATE STREAM AS"
                                                     : "SELECT";
    fprintf(out, "%s (line %d): %s\n", ch->label, ch->stmt->loc.line, what);
    fprintf(out, "  columns read from %s:", ch->source->name);
    for (int i = 0; i < ch->source->ncols; i++)
      if (ch->used[0][i]) fprintf(out, " %s", ch->source->cols[i].name);
    if (ch->source1) {
      fprintf(out, "\n  columns read from %s:", ch->source1->name);
      for (int i = 0; i < ch->source1->ncols; i++)
        if (ch->used[1][i]) fprintf(out, " %s", ch->source1->cols[i].name);
    }
    fputc('\n', out);
    const Select *s = ch->sel;
    for (int i = 0; i < s->nout; i++) expr_walk(s->out[i].expr, print_set, out);
    print_sets(out, s->join_on);
    print_sets(out, s->where);
    print_sets(out, s->group_by);
    print_sets(out, s->having);
    fprintf(out, "  logical:\n");
    for (int i = 0; i < ch->nops; i++) {
      fprintf(out, "    %d ", i + 1);
      print_op(out, ch, &ch->ops[i]);
      fputc('\n', out);
    }
    for (int i = 0; i < ch->nops1; i++) {
      fprintf(out, "    %d' ", i + 1);
      print_op(out, ch, &ch->ops1[i]);
      fprintf(out, "%s\n", i == ch->nops1 - 1 ? "  (second input of the Join)" : "");
    }
    fprintf(out, "  physical:\n");
    for (int si = 0; si < ph->nstages; si++) {
      const Stage *st = &ph->stages[si];
      if (st->chain != ch) continue;
      for (int e = 0; e < ph->nedges; e++)
        if (ph->edges[e].to == si) {
          char what[1024];
          print_edge(out, ph, &ph->edges[e]);
          describe_payload(ph, &ph->edges[e], what, sizeof what);
          fprintf(out, "          carrying %s\n", what);
        }
      const Operator *ops = st->leg ? ch->ops1 : ch->ops;
      const char *where = st->edge < 0 ? "every rank, in the source's loop"
                          : ops[st->first].kind == OP_SINK ? "rank 0, collector"
                                                           : "every rank";
      if (st->in == XR_SINGLE) where = "rank 0";
      fprintf(out, "    pipeline %d [%s]: ", st->id, where);
      for (int i = st->first; i <= st->last; i++) {
        if (i > st->first) fprintf(out, " -> ");
        fprintf(out, "%s", op_name(ops[i].kind));
        if (ops[i].kind == OP_SOURCE) fprintf(out, " %s", ops[i].rel->name);
        if (i == st->last && st->partial) fprintf(out, "(partial)");
        if (i == st->first && st->final) fprintf(out, "(final)");
      }
      if (ops[st->first].kind == OP_SINK) {
        if (ch->sel->updating) {
          fprintf(out, "; %s once the watermark passes its end, ordered by ",
                  ch->sel->emit == EMIT_FINAL ? "the table" : "each emission's changes");
          print_keys(out, ch->sel);
          if (!ch->sel->nkeys) fprintf(out, "the output columns");
        } else if (ch->windowed) {
          fprintf(out, "; each window's rows once the watermark passes its end, ordered by WINDOW_END");
          for (const OrderItem *oi = ch->sel->order_by; oi; oi = oi->next)
            fprintf(out, ", %s%s%s", ch->sel->out[oi->out].name, oi->desc ? " DESC" : "", nulls_word(oi));
          if (ch->sel->nkeys) fprintf(out, ", ");
          print_keys(out, ch->sel);
          if (!ch->sel->nkeys) fprintf(out, " and the output columns");
          if (ch->sel->limit) fprintf(out, "; the first %lld of each window%s", (long long)ch->sel->limit,
                                      ch->sel->limit_part ? " and partition" : "");
          for (const Expr *w = ch->sel->rank_where; w; w = w->next) /* after the cut and numbering */
            fprintf(out, "%s%s%s%s", w == ch->sel->rank_where ? "; of those, the rows where " : " AND ",
                    w->kind == EX_BINARY && w->op == OP_OR ? "(" : "", w->text,
                    w->kind == EX_BINARY && w->op == OP_OR ? ")" : "");
        } else {
          fprintf(out, "; rows in arrival order");
        }
        if (ops[st->first].rel)
          fprintf(out, " -> %s", ops[st->first].rel->name);
        else if (pl->nstdout > 1)
          fprintf(out, " -> stdout, each line starting with q%d", ch->number);
        else
          fprintf(out, " -> stdout");
      }
      if (st->nouts == 0 && ch->derived) fprintf(out, "; stream %s has no reader", ch->derived->name);
      fputc('\n', out);
      char state[1024];
      describe_state(st, state, sizeof state);
      if (*state) fprintf(out, "        state: %s\n", state);
      describe_late(st, state, sizeof state);
      if (*state) fprintf(out, "        made only for the rows the Filter passes: %s\n", state);
    }
  }
}
