/* ast.c - the syntax tree: node constructors, type helpers, and a dump.
 *
 * The tree itself is built by grammar/airq.y (parse_program lives there,
 * next to the grammar it drives). The dump is an S-expression, one line per
 * statement, so that parser tests can compare a whole tree with one string.
 */
#include "airc.h"

#include <inttypes.h>
#include <string.h>

Expr *new_expr(Arena *a, ExprKind kind, SrcLoc loc) {
  Expr *e = arena_alloc(a, sizeof(Expr));
  e->kind = kind;
  e->loc = loc;
  e->name_loc = loc;
  e->depth = 1;
  e->key_idx = -1;
  e->agg_idx = -1;
  e->from_idx = -1;
  e->col_idx = -1;
  return e;
}

/* The one place that knows which fields of an Expr are its children. */
void expr_each_child(const Expr *e, void (*fn)(void *ctx, Expr *child), void *ctx) {
  Expr *const kids[] = {e->lhs, e->rhs, e->third, e->else_, e->filter};
  for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
    if (kids[i])
      fn(ctx, kids[i]);
  for (Expr *a = e->args; a; a = a->next)
    fn(ctx, a);
}

typedef struct Walk {
  bool (*fn)(void *ctx, const Expr *e);
  void *ctx;
} Walk;

static void walk_child(void *w, Expr *child) { expr_walk(child, ((Walk *)w)->fn, ((Walk *)w)->ctx); }

void expr_walk(const Expr *e, bool (*fn)(void *ctx, const Expr *e), void *ctx) {
  if (!e || !fn(ctx, e))
    return;
  Walk w = {fn, ctx};
  expr_each_child(e, walk_child, &w);
}

const char *type_name(Type t, char *buf, size_t n) {
  const char *s;
  switch (t.kind) {
  case TY_BOOL: s = "BOOLEAN"; break;
  case TY_INT: s = "INT"; break;
  case TY_BIGINT: s = "BIGINT"; break;
  case TY_DOUBLE: s = "DOUBLE"; break;
  case TY_VARCHAR:
    snprintf(buf, n, "VARCHAR(%d)", t.len);
    return buf;
  case TY_TIMESTAMP: s = "TIMESTAMP"; break;
  case TY_DATE: s = "DATE"; break;
  case TY_INTERVAL: s = "INTERVAL"; break;
  case TY_NULL: s = "NULL"; break;
  default: s = "<error>"; break;
  }
  snprintf(buf, n, "%s", s);
  return buf;
}

const char *plan_label(const Expr *e, char *buf, size_t n) {
  const char *t = e->text ? e->text : "?";
  if (!e->filter) return t;
  snprintf(buf, n, "%s FILTER (WHERE %s)", t, e->filter->text ? e->filter->text : "?");
  return buf;
}

bool type_is_numeric(Type t) {
  return t.kind == TY_INT || t.kind == TY_BIGINT || t.kind == TY_DOUBLE;
}

bool type_is_integer(Type t) {
  return t.kind == TY_INT || t.kind == TY_BIGINT || t.kind == TY_TIMESTAMP ||
         t.kind == TY_INTERVAL;
}

/* --- dump ------------------------------------------------------------- */

const char *op_text(OpKind op) {
  switch (op) {
  case OP_ADD: return "+";
  case OP_SUB: return "-";
  case OP_MUL: return "*";
  case OP_DIV: return "/";
  case OP_MOD: return "%";
  case OP_EQ: return "=";
  case OP_NE: return "<>";
  case OP_LT: return "<";
  case OP_LE: return "<=";
  case OP_GT: return ">";
  case OP_GE: return ">=";
  case OP_AND: return "AND";
  case OP_OR: return "OR";
  case OP_NEG: return "-";
  case OP_NOT: return "NOT";
  default: return "?";
  }
}

/* 'text' with '' for a quote and \xNN for control bytes */
static void dump_string(FILE *out, const char *s, size_t n) {
  fputc('\'', out);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\'')
      fputs("''", out);
    else if (c < 0x20 || c == 0x7f)
      fprintf(out, "\\x%02x", c);
    else
      fputc(c, out);
  }
  fputc('\'', out);
}

static void dump_type(FILE *out, Type t) {
  char buf[32];
  fputs(type_name(t, buf, sizeof buf), out);
}

static void dump_expr(FILE *out, const Expr *e);
static void dump_select(FILE *out, const Select *s);

static void dump_list(FILE *out, const Expr *e) {
  for (; e; e = e->next) {
    fputc(' ', out);
    dump_expr(out, e);
  }
}

static void dump_expr(FILE *out, const Expr *e) {
  if (!e) {
    fputs("<null>", out);
    return;
  }
  switch (e->kind) {
  case EX_INT:
    fprintf(out, "%" PRId64, e->ival);
    break;
  case EX_DOUBLE: {
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", e->dval);
    /* keep a double recognisable as one */
    fputs(buf, out);
    if (!strpbrk(buf, ".eni"))
      fputs(".0", out);
    break;
  }
  case EX_STRING:
    dump_string(out, e->sval, e->slen);
    break;
  case EX_BOOL:
    fputs(e->ival ? "TRUE" : "FALSE", out);
    break;
  case EX_NULL:
    fputs("NULL", out);
    break;
  case EX_IS_NULL:
    fputs("(", out);
    dump_expr(out, e->lhs);
    fputs(e->ival ? " IS NOT NULL)" : " IS NULL)", out);
    break;
  case EX_INTERVAL:
    fprintf(out, "(interval %" PRId64 ")", e->ival);
    break;
  case EX_DATE:
    fprintf(out, "(date %" PRId64 ")", e->ival);
    break;
  case EX_COLUMN:
    if (e->qual)
      fprintf(out, "%s.", e->qual);
    fputs(e->name, out);
    break;
  case EX_STAR:
    if (e->qual)
      fprintf(out, "%s.", e->qual);
    fputc('*', out);
    break;
  case EX_UNARY:
    fprintf(out, "(%s ", op_text(e->op));
    dump_expr(out, e->lhs);
    fputc(')', out);
    break;
  case EX_BINARY:
    fprintf(out, "(%s ", op_text(e->op));
    dump_expr(out, e->lhs);
    fputc(' ', out);
    dump_expr(out, e->rhs);
    fputc(')', out);
    break;
  case EX_IN:
    fputs("(IN ", out);
    dump_expr(out, e->lhs);
    dump_list(out, e->args);
    fputc(')', out);
    break;
  case EX_IN_SELECT:
    fputs("(IN ", out);
    dump_expr(out, e->lhs);
    fputc(' ', out);
    dump_select(out, e->sub);
    fputc(')', out);
    break;
  case EX_BETWEEN:
    fputs("(BETWEEN ", out);
    dump_expr(out, e->lhs);
    fputc(' ', out);
    dump_expr(out, e->rhs);
    fputc(' ', out);
    dump_expr(out, e->third);
    fputc(')', out);
    break;
  case EX_CASE:
    fputs("(CASE", out);
    dump_list(out, e->args);
    if (e->else_) {
      fputs(" (ELSE ", out);
      dump_expr(out, e->else_);
      fputc(')', out);
    }
    fputc(')', out);
    break;
  case EX_WHEN:
    fputs("(WHEN ", out);
    dump_expr(out, e->lhs);
    fputc(' ', out);
    dump_expr(out, e->rhs);
    fputc(')', out);
    break;
  case EX_CAST:
    fputs("(CAST ", out);
    dump_expr(out, e->lhs);
    fputc(' ', out);
    dump_type(out, e->cast_to);
    fputc(')', out);
    break;
  case EX_CALL:
    fprintf(out, "(%s", e->name);
    dump_list(out, e->args);
    fputc(')', out);
    break;
  case EX_WINDOW_START:
    fputs("WINDOW_START", out);
    break;
  case EX_WINDOW_END:
    fputs("WINDOW_END", out);
    break;
  case EX_ROW_NUMBER:
    fputs("ROW_NUMBER", out);
    break;
  case EX_BRANCH:
    fputs("COPY", out);
    break;
  }
}

static void dump_options(FILE *out, const Option *o) {
  if (!o)
    return;
  fputs(" (with", out);
  for (; o; o = o->next) {
    fprintf(out, " (%s ", o->key);
    dump_expr(out, o->value);
    fputc(')', out);
  }
  fputc(')', out);
}

static void dump_columns(FILE *out, const ColumnDef *c) {
  fputs(" (cols", out);
  for (; c; c = c->next) {
    fprintf(out, " (%s ", c->name);
    dump_type(out, c->type);
    if (c->gen) {
      fputs(" (gen ", out);
      dump_expr(out, c->gen);
      fputc(')', out);
    }
    fputc(')', out);
  }
  fputc(')', out);
}

static void dump_from(FILE *out, const char *tag, const FromItem *f) {
  fprintf(out, " (%s %s", tag, f->name);
  if (f->alias)
    fprintf(out, " %s", f->alias);
}

static void dump_select(FILE *out, const Select *s) {
  fputs("(select (items", out);
  for (const SelectItem *it = s->items; it; it = it->next) {
    fputc(' ', out);
    if (it->alias) {
      fputs("(as ", out);
      dump_expr(out, it->expr);
      fprintf(out, " %s)", it->alias);
    } else {
      dump_expr(out, it->expr);
    }
  }
  fputc(')', out);
  dump_from(out, "from", &s->from[0]);
  fputc(')', out);
  if (s->nfrom > 1) {
    dump_from(out, "join", &s->from[1]);
    fputs(" (on ", out);
    dump_expr(out, s->join_on);
    fputs("))", out);
  }
  if (s->where) {
    fputs(" (where ", out);
    dump_expr(out, s->where);
    fputc(')', out);
  }
  if (s->group_by) {
    fputs(" (group-by", out);
    dump_list(out, s->group_by);
    fputc(')', out);
  }
  if (s->window) {
    const WindowSpec *w = s->window;
    static const char *const kinds[] = {"none", "tumbling", "hopping", "session"};
    fprintf(out, " (window %s", kinds[w->kind]);
    if (w->size) {
      fputc(' ', out);
      dump_expr(out, w->size);
    }
    if (w->advance) {
      fputc(' ', out);
      dump_expr(out, w->advance);
    }
    if (w->gap) {
      fputc(' ', out);
      dump_expr(out, w->gap);
    }
    fputc(')', out);
  }
  if (s->having) {
    fputs(" (having ", out);
    dump_expr(out, s->having);
    fputc(')', out);
  }
  fputc(')', out);
}

static void dump_stmt(FILE *out, const Stmt *st) {
  switch (st->kind) {
  case ST_CREATE_STREAM:
  case ST_CREATE_TABLE:
    fprintf(out, "(%s %s", st->kind == ST_CREATE_STREAM ? "create-stream" : "create-table",
            st->name);
    dump_columns(out, st->cols);
    if (st->wm) {
      fprintf(out, " (watermark %s ", st->wm->column);
      dump_expr(out, st->wm->expr);
      fputc(')', out);
    }
    if (st->pkey)
      fprintf(out, " (key %s)", st->pkey);
    dump_options(out, st->opts);
    fputc(')', out);
    break;
  case ST_CREATE_STREAM_AS:
    fprintf(out, "(create-stream-as %s ", st->name);
    dump_select(out, st->select);
    fputc(')', out);
    break;
  case ST_CREATE_SINK:
    fprintf(out, "(create-sink %s", st->name);
    dump_options(out, st->opts);
    fputc(')', out);
    break;
  case ST_SELECT:
    dump_select(out, st->select);
    break;
  case ST_INSERT:
    fprintf(out, "(insert %s ", st->name);
    dump_select(out, st->select);
    fputc(')', out);
    break;
  }
}

void ast_dump(FILE *out, const Program *p) {
  for (const Stmt *st = p->stmts; st; st = st->next) {
    dump_stmt(out, st);
    fputc('\n', out);
  }
}
