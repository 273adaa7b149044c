/* explain_dot.c - the physical plan as a Graphviz drawing (--explain=dot).
 *
 * The same facts as explain_print, laid out as a dataflow: streams and
 * tables on the left, pipelines grouped by where they run (every rank, or
 * rank 0 only), and one arrow per exchange, labelled with how rows cross
 * ranks and on which key. Output is deterministic, so it can be a golden
 * file; `dot -Tpng` renders it.
 */
#include "airc.h"

#include <stdlib.h>
#include <string.h>

/* A growable text buffer: labels are built first, then escaped once. */
typedef struct Buf {
  char *s;    /* NUL-terminated text */
  size_t n;   /* bytes used */
  size_t cap; /* bytes allocated */
} Buf;

static void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (need < 0) return;
  if (b->n + (size_t)need + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + (size_t)need + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) abort();
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
  va_end(ap);
  b->n += (size_t)need;
}

/* Text as the body of a DOT string: '\n' in the text ends a left-aligned
 * line ("\l"); quotes and backslashes are escaped; other control bytes
 * (impossible in names, possible in string literals) become spaces. */
static void put_label(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\n') fputs("\\l", out);
    else if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p < 0x20 || *p == 0x7f) fputc(' ', out);
    else fputc(*p, out);
  }
  fputc('"', out);
}

static void put_attr_label(FILE *out, Buf *b) {
  fputs("label=", out);
  put_label(out, b->s ? b->s : "");
  b->n = 0;
  if (b->s) b->s[0] = '\0';
}

static void buf_ms(Buf *b, int64_t ms) {
  char t[32];
  buf_printf(b, "%s", explain_ms(ms, t, sizeof t));
}

static void buf_window(Buf *b, const WindowSpec *w) {
  char t[96];
  buf_printf(b, "%s", explain_window(w, t, sizeof t));
}

static void buf_keys(Buf *b, const Select *s) {
  for (int i = 0; i < s->nkeys; i++) buf_printf(b, "%s%s", i ? ", " : "", s->keys[i]->text);
}

static const char *text_of(const Expr *e) { return e && e->text ? e->text : "?"; }

/* One operator on one line of a pipeline's box. */
static void buf_op(Buf *b, const Stage *st, const Operator *op, int i) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  buf_printf(b, "%s", op_name(op->kind));
  switch (op->kind) {
  case OP_SOURCE: buf_printf(b, " %s", op->rel->name); break;
  case OP_MAP: break;
  case OP_FILTER:
    buf_printf(b, " ");
    for (const Expr *c = op->pred; c; c = c->next) buf_printf(b, "%s%s", c == op->pred ? "" : " AND ", text_of(c));
    break;
  case OP_STATIC_JOIN: buf_printf(b, " %s ON %s", op->rel->name, text_of(s->join_on)); break;
  case OP_JOIN:
    buf_printf(b, " ON %s; ", text_of(s->join_on));
    buf_window(b, s->window);
    break;
  case OP_REDUCE:
  case OP_AGGREGATION:
    if (i == st->last && st->partial) buf_printf(b, " (PARTIAL, per rank)");
    if (i == st->first && st->final) buf_printf(b, " (final, merges partials)");
    if (s->nkeys) {
      buf_printf(b, " GROUP BY ");
      buf_keys(b, s);
    }
    buf_printf(b, "\n  ");
    char lb[512];
    for (int k = 0; k < s->naggs; k++) buf_printf(b, "%s%s", k ? ", " : "", plan_label(s->aggs[k], lb, sizeof lb));
    buf_printf(b, "; ");
    buf_window(b, s->window);
    if (s->having) buf_printf(b, "; HAVING %s", s->having->text);
    break;
  case OP_SINK:
    if (op->rel && op->rel->kind == REL_DERIVED) buf_printf(b, ": stream %s", op->rel->name);
    else if (op->rel) buf_printf(b, ": %s (%s '%s')", op->rel->name, op->rel->sink->name, sink_target(op->rel));
    else buf_printf(b, ": stdout");
    if (ch->windowed) buf_printf(b, "\n  each window once the watermark passes its end");
    break;
  }
}

static bool on_rank0(const Stage *st) {
  const Operator *ops = st->leg ? st->chain->ops1 : st->chain->ops;
  return ops[st->first].kind == OP_SINK || st->in == XR_SINGLE;
}

static void stage_node(FILE *out, Buf *b, const Physical *ph, int si) {
  const Stage *st = &ph->stages[si];
  const Chain *ch = st->chain;
  const Operator *ops = st->leg ? ch->ops1 : ch->ops;
  const char *what = ops[st->first].kind == OP_SINK ? "collector"
                     : st->edge < 0                 ? "in the source's loop"
                                                    : "";
  buf_printf(b, "pipeline %d (%s%s)%s%s\n", st->id, ch->label, st->leg ? ", join input 2" : "",
             *what ? ": " : "", what);
  for (int i = st->first; i <= st->last; i++) {
    buf_printf(b, "%s", i > st->first ? "-> " : "");
    buf_op(b, st, &ops[i], i);
    buf_printf(b, "\n");
  }
  char state[1024];
  describe_state(st, state, sizeof state);
  if (*state) buf_printf(b, "state: %s\n", state);
  describe_late(st, state, sizeof state);
  if (*state) buf_printf(b, "made only for the rows the Filter passes: %s\n", state);
  fprintf(out, "    p%d [", st->id);
  put_attr_label(out, b);
  if (st->partial) fputs(", peripheries=2", out);
  if (ops[st->first].kind == OP_SINK) fputs(", style=\"rounded,filled\", fillcolor=\"#eeeeee\"", out);
  fputs("];\n", out);
}

static void buf_time(Buf *b, const Relation *r) {
  if (r->time_col < 0) return;
  const char *col = r->cols[r->time_col].name;
  buf_printf(b, "time: %s", col);
  if (r->kind == REL_DERIVED)
    buf_printf(b, " (latest event time behind each result)\nwatermark: its query's");
  else if (r->ingestion_time)
    buf_printf(b, " (ingestion time)\nwatermark: wall clock");
  else if (r->proc_col >= 0)
    buf_printf(b, " (processing time)\nwatermark: wall clock");
  else if (r->has_watermark) {
    buf_printf(b, " (from the data)\nwatermark: max %s - ", col);
    buf_ms(b, r->wm_bound_ms);
  } else
    buf_printf(b, " (from the data, in order)\nwatermark: last %s", col);
  buf_printf(b, "\n");
}

static void relation_node(FILE *out, Buf *b, const Relation *r) {
  const char *shape = "cylinder";
  if (r->kind == REL_TABLE) {
    shape = "note";
    buf_printf(b, "table %s\n%s, key %s\nloaded whole on every rank\n", r->name,
               r->source->table_brief, r->cols[r->key_col].name);
  } else if (r->kind == REL_DERIVED) {
    shape = "box";
    buf_printf(b, "stream %s (derived)\n", r->name);
    buf_time(b, r);
  } else {
    buf_printf(b, "source %s\n%s", r->name, r->source->desc);
    if (r->path) buf_printf(b, " '%s'", r->path);
    if (r->follow) buf_printf(b, ", followed");
    if (r->rate) buf_printf(b, ", %lld events/s", (long long)r->rate);
    if (r->has_limit) buf_printf(b, ", limit %lld", (long long)r->limit);
    buf_printf(b, "\n");
    buf_time(b, r);
  }
  fprintf(out, "%sr%d [shape=%s%s, ", r->kind == REL_DERIVED ? "    " : "  ", r->index, shape,
          r->kind == REL_DERIVED ? ", style=dashed" : "");
  put_attr_label(out, b);
  fputs("];\n", out);
}

/* The label of edge e: how rows cross ranks, and on which key. */
static void buf_edge(Buf *b, const Physical *ph, const PEdge *e) {
  const Stage *to = &ph->stages[e->to];
  const Select *s = to->chain->sel;
  buf_printf(b, "edge %d: ", e->id);
  switch (e->kind) {
  case XR_LOCAL: buf_printf(b, "function call"); break;
  case XR_ROWHASH: buf_printf(b, "rows\nhash(row) %% ranks"); break;
  case XR_SAME: buf_printf(b, "same rank"); break;
  case XR_GATHER: buf_printf(b, "results\nto rank 0"); break;
  case XR_SINGLE: buf_printf(b, "%s\nto rank 0", to->final ? "partials" : "rows"); break;
  case XR_KEYHASH:
    if (to->chain->join_at >= 0 && to->first == to->chain->join_at) {
      buf_printf(b, "%s rows\nhash(%s) %% ranks", e->to_input ? "right" : "left",
                 text_of(e->to_input ? s->join_rkey : s->join_lkey));
    } else {
      buf_printf(b, "%s\nhash(", to->final ? "partials per key" : "rows");
      buf_keys(b, s);
      buf_printf(b, ") %% ranks");
    }
    break;
  }
  char what[1024];
  describe_payload(ph, e, what, sizeof what);
  buf_printf(b, "\ncarrying %s\n", what);
}

static bool reads(const Stage *st, const Relation *r) {
  const Operator *ops = st->leg ? st->chain->ops1 : st->chain->ops;
  for (int i = st->first; i <= st->last; i++)
    if ((ops[i].kind == OP_SOURCE || ops[i].kind == OP_STATIC_JOIN) && ops[i].rel == r) return true;
  return false;
}

void explain_dot(FILE *out, const Physical *ph) {
  const Plan *pl = ph->plan;
  const Catalog *cat = pl->cat;
  Buf b = {0};

  fputs("digraph plan {\n", out);
  buf_printf(&b, "plan for %s (%s)", pl->query_path, ph->fused ? "fused" : "not fused: every edge is a message");
  fputs("  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, labelloc=t, ", out);
  put_attr_label(out, &b);
  fputs("];\n", out);
  fputs("  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n", out);
  fputs("  edge [fontname=\"Helvetica\", fontsize=9];\n", out);

  /* Streams and tables, with each stream's time column and watermark.
   * Derived streams live on every rank, so they are drawn in that box. */
  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    if (r->kind == REL_SOURCE || r->kind == REL_TABLE) relation_node(out, &b, r);
  }

  /* Pipelines by where they run: the SPMD part on every rank, the
   * collectors (and a global Reduce's final step) on rank 0. */
  for (int role = 0; role < 2; role++) {
    fprintf(out, "  subgraph cluster_%s {\n", role ? "rank0" : "every_rank");
    fprintf(out, "    label=\"%s\"; style=%s;\n", role ? "rank 0 only" : "every rank (same pipelines, own share of the rows)",
            role ? "\"rounded,filled\"; fillcolor=\"#f7f7ff\"" : "rounded");
    for (int si = 0; si < ph->nstages; si++)
      if (on_rank0(&ph->stages[si]) == (role == 1)) stage_node(out, &b, ph, si);
    for (int i = 0; role == 0 && i < cat->nrels; i++)
      if (cat->rels[i]->kind == REL_DERIVED) relation_node(out, &b, cat->rels[i]);
    fputs("  }\n", out);
  }

  /* Where rows come from: source streams enter in a pipeline's loop, tables
   * are looked up in it, derived streams are handed over on the same rank. */
  for (int si = 0; si < ph->nstages; si++) {
    const Stage *st = &ph->stages[si];
    for (int i = 0; i < cat->nrels; i++) {
      const Relation *r = cat->rels[i];
      if (r->kind == REL_SOURCE && st->edge < 0 && reads(st, r))
        fprintf(out, "  r%d -> p%d [style=dashed, label=\"rows enter\"];\n", r->index, st->id);
      if (r->kind == REL_TABLE && reads(st, r))
        fprintf(out, "  r%d -> p%d [style=dotted, arrowhead=none, label=\"lookup\"];\n", r->index, st->id);
    }
    if (st->nouts == 0 && st->chain->derived && st->chain->producer == si)
      fprintf(out, "  p%d -> r%d [style=dashed, label=\"no reader\"];\n", st->id, st->chain->derived->index);
  }
  for (int k = 0; k < pl->nchains; k++) {
    const Chain *ch = &pl->chains[k];
    if (ch->derived && ph->stages[ch->producer].nouts > 0)
      fprintf(out, "  p%d -> r%d [style=dashed, label=\"results\"];\n", ph->stages[ch->producer].id,
              ch->derived->index);
  }

  /* Exchanges. A derived stream's rows are drawn through its node. */
  for (int i = 0; i < ph->nedges; i++) {
    const PEdge *e = &ph->edges[i];
    const Stage *from = &ph->stages[e->from], *to = &ph->stages[e->to];
    buf_edge(&b, ph, e);
    if (e->kind == XR_SAME && from->chain->derived)
      fprintf(out, "  r%d -> p%d [", from->chain->derived->index, to->id);
    else
      fprintf(out, "  p%d -> p%d [", from->id, to->id);
    put_attr_label(out, &b);
    if (e->kind == XR_KEYHASH || e->kind == XR_ROWHASH) fputs(", penwidth=2", out);
    if (e->kind == XR_GATHER || e->kind == XR_SINGLE) fputs(", color=\"#444488\"", out);
    fputs("];\n", out);
  }
  fputs("}\n", out);
  free(b.s);
}
