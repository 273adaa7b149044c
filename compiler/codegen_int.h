/* codegen_int.h - what the files of the code generator share. codegen.c
 * holds the buffers, escaping, C types, #line directives and the program's
 * assembly (codegen_emit); cg_expr.c expressions, IN sets and the
 * aggregate emitters; cg_types.c the per-query structs, csv parsing and
 * tables; cg_rows.c the row-by-row code of pipelines; cg_vertices.c the
 * source loops, consumer stages and the collector.
 */
#ifndef CODEGEN_INT_H
#define CODEGEN_INT_H

#include "airc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Buf {
  char *p;  /* text (malloc'd by open_memstream) */
  size_t n; /* length */
  FILE *f;  /* write end */
} Buf;

/* airc -g: code that map_begin's FILE receives is the query's line `line`,
 * every C line of it (map_end writes a #line before each, then one back to
 * the C). Without -g map_begin returns out itself and map_end does nothing. */
typedef struct Mapped {
  Buf b;     /* the code, under -g */
  FILE *out; /* where it goes */
  int line;  /* its query line */
  bool on;   /* -g */
} Mapped;

extern const CodegenOptions *g_opt; /* this run's options (never NULL while emitting) */
#define C_LINE_MARK "#line @C@" /* a line codegen_emit numbers: back to the C file */

/* Where the columns of a FROM item live in the code being written. */
typedef enum {
  HOME_NONE,       /* not here: a reference reads as 0 */
  HOME_SOURCE,     /* the source loop's row: s.c<i> */
  HOME_DERIVED,    /* a derived stream's result row: r->o<i> */
  HOME_EDGE,       /* a row between pipelines: r->f<f>c<i> */
  HOME_TABLE,      /* the row a StaticJoin found: t->c<i> */
  HOME_JOIN_LEFT,  /* a join's left row: l->f0c<i> */
  HOME_JOIN_RIGHT, /* a join's right row: rr->f1c<i> */
} ColHome;

struct Ctx {
  const Select *sel;
  bool post;                /* after aggregation: keys, aggregates, window bounds */
  ColHome home[2];          /* where each FROM item's columns are */
  int implicit_ts[2];       /* a derived stream's implicit ts column index, or -1 */
  const char *ts_ref[2];    /* ... and where it lives */
  const char *key;          /* post: the key struct pointer */
  const char *acc;          /* post: the accumulator pointer */
  const char *wstart, *wend; /* window bounds in scope (NULL: none) */
  const char *row_ts;       /* an aggregate's update: the row's event time */
  const char *weight;       /* a row of an updating stream: +1 or -1 (its op), or NULL (always +1) */
};

/* cg_expr.c: the IN sets written so far (codegen_emit resets them). */
extern FILE *g_in_decls;
extern const Expr **g_in_exprs; /* the IN expressions written so far, by id */
extern int g_in_n, g_in_cap;
extern FILE *g_in_setup; /* main()'s setup, where the IN (SELECT ...) sets are made */

typedef struct Gen {
  const Physical *ph;
  const Plan *pl;
  Diag *d;
  Buf types;      /* struct definitions and tables */
  Buf funcs;      /* vertex functions */
  Buf setup;      /* main()'s body */
  bool ok;
} Gen;

static inline const Operator *stage_ops(const Stage *st) { return st->leg ? st->chain->ops1 : st->chain->ops; }
static inline const Operator *stage_op(const Stage *st, int i) { return &stage_ops(st)[i]; }
static inline bool is_sink_stage(const Stage *st) { return stage_op(st, st->first)->kind == OP_SINK; }
static inline bool is_join_stage(const Stage *st) {
  return st->leg == 0 && st->chain->join_at >= 0 && st->first == st->chain->join_at;
}
/* The relation a stage's Source reads (leg 0: from[0], leg 1: from[1]). */
/* A regular join's kept rows hold their source's watermark when read: a
 * derived stream's pair takes the latest of both (cg_rows.c). */
static inline bool join_keeps_srcwm(const Chain *ch) { return ch->sel->regular_join && ch->derived; }
static inline const Relation *leg_source(const Stage *st) { return st->leg ? st->chain->source1 : st->chain->source; }
static inline bool in_source_loop(const Stage *st) { return st->edge < 0; }
static inline const Chain *derived_chain(const Plan *pl, const Relation *r) {
  for (int c = 0; c < pl->nchains; c++)
    if (pl->chains[c].derived == r) return &pl->chains[c];
  return NULL;
}

/* What the row-by-row code of a pipeline needs to know. */
typedef struct SegEnv {
  const char *cnt;     /* counter prefix: "st." in sources, "" in stages */
  const char *wm;      /* the watermark a late row is behind */
  const char *outs;    /* printf format of the port of edge %d */
  const char *win;     /* the window or session state (aggregating pipelines) */
  const char *ts;      /* the row's event time */
  const char *late_fill; /* generators: columns made only for rows passing the first Filter */
  bool dense;          /* the window state is an AirDense (dense_key) */
  const char *slide;   /* sliced windows (StateShape.slice_ms): the AirSlide; NULL when not */
  bool own_wm;         /* wm is the stage's own watermark, which moved the slide's cut */
  const char *raw_port; /* an adaptive partial's port to the final stage, else NULL */
  int stage_id;        /* with raw_port: the pipeline, whose staged rows are st.stg<id> */
  const char *grace_win;  /* a GRACE PERIOD's late buckets (AirWindows) of a stage that closes windows, or NULL */
  const char *grace_port; /* ... of a partial: its port to the final stage, where late rows go as partials */
  const char *grace_kept; /* ... the accumulators of the rows written at each window's end, until end + grace */
  Ctx cx;              /* where columns live */
  const char *op;      /* the change a row is (AIR_OP_*, C) for rows that carry one, else NULL: r->op if retracting */
} SegEnv;

/* A chain whose closed windows' tables are sorted by group key before
 * their rows go to the collector (cmp_K, air_hash_sort). */
static inline bool sorts_window_keys(const Chain *ch) {
  return ch->windowed && ch->join_at < 0 && !ch->derived && !ch->session && !chain_slice_ms(ch) &&
         ch->sel->nkeys > 0 && !ch->sel->order_by; /* ORDER BY: the collector sorts */
}

/* A source pipeline whose per-rank partial is adaptive (raw_port): it
 * stages rows when its tables are past the caches (window.c's
 * air_windows_staging) and sends them on unaggregated when
 * pre-aggregating does not pay. */
static inline bool stage_is_adaptive(const Stage *st) {
  return in_source_loop(st) && st->partial && st->state.kind == STATE_WINDOWS && !st->state.slice_ms &&
         st->nouts == 1 && st->chain->sel->nkeys > 0;
}

/* Each function below is defined in the file its group names. */
/* codegen.c: buffers, escaping, C types, #line, the program */
void buf_open(Buf *b);
char *buf_take(Buf *b);
void c_str(FILE *out, const char *s);
void c_comment(FILE *out, const char *s);
void src_line(FILE *o, int line);
void c_line(FILE *o);
FILE *map_begin(Mapped *m, FILE *out, int line);
void map_end(Mapped *m);
void text_comment(FILE *o, const char *ind, const char *what, const Expr *e);
const char *ctype(Type t);
void field_decl(FILE *out, Type t, const char *name, const char *comment);
void indent_more(char *dst, size_t n, const char *ind);
bool is_int32(Type t);
bool is_i64(Type t);
void edge_row_type(const Physical *ph, int e, char *buf, size_t n);
void stage_ctx(const Stage *st, Ctx *cx, bool in_loop);

/* cg_expr.c: expressions, IN sets, aggregate emitters */
void colref(char *buf, size_t n, const Ctx *cx, int f, int c);
void emit_expr(FILE *out, const Expr *e, const Ctx *cx);
void emit_cond(FILE *out, const Expr *e, const Ctx *cx);  /* a condition: NULL counts as false */
void emit_null_cond(FILE *out, const Expr *e, const Ctx *cx); /* C: e is NULL */
const char *null_value(Type t);                           /* C of a NULL of type t */
const char *null_test(Type t);                            /* q_isnull_* for type t */
void emit_as(FILE *out, const Expr *e, Type t, const Ctx *cx);
const char *order_fn(Type t); /* cg_types.c: the C comparison that orders result rows by a value of type t */
const char *order_item_fn(Type t, const OrderItem *oi); /* ... by an ORDER BY item's, NULLS FIRST or LAST */
bool is_padded_array(const Expr *e, const Ctx *cx);
bool exact_sum(const Expr *a);
void emit_assign(FILE *out, const char *indent, const char *dst, const Expr *e, Type t, const Ctx *cx);

/* cg_types.c: per-query structs, csv parsing, tables */
Type join_key_type(const Select *s);
void emit_chain_types(Gen *g, const Chain *ch);
char *csv_header(const Select *s);
bool source_col_used(const Plan *pl, const Relation *r, int col);
void emit_source_struct(Gen *g, const Relation *r);
void emit_csv_parse(FILE *o, const Relation *r, const char *var, const char *indent, const char *csv, const char *skip);
int csv_fields(const Relation *r);
/* Run-time options (codegen.c): row k of r in the program's option table;
 * `lhs = fn(g_rt, row);` at indent ind+2 when r's kind takes option k (true). */
static inline int opt_row(const Relation *r, OptionKey k) { return r->opt_base + (int)k; }
bool opt_read(FILE *o, const char *ind, const char *lhs, const char *fn, const Relation *r, OptionKey k);
void emit_csv_open(FILE *o, const Relation *r, const char *path, bool single, const char *lhs, const char *ind);
void emit_table(Gen *g, const Relation *r);

/* cg_rows.c: row code of pipelines */
void emit_acc_merge(FILE *o, const Chain *ch, const char *ind);
void emit_join_insert(FILE *o, const Chain *ch, const SegEnv *env, int side, const char *ind);
void emit_interval_join_row(Gen *g, FILE *o, const Stage *st, const SegEnv *env, int side, const char *ind);
void emit_ops(Gen *g, FILE *o, const Stage *st, int from, int to, SegEnv *env, const char *ind);
void emit_window_result(FILE *o, const Stage *st, const SegEnv *env, const char *ind, const char *skip);
void emit_close_windows(Gen *g, FILE *o, const Stage *st, const SegEnv *env, const char *ind);
void emit_forward_wm(FILE *o, const Stage *st, const char *outs, const char *ind);

/* cg_vertices.c: source loops, consumer stages, the collector */
void emit_source(Gen *g, const Relation *r);
void emit_stage(Gen *g, const Stage *st);

#endif /* CODEGEN_INT_H */
