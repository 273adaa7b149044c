/* sema.c - names, types, aggregates, windows, time columns and options.
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
#include "airc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------------
 * Small helpers
 * --------------------------------------------------------------------- */

typedef struct Sema {
  Arena *arena;       /* everything sema allocates */
  Diag *d;            /* where errors go */
  Catalog *cat;       /* relations declared so far */
} Sema;

/* A growable array of pointers in the arena (old blocks are left behind;
 * the arena frees them all at once). */
typedef struct PtrVec {
  void **v;
  int n, cap;
} PtrVec;

static void vec_push(Arena *a, PtrVec *pv, void *p) {
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

static Type mk_type(TypeKind k) { return (Type){k, 0}; }
static Type mk_varchar(int len) { return (Type){TY_VARCHAR, len}; }

static bool is_err(Type t) { return t.kind == TY_ERROR; }
static bool is_sql_int(Type t) { return t.kind == TY_INT || t.kind == TY_BIGINT; }
static bool is_num(Type t) {
  return t.kind == TY_INT || t.kind == TY_BIGINT || t.kind == TY_DOUBLE;
}

/* INT < BIGINT < DOUBLE, as in C's usual arithmetic conversions. */
static Type promote(Type a, Type b) {
  if (a.kind == TY_DOUBLE || b.kind == TY_DOUBLE)
    return mk_type(TY_DOUBLE);
  if (a.kind == TY_BIGINT || b.kind == TY_BIGINT)
    return mk_type(TY_BIGINT);
  return mk_type(TY_INT);
}

/* Timestamps compare with integers because both are milliseconds. */
static bool comparable(Type a, Type b) {
  if (is_num(a) && is_num(b))
    return true;
  if (a.kind == TY_TIMESTAMP && (b.kind == TY_TIMESTAMP || is_sql_int(b)))
    return true;
  if (b.kind == TY_TIMESTAMP && is_sql_int(a))
    return true;
  if (a.kind == TY_VARCHAR || a.kind == TY_BOOL || a.kind == TY_INTERVAL)
    return a.kind == b.kind;
  return false;
}

/* The type both a and b convert to without loss (CASE, LEAST, GREATEST). */
static bool common_type(Type a, Type b, Type *out) {
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

static const char *tyname(Type t, char *buf) { return type_name(t, buf, 32); }

static int list_len(Expr *e) {
  int n = 0;
  for (; e; e = e->next)
    n++;
  return n;
}

/* An integer literal, possibly negated: the only thing options and
 * generator arguments accept as a number. */
static bool const_int(const Expr *e, int64_t *out) {
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

static const char *rel_kind_name(const Relation *r) {
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

typedef struct Names {
  const char **v; /* candidate names (borrowed) */
  int n, cap;
} Names;

static void names_add(Arena *a, Names *ns, const char *name) {
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

static void suggest_note(Sema *s, SrcLoc loc, const char *word, const Names *ns) {
  const char *best = diag_suggest(word, ns->v, ns->n);
  if (best)
    diag_note(s->d, loc, "did you mean '%s'?", best);
}

static void suggest_from_list(Sema *s, SrcLoc loc, const char *word, const char *const *list,
                              int n) {
  const char *best = diag_suggest(word, list, n);
  if (best)
    diag_note(s->d, loc, "did you mean '%s'?", best);
}

/* Relations of the kinds in `kinds` (a mask of 1 << RelKind). */
static void suggest_relation(Sema *s, SrcLoc loc, const char *name, unsigned kinds) {
  Names ns = {0};
  for (int i = 0; i < s->cat->nrels; i++)
    if (kinds & (1u << s->cat->rels[i]->kind))
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
  uint32_t i = name_hash(r->name) & (c->nslots - 1);
  while (c->slots[i])
    i = (i + 1) & (c->nslots - 1);
  c->slots[i] = r;
}

static void catalog_add(Sema *s, Relation *r) {
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
  c->rels[c->nrels++] = r;
  catalog_index(c, r);
}

static bool is_broken(const Relation *r) { return r->broken; }

static void mark_broken(Sema *s, Relation *r) {
  (void)s;
  r->broken = true;
}

static int find_col(const Relation *r, const char *name) {
  for (int i = 0; i < r->ncols; i++)
    if (strcmp(r->cols[i].name, name) == 0)
      return i;
  return -1;
}

static Relation *new_relation(Sema *s, Stmt *st, RelKind kind) {
  Relation *r = arena_alloc(s->arena, sizeof(Relation));
  r->kind = kind;
  r->name = st->name;
  r->loc = st->name_loc;
  r->time_col = -1;
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
static bool check_new_name(Sema *s, Stmt *st) {
  Relation *old = catalog_find(s->cat, st->name);
  if (!old)
    return true;
  diag_error(s->d, st->name_loc, "redefinition of '%s'", st->name);
  diag_note(s->d, old->loc, "'%s' was first declared here", old->name);
  return false;
}

/* ---------------------------------------------------------------------
 * Expressions
 * --------------------------------------------------------------------- */

typedef enum {
  CL_SELECT,   /* select list: aggregates and window pseudo-columns allowed */
  CL_WHERE,    /* WHERE */
  CL_ON,       /* JOIN ON */
  CL_GROUP_BY, /* GROUP BY */
  CL_HAVING,   /* HAVING: like the select list */
} Clause;

static const char *clause_name(Clause c) {
  switch (c) {
  case CL_WHERE: return "WHERE";
  case CL_ON: return "JOIN ON";
  case CL_GROUP_BY: return "GROUP BY";
  case CL_HAVING: return "HAVING";
  default: return "the select list";
  }
}

/* What names mean inside one SELECT. */
typedef struct Scope {
  Sema *s;
  Select *sel;
  Relation *rel[2];    /* FROM items' relations (NULL if unresolved) */
  const char *qual[2]; /* the name each item is qualified by */
  int nfrom;
  bool bad_from;       /* some FROM item failed: unknown names are cascades */
  Clause clause;       /* clause being checked */
  bool in_agg;         /* inside an aggregate's argument */
} Scope;

static Type check_expr(Scope *sc, Expr *e);

static void init_ann(Expr *e) {
  e->type = mk_type(TY_ERROR);
  e->agg = AGG_NONE;
  e->func = FN_NONE;
  e->from_idx = -1;
  e->col_idx = -1;
  e->agg_idx = -1;
  e->key_idx = -1;
}

static const char *expr_label(const Expr *e) {
  if (e->text)
    return e->text;
  return e->name ? e->name : "expression";
}

static int qual_index(Scope *sc, const char *qual) {
  for (int i = 0; i < sc->nfrom; i++)
    if (sc->qual[i] && strcmp(sc->qual[i], qual) == 0)
      return i;
  return -1;
}

static void unknown_qualifier(Scope *sc, Expr *e) {
  Sema *s = sc->s;
  diag_error(s->d, e->loc, "unknown stream or alias '%s'", e->qual);
  for (int i = 0; i < sc->nfrom; i++) {
    FromItem *f = &sc->sel->from[i];
    if (f->alias && f->name && strcmp(f->name, e->qual) == 0) {
      diag_note(s->d, f->alias_loc, "'%s' is called '%s' in this query", f->name, f->alias);
      return;
    }
  }
  suggest_from_list(s, e->loc, e->qual, sc->qual, sc->nfrom);
}

static Type resolve_column(Scope *sc, Expr *e) {
  Sema *s = sc->s;
  int from = -1, col = -1;
  if (e->qual) {
    from = qual_index(sc, e->qual);
    if (from < 0) {
      if (!sc->bad_from)
        unknown_qualifier(sc, e);
      return mk_type(TY_ERROR);
    }
    Relation *r = sc->rel[from];
    if (!r)
      return mk_type(TY_ERROR);
    col = find_col(r, e->name);
    if (col < 0) {
      if (!is_broken(r)) {
        diag_error(s->d, e->name_loc, "unknown column '%s' in %s '%s'", e->name,
                   rel_kind_name(r), r->name);
        Names ns = {0};
        for (int j = 0; j < r->ncols; j++)
          names_add(s->arena, &ns, r->cols[j].name);
        suggest_note(s, e->name_loc, e->name, &ns);
      }
      return mk_type(TY_ERROR);
    }
  } else {
    bool quiet = sc->bad_from;
    for (int i = 0; i < sc->nfrom; i++) {
      Relation *r = sc->rel[i];
      if (!r)
        continue;
      if (is_broken(r))
        quiet = true;
      int c = find_col(r, e->name);
      if (c < 0)
        continue;
      if (from >= 0) {
        diag_error(s->d, e->name_loc, "ambiguous column '%s': both '%s' and '%s' have it",
                   e->name, sc->qual[from], sc->qual[i]);
        diag_note(s->d, e->name_loc, "write %s.%s or %s.%s", sc->qual[from], e->name,
                  sc->qual[i], e->name);
        return mk_type(TY_ERROR);
      }
      from = i;
      col = c;
    }
    if (from < 0) {
      if (quiet)
        return mk_type(TY_ERROR);
      if (sc->nfrom == 1)
        diag_error(s->d, e->name_loc, "unknown column '%s' in %s '%s'", e->name,
                   rel_kind_name(sc->rel[0]), sc->rel[0]->name);
      else
        diag_error(s->d, e->name_loc, "unknown column '%s' in FROM clause", e->name);
      Names ns = {0};
      for (int i = 0; i < sc->nfrom; i++)
        for (int j = 0; j < sc->rel[i]->ncols; j++)
          names_add(s->arena, &ns, sc->rel[i]->cols[j].name);
      suggest_note(s, e->name_loc, e->name, &ns);
      return mk_type(TY_ERROR);
    }
  }
  e->from_idx = from;
  e->col_idx = col;
  return sc->rel[from]->cols[col].type;
}

/* After a type error involving e: if e is a column, where its type comes
 * from, so the user sees whether to fix the query or the declaration. */
static void note_decl(Scope *sc, const Expr *e) {
  if (!e || e->kind != EX_COLUMN || e->from_idx < 0 || e->col_idx < 0)
    return;
  Relation *r = sc->rel[e->from_idx];
  if (!r || e->col_idx >= r->ncols)
    return;
  const Column *c = &r->cols[e->col_idx];
  char b[32];
  if (c->loc.line > 0)
    diag_note(sc->s->d, c->loc, "'%s' is %s %s here", c->name,
              r->kind == REL_DERIVED ? "defined as" : "declared", tyname(c->type, b));
}

static void note_decls(Scope *sc, const Expr *a, const Expr *b) {
  note_decl(sc, a);
  note_decl(sc, b);
}

static Type check_binary(Scope *sc, Expr *e) {
  Diag *d = sc->s->d;
  Type l = check_expr(sc, e->lhs), r = check_expr(sc, e->rhs);
  char b1[32], b2[32];
  switch (e->op) {
  case OP_ADD:
  case OP_SUB:
  case OP_MUL:
  case OP_DIV:
    if (is_err(l) || is_err(r))
      return mk_type(TY_ERROR);
    if (is_num(l) && is_num(r))
      return promote(l, r);
    if (e->op == OP_ADD || e->op == OP_SUB) {
      bool ldur = l.kind == TY_INTERVAL || is_sql_int(l);
      bool rdur = r.kind == TY_INTERVAL || is_sql_int(r);
      if (l.kind == TY_TIMESTAMP && rdur)
        return mk_type(TY_TIMESTAMP);
      if (e->op == OP_ADD && r.kind == TY_TIMESTAMP && ldur)
        return mk_type(TY_TIMESTAMP);
      if (e->op == OP_SUB && l.kind == TY_TIMESTAMP && r.kind == TY_TIMESTAMP)
        return mk_type(TY_BIGINT);
      if (l.kind == TY_INTERVAL && r.kind == TY_INTERVAL)
        return mk_type(TY_INTERVAL);
    }
    diag_error(d, e->loc, "cannot apply '%s' to %s and %s", op_text(e->op), tyname(l, b1),
               tyname(r, b2));
    note_decls(sc, e->lhs, e->rhs);
    return mk_type(TY_ERROR);
  case OP_MOD:
    if (is_err(l) || is_err(r))
      return mk_type(TY_ERROR);
    if (is_sql_int(l) && is_sql_int(r))
      return promote(l, r);
    diag_error(d, e->loc, "cannot apply '%%' to %s and %s: it needs integers", tyname(l, b1),
               tyname(r, b2));
    note_decls(sc, e->lhs, e->rhs);
    return mk_type(TY_ERROR);
  case OP_EQ:
  case OP_NE:
  case OP_LT:
  case OP_LE:
  case OP_GT:
  case OP_GE:
    if (is_err(l) || is_err(r))
      return mk_type(TY_ERROR);
    if (comparable(l, r))
      return mk_type(TY_BOOL);
    diag_error(d, e->loc, "cannot compare %s with %s", tyname(l, b1), tyname(r, b2));
    note_decls(sc, e->lhs, e->rhs);
    return mk_type(TY_ERROR);
  case OP_AND:
  case OP_OR: {
    bool ok = !is_err(l) && !is_err(r);
    if (!is_err(l) && l.kind != TY_BOOL) {
      diag_error(d, e->lhs->loc, "operand of %s must be BOOLEAN, not %s", op_text(e->op),
                 tyname(l, b1));
      note_decl(sc, e->lhs);
      ok = false;
    }
    if (!is_err(r) && r.kind != TY_BOOL) {
      diag_error(d, e->rhs->loc, "operand of %s must be BOOLEAN, not %s", op_text(e->op),
                 tyname(r, b1));
      note_decl(sc, e->rhs);
      ok = false;
    }
    return ok ? mk_type(TY_BOOL) : mk_type(TY_ERROR);
  }
  default:
    diag_error(d, e->loc, "internal: bad binary operator");
    return mk_type(TY_ERROR);
  }
}

static Type check_unary(Scope *sc, Expr *e) {
  Type t = check_expr(sc, e->lhs);
  char b[32];
  if (is_err(t))
    return t;
  if (e->op == OP_NOT) {
    if (t.kind == TY_BOOL)
      return t;
    diag_error(sc->s->d, e->loc, "operand of NOT must be BOOLEAN, not %s", tyname(t, b));
    note_decl(sc, e->lhs);
    return mk_type(TY_ERROR);
  }
  if (is_num(t) || t.kind == TY_INTERVAL)
    return t;
  diag_error(sc->s->d, e->loc, "operand of unary '-' must be numeric, not %s", tyname(t, b));
  note_decl(sc, e->lhs);
  return mk_type(TY_ERROR);
}

/* x IN (a, ...) and x BETWEEN a AND b: every value comparable to x. */
static Type check_membership(Scope *sc, Expr *e) {
  Type subj = check_expr(sc, e->lhs);
  bool ok = !is_err(subj);
  Expr *vals[2] = {e->rhs, e->third};
  Expr *list = e->kind == EX_IN ? e->args : NULL;
  char b1[32], b2[32];
  for (int i = 0;; i++) {
    Expr *v;
    if (e->kind == EX_IN) {
      if (!list)
        break;
      v = list;
      list = list->next;
    } else {
      if (i == 2)
        break;
      v = vals[i];
      if (!v)
        continue;
    }
    Type t = check_expr(sc, v);
    if (is_err(t)) {
      ok = false;
    } else if (!is_err(subj) && !comparable(subj, t)) {
      diag_error(sc->s->d, v->loc, "cannot compare %s with %s", tyname(subj, b1), tyname(t, b2));
      note_decls(sc, e->lhs, v);
      ok = false;
    }
  }
  return ok ? mk_type(TY_BOOL) : mk_type(TY_ERROR);
}

static Type check_case(Scope *sc, Expr *e) {
  Diag *d = sc->s->d;
  bool ok = true, have = false;
  Type res = mk_type(TY_ERROR);
  char b1[32], b2[32];
  for (Expr *w = e->args; w; w = w->next) {
    init_ann(w);
    Type c = check_expr(sc, w->lhs);
    if (!is_err(c) && c.kind != TY_BOOL) {
      diag_error(d, w->lhs->loc, "CASE condition must be BOOLEAN, not %s", tyname(c, b1));
      ok = false;
    }
    Type r = check_expr(sc, w->rhs);
    w->type = r;
    if (is_err(r)) {
      ok = false;
    } else if (!have) {
      res = r;
      have = true;
    } else if (ok && !common_type(res, r, &res)) {
      diag_error(d, w->rhs->loc, "CASE results have incompatible types %s and %s",
                 tyname(res, b1), tyname(r, b2));
      ok = false;
    }
  }
  if (!e->else_) {
    diag_error(d, e->loc, "CASE needs an ELSE branch (AIRQ has no NULLs)");
    return mk_type(TY_ERROR);
  }
  Type r = check_expr(sc, e->else_);
  if (is_err(r))
    return r;
  if (ok && have && !common_type(res, r, &res)) {
    diag_error(d, e->else_->loc, "CASE results have incompatible types %s and %s",
               tyname(res, b1), tyname(r, b2));
    ok = false;
  }
  if (!have)
    res = r;
  return ok ? res : mk_type(TY_ERROR);
}

static Type check_cast(Scope *sc, Expr *e) {
  Type t = check_expr(sc, e->lhs);
  Type to = e->cast_to;
  if (to.kind == TY_VARCHAR && to.len < 1) {
    diag_error(sc->s->d, e->loc, "VARCHAR length must be at least 1");
    return mk_type(TY_ERROR);
  }
  if (to.kind == TY_INTERVAL || to.kind == TY_ERROR) {
    diag_error(sc->s->d, e->loc, "cannot CAST to this type");
    return mk_type(TY_ERROR);
  }
  (void)t; /* every type converts to every other: numbers, text, booleans, times */
  return to;
}

static const struct { const char *n; FuncKind k; } scalar_functions[] = {
    {"ABS", FN_ABS}, {"LEAST", FN_LEAST}, {"GREATEST", FN_GREATEST}, {"LENGTH", FN_LENGTH}};

static FuncKind func_kind_of(const char *name) {
  for (size_t i = 0; i < sizeof scalar_functions / sizeof scalar_functions[0]; i++)
    if (strcasecmp(name, scalar_functions[i].n) == 0)
      return scalar_functions[i].k;
  return FN_NONE;
}

static Type check_aggregate(Scope *sc, Expr *e, AggKind ak) {
  Diag *d = sc->s->d;
  int nargs = list_len(e->args);
  Expr *arg = e->args;
  char b[32];
  e->agg = ak;
  if (nargs != 1) {
    diag_error(d, e->loc, "%s takes one argument, got %d", e->name, nargs);
    return mk_type(TY_ERROR);
  }
  bool placed = true;
  if (sc->clause != CL_SELECT && sc->clause != CL_HAVING) {
    diag_error(d, e->loc, "aggregate function %s is not allowed in %s", e->name,
               clause_name(sc->clause));
    placed = false;
  } else if (sc->in_agg) {
    diag_error(d, e->loc, "aggregate function calls cannot be nested");
    placed = false;
  }
  if (arg->kind == EX_STAR) {
    init_ann(arg);
    AggKind star = agg_lookup(e->name, true);
    if (star == AGG_NONE || arg->qual) {
      diag_error(d, arg->loc, "only COUNT(*) takes '*'");
      return mk_type(TY_ERROR);
    }
    e->agg = star;
    return placed ? agg_defs[star].result(mk_type(TY_ERROR)) : mk_type(TY_ERROR);
  }
  bool saved = sc->in_agg;
  sc->in_agg = true;
  Type t = check_expr(sc, arg);
  sc->in_agg = saved;
  if (is_err(t) || !placed)
    return mk_type(TY_ERROR);
  Type res = agg_defs[ak].result(t);
  if (!is_err(res))
    return res;
  diag_error(d, arg->loc, "%s needs a numeric argument, not %s", e->name, tyname(t, b));
  note_decl(sc, arg);
  return mk_type(TY_ERROR);
}

static Type check_call(Scope *sc, Expr *e) {
  Diag *d = sc->s->d;
  AggKind ak = agg_lookup(e->name, false);
  if (ak != AGG_NONE)
    return check_aggregate(sc, e, ak);
  FuncKind fk = func_kind_of(e->name);
  if (fk == FN_NONE) {
    diag_error(d, e->loc, "unknown function '%s'", e->name);
    Names ns = {0};
    for (size_t i = 0; i < sizeof scalar_functions / sizeof scalar_functions[0]; i++)
      names_add(sc->s->arena, &ns, scalar_functions[i].n);
    for (int k = 0; k <= AGG_LAST; k++)
      if (agg_defs[k].name && !agg_defs[k].star)
        names_add(sc->s->arena, &ns, agg_defs[k].name);
    suggest_note(sc->s, e->loc, e->name, &ns);
    return mk_type(TY_ERROR);
  }
  e->func = fk;
  int nargs = 0;
  bool ok = true;
  Type res = mk_type(TY_ERROR);
  char b1[32], b2[32];
  for (Expr *a = e->args; a; a = a->next) {
    Type t = check_expr(sc, a);
    nargs++;
    if (is_err(t)) {
      ok = false;
      continue;
    }
    switch (fk) {
    case FN_ABS:
      if (!is_num(t)) {
        diag_error(d, a->loc, "%s needs a numeric argument, not %s", e->name, tyname(t, b1));
        note_decl(sc, a);
        ok = false;
      }
      res = t;
      break;
    case FN_LENGTH:
      if (t.kind != TY_VARCHAR) {
        diag_error(d, a->loc, "%s needs a VARCHAR argument, not %s", e->name, tyname(t, b1));
        note_decl(sc, a);
        ok = false;
      }
      res = mk_type(TY_INT);
      break;
    default: /* LEAST, GREATEST */
      if (nargs == 1 || !ok) {
        res = t;
      } else if (!common_type(res, t, &res) || t.kind == TY_INTERVAL) {
        diag_error(d, a->loc, "arguments of %s have incompatible types %s and %s", e->name,
                   tyname(res, b1), tyname(t, b2));
        note_decl(sc, a);
        ok = false;
      }
      break;
    }
  }
  if ((fk == FN_ABS || fk == FN_LENGTH) && nargs != 1) {
    diag_error(d, e->loc, "%s takes one argument, got %d", e->name, nargs);
    return mk_type(TY_ERROR);
  }
  if ((fk == FN_LEAST || fk == FN_GREATEST) && nargs < 2) {
    diag_error(d, e->loc, "%s takes at least two arguments, got %d", e->name, nargs);
    return mk_type(TY_ERROR);
  }
  return ok ? res : mk_type(TY_ERROR);
}

static Type check_pseudo(Scope *sc, Expr *e) {
  const char *nm = e->kind == EX_WINDOW_START ? "WINDOW_START" : "WINDOW_END";
  if (!sc->sel->window) {
    diag_error(sc->s->d, e->loc, "%s needs a WINDOW clause", nm);
    return mk_type(TY_ERROR);
  }
  if ((sc->clause != CL_SELECT && sc->clause != CL_HAVING) || sc->in_agg) {
    diag_error(sc->s->d, e->loc, "%s is only allowed in the select list and HAVING", nm);
    return mk_type(TY_ERROR);
  }
  return mk_type(TY_TIMESTAMP);
}

static Type check_expr(Scope *sc, Expr *e) {
  if (!e)
    return mk_type(TY_ERROR);
  init_ann(e);
  Type t;
  switch (e->kind) {
  case EX_INT:
    t = mk_type(e->ival >= INT32_MIN && e->ival <= INT32_MAX ? TY_INT : TY_BIGINT);
    break;
  case EX_DOUBLE: t = mk_type(TY_DOUBLE); break;
  case EX_STRING: t = mk_varchar((int)e->slen); break;
  case EX_BOOL: t = mk_type(TY_BOOL); break;
  case EX_INTERVAL: t = mk_type(TY_INTERVAL); break;
  case EX_COLUMN: t = resolve_column(sc, e); break;
  case EX_STAR:
    diag_error(sc->s->d, e->loc, "'*' is only allowed in the select list and in COUNT(*)");
    t = mk_type(TY_ERROR);
    break;
  case EX_UNARY: t = check_unary(sc, e); break;
  case EX_BINARY: t = check_binary(sc, e); break;
  case EX_IN:
  case EX_BETWEEN: t = check_membership(sc, e); break;
  case EX_CASE: t = check_case(sc, e); break;
  case EX_CAST: t = check_cast(sc, e); break;
  case EX_CALL: t = check_call(sc, e); break;
  case EX_WINDOW_START:
  case EX_WINDOW_END: t = check_pseudo(sc, e); break;
  default:
    t = mk_type(TY_ERROR);
    break;
  }
  e->type = t;
  return t;
}

/* ---------------------------------------------------------------------
 * Structural equality (GROUP BY matching, aggregate sharing)
 * --------------------------------------------------------------------- */

static bool expr_equal(const Expr *a, const Expr *b);

static bool list_equal(const Expr *a, const Expr *b) {
  for (; a && b; a = a->next, b = b->next)
    if (!expr_equal(a, b))
      return false;
  return !a && !b;
}

static bool expr_equal(const Expr *a, const Expr *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind)
    return false;
  switch (a->kind) {
  case EX_INT:
  case EX_BOOL:
  case EX_INTERVAL: return a->ival == b->ival;
  case EX_DOUBLE: return a->dval == b->dval;
  case EX_STRING: return a->slen == b->slen && memcmp(a->sval, b->sval, a->slen) == 0;
  case EX_COLUMN:
    return a->from_idx >= 0 && a->from_idx == b->from_idx && a->col_idx == b->col_idx;
  case EX_STAR:
    return (!a->qual && !b->qual) || (a->qual && b->qual && strcmp(a->qual, b->qual) == 0);
  case EX_UNARY:
  case EX_BINARY:
    return a->op == b->op && expr_equal(a->lhs, b->lhs) && expr_equal(a->rhs, b->rhs);
  case EX_IN: return expr_equal(a->lhs, b->lhs) && list_equal(a->args, b->args);
  case EX_BETWEEN:
    return expr_equal(a->lhs, b->lhs) && expr_equal(a->rhs, b->rhs) &&
           expr_equal(a->third, b->third);
  case EX_CASE: return list_equal(a->args, b->args) && expr_equal(a->else_, b->else_);
  case EX_WHEN: return expr_equal(a->lhs, b->lhs) && expr_equal(a->rhs, b->rhs);
  case EX_CAST:
    return a->cast_to.kind == b->cast_to.kind && a->cast_to.len == b->cast_to.len &&
           expr_equal(a->lhs, b->lhs);
  case EX_CALL: return strcasecmp(a->name, b->name) == 0 && list_equal(a->args, b->args);
  case EX_WINDOW_START:
  case EX_WINDOW_END: return true;
  }
  return false;
}

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

static void check_join(Scope *sc) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  if (!sel->join_on) {
    diag_error(s->d, sel->from[1].loc, "JOIN needs an ON condition");
    return;
  }
  sc->clause = CL_ON;
  Type t = check_expr(sc, sel->join_on);
  if (is_err(t) || !sc->rel[0] || !sc->rel[1])
    return;
  PtrVec conj = {0};
  collect_conjuncts(sel->join_on, &conj, s->arena);
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
    if (!l) {
      diag_error(s->d, c->loc,
                 "JOIN ON must be an equality between an expression over '%s' and one over '%s'",
                 sc->qual[0], sc->qual[1]);
      continue;
    }
    if (sel->join_lkey) {
      diag_error(s->d, c->loc, "only one equality key is supported in JOIN ON");
      continue;
    }
    sel->join_lkey = l;
    sel->join_rkey = r;
  }
  if (sel->table_join && sel->join_rkey && sc->rel[1]->key_col >= 0) {
    Relation *tab = sc->rel[1];
    Expr *r = sel->join_rkey;
    if (r->kind != EX_COLUMN || r->col_idx != tab->key_col)
      diag_error(s->d, r->loc, "a JOIN with table '%s' must match its PRIMARY KEY '%s'",
                 tab->name, tab->cols[tab->key_col].name);
  }
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
                   "every row falls in %lld windows (SIZE / ADVANCE BY): each one updates "
                   "them all, and they take memory until they close",
                   (long long)((w->size_ms + w->advance_ms - 1) / w->advance_ms));
    break;
  case WIN_SESSION:
    w->gap_ms = window_len(s, w->gap, "GAP");
    break;
  default:
    diag_error(s->d, w->loc, "internal: window without a kind");
    break;
  }
}

/* ---------------------------------------------------------------------
 * Warnings: legal queries that are probably not what was meant
 * --------------------------------------------------------------------- */

/* A duration as the query would write it: "5 SECONDS", "1500 MILLISECONDS". */
static const char *fmt_interval(char *buf, size_t n, int64_t ms) {
  static const struct { int64_t ms; const char *one, *many; } units[] = {
      {3600000, "HOUR", "HOURS"}, {60000, "MINUTE", "MINUTES"}, {1000, "SECOND", "SECONDS"}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (ms % units[i].ms == 0) {
      int64_t v = ms / units[i].ms;
      snprintf(buf, n, "%lld %s", (long long)v, v == 1 ? units[i].one : units[i].many);
      return buf;
    }
  snprintf(buf, n, "%lld %s", (long long)ms, ms == 1 ? "MILLISECOND" : "MILLISECONDS");
  return buf;
}

/* Where a stream's watermark bound was written: a non-windowed derived
 * stream inherits its input's, so follow the chain back to the source. */
static SrcLoc watermark_loc(const Relation *r) {
  for (int hops = 0; r && hops < 1000; hops++) {
    if (r->def && r->def->wm)
      return r->def->wm->expr ? r->def->wm->expr->loc : r->def->wm->loc;
    if (r->kind != REL_DERIVED || !r->def || !r->def->select)
      break;
    const Select *sel = r->def->select;
    r = sel->from[sel->time_from].rel;
  }
  return r ? r->loc : (SrcLoc){0, 0, 0};
}

/* A window shorter than the disorder its input tolerates: every window
 * waits longer than it lasts before it is emitted, and many are open at
 * once; usually the bound or the window is a slip of the unit. */
static void warn_window(Scope *sc) {
  Sema *s = sc->s;
  WindowSpec *w = sc->sel->window;
  const char *what = NULL;
  int64_t len = 0;
  SrcLoc at = w->loc;
  for (int i = 0; i < sc->nfrom; i++) {
    Relation *r = sc->rel[i];
    if (!r || r->kind == REL_TABLE || !r->has_watermark || r->wm_bound_ms <= 0)
      continue;
    int64_t bound = r->wm_bound_ms;
    if (w->kind == WIN_SESSION && w->gap_ms > 0 && w->gap_ms < bound) {
      what = "SESSION GAP", len = w->gap_ms, at = w->gap->loc;
    } else if (w->kind != WIN_SESSION && w->size_ms > 0 && w->size_ms < bound) {
      what = "window SIZE", len = w->size_ms, at = w->size->loc;
    } else if (w->kind == WIN_HOPPING && w->advance_ms > 0 && w->advance_ms < bound) {
      what = "ADVANCE BY", len = w->advance_ms, at = w->advance->loc;
    } else {
      continue;
    }
    char b1[48], b2[48];
    diag_warning(s->d, at, "%s %s is shorter than the WATERMARK bound of stream '%s' (%s)",
                 what, fmt_interval(b1, sizeof b1, len), r->name,
                 fmt_interval(b2, sizeof b2, bound));
    diag_note(s->d, watermark_loc(r),
              "'%s' tolerates %s of disorder here, so a window is emitted only that long "
              "after it ends",
              r->name, b2);
    return;
  }
}

static void warn_hopping(Sema *s, WindowSpec *w) {
  if (w->kind != WIN_HOPPING || w->size_ms <= 0 || w->advance_ms <= 0 ||
      w->advance_ms > w->size_ms || w->size_ms % w->advance_ms == 0)
    return;
  char b1[48], b2[48];
  int64_t q = w->size_ms / w->advance_ms;
  diag_warning(s->d, w->advance->loc,
               "HOPPING SIZE %s is not a multiple of ADVANCE BY %s, so each row falls into "
               "%lld or %lld windows",
               fmt_interval(b1, sizeof b1, w->size_ms), fmt_interval(b2, sizeof b2, w->advance_ms),
               (long long)q, (long long)q + 1);
}

enum { TRUTH_UNKNOWN = -1, TRUTH_FALSE = 0, TRUTH_TRUE = 1 };

/* Truth of a condition when it does not depend on the row: literals,
 * NOT/AND/OR of those, comparisons of integer literals, and comparisons of
 * a COUNT with a literal (a COUNT in an emitted window is at least 1: there
 * are no NULLs, and windows exist only where rows fell). *count is set to
 * the COUNT call the answer rests on, if any. */
static int const_truth(const Expr *e, const Expr **count) {
  if (!e)
    return TRUTH_UNKNOWN;
  if (e->kind == EX_BOOL)
    return e->ival ? TRUTH_TRUE : TRUTH_FALSE;
  if (e->kind == EX_UNARY && e->op == OP_NOT) {
    int t = const_truth(e->lhs, count);
    return t == TRUTH_UNKNOWN ? t : !t;
  }
  if (e->kind != EX_BINARY)
    return TRUTH_UNKNOWN;
  if (e->op == OP_AND || e->op == OP_OR) {
    const Expr *cl = NULL, *cr = NULL;
    int l = const_truth(e->lhs, &cl), r = const_truth(e->rhs, &cr);
    int decisive = e->op == OP_AND ? TRUTH_FALSE : TRUTH_TRUE;
    if (l == decisive || r == decisive) {
      *count = l == decisive ? cl : cr;
      return decisive;
    }
    if (l != TRUTH_UNKNOWN && r != TRUTH_UNKNOWN) {
      *count = cl ? cl : cr;
      return l;
    }
    return TRUTH_UNKNOWN;
  }
  int64_t a, b;
  OpKind op = e->op;
  if (const_int(e->lhs, &a) && const_int(e->rhs, &b)) {
    switch (op) {
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    default: return TRUTH_UNKNOWN;
    }
  }
  const Expr *cnt = e->lhs, *lit = e->rhs;
  if (!(cnt->kind == EX_CALL && (cnt->agg == AGG_COUNT || cnt->agg == AGG_COUNT_STAR))) {
    cnt = e->rhs;
    lit = e->lhs;
    /* c < COUNT is COUNT > c */
    static const OpKind flip[] = {[OP_LT] = OP_GT, [OP_LE] = OP_GE, [OP_GT] = OP_LT,
                                  [OP_GE] = OP_LE, [OP_EQ] = OP_EQ, [OP_NE] = OP_NE};
    if (op >= OP_EQ && op <= OP_GE)
      op = flip[op];
  }
  if (!(cnt->kind == EX_CALL && (cnt->agg == AGG_COUNT || cnt->agg == AGG_COUNT_STAR)) ||
      !const_int(lit, &b))
    return TRUTH_UNKNOWN;
  int t = TRUTH_UNKNOWN;
  switch (op) {
  case OP_LT: t = b <= 1 ? TRUTH_FALSE : t; break;
  case OP_LE:
  case OP_EQ: t = b < 1 ? TRUTH_FALSE : t; break;
  case OP_GT:
  case OP_NE: t = b < 1 ? TRUTH_TRUE : t; break;
  case OP_GE: t = b <= 1 ? TRUTH_TRUE : t; break;
  default: break;
  }
  if (t != TRUTH_UNKNOWN)
    *count = cnt;
  return t;
}

static void warn_conditions(Sema *s, Select *sel) {
  const Expr *count = NULL;
  if (sel->where && sel->where->type.kind == TY_BOOL &&
      const_truth(sel->where, &count) == TRUTH_FALSE)
    diag_warning(s->d, sel->where->loc, "WHERE condition is always false, so the query emits no rows");
  count = NULL;
  if (sel->having && sel->having->type.kind == TY_BOOL &&
      const_truth(sel->having, &count) == TRUTH_FALSE) {
    diag_warning(s->d, sel->having->loc,
                 "HAVING condition is never true, so the query emits no rows");
    if (count)
      diag_note(s->d, count->loc, "%s is at least 1 in every group of a window",
                expr_label(count));
  }
}

/* Declared and never used: usually a typo elsewhere, or a leftover. Only
 * for a program without errors, where every query resolved its names. */
static void warn_unused(Sema *s) {
  for (int i = 0; i < s->cat->nrels; i++) {
    Relation *r = s->cat->rels[i];
    switch (r->kind) {
    case REL_SOURCE:
    case REL_TABLE:
      if (!r->used)
        diag_warning(s->d, r->loc, "%s '%s' is declared but never read", rel_kind_name(r),
                     r->name);
      break;
    case REL_DERIVED:
      if (!r->used)
        diag_warning(s->d, r->loc, "stream '%s' is computed but never read", r->name);
      break;
    case REL_SINK:
      if (!r->written)
        diag_warning(s->d, r->loc, "sink '%s' is declared but nothing is inserted into it",
                     r->name);
      break;
    }
  }
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
  case EX_WINDOW_START: return "WINDOW_START";
  case EX_WINDOW_END: return "WINDOW_END";
  default: return e->text ? e->text : "?column?";
  }
}

static void resolve_from(Scope *sc) {
  Sema *s = sc->s;
  Select *sel = sc->sel;
  sc->nfrom = sel->nfrom;
  for (int i = 0; i < sel->nfrom; i++) {
    FromItem *f = &sel->from[i];
    f->rel = NULL;
    sc->qual[i] = f->alias ? f->alias : f->name;
    Relation *r = catalog_find(s->cat, f->name);
    if (!r) {
      diag_error(s->d, f->loc, "unknown stream '%s'", f->name);
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
      diag_error(s->d, f->loc, "table '%s' can only be the right side of a JOIN", f->name);
      sc->bad_from = true;
      continue;
    }
    if (r->kind == REL_TABLE)
      sel->table_join = true;
    r->used = true;
    f->rel = r;
    sc->rel[i] = r;
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
static void check_select(Sema *s, Select *sel, SrcLoc **out_locs, const char *stream) {
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
      check_expr(&sc, e);
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

  if (sel->nfrom == 2)
    check_join(&sc);

  if (sel->where) {
    sc.clause = CL_WHERE;
    Type t = check_expr(&sc, sel->where);
    char b[32];
    if (!is_err(t) && t.kind != TY_BOOL) {
      diag_error(s->d, sel->where->loc, "WHERE condition must be BOOLEAN, not %s", tyname(t, b));
      note_decl(&sc, sel->where);
    }
  }

  sc.clause = CL_GROUP_BY;
  sel->nkeys = list_len(sel->group_by);
  if (sel->nkeys) {
    sel->keys = arena_alloc(s->arena, sizeof(Expr *) * (size_t)sel->nkeys);
    int k = 0;
    for (Expr *g = sel->group_by; g; g = g->next) {
      sel->keys[k++] = g;
      check_expr(&sc, g);
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
  if (!sel->window) {
    if (sel->nkeys)
      diag_error(s->d, sel->keys[0]->loc, "GROUP BY needs a WINDOW clause");
    else if (sel->naggs)
      diag_error(s->d, sel->aggs[0]->loc, "aggregate %s needs a WINDOW clause",
                 expr_label(sel->aggs[0]));
    if (sjoin)
      diag_error(s->d, sel->from[1].loc, "a JOIN of two streams needs a WINDOW clause");
  } else if (sjoin && aggq) {
    Expr *first = sel->nkeys ? sel->keys[0] : sel->aggs[0];
    diag_error(s->d, first->loc,
               "aggregates over a JOIN of two streams are not supported; "
               "aggregate a stream defined by the join");
  } else if (!sjoin && !aggq && !sc.bad_from) {
    diag_error(s->d, sel->window->loc, "WINDOW needs an aggregate or a JOIN of two streams");
  }
  if (sel->having && !aggq)
    diag_error(s->d, sel->having->loc, "HAVING needs GROUP BY or an aggregate");

  bool keys_ok = true;
  for (int k = 0; k < sel->nkeys; k++)
    keys_ok = keys_ok && !is_err(sel->keys[k]->type);
  if (aggq && !sjoin && keys_ok) {
    for (int i = 0; i < sel->nout; i++)
      check_grouped(&sc, sel->out[i].expr);
    if (sel->having)
      check_grouped(&sc, sel->having);
  }

  if (sjoin)
    sel->qkind = QK_JOIN;
  else if (sel->nkeys)
    sel->qkind = QK_AGGREGATION;
  else if (sel->naggs)
    sel->qkind = QK_REDUCE;
  else
    sel->qkind = QK_MAP;
  warn_conditions(s, sel);

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

/* ---------------------------------------------------------------------
 * WITH (...) options
 * --------------------------------------------------------------------- */

static void literal_type(Expr *e) {
  init_ann(e);
  switch (e->kind) {
  case EX_INT: e->type = mk_type(TY_BIGINT); break;
  case EX_DOUBLE: e->type = mk_type(TY_DOUBLE); break;
  case EX_STRING: e->type = mk_varchar((int)e->slen); break;
  case EX_BOOL: e->type = mk_type(TY_BOOL); break;
  default: break;
  }
}

/* A NUL-terminated copy of a string option, or NULL after an error. */
static const char *string_opt(Sema *s, Option *o) {
  Expr *v = o->value;
  if (v->kind != EX_STRING) {
    diag_error(s->d, v->loc, "option '%s' must be a string", o->key);
    return NULL;
  }
  if (memchr(v->sval, '\0', v->slen)) {
    diag_error(s->d, v->loc, "option '%s' must not contain a NUL byte", o->key);
    return NULL;
  }
  return arena_strndup(s->arena, v->sval, v->slen);
}

static bool int_opt(Sema *s, Option *o, bool nonneg, int64_t *out) {
  if (!const_int(o->value, out) || (nonneg && *out < 0)) {
    diag_error(s->d, o->value->loc, "option '%s' must be %s", o->key,
               nonneg ? "a non-negative integer" : "an integer");
    return false;
  }
  return true;
}

/* max_bad_rows = N (bad rows of the source in all, N >= 0) or 'P%' (a
 * percentage of its records, 0 to 100, decimals allowed). */
static void max_bad_rows_opt(Sema *s, Option *o, Relation *r) {
  Expr *v = o->value;
  if (v->kind == EX_STRING) {
    char buf[32], *end;
    size_t n = v->slen;
    if (n >= 2 && n < sizeof buf && v->sval[n - 1] == '%') {
      memcpy(buf, v->sval, n - 1);
      buf[n - 1] = '\0';
      bool digits = buf[0] >= '0' && buf[0] <= '9' && strspn(buf, "0123456789.") == n - 1;
      double pct = strtod(buf, &end);
      if (digits && *end == '\0' && pct >= 0 && pct <= 100) {
        r->max_bad_pct = pct;
        return;
      }
    }
  } else if (const_int(v, &r->max_bad_rows) && r->max_bad_rows >= 0) {
    return;
  }
  r->max_bad_rows = -1;
  diag_error(s->d, v->loc,
             "option 'max_bad_rows' must be a count (an integer >= 0) or a percentage of the "
             "records ('0%%' to '100%%')");
}

/* Which kinds a relation may name: a stream's sources, a table's, sinks. */
enum { KN_STREAM, KN_TABLE, KN_SINK };

/* The name of kind i of the set, or NULL when it is not in the set. */
static const char *kind_name_at(int which, int i) {
  if (which == KN_SINK) return i < nsink_kinds ? sink_kinds[i].name : NULL;
  if (i >= nsource_kinds || (which == KN_TABLE && !source_kinds[i].table_desc)) return NULL;
  return source_kinds[i].name;
}

static unsigned kind_opts_at(int which, int i) {
  return which == KN_SINK ? sink_kinds[i].opts : source_kinds[i].opts;
}

static int kind_count(int which) { return which == KN_SINK ? nsink_kinds : nsource_kinds; }

/* The kinds of the set taking every option of opts (all of them for 0),
 * as "'a', 'b' or 'c'". */
static const char *kind_names(Sema *s, int which, unsigned opts) {
  const char *names[32];
  int n = 0;
  for (int i = 0; i < kind_count(which) && n < 32; i++)
    if (kind_name_at(which, i) && (kind_opts_at(which, i) & opts) == opts) names[n++] = kind_name_at(which, i);
  char *out = "";
  for (int i = 0; i < n; i++)
    out = arena_printf(s->arena, "%s%s'%s'", out, i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
  return out;
}

static void unknown_kind(Sema *s, SrcLoc loc, const char *v, int which) {
  static const char *const what[] = {[KN_STREAM] = "source kind", [KN_TABLE] = "table source",
                                     [KN_SINK] = "sink kind"};
  diag_error(s->d, loc, "unknown %s '%s' (expected %s)", what[which], v, kind_names(s, which, 0));
  Names ns = {0};
  for (int i = 0; i < kind_count(which); i++)
    if (kind_name_at(which, i)) names_add(s->arena, &ns, kind_name_at(which, i));
  suggest_note(s, loc, v, &ns);
}

/* The options of a known kind (`by`: the option naming it): those it needs
 * are given, those given apply to it. */
static void kind_options(Sema *s, Option **slot, int by, const char *kind, unsigned opts,
                         unsigned required, int which) {
  for (int k = 0; k < OPT_COUNT; k++) {
    if (k == by) continue;
    if ((required & OPT_BIT(k)) && !slot[k])
      diag_error(s->d, slot[by]->loc, "%s = '%s' needs a '%s' option", option_keys[by].key, kind,
                 option_keys[k].key);
    if (!slot[k] || (opts & OPT_BIT(k))) continue;
    const char *takers = kind_names(s, which, OPT_BIT(k));
    if (*takers)
      diag_error(s->d, slot[k]->loc, "option '%s' applies only to %s = %s", slot[k]->key,
                 option_keys[by].key, takers);
    else
      diag_error(s->d, slot[k]->loc, "option '%s' does not apply to %s = '%s'", slot[k]->key,
                 option_keys[by].key, kind);
  }
}

static void check_options(Sema *s, Stmt *st, Relation *r) {
  Option *slot[OPT_COUNT] = {0};
  for (Option *o = st->opts; o; o = o->next) {
    if (o->value)
      literal_type(o->value);
    int k = -1;
    for (int i = 0; i < OPT_COUNT; i++)
      if (strcasecmp(o->key, option_keys[i].key) == 0)
        k = i;
    if (k < 0) {
      diag_error(s->d, o->loc, "unknown option '%s'", o->key);
      Names ns = {0};
      for (int i = 0; i < OPT_COUNT; i++)
        if (option_keys[i].rels & (1u << r->kind))
          names_add(s->arena, &ns, option_keys[i].key);
      suggest_note(s, o->loc, o->key, &ns);
      continue;
    }
    if (!(option_keys[k].rels & (1u << r->kind))) {
      diag_error(s->d, o->loc, "option '%s' does not apply to a %s", o->key, rel_kind_name(r));
      continue;
    }
    if (slot[k]) {
      diag_error(s->d, o->loc, "option '%s' is given twice", o->key);
      diag_note(s->d, slot[k]->loc, "first given here");
      continue;
    }
    if (!o->value)
      continue;
    slot[k] = o;
  }

  Option *o;
  if ((o = slot[OPT_SOURCE])) {
    const char *v = string_opt(s, o);
    const SourceKindDef *k = v ? source_kind_lookup(v) : NULL;
    if (k && (r->kind != REL_TABLE || k->table_desc))
      r->source = k;
    else if (k)
      diag_error(s->d, o->value->loc, "source '%s' cannot fill a TABLE (table sources: %s)", k->name,
                 kind_names(s, KN_TABLE, 0));
    else if (v)
      unknown_kind(s, o->value->loc, v, r->kind == REL_TABLE ? KN_TABLE : KN_STREAM);
  }
  if ((o = slot[OPT_SINK])) {
    const char *v = string_opt(s, o);
    const SinkKindDef *k = v ? sink_kind_lookup(v) : NULL;
    if (k)
      r->sink = k;
    else if (v)
      unknown_kind(s, o->value->loc, v, KN_SINK);
  }
  if ((o = slot[OPT_PATH])) {
    r->path = string_opt(s, o);
    r->path_loc = o->value->loc;
    if (r->path && !r->path[0])
      diag_error(s->d, o->value->loc, "option 'path' must not be empty");
  }
  if ((o = slot[OPT_HEADER])) {
    Expr *v = o->value;
    if (v->kind == EX_BOOL || (v->kind == EX_INT && (v->ival == 0 || v->ival == 1)))
      r->header = v->ival != 0;
    else if (v->kind == EX_STRING && v->slen == 4 && strncasecmp(v->sval, "skip", 4) == 0)
      r->header = r->header_skip = true;
    else
      diag_error(s->d, v->loc, "option 'header' must be true, false or 'skip'");
  }
  if ((o = slot[OPT_MAX_BAD_ROWS]))
    max_bad_rows_opt(s, o, r);
  if ((o = slot[OPT_RATE]))
    int_opt(s, o, true, &r->rate);
  if ((o = slot[OPT_SEED]))
    r->has_seed = int_opt(s, o, false, &r->seed);
  if ((o = slot[OPT_LIMIT]))
    r->has_limit = int_opt(s, o, true, &r->limit);

  /* which options each kind needs, and which make no sense for it */
  if (r->kind == REL_SINK) {
    if (!slot[OPT_SINK]) {
      diag_error(s->d, st->name_loc, "sink '%s' needs a 'sink' option (sink = %s)", r->name,
                 kind_names(s, KN_SINK, 0));
      return;
    }
    if (r->sink)
      kind_options(s, slot, OPT_SINK, r->sink->name, r->sink->opts, r->sink->required, KN_SINK);
    return;
  }
  if (!slot[OPT_SOURCE]) {
    diag_error(s->d, st->name_loc, "%s '%s' needs a 'source' option (%s)", rel_kind_name(r),
               r->name, kind_names(s, r->kind == REL_TABLE ? KN_TABLE : KN_STREAM, 0));
    return;
  }
  if (r->source)
    kind_options(s, slot, OPT_SOURCE, r->source->name, r->source->opts, r->source->required,
                 r->kind == REL_TABLE ? KN_TABLE : KN_STREAM);
}

/* ---------------------------------------------------------------------
 * Columns of sources and tables
 * --------------------------------------------------------------------- */

static void build_columns(Sema *s, Stmt *st, Relation *r) {
  int n = 0;
  for (ColumnDef *cd = st->cols; cd; cd = cd->next)
    n++;
  r->cols = arena_alloc(s->arena, sizeof(Column) * (size_t)(n ? n : 1));
  for (ColumnDef *cd = st->cols; cd; cd = cd->next) {
    int old = find_col(r, cd->name);
    if (old >= 0) {
      diag_error(s->d, cd->loc, "duplicate column '%s'", cd->name);
      diag_note(s->d, r->cols[old].loc, "'%s' was first declared here", cd->name);
      continue;
    }
    if (cd->type.kind == TY_VARCHAR && cd->type.len < 1)
      diag_error(s->d, cd->type_loc, "VARCHAR length must be at least 1");
    Column *c = &r->cols[r->ncols++];
    c->name = cd->name;
    c->type = cd->type;
    c->loc = cd->loc;
    c->ysb_field = -1;
    c->gen.kind = GEN_NONE;
  }
}

static ColumnDef *coldef_of(Stmt *st, const Column *c) {
  for (ColumnDef *cd = st->cols; cd; cd = cd->next)
    if (cd->loc.line == c->loc.line && cd->loc.col == c->loc.col && strcmp(cd->name, c->name) == 0)
      return cd;
  return NULL;
}

/* The ysb generator's fields, in AIR_YSB_* order, with their widest values. */
static const struct {
  const char *name;
  TypeKind kind;
  int len;
} ysb_schema[] = {
    {"user_id", TY_VARCHAR, 36}, {"page_id", TY_VARCHAR, 36},   {"ad_id", TY_VARCHAR, 36},
    {"ad_type", TY_VARCHAR, 16}, {"event_type", TY_VARCHAR, 9}, {"ip", TY_VARCHAR, 15},
    {"ts", TY_TIMESTAMP, 0},
};

static bool check_schema_type(Sema *s, ColumnDef *cd, TypeKind kind, int len, const char *what) {
  char b1[32], b2[32];
  if (cd->type.kind == kind && (kind != TY_VARCHAR || cd->type.len >= len))
    return true;
  if (kind == TY_VARCHAR)
    diag_error(s->d, cd->type_loc, "%s column '%s' must be VARCHAR(%d) or longer, not %s", what,
               cd->name, len, tyname(cd->type, b1));
  else
    diag_error(s->d, cd->type_loc, "%s column '%s' must be %s, not %s", what, cd->name,
               tyname(mk_type(kind), b2), tyname(cd->type, b1));
  return false;
}

void sema_check_ysb_stream(Sema *s, Stmt *st, Relation *r) {
  for (int i = 0; i < r->ncols; i++) {
    Column *c = &r->cols[i];
    ColumnDef *cd = coldef_of(st, c);
    int f = -1;
    for (size_t k = 0; k < sizeof ysb_schema / sizeof ysb_schema[0]; k++)
      if (strcmp(ysb_schema[k].name, c->name) == 0)
        f = (int)k;
    if (f < 0) {
      diag_error(s->d, c->loc,
                 "column '%s' is not in the ysb schema "
                 "(user_id, page_id, ad_id, ad_type, event_type, ip, ts)",
                 c->name);
      Names ns = {0};
      for (size_t k = 0; k < sizeof ysb_schema / sizeof ysb_schema[0]; k++)
        names_add(s->arena, &ns, ysb_schema[k].name);
      suggest_note(s, c->loc, c->name, &ns);
      continue;
    }
    c->ysb_field = f;
    if (cd)
      check_schema_type(s, cd, ysb_schema[f].kind, ysb_schema[f].len, "ysb");
  }
}

void sema_check_ysb_table(Sema *s, Stmt *st, Relation *r) {
  for (ColumnDef *cd = st->cols; cd; cd = cd->next) {
    if (strcmp(cd->name, "ad_id") == 0 || strcmp(cd->name, "campaign_id") == 0)
      check_schema_type(s, cd, TY_VARCHAR, 36, "ysb table");
    else {
      diag_error(s->d, cd->loc, "column '%s' is not in the ysb campaign table (ad_id, campaign_id)",
                 cd->name);
      static const char *const known[] = {"ad_id", "campaign_id"};
      suggest_from_list(s, cd->loc, cd->name, known, 2);
    }
  }
  if (r->key_col >= 0 && strcmp(r->cols[r->key_col].name, "ad_id") != 0)
    diag_error(s->d, st->pkey_loc, "the ysb campaign table's PRIMARY KEY must be ad_id");
}

/* GENERATED BY for one datagen column. */
static void check_gen(Sema *s, Column *c, ColumnDef *cd) {
  Diag *d = s->d;
  Expr *g = cd->gen;
  char b[32];
  if (!g) {
    if (c->type.kind != TY_TIMESTAMP)
      diag_error(d, cd->loc,
                 "column '%s' of a datagen stream needs GENERATED BY "
                 "(sequence, uniform, choice or uuid)",
                 c->name);
    return;
  }
  init_ann(g);
  g->type = c->type;
  if (g->kind != EX_CALL) {
    diag_error(d, g->loc, "GENERATED BY needs a generator call such as uniform(0, 9)");
    return;
  }
  int nargs = list_len(g->args);
  const char *fn = g->name;
  GenSpec *gs = &c->gen;
  Type t = c->type;
  for (Expr *a = g->args; a; a = a->next)
    literal_type(a);

  if (strcasecmp(fn, "sequence") == 0 || strcasecmp(fn, "uniform") == 0) {
    bool seq = strcasecmp(fn, "sequence") == 0;
    if (seq ? nargs > 2 : nargs != 2) {
      diag_error(d, g->loc, "%s() takes %s, got %d", fn,
                 seq ? "at most two arguments" : "two arguments", nargs);
      return;
    }
    int64_t v[2] = {0, 1};
    int i = 0;
    for (Expr *a = g->args; a; a = a->next, i++) {
      if (!const_int(a, &v[i])) {
        diag_error(d, a->loc, "arguments of %s() must be integer literals", fn);
        return;
      }
    }
    bool fits = seq ? (is_sql_int(t) || t.kind == TY_TIMESTAMP) : is_num(t);
    if (!fits) {
      diag_error(d, g->loc, "%s() cannot fill a %s column", fn, tyname(t, b));
      return;
    }
    if (seq && v[1] == 0) {
      diag_error(d, g->args->next->loc, "sequence() step must not be 0");
      return;
    }
    if (seq && t.kind == TY_TIMESTAMP && (v[0] < AIR_TS_MIN || v[0] > AIR_TS_MAX)) {
      diag_error(d, g->args->loc,
                 "sequence() start %lld is outside the TIMESTAMP range (years 1 to 9999: %lld "
                 "to %lld ms)", (long long)v[0], (long long)AIR_TS_MIN, (long long)AIR_TS_MAX);
      return;
    }
    if (!seq && v[0] > v[1]) {
      diag_error(d, g->loc, "uniform(lo, hi) needs lo <= hi");
      return;
    }
    if (!seq && t.kind == TY_INT && (v[0] < INT32_MIN || v[1] > INT32_MAX)) {
      diag_error(d, g->loc, "uniform() bounds do not fit in INT");
      return;
    }
    gs->kind = seq ? GEN_SEQUENCE : GEN_UNIFORM;
    gs->a = v[0];
    gs->b = v[1];
  } else if (strcasecmp(fn, "choice") == 0) {
    if (nargs < 1) {
      diag_error(d, g->loc, "choice() takes at least one argument");
      return;
    }
    if (t.kind != TY_VARCHAR) {
      diag_error(d, g->loc, "choice() cannot fill a %s column", tyname(t, b));
      return;
    }
    gs->choices = arena_alloc(s->arena, sizeof(char *) * (size_t)nargs);
    gs->choice_lens = arena_alloc(s->arena, sizeof(size_t) * (size_t)nargs);
    for (Expr *a = g->args; a; a = a->next) {
      if (a->kind != EX_STRING) {
        diag_error(d, a->loc, "arguments of choice() must be string literals");
        return;
      }
      if (a->slen > (size_t)t.len) {
        diag_error(d, a->loc, "choice '%.*s' is longer than the column's %s", (int)a->slen,
                   a->sval, tyname(t, b));
        return;
      }
      gs->choices[gs->nchoices] = a->sval;
      gs->choice_lens[gs->nchoices++] = a->slen;
    }
    gs->kind = GEN_CHOICE;
  } else if (strcasecmp(fn, "uuid") == 0 || strcasecmp(fn, "now") == 0) {
    bool uuid = strcasecmp(fn, "uuid") == 0;
    if (nargs != 0) {
      diag_error(d, g->loc, "%s() takes no arguments, got %d", fn, nargs);
      return;
    }
    if (uuid ? (t.kind != TY_VARCHAR || t.len < 36) : t.kind != TY_TIMESTAMP) {
      diag_error(d, g->loc, "%s() cannot fill a %s column (it needs %s)", fn, tyname(t, b),
                 uuid ? "VARCHAR(36) or longer" : "TIMESTAMP");
      return;
    }
    gs->kind = uuid ? GEN_UUID : GEN_NOW;
  } else {
    diag_error(d, g->loc, "unknown generator '%s' (expected sequence, uniform, choice, uuid or now)",
               fn);
    static const char *const known[] = {"sequence", "uniform", "choice", "uuid", "now"};
    suggest_from_list(s, g->loc, fn, known, (int)(sizeof known / sizeof known[0]));
  }
}

/* The datagen kind's columns: each is GENERATED BY one of the generators. */
void sema_check_datagen_stream(Sema *s, Stmt *st, Relation *r) {
  for (int i = 0; i < r->ncols; i++) {
    ColumnDef *cd = coldef_of(st, &r->cols[i]);
    if (cd)
      check_gen(s, &r->cols[i], cd);
  }
}

/* The source kinds whose columns take GENERATED BY, as "'a' or 'b'". */
static const char *generating_kinds(Sema *s) {
  char *out = "";
  int n = 0;
  for (int i = 0; i < nsource_kinds; i++)
    if (source_kinds[i].generated_by)
      out = arena_printf(s->arena, "%s%s'%s'", out, n++ ? " or " : "", source_kinds[i].name);
  return out;
}

/* WATERMARK FOR col AS col [- INTERVAL ...] */
static void check_watermark(Sema *s, Stmt *st, Relation *r) {
  WatermarkDef *wm = st->wm;
  char b[32];
  int c = find_col(r, wm->column);
  if (c < 0) {
    diag_error(s->d, wm->loc, "unknown column '%s' in WATERMARK FOR", wm->column);
    Names ns = {0};
    for (int i = 0; i < r->ncols; i++)
      names_add(s->arena, &ns, r->cols[i].name);
    suggest_note(s, wm->loc, wm->column, &ns);
    return;
  }
  if (r->cols[c].type.kind != TY_TIMESTAMP) {
    diag_error(s->d, wm->loc, "WATERMARK column '%s' must be TIMESTAMP, not %s", wm->column,
               tyname(r->cols[c].type, b));
    return;
  }
  r->time_col = c;
  r->has_watermark = true;
  Expr *e = wm->expr, *col = NULL, *iv = NULL;
  if (e && e->kind == EX_COLUMN) {
    col = e;
  } else if (e && e->kind == EX_BINARY && e->op == OP_SUB && e->lhs->kind == EX_COLUMN &&
             e->rhs->kind == EX_INTERVAL) {
    col = e->lhs;
    iv = e->rhs;
  }
  bool ok = col && strcmp(col->name, wm->column) == 0 &&
            (!col->qual || strcmp(col->qual, r->name) == 0) && (!iv || iv->ival >= 0);
  if (ok && iv && iv->ival > AIRC_MAX_SPAN_MS) {
    diag_error(s->d, iv->loc,
               "WATERMARK bound of %lld ms is longer than the TIMESTAMP range (years 1 to "
               "9999, %lld ms)", (long long)iv->ival, (long long)AIRC_MAX_SPAN_MS);
    return;
  }
  if (!ok) {
    diag_error(s->d, e ? e->loc : wm->loc, "WATERMARK FOR %s must be 'AS %s' or 'AS %s - INTERVAL ...'",
               wm->column, wm->column, wm->column);
    return;
  }
  init_ann(e);
  e->type = mk_type(TY_TIMESTAMP);
  init_ann(col);
  col->type = mk_type(TY_TIMESTAMP);
  col->from_idx = 0;
  col->col_idx = c;
  if (iv) {
    init_ann(iv);
    iv->type = mk_type(TY_INTERVAL);
  }
  wm->bound_ms = iv ? iv->ival : 0;
  r->wm_bound_ms = wm->bound_ms;
}

static void check_source(Sema *s, Stmt *st) {
  bool fresh = check_new_name(s, st);
  Relation *r = new_relation(s, st, REL_SOURCE);
  build_columns(s, st, r);
  check_options(s, st, r);
  if (st->pkey)
    diag_error(s->d, st->pkey_loc, "PRIMARY KEY is only allowed in CREATE TABLE");

  if (r->source && !r->source->generated_by) {
    for (ColumnDef *cd = st->cols; cd; cd = cd->next)
      if (cd->gen)
        diag_error(s->d, cd->gen->loc, "GENERATED BY needs source = %s", generating_kinds(s));
  }
  if (r->source && r->source->check_stream)
    r->source->check_stream(s, st, r);

  if (st->wm) {
    check_watermark(s, st, r);
  } else {
    int nts = 0;
    for (int i = 0; i < r->ncols; i++) {
      if (r->cols[i].type.kind == TY_TIMESTAMP) {
        if (!nts)
          r->time_col = i;
        nts++;
      }
    }
    /* a schema's time column of the wrong type was reported already */
    bool schema_ts = false;
    for (int i = 0; i < r->ncols; i++)
      schema_ts |= r->cols[i].ysb_field == AIR_YSB_TS;
    if (nts == 0 && !schema_ts)
      diag_error(s->d, st->name_loc, "stream '%s' has no TIMESTAMP column for its event time",
                 r->name);
    else if (nts > 1)
      diag_error(s->d, st->name_loc,
                 "stream '%s' has several TIMESTAMP columns; name its event time with "
                 "WATERMARK FOR",
                 r->name);
  }
  if (r->time_col >= 0 && r->source && r->source->time == TIME_GENERATED)
    r->ingestion_time = r->cols[r->time_col].gen.kind != GEN_SEQUENCE;
  if (fresh)
    catalog_add(s, r);
}

static void check_table(Sema *s, Stmt *st) {
  bool fresh = check_new_name(s, st);
  Relation *r = new_relation(s, st, REL_TABLE);
  build_columns(s, st, r);
  check_options(s, st, r);
  if (st->wm)
    diag_error(s->d, st->wm->loc, "a TABLE has no event time, so no WATERMARK");
  for (ColumnDef *cd = st->cols; cd; cd = cd->next)
    if (cd->gen)
      diag_error(s->d, cd->gen->loc, "GENERATED BY is not allowed in a TABLE");
  if (!st->pkey) {
    diag_error(s->d, st->name_loc, "table '%s' needs a PRIMARY KEY", r->name);
  } else {
    r->key_col = find_col(r, st->pkey);
    if (r->key_col < 0) {
      diag_error(s->d, st->pkey_loc, "PRIMARY KEY column '%s' is not a column of table '%s'",
                 st->pkey, r->name);
      Names ns = {0};
      for (int i = 0; i < r->ncols; i++)
        names_add(s->arena, &ns, r->cols[i].name);
      suggest_note(s, st->pkey_loc, st->pkey, &ns);
    }
  }
  if (r->source && r->source->check_table)
    r->source->check_table(s, st, r);
  /* a table without a usable key would make every later JOIN fail too */
  if (r->key_col < 0)
    mark_broken(s, r);
  if (fresh)
    catalog_add(s, r);
}

static void check_sink(Sema *s, Stmt *st) {
  bool fresh = check_new_name(s, st);
  Relation *r = new_relation(s, st, REL_SINK);
  r->cols = arena_alloc(s->arena, sizeof(Column));
  check_options(s, st, r);
  if (fresh)
    catalog_add(s, r);
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
  if (sel->window) {
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
      return;
    }
    time_hold(sel, NULL, &r->wm_hold_ms);
  } else {
    for (int i = 0; i < sel->nout && in; i++) {
      Expr *e = sel->out[i].expr;
      if (e->kind == EX_COLUMN && e->from_idx == sel->time_from && e->col_idx == in->time_col) {
        r->time_col = i;
        return;
      }
    }
    if (ts >= 0) {
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
  r->cols = arena_alloc(s->arena, sizeof(Column) * (size_t)(sel->nout + 1));
  for (int i = 0; i < sel->nout; i++) {
    Column *c = &r->cols[i];
    c->name = sel->out[i].name;
    c->type = sel->out[i].type;
    c->loc = locs[i];
    c->ysb_field = -1;
  }
  r->ncols = sel->nout;
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
  check_select(s, st->select, NULL, NULL);
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
  return s.cat;
}
