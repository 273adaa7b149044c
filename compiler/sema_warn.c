/* sema_warn.c - warnings: legal queries that are probably not what was
 * meant. */
#include "sema_int.h"

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
void warn_window(Scope *sc) {
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

void warn_hopping(Sema *s, WindowSpec *w) {
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
 * a COUNT with a literal (a COUNT(*), or a COUNT of a value that cannot be
 * NULL, without FILTER, is at least 1 in an emitted window: windows exist
 * only where rows fell). *count is set to
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
  /* COUNT(*) of a window's group counts its rows; COUNT(x) of a nullable x
   * (a column an outer join pads, say) and a COUNT with FILTER can be 0 */
  if (!(cnt->kind == EX_CALL && (cnt->agg == AGG_COUNT_STAR || (cnt->agg == AGG_COUNT && cnt->args &&
                                                               !cnt->args->type.nullable))) ||
      cnt->filter || !const_int(lit, &b))
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

/* x = NULL (or <>, <, ... NULL) is NULL whatever x is: never true. */
static void warn_null_compare(void *ctx, Expr *e) {
  Sema *s = ctx;
  if (e->kind == EX_BINARY && e->op >= OP_EQ && e->op <= OP_GE &&
      (e->lhs->kind == EX_NULL || e->rhs->kind == EX_NULL)) {
    const Expr *x = e->lhs->kind == EX_NULL ? e->rhs : e->lhs;
    diag_warning(s->d, e->loc, "a comparison with NULL is NULL, never true: write %s IS %sNULL",
                 x->text ? x->text : "x", e->op == OP_NE ? "NOT " : "");
  }
  expr_each_child(e, warn_null_compare, s);
}

void warn_conditions(Sema *s, Select *sel) {
  if (sel->where) warn_null_compare(s, sel->where);
  if (sel->having) warn_null_compare(s, sel->having);
  if (sel->join_on) warn_null_compare(s, sel->join_on);
  for (SelectItem *it = sel->items; it; it = it->next) warn_null_compare(s, it->expr);
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
void warn_unused(Sema *s) {
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
