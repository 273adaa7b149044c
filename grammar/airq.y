/* airq.y - the grammar of AIRQ (see docs/language.md) and parse_program().
 *
 * A pure, location-tracking LALR(1) parser. Every node is allocated from the
 * caller's arena and keeps its source location. Errors are recovered at
 * statement level (`error ';'`), so one run reports several of them;
 * anything an action rejects (a bad VARCHAR length, an out-of-range literal,
 * too deep a nesting) is reported with its location and drops the statement.
 */

%define api.pure full
%define api.prefix {airq}
%define api.token.prefix {TOK_}
%define api.location.type {AirqLoc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0

%param {yyscan_t scanner}
%parse-param {ParseState *ps}

%code requires {
#include "parse.h"
}

%code provides {
/* flex's header names bison's types without the prefix */
#ifndef YYSTYPE
#define YYSTYPE AIRQSTYPE
#endif
#ifndef YYLTYPE
#define YYLTYPE AIRQLTYPE
#endif
int airqlex(AIRQSTYPE *lval, AIRQLTYPE *lloc, yyscan_t scanner);
}

%code {
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lex.airq.h"

/* Source spans: first/last from the first/last symbol; an empty rule sits
 * at the end of what came before it. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                          \
  do {                                                                       \
    if (N) {                                                                 \
      (Cur).first_line = YYRHSLOC(Rhs, 1).first_line;                        \
      (Cur).first_column = YYRHSLOC(Rhs, 1).first_column;                    \
      (Cur).first_len = YYRHSLOC(Rhs, 1).first_len;                          \
      (Cur).first_off = YYRHSLOC(Rhs, 1).first_off;                          \
      (Cur).last_line = YYRHSLOC(Rhs, N).last_line;                          \
      (Cur).last_column = YYRHSLOC(Rhs, N).last_column;                      \
      (Cur).last_off = YYRHSLOC(Rhs, N).last_off;                            \
    } else {                                                                 \
      (Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line;       \
      (Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
      (Cur).first_off = (Cur).last_off = YYRHSLOC(Rhs, 0).last_off;          \
      (Cur).first_len = 1;                                                   \
    }                                                                        \
  } while (0)

/* An action that rejects its input: the error is already reported. */
#define CHECK(x)  \
  do {            \
    if (!(x))     \
      YYERROR;    \
  } while (0)

#define APPEND(list, item)        \
  do {                            \
    if ((list).tail)              \
      (list).tail->next = (item); \
    else                          \
      (list).head = (item);       \
    (list).tail = (item);         \
  } while (0)

static void airqerror(AIRQLTYPE *loc, yyscan_t scanner, ParseState *ps, const char *msg);

}

%union {
  const char *str;     /* identifiers, keywords as written; literals */
  Expr *expr;
  ExprList exprs;
  OpKind op;
  Type type;
  Stmt *stmt;
  Select *sel;
  SelectItem *item;
  ItemList items;
  ColumnDef *col;
  Option *opt;
  OptList opts;
  Elem *elem;
  ElemList elems;
  WindowSpec *win;
  GroupWin gw;
  JoinPart join;
  bool flag;
  int kind;
  FromItem from;
  OrderItem *ord;
  OrderList ords;
  OrderLimit ordlim;
  EmitPart emit;
  TtlPart ttl;
}

/* literals and names */
%token <str> IDENT    "identifier"
%token <str> INTEGER  "integer literal"
%token <str> DECIMAL  "number"
%token <str> STRING   "string literal"

/* reserved words */
%token <str> SELECT "SELECT" FROM "FROM" WHERE "WHERE" GROUP "GROUP" BY "BY"
%token <str> HAVING "HAVING" WINDOW "WINDOW" JOIN "JOIN" ON "ON" AS "AS"
%token <str> AND "AND" OR "OR" NOT "NOT" IN "IN" BETWEEN "BETWEEN"
%token <str> CASE "CASE" WHEN "WHEN" THEN "THEN" ELSE "ELSE" END "END" CAST "CAST"
%token <str> CREATE "CREATE" INSERT "INSERT" INTO "INTO" WITH "WITH" LIKE "LIKE"
%token <str> ORDER "ORDER" LIMIT "LIMIT" FILTER "FILTER" CURRENT_TIMESTAMP "CURRENT_TIMESTAMP"
%token <str> CURRENT_DATE "CURRENT_DATE"
%token <str> NULL_ "NULL" IS "IS" LEFT "LEFT" RIGHT "RIGHT" FULL "FULL" OUTER "OUTER" INNER "INNER" DISTINCT "DISTINCT" OVER "OVER"
%token <str> TRUE "TRUE" FALSE "FALSE" INTERVAL "INTERVAL"
%token <str> WINDOW_START "WINDOW_START" WINDOW_END "WINDOW_END" WINDOW_TIME "WINDOW_TIME" EMIT "EMIT"
%token <str> PRIMARY "PRIMARY" WATERMARK "WATERMARK" FOR "FOR" GENERATED "GENERATED"

/* words that are keywords in one place and may be names everywhere else */
%token <str> STREAM "STREAM" TABLE "TABLE" SINK "SINK" KEY "KEY"
%token <str> METADATA "METADATA" VIRTUAL "VIRTUAL"
%token <str> SIZE "SIZE" ADVANCE "ADVANCE" GAP "GAP" GRACE "GRACE" PERIOD "PERIOD"
%token <str> TUMBLING "TUMBLING" HOPPING "HOPPING" SESSION "SESSION"
%token <str> ASC "ASC" DESC "DESC" NULLS "NULLS" FIRST "FIRST" LAST "LAST"
%token <str> UNIT "time unit" TYPENAME "type name" VARCHAR "VARCHAR"

/* operators */
%token NE "<>" LE "<=" GE ">=" CONCAT "||"

%type <str> ident opt_key opt_alias meta opt_virtual out_name col_word
%type <expr> expr and_expr not_expr pred arith term factor primary literal
%type <expr> column call interval duration when opt_else gen position_arg
%type <exprs> durations opt_partition
%type <exprs> expr_list when_list
%type <op> cmp_op
%type <type> type
%type <stmt> create_stream create_table create_sink insert
%type <sel> select query
%type <from> from_item
%type <item> select_item
%type <items> select_list
%type <col> column_def
%type <opt> option
%type <opts> options opt_with
%type <elem> elem
%type <elems> elems
%type <win> window_spec
%type <gw> group_window
%type <join> opt_join
%type <flag> opt_not_null opt_pkey
%type <kind> join_kind
%type <expr> opt_where opt_having opt_grace
%type <ord> order_item
%type <kind> opt_dir opt_nulls
%type <ords> order_list
%type <ordlim> opt_order_limit
%type <ordlim> opt_limit
%type <emit> opt_emit
%type <ttl> opt_state_ttl
%type <str> unit

%%

// program = stmt*
program:
  %empty
| program stmt
;

// stmt = (create | select | insert)? ";"
stmt:
  create_stream ';' { build_add_stmt(ps, $1); }
| create_table ';'  { build_add_stmt(ps, $1); }
| create_sink ';'   { build_add_stmt(ps, $1); }
| insert ';'        { build_add_stmt(ps, $1); }
| query ';' {
    Stmt *s = build_stmt(ps, ST_SELECT, &@1, NULL, NULL);
    s->loc = $1->loc; /* the SELECT keyword, not the whole query */
    s->select = $1;
    build_add_stmt(ps, s);
  }
| ';'
| error ';' { yyerrok; build_drop_subqueries(ps); }
;

// create_stream = "CREATE" "STREAM" ident ( "(" elems ")" opt_with | "AS" select )
create_stream:
  CREATE STREAM ident '(' elems ')' opt_with {
    $$ = build_stmt(ps, ST_CREATE_STREAM, &@1, $3, &@3);
    CHECK(build_take_elems(ps, $$, $5.head));
    $$->opts = $7.head;
  }
| CREATE STREAM ident AS query {
    $$ = build_stmt(ps, ST_CREATE_STREAM_AS, &@1, $3, &@3);
    $$->select = $5;
  }
;

// create_table = "CREATE" "TABLE" ident "(" elems ")" opt_with
create_table:
  CREATE TABLE ident '(' elems ')' opt_with {
    $$ = build_stmt(ps, ST_CREATE_TABLE, &@1, $3, &@3);
    CHECK(build_take_elems(ps, $$, $5.head));
    $$->opts = $7.head;
  }
;

// create_sink = "CREATE" "SINK" ident opt_with
create_sink:
  CREATE SINK ident opt_with {
    $$ = build_stmt(ps, ST_CREATE_SINK, &@1, $3, &@3);
    $$->opts = $4.head;
  }
;

// insert = "INSERT" "INTO" ident select
insert:
  INSERT INTO ident query {
    $$ = build_stmt(ps, ST_INSERT, &@1, $3, &@3);
    $$->select = $4;
  }
;

// elems = elem ("," elem)*
elems:
  elem           { $$.head = $$.tail = NULL; APPEND($$, $1); }
| elems ',' elem { $$ = $1; APPEND($$, $3); }
;

// elem = column_def | "WATERMARK" "FOR" ident "AS" expr | "PRIMARY" "KEY" "(" ident ")"
elem:
  column_def {
    $$ = arena_alloc(ps->arena, sizeof(Elem));
    $$->kind = EL_COLUMN;
    $$->loc = $1->loc;
    $$->col = $1;
  }
| WATERMARK FOR ident AS expr {
    $$ = arena_alloc(ps->arena, sizeof(Elem));
    $$->kind = EL_WATERMARK;
    $$->loc = airq_srcloc(&@1);
    $$->wm = arena_alloc(ps->arena, sizeof(WatermarkDef));
    $$->wm->column = $3;
    $$->wm->loc = airq_srcloc(&@3);
    $$->wm->expr = $5;
  }
| PRIMARY KEY '(' ident ')' opt_not_enforced {
    $$ = arena_alloc(ps->arena, sizeof(Elem));
    $$->kind = EL_PKEY;
    $$->loc = airq_srcloc(&@1);
    $$->key = $4;
    $$->key_loc = airq_srcloc(&@4);
  }
;

// column_def = ident type ("GENERATED" "BY" call)? ("METADATA" ("FROM" string)? "VIRTUAL"?)?
//            | ident "AS" "PROCTIME" "(" ")"
column_def:
  ident type opt_not_null opt_pkey gen meta {
    $$ = arena_alloc(ps->arena, sizeof(ColumnDef));
    $$->name = $1;
    $$->loc = airq_srcloc(&@1);
    $$->type = $2;
    $$->type_loc = airq_srcloc(&@2);
    $$->not_null = $3;
    $$->pkey = $4;
    $$->gen = $5;
    $$->meta_key = $6;
    if ($6) $$->meta_loc = airq_srcloc(&@6);
  }
| ident AS expr { /* a computed column: Flink's `p AS PROCTIME()` alone */
    $$ = arena_alloc(ps->arena, sizeof(ColumnDef));
    $$->name = $1;
    $$->loc = airq_srcloc(&@1);
    $$->type = (Type){.kind = TY_TIMESTAMP};
    $$->type_loc = airq_srcloc(&@3);
    $$->not_null = true;
    if ($3->kind != EX_CALL || strcasecmp($3->name, "PROCTIME") != 0 || $3->args) {
      airq_error_at(ps, &@3, "a computed column is taken only as PROCTIME() (processing time); compute other "
                             "values in the queries over the stream");
      YYERROR;
    }
    $$->proctime = true;
  }
;

opt_not_null: %empty { $$ = false; } | NOT NULL_ { $$ = true; } | NULL_ { $$ = false; };

// Flink SQL's inline key: `sku VARCHAR(8) PRIMARY KEY NOT ENFORCED`
opt_pkey: %empty { $$ = false; } | PRIMARY KEY opt_not_enforced { $$ = true; };

// Flink SQL's NOT ENFORCED (airc's tables keep one row per key: the last)
opt_not_enforced:
  %empty
| NOT IDENT {
    if (strcasecmp($2, "ENFORCED") != 0) {
      airq_error_at(ps, &@2, "expected ENFORCED after PRIMARY KEY ... NOT");
      YYERROR;
    }
  }
;

// Flink SQL's metadata column: `ts TIMESTAMP METADATA FROM 'timestamp'`
// (without FROM the key is the column's name; "" here)
meta:
  %empty                            { $$ = NULL; }
| METADATA opt_virtual              { $$ = ""; }
| METADATA FROM STRING opt_virtual  { $$ = $3; }
;

opt_virtual: %empty { $$ = NULL; } | VIRTUAL { $$ = $1; };

gen:
  %empty            { $$ = NULL; }
| GENERATED BY call { $$ = $3; }
;

// type = BOOLEAN | INT | INTEGER | BIGINT | DOUBLE | TIMESTAMP | STRING
//      | "VARCHAR" ("(" integer ")")? | TIMESTAMP "(" 3 ")"; DECIMAL(p, s) is refused
type:
  TYPENAME                                { CHECK(build_type(ps, &@1, $1, NULL, NULL, &$$)); }
| TYPENAME '(' INTEGER ')'                { CHECK(build_type(ps, &@1, $1, $3, &@3, &$$)); }
| TYPENAME '(' INTEGER ',' INTEGER ')'    { CHECK(build_type(ps, &@1, $1, $3, &@3, &$$)); }
| VARCHAR '(' INTEGER ')'                 { CHECK(build_varchar(ps, &@3, $3, &$$)); }
| VARCHAR                                 { CHECK(build_type(ps, &@1, "STRING", NULL, NULL, &$$)); }
;

// opt_with = ("WITH" "(" option ("," option)* ")")?
opt_with:
  %empty                { $$.head = $$.tail = NULL; }
| WITH '(' options ')'  { $$ = $3; }
;

options:
  option             { $$.head = $$.tail = NULL; APPEND($$, $1); }
| options ',' option { $$ = $1; APPEND($$, $3); }
;

// option = (ident | string) "=" (string | ["-"] number | TRUE | FALSE)
// (a quoted key as Flink SQL writes them: 'kafka.fetch.wait.max.ms' = '50')
option:
  opt_key '=' literal {
    $$ = arena_alloc(ps->arena, sizeof(Option));
    $$->key = $1;
    $$->loc = airq_srcloc(&@1);
    $$->value = $3;
  }
| opt_key '=' '-' literal {
    $$ = arena_alloc(ps->arena, sizeof(Option));
    $$->key = $1;
    $$->loc = airq_srcloc(&@1);
    if ($4->kind != EX_INT && $4->kind != EX_DOUBLE) {
      airq_error_at(ps, &@4, "only a number can be negative");
      YYERROR;
    }
    /* the value spans '-' and the number */
    AirqLoc l = @3;
    l.last_line = @4.last_line;
    l.last_column = @4.last_column;
    l.last_off = @4.last_off;
    $$->value = build_unary(ps, &l, OP_NEG, $4);
  }
;

// select = "SELECT" items "FROM" from_item join? ("WHERE" expr)? group_window ("HAVING" expr)?
select:
  SELECT select_list FROM from_item opt_join opt_where group_window opt_having opt_order_limit opt_emit opt_state_ttl {
    $$ = arena_alloc(ps->arena, sizeof(Select));
    $$->loc = airq_srcloc(&@1);
    $$->items = $2.head;
    $$->from[0] = $4;
    $$->nfrom = 1;
    if ($5.present) {
      $$->from[1] = $5.item;
      $$->nfrom = 2;
      $$->join_on = $5.on;
      $$->comma_join = $5.comma;
      $$->left_join = $5.kind & JOIN_KEEP_LEFT;
      $$->right_join = $5.kind & JOIN_KEEP_RIGHT;
    }
    $$->where = $6;
    $$->group_by = $7.group_by;
    $$->window = $7.window;
    CHECK(build_tvf_window(ps, $$));
    $$->having = $8;
    $$->order_by = $9.order;
    if ($9.has_limit) {
      $$->limit = $9.limit;
      $$->limit_loc = airq_srcloc(&$9.limit_loc);
    }
    $$->emit = $10.mode;
    $$->emit_every = $10.every;
    $$->emit_loc = airq_srcloc(&$10.loc);
    $$->state_ttl = $11.ttl;
    $$->state_ttl_loc = airq_srcloc(&$11.loc);
    CHECK($$ = build_row_number(ps, $$));
    CHECK($$ = build_join_agg(ps, $$));
    CHECK($$ = build_distinct(ps, $$));
  }
;

// opt_emit = ("EMIT" ("FINAL" | "CHANGES" | "EVERY" duration))?: when an
// updating query (GROUP BY without WINDOW) writes its changes; a window's
// result is written once, when it closes (EMIT FINAL)
opt_emit:
  %empty { $$.mode = EMIT_NONE; $$.every = NULL; $$.loc = @$; }
| EMIT IDENT { $$.mode = build_emit(ps, &@2, $2, false); $$.every = NULL; $$.loc = @1; if (!$$.mode) YYERROR; }
| EMIT IDENT duration { $$.mode = build_emit(ps, &@2, $2, true); $$.every = $3; $$.loc = @1; if (!$$.mode) YYERROR; }
;

// opt_state_ttl = ("WITH" "(" "state_ttl" "=" duration ")")?: how long an
// updating query keeps a key (or a join a row) that nothing touched, in
// event time (Flink's table.exec.state.ttl)
opt_state_ttl:
  %empty { $$.ttl = NULL; $$.loc = @$; }
| WITH '(' opt_key '=' duration ')' {
    if (strcasecmp($3, "state_ttl") != 0) {
      airq_error_at(ps, &@3, "a query takes one option, state_ttl (WITH (state_ttl = 1 HOUR)), not '%s'", $3);
      YYERROR;
    }
    $$.ttl = $5;
    $$.loc = @3;
  }
| WITH '(' opt_key '=' STRING ')' {
    if (strcasecmp($3, "state_ttl") != 0) {
      airq_error_at(ps, &@3, "a query takes one option, state_ttl (WITH (state_ttl = 1 HOUR)), not '%s'", $3);
      YYERROR;
    }
    CHECK($$.ttl = build_duration_text(ps, &@5, $5));
    $$.loc = @3;
  }
;

// opt_order_limit = ("ORDER" "BY" order_item ("," order_item)*)? ("LIMIT" integer)?
opt_order_limit:
  opt_limit { $$ = $1; }
| ORDER BY order_list opt_limit { $$ = $4; $$.order = $3.head; }
;

opt_limit:
  %empty { $$.order = NULL; $$.has_limit = false; $$.limit = 0; }
| LIMIT INTEGER {
    $$.order = NULL;
    $$.has_limit = true;
    $$.limit_loc = @2;
    Expr *n = build_int(ps, &@2, $2);
    CHECK(n);
    if (n->ival < 1) {
      airq_error_at(ps, &@2, "LIMIT must be at least 1");
      YYERROR;
    }
    $$.limit = n->ival;
  }
;

order_list:
  order_item                { $$.head = $$.tail = $1; }
| order_list ',' order_item { $$ = $1; $$.tail->next = $3; $$.tail = $3; }
;

// order_item = expr ("ASC" | "DESC")? ("NULLS" ("FIRST" | "LAST"))?
order_item:
  expr opt_dir opt_nulls {
    $$ = arena_alloc(ps->arena, sizeof(OrderItem));
    $$->expr = $1;
    $$->out = -1;
    $$->desc = $2;
    $$->nulls = (OrderNulls)$3;
  }
;

opt_dir:
  %empty { $$ = 0; }
| ASC    { $$ = 0; }
| DESC   { $$ = 1; }
;

opt_nulls:
  %empty      { $$ = NULLS_DEFAULT; }
| NULLS FIRST { $$ = NULLS_FIRST; }
| NULLS LAST  { $$ = NULLS_LAST; }
;

// query = ("WITH" cte ("," cte)*)? select: each named query a derived
// stream seen by this statement alone (build_subquery)
query:
  select
| WITH cte_list select { $$ = $3; }
;

cte_list:
  cte
| cte_list ',' cte
;

// cte = ident "AS" "(" query ")"
cte:
  ident AS '(' query ')' { build_subquery(ps, $1, &@1, $4); }
;

// from_item = ident alias? | "(" query ")" alias?: a subquery is a derived
// stream of its own, named by its alias (or subquery_N)
from_item:
  ident opt_alias { $$ = build_from($1, &@1, $2, &@2); }
| '(' query ')' opt_alias { $$ = build_from_subquery(ps, &@1, $2, $4, &@4); }
// Flink SQL's window TVF: TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), size)), HOP
// (slide, size), SESSION (gap): the stream s with that window
| TABLE '(' ident '(' TABLE ident ',' ident '(' ident ')' ',' durations ')' ')' opt_alias {
    CHECK(build_tvf(ps, &$$, $3, &@3, $6, &@6, $8, &@8, $10, &@10, $13.head, $16, &@16));
  }
;

opt_partition:
  %empty { $$.head = $$.tail = NULL; }
| IDENT BY expr_list {
    if (strcasecmp($1, "PARTITION") != 0) {
      airq_error_at(ps, &@1, "expected PARTITION BY or ORDER BY in OVER (...)");
      YYERROR;
    }
    $$ = $3;
  }
;

durations:
  duration               { $$.head = $$.tail = NULL; APPEND($$, $1); }
| durations ',' duration { $$ = $1; APPEND($$, $3); }
;

select_list:
  select_item                 { $$.head = $$.tail = NULL; APPEND($$, $1); }
| select_list ',' select_item { $$ = $1; APPEND($$, $3); }
;

// select_item = expr ("AS" ident)? | "*" | ident "." "*"
select_item:
  expr {
    $$ = arena_alloc(ps->arena, sizeof(SelectItem));
    $$->expr = $1;
  }
| expr AS out_name {
    $$ = arena_alloc(ps->arena, sizeof(SelectItem));
    $$->expr = $1;
    $$->alias = $3;
    $$->alias_loc = airq_srcloc(&@3);
  }
| '*' {
    $$ = arena_alloc(ps->arena, sizeof(SelectItem));
    $$->expr = build_node(ps, EX_STAR, &@1);
  }
| ident '.' '*' {
    $$ = arena_alloc(ps->arena, sizeof(SelectItem));
    $$->expr = build_node(ps, EX_STAR, &@$);
    $$->expr->qual = $1;
    $$->expr->name_loc = airq_srcloc(&@3);
  }
;

// an output column's name: a name, or window_start, window_end and
// window_time, as Flink's window TVFs name them
out_name: ident | WINDOW_START | WINDOW_END | WINDOW_TIME;

// alias = ("AS")? ident
opt_alias:
  %empty   { $$ = NULL; }
| AS ident { $$ = $2; @$ = @2; }
| ident    { $$ = $1; }
;

// join = "JOIN" ident alias? "ON" expr
opt_join:
  %empty { $$.present = false; }
| ',' from_item { /* FROM a, b WHERE a.k = b.k: the key is found in WHERE */
    $$.present = true;
    $$.comma = true;
    $$.kind = 0;
    $$.item = $2;
    $$.on = NULL;
  }
| join_kind JOIN from_item ON expr {
    $$.present = true;
    $$.comma = false;
    $$.kind = $1;
    $$.item = $3;
    $$.on = $5;
  }
;

// join_kind = ("INNER" | ("LEFT" | "RIGHT" | "FULL") "OUTER"?)?; which sides keep their unmatched rows
join_kind:
  %empty { $$ = 0; } | INNER { $$ = 0; }
| LEFT opt_outer { $$ = JOIN_KEEP_LEFT; }
| RIGHT opt_outer { $$ = JOIN_KEEP_RIGHT; }
| FULL opt_outer { $$ = JOIN_KEEP_LEFT | JOIN_KEEP_RIGHT; }
;
opt_outer: %empty | OUTER;

opt_where:
  %empty     { $$ = NULL; }
| WHERE expr { $$ = $2; }
;

// group_window = ("GROUP" "BY" exprs)? ("WINDOW" spec)?, in either order
group_window:
  %empty                                   { $$.group_by = NULL; $$.window = NULL; }
| GROUP BY expr_list                       { $$.group_by = $3.head; $$.window = NULL; }
| WINDOW window_spec                       { $$.group_by = NULL; $$.window = $2; }
| GROUP BY expr_list WINDOW window_spec    { $$.group_by = $3.head; $$.window = $5; }
| WINDOW window_spec GROUP BY expr_list    { $$.group_by = $5.head; $$.window = $2; }
;

opt_having:
  %empty      { $$ = NULL; }
| HAVING expr { $$ = $2; }
;

// window_spec = "TUMBLING" "(" "SIZE" d [grace] ")" | "HOPPING" "(" "SIZE" d "," "ADVANCE" "BY" d [grace] ")"
//             | "SESSION" "(" "GAP" d [grace] ")"
window_spec:
  TUMBLING '(' SIZE duration opt_grace ')' {
    $$ = arena_alloc(ps->arena, sizeof(WindowSpec));
    $$->kind = WIN_TUMBLING;
    $$->loc = airq_srcloc(&@1);
    $$->size = $4;
    $$->grace = $5;
  }
| HOPPING '(' SIZE duration ',' ADVANCE BY duration opt_grace ')' {
    $$ = arena_alloc(ps->arena, sizeof(WindowSpec));
    $$->kind = WIN_HOPPING;
    $$->loc = airq_srcloc(&@1);
    $$->size = $4;
    $$->advance = $8;
    $$->grace = $9;
  }
| SESSION '(' GAP duration opt_grace ')' {
    $$ = arena_alloc(ps->arena, sizeof(WindowSpec));
    $$->kind = WIN_SESSION;
    $$->loc = airq_srcloc(&@1);
    $$->gap = $4;
    $$->grace = $5;
  }
;

// opt_grace = [ "," "GRACE" "PERIOD" d ]  (ksqlDB's: late rows within it update the window's result)
opt_grace:
  %empty                    { $$ = NULL; }
| ',' GRACE PERIOD duration { $$ = $4; }
;

// duration = interval | integer unit | string unit
duration:
  interval
| INTEGER unit { CHECK($$ = build_interval(ps, &@$, &@1, $1, false, $2)); }
| STRING unit  { CHECK($$ = build_interval(ps, &@$, &@1, $1, true, $2)); }
;

// interval = "INTERVAL" (integer | string) unit
interval:
  INTERVAL INTEGER unit { CHECK($$ = build_interval(ps, &@$, &@2, $2, false, $3)); }
| INTERVAL STRING unit  { CHECK($$ = build_interval(ps, &@$, &@2, $2, true, $3)); }
;

unit:
  UNIT
| IDENT {
    airq_error_at(ps, &@1,
                  "unknown time unit '%s' (expected MILLISECOND, SECOND, MINUTE, HOUR, DAY or WEEK)", $1);
    build_suggest_unit(ps, &@1, $1);
    YYERROR;
  }
;

// expr = and_expr ("OR" and_expr)*
expr:
  expr OR and_expr { CHECK($$ = build_binary(ps, &@$, OP_OR, $1, $3)); }
| and_expr
;

and_expr:
  and_expr AND not_expr { CHECK($$ = build_binary(ps, &@$, OP_AND, $1, $3)); }
| not_expr
;

// not_expr = "NOT" not_expr | pred
not_expr:
  NOT not_expr { CHECK($$ = build_unary(ps, &@$, OP_NOT, $2)); }
| pred
;

// pred = arith (cmp arith | "NOT"? "IN" "(" (exprs | select) ")" | "BETWEEN" arith "AND" arith)?
pred:
  arith cmp_op arith { CHECK($$ = build_binary(ps, &@$, $2, $1, $3)); }
| arith IN '(' expr_list ')' {
    $$ = build_node(ps, EX_IN, &@$);
    $$->lhs = $1;
    $$->args = $4.head;
    CHECK($$ = build_deepen(ps, $$));
  }
| arith NOT IN '(' expr_list ')' {
    Expr *in = build_node(ps, EX_IN, &@$);
    in->lhs = $1;
    in->args = $5.head;
    CHECK(in = build_deepen(ps, in));
    CHECK($$ = build_unary(ps, &@$, OP_NOT, in));
  }
| arith IN '(' select ')' { CHECK($$ = build_in_select(ps, &@$, $1, $4, false)); }
| arith NOT IN '(' select ')' { CHECK($$ = build_in_select(ps, &@$, $1, $5, true)); }
| arith LIKE arith { CHECK($$ = build_call2(ps, &@$, "LIKE", $1, $3)); }
| arith NOT LIKE arith {
    Expr *like = build_call2(ps, &@$, "LIKE", $1, $4);
    CHECK(like);
    CHECK($$ = build_unary(ps, &@$, OP_NOT, like));
  }
| arith BETWEEN arith AND arith {
    $$ = build_node(ps, EX_BETWEEN, &@$);
    $$->lhs = $1;
    $$->rhs = $3;
    $$->third = $5;
    CHECK($$ = build_deepen(ps, $$));
  }
| arith IS NULL_ {
    $$ = build_node(ps, EX_IS_NULL, &@$);
    $$->lhs = $1;
    CHECK($$ = build_deepen(ps, $$));
  }
| arith IS NOT NULL_ {
    $$ = build_node(ps, EX_IS_NULL, &@$);
    $$->lhs = $1;
    $$->ival = 1;
    CHECK($$ = build_deepen(ps, $$));
  }
| arith
;

cmp_op:
  '=' { $$ = OP_EQ; }
| NE  { $$ = OP_NE; }
| '<' { $$ = OP_LT; }
| LE  { $$ = OP_LE; }
| '>' { $$ = OP_GT; }
| GE  { $$ = OP_GE; }
;

// arith = term (("+" | "-") term)*
arith:
  arith '+' term { CHECK($$ = build_binary(ps, &@$, OP_ADD, $1, $3)); }
| arith CONCAT term { CHECK($$ = build_call2(ps, &@$, "CONCAT", $1, $3)); }
| arith '-' term { CHECK($$ = build_binary(ps, &@$, OP_SUB, $1, $3)); }
| term
;

// term = factor (("*" | "/" | "%") factor)*
term:
  term '*' factor { CHECK($$ = build_binary(ps, &@$, OP_MUL, $1, $3)); }
| term '/' factor { CHECK($$ = build_binary(ps, &@$, OP_DIV, $1, $3)); }
| term '%' factor { CHECK($$ = build_binary(ps, &@$, OP_MOD, $1, $3)); }
| factor
;

// factor = ("-" | "+") factor | primary
factor:
  '-' factor { CHECK($$ = build_unary(ps, &@$, OP_NEG, $2)); }
| '+' factor { $$ = $2; }
| primary
;

primary:
  literal
| interval
| column
| call
| call FILTER '(' WHERE expr ')' { /* COUNT(*) FILTER (WHERE x > 5): the rows it aggregates */
    $$ = $1;
    $$->filter = $5;
    CHECK($$ = build_deepen(ps, $$));
  }
| '(' expr ')' { $$ = $2; }
| '(' select ')' { build_no_subquery(ps, &@2, NULL); YYERROR; }
| CASE when_list opt_else END {
    $$ = build_node(ps, EX_CASE, &@$);
    $$->args = $2.head;
    $$->else_ = $3;
    CHECK($$ = build_deepen(ps, $$));
  }
| CASE expr when_list opt_else END {
    /* the simple form: each WHEN v is WHEN operand = v (the operand, one
     * node, is read by each comparison) */
    bool ok = true;
    for (Expr *w = $3.head; w; w = w->next) {
      AirqLoc at = @3;
      Expr *eq = build_binary(ps, &at, OP_EQ, $2, w->lhs);
      if (!eq) ok = false;
      else w->lhs = eq;
    }
    CHECK(ok ? $2 : NULL);
    $$ = build_node(ps, EX_CASE, &@$);
    $$->args = $3.head;
    $$->else_ = $4;
    CHECK($$ = build_deepen(ps, $$));
  }
| CAST '(' expr AS type ')' {
    $$ = build_node(ps, EX_CAST, &@$);
    $$->lhs = $3;
    $$->cast_to = $5;
    CHECK($$ = build_deepen(ps, $$));
  }
| CURRENT_TIMESTAMP { /* the call CURRENT_TIMESTAMP(): the wall clock as the row is processed */
    $$ = build_node(ps, EX_CALL, &@$);
    $$->name = "CURRENT_TIMESTAMP";
    $$->name_loc = airq_srcloc(&@1);
  }
| CURRENT_DATE { CHECK($$ = build_current_date(ps, &@$)); } /* CAST(CURRENT_TIMESTAMP AS DATE) */
| WINDOW_START { $$ = build_node(ps, EX_WINDOW_START, &@$); }
| WINDOW_END   { $$ = build_node(ps, EX_WINDOW_END, &@$); }
| WINDOW_TIME  { CHECK($$ = build_window_time(ps, &@$)); }
;

literal:
  INTEGER { CHECK($$ = build_int(ps, &@1, $1)); }
| DECIMAL { CHECK($$ = build_double(ps, &@1, $1)); }
| STRING  { $$ = build_string(ps, &@1, $1); }
| TYPENAME STRING { CHECK($$ = build_typed_literal(ps, &@$, $1, &@1, $2, &@2)); } /* DATE '2026-12-03' */
| TRUE    { $$ = build_node(ps, EX_BOOL, &@1); $$->ival = 1; }
| FALSE   { $$ = build_node(ps, EX_BOOL, &@1); $$->ival = 0; }
| NULL_   { $$ = build_node(ps, EX_NULL, &@1); }
;

// column = ident ("." ident)?
// POSITION(sub IN s): s a column, literal or call (in parentheses it would
// read as an IN list)
position_arg: column | literal | call;

column:
  ident {
    $$ = build_node(ps, EX_COLUMN, &@1);
    $$->name = $1;
  }
| ident '.' col_word {
    $$ = build_node(ps, EX_COLUMN, &@$);
    $$->qual = $1;
    $$->name = $3;
    $$->name_loc = airq_srcloc(&@3);
  }
;

// after a qualifier, window_start and the like are columns' names
col_word: ident | WINDOW_START | WINDOW_END | WINDOW_TIME;

// call = ident "(" ("*" | exprs)? ")"
call:
  ident '(' ')' {
    $$ = build_node(ps, EX_CALL, &@$);
    $$->name = $1;
    $$->name_loc = airq_srcloc(&@1);
  }
| ident '(' '*' ')' {
    $$ = build_node(ps, EX_CALL, &@$);
    $$->name = $1;
    $$->name_loc = airq_srcloc(&@1);
    $$->args = build_node(ps, EX_STAR, &@3);
    CHECK($$ = build_deepen(ps, $$));
  }
| ident '(' ident FROM expr ')' { CHECK($$ = build_extract(ps, &@$, $1, &@1, $3, &@3, $5)); }
| ident '(' arith IN position_arg ')' { CHECK($$ = build_position(ps, &@$, $1, &@1, $3, $5)); }
| ident '(' ')' OVER '(' opt_partition ORDER BY order_list ')' { /* build_row_number */
    $$ = build_node(ps, EX_CALL, &@$);
    $$->name = $1;
    $$->name_loc = airq_srcloc(&@1);
    $$->over = true;
    $$->over_part = $6.head;
    $$->over_order = $9.head;
  }
| ident '(' select ')' { /* EXISTS (SELECT ...), f(SELECT ...): no subquery is a value there */
    bool exists = strcasecmp($1, "EXISTS") == 0;
    build_no_subquery(ps, exists ? &@1 : &@3, exists ? "EXISTS (SELECT ...) is not supported" : NULL);
    YYERROR;
  }
| ident '(' DISTINCT expr ')' { /* an aggregate over the distinct values (build_distinct) */
    $$ = build_node(ps, EX_CALL, &@$);
    $$->name = $1;
    $$->name_loc = airq_srcloc(&@1);
    $$->args = $4;
    $$->distinct = true;
    CHECK($$ = build_deepen(ps, $$));
  }
| ident '(' expr_list ')' {
    $$ = build_node(ps, EX_CALL, &@$);
    $$->name = $1;
    $$->name_loc = airq_srcloc(&@1);
    $$->args = $3.head;
    CHECK($$ = build_deepen(ps, $$));
  }
;

expr_list:
  expr               { $$.head = $$.tail = NULL; APPEND($$, $1); }
| expr_list ',' expr { $$ = $1; APPEND($$, $3); }
;

when_list:
  when           { $$.head = $$.tail = NULL; APPEND($$, $1); }
| when_list when { $$ = $1; APPEND($$, $2); }
;

// when = "WHEN" expr "THEN" expr
when:
  WHEN expr THEN expr {
    $$ = build_node(ps, EX_WHEN, &@$);
    $$->lhs = $2;
    $$->rhs = $4;
    CHECK($$ = build_deepen(ps, $$));
  }
;

opt_else:
  %empty    { $$ = NULL; }
| ELSE expr { $$ = $2; }
;

opt_key: ident | STRING | END | GROUP | LIMIT | ORDER;  // kafka: end = 'latest', group = 'g' (keywords only in CASE, GROUP BY)

// A name: an identifier, or a word that is a keyword only elsewhere.
ident:
  IDENT | STREAM | TABLE | SINK | KEY | SIZE | ADVANCE | GAP | GRACE | PERIOD
| TUMBLING | HOPPING | SESSION | UNIT | TYPENAME | VARCHAR | METADATA | VIRTUAL | ASC | DESC
| NULLS | FIRST | LAST
;

%%

static void airqerror(AIRQLTYPE *loc, yyscan_t scanner, ParseState *ps, const char *msg) {
  (void)scanner;
  /* bison's only other message is about its own stack: reached only by
   * thousands of nested prefix operators or parentheses */
  if (strcmp(msg, "memory exhausted") == 0)
    msg = "expression nested too deeply";
  airq_error_at(ps, loc, "%s", msg);
}

/* A token's name as a message shows it: keywords and descriptions plain,
 * punctuation quoted (';'). */
static void token_name(char *buf, size_t n, const char *name) {
  size_t len = strlen(name);
  if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
    name++;
    len -= 2;
  }
  bool word = false;
  for (size_t i = 0; i < len; i++)
    if ((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z'))
      word = true;
  if (word || name[0] == '\'')
    snprintf(buf, n, "%.*s", (int)len, name);
  else
    snprintf(buf, n, "'%.*s'", (int)len, name);
}

static bool starts_expr(yysymbol_kind_t k) {
  static const char *const starts[] = {"'('", "'-'", "'+'"};
  if (k == YYSYMBOL_IDENT || k == YYSYMBOL_INTEGER || k == YYSYMBOL_DECIMAL ||
      k == YYSYMBOL_STRING || k == YYSYMBOL_TRUE || k == YYSYMBOL_FALSE ||
      k == YYSYMBOL_INTERVAL || k == YYSYMBOL_CASE || k == YYSYMBOL_CAST ||
      k == YYSYMBOL_WINDOW_START || k == YYSYMBOL_WINDOW_END || k == YYSYMBOL_WINDOW_TIME || k == YYSYMBOL_NOT || k == YYSYMBOL_CURRENT_TIMESTAMP || k == YYSYMBOL_CURRENT_DATE ||
      k == YYSYMBOL_NULL_)
    return true;
  for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
    if (strcmp(yysymbol_name(k), starts[i]) == 0)
      return true;
  return false;
}

/* ---- "did you mean" for keywords ---------------------------------- */

enum { KW_MAX = 24 }; /* longest keyword, with room to spare */


/* The keyword a token stands for (SELECT), or false for punctuation and
 * descriptions such as "identifier" (keywords are the all-capital names). */
static bool keyword_of(yysymbol_kind_t k, char *buf, size_t n) {
  const char *name = yysymbol_name(k);
  size_t len = strlen(name);
  if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
    name++;
    len -= 2;
  }
  if (len == 0 || len >= n)
    return false;
  for (size_t i = 0; i < len; i++)
    if (!((name[i] >= 'A' && name[i] <= 'Z') || name[i] == '_'))
      return false;
  memcpy(buf, name, len);
  buf[len] = '\0';
  return true;
}

/* The words that would have been accepted where a keyword was expected. */
static int keyword_candidates(const yysymbol_kind_t *exp, int nexp,
                              char (*store)[KW_MAX], const char **cands, int max) {
  int n = 0;
  for (int i = 0; i < nexp; i++) {
    if (exp[i] == YYSYMBOL_TYPENAME || exp[i] == YYSYMBOL_UNIT) {
      bool types = exp[i] == YYSYMBOL_TYPENAME;
      const char *const *w = types ? airq_type_words : airq_unit_words;
      int nw = types ? (int)(sizeof airq_type_words / sizeof *airq_type_words)
                     : (int)(sizeof airq_unit_words / sizeof *airq_unit_words);
      for (int j = 0; j < nw && n < max; j++)
        cands[n++] = w[j];
    } else if (n < max && keyword_of(exp[i], store[i], KW_MAX)) {
      cands[n++] = store[i];
    }
  }
  return n;
}


static bool is_keyword_word(const char *word) {
  char kw[KW_MAX];
  for (int k = 0; k < YYNTOKENS; k++)
    if (keyword_of((yysymbol_kind_t)k, kw, sizeof kw) && strcasecmp(kw, word) == 0)
      return true;
  for (size_t j = 0; j < sizeof airq_type_words / sizeof *airq_type_words; j++)
    if (strcasecmp(airq_type_words[j], word) == 0)
      return true;
  for (size_t j = 0; j < sizeof airq_unit_words / sizeof *airq_unit_words; j++)
    if (strcasecmp(airq_unit_words[j], word) == 0)
      return true;
  return false;
}

static bool word_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* The word just before the token at `l`, when only white space separates
 * them: a misspelt keyword that the grammar took as an alias (FROM s GROPU
 * BY k) shows up only at the token after it. */
static bool word_before(const ParseState *ps, const AirqLoc *l, char *buf, size_t n,
                        SrcLoc *at) {
  const char *t = ps->d->text;
  size_t end = l->first_off;
  if (!t || end > ps->d->text_len)
    return false;
  while (end > 0 && (t[end - 1] == ' ' || t[end - 1] == '\t' || t[end - 1] == '\n' ||
                     t[end - 1] == '\r'))
    end--;
  size_t start = end;
  while (start > 0 && word_char(t[start - 1]))
    start--;
  if (start == end || end - start >= n || (t[start] >= '0' && t[start] <= '9'))
    return false;
  size_t bol = start;
  while (bol > 0 && t[bol - 1] != '\n')
    bol--;
  for (size_t i = bol; i + 1 < start; i++)
    if ((t[i] == '-' && t[i + 1] == '-') || t[i] == '\'' || (t[i] == '/' && t[i + 1] == '*'))
      return false; /* in a comment or after a quote: not a token we can trust */
  int newlines = 0;
  for (size_t i = start; i < l->first_off; i++)
    newlines += t[i] == '\n';
  memcpy(buf, t + start, end - start);
  buf[end - start] = '\0';
  at->line = l->first_line - newlines;
  at->col = (int)(start - bol) + 1;
  at->len = (int)(end - start);
  return at->line > 0;
}

/* After a syntax error: "did you mean 'GROUP'?" when the offending
 * identifier, or the identifier just before the offending token, is one
 * typo away from a keyword the parser would have accepted there. */
static void suggest_keyword(ParseState *ps, const yypcontext_t *ctx, yysymbol_kind_t tok,
                            const yysymbol_kind_t *exp, int nexp) {
  char store[YYNTOKENS][KW_MAX];
  const char *cands[YYNTOKENS + 16];
  int ncands = keyword_candidates(exp, nexp, store, cands, (int)(sizeof cands / sizeof *cands));
  if (ncands == 0 || ps->stop)
    return;
  const AirqLoc *l = yypcontext_location(ctx);
  char word[KW_MAX * 2];
  if (tok == YYSYMBOL_IDENT && l->first_len > 0 && (size_t)l->first_len < sizeof word &&
      l->first_off + (size_t)l->first_len <= ps->d->text_len) {
    memcpy(word, ps->d->text + l->first_off, (size_t)l->first_len);
    word[l->first_len] = '\0';
    const char *best = diag_suggest(word, cands, ncands);
    if (best) {
      diag_note(ps->d, airq_srcloc(l), "did you mean '%s'?", best);
      return;
    }
  }
  SrcLoc at;
  /* a short alias next to a short keyword (ts, AS) is no evidence of a typo */
  if (tok == YYSYMBOL_YYEMPTY || !word_before(ps, l, word, sizeof word, &at) ||
      strlen(word) < 3 || is_keyword_word(word))
    return;
  const char *best = diag_suggest(word, cands, ncands);
  if (best)
    diag_note(ps->d, at, "did you mean '%s'?", best);
}

/* "syntax error, unexpected X[, expecting A or B]". The expected tokens are
 * listed only when there are few of them; a missing ';' before the next
 * statement or the end of file is named alone, because that is what it is. */
static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, ParseState *ps) {
  (void)scanner;
  enum { NEXP = 5 };
  yysymbol_kind_t tok = yypcontext_token(ctx);
  yysymbol_kind_t exp[YYNTOKENS];
  int nexp = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
  if (nexp < 0)
    nexp = 0;

  char msg[512], name[64];
  size_t n = 0;
  n += (size_t)snprintf(msg + n, sizeof msg - n, "syntax error");
  if (tok != YYSYMBOL_YYEMPTY) {
    token_name(name, sizeof name, yysymbol_name(tok));
    n += (size_t)snprintf(msg + n, sizeof msg - n, ", unexpected %s", name);
    if (tok == YYSYMBOL_IDENT || tok == YYSYMBOL_INTEGER || tok == YYSYMBOL_DECIMAL) {
      const AirqLoc *l = yypcontext_location(ctx);
      int len = l->first_len > 32 ? 32 : l->first_len;
      if (l->first_off + (size_t)len <= ps->d->text_len)
        n += (size_t)snprintf(msg + n, sizeof msg - n, " '%.*s'", len,
                              ps->d->text + l->first_off);
    }
  }
  /* Say "identifier" once rather than listing every non-reserved word,
   * and "expression" rather than every token an expression starts with. */
  bool has_ident = false, has_int = false, semi = false, from = false, rparen = false;
  for (int i = 0; i < nexp; i++) {
    has_ident |= exp[i] == YYSYMBOL_IDENT;
    has_int |= exp[i] == YYSYMBOL_INTEGER;
    semi |= strcmp(yysymbol_name(exp[i]), "';'") == 0;
    rparen |= strcmp(yysymbol_name(exp[i]), "')'") == 0;
    from |= exp[i] == YYSYMBOL_FROM;
  }
  const char *names[YYNTOKENS + 1];
  int nnames = 0;
  if (has_ident && has_int)
    names[nnames++] = "expression";
  for (int i = 0; i < nexp; i++) {
    yysymbol_kind_t k = exp[i];
    if (has_ident && k >= YYSYMBOL_STREAM && k <= YYSYMBOL_VARCHAR)
      continue;
    if (has_ident && has_int && starts_expr(k))
      continue;
    names[nnames++] = yysymbol_name(k);
  }
  bool clause = tok == YYSYMBOL_YYEOF || tok == YYSYMBOL_WHERE || tok == YYSYMBOL_GROUP ||
                tok == YYSYMBOL_WINDOW || tok == YYSYMBOL_HAVING || tok == YYSYMBOL_JOIN ||
                (tok != YYSYMBOL_YYEMPTY && strcmp(yysymbol_name(tok), "';'") == 0);
  if (semi && (tok == YYSYMBOL_YYEOF || tok == YYSYMBOL_SELECT || tok == YYSYMBOL_CREATE ||
               tok == YYSYMBOL_INSERT)) {
    names[0] = "';'";
    nnames = 1;
  } else if (from && clause) {
    names[0] = "FROM";
    nnames = 1;
  } else if (rparen && (clause || tok == YYSYMBOL_FROM || tok == YYSYMBOL_AS)) {
    names[0] = "')'";
    nnames = 1;
  }
  if (nnames < NEXP) {
    for (int i = 0; i < nnames && n < sizeof msg; i++) {
      token_name(name, sizeof name, names[i]);
      n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%s",
                            i == 0 ? ", expecting " : i == nnames - 1 ? " or " : ", ", name);
    }
  }
  airq_error_at(ps, yypcontext_location(ctx), "%s", msg);
  /* Flink spellings airc has no room for: say what to write */
  char before[KW_MAX * 2];
  SrcLoc bat;
  const AirqLoc *tl = yypcontext_location(ctx);
  bool after = word_before(ps, tl, before, sizeof before, &bat);
  if (tok == YYSYMBOL_DISTINCT && after && strcasecmp(before, "SELECT") == 0) {
    diag_note(ps->d, airq_srcloc(tl), "SELECT DISTINCT is not supported: write GROUP BY over the columns it "
              "keeps (SELECT k, WINDOW_END FROM s GROUP BY k WINDOW TUMBLING (SIZE ...))");
    return 0;
  }
  if (tok == YYSYMBOL_FOR && !from) {
    diag_note(ps->d, airq_srcloc(tl), "a TABLE is loaded when the program starts and looked up as it is: "
              "write JOIN t ON ..., without FOR SYSTEM_TIME AS OF");
    return 0;
  }
  suggest_keyword(ps, ctx, tok, exp, nexp);
  return 0;
}

Program *parse_program(Arena *a, Diag *d) {
  Program *p = arena_alloc(a, sizeof(Program));
  p->arena = a;
  ParseState ps = {0};
  ps.arena = a;
  ps.d = d;
  ps.tail = &ps.head;
  ps.sub_tail = &ps.sub_head;
  ps.line = 1;
  ps.col = 1;
  if (d->text_len > INT_MAX / 2) {
    diag_fatal_noloc(d, "%s: file too large", d->path ? d->path : "input");
    return p;
  }
  yyscan_t scanner;
  if (airqlex_init_extra(&ps, &scanner) != 0) {
    diag_fatal_noloc(d, "cannot start the scanner");
    return p;
  }
  YY_BUFFER_STATE buf = airq_scan_bytes(d->text ? d->text : "", (int)d->text_len, scanner);
  airqparse(scanner, &ps);
  airq_delete_buffer(buf, scanner);
  airqlex_destroy(scanner);
  p->stmts = ps.head;
  return p;
}
