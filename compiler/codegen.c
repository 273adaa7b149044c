/* codegen.c - C from the physical plan.
 *
 * The program is program.c.tpl with its holes filled: typed row structs that
 * hold only the columns the queries read, one loop per source in which every
 * fused pipeline reading that source runs row by row, and one function pair
 * (batch, watermark) per pipeline that runs on its own vertex.
 *
 * Names in the generated C are made from indices (S0, c3, K1, ...), never
 * from the query's identifiers; every string literal from the query goes
 * through c_escape_str and every comment through c_comment, so no query
 * text can become C code. The other files of the generator: codegen_int.h.
 */
#include "codegen_int.h"

/* ---- small output buffers ------------------------------------------------ */

void buf_open(Buf *b) {
  b->p = NULL;
  b->n = 0;
  b->f = open_memstream(&b->p, &b->n);
  if (!b->f) {
    perror("airc: open_memstream");
    exit(1);
  }
}

/* Close and return the text; the caller frees it. */
char *buf_take(Buf *b) {
  fclose(b->f);
  b->f = NULL;
  return b->p;
}

/* ---- escaping ------------------------------------------------------------ */

void c_escape_str(FILE *out, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    /* Only letters, digits and a few harmless characters pass as they are;
     * everything else (quotes, backslash, '?' of trigraphs, '%', '*', '/',
     * control and non-ASCII bytes) becomes a three-digit octal escape. */
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        c == ' ' || c == '_' || c == '-' || c == '.' || c == ',' || c == ':' || c == ';' ||
        c == '(' || c == ')' || c == '=' || c == '<' || c == '>' || c == '+' || c == '!' ||
        c == '[' || c == ']' || c == '@' || c == '#' || c == '&' || c == '|' || c == '~' ||
        c == '^' || c == '{' || c == '}' || c == '$')
      fputc(c, out);
    else
      fprintf(out, "\\%03o", c);
  }
}

void c_str(FILE *out, const char *s) {
  fputc('"', out);
  c_escape_str(out, s, strlen(s));
  fputc('"', out);
}

/* Text from the query inside a C comment, as written (COUNT(*) stays
 * COUNT(*)): only what could end or nest the comment is broken, "* /" and
 * "/ *", and control and non-ASCII bytes become '_'. A text ending in '/',
 * '*', '\\' or '?' gets a space, so the caller's " * /" cannot pair with it
 * (nor a trigraph ??/ splice a line). */
void c_comment(FILE *out, const char *s) {
  int prev = ' ';
  for (; s && *s; s++) {
    int c = (unsigned char)*s;
    if (c < 0x20 || c >= 0x7f) c = '_';
    if ((prev == '/' && c == '*') || (prev == '*' && c == '/')) fputc(' ', out);
    fputc(c, out);
    prev = c;
  }
  if (prev == '/' || prev == '*' || prev == '\\' || prev == '?') fputc(' ', out);
}

/* airc -g: #line directives map the C of each Filter, output, key,
 * aggregate and csv field to its line in the query, so gdb, addr2line and
 * the C compiler's messages point there. */

const CodegenOptions *g_opt;

/* The lines that follow are the query's line `line`. */
void src_line(FILE *o, int line) {
  if (!g_opt->debug || line <= 0) return;
  fprintf(o, "#line %d \"", line);
  c_escape_str(o, g_opt->query_path, strlen(g_opt->query_path));
  fprintf(o, "\"\n");
}

/* The lines that follow are the C file's own again. */
void c_line(FILE *o) {
  if (g_opt->debug) fprintf(o, "%s\n", C_LINE_MARK);
}

FILE *map_begin(Mapped *m, FILE *out, int line) {
  m->out = out;
  m->line = line;
  m->on = g_opt->debug && line > 0;
  if (!m->on) return out;
  buf_open(&m->b);
  return m->b.f;
}

void map_end(Mapped *m) {
  if (!m->on) return;
  char *text = buf_take(&m->b);
  for (char *p = text; *p;) {
    char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
    src_line(m->out, m->line);
    fwrite(p, 1, len, m->out);
    if (!nl) fputc('\n', m->out);
    p += len;
  }
  free(text);
  c_line(m->out);
}

/* The query text an expression comes from, as a comment line. */
void text_comment(FILE *o, const char *ind, const char *what, const Expr *e) {
  fprintf(o, "%s/* %s", ind, what);
  c_comment(o, e->text);
  fprintf(o, " */\n");
}

/* ---- types --------------------------------------------------------------- */

const char *ctype(Type t) {
  switch (t.kind) {
  case TY_BOOL: return t.nullable ? "int8_t" : "bool"; /* 2: NULL */
  case TY_INT: return "int32_t";
  case TY_DOUBLE: return "double";
  case TY_VARCHAR: return "char";
  default: return "int64_t";
  }
}

/* A struct field declaration "T name;" or "char name[n + 1];". */
void field_decl(FILE *out, Type t, const char *name, const char *comment) {
  if (t.kind == TY_VARCHAR)
    fprintf(out, "  char %s[%d]; /* ", name, t.len + 1);
  else
    fprintf(out, "  %s %s; /* ", ctype(t), name);
  c_comment(out, comment);
  fprintf(out, " */\n");
}

/* dst = ind followed by two more spaces (indentation one level deeper). */
void indent_more(char *dst, size_t n, const char *ind) {
  size_t l = strlen(ind);
  if (l + 3 > n) l = n - 3;
  memmove(dst, ind, l);
  memcpy(dst + l, "  ", 3);
}

bool is_int32(Type t) { return t.kind == TY_INT; }
bool is_i64(Type t) {
  return t.kind == TY_BIGINT || t.kind == TY_TIMESTAMP || t.kind == TY_INTERVAL;
}

/* ---- the generator state ------------------------------------------------- */

/* The C row type on edge e. */
void edge_row_type(const Physical *ph, int e, char *buf, size_t n) {
  const PEdge *ed = &ph->edges[e];
  const Stage *to = &ph->stages[ed->to];
  const Stage *from = &ph->stages[ed->from];
  switch (edge_payload(ph, ed)) {
  case PAY_PARTIALS: snprintf(buf, n, "P%d", to->chain->index); break;
  case PAY_RESULTS: snprintf(buf, n, "O%d", from->chain->index); break;
  case PAY_LEFT_ROWS: snprintf(buf, n, "RA%d", to->chain->index); break;
  case PAY_RIGHT_ROWS: snprintf(buf, n, "RB%d", to->chain->index); break;
  case PAY_ROWS: snprintf(buf, n, "R%d", to->chain->index); break;
  }
}

/* Columns available to a stage's rows: from item f at its input. */
void stage_ctx(const Stage *st, Ctx *cx, bool in_loop) {
  const Chain *ch = st->chain;
  memset(cx, 0, sizeof *cx);
  cx->sel = ch->sel;
  cx->implicit_ts[0] = cx->implicit_ts[1] = -1;
  if (ch->sel->retract && !in_loop) cx->weight = "air_op_weight(r->op)"; /* O and R rows carry it */
  int f = st->leg;
  const Relation *src = leg_source(st);
  if (st->first == 0) {
    /* the leg's first pipeline: source rows, or a derived stream's rows */
    if (in_loop) {
      cx->home[f] = HOME_SOURCE;
    } else {
      cx->home[f] = HOME_DERIVED;
      if (src->implicit_time) {
        cx->implicit_ts[f] = src->ncols - 1;
        cx->ts_ref[f] = "r->ts";
      }
    }
    return;
  }
  /* rows between non-fused operators */
  cx->home[f] = HOME_EDGE;
  if (f == 0 && ch->sel->nfrom == 2) {
    int j = chain_join_op(ch);
    if (j >= 0 && j < st->first) cx->home[1] = HOME_EDGE;
  }
  if (ch->join_at >= 0 && st->first > ch->join_at) {
    cx->wstart = "r->wstart";
    cx->wend = "r->wend";
  }
}

/* ---- the program ----------------------------------------------------------- */

static bool add_cast_bytes(void *n_, const Expr *e) {
  if (e->kind == EX_CAST && e->cast_to.kind == TY_VARCHAR)
    *(size_t *)n_ += (size_t)(e->cast_to.len + 1 > 32 ? e->cast_to.len + 1 : 32);
  return true;
}

/* Bytes of the VARCHAR buffers CASTs in e make on the stack. */
static size_t cast_bytes(const Expr *e) {
  size_t n = 0;
  expr_walk(e, add_cast_bytes, &n);
  return n;
}

static size_t select_cast_bytes(const Select *s) {
  size_t n = cast_bytes(s->where) + cast_bytes(s->having) + cast_bytes(s->join_on);
  for (int i = 0; i < s->nout; i++) n += cast_bytes(s->out[i].expr);
  for (int i = 0; i < s->nkeys; i++) n += cast_bytes(s->keys[i]);
  for (int i = 0; i < s->naggs; i++) n += cast_bytes(s->aggs[i]);
  return n;
}

/* Rows live on the vertex threads' stacks (a source's row, the rows and
 * keys a pipeline makes): with wide VARCHAR columns they outgrow a default
 * 8 MB stack. Tell the runtime a generous bound: four times every row type
 * and every CAST buffer of the program. */
static void emit_stack_hint(Gen *g) {
  const Plan *pl = g->pl;
  FILE *su = g->setup.f;
  size_t casts = 0;
  fprintf(su, "  air_stack_hint(g_rt, 4 * ((size_t)0");
  for (int i = 0; i < pl->cat->nrels; i++) {
    const Relation *r = pl->cat->rels[i];
    bool read = false;
    for (int c = 0; c < pl->nchains && !read; c++)
      read = pl->chains[c].source == r || pl->chains[c].source1 == r;
    if (r->kind == REL_SOURCE && read) fprintf(su, " + sizeof(S%d) + sizeof(SrcState%d)", r->index, r->index);
  }
  for (int c = 0; c < pl->nchains; c++) {
    const Chain *ch = &pl->chains[c];
    fprintf(su, " + sizeof(R%d) + sizeof(O%d)", c, c);
    if (ch->join_at >= 0)
      fprintf(su, " + sizeof(RA%d) + sizeof(RB%d) + sizeof(K%d) + sizeof(J%d)", c, c, c, c);
    else if (ch->windowed)
      fprintf(su, " + sizeof(K%d) + sizeof(A%d) + sizeof(P%d)", c, c, c);
    if (ch->sel->table_join) fprintf(su, " + sizeof(TK%d)", ch->sel->from[1].rel->index);
    casts += select_cast_bytes(ch->sel);
  }
  fprintf(su, " + %zu));\n", casts);
}

/* ---- run-time options ------------------------------------------------------ */

bool opt_read(FILE *o, const char *ind, const char *lhs, const char *fn, const Relation *r, OptionKey k) {
  if (r->opt_type[k] == AIR_OPT_NA || r->opt_type[k] == AIR_OPT_FIXED) return false;
  fprintf(o, "%s  %s = %s(g_rt, %d);\n", ind, lhs, fn, opt_row(r, k));
  return true;
}

static void c_str_or_null(FILE *o, const char *s) {
  if (s) c_str(o, s);
  else fputs("NULL", o);
}

/* Every option of every source, table and sink (OPT_COUNT rows each, from
 * Relation.opt_base on), for air_options: --set and AIRC_SET_* apply to
 * it, and the setup reads the values through air_opt_*. */
static void emit_options(Gen *g) {
  static const char *const types[] = {
      [AIR_OPT_NA] = "AIR_OPT_NA",           [AIR_OPT_FIXED] = "AIR_OPT_FIXED",
      [AIR_OPT_PATH] = "AIR_OPT_PATH",       [AIR_OPT_NAME] = "AIR_OPT_NAME",
      [AIR_OPT_TEXT] = "AIR_OPT_TEXT",
      [AIR_OPT_BOOL] = "AIR_OPT_BOOL",       [AIR_OPT_HEADER] = "AIR_OPT_HEADER",
      [AIR_OPT_COUNT] = "AIR_OPT_COUNT",     [AIR_OPT_INT] = "AIR_OPT_INT",
      [AIR_OPT_DURATION] = "AIR_OPT_DURATION", [AIR_OPT_TIMEOUT] = "AIR_OPT_TIMEOUT",
      [AIR_OPT_HOSTPORT] = "AIR_OPT_HOSTPORT", [AIR_OPT_BROKERS] = "AIR_OPT_BROKERS",
      [AIR_OPT_TOPICS] = "AIR_OPT_TOPICS",   [AIR_OPT_TOPIC] = "AIR_OPT_TOPIC",
      [AIR_OPT_START] = "AIR_OPT_START",     [AIR_OPT_END] = "AIR_OPT_END",
      [AIR_OPT_BAD_ROWS] = "AIR_OPT_BAD_ROWS", [AIR_OPT_PROPS] = "AIR_OPT_PROPS",
  };
  const Catalog *cat = g->pl->cat;
  FILE *o = g->types.f;
  if (!cat->nopt_rels) {
    fprintf(g->setup.f, "  air_options(g_rt, NULL, 0); /* no source, table or sink options */\n");
    return;
  }
  fprintf(o, "/* The options of the sources, tables and sinks as compiled, which --set\n"
             " * and AIRC_SET_* may change at run time (air_options). */\n");
  fprintf(o, "static const AirOptDef q_options[%d] = {\n", cat->nopt_rels * OPT_COUNT);
  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    if (r->opt_base < 0) continue;
    for (int k = 0; k < OPT_COUNT; k++) {
      fprintf(o, "    {");
      c_str(o, r->name);
      fprintf(o, ", ");
      c_str(o, option_keys[k].key);
      fprintf(o, ", %s, ", types[r->opt_type[k]]);
      c_str_or_null(o, r->opt_type[k] == AIR_OPT_NA ? NULL : r->opt_text[k]);
      fprintf(o, ", ");
      c_str_or_null(o, r->opt_why[k]);
      fprintf(o, ", %d},\n", r->kind == REL_SINK ? 1 : r->kind == REL_TABLE ? 2 : 0);
    }
  }
  fprintf(o, "};\n\n");
  fprintf(g->setup.f, "  air_options(g_rt, q_options, %d);\n", cat->nopt_rels * OPT_COUNT);
}

static bool chain_reads(const Chain *ch, const Relation *r) { return ch->source == r || ch->source1 == r; }

/* Whether some query joins table r (a StaticJoin looks its rows up). */
static bool table_joined(const Plan *pl, const Relation *r) {
  for (int c = 0; c < pl->nchains; c++)
    if (pl->chains[c].sel->nfrom == 2 && pl->chains[c].sel->table_join && pl->chains[c].sel->from[1].rel == r)
      return true;
  return false;
}

/* Copy the program to out, each C_LINE_MARK line made "#line N+1 c_path"
 * for its own line number N. */
static bool number_lines(FILE *out, const char *text) {
  long n = 1;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len == strlen(C_LINE_MARK) && memcmp(p, C_LINE_MARK, len) == 0) {
      fprintf(out, "#line %ld \"", n + 1);
      c_escape_str(out, g_opt->c_path, strlen(g_opt->c_path));
      fprintf(out, "\"");
    } else {
      fwrite(p, 1, len, out);
    }
    if (!nl) break;
    fputc('\n', out);
    p = nl + 1;
    n++;
  }
  return !ferror(out);
}

static bool emit_program(FILE *out, Diag *d, const Physical *ph);

bool codegen_emit(FILE *out, Diag *d, const Physical *ph, const CodegenOptions *opt) {
  static const CodegenOptions plain = {0};
  g_opt = opt ? opt : &plain;
  if (!g_opt->debug) return emit_program(out, d, ph);
  Buf all;
  buf_open(&all);
  bool ok = emit_program(all.f, d, ph);
  char *text = buf_take(&all);
  if (ok) ok = number_lines(out, text);
  free(text);
  return ok;
}

static bool emit_program(FILE *out, Diag *d, const Physical *ph) {
  const Plan *pl = ph->plan;
  const Catalog *cat = pl->cat;
  Gen g = {.ph = ph, .pl = pl, .d = d, .ok = true};
  buf_open(&g.types);
  buf_open(&g.funcs);
  buf_open(&g.setup);
  FILE *su = g.setup.f;
  g_in_decls = g.types.f;
  g_in_setup = su;
  g_in_n = 0;

  fprintf(g.types.f, "static AirEdge *g_edge[%d]; /* edges by id (the MPI tag) */\n", ph->nedges ? ph->nedges : 1);
  emit_options(&g);
  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    bool read = false;
    for (int c = 0; c < pl->nchains; c++)
      if (chain_reads(&pl->chains[c], r)) read = true;
    if (r->kind == REL_TABLE && (table_joined(pl, r) || r->in_select)) {
      emit_table(&g, r);
      fprintf(su, "  load_tab%d();\n", r->index);
    }
    if (r->kind == REL_SOURCE && read) emit_source_struct(&g, r);
  }
  fprintf(g.types.f, "\n");
  for (int c = 0; c < pl->nchains; c++) {
    const Chain *ch = &pl->chains[c];
    emit_chain_types(&g, ch);
    /* (a per-rank partial's too: a rescaled resume folds several into one;
     * one after an exchange or reading a derived stream folds the copies
     * of a key that several ranks held) */
    bool partial = false;
    for (int i = 0; i < ph->nstages; i++)
      partial |= ph->stages[i].chain == ch && ph->stages[i].partial &&
                 (!in_source_loop(&ph->stages[i]) || leg_source(&ph->stages[i])->source->ckpt);
    if (ch->session || chain_slice_ms(ch) || partial) {
      FILE *f = g.funcs.f;
      fprintf(f, ch->session            ? "/* Fold the accumulators of a session into those of one it met. */\n"
                 : chain_slice_ms(ch) ? "/* Fold the accumulators of one slice of windows into another's. */\n"
                                      : "/* Fold a per-rank partial into another (a resume on other ranks). */\n");
      fprintf(f, "static void merge_A%d(void *dst, const void *src) {\n", c);
      fprintf(f, "  A%d *acc = dst;\n  const A%d *p = src;\n  const bool is_new = false;\n", c, c);
      emit_acc_merge(f, ch, "  ");
      fprintf(f, "}\n\n");
    }
  }

  /* setup: the sources' files, edges, consumers, then sources */
  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    bool read = false;
    for (int c = 0; c < pl->nchains; c++)
      if (chain_reads(&pl->chains[c], r)) read = true;
    if (r->kind == REL_SOURCE && read && r->source->emit_global) r->source->emit_global(&g, r);
  }
  for (int e = 0; e < ph->nedges; e++) {
    const PEdge *ed = &ph->edges[e];
    const Stage *from = &ph->stages[ed->from];
    const char *route = ed->kind == XR_GATHER ? "AIR_ROUTE_GATHER"
                        : ed->kind == XR_SAME ? "AIR_ROUTE_LOCAL"
                                              : "AIR_ROUTE_HASH";
    const char *producers = "1";
    if (in_source_loop(from) && leg_source(from)->source->per_thread) producers = "air_threads(g_rt)";
    char rt[16];
    edge_row_type(ph, e, rt, sizeof rt);
    fprintf(su, "  g_edge[%d] = air_edge_new(g_rt, %d, sizeof(%s), %s, %s);\n", e, e, rt, route, producers);
  }
  for (int i = 0; i < ph->nstages; i++)
    if (!in_source_loop(&ph->stages[i])) emit_stage(&g, &ph->stages[i]);
  emit_stack_hint(&g);
  for (int i = 0; i < cat->nrels; i++) {
    const Relation *r = cat->rels[i];
    bool read = false;
    for (int c = 0; c < pl->nchains; c++)
      if (chain_reads(&pl->chains[c], r)) read = true;
    if (r->kind != REL_SOURCE || !read) continue;
    emit_source(&g, r);
    fprintf(su, "  %sair_vertex_source(g_rt, \"source ", r->source->ckpt ? "air_source_ckpt(" : "");
    c_escape_str(su, r->name, strlen(r->name));
    fprintf(su, "\", source%d, NULL, %s)", r->index, r->source->per_thread ? "air_threads(g_rt)" : "1");
    if (r->source->ckpt) fprintf(su, ", source%d_save, source%d_load, source%d_seek)", r->index, r->index, r->index);
    fprintf(su, ";\n");
  }

  /* a table read by IN (SELECT ...) sets alone: made above, it is no longer needed */
  for (int i = 0; i < cat->nrels; i++)
    if (cat->rels[i]->kind == REL_TABLE && cat->rels[i]->in_select && !table_joined(pl, cat->rels[i]))
      fprintf(su, "  air_hash_free(tab%d); /* its IN (SELECT ...) sets are made */\n  tab%d = NULL;\n",
              cat->rels[i]->index, cat->rels[i]->index);
  g_in_decls = g_in_setup = NULL;
  free(g_in_exprs);
  g_in_exprs = NULL;
  g_in_n = g_in_cap = 0;
  char *types = buf_take(&g.types), *funcs = buf_take(&g.funcs), *setup = buf_take(&g.setup);
  Buf sum, qfile, qname;
  buf_open(&sum);
  buf_open(&qfile);
  buf_open(&qname);
  fprintf(sum.f, "%d quer%s, %d pipelines, %d edges, %s", pl->nchains, pl->nchains == 1 ? "y" : "ies",
          ph->nstages, ph->nedges, ph->fused ? "fused" : "not fused");
  c_comment(qfile.f, pl->query_path);
  c_escape_str(qname.f, pl->query_name, strlen(pl->query_name));
  char *sum_s = buf_take(&sum), *qfile_s = buf_take(&qfile), *qname_s = buf_take(&qname);
  /* A checkpoint holds the state of exactly this code: another query, or
   * this one compiled differently, is refused on resume (ckpt.c). */
  uint64_t fp = 0xcbf29ce484222325ULL;
  const char *parts[4] = {AIRC_VERSION, types, funcs, setup};
  for (int k = 0; k < 4; k++)
    for (const unsigned char *p = (const unsigned char *)parts[k]; *p; p++) fp = (fp ^ *p) * 0x100000001b3ULL;
  char fps[20];
  snprintf(fps, sizeof fps, "%016llx", (unsigned long long)fp);
  TplHole holes[] = {{"VERSION", AIRC_VERSION}, {"QUERY_FILE", qfile_s}, {"PLAN_SUMMARY", sum_s},
                     {"QUERY_NAME", qname_s},   {"types", types},        {"functions", funcs},
                     {"setup", setup},          {"FINGERPRINT", fps}};
  char err[256];
  if (g.ok && !tpl_fill(out, "program.c.tpl", holes, (int)(sizeof holes / sizeof holes[0]), err, sizeof err)) {
    diag_fatal_noloc(d, "internal error: %s", err);
    g.ok = false;
  }
  free(types);
  free(funcs);
  free(setup);
  free(sum_s);
  free(qfile_s);
  free(qname_s);
  return g.ok;
}
