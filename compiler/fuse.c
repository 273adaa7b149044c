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

static void add_stage(Physical *ph, int *cap, Arena *a, Stage st) {
  if (ph->nstages == *cap) {
    int ncap = *cap ? *cap * 2 : 16;
    Stage *n = arena_alloc(a, sizeof *n * ncap);
    if (ph->nstages) memcpy(n, ph->stages, sizeof *n * ph->nstages);
    ph->stages = n;
    *cap = ncap;
  }
  st.id = ph->nstages + 1;
  st.edge = st.in == XR_LOCAL ? -1 : ph->nedges++;
  ph->stages[ph->nstages++] = st;
}

static ExchangeKind exchange_into(const Operator *op) {
  switch (op->kind) {
  case OP_AGGREGATION:
  case OP_JOIN: return XR_KEYHASH;
  case OP_REDUCE: return XR_SINGLE;
  case OP_SINK: return XR_GATHER;
  default: return XR_ROWHASH;
  }
}

// fused chain = [Source .. Map|Aggregation(partial)] -> [Aggregation(final)] -> [Sink]
Physical *fuse_plan(Arena *a, Plan *plan, bool fuse) {
  Physical *ph = arena_alloc(a, sizeof *ph);
  ph->plan = plan;
  ph->fused = fuse;
  int cap = 0;
  for (int c = 0; c < plan->nchains; c++) {
    Chain *ch = &plan->chains[c];
    int sink = ch->nops - 1;
    if (!fuse) {
      for (int i = 0; i < ch->nops; i++)
        add_stage(ph, &cap, a,
                  (Stage){.chain = ch, .first = i, .last = i,
                          .in = i == 0 ? XR_LOCAL : exchange_into(&ch->ops[i])});
      continue;
    }
    int agg = sink - 1; /* Map, Reduce or Aggregation */
    if (ch->windowed) {
      add_stage(ph, &cap, a, (Stage){.chain = ch, .first = 0, .last = agg, .partial = true});
      add_stage(ph, &cap, a, (Stage){.chain = ch, .first = agg, .last = agg, .final = true,
                                     .in = exchange_into(&ch->ops[agg])});
    } else {
      add_stage(ph, &cap, a, (Stage){.chain = ch, .first = 0, .last = agg});
    }
    add_stage(ph, &cap, a, (Stage){.chain = ch, .first = sink, .last = sink, .in = XR_GATHER});
  }
  return ph;
}

/* ---- --explain ---------------------------------------------------------- */

static const char *op_name(OperatorKind k) {
  switch (k) {
  case OP_SOURCE: return "Source";
  case OP_MAP: return "Map";
  case OP_FILTER: return "Filter";
  case OP_SPLIT: return "Split";
  case OP_STATIC_JOIN: return "StaticJoin";
  case OP_REDUCE: return "Reduce";
  case OP_AGGREGATION: return "Aggregation";
  case OP_JOIN: return "Join";
  case OP_SINK: return "Sink";
  }
  return "?";
}

static const char *source_kind(const Relation *r) {
  switch (r->source) {
  case SRC_YSB: return "ysb generator";
  case SRC_DATAGEN: return "datagen generator";
  case SRC_CSV: return "csv file";
  case SRC_NONE: break;
  }
  return "derived stream";
}

static void print_ms(FILE *out, int64_t ms) {
  if (ms % 3600000 == 0) fprintf(out, "%lld h", (long long)(ms / 3600000));
  else if (ms % 60000 == 0) fprintf(out, "%lld min", (long long)(ms / 60000));
  else if (ms % 1000 == 0) fprintf(out, "%lld s", (long long)(ms / 1000));
  else fprintf(out, "%lld ms", (long long)ms);
}

static void print_window(FILE *out, const WindowSpec *w) {
  switch (w->kind) {
  case WIN_TUMBLING:
    fprintf(out, "TUMBLING size ");
    print_ms(out, w->size_ms);
    break;
  case WIN_HOPPING:
    fprintf(out, "HOPPING size ");
    print_ms(out, w->size_ms);
    fprintf(out, " advance ");
    print_ms(out, w->advance_ms);
    break;
  case WIN_SESSION:
    fprintf(out, "SESSION gap ");
    print_ms(out, w->gap_ms);
    break;
  case WIN_NONE: break;
  }
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
    if (s->nkeys) {
      fprintf(out, " GROUP BY ");
      for (int i = 0; i < s->nkeys; i++)
        fprintf(out, "%s%s", i ? ", " : "", s->keys[i]->text);
    }
    fprintf(out, "%s", s->nkeys ? "; " : " ");
    for (int i = 0; i < s->naggs; i++)
      fprintf(out, "%s%s", i ? ", " : "", s->aggs[i]->text);
    fprintf(out, "; ");
    print_window(out, s->window);
    if (s->having) fprintf(out, "; HAVING %s", s->having->text);
    break;
  case OP_MAP:
    fputc(' ', out);
    for (int i = 0; i < s->nout; i++) fprintf(out, "%s%s", i ? ", " : "", s->out[i].name);
    break;
  case OP_SINK:
    if (op->rel)
      fprintf(out, " %s (csv '%s')", op->rel->name, op->rel->path ? op->rel->path : "");
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
  else if (r->has_watermark) {
    fprintf(out, ", from the data; watermark = max %s - ", r->cols[r->time_col].name);
    print_ms(out, r->wm_bound_ms);
    fprintf(out, " per rank; end of input = end of time\n");
  } else
    fprintf(out, ", from the data, in order per rank; watermark = last %s; end of input = end of time\n",
            r->cols[r->time_col].name);
}

static void print_exchange(FILE *out, const Stage *st) {
  const Select *s = st->chain->sel;
  switch (st->in) {
  case XR_LOCAL: return;
  case XR_ROWHASH: fprintf(out, "      --> exchange (edge %d): rows spread by hash(row) %% ranks\n", st->edge); return;
  case XR_KEYHASH:
    fprintf(out, "      --> exchange (edge %d): %s by hash(", st->edge,
            st->final ? "per-key partial aggregates" : "rows");
    for (int i = 0; i < s->nkeys; i++) fprintf(out, "%s%s", i ? ", " : "", s->keys[i]->text);
    fprintf(out, ") %% ranks\n");
    return;
  case XR_SINGLE:
    fprintf(out, "      --> exchange (edge %d): %s to rank 0 (no key)\n", st->edge,
            st->final ? "partial aggregates" : "rows");
    return;
  case XR_GATHER: fprintf(out, "      --> gather (edge %d): results to rank 0\n", st->edge); return;
  }
}

void explain_print(FILE *out, const Physical *ph) {
  const Plan *pl = ph->plan;
  const Catalog *cat = pl->cat;
  fprintf(out, "plan for %s (%s)\n", pl->query_path, ph->fused ? "fused" : "not fused: every edge is a message");

  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    if (r->kind == REL_TABLE) {
      fprintf(out, "table %s: %s, key %s; loaded whole on every rank\n", r->name,
              r->source == SRC_YSB ? "ysb campaign table (1000 ads, 100 campaigns)" : "csv file",
              r->cols[r->key_col].name);
      continue;
    }
    if (r->kind != REL_SOURCE) continue;
    int nconsumers = 0;
    for (int c = 0; c < pl->nchains; c++)
      if (pl->chains[c].source == r) nconsumers++;
    fprintf(out, "source %s: %s", r->name, source_kind(r));
    if (r->source == SRC_CSV) fprintf(out, " '%s'%s", r->path ? r->path : "", r->header ? " with header" : "");
    if (r->rate) fprintf(out, ", rate %lld events/s over all ranks", (long long)r->rate);
    if (r->has_seed) fprintf(out, ", seed %lld", (long long)r->seed);
    if (r->has_limit) fprintf(out, ", limit %lld", (long long)r->limit);
    fprintf(out, "\n");
    print_time(out, r);
    if (nconsumers > 1) {
      fprintf(out, "    Split: %d consumers (", nconsumers);
      int k = 0;
      for (int c = 0; c < pl->nchains; c++)
        if (pl->chains[c].source == r) fprintf(out, "%squery %d", k++ ? ", " : "", c + 1);
      fprintf(out, ")%s\n", ph->fused ? ", each branch runs in the source's loop"
                                          : ", branch b routes to edge of branch b (b * ranks + hash % ranks)");
    } else if (nconsumers == 0) {
      fprintf(out, "    unused\n");
    }
  }

  for (int c = 0; c < pl->nchains; c++) {
    const Chain *ch = &pl->chains[c];
    const char *what = ch->stmt->kind == ST_INSERT ? "INSERT INTO" : "SELECT";
    fprintf(out, "query %d (line %d): %s\n", c + 1, ch->stmt->loc.line, what);
    fprintf(out, "  columns read from %s:", ch->source->name);
    for (int i = 0; i < ch->source->ncols; i++)
      if (ch->used[0][i]) fprintf(out, " %s", ch->source->cols[i].name);
    fprintf(out, "\n  logical:\n");
    for (int i = 0; i < ch->nops; i++) {
      fprintf(out, "    %d ", i + 1);
      print_op(out, ch, &ch->ops[i]);
      fputc('\n', out);
    }
    fprintf(out, "  physical:\n");
    for (int s = 0; s < ph->nstages; s++) {
      const Stage *st = &ph->stages[s];
      if (st->chain != ch) continue;
      print_exchange(out, st);
      const char *where = st->first == 0 ? "every rank, source thread(s)"
                          : ch->ops[st->first].kind == OP_SINK ? "rank 0, collector"
                                                               : "every rank";
      if (ch->ops[st->first].kind == OP_REDUCE && st->in == XR_SINGLE) where = "rank 0";
      fprintf(out, "    pipeline %d [%s]: ", st->id, where);
      for (int i = st->first; i <= st->last; i++) {
        if (i > st->first) fprintf(out, " -> ");
        fprintf(out, "%s", op_name(ch->ops[i].kind));
        if (i == st->last && st->partial) fprintf(out, "(partial)");
        if (i == st->first && st->final) fprintf(out, "(final)");
      }
      if (ch->ops[st->first].kind == OP_SINK) {
        if (ch->windowed) {
          fprintf(out, "; each window's rows once its end passes the watermark, ordered by WINDOW_END");
          for (int k = 0; k < ch->sel->nkeys; k++) fprintf(out, ", %s", ch->sel->keys[k]->text);
        } else {
          fprintf(out, "; rows in arrival order");
        }
      }
      fputc('\n', out);
    }
  }
}
