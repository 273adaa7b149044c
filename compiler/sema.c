/* sema.c - the checker: names, types, aggregates, windows, time columns
 * and options. This file holds its helpers, the catalog, the statements
 * in order, derived streams' event time and sink paths; sema_expr.c,
 * sema_select.c, sema_warn.c and sema_ddl.c the rest (sema_int.h).
 *
 * One pass over the statements in source order: each CREATE adds a
 * Relation to the Catalog, so a name is visible only after it is declared
 * (and a derived stream cannot read itself).  Every error is reported where
 * it happens; an expression whose check failed gets TY_ERROR, and every rule
 * stays quiet about a TY_ERROR operand, so one mistake gives one message.
 *
 * Event time of derived streams (the rule plan.c and codegen.c rely on):
 *   - windowed query: the event time of a result row is the maximum event
 *     time of the rows that made it.  The derived relation gets it as an
 *     extra, implicit column "ts" (TIMESTAMP) after the select's outputs,
 *     unless an output column is already named ts (it must be TIMESTAMP and
 *     is then taken as the event time as written).
 *   - non-windowed query: if the input's time column is selected (as a bare
 *     column reference, under any name) that output is the time column;
 *     otherwise the implicit "ts" column is appended and carries the input
 *     row's event time.
 *   So rel->ncols == sel->nout + 1 exactly when the last column is implicit.
 */
#include "sema_int.h"

/* ---------------------------------------------------------------------
 * Small helpers
 * --------------------------------------------------------------------- */

void vec_push(Arena *a, PtrVec *pv, void *p) {
  if (pv->n == pv->cap) {
    int cap = pv->cap ? pv->cap * 2 : 8;
    void **nv = arena_alloc(a, sizeof(void *) * (size_t)cap);
    if (pv->n)
      memcpy(nv, pv->v, sizeof(void *) * (size_t)pv->n);
    pv->v = nv;
    pv->cap = cap;
  }
  pv->v[pv->n++] = p;
}

/* INT < BIGINT < DOUBLE, as in C's usual arithmetic conversions. */
Type promote(Type a, Type b) {
  if (a.kind == TY_DOUBLE || b.kind == TY_DOUBLE)
    return mk_type(TY_DOUBLE);
  if (a.kind == TY_BIGINT || b.kind == TY_BIGINT)
    return mk_type(TY_BIGINT);
  return mk_type(TY_INT);
}

/* Timestamps compare with integers because both are milliseconds. */
bool comparable(Type a, Type b) {
  if (a.kind == TY_NULL || b.kind == TY_NULL) /* NULL compares with anything, as NULL */
    return true;
  if (is_num(a) && is_num(b))
    return true;
  if (a.kind == TY_TIMESTAMP && (b.kind == TY_TIMESTAMP || is_sql_int(b)))
    return true;
  if (b.kind == TY_TIMESTAMP && is_sql_int(a))
    return true;
  if (a.kind == TY_DATE || b.kind == TY_DATE) /* a DATE as its midnight */
    return (a.kind == TY_DATE || a.kind == TY_TIMESTAMP) && (b.kind == TY_DATE || b.kind == TY_TIMESTAMP);
  if (a.kind == TY_VARCHAR || a.kind == TY_BOOL || a.kind == TY_INTERVAL)
    return a.kind == b.kind;
  return false;
}

/* The type both a and b convert to without loss (CASE, LEAST, GREATEST). */
bool common_type(Type a, Type b, Type *out) {
  if (a.kind == TY_NULL || b.kind == TY_NULL) { /* NULL takes the other's type */
    *out = a.kind == TY_NULL ? b : a;
    return true;
  }
  if (is_num(a) && is_num(b)) {
    *out = promote(a, b);
    return true;
  }
  if (a.kind != b.kind)
    return false;
  *out = a;
  if (a.kind == TY_VARCHAR && b.len > a.len)
    out->len = b.len;
  return true;
}

int list_len(Expr *e) {
  int n = 0;
  for (; e; e = e->next)
    n++;
  return n;
}

/* An integer literal, possibly negated: the only thing options and
 * generator arguments accept as a number. */
bool const_int(const Expr *e, int64_t *out) {
  if (!e)
    return false;
  if (e->kind == EX_INT) {
    *out = e->ival;
    return true;
  }
  if (e->kind == EX_UNARY && e->op == OP_NEG && e->lhs && e->lhs->kind == EX_INT) {
    *out = -e->lhs->ival;
    return true;
  }
  return false;
}

const char *rel_kind_name(const Relation *r) {
  switch (r->kind) {
  case REL_TABLE: return "table";
  case REL_SINK: return "sink";
  default: return "stream";
  }
}

/* ---------------------------------------------------------------------
 * "did you mean" notes: candidates are gathered per message, and
 * diag_suggest (diag.c) picks the closest one
 * --------------------------------------------------------------------- */

void names_add(Arena *a, Names *ns, const char *name) {
  if (ns->n == ns->cap) {
    int cap = ns->cap ? ns->cap * 2 : 16;
    const char **nv = arena_alloc(a, sizeof(char *) * (size_t)cap);
    if (ns->n)
      memcpy(nv, ns->v, sizeof(char *) * (size_t)ns->n);
    ns->v = nv;
    ns->cap = cap;
  }
  ns->v[ns->n++] = name;
}

void suggest_note(Sema *s, SrcLoc loc, const char *word, const Names *ns) {
  const char *best = diag_suggest(word, ns->v, ns->n);
  if (best)
    diag_note(s->d, loc, "did you mean '%s'?", best);
}

void suggest_from_list(Sema *s, SrcLoc loc, const char *word, const char *const *list,
                              int n) {
  const char *best = diag_suggest(word, list, n);
  if (best)
    diag_note(s->d, loc, "did you mean '%s'?", best);
}

/* Relations of the kinds in `kinds` (a mask of 1 << RelKind). */
void suggest_relation(Sema *s, SrcLoc loc, const char *name, unsigned kinds) {
  Names ns = {0};
  for (int i = 0; i < s->cat->nrels; i++)
    if (kinds & (1u << s->cat->rels[i]->kind) && (!s->cat->rels[i]->owner || s->cat->rels[i]->owner == s->owner))
      names_add(s->arena, &ns, s->cat->rels[i]->name);
  suggest_note(s, loc, name, &ns);
}

/* ---------------------------------------------------------------------
 * Catalog
 * --------------------------------------------------------------------- */

/* Names hash into an open-addressing index beside the declaration-order
 * array; both double when full, so n declarations cost O(n) (the array was
 * once copied on every add: 80k statements took 23 GB). */
static uint32_t name_hash(const char *name) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 16777619u;
  return h;
}

Relation *catalog_find(Catalog *c, const char *name) {
  if (!c || !name || !c->nslots)
    return NULL;
  for (uint32_t i = name_hash(name) & (c->nslots - 1);; i = (i + 1) & (c->nslots - 1)) {
    Relation *r = c->slots[i];
    if (!r)
      return NULL;
    if (strcmp(r->name, name) == 0)
      return r;
  }
}

static void catalog_index(Catalog *c, Relation *r) {
  if (r->owner) return; /* a WITH query or subquery: found by scope_find alone */
  uint32_t i = name_hash(r->name) & (c->nslots - 1);
  while (c->slots[i])
    i = (i + 1) & (c->nslots - 1);
  c->slots[i] = r;
}

void catalog_add(Sema *s, Relation *r) {
  Catalog *c = s->cat;
  if (c->nrels == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    Relation **nr = arena_alloc(s->arena, sizeof(Relation *) * (size_t)c->cap);
    if (c->nrels)
      memcpy(nr, c->rels, sizeof(Relation *) * (size_t)c->nrels);
    c->rels = nr;
  }
  if (2 * (uint32_t)(c->nrels + 1) > c->nslots) { /* at most half full */
    c->nslots = c->nslots ? 2 * c->nslots : 32;
    c->slots = arena_alloc(s->arena, sizeof(Relation *) * c->nslots);
    for (int i = 0; i < c->nrels; i++)
      catalog_index(c, c->rels[i]);
  }
  r->index = c->nrels;
  r->opt_base = -1; /* sema_check's end gives the relations a query uses their rows */
  c->rels[c->nrels++] = r;
  catalog_index(c, r);
}

/* The statement's own derived streams are few: a scan of the newest
 * relations, back to the first that is not the statement's. */
Relation *scope_find(Sema *s, const char *name) {
  for (int i = s->cat->nrels - 1; i >= 0 && s->cat->rels[i]->owner == s->owner && s->owner; i--)
    if (strcmp(s->cat->rels[i]->name, name) == 0)
      return s->cat->rels[i];
  return catalog_find(s->cat, name);
}

bool is_broken(const Relation *r) { return r->broken; }

void mark_broken(Sema *s, Relation *r) {
  (void)s;
  r->broken = true;
}

int find_col(const Relation *r, const char *name) {
  for (int i = 0; i < r->ncols; i++)
    if (strcmp(r->cols[i].name, name) == 0)
      return i;
  return -1;
}

Relation *new_relation(Sema *s, Stmt *st, RelKind kind) {
  Relation *r = arena_alloc(s->arena, sizeof(Relation));
  r->kind = kind;
  r->name = st->name;
  r->loc = st->name_loc;
  r->time_col = -1;
  r->meta_col = -1;
  r->proc_col = -1;
  r->key_col = -1;
  r->max_bad_rows = -1;
  r->max_bad_pct = -1;
  r->def = st;
  r->index = -1;
  st->rel = r;
  return r;
}

/* Reports a second declaration of a name; the caller then checks the
 * statement anyway (for its own errors) but does not register it. */
bool check_new_name(Sema *s, Stmt *st) {
  Relation *old = catalog_find(s->cat, st->name);
  if (st->owner) { /* a WITH query: its name hides a declared one; twice in one statement is an error */
    old = scope_find(s, st->name);
    if (old && !old->owner)
      old = NULL;
  }
  if (!old)
    return true;
  diag_error(s->d, st->name_loc, "redefinition of '%s'", st->name);
  diag_note(s->d, old->loc, "'%s' was first declared here", old->name);
  return false;
}

/* Is e a reference to the event-time column of one of the query's streams? */
static bool is_event_time(const Select *sel, const Expr *e) {
  if (!e || e->kind != EX_COLUMN || e->from_idx < 0 || e->from_idx >= sel->nfrom) return false;
  const Relation *in = sel->from[e->from_idx].rel;
  return in && in->kind != REL_TABLE && in->time_col == e->col_idx;
}

/* How far behind its window's end the event time `e` of a windowed result
 * row can be (e NULL: the implicit ts, the latest event time of the rows
 * behind it). Results of a window leave when the watermark passes the
 * window's end, so later results have ends above today's watermark W and
 * event times above W - hold: the derived stream's watermark is its
 * query's minus the hold, and no row of it is late for its readers. False
 * when e has no such bound (an expression of anything else, or a SESSION's
 * start, which can be arbitrarily old). */
static bool time_hold(const Select *sel, const Expr *e, int64_t *hold) {
  const WindowSpec *w = sel->window;
  bool session = w->kind == WIN_SESSION;
  /* an event time of a row in the window: at least its start (sessions:
   * only the latest, at least end - gap) */
  int64_t row = session ? w->gap_ms : w->size_ms;
  if (!e) {
    *hold = row;
    return true;
  }
  switch (e->kind) {
  case EX_WINDOW_END: *hold = 0; return true;
  case EX_WINDOW_START:
    *hold = w->size_ms;
    return !session;
  case EX_BINARY: {
    /* t + k, k + t, t - k for an interval or integer literal k (ms) */
    const Expr *t = e->lhs, *k = e->rhs;
    if (e->op == OP_ADD && (t->kind == EX_INTERVAL || t->kind == EX_INT)) t = e->rhs, k = e->lhs;
    int64_t h;
    if ((e->op != OP_ADD && e->op != OP_SUB) || (k->kind != EX_INTERVAL && k->kind != EX_INT) ||
        !time_hold(sel, t, &h))
      return false;
    if (e->op == OP_ADD)
      h -= k->ival; /* h >= 0 and k <= INT64_MAX: no overflow */
    else if (__builtin_add_overflow(h, k->ival, &h))
      return false;
    *hold = h < 0 ? 0 : h; /* ahead of the window's end: the query's own watermark is safe */
    return true;
  }
  case EX_CALL:
    /* MAX or MIN of the input's event time (a session's MIN is its start) */
    if ((e->agg != AGG_MAX && e->agg != AGG_MIN) || (session && e->agg == AGG_MIN) ||
        !is_event_time(sel, e->args))
      return false;
    *hold = row;
    return true;
  case EX_COLUMN:
    /* a row's own event time (a join's column, a GROUP BY key): in the window */
    if (session || !is_event_time(sel, e)) return false;
    *hold = w->size_ms;
    return true;
  default: return false;
  }
}

/* The event-time column of a derived stream; see the comment at the top. */
static void derive_time(Sema *s, Relation *r, Select *sel, SrcLoc *locs) {
  Relation *in = sel->from[sel->time_from].rel;
  int ts = find_col(r, "ts");
  char b[32];
  if (in) {
    r->ingestion_time = in->ingestion_time;
    if (!sel->window) {
      r->has_watermark = in->has_watermark;
      r->wm_bound_ms = in->wm_bound_ms;
    }
  }
  if (sel->updating) {
    /* an updating query's rows have their interval's last ms as event time:
     * its watermark trails the query's by 1 ms (cg_rows.c's emit_updates) */
    if (ts >= 0) {
      diag_error(s->d, locs[ts], "column 'ts' of stream '%s' must be renamed: the event time of an updating "
                 "stream is the time of each change (its emission), the implicit column ts", r->name);
      return;
    }
    r->wm_hold_ms = 1;
  } else if (sel->window) {
    if (ts >= 0) {
      Type t = r->cols[ts].type;
      if (t.kind == TY_TIMESTAMP || is_err(t))
        r->time_col = ts;
      else
        diag_error(s->d, locs[ts],
                   "column 'ts' of stream '%s' must be TIMESTAMP, not %s: "
                   "ts is a derived stream's event time",
                   r->name, tyname(t, b));
      if (t.kind == TY_TIMESTAMP && !time_hold(sel, sel->out[ts].expr, &r->wm_hold_ms))
        diag_error(s->d, sel->out[ts].expr->loc,
                   "the event time 'ts' of stream '%s' must be %s, or one of these plus or minus an "
                   "interval, so that its watermark can follow it%s",
                   r->name,
                   sel->window->kind == WIN_SESSION ? "WINDOW_END or MAX of the event time"
                                                     : "WINDOW_START, WINDOW_END, MIN or MAX of the event time",
                   sel->window->kind == WIN_SESSION ? " (a session's start can be any time before its end)" : "");
      r->wm_hold_ms += select_grace(sel); /* a window's updates come grace after its end */
      return;
    }
    time_hold(sel, NULL, &r->wm_hold_ms);
    r->wm_hold_ms += select_grace(sel);
  } else {
    /* an interval join's pair goes on when its later row comes, with the
     * later time or a time up to max(hi, -lo) before it: its watermark is
     * held back that much (cg_rows.c emit_interval_join_row), a bucket more
     * for an outer join's padded rows (ijoin_hold_ms) */
    if (sel->interval_join) {
      /* its time: a column named ts that is either stream's event time, or
       * (implicit) the pair's later time, whatever else is selected */
      r->wm_hold_ms = ijoin_hold_ms(sel);
      if (ts >= 0 && sel->regular_join) {
        /* a stored row met by a new one can be far behind the watermark:
         * the pair's time is raised to it (cg_rows.c emit_interval_join_row) */
        diag_error(s->d, locs[ts], "column 'ts' of stream '%s' must be renamed: a regular join's pair has the "
                   "implicit ts as its event time, the later time of its rows raised past the watermark either "
                   "had when read (an old row met by a new one is behind it by any amount)", r->name);
        return;
      }
      if (ts >= 0) {
        Expr *e = sel->out[ts].expr;
        if (e->kind == EX_COLUMN && e->from_idx >= 0 && e->from_idx < 2 && sel->from[e->from_idx].rel &&
            e->col_idx == sel->from[e->from_idx].rel->time_col && join_padded(sel, e->from_idx))
          diag_error(s->d, locs[ts], "column 'ts' of stream '%s' is NULL in the rows the outer join pads: select "
                     "the event time of a side it keeps as ts, or rename it (without ts, the time of a row is "
                     "the later time of its pair, a padded row's own)", r->name);
        else if (e->kind == EX_COLUMN && e->from_idx >= 0 && e->from_idx < 2 && sel->from[e->from_idx].rel &&
                 e->col_idx == sel->from[e->from_idx].rel->time_col)
          r->time_col = ts;
        else
          diag_error(s->d, locs[ts], "column 'ts' of stream '%s' must be one of the joined streams' event times, or "
                     "be renamed: ts is a derived stream's event time (without it, the later time of each pair)",
                     r->name);
        return;
      }
    }
    for (int i = 0; i < sel->nout && in && !sel->interval_join; i++) {
      Expr *e = sel->out[i].expr;
      if (e->kind == EX_COLUMN && e->from_idx == sel->time_from && e->col_idx == in->time_col) {
        r->time_col = i;
        return;
      }
    }
    if (ts >= 0 && !sel->interval_join) {
      if (in && in->time_col >= 0)
        diag_error(s->d, locs[ts],
                   "column 'ts' would hide the event time of stream '%s'; "
                   "select '%s' or rename this column",
                   r->name, in->cols[in->time_col].name);
      return;
    }
  }
  Column *c = &r->cols[r->ncols];
  c->name = "ts";
  c->type = mk_type(TY_TIMESTAMP);
  c->loc = sel->loc;
  c->ysb_field = -1;
  r->time_col = r->ncols++;
  r->implicit_time = true;
}

static void check_derived(Sema *s, Stmt *st) {
  bool fresh = check_new_name(s, st);
  int before = s->d->nerrors;
  SrcLoc *locs = NULL;
  Select *sel = st->select;
  if (!sel)
    return;
  check_select(s, sel, &locs, st->name);
  Relation *r = new_relation(s, st, REL_DERIVED);
  r->owner = st->owner;
  r->cols = arena_alloc(s->arena, sizeof(Column) * (size_t)(sel->nout + 1));
  for (int i = 0; i < sel->nout; i++) {
    Column *c = &r->cols[i];
    c->name = sel->out[i].name;
    c->type = sel->out[i].type;
    c->loc = locs[i];
    c->ysb_field = -1;
  }
  r->ncols = sel->nout;
  r->updating = select_changes(sel);
  if (sel->updating && sel->emit == EMIT_FINAL)
    diag_error(s->d, sel->emit_loc, "a stream of EMIT FINAL's table is not supported (it comes at the end of the "
               "input, after all time): write EMIT EVERY or EMIT CHANGES, whose changes its readers aggregate");
  derive_time(s, r, sel, locs);
  if (s->d->nerrors != before)
    mark_broken(s, r);
  if (fresh)
    catalog_add(s, r);
}

static void check_insert(Sema *s, Stmt *st) {
  Relation *r = catalog_find(s->cat, st->name);
  if (!r) {
    diag_error(s->d, st->name_loc, "unknown sink '%s'", st->name);
    suggest_relation(s, st->name_loc, st->name, 1u << REL_SINK);
  } else if (r->kind != REL_SINK) {
    diag_error(s->d, st->name_loc, "INSERT INTO needs a sink, and '%s' is a %s", st->name,
               rel_kind_name(r));
    diag_note(s->d, r->loc, "'%s' is declared here", r->name);
  } else {
    st->rel = r;
    r->written = true;
  }
  int before = s->d->nerrors;
  check_select(s, st->select, NULL, NULL);
  if (st->rel && st->rel->sink && st->rel->sink->ops && !st->rel->sink->header && select_grace(st->select) &&
      s->d->nerrors == before) {
    /* kafka and redis hold a row per GROUP BY key (and window): a grace
     * period's -U/-D of an old window would take back a newer one's */
    diag_error(s->d, st->name_loc, "sink '%s' (sink = '%s') does not take a window with a GRACE PERIOD yet (its "
               "changes of a window come after later windows' rows); write it to a csv, stdout or tcp sink",
               st->rel->name, st->rel->sink->name);
    return;
  }
  if (st->rel && st->rel->sink && st->rel->sink->check_insert && s->d->nerrors == before)
    st->rel->sink->check_insert(s, st, st->rel);
}

/* ---------------------------------------------------------------------
 * Paths: a sink must not write a file the program reads or another sink
 * writes (the run would overwrite its input, or two sinks one file)
 * --------------------------------------------------------------------- */

/* The path with "." components and repeated slashes removed: "./in.csv",
 * "in.csv" and "data//./in.csv" vs "data/in.csv" are the same file. ".."
 * stays (after a symbolic link it is not the parent). */
static char *path_key(Arena *a, const char *path) {
  size_t n = strlen(path);
  char *k = arena_alloc(a, n + 1), *o = k;
  const char *p = path;
  if (*p == '/')
    *o++ = *p++;
  while (*p) {
    while (*p == '/')
      p++;
    const char *e = strchr(p, '/');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len && !(len == 1 && p[0] == '.')) {
      if (o > k && o[-1] != '/')
        *o++ = '/';
      memcpy(o, p, len);
      o += len;
    }
    p += len;
  }
  if (o == k)
    *o++ = '.';
  *o = '\0';
  return k;
}

typedef struct PathRef {
  const char *key;
  Relation *r;
} PathRef;

static int pathref_cmp(const void *x, const void *y) {
  const PathRef *a = x, *b = y;
  int c = strcmp(a->key, b->key);
  return c ? c : (a->r->index > b->r->index) - (a->r->index < b->r->index);
}

static void check_paths(Sema *s) {
  Catalog *c = s->cat;
  PathRef *refs = arena_alloc(s->arena, sizeof(PathRef) * (size_t)(c->nrels ? c->nrels : 1));
  int n = 0;
  for (int i = 0; i < c->nrels; i++)
    if (c->rels[i]->path && c->rels[i]->kind != REL_DERIVED)
      refs[n++] = (PathRef){path_key(s->arena, c->rels[i]->path), c->rels[i]};
  qsort(refs, (size_t)n, sizeof *refs, pathref_cmp);
  /* per relation (by index): the first reader and the first sink of its path */
  Relation **reader = arena_alloc(s->arena, sizeof(Relation *) * (size_t)(c->nrels ? c->nrels : 1));
  Relation **writer = arena_alloc(s->arena, sizeof(Relation *) * (size_t)(c->nrels ? c->nrels : 1));
  for (int i = 0, j; i < n; i = j) {
    Relation *rd = NULL, *wr = NULL;
    for (j = i; j < n && strcmp(refs[j].key, refs[i].key) == 0; j++) {
      Relation *r = refs[j].r;
      if (r->kind == REL_SINK && !wr)
        wr = r;
      else if (r->kind != REL_SINK && !rd)
        rd = r;
    }
    for (int k = i; k < j; k++) {
      reader[refs[k].r->index] = rd;
      writer[refs[k].r->index] = wr;
    }
  }
  /* in declaration order, so the messages are in file order */
  for (int i = 0; i < c->nrels; i++) {
    Relation *r = c->rels[i];
    if (r->kind != REL_SINK || !r->path)
      continue;
    Relation *rd = reader[i], *wr = writer[i];
    if (rd) {
      diag_error(s->d, r->path_loc, "sink '%s' would overwrite '%s', which %s '%s' reads",
                 r->name, r->path, rel_kind_name(rd), rd->name);
      diag_note(s->d, rd->path_loc, "%s '%s' reads it here", rel_kind_name(rd), rd->name);
    } else if (wr && wr != r) {
      diag_error(s->d, r->path_loc, "sinks '%s' and '%s' both write '%s'", wr->name, r->name,
                 r->path);
      diag_note(s->d, wr->path_loc, "sink '%s' writes it here", wr->name);
    }
  }
}

Catalog *sema_check(Arena *a, Diag *d, Program *p) {
  Sema s = {.arena = a, .d = d};
  s.cat = arena_alloc(a, sizeof(Catalog));
  for (Stmt *st = p ? p->stmts : NULL; st; st = st->next) {
    st->rel = NULL;
    s.owner = st->owner ? st->owner : st;
    switch (st->kind) {
    case ST_CREATE_STREAM: check_source(&s, st); break;
    case ST_CREATE_TABLE: check_table(&s, st); break;
    case ST_CREATE_SINK: check_sink(&s, st); break;
    case ST_CREATE_STREAM_AS: check_derived(&s, st); break;
    case ST_INSERT: check_insert(&s, st); break;
    case ST_SELECT: check_select(&s, st->select, NULL, NULL); break;
    }
  }
  check_paths(&s);
  if (d->nerrors == 0 && p)
    warn_unused(&s);
  /* Option rows for --set: the sources and tables a query reads and the
   * sinks one writes (a declaration nothing uses has nothing to change,
   * and 100,000 of them made 2.7 million rows of generated C) */
  for (int i = 0; i < s.cat->nrels; i++) {
    Relation *r = s.cat->rels[i];
    if (r->opt_type && (r->kind == REL_SINK ? r->written : r->used))
      r->opt_base = OPT_COUNT * s.cat->nopt_rels++;
  }
  return s.cat;
}
