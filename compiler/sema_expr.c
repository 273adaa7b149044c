/* sema_expr.c - the types and names of expressions, and their structural
 * equality (GROUP BY matching, aggregate sharing). */
#include "sema_int.h"

#include <regex.h>

/* ---------------------------------------------------------------------
 * Expressions
 * --------------------------------------------------------------------- */

static const char *clause_name(Clause c) {
  switch (c) {
  case CL_WHERE: return "WHERE";
  case CL_ON: return "JOIN ON";
  case CL_GROUP_BY: return "GROUP BY";
  case CL_HAVING: return "HAVING";
  case CL_SUBQUERY: return "IN (SELECT ...)";
  default: return "the select list";
  }
}

Type check_expr(Scope *sc, Expr *e);

void init_ann(Expr *e) {
  e->type = mk_type(TY_ERROR);
  e->agg = AGG_NONE;
  e->func = FN_NONE;
  e->from_idx = -1;
  e->col_idx = -1;
  e->agg_idx = -1;
  e->key_idx = -1;
}

const char *expr_label(const Expr *e) {
  if (e->text)
    return e->text;
  return e->name ? e->name : "expression";
}

int qual_index(Scope *sc, const char *qual) {
  for (int i = 0; i < sc->nfrom; i++)
    if (sc->qual[i] && strcmp(sc->qual[i], qual) == 0)
      return i;
  return -1;
}

void unknown_qualifier(Scope *sc, Expr *e) {
  Sema *s = sc->s;
  diag_error(s->d, e->loc, "unknown stream or alias '%s'", e->qual);
  if (sc->clause == CL_SUBQUERY) {
    diag_note(s->d, e->loc, "IN (SELECT ...) sees its table alone (correlated subqueries are not supported)");
    return;
  }
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
void note_decl(Scope *sc, const Expr *e) {
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

void note_decls(Scope *sc, const Expr *a, const Expr *b) {
  note_decl(sc, a);
  note_decl(sc, b);
}

/* A NULL literal where its context gives the type t: NULL of type t. */
static Type settle_null(Expr *e, Type t) {
  if (e && e->kind == EX_NULL && t.kind != TY_NULL && !is_err(t)) {
    e->type = t;
    e->type.nullable = true;
  }
  return e ? e->type : t;
}

/* A NULL literal left without a type (SELECT NULL, NULL + NULL). */
static Type untyped_null(Scope *sc, const Expr *e) {
  diag_error(sc->s->d, e->loc, "NULL has no type here: write CAST(NULL AS type)");
  return mk_type(TY_ERROR);
}

/* An interval of constant length (a literal, -, + and - of them): its ms. */
static bool interval_ms(const Expr *e, int64_t *ms) {
  int64_t a, b;
  if (e->kind == EX_INTERVAL) {
    *ms = e->ival;
    return true;
  }
  if (e->kind == EX_UNARY && e->op == OP_NEG && interval_ms(e->lhs, &a)) {
    *ms = -a;
    return true;
  }
  if (e->kind == EX_BINARY && (e->op == OP_ADD || e->op == OP_SUB) && interval_ms(e->lhs, &a) &&
      interval_ms(e->rhs, &b)) {
    *ms = e->op == OP_ADD ? a + b : a - b;
    return true;
  }
  return false;
}

/* DATE + INTERVAL, INTERVAL + DATE and DATE - INTERVAL of whole days: a
 * DATE (its midnight moved by whole days stays a midnight). */
static Type date_arith(Scope *sc, Expr *e, Type l, Type r) {
  char b1[32], b2[32];
  Expr *iv = l.kind == TY_DATE ? e->rhs : e->lhs;
  int64_t ms = 0;
  bool ok = (l.kind == TY_DATE) != (r.kind == TY_DATE) && iv->type.kind == TY_INTERVAL &&
            (e->op == OP_ADD || l.kind == TY_DATE);
  if (ok && interval_ms(iv, &ms) && ms % AIR_DAY_MS == 0)
    return mk_type(TY_DATE);
  if (ok)
    diag_error(sc->s->d, iv->loc, "a DATE moves by whole days: INTERVAL 'n' DAY or WEEK (for a time of day, "
               "CAST(d AS TIMESTAMP) %s ...)", op_text(e->op));
  else
    diag_error(sc->s->d, e->loc, "cannot apply '%s' to %s and %s: a DATE takes '+' or '-' an INTERVAL of days "
               "(CAST it to TIMESTAMP for milliseconds)", op_text(e->op), tyname(l, b1), tyname(r, b2));
  note_decls(sc, e->lhs, e->rhs);
  return mk_type(TY_ERROR);
}

static Type check_binary(Scope *sc, Expr *e) {
  Diag *d = sc->s->d;
  Type l = check_expr(sc, e->lhs), r = check_expr(sc, e->rhs);
  char b1[32], b2[32];
  if (e->op == OP_AND || e->op == OP_OR) { /* NULL AND x: an unknown truth value */
    l = settle_null(e->lhs, mk_type(TY_BOOL));
    r = settle_null(e->rhs, mk_type(TY_BOOL));
  } else if (l.kind == TY_NULL && r.kind == TY_NULL) {
    return untyped_null(sc, e->lhs);
  } else {
    l = settle_null(e->lhs, r);
    r = settle_null(e->rhs, l);
  }
  switch (e->op) {
  case OP_ADD:
  case OP_SUB:
  case OP_MUL:
  case OP_DIV:
    if (is_err(l) || is_err(r))
      return mk_type(TY_ERROR);
    if (is_num(l) && is_num(r))
      return promote(l, r);
    if ((l.kind == TY_DATE || r.kind == TY_DATE) && (e->op == OP_ADD || e->op == OP_SUB))
      return date_arith(sc, e, l, r);
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
  if (t.kind == TY_NULL) {
    if (e->op != OP_NOT)
      return untyped_null(sc, e->lhs);
    t = settle_null(e->lhs, mk_type(TY_BOOL));
  }
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
    if (subj.kind == TY_NULL && t.kind != TY_NULL && !is_err(t))
      subj = settle_null(e->lhs, t);
    t = settle_null(v, subj);
    if (is_err(t)) {
      ok = false;
    } else if (!is_err(subj) && !comparable(subj, t)) {
      diag_error(sc->s->d, v->loc, "cannot compare %s with %s", tyname(subj, b1), tyname(t, b2));
      note_decls(sc, e->lhs, v);
      ok = false;
    }
  }
  if (ok && subj.kind == TY_NULL)
    return untyped_null(sc, e->lhs);
  return ok ? mk_type(TY_BOOL) : mk_type(TY_ERROR);
}

/* The table an IN (SELECT ...) reads: a static TABLE, which every rank
 * holds whole, so the set is made once when the program starts; a
 * stream's rows come and go, and are refused. NULL after an error. */
static Relation *in_select_table(Sema *s, Select *sub) {
  FromItem *f = &sub->from[0];
  Relation *r = scope_find(s, f->name);
  if (!r) {
    diag_error(s->d, f->loc, "unknown table '%s'", f->name);
    suggest_relation(s, f->loc, f->name, 1u << REL_TABLE);
    return NULL;
  }
  if (r->kind != REL_TABLE) {
    diag_error(s->d, f->loc, "IN (SELECT ...) reads %s '%s': only static tables (CREATE TABLE) are supported "
               "in a subquery", rel_kind_name(r), f->name);
    if (r->kind != REL_SINK)
      diag_note(s->d, f->loc, "a stream's rows change as it runs; to match two streams, JOIN them in a window");
    return NULL;
  }
  if (sub->nfrom > 1) {
    diag_error(s->d, sub->from[1].loc, "IN (SELECT ...) reads one table: no JOIN");
    return NULL;
  }
  return r;
}

/* The clauses an IN (SELECT ...) does not take: it is a set of values of
 * the table's rows, not a query of its own. */
static bool in_select_plain(Sema *s, const Select *sub) {
  const char *what = NULL;
  SrcLoc at = sub->loc;
  if (sub->group_by) what = "GROUP BY", at = sub->group_by->loc;
  else if (sub->window) what = "a WINDOW", at = sub->window->loc;
  else if (sub->having) what = "HAVING", at = sub->having->loc;
  else if (sub->order_by) what = "ORDER BY", at = sub->order_by->expr->loc;
  else if (sub->limit) what = "LIMIT", at = sub->limit_loc;
  else if (sub->items->next) what = "a second column", at = sub->items->next->expr->loc;
  else if (sub->items->expr->kind == EX_STAR) what = "'*'", at = sub->items->expr->loc;
  if (!what)
    return true;
  diag_error(s->d, at, "IN (SELECT ...) selects one column of a table, filtered by WHERE alone: not %s", what);
  return false;
}

/* x IN (SELECT item FROM table [WHERE cond]): item an expression over the
 * table's columns, comparable with x as an IN list's values are. The
 * subquery sees the table alone (no column of the outer query). */
static Type check_in_select(Scope *sc, Expr *e) {
  Sema *s = sc->s;
  Select *sub = e->sub;
  Type subj = check_expr(sc, e->lhs);
  Relation *r = in_select_table(s, sub);
  if (!r || !in_select_plain(s, sub))
    return mk_type(TY_ERROR);
  r->used = true;
  r->in_select = true;
  sub->from[0].rel = r;
  sub->qkind = QK_MAP;
  Scope in = {.s = s, .sel = sub, .nfrom = 1, .clause = CL_SUBQUERY};
  in.rel[0] = r;
  in.qual[0] = sub->from[0].alias ? sub->from[0].alias : sub->from[0].name;
  Expr *item = sub->items->expr;
  Type t = check_expr(&in, item);
  char b1[32], b2[32];
  bool ok = !is_err(subj) && !is_err(t);
  if (sub->where) {
    Type w = check_expr(&in, sub->where);
    if (!is_err(w) && w.kind != TY_BOOL) {
      diag_error(s->d, sub->where->loc, "WHERE condition must be BOOLEAN, not %s", tyname(w, b1));
      note_decl(&in, sub->where);
    }
    ok = ok && w.kind == TY_BOOL;
  }
  if (t.kind == TY_NULL) {
    untyped_null(&in, item);
    return mk_type(TY_ERROR);
  }
  if (!ok)
    return mk_type(TY_ERROR);
  subj = settle_null(e->lhs, t);
  if (!comparable(subj, t)) {
    diag_error(s->d, item->loc, "cannot compare %s with %s", tyname(subj, b1), tyname(t, b2));
    note_decl(sc, e->lhs);
    note_decl(&in, item);
    return mk_type(TY_ERROR);
  }
  return mk_type(TY_BOOL);
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
  if (e->else_) { /* without ELSE: NULL when no WHEN holds */
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
  }
  if (!ok)
    return mk_type(TY_ERROR);
  if (res.kind == TY_NULL)
    return untyped_null(sc, e);
  for (Expr *w = e->args; w; w = w->next)
    w->type = settle_null(w->rhs, res);
  settle_null(e->else_, res);
  return res;
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
  /* every type converts to every other (numbers, text, booleans, times), but
   * a DATE to or from a number or BOOLEAN: a day is no quantity */
  bool date = (t.kind == TY_DATE) != (to.kind == TY_DATE);
  TypeKind other = t.kind == TY_DATE ? to.kind : t.kind;
  if (date && other != TY_TIMESTAMP && other != TY_VARCHAR && other != TY_NULL && !is_err(t)) {
    char b1[32], b2[32];
    diag_error(sc->s->d, e->loc, "cannot CAST %s to %s: a DATE casts to and from TIMESTAMP and VARCHAR",
               tyname(t, b1), tyname(to, b2));
    note_decl(sc, e->lhs);
    return mk_type(TY_ERROR);
  }
  settle_null(e->lhs, to);
  return to;
}

static Type check_aggregate(Scope *sc, Expr *e, AggKind ak) {
  Diag *d = sc->s->d;
  int nargs = list_len(e->args);
  Expr *arg = e->args;
  char b[32];
  e->agg = ak;
  if (e->filter) { /* a condition on the rows, as WHERE's: no aggregate in it */
    bool saved = sc->in_agg;
    sc->in_agg = true;
    Type ft = check_expr(sc, e->filter);
    sc->in_agg = saved;
    if (!is_err(ft) && ft.kind != TY_BOOL) {
      diag_error(d, e->filter->loc, "FILTER (WHERE ...) needs a BOOLEAN condition, not %s", tyname(ft, b));
      return mk_type(TY_ERROR);
    }
    if (is_err(ft))
      return mk_type(TY_ERROR);
  }
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
  diag_error(d, arg->loc, "%s needs %s argument, not %s", e->name,
             ak == AGG_MIN || ak == AGG_MAX || ak == AGG_FIRST_VALUE || ak == AGG_LAST_VALUE
                 ? "a number, TIMESTAMP, DATE or VARCHAR" : "a numeric", tyname(t, b));
  note_decl(sc, arg);
  return mk_type(TY_ERROR);
}

/* A regular expression's pattern: a literal, compiled once per query, and
 * one regcomp accepts (POSIX extended), so that it cannot fail at run time. */
static bool check_pattern(Scope *sc, const Expr *e) {
  const Expr *pat = e->args->next;
  if (pat->kind != EX_STRING) {
    diag_error(sc->s->d, pat->loc, "the pattern of %s must be a string literal (it is compiled once per query)",
               e->name);
    return false;
  }
  regex_t re;
  int rc = regcomp(&re, pat->sval, REG_EXTENDED);
  if (rc != 0) {
    char why[128];
    regerror(rc, &re, why, sizeof why);
    diag_error(sc->s->d, pat->loc, "%s: not a POSIX extended regular expression: %s", e->name, why);
    return false;
  }
  const Expr *g = pat->next;
  if (g && g->kind == EX_INT && (g->ival < 0 || (size_t)g->ival > re.re_nsub || g->ival > 9)) {
    diag_error(sc->s->d, g->loc, "%s: the pattern has %zu group%s; group %lld is none of 0 to %zu", e->name,
               re.re_nsub, re.re_nsub == 1 ? "" : "s", (long long)g->ival, re.re_nsub > 9 ? (size_t)9 : re.re_nsub);
    regfree(&re);
    return false;
  }
  regfree(&re);
  return true;
}

static Type check_call(Scope *sc, Expr *e) {
  Diag *d = sc->s->d;
  AggKind ak = agg_lookup(e->name, false);
  if (ak != AGG_NONE)
    return check_aggregate(sc, e, ak);
  FuncKind fk = func_lookup(e->name);
  if (e->filter && fk != FN_NONE) {
    init_ann(e->filter);
    diag_error(d, e->filter->loc, "FILTER (WHERE ...) applies to aggregates, and %s is none", e->name);
    return mk_type(TY_ERROR);
  }
  if (fk == FN_NONE) {
    diag_error(d, e->loc, "unknown function '%s'", e->name);
    /* what a Flink user types, and airc's form of it */
    static const struct { const char *name, *note; } flink[] = {
        {"TUMBLE", "Flink's group window GROUP BY TUMBLE(ts, INTERVAL ...) is written GROUP BY k WINDOW TUMBLING "
                   "(SIZE ...), or FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL ...)) GROUP BY "
                   "window_start, window_end, k"},
        {"HOP", "Flink's group window GROUP BY HOP(ts, slide, size) is written GROUP BY k WINDOW HOPPING (SIZE ..., "
                "ADVANCE BY ...), or FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), slide, size))"},
        {"SESSION", "Flink's group window GROUP BY SESSION(ts, gap) is written GROUP BY k WINDOW SESSION (GAP ...)"},
        {"TUMBLE_START", "a window's start is WINDOW_START (window_start over a window TVF)"},
        {"HOP_START", "a window's start is WINDOW_START (window_start over a window TVF)"},
        {"SESSION_START", "a window's start is WINDOW_START"},
        {"TUMBLE_END", "a window's end is WINDOW_END (window_end over a window TVF)"},
        {"HOP_END", "a window's end is WINDOW_END (window_end over a window TVF)"},
        {"SESSION_END", "a window's end is WINDOW_END"},
        {"TUMBLE_ROWTIME", "a window's last millisecond is WINDOW_TIME"},
        {"HOP_ROWTIME", "a window's last millisecond is WINDOW_TIME"},
        {"UNIX_TIMESTAMP", "CAST(ts AS BIGINT) is a TIMESTAMP's epoch milliseconds (seconds: CAST(ts AS BIGINT) / 1000)"},
        {"TO_TIMESTAMP_LTZ", "CAST(ms AS TIMESTAMP) makes a TIMESTAMP of epoch milliseconds; TO_TIMESTAMP(s) of text"},
    };
    for (size_t i = 0; i < sizeof flink / sizeof flink[0]; i++)
      if (strcasecmp(e->name, flink[i].name) == 0) {
        diag_note(d, e->loc, "%s", flink[i].note);
        return mk_type(TY_ERROR);
      }
    Names ns = {0};
    for (int k = 1; k <= FN_LAST; k++)
      if (!func_defs[k].op) names_add(sc->s->arena, &ns, func_defs[k].name);
    for (int k = 0; k <= AGG_LAST; k++)
      if (agg_defs[k].name && !agg_defs[k].star)
        names_add(sc->s->arena, &ns, agg_defs[k].name);
    suggest_note(sc->s, e->loc, e->name, &ns);
    return mk_type(TY_ERROR);
  }
  const FuncDef *fd = &func_defs[fk];
  e->func = fk;
  int nargs = 0;
  bool ok = true;
  for (Expr *a = e->args; a; a = a->next) {
    if (a->kind == EX_STAR) {
      init_ann(a);
      diag_error(d, a->loc, "only COUNT(*) takes '*'");
      ok = false;
    } else if (is_err(check_expr(sc, a))) {
      ok = false;
    }
    nargs++;
  }
  if (nargs < fd->min_args || (fd->max_args >= 0 && nargs > fd->max_args)) {
    static const char *const words[] = {"no", "one", "two", "three"};
    const char *lo = words[fd->min_args], *hi = fd->max_args > 0 ? words[fd->max_args] : "";
    const char *s_ = fd->min_args == 1 && fd->max_args == 1 ? "" : "s";
    if (fd->min_args == fd->max_args)
      diag_error(d, e->loc, "%s takes %s argument%s, got %d", e->name, lo, s_, nargs);
    else if (fd->max_args < 0)
      diag_error(d, e->loc, "%s takes at least %s argument%s, got %d", e->name, lo, fd->min_args == 1 ? "" : "s",
                 nargs);
    else
      diag_error(d, e->loc, "%s takes %s or %s arguments, got %d", e->name, lo, hi, nargs);
    return mk_type(TY_ERROR);
  }
  if (!ok)
    return mk_type(TY_ERROR);
  char b1[32], b2[32];
  if (!fd->result) { /* the common type of the arguments */
    Type res = e->args->type;
    for (Expr *a = e->args->next; a; a = a->next)
      if (!common_type(res, a->type, &res) || a->type.kind == TY_INTERVAL) {
        diag_error(d, a->loc, "arguments of %s have incompatible types %s and %s", e->name,
                   tyname(res, b1), tyname(a->type, b2));
        note_decl(sc, a);
        return mk_type(TY_ERROR);
      }
    if (res.kind == TY_NULL)
      return untyped_null(sc, e);
    for (Expr *a = e->args; a; a = a->next)
      settle_null(a, res);
    return res;
  }
  Type args[nargs > 0 ? nargs : 1];
  int i = 0;
  for (Expr *a = e->args; a; a = a->next) args[i++] = a->type;
  int bad = 0;
  const char *want = "";
  Type res = fd->result(args, nargs, &bad, &want);
  if (!is_err(res) && (fk == FN_REGEXP_LIKE || fk == FN_REGEXP_EXTRACT) && !check_pattern(sc, e))
    return mk_type(TY_ERROR);
  if (!is_err(res))
    return res;
  if (bad < 0) {
    diag_error(d, e->loc, "%s: %s", e->name, want);
    return mk_type(TY_ERROR);
  }
  Expr *a = e->args;
  for (int k = 0; k < bad; k++) a = a->next;
  if (nargs == 1)
    diag_error(d, a->loc, "%s needs %s argument, not %s", e->name, want, tyname(a->type, b1));
  else
    diag_error(d, a->loc, "argument %d of %s needs %s value, not %s", bad + 1, e->name, want, tyname(a->type, b1));
  note_decl(sc, a);
  return mk_type(TY_ERROR);
}

static Type check_pseudo(Scope *sc, Expr *e) {
  const char *nm = e->kind == EX_WINDOW_START ? "WINDOW_START" : "WINDOW_END";
  if (e->text && strcasecmp(e->text, "WINDOW_TIME") == 0) nm = "WINDOW_TIME"; /* WINDOW_END - 1 ms */
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

static void any_nullable(void *ctx, Expr *c) {
  if (c->kind != EX_WHEN && c->type.nullable)
    *(bool *)ctx = true;
  else if (c->kind == EX_WHEN && c->rhs && c->rhs->type.nullable) /* a CASE result; not its condition */
    *(bool *)ctx = true;
}

/* Whether e (of type t, its children checked) may be NULL: docs/language.md
 * "NULL" gives the rules. Most operators and functions are NULL when an
 * operand is; these make NULLs of their own: the literal, a column that
 * may be NULL (or the other side's of a LEFT JOIN), integer division by
 * zero, a failed conversion of text, NULLIF, CASE without ELSE, and an
 * aggregate over no values. */
static bool may_be_null(Scope *sc, const Expr *e, Type t) {
  bool any = false;
  switch (e->kind) {
  case EX_NULL: return true;
  case EX_IS_NULL:
  case EX_INT:
  case EX_DOUBLE:
  case EX_STRING:
  case EX_BOOL:
  case EX_INTERVAL:
  case EX_DATE:
  case EX_STAR:
  case EX_BRANCH:
  case EX_WINDOW_START:
  case EX_WINDOW_END: return false;
  case EX_COLUMN: return t.nullable || (sc->sel && join_padded(sc->sel, e->from_idx));
  case EX_CAST:
    return e->lhs->type.nullable || (e->lhs->type.kind == TY_VARCHAR && t.kind != TY_VARCHAR);
  case EX_BINARY:
    if ((e->op == OP_DIV || e->op == OP_MOD) && t.kind != TY_DOUBLE &&
        !(e->rhs->kind == EX_INT && e->rhs->ival != 0))
      return true;
    break;
  case EX_CASE:
    if (!e->else_)
      return true;
    break;
  case EX_IN_SELECT: /* NULL x, or no match in a set holding NULL */
    return e->lhs->type.nullable || e->sub->items->expr->type.nullable;
  case EX_CALL:
    if (e->agg == AGG_COUNT || e->agg == AGG_COUNT_STAR)
      return false;
    if (e->agg >= AGG_VAR_POP && e->agg <= AGG_STDDEV) /* over no row (the sample forms: one) */
      return true;
    if (e->agg != AGG_NONE)
      return e->filter || e->args->type.nullable;
    if (e->func == FN_NULLIF || (e->func != FN_NONE && func_defs[e->func].own_null && t.kind != TY_DOUBLE))
      return true;
    if (e->func == FN_COALESCE) {
      for (const Expr *a = e->args; a; a = a->next)
        if (!a->type.nullable)
          return false;
      return true;
    }
    break;
  default: break;
  }
  expr_each_child(e, any_nullable, &any);
  return any;
}

/* window_start, window_end or window_time (as written) in a query without
 * a window, over a stream that has a column of that name (a derived
 * stream's, named as Flink names them): that column. */
static void window_word_column(Scope *sc, Expr *e) {
  if (e->kind == EX_COLUMN && e->qual && sc->sel && sc->sel->window && e->name) {
    /* L.window_start of a window TVF L (Flink's window join): the window's */
    bool st = strcasecmp(e->name, "window_start") == 0, en = strcasecmp(e->name, "window_end") == 0,
         tm = strcasecmp(e->name, "window_time") == 0;
    for (int i = 0; i < sc->nfrom && (st || en || tm); i++) {
      if (!sc->qual[i] || strcmp(sc->qual[i], e->qual) != 0 || !sc->sel->from[i].tvf || !sc->rel[i] ||
          find_col(sc->rel[i], e->name) >= 0)
        continue;
      e->text = e->name; /* a result column's name as written: window_start */
      e->qual = NULL;
      if (tm) { /* WINDOW_END - 1 ms, as the parser makes WINDOW_TIME */
        e->kind = EX_BINARY;
        e->op = OP_SUB;
        e->lhs = new_expr(sc->s->arena, EX_WINDOW_END, e->loc);
        e->rhs = new_expr(sc->s->arena, EX_INTERVAL, e->loc);
        e->rhs->ival = 1;
      } else {
        e->kind = st ? EX_WINDOW_START : EX_WINDOW_END;
      }
      return;
    }
  }
  bool word = e->kind == EX_WINDOW_START || e->kind == EX_WINDOW_END ||
              (e->kind == EX_BINARY && e->op == OP_SUB && e->lhs->kind == EX_WINDOW_END && e->text &&
               strcasecmp(e->text, "WINDOW_TIME") == 0);
  if (!word || !e->text || !sc->sel || sc->sel->window)
    return;
  for (int i = 0; i < sc->nfrom; i++)
    if (sc->rel[i] && find_col(sc->rel[i], e->text) >= 0) {
      e->kind = EX_COLUMN;
      e->name = e->text;
      e->name_loc = e->loc;
      e->lhs = e->rhs = NULL;
      return;
    }
}

Type check_expr(Scope *sc, Expr *e) {
  if (!e)
    return mk_type(TY_ERROR);
  init_ann(e);
  window_word_column(sc, e);
  Type t;
  switch (e->kind) {
  case EX_INT:
    t = mk_type(e->ival >= INT32_MIN && e->ival <= INT32_MAX ? TY_INT : TY_BIGINT);
    break;
  case EX_DOUBLE: t = mk_type(TY_DOUBLE); break;
  case EX_STRING:
    if (e->slen > 65535) { /* (int) of a longer one could wrap; VARCHAR stops there */
      diag_error(sc->s->d, e->loc, "a string literal of %zu bytes: VARCHAR holds at most 65535", e->slen);
      t = mk_type(TY_ERROR);
      break;
    }
    t = mk_varchar((int)e->slen);
    break;
  case EX_BOOL: t = mk_type(TY_BOOL); break;
  case EX_INTERVAL: t = mk_type(TY_INTERVAL); break;
  case EX_DATE: t = mk_type(TY_DATE); break;
  case EX_COLUMN: t = resolve_column(sc, e); break;
  case EX_STAR:
    diag_error(sc->s->d, e->loc, "'*' is only allowed in the select list and in COUNT(*)");
    t = mk_type(TY_ERROR);
    break;
  case EX_UNARY: t = check_unary(sc, e); break;
  case EX_BINARY: t = check_binary(sc, e); break;
  case EX_IN:
  case EX_BETWEEN: t = check_membership(sc, e); break;
  case EX_IN_SELECT: t = check_in_select(sc, e); break;
  case EX_CASE: t = check_case(sc, e); break;
  case EX_CAST: t = check_cast(sc, e); break;
  case EX_CALL:
    if (e->over) {
      diag_error(sc->s->d, e->loc, "%s() OVER (...) is taken in Flink's Top-N form alone: SELECT * FROM (SELECT *, "
                 "ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY x DESC) AS rownum FROM "
                 "TABLE(TUMBLE(...)) or (windowed query)) WHERE rownum <= n", e->name);
      t = mk_type(TY_ERROR);
      break;
    }
    t = check_call(sc, e);
    break;
  case EX_ROW_NUMBER: t = mk_type(TY_BIGINT); break; /* the Top-N rewrite's (build_row_number) */
  case EX_BRANCH: t = mk_type(TY_INT); break;       /* the DISTINCT rewrite's (build_distinct) */
  case EX_WINDOW_START:
  case EX_WINDOW_END: t = check_pseudo(sc, e); break;
  case EX_NULL: t = mk_type(TY_NULL); break;
  case EX_IS_NULL:
    t = check_expr(sc, e->lhs);
    if (t.kind == TY_NULL)
      settle_null(e->lhs, mk_type(TY_BOOL)); /* NULL IS NULL: true, whatever its type */
    t = is_err(t) ? t : mk_type(TY_BOOL);
    break;
  default:
    t = mk_type(TY_ERROR);
    break;
  }
  if (!is_err(t))
    t.nullable = may_be_null(sc, e, t);
  e->type = t;
  return t;
}

/* ---------------------------------------------------------------------
 * Structural equality (GROUP BY matching, aggregate sharing)
 * --------------------------------------------------------------------- */

bool expr_equal(const Expr *a, const Expr *b);

static bool list_equal(const Expr *a, const Expr *b) {
  for (; a && b; a = a->next, b = b->next)
    if (!expr_equal(a, b))
      return false;
  return !a && !b;
}

bool expr_equal(const Expr *a, const Expr *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind)
    return false;
  switch (a->kind) {
  case EX_INT:
  case EX_BOOL:
  case EX_INTERVAL:
  case EX_DATE: return a->ival == b->ival;
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
  case EX_IN_SELECT: /* the same table, item and WHERE (the subqueries checked) */
    return expr_equal(a->lhs, b->lhs) &&
           (a->sub == b->sub || (a->sub->from[0].rel && a->sub->from[0].rel == b->sub->from[0].rel &&
                                 expr_equal(a->sub->items->expr, b->sub->items->expr) &&
                                 expr_equal(a->sub->where, b->sub->where)));
  case EX_BETWEEN:
    return expr_equal(a->lhs, b->lhs) && expr_equal(a->rhs, b->rhs) &&
           expr_equal(a->third, b->third);
  case EX_CASE: return list_equal(a->args, b->args) && expr_equal(a->else_, b->else_);
  case EX_WHEN: return expr_equal(a->lhs, b->lhs) && expr_equal(a->rhs, b->rhs);
  case EX_CAST:
    return a->cast_to.kind == b->cast_to.kind && a->cast_to.len == b->cast_to.len &&
           expr_equal(a->lhs, b->lhs);
  case EX_CALL:
    return strcasecmp(a->name, b->name) == 0 && list_equal(a->args, b->args) && expr_equal(a->filter, b->filter);
  case EX_WINDOW_START:
  case EX_WINDOW_END:
  case EX_NULL: return true;
  case EX_IS_NULL: return a->ival == b->ival && expr_equal(a->lhs, b->lhs);
  case EX_ROW_NUMBER:
  case EX_BRANCH: return true;
  }
  return false;
}
