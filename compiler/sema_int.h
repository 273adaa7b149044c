/* sema_int.h - what the files of the checker share (sema.c: helpers,
 * catalog, statements, paths; sema_expr.c: expressions; sema_select.c:
 * SELECT, aggregates, joins, windows; sema_warn.c: warnings; sema_ddl.c:
 * WITH options, columns, sources, tables and sinks).
 */
#ifndef SEMA_INT_H
#define SEMA_INT_H

#include "airc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct Sema {
  Arena *arena;       /* everything sema allocates */
  Diag *d;            /* where errors go */
  Catalog *cat;       /* relations declared so far */
  const char **why_cache; /* record_options: a refusal's text per (relation kind, kind, option) */
  const Stmt *owner;  /* the statement being checked (a WITH query's: its owner's) */
} Sema;

/* A growable array of pointers in the arena (old blocks are left behind;
 * the arena frees them all at once). */
typedef struct PtrVec {
  void **v;
  int n, cap;
} PtrVec;

typedef struct Names {
  const char **v; /* candidate names (borrowed) */
  int n, cap;
} Names;

typedef enum {
  CL_SELECT,   /* select list: aggregates and window pseudo-columns allowed */
  CL_WHERE,    /* WHERE */
  CL_ON,       /* JOIN ON */
  CL_GROUP_BY, /* GROUP BY */
  CL_HAVING,   /* HAVING: like the select list */
  CL_SUBQUERY, /* x IN (SELECT ... FROM table WHERE ...): over the table's rows, no aggregate */
} Clause;

/* What names mean inside one SELECT. */
/* An interval join's bounds of from[1].ts - from[0].ts (sema_select.c) */
typedef struct TimeBounds {
  bool lo_set, hi_set;
  int64_t lo, hi;
  SrcLoc loc; /* the first bounding conjunct */
} TimeBounds;

typedef struct Scope {
  Sema *s;
  Select *sel;
  Relation *rel[2];    /* FROM items' relations (NULL if unresolved) */
  const char *qual[2]; /* the name each item is qualified by */
  int nfrom;
  bool bad_from;       /* some FROM item failed: unknown names are cascades */
  Clause clause;       /* clause being checked */
  bool in_agg;         /* inside an aggregate's argument */
  TimeBounds tb;       /* ON's and WHERE's bounds of one stream's event time by the other's */
  PtrVec tb_on;        /* ON's conjuncts read as such bounds (a regular join's filters when they bound one way) */
} Scope;

static inline Type mk_type(TypeKind k) { return (Type){.kind = k, .len = 0}; }
static inline Type mk_varchar(int len) { return (Type){.kind = TY_VARCHAR, .len = len}; }
static inline bool is_err(Type t) { return t.kind == TY_ERROR; }
static inline bool is_sql_int(Type t) { return t.kind == TY_INT || t.kind == TY_BIGINT; }
static inline bool is_num(Type t) {
  return t.kind == TY_INT || t.kind == TY_BIGINT || t.kind == TY_DOUBLE;
}
static inline const char *tyname(Type t, char *buf) { return type_name(t, buf, 32); }

/* Each function below is defined in the file its group names. */
/* sema.c: helpers, "did you mean", the catalog */
void vec_push(Arena *a, PtrVec *pv, void *p);
Type promote(Type a, Type b);
bool comparable(Type a, Type b);
bool common_type(Type a, Type b, Type *out);
int list_len(Expr *e);
bool const_int(const Expr *e, int64_t *out);
const char *rel_kind_name(const Relation *r);
void names_add(Arena *a, Names *ns, const char *name);
void suggest_note(Sema *s, SrcLoc loc, const char *word, const Names *ns);
void suggest_from_list(Sema *s, SrcLoc loc, const char *word, const char *const *list, int n);
void suggest_relation(Sema *s, SrcLoc loc, const char *name, unsigned kinds);
void catalog_add(Sema *s, Relation *r);
bool is_broken(const Relation *r);
void mark_broken(Sema *s, Relation *r);
int find_col(const Relation *r, const char *name);
Relation *new_relation(Sema *s, Stmt *st, RelKind kind);
bool check_new_name(Sema *s, Stmt *st);
/* A FROM name: a WITH query or subquery of the statement being checked
 * first (they hide declared names), then the declared relations. */
Relation *scope_find(Sema *s, const char *name);

/* sema_expr.c: expressions */
Type check_expr(Scope *sc, Expr *e);
void init_ann(Expr *e);
const char *expr_label(const Expr *e);
int qual_index(Scope *sc, const char *qual);
void unknown_qualifier(Scope *sc, Expr *e);
void note_decl(Scope *sc, const Expr *e);
bool expr_equal(const Expr *a, const Expr *b);

/* sema_select.c: SELECT */
void check_select(Sema *s, Select *sel, SrcLoc **out_locs, const char *stream);

/* sema_warn.c: warnings */
void warn_window(Scope *sc);
void warn_hopping(Sema *s, WindowSpec *w);
void warn_conditions(Sema *s, Select *sel);
void warn_unused(Sema *s);

/* sema_ddl.c: CREATE STREAM, TABLE, SINK */
void check_source(Sema *s, Stmt *st);
void check_table(Sema *s, Stmt *st);
void check_sink(Sema *s, Stmt *st);

#endif /* SEMA_INT_H */
