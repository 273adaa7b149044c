/* cg_rows.c - the row-by-row code of a pipeline: filters, joins, maps,
 * window updates, closing windows, sending rows on. */
#include "codegen_int.h"

/* ---- pipelines ------------------------------------------------------------- */

/* dst = key value e of type t: a DOUBLE key is normalized (q_f64_key). */
static void emit_key_assign(FILE *o, const char *ind, const char *dst, const Expr *e, Type t, const Ctx *cx) {
  if (t.kind != TY_DOUBLE) {
    emit_assign(o, ind, dst, e, t, cx);
    return;
  }
  fprintf(o, "%s%s = q_f64_key(", ind, dst);
  emit_as(o, e, t, cx);
  fprintf(o, ");\n");
}

static void emit_key_build(FILE *o, const Chain *ch, const Ctx *cx, const char *ind) {
  const Select *s = ch->sel;
  fprintf(o, "%sK%d key;\n%smemset(&key, 0, sizeof key);\n", ind, ch->index, ind);
  for (int i = 0; i < s->nkeys; i++) {
    char dst[32];
    snprintf(dst, sizeof dst, "key.k%d", i);
    text_comment(o, ind, "GROUP BY ", s->keys[i]);
    Mapped mp;
    emit_key_assign(map_begin(&mp, o, s->keys[i]->loc.line), ind, dst, s->keys[i], s->keys[i]->type, cx);
    map_end(&mp);
  }
}

/* The join key of input `side` into key.k0. */
static void emit_join_key(FILE *o, const Chain *ch, const Ctx *cx, int side, const char *ind) {
  const Select *s = ch->sel;
  fprintf(o, "%sK%d key;\n%smemset(&key, 0, sizeof key);\n", ind, ch->index, ind);
  emit_key_assign(o, ind, "key.k0", side ? s->join_rkey : s->join_lkey, join_key_type(s), cx);
}

/* Each output column of the query into var.o<i>, from context cx. */
static void emit_out_cols(FILE *o, const Select *s, const char *var, const char *ind, const Ctx *cx) {
  for (int i = 0; i < s->nout; i++) {
    char dst[48];
    snprintf(dst, sizeof dst, "%s.o%d", var, i);
    text_comment(o, ind, "", s->out[i].expr);
    Mapped mp;
    emit_assign(map_begin(&mp, o, s->out[i].expr->loc.line), ind, dst, s->out[i].expr, s->out[i].type, cx);
    map_end(&mp);
  }
}

static void emit_acc_update(FILE *o, const Chain *ch, const Ctx *cx0, const char *ind, const char *ts) {
  const Select *s = ch->sel;
  Ctx rc = *cx0; /* FIRST_VALUE and LAST_VALUE read the row's time */
  rc.row_ts = ts;
  const Ctx *cx = &rc;
  fprintf(o, "%sif (is_new || %s > acc->maxts) acc->maxts = %s;\n", ind, ts, ts);
  if (s->updating) fprintf(o, "%sacc->rows += %s;\n", ind, cx->weight ? cx->weight : "1");
  if (s->topn_rows) { /* the row as the Top-N keeps it, into the first n */
    Ctx wc = rc;
    char wend[64];
    snprintf(wend, sizeof wend, "(ws + INT64_C(%" PRId64 "))", s->window->size_ms);
    wc.wstart = "ws";
    wc.wend = wend;
    /* a full list takes no row that ranks below its last on the first
     * ranking column: most rows, once a window has a few (no TR built) */
    const OrderItem *r0 = s->order_by;
    for (int k = 0; r0 && k < s->limit_part; k++) r0 = r0->next;
    int ri = r0 ? r0->out : -1;
    if (ri >= 0 && s->out[ri].type.kind != TY_VARCHAR) {
      fprintf(o, "%sif (acc->ntop == %lld && %s(", ind, (long long)s->limit, order_item_fn(s->out[ri].type, r0));
      if (r0->desc) fprintf(o, "acc->top[%lld].o%d, ", (long long)s->limit - 1, ri);
      emit_as(o, s->out[ri].expr, s->out[ri].type, &wc);
      if (!r0->desc) fprintf(o, ", acc->top[%lld].o%d", (long long)s->limit - 1, ri);
      fprintf(o, ") > 0) {\n%s} else ", ind);
    }
    const bool after_else = ri >= 0 && s->out[ri].type.kind != TY_VARCHAR;
    fprintf(o, "%s{\n%s  TR%d tr;\n%s  memset(&tr, 0, sizeof tr);\n%s  tr.ts = %s;\n", after_else ? "" : ind, ind,
            ch->index, ind, ind, ts);
    char ind2[160];
    indent_more(ind2, sizeof ind2, ind);
    emit_out_cols(o, s, "tr", ind2, &wc);
    fprintf(o, "%s  q_top_insert(acc->top, &acc->ntop, %lld, &tr, sizeof tr, cmp_TR%d);\n%s}\n", ind,
            (long long)s->limit, ch->index, ind);
  }
  for (int j = 0; j < s->naggs; j++) {
    const Expr *a = s->aggs[j];
    text_comment(o, ind, "", a);
    Mapped mp;
    FILE *mo = map_begin(&mp, o, a->loc.line);
    if (a->filter) { /* FILTER (WHERE c): only the rows c holds for */
      char ind2[160];
      indent_more(ind2, sizeof ind2, ind);
      fprintf(mo, "%sif (", ind);
      emit_cond(mo, a->filter, cx);
      fprintf(mo, ") {\n");
      agg_defs[a->agg].update(mo, a, j, cx, ind2);
      fprintf(mo, "%s}\n", ind);
    } else {
      agg_defs[a->agg].update(mo, a, j, cx, ind);
    }
    map_end(&mp);
  }
}

/* Merge partial accumulator `p` into `acc` (is_new: acc is fresh). */
void emit_acc_merge(FILE *o, const Chain *ch, const char *ind) {
  const Select *s = ch->sel;
  fprintf(o, "%sif (is_new || p->maxts > acc->maxts) acc->maxts = p->maxts;\n", ind);
  if (s->updating) fprintf(o, "%sacc->rows += p->rows;\n", ind);
  if (s->topn_rows)
    fprintf(o, "%sq_top_merge(acc->top, &acc->ntop, p->top, p->ntop, %lld, sizeof acc->top[0], cmp_TR%d);\n", ind,
            (long long)s->limit, ch->index);
  for (int j = 0; j < s->naggs; j++)
    agg_defs[s->aggs[j]->agg].merge(o, s->aggs[j], j, ind);
}


/* The loop over the open windows a row at time ts belongs to (tumbling:
 * advance == size), skipping those already closed; `acc` is the C that
 * yields the row's state in window ws. The caller writes the body and
 * closes the loop with emit_window_loop_end. */
static void emit_window_loop(FILE *o, const WindowSpec *w, const char *ts, const char *wm, const char *acc,
                             const char *ind, const char *late) {
  fprintf(o, "%sbool in_window = false;\n", ind);
  fprintf(o, "%sstatic _Thread_local QWinCache wc = {INT64_MIN, 0};\n", ind);
  fprintf(o, "%sfor (int64_t ws = q_hop_first(&wc, %s, INT64_C(%" PRId64 "), INT64_C(%" PRId64 ")); ws <= %s; ws += INT64_C(%" PRId64 ")) {\n",
          ind, ts, w->size_ms, w->advance_ms, ts, w->advance_ms);
  if (late) { /* a GRACE PERIOD: emit_grace_late */
    fprintf(o, "%s  if (ws + INT64_C(%" PRId64 ") <= %s) continue; /* window and its grace period closed */\n", ind,
            w->size_ms + w->grace_ms, wm);
    fputs(late, o);
  } else {
    fprintf(o, "%s  if (ws + INT64_C(%" PRId64 ") <= %s) continue; /* window already closed */\n", ind, w->size_ms, wm);
  }
  fprintf(o, "%s  in_window = true;\n%s  bool is_new;\n", ind, ind);
  fprintf(o, "%s  %s%s\n", ind, acc, acc[strlen(acc) - 1] == '}' ? "" : ";"); /* a block ends without ';' */
}

/* A row none of whose windows was open is late (counted once: in its
 * first copy when its query aggregates each row several times). */
static void emit_window_loop_end(FILE *o, const char *cnt, const Select *s, const char *ind) {
  fprintf(o, "%s}\n%sif (!in_window%s) %slate++;\n", ind, ind, s && s->expand > 1 ? " && xi == 0" : "", cnt);
}

/* The test that a row at ts goes into its slice: the slice starts at or
 * after the slide's cut and after the last window end its own watermark
 * passed (a row behind it goes into its open windows alone). */
static void emit_slice_test(FILE *o, const WindowSpec *w, const SegEnv *env, int64_t len, const char *ind) {
  fprintf(o, "%sconst int64_t sl = air_tumble_start(%s, INT64_C(%" PRId64 "));\n", ind, env->ts, len);
  if (env->own_wm) {
    fprintf(o, "%sif (sl >= air_slide_cut(%s)) {\n", ind, env->slide);
    return;
  }
  fprintf(o, "%sstatic _Thread_local QCutCache cc = {INT64_MIN, INT64_MIN};\n", ind);
  fprintf(o, "%sif (sl >= air_slide_cut(%s) && sl >= q_slide_cut(&cc, %s, INT64_C(%" PRId64 "), INT64_C(%" PRId64 "))) {\n",
          ind, env->slide, env->wm, w->size_ms, w->advance_ms);
}

/* Put the row into its slice, or (behind the watermark) into each of its
 * windows still open alone; late when none is. */
static void emit_slice_update(FILE *o, const Chain *ch, const SegEnv *env, const char *keyp, const char *ind) {
  const WindowSpec *w = ch->sel->window;
  char ind2[160], ind3[160], acc[200];
  indent_more(ind2, sizeof ind2, ind);
  indent_more(ind3, sizeof ind3, ind2);
  int64_t len = chain_slice_ms(ch);
  fprintf(o, "%s{\n", ind);
  emit_slice_test(o, w, env, len, ind2);
  fprintf(o, "%s  bool is_new;\n", ind2);
  if (env->dense)
    fprintf(o, "%s  A%d *acc = air_dense_acc(%s, sl, kv, &is_new);\n", ind2, ch->index, env->win);
  else
    fprintf(o, "%s  A%d *acc = air_slide_acc(%s, sl, %s, kh, &is_new);\n", ind2, ch->index, env->slide, keyp);
  emit_acc_update(o, ch, &env->cx, ind3, env->ts);
  fprintf(o, "%s} else {\n", ind2);
  if (env->dense) {
    fprintf(o, "%s  K%d key;\n%s  memset(&key, 0, sizeof key);\n", ind2, ch->index, ind2);
    fprintf(o, "%s  key.k0 = (%s)kv;\n", ind2, ctype(ch->sel->keys[0]->type));
    fprintf(o, "%s  const uint64_t kh = hash_K%d(&key);\n", ind2, ch->index);
    keyp = "&key";
  }
  snprintf(acc, sizeof acc, "A%d *acc = air_slide_extra(%s, ws, %s, kh, &is_new)", ch->index, env->slide, keyp);
  emit_window_loop(o, w, env->ts, env->wm, acc, ind3, NULL);
  char ind4[160];
  indent_more(ind4, sizeof ind4, ind3);
  emit_acc_update(o, ch, &env->cx, ind4, env->ts);
  emit_window_loop_end(o, env->cnt, ch->sel, ind3);
  fprintf(o, "%s}\n%s}\n", ind2, ind);
}

static char *grace_late_text(const Chain *ch, const SegEnv *env, const char *ts, const char *ind);

/* Put the row into every open window it belongs to, or into its session;
 * a row whose windows all closed is late. */
static void emit_window_update(FILE *o, const Chain *ch, const SegEnv *env, const char *ind) {
  const WindowSpec *w = ch->sel->window;
  const char *ts = env->ts, *wts = ts; /* the row's time; the time that picks its windows */
  if (ch->sel->updating) {
    /* an updating query drops no row: one behind its source's watermark
     * goes into the interval of the watermark's next ms, still open
     * everywhere (EMIT FINAL: all of time is one interval) */
    if (ch->sel->emit == EMIT_FINAL)
      fprintf(o, "%sconst int64_t uts = 0;\n", ind);
    else
      fprintf(o, "%sconst int64_t uts = %s > %s ? %s : %s + 1;\n", ind, ts, env->wm, ts, env->wm);
    wts = "uts"; /* (FIRST_VALUE and LAST_VALUE still order by the row's own time) */
  }
  const Select *s = ch->sel;
  const Expr *k0 = s->nkeys == 1 ? s->keys[0] : NULL;
  char ind2[160], acc[160];
  indent_more(ind2, sizeof ind2, ind);
  if (env->dense) {
    text_comment(o, ind, "GROUP BY ", k0);
    Mapped mp;
    FILE *mo = map_begin(&mp, o, k0->loc.line);
    fprintf(mo, "%sconst int64_t kv = (int64_t)", ind);
    emit_expr(mo, k0, &env->cx);
    fprintf(mo, ";\n");
    map_end(&mp);
    if (env->slide) {
      emit_slice_update(o, ch, env, NULL, ind);
      return;
    }
    snprintf(acc, sizeof acc, "A%d *acc = air_dense_acc(%s, ws, kv, &is_new)", ch->index, env->win);
    emit_window_loop(o, w, wts, env->wm, acc, ind, NULL);
    emit_acc_update(o, ch, &env->cx, ind2, ts);
    emit_window_loop_end(o, env->cnt, ch->sel, ind);
    return;
  }
  if (k0 && is_padded_array(k0, &env->cx)) {
    /* a single string column is already a key of K's layout */
    fprintf(o, "%sconst K%d *keyp = (const K%d *)", ind, ch->index, ch->index);
    emit_expr(o, k0, &env->cx);
    fprintf(o, ";\n");
  } else {
    emit_key_build(o, ch, &env->cx, ind);
    fprintf(o, "%sconst K%d *keyp = &key;\n", ind, ch->index);
  }
  if (k0 && k0->kind == EX_COLUMN && k0->from_idx == 1 && k0->type.kind == TY_VARCHAR &&
      env->cx.home[1] == HOME_TABLE && !s->left_join)
    /* the key is one table column: its hash was made when the table loaded */
    fprintf(o, "%sconst uint64_t kh = t->h%d;\n", ind, k0->col_idx);
  else
    fprintf(o, "%sconst uint64_t kh = hash_K%d(keyp);\n", ind, ch->index);
  if (w->kind == WIN_SESSION) {
    fprintf(o, "%sbool is_new;\n%sA%d *acc = air_sessions_acc(%s, keyp, kh, %s, %s, &is_new);\n", ind, ind,
            ch->index, env->win, ts, env->wm);
    fprintf(o, "%sif (!acc) {\n%s  %slate++;\n%s  break;\n%s}\n", ind, ind, env->cnt, ind, ind);
    emit_acc_update(o, ch, &env->cx, ind, ts);
    return;
  }
  if (env->slide) {
    emit_slice_update(o, ch, env, "keyp", ind);
    return;
  }
  char *late = select_grace(s) ? grace_late_text(ch, env, ts, ind2) : NULL;
  if (env->raw_port && s->nkeys > 0) {
    /* an adaptive per-rank partial (window.c's air_windows_partial_acc):
     * when pre-aggregating does not pay, the row goes on as a partial of
     * its own */
    char racc[4096];
    int c = ch->index, id = env->stage_id;
    /* a staged row: a one-row partial, merged with the others of its batch
     * (flush_partial<id>, cg_vertices.c) */
    snprintf(racc, sizeof racc,
             "A%d *acc;\n"
             "%s  if (st.stage_on%d) { /* past the caches: staged */\n"
             "%s    if (st.nstg%d == AIR_STAGE_ROWS) flush_partial%d(&st);\n"
             "%s    st.stgh%d[st.nstg%d] = kh;\n"
             "%s    P%d *rp = &st.stg%d[st.nstg%d++];\n"
             "%s    rp->wstart = ws;\n%s    rp->key = *keyp;\n%s    memset(&rp->acc, 0, sizeof rp->acc);\n"
             "%s    acc = &rp->acc;\n%s    is_new = true;\n"
             "%s  } else if (!(acc = air_windows_partial_acc(%s, ws, keyp, kh, &is_new))) {\n"
             "%s    /* not pre-aggregating: the row on as a partial of one row */\n"
             "%s    P%d *rp = air_out_row(%s, (int)(hash_K%d(keyp) %% (uint64_t)air_world(g_rt)));\n"
             "%s    rp->wstart = ws;\n%s    rp->key = *keyp;\n%s    memset(&rp->acc, 0, sizeof rp->acc);\n"
             "%s    acc = &rp->acc;\n%s    is_new = true;\n%s  }",
             c, ind, id, ind, id, id, ind, id, id, ind, c, id, id, ind, ind, ind, ind, ind, ind, env->win, ind, ind, c,
             env->raw_port, c, ind, ind, ind, ind, ind, ind);
    emit_window_loop(o, w, wts, env->wm, racc, ind, late);
  } else {
    snprintf(acc, sizeof acc, "A%d *acc = air_windows_acc(%s, ws, keyp, kh, &is_new)", ch->index, env->win);
    emit_window_loop(o, w, wts, env->wm, acc, ind, late);
  }
  free(late);
  emit_acc_update(o, ch, &env->cx, ind2, ts);
  emit_window_loop_end(o, env->cnt, ch->sel, ind);
}

/* A GRACE PERIOD's row late for window ws (its srcwm at or past the end)
 * but not past end + grace: into the window's late bucket, the stage's
 * (grace_win) or, in a partial, a partial of its own to the final stage
 * (its start + AIR_GRACE_LATE says late). Late rows are few: not
 * aggregated before the exchange. Text into a malloc'd string. */
static char *grace_late_text(const Chain *ch, const SegEnv *env, const char *ts, const char *ind) {
  Buf b;
  buf_open(&b);
  FILE *o = b.f;
  int c = ch->index;
  char ind2[160];
  indent_more(ind2, sizeof ind2, ind);
  fprintf(o, "%sif (ws + INT64_C(%" PRId64 ") <= %s) { /* late, within the grace period: the late bucket */\n", ind,
          ch->sel->window->size_ms, env->wm);
  fprintf(o, "%s  in_window = true;\n%s  bool is_new;\n", ind, ind);
  if (env->grace_win) {
    fprintf(o, "%s  A%d *acc = air_windows_acc(%s, ws, keyp, kh, &is_new);\n", ind, c, env->grace_win);
  } else {
    if (ch->sel->nkeys)
      fprintf(o, "%s  const int dest = (int)(hash_K%d(keyp) %% (uint64_t)air_world(g_rt));\n", ind, c);
    else
      fprintf(o, "%s  const int dest = 0; /* a Reduce ends on rank 0 */\n", ind);
    fprintf(o, "%s  P%d *lp = air_out_row(%s, dest);\n", ind, c, env->grace_port);
    fprintf(o, "%s  lp->wstart = ws + AIR_GRACE_LATE;\n%s  lp->key = *keyp;\n", ind, ind);
    fprintf(o, "%s  memset(&lp->acc, 0, sizeof lp->acc);\n%s  A%d *acc = &lp->acc;\n%s  is_new = true;\n", ind, ind, c,
            ind);
  }
  emit_acc_update(o, ch, &env->cx, ind2, ts);
  fprintf(o, "%s  continue;\n%s}\n", ind, ind);
  return buf_take(&b);
}

/* Fill the kept form (JL or JR, at `e` + "h", ...) of input row r of side `side`. */
static void emit_join_row_fill(FILE *o, const Chain *ch, int side, const char *e, const char *ind) {
  fprintf(o, "%s%sh = kh;\n%s%skey = key;\n%s%srow.ts = r->ts;\n", ind, e, ind, e, ind, e);
  const Relation *rel = ch->sel->from[side].rel;
  for (int i = 0; i < rel->ncols; i++) {
    if (!ch->used[side][i]) continue;
    if (rel->cols[i].type.kind == TY_VARCHAR)
      fprintf(o, "%smemcpy(%srow.f%dc%d, r->f%dc%d, sizeof %srow.f%dc%d);\n", ind, e, side, i, side, i, e, side, i);
    else
      fprintf(o, "%s%srow.f%dc%d = r->f%dc%d;\n", ind, e, side, i, side, i);
  }
}

/* ---- interval joins (docs/design.md "Interval joins") -----------------------
 * Rows are kept per join key in time buckets (an AirWindows: bucket start
 * -> key -> J, the rows of both sides). A row behind its source's
 * watermark is late. Otherwise it meets the other side's rows of its key
 * whose time is in range (in the buckets that range covers), the pairs go
 * on at once, and it is kept in its own bucket. A bucket is dropped once
 * the watermark is past the last time one of its rows can meet a row still
 * to come: rows to come are at or after the watermark. */

/* The context of a joined pair `l`, `rr` (either NULL where an outer join
 * pads) with event time `ts` and source watermark `wm`, for the operators
 * after the Join: from the first of them (past the Join itself). */
static SegEnv pair_env(const SegEnv *env, const char *wm) {
  SegEnv je = *env;
  je.ts = "ts";
  je.wm = wm;
  je.cx.home[0] = HOME_JOIN_LEFT;
  je.cx.home[1] = HOME_JOIN_RIGHT;
  je.cx.implicit_ts[0] = je.cx.implicit_ts[1] = -1;
  return je;
}

/* An outer join's other conditions of ON decide whether a pair of rows
 * matches: tested where the pair is found ("continue" skips it), not in a
 * Filter after the join (plan.c), which would drop the pair instead of
 * padding its rows. */
static void emit_join_rest_test(FILE *o, const Select *s, const Ctx *cx, const char *ind) {
  if (!s->njoin_rest) return;
  fprintf(o, "%sif (!(", ind);
  for (int i = 0; i < s->njoin_rest; i++) {
    if (i) fprintf(o, " && ");
    emit_cond(o, s->join_rest[i], cx);
  }
  fprintf(o, ")) continue;\n");
}

static int after_join(const Stage *st) { return st->first + 1 <= st->last ? st->first + 1 : st->last + 1; }

/* The padded row of kept row `row` (a JLR or JRR pointer) of side `side`,
 * the other side NULL, at time `ts`, through the operators after the join
 * (in a block of its own). */
static void emit_padded_row(Gen *g, FILE *o, const Stage *st, const SegEnv *pe, int side, const char *row,
                            const char *ts, const char *ind) {
  int c = st->chain->index;
  SegEnv je = *pe;
  char ind2[200];
  indent_more(ind2, sizeof ind2, ind);
  fprintf(o, "%s{\n%s  const int64_t pts = %s;\n", ind, ind, ts); /* (ts may name the pair's, hidden below) */
  fprintf(o, "%s  const JLR%d *l = %s;\n%s  const JRR%d *rr = %s;\n%s  (void)l;\n%s  (void)rr;\n", ind, c,
          side ? "NULL" : row, ind, c, side ? row : "NULL", ind, ind);
  fprintf(o, "%s  const int64_t ts = pts;\n", ind);
  emit_ops(g, o, st, after_join(st), st->last, &je, ind2);
  fprintf(o, "%s}\n", ind);
}

/* An interval join's input row r of side `side`, in a stage's batch loop.
 * An outer join marks each row that meets one (`matched`, in its J row):
 * the others of a kept side go on padded when their bucket is dropped
 * (emit_interval_join_expire); a kept row whose key is NULL at once. */
void emit_interval_join_row(Gen *g, FILE *o, const Stage *st, const SegEnv *env, int side, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  const int c = ch->index;
  const int64_t bucket = ijoin_bucket_ms(s);
  const bool outer = s->left_join || s->right_join;
  const bool keep_me = side ? s->right_join : s->left_join, keep_other = side ? s->left_join : s->right_join;
  const bool regular = s->regular_join;
  if (!regular) /* a regular join keeps every row: none is late */
    fprintf(o, "%sif (r->ts < r->srcwm) { /* behind its source's watermark: late */\n%s  %slate++;\n%s  continue;\n%s}\n",
            ind, ind, env->cnt, ind, ind);
  emit_join_key(o, ch, &env->cx, side, ind);
  Type kt = join_key_type(s);
  if (kt.nullable && !keep_me) fprintf(o, "%sif (%s(key.k0)) continue; /* a NULL key equals nothing */\n", ind, null_test(kt));
  fprintf(o, "%sconst uint64_t kh = hash_K%d(&key);\n", ind, c);
  fprintf(o, "%sJ%c%d e;\n%smemset(&e, 0, sizeof e);\n", ind, side ? 'R' : 'L', c, ind);
  emit_join_row_fill(o, ch, side, "e.", ind);
  if (join_keeps_srcwm(ch)) fprintf(o, "%se.srcwm = r->srcwm;\n", ind);
  /* a derived stream's readers: its time may trail the pair's later row by
   * up to ijoin_keep_ms, and its watermark is held back as much (sema) */
  char jwm[96];
  int64_t hold = ch->derived ? ch->derived->wm_hold_ms : 0;
  if (hold) snprintf(jwm, sizeof jwm, "q_wm_back(r->srcwm, INT64_C(%" PRId64 "))", hold);
  else snprintf(jwm, sizeof jwm, "r->srcwm");
  SegEnv je = pair_env(env, jwm);
  if (s->join_retracts) je.op = "AIR_OP_INSERT";
  char ind2[160], ind6[200];
  indent_more(ind2, sizeof ind2, ind);
  snprintf(ind6, sizeof ind6, "%s    ", ind);
  /* a padded row's time: its own, raised past its srcwm for a derived
   * stream of a regular join (as a pair's) */
  const char *own_ts = join_keeps_srcwm(ch) ? "(r->ts > r->srcwm ? r->ts : r->srcwm + 1)" : "r->ts";
  if (kt.nullable && keep_me) {
    fprintf(o, "%sif (%s(key.k0)) { /* a NULL key equals nothing: the row goes on at once, padded */\n", ind,
            null_test(kt));
    emit_padded_row(g, o, st, &je, side, "&e.row", own_ts, ind2);
    fprintf(o, "%s  continue;\n%s}\n", ind, ind);
  }
  const char *cq = outer ? "" : "const ";
  if (regular) {
    /* all of time is one bucket: the key's rows, found or made with one
     * lookup; the row probes the other side's, then joins its own */
    fprintf(o, "%sbool is_new;\n%sJ%d *j = air_windows_acc(%s, 0, &key, kh, &is_new); /* kept for ever */\n", ind, ind, c,
            env->win);
    fprintf(o, "%s{\n", ind);
  } else { /* the other side's times that match: b.ts - a.ts in [lo, hi] */
    int64_t lo = side ? -s->ij_hi : s->ij_lo, hi = side ? -s->ij_lo : s->ij_hi;
    fprintf(o, "%sconst int64_t tlo = r->ts + INT64_C(%" PRId64 "), thi = r->ts + INT64_C(%" PRId64 ");\n", ind, lo, hi);
    fprintf(o, "%sfor (int64_t bs = air_tumble_start(tlo, INT64_C(%" PRId64 ")); bs <= thi; bs += INT64_C(%" PRId64 ")) {\n",
            ind, bucket, bucket);
    fprintf(o, "%s  %sJ%d *j = air_windows_find(%s, bs, &key, kh);\n%s  if (!j) continue;\n", ind, cq, c, env->win, ind);
  }
  const char *other = side ? "left" : "right";
  fprintf(o, "%s  for (size_t i = 0; i < j->%s.n; i++) {\n", ind, other);
  fprintf(o, "%s    %sJ%c%d *oe = (%sJ%c%d *)j->%s.data + i;\n", ind, cq, side ? 'L' : 'R', c, cq, side ? 'L' : 'R', c,
          other);
  if (!regular) fprintf(o, "%s    if (oe->row.ts < tlo || oe->row.ts > thi) continue;\n", ind);
  fprintf(o, "%s    const JLR%d *l = %s;\n%s    const JRR%d *rr = %s;\n", ind, c, side ? "&oe->row" : "&e.row", ind, c,
          side ? "&e.row" : "&oe->row");
  if (outer) emit_join_rest_test(o, s, &je.cx, ind6);
  const bool retract_other = keep_other && s->join_retracts;
  if (keep_other && !retract_other) fprintf(o, "%s    oe->matched = 1;\n", ind);
  if (keep_me) fprintf(o, "%s    e.matched = 1;\n", ind);
  if (join_keeps_srcwm(ch)) {
    /* a derived stream's pair: the later time of its rows, or, when that
     * is at or behind the watermark either row's source had when it was
     * read (an old row met by a new one: any amount behind), that
     * watermark + 1 ms. So the pair is ahead of the srcwm it carries (the
     * new row's) and of the stage's watermark (at most that): late for no
     * reader, and in an updating reader's interval of its own time; its
     * time is a function of the input alone, whichever row came second;
     * and the derived stream needs no hold (ijoin_hold_ms) */
    fprintf(o, "%s    int64_t ts = l->ts > rr->ts ? l->ts : rr->ts;\n", ind);
    fprintf(o, "%s    if (ts <= oe->srcwm) ts = oe->srcwm + 1;\n%s    if (ts <= e.srcwm) ts = e.srcwm + 1;\n", ind, ind);
  } else {
    fprintf(o, "%s    const int64_t ts = l->ts > rr->ts ? l->ts : rr->ts;\n", ind);
  }
  if (retract_other) {
    /* the other row went on padded when it came, having met none: taken
     * back before its first pair, at the pair's time */
    char ind10[200];
    snprintf(ind10, sizeof ind10, "%s      ", ind);
    SegEnv jd = je;
    jd.op = "AIR_OP_DELETE";
    fprintf(o, "%s    if (!oe->matched) {\n%s      oe->matched = 1;\n", ind, ind);
    emit_padded_row(g, o, st, &jd, !side, "&oe->row", "ts", ind10);
    fprintf(o, "%s    }\n", ind);
  }
  emit_ops(g, o, st, after_join(st), st->last, &je, ind6);
  fprintf(o, "%s  }\n%s}\n", ind, ind);
  if (keep_me && s->join_retracts) {
    /* a regular outer join's kept row that met none goes on padded now,
     * taken back if a match comes (above, from the other side) */
    fprintf(o, "%sif (!e.matched) {\n", ind);
    emit_padded_row(g, o, st, &je, side, "&e.row", own_ts, ind2);
    fprintf(o, "%s}\n", ind);
  }
  if (regular) {
    fprintf(o, "%sJ%d *acc = j;\n", ind, c);
  } else {
    fprintf(o, "%sbool is_new;\n", ind);
    fprintf(o, "%sJ%d *acc = air_windows_acc(%s, air_tumble_start(r->ts, INT64_C(%" PRId64 ")), &key, kh, &is_new);\n",
            ind, c, env->win, bucket);
  }
  fprintf(o, "%smemcpy(air_vec_add(&acc->%s, sizeof e), &e, sizeof e);\n", ind, side ? "right" : "left");
}

/* An interval join's watermark: the buckets no row to come can meet are
 * dropped; an outer join first sends the rows of its kept sides that met
 * none, the other side NULL, each with its own time. A derived stream's
 * watermark forwarded before trails these times (ijoin_hold_ms): their
 * srcwm is one below the bucket's start, so its readers take them all. */
static void emit_interval_join_expire(Gen *g, FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Select *s = st->chain->sel;
  int c = st->chain->index;
  const bool outer = s->left_join || s->right_join;
  fprintf(o, "%s{ /* a bucket's rows meet none at or after start + bucket + %" PRId64 " ms */\n", ind, ijoin_keep_ms(s));
  fprintf(o, "%s  AirHash *tab;\n", ind);
  if (outer) fprintf(o, "%s  int64_t bs;\n", ind);
  fprintf(o, "%s  while ((tab = air_windows_pop_closed(%s, wm, INT64_C(%" PRId64 "), %s)) != NULL) {\n", ind, env->win,
          ijoin_bucket_ms(s) + ijoin_keep_ms(s), outer ? "&bs" : "NULL");
  fprintf(o, "%s    size_t pos = 0;\n%s    const void *kp;\n%s    void *ap;\n", ind, ind, ind);
  fprintf(o, "%s    while (air_hash_next(tab, &pos, &kp, &ap)) {\n", ind);
  fprintf(o, "%s      J%d *j = ap;\n", ind, c);
  if (outer) {
    /* a stop's cut (AIR_WM_STOP) drops the buckets still open, as it does
     * the windows: their rows could still meet one, so they are padded only
     * with --on-stop emit */
    fprintf(o, "%s      if (wm != AIR_WM_STOP || air_on_stop_emit(g_rt)) {\n", ind);
    SegEnv je = pair_env(env, "(bs - 1)");
    char ind10[200];
    snprintf(ind10, sizeof ind10, "%s        ", ind);
    for (int side = 0; side < 2; side++) {
      if (!(side ? s->right_join : s->left_join)) continue;
      const char *vec = side ? "right" : "left";
      fprintf(o, "%s      for (size_t i = 0; i < j->%s.n; i++) { /* %s: its rows that met none, the %s side NULL */\n",
              ind, vec, side ? "RIGHT" : "LEFT", side ? "left" : "right");
      fprintf(o, "%s        const J%c%d *me = (const J%c%d *)j->%s.data + i;\n", ind, side ? 'R' : 'L', c,
              side ? 'R' : 'L', c, vec);
      fprintf(o, "%s        if (me->matched) continue;\n", ind);
      fprintf(o, "%s        const JLR%d *l = %s;\n%s        const JRR%d *rr = %s;\n", ind, c, side ? "NULL" : "&me->row",
              ind, c, side ? "&me->row" : "NULL");
      fprintf(o, "%s        (void)l;\n%s        (void)rr;\n%s        const int64_t ts = me->row.ts;\n", ind, ind, ind);
      emit_ops(g, o, st, after_join(st), st->last, &je, ind10);
      fprintf(o, "%s      }\n", ind);
    }
    fprintf(o, "%s      }\n", ind);
  }
  fprintf(o, "%s      air_vec_free(&j->left);\n%s      air_vec_free(&j->right);\n%s    }\n", ind, ind, ind);
  fprintf(o, "%s    air_windows_recycle(%s, tab);\n%s  }\n%s}\n", ind, env->win, ind, ind);
}

/* Put an input row of a stream-stream join into its windows' buffers. */
void emit_join_insert(FILE *o, const Chain *ch, const SegEnv *env, int side, const char *ind) {
  char acc[160];
  emit_join_key(o, ch, &env->cx, side, ind);
  Type kt = join_key_type(ch->sel);
  /* a NULL key equals nothing: the row joins no row, and is dropped unless
   * an outer join keeps its side (the close then matches it with nothing);
   * dropped in its windows, so that it is late as any row (the late count
   * is the same for every kind of join) */
  const bool kept = side ? ch->sel->right_join : ch->sel->left_join;
  const bool skip_null = kt.nullable && !kept;
  if (skip_null) fprintf(o, "%sconst bool knull = %s(key.k0);\n", ind, null_test(kt));
  fprintf(o, "%sconst uint64_t kh = hash_K%d(&key);\n", ind, ch->index);
  /* one entry per window (the zero key): its rows of both sides, appended */
  fprintf(o, "%sK%d nokey;\n%smemset(&nokey, 0, sizeof nokey);\n", ind, ch->index, ind);
  snprintf(acc, sizeof acc, "J%d *acc = air_windows_acc(%s, ws, &nokey, 0, &is_new)", ch->index, env->win);
  emit_window_loop(o, ch->sel->window, "r->ts", env->wm, acc, ind, NULL);
  if (skip_null) fprintf(o, "%s  if (knull) continue;\n", ind);
  fprintf(o, "%s  J%c%d *e = air_vec_add(&acc->%s, sizeof *e);\n", ind, side ? 'R' : 'L', ch->index,
          side ? "right" : "left");
  char ind2[160];
  indent_more(ind2, sizeof ind2, ind);
  emit_join_row_fill(o, ch, side, "e->", ind2);
  emit_window_loop_end(o, "", NULL, ind);
}

/* Send `var` (an O row) to every output edge of the stage. */
static void emit_send_all(FILE *o, const Stage *st, const SegEnv *env, const char *var, const char *ind) {
  for (int k = 0; k < st->nouts; k++) {
    char port[64];
    snprintf(port, sizeof port, env->outs, st->outs[k]);
    fprintf(o, "%smemcpy(air_out_row(%s, 0), &%s, sizeof %s);\n", ind, port, var, var);
  }
}

/* Fill a result row O from a row context (Map) and send it on. */
static void emit_out_row(FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  fprintf(o, "%sO%d out;\n%smemset(&out, 0, sizeof out);\n", ind, ch->index, ind);
  fprintf(o, "%sout.ts = %s;\n%sout.srcwm = %s;\n", ind, env->ts, ind, env->wm);
  const char *op = env->op ? env->op : s->retract ? "r->op" : NULL;
  if (op) fprintf(o, "%sout.op = %s; /* the change it is, on */\n", ind, op);
  if (env->cx.wend) fprintf(o, "%sout.wend = %s;\n", ind, env->cx.wend);
  emit_out_cols(o, s, "out", ind, &env->cx);
  emit_send_all(o, st, env, "out", ind);
}

/* Fill a row R (or RB for a join's second input) and send it to the next
 * pipeline on its only output edge. */
static void emit_r_row(Gen *g, FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  const PEdge *e = &g->ph->edges[st->outs[0]];
  char rt[16], port[64];
  edge_row_type(g->ph, e->id, rt, sizeof rt);
  snprintf(port, sizeof port, env->outs, e->id);
  fprintf(o, "%s%s row;\n%smemset(&row, 0, sizeof row);\n%srow.ts = %s;\n", ind, rt, ind, ind, env->ts);
  fprintf(o, "%srow.srcwm = %s;\n", ind, env->wm);
  const char *op = env->op ? env->op : s->retract ? "r->op" : NULL;
  if (op) fprintf(o, "%srow.op = %s; /* the change it is, on */\n", ind, op);
  if (env->cx.wstart) fprintf(o, "%srow.wstart = %s;\n%srow.wend = %s;\n", ind, env->cx.wstart, ind, env->cx.wend);
  /* a join's first input holds from[0] only, its second from[1] only */
  Payload pay = edge_payload(g->ph, e);
  for (int f = 0; f < s->nfrom; f++) {
    if ((pay == PAY_RIGHT_ROWS && f == 0) || (pay == PAY_LEFT_ROWS && f == 1)) continue;
    if (env->cx.home[f] == HOME_NONE) continue;
    const Relation *r = s->from[f].rel;
    for (int i = 0; i < r->ncols; i++) {
      if (!ch->used[f][i]) continue;
      char src[96];
      colref(src, sizeof src, &env->cx, f, i);
      if (r->cols[i].type.kind == TY_VARCHAR)
        fprintf(o, "%sq_strcpy(row.f%dc%d, sizeof row.f%dc%d, %s);\n", ind, f, i, f, i, src);
      else
        fprintf(o, "%srow.f%dc%d = %s;\n", ind, f, i, src);
    }
  }
  const Stage *to = &g->ph->stages[e->to];
  switch (e->kind) {
  case XR_KEYHASH: {
    fprintf(o, "%s{\n", ind);
    char ind2[160];
    indent_more(ind2, sizeof ind2, ind);
    if (is_join_stage(to))
      emit_join_key(o, ch, &env->cx, e->to_input, ind2);
    else
      emit_key_build(o, ch, &env->cx, ind2);
    fprintf(o, "%s  const int dest = (int)(hash_K%d(&key) %% (uint64_t)air_world(g_rt));\n", ind, ch->index);
    fprintf(o, "%s  memcpy(air_out_row(%s, dest), &row, sizeof row);\n%s}\n", ind, port, ind);
    break;
  }
  case XR_SINGLE: fprintf(o, "%smemcpy(air_out_row(%s, 0), &row, sizeof row);\n", ind, port); break;
  default:
    if (op) /* a change stays on its rank: a key's changes (a row and the row taking it back) come from
             * one rank, in order, and must reach the collector so */
      fprintf(o, "%smemcpy(air_out_row(%s, air_rank(g_rt)), &row, sizeof row);\n", ind, port);
    else
      fprintf(o, "%smemcpy(air_out_row(%s, (int)(air_hash_bytes(&row, sizeof row) %% (uint64_t)air_world(g_rt))), &row, sizeof row);\n",
              ind, port);
    break;
  }
}

/* The row-by-row code of operators [from, to] of a stage's leg in a
 * do { } while (0) block ("break" drops the row), then its tail: update
 * the windows, or send the row on. */
void emit_ops(Gen *g, FILE *o, const Stage *st, int from, int to, SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  fprintf(o, "%sdo { /* ", ind);
  c_comment(o, ch->label);
  fprintf(o, ": ");
  for (int i = from; i <= to; i++)
    fprintf(o, "%s%s", i > from ? " -> " : "", op_name(stage_op(st, i)->kind));
  fprintf(o, " */\n");
  char ind2[160];
  indent_more(ind2, sizeof ind2, ind);
  for (int i = from; i <= to; i++) {
    const Operator *op = stage_op(st, i);
    switch (op->kind) {
    case OP_FILTER:
      for (const Expr *p = op->pred; p; p = p->next) text_comment(o, ind2, p == op->pred ? "WHERE " : "  AND ", p);
      /* -g: each conjunct on a line of its own, mapped to its query line */
      src_line(o, op->pred->loc.line);
      fprintf(o, "%sif (!(", ind2);
      for (const Expr *p = op->pred; p; p = p->next) {
        if (p != op->pred && g_opt->debug) {
          fprintf(o, "\n");
          src_line(o, p->loc.line);
          fprintf(o, "%s   ", ind2);
        }
        if (p != op->pred) fprintf(o, " && ");
        Expr one = *p;
        one.next = NULL;
        emit_cond(o, &one, &env->cx);
      }
      fprintf(o, ")) {\n");
      c_line(o);
      fprintf(o, "%s  %sfiltered++;\n%s  break;\n%s}\n", ind2, env->cnt, ind2, ind2);
      if (env->late_fill) {
        fputs(env->late_fill, o);
        env->late_fill = NULL;
      }
      break;
    case OP_STATIC_JOIN: {
      const Relation *t = op->rel;
      Type kt = t->cols[t->key_col].type;
      const Expr *lk = s->join_lkey;
      /* the lookup in a block of its own: a NULL key or one that cannot be
       * a table key leaves it (break) with t NULL, no match */
      bool padded = kt.kind == TY_VARCHAR && is_padded_array(lk, &env->cx) && lk->type.len == kt.len;
      bool blk = lk->type.nullable || s->left_join || (kt.kind == TY_VARCHAR && !padded);
      char tdecl[32];
      snprintf(tdecl, sizeof tdecl, blk ? "t" : "const T%d *t", t->index);
      if (blk) fprintf(o, "%sconst T%d *t = NULL;\n%sdo {\n", ind2, t->index, ind2);
      if (lk->type.nullable) {
        fprintf(o, "%sif (", ind2);
        emit_null_cond(o, lk, &env->cx);
        fprintf(o, ") break; /* NULL equals nothing */\n");
      }
      if (padded) {
        /* the stream's column already is a key of the table's layout */
        fprintf(o, "%sconst TK%d *tkp = (const TK%d *)", ind2, t->index, t->index);
        emit_expr(o, lk, &env->cx);
        fprintf(o, ";\n");
      } else {
        fprintf(o, "%sTK%d tk;\n%smemset(&tk, 0, sizeof tk);\n", ind2, t->index, ind2);
        if (kt.kind == TY_VARCHAR) {
          fprintf(o, "%sconst char *lk = ", ind2);
          emit_expr(o, lk, &env->cx);
          fprintf(o, ";\n%sif (!q_fits(lk, %d)) break;\n", ind2, kt.len);
          fprintf(o, "%sq_strcpy(tk.k, sizeof tk.k, lk);\n", ind2);
        } else if (kt.kind == TY_DOUBLE) {
          emit_key_assign(o, ind2, "tk.k", lk, kt, &env->cx);
        } else {
          fprintf(o, "%stk.k = ", ind2);
          emit_expr(o, lk, &env->cx);
          fprintf(o, ";\n");
        }
        fprintf(o, "%sconst TK%d *tkp = &tk;\n", ind2, t->index);
      }
      const Relation *src = leg_source(st);
      if (lk->kind == EX_COLUMN && lk->from_idx == st->leg && env->cx.home[st->leg] == HOME_SOURCE &&
          src->cols[lk->col_idx].ysb_field == AIR_YSB_AD_ID && lk->type.len == 36 && kt.kind == TY_VARCHAR &&
          kt.len == 36)
        /* a generated ad id: its hash was made once, at program start */
        fprintf(o, "%s%s = air_hash_find(tab%d, tkp, air_ysb_ad_hashes[r%d %% AIR_YSB_ADS]);\n", ind2, tdecl,
                t->index, lk->col_idx);
      else
        fprintf(o, "%s%s = air_hash_find(tab%d, tkp, air_hash_bytes(tkp, sizeof *tkp));\n", ind2, tdecl, t->index);
      if (blk) fprintf(o, "%s} while (0);\n", ind2);
      env->cx.home[1] = HOME_TABLE;
      if (s->left_join && s->njoin_rest) { /* ON's other conditions decide the match (plan.c) */
        fprintf(o, "%sif (t && !(", ind2);
        for (int i = 0; i < s->njoin_rest; i++) {
          if (i) fprintf(o, " && ");
          emit_cond(o, s->join_rest[i], &env->cx);
        }
        fprintf(o, ")) t = NULL; /* no match: padded */\n");
      }
      if (s->left_join)
        fprintf(o, "%s/* LEFT JOIN: a row without a match goes on, the table's columns NULL */\n", ind2);
      else
        fprintf(o, "%sif (!t) {\n%s  %sunmatched++;\n%s  break;\n%s}\n", ind2, ind2, env->cnt, ind2, ind2);
      break;
    }
    case OP_AGGREGATION:
    case OP_REDUCE:
      if (st->final) break;
      if (s->expand > 1) { /* each row once per DISTINCT argument (build_distinct) */
        char ind3[160];
        indent_more(ind3, sizeof ind3, ind2);
        fprintf(o, "%sfor (int32_t xi = 0; xi < %d; xi++) { /* the row's copies */\n", ind2, s->expand);
        emit_window_update(o, ch, env, ind3);
        fprintf(o, "%s}\n", ind2);
      } else {
        emit_window_update(o, ch, env, ind2);
      }
      break;
    default: break;
    }
  }
  /* the tail: hand the row to the next pipeline(s) */
  OperatorKind lastk = stage_op(st, to)->kind;
  bool agg = lastk == OP_AGGREGATION || lastk == OP_REDUCE;
  if (!agg && st->nouts > 0) {
    const PEdge *e = &g->ph->edges[st->outs[0]];
    if (e->kind == XR_GATHER || e->kind == XR_SAME)
      emit_out_row(o, st, env, ind2);
    else
      emit_r_row(g, o, st, env, ind2);
  }
  fprintf(o, "%s} while (0);\n", ind);
}

/* A windowed derived stream's watermark hold (0 for other chains). */
static int64_t chain_hold(const Chain *ch) { return ch->derived ? ch->derived->wm_hold_ms : 0; }

/* The srcwm of a result row of a window ending at `wend` (C): one below the
 * least event time a row of that window can have, so that it is never late
 * for the derived stream's readers, whose watermark is at most that (the
 * producing stage forwards its own held back, emit_forward_wm). */
static const char *result_srcwm(char *buf, size_t n, const Chain *ch, const char *wend) {
  snprintf(buf, n, "(%s - INT64_C(%" PRId64 ") - 1)", wend, chain_hold(ch));
  return buf;
}

/* HAVING's condition between `pre` and `post` (one statement), mapped to its line. */
static void emit_having(FILE *o, const Select *s, const Ctx *cx, const char *ind, const char *pre, const char *post) {
  text_comment(o, ind, "HAVING ", s->having);
  Mapped mp;
  FILE *mo = map_begin(&mp, o, s->having->loc.line);
  fprintf(mo, "%s%s", ind, pre);
  emit_cond(mo, s->having, cx);
  fprintf(mo, "%s\n", post);
  map_end(&mp);
}

/* The group keys into result row `var`. */
static void emit_key_copy(FILE *o, const Select *s, const char *var, const char *ind) {
  for (int i = 0; i < s->nkeys; i++) {
    if (s->keys[i]->type.kind == TY_VARCHAR)
      fprintf(o, "%smemcpy(%s.k%d, key->k%d, sizeof %s.k%d);\n", ind, var, i, i, var, i);
    else
      fprintf(o, "%s%s.k%d = key->k%d;\n", ind, var, i, i);
  }
}

/* The O row of one closed window of key `key` with accumulators `acc`. */
void emit_window_result(FILE *o, const Stage *st, const SegEnv *env, const char *ind,
                               const char *skip) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  Ctx cx = {.sel = s, .post = true, .key = "key", .acc = "acc", .implicit_ts = {-1, -1}};
  fprintf(o, "%s(void)wstart;\n", ind);
  if (s->topn_rows) { /* a Top-N's rows: the partition's first n, each a result */
    char srcwm[96];
    fprintf(o, "%sfor (uint32_t ti = 0; ti < acc->ntop; ti++) {\n", ind);
    fprintf(o, "%s  const TR%d *tr = &acc->top[ti];\n%s  O%d out;\n%s  memset(&out, 0, sizeof out);\n", ind,
            ch->index, ind, ch->index, ind);
    fprintf(o, "%s  out.wend = wend;\n%s  out.ts = tr->ts;\n%s  out.srcwm = %s;\n", ind, ind, ind,
            result_srcwm(srcwm, sizeof srcwm, ch, "wend"));
    for (int i = 0; i < s->nkeys; i++)
      fprintf(o, "%s  memcpy(&out.k%d, &key->k%d, sizeof out.k%d);\n", ind, i, i, i);
    for (int i = 0; i < s->nout; i++)
      fprintf(o, "%s  memcpy(&out.o%d, &tr->o%d, sizeof out.o%d);\n", ind, i, i, i);
    char ind2[160];
    indent_more(ind2, sizeof ind2, ind);
    emit_send_all(o, st, env, "out", ind2);
    fprintf(o, "%s}\n", ind);
    return;
  }
  if (s->having) {
    char post[32];
    snprintf(post, sizeof post, ")) %s;", skip);
    emit_having(o, s, &cx, ind, "if (!(", post);
  }
  fprintf(o, "%sO%d out;\n%smemset(&out, 0, sizeof out);\n", ind, ch->index, ind);
  fprintf(o, "%sout.wend = wend;\n%sout.ts = acc->maxts;\n", ind, ind);
  char srcwm[96];
  fprintf(o, "%sout.srcwm = %s;\n", ind, result_srcwm(srcwm, sizeof srcwm, ch, "wend"));
  emit_key_copy(o, s, "out", ind);
  emit_out_cols(o, s, "out", ind, &cx);
  emit_send_all(o, st, env, "out", ind);
}

/* The P row of one closed window (whole -1: P has no `whole`), slice
 * (whole 0) or window's extras (whole 1) of key `key` (a K*) and
 * accumulators `acc` (an A*), to the key's rank. */
static void emit_send_partial(FILE *o, const Stage *st, const SegEnv *env, const char *key, const char *acc,
                              int whole, const char *ind) {
  const Chain *ch = st->chain;
  int c = ch->index;
  char port[64];
  snprintf(port, sizeof port, env->outs, st->outs[0]);
  if (ch->sel->nkeys)
    fprintf(o, "%sconst int dest = (int)(hash_K%d(%s) %% (uint64_t)air_world(g_rt));\n", ind, c, key);
  else
    fprintf(o, "%sconst int dest = 0; /* a Reduce ends on rank 0 */\n", ind);
  fprintf(o, "%sP%d *p = air_out_row(%s, dest);\n", ind, c, port);
  fprintf(o, "%sp->wstart = ws;\n", ind);
  if (whole >= 0) fprintf(o, "%sp->whole = %d;\n", ind, whole);
  fprintf(o, "%sp->key = *%s;\n%sp->acc = *%s;\n", ind, key, ind, acc);
}

/* A sliced partial's close: the slices before the new cut, then the
 * extras of the windows wm ended, to the final stage. */
static void emit_close_slices(const Stage *st, const SegEnv *env, FILE *o, const char *ind) {
  int c = st->chain->index;
  const char *sl = env->slide;
  fprintf(o, "%s{\n%s  int64_t ws;\n%s  AirHash *tab;\n", ind, ind, ind);
  fprintf(o, "%s  const int64_t cut = air_slide_advance_cut(%s, wm);\n", ind, sl);
  char ind6[200], kp[32], ap[32];
  snprintf(ind6, sizeof ind6, "%s      ", ind);
  snprintf(kp, sizeof kp, "(const K%d *)kp", c);
  snprintf(ap, sizeof ap, "(const A%d *)ap", c);
  if (env->dense) {
    fprintf(o, "%s  while (air_dense_pop_closed(%s, cut, INT64_C(%" PRId64 "), &ws)) {\n", ind, env->win,
            st->state.slice_ms);
    fprintf(o, "%s    closed = true;\n%s    size_t pos = 0;\n%s    int64_t kv;\n%s    void *ap;\n", ind, ind, ind, ind);
    fprintf(o, "%s    while (air_dense_next(%s, &pos, &kv, &ap)) {\n", ind, env->win);
    fprintf(o, "%s      K%d key;\n%s      memset(&key, 0, sizeof key);\n", ind, c, ind);
    fprintf(o, "%s      key.k0 = (%s)kv;\n", ind, ctype(st->chain->sel->keys[0]->type));
    emit_send_partial(o, st, env, "&key", ap, 0, ind6);
    fprintf(o, "%s    }\n%s  }\n", ind, ind);
  } else {
    fprintf(o, "%s  (void)cut;\n", ind);
    fprintf(o, "%s  while ((tab = air_slide_pop_slice(%s, &ws)) != NULL) {\n", ind, sl);
    fprintf(o, "%s    closed = true;\n%s    size_t pos = 0;\n%s    const void *kp;\n%s    void *ap;\n", ind, ind, ind,
            ind);
    fprintf(o, "%s    while (air_hash_next(tab, &pos, &kp, &ap)) {\n", ind);
    emit_send_partial(o, st, env, kp, ap, 0, ind6);
    fprintf(o, "%s    }\n%s    air_slide_recycle(%s, tab);\n%s  }\n", ind, ind, sl, ind);
  }
  fprintf(o, "%s  while ((tab = air_slide_pop_extra(%s, wm, &ws)) != NULL) {\n", ind, sl);
  fprintf(o, "%s    closed = true;\n%s    size_t pos = 0;\n%s    const void *kp;\n%s    void *ap;\n", ind, ind, ind,
          ind);
  fprintf(o, "%s    while (air_hash_next(tab, &pos, &kp, &ap)) {\n", ind);
  emit_send_partial(o, st, env, kp, ap, 1, ind6);
  fprintf(o, "%s    }\n%s    air_slide_recycle_extra(%s, tab);\n%s  }\n%s}\n", ind, ind, sl, ind, ind);
}

/* An updating query's closed interval (Select.updating): each key's
 * accumulators of the interval merged into its running ones (C<n>, in
 * stage<id>.cum), and what changed written: +I for a key new to the result,
 * -U then +U for one whose row changed, -D for one gone (its rows all taken
 * back, or HAVING no longer holds). A key whose row did not change writes
 * nothing. Every row has the interval's last ms as its time. */
static void emit_updates(FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  int c = ch->index;
  char srcwm[96];
  result_srcwm(srcwm, sizeof srcwm, ch, "wend");
  fprintf(o, "%sconst int64_t wend = ws + INT64_C(%" PRId64 ");\n", ind, s->window->size_ms);
  fprintf(o, "%sbool fresh;\n%sC%d *cu = air_hash_upsert(stage%d.cum, key, hash_K%d(key), &fresh);\n", ind, ind, c,
          st->id, c);
  fprintf(o, "%sif (fresh) memset(cu, 0, sizeof *cu);\n", ind);
  if (s->ttl_ms) { /* (keys idle longer are also swept away: emit_ttl_sweep) */
    fprintf(o, "%sif (cu->acc.rows != 0 && cu->acc.maxts <= ws - INT64_C(%" PRId64 ")) {\n", ind, s->ttl_ms);
    fprintf(o, "%s  /* idle for state_ttl: its state begins anew, its row is written as new (+I) */\n", ind);
    fprintf(o, "%s  memset(cu, 0, sizeof *cu);\n%s  air_stat_add(g_rt, AIR_STAT_EXPIRED, 1);\n%s}\n", ind, ind, ind);
  }
  fprintf(o, "%s{ /* the interval's rows into the key's */\n", ind);
  fprintf(o, "%s  const bool is_new = cu->acc.rows == 0; /* none left: begins anew */\n", ind);
  fprintf(o, "%s  if (is_new) memset(&cu->acc, 0, sizeof cu->acc);\n", ind);
  fprintf(o, "%s  A%d *acc = &cu->acc;\n%s  const A%d *p = ap;\n", ind, c, ind, c);
  char ind2[160];
  indent_more(ind2, sizeof ind2, ind);
  emit_acc_merge(o, ch, ind2);
  fprintf(o, "%s}\n", ind);
  fprintf(o, "%sconst A%d *acc = &cu->acc;\n", ind, c);
  fprintf(o, "%sO%d now;\n%smemset(&now, 0, sizeof now);\n", ind, c, ind);
  fprintf(o, "%sbool vis = acc->rows > 0;\n", ind);
  fprintf(o, "%sif (vis) {\n", ind);
  emit_key_copy(o, s, "now", ind2);
  Ctx cx = {.sel = s, .post = true, .key = "key", .acc = "acc", .implicit_ts = {-1, -1}};
  emit_out_cols(o, s, "now", ind2, &cx);
  if (s->having) emit_having(o, s, &cx, ind2, "vis = ", ";");
  fprintf(o, "%s}\n", ind);
  fprintf(o, "%sbool same = cu->shown && vis", ind);
  for (int i = 0; i < s->nout; i++) fprintf(o, " &&\n%s    memcmp(&now.o%d, &cu->last.o%d, sizeof now.o%d) == 0", ind, i, i, i);
  fprintf(o, ";\n");
  fprintf(o, "%sif (cu->shown && !same) { /* its row as written, taken back */\n", ind);
  fprintf(o, "%s  O%d old = cu->last;\n", ind, c);
  fprintf(o, "%s  old.op = vis ? AIR_OP_UPDATE_BEFORE : AIR_OP_DELETE;\n", ind);
  fprintf(o, "%s  old.wend = wend;\n%s  old.ts = wend - 1;\n%s  old.srcwm = %s;\n", ind, ind, ind, srcwm);
  char ind3[160];
  indent_more(ind3, sizeof ind3, ind);
  emit_send_all(o, st, env, "old", ind3);
  fprintf(o, "%s}\n", ind);
  fprintf(o, "%sif (vis && !same) {\n", ind);
  fprintf(o, "%s  now.op = cu->shown ? AIR_OP_UPDATE_AFTER : AIR_OP_INSERT;\n", ind);
  fprintf(o, "%s  now.wend = wend;\n%s  now.ts = wend - 1;\n%s  now.srcwm = %s;\n", ind, ind, ind, srcwm);
  emit_send_all(o, st, env, "now", ind3);
  fprintf(o, "%s  cu->last = now;\n", ind);
  fprintf(o, "%s}\n", ind);
  fprintf(o, "%scu->shown = vis;\n", ind);
}

/* state_ttl: the keys no row touched for that long, swept from the running
 * state. A row still to come is in an interval starting after wm - size,
 * so a key idle for state_ttl before that would begin anew anyway
 * (emit_updates): dropping it changes no result. A sweep each half TTL. */
static void emit_ttl_sweep(FILE *o, const Stage *st, const char *ind) {
  const Select *s = st->chain->sel;
  int64_t every = s->ttl_ms / 2 > 0 ? s->ttl_ms / 2 : 1;
  fprintf(o, "%sif (wm != AIR_WM_END && wm >= INT64_MIN / 2 && wm - stage%d.swept >= INT64_C(%" PRId64 ")) {\n", ind,
          st->id, every);
  fprintf(o, "%s  int64_t t[2] = {wm - INT64_C(%" PRId64 ") - INT64_C(%" PRId64 "), 0};\n", ind, s->window->size_ms,
          s->ttl_ms);
  fprintf(o, "%s  air_hash_retain(&stage%d.cum, keep_C%d, t);\n", ind, st->id, st->chain->index);
  fprintf(o, "%s  air_stat_add(g_rt, AIR_STAT_EXPIRED, t[1]);\n%s  stage%d.swept = wm;\n%s}\n", ind, ind, st->id,
          ind);
}

/* One row of a window with a GRACE PERIOD, of key `key` and accumulators
 * `acc` (when `has`) into O `var`; `vis` says whether it is in the result
 * (HAVING). */
static void emit_grace_row(FILE *o, const Stage *st, const char *acc, const char *var, const char *vis,
                           const char *has, const char *ind) {
  const Select *s = st->chain->sel;
  char ind2[160], srcwm[96];
  indent_more(ind2, sizeof ind2, ind);
  fprintf(o, "%sO%d %s;\n%smemset(&%s, 0, sizeof %s);\n%sbool %s = %s;\n", ind, st->chain->index, var, ind,
          var, var, ind, vis, has);
  fprintf(o, "%sif (%s) {\n%s  const A%d *acc = %s;\n", ind, vis, ind, st->chain->index, acc);
  Ctx cx = {.sel = s, .post = true, .key = "key", .acc = "acc", .implicit_ts = {-1, -1}};
  char pre[64];
  snprintf(pre, sizeof pre, "%s = ", vis);
  if (s->having) emit_having(o, s, &cx, ind2, pre, ";");
  fprintf(o, "%s  %s.wend = wend + INT64_C(%" PRId64 "); /* written at end + grace */\n", ind, var, s->window->grace_ms);
  fprintf(o, "%s  %s.ts = acc->maxts;\n%s  %s.srcwm = %s;\n", ind, var, ind, var,
          result_srcwm(srcwm, sizeof srcwm, st->chain, "wend"));
  char v[32];
  snprintf(v, sizeof v, "%s", var);
  emit_key_copy(o, s, v, ind2);
  emit_out_cols(o, s, v, ind2, &cx);
  fprintf(o, "%s}\n", ind);
}

/* A GRACE PERIOD's late buckets the watermark passed (end + grace <= wm):
 * each key's late rows merged into the accumulators of the row written at
 * the window's end (kept in grace_kept), and what changed written as
 * emit_updates does: -U then +U, +I for a key without an on-time row (or
 * hidden by HAVING), -D for one HAVING now hides; nothing when the row is
 * the same. Then the kept windows that are final are dropped. */
static void emit_grace_updates(FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  int c = ch->index;
  int64_t reach = s->window->size_ms + s->window->grace_ms;
  fprintf(o, "%s{ /* GRACE PERIOD: the late rows of each window whose end + grace the watermark passed */\n", ind);
  fprintf(o, "%s  int64_t ws;\n%s  AirHash *tab;\n", ind, ind);
  fprintf(o, "%s  while ((tab = air_windows_pop_closed(%s, wm, INT64_C(%" PRId64 "), &ws)) != NULL) {\n", ind,
          env->grace_win, reach);
  if (sorts_window_keys(ch)) fprintf(o, "%s    air_hash_sort(tab, cmp_K%d); /* by key, as the window's rows */\n", ind, c);
  fprintf(o, "%s    size_t pos = 0;\n%s    const void *kp;\n%s    void *ap;\n", ind, ind, ind);
  fprintf(o, "%s    while (air_hash_next(tab, &pos, &kp, &ap)) {\n", ind);
  char i6[200];
  snprintf(i6, sizeof i6, "%s      ", ind);
  fprintf(o, "%sconst K%d *key = kp;\n%s(void)key;\n", i6, c, i6);
  fprintf(o, "%sconst int64_t wstart = ws, wend = ws + INT64_C(%" PRId64 ");\n%s(void)wstart;\n", i6,
          s->window->size_ms, i6);
  fprintf(o, "%sconst A%d *kept = air_windows_find(%s, ws, key, hash_K%d(key));\n", i6, c, env->grace_kept, c);
  fprintf(o, "%sA%d cur;\n%s{ /* the late rows into the on-time ones */\n", i6, c, i6);
  fprintf(o, "%s  const bool is_new = kept == NULL;\n%s  if (kept) cur = *kept;\n%s  else memset(&cur, 0, sizeof cur);\n",
          i6, i6, i6);
  fprintf(o, "%s  A%d *acc = &cur;\n%s  const A%d *p = ap;\n", i6, c, i6, c);
  char i8[220];
  snprintf(i8, sizeof i8, "%s  ", i6);
  emit_acc_merge(o, ch, i8);
  fprintf(o, "%s}\n", i6);
  emit_grace_row(o, st, "kept", "old", "was", "kept != NULL", i6);
  emit_grace_row(o, st, "&cur", "now", "vis", "true", i6);
  fprintf(o, "%sbool same = was && vis", i6);
  for (int i = 0; i < s->nout; i++) fprintf(o, " &&\n%s    memcmp(&now.o%d, &old.o%d, sizeof now.o%d) == 0", i6, i, i, i);
  fprintf(o, ";\n");
  fprintf(o, "%sif (was && !same) { /* the row written at the end, taken back */\n", i6);
  fprintf(o, "%s  old.op = vis ? AIR_OP_UPDATE_BEFORE : AIR_OP_DELETE;\n", i6);
  emit_send_all(o, st, env, "old", i8);
  fprintf(o, "%s}\n%sif (vis && !same) {\n", i6, i6);
  fprintf(o, "%s  now.op = was ? AIR_OP_UPDATE_AFTER : AIR_OP_INSERT;\n", i6);
  emit_send_all(o, st, env, "now", i8);
  fprintf(o, "%s}\n", i6);
  fprintf(o, "%s    }\n%s    air_windows_recycle(%s, tab);\n%s  }\n", ind, ind, env->grace_win, ind);
  fprintf(o, "%s  while ((tab = air_windows_pop_closed(%s, wm, INT64_C(%" PRId64 "), &ws)) != NULL) /* final now */\n", ind,
          env->grace_kept, reach);
  fprintf(o, "%s    air_windows_recycle(%s, tab);\n%s}\n", ind, env->grace_kept, ind);
}

/* Close every window the watermark `wm` passed: send its partials (partial
 * pipelines) or its result rows; sliced windows through their AirSlide. */
void emit_close_windows(Gen *g, FILE *o, const Stage *st, const SegEnv *env, const char *ind) {
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  int c = ch->index;
  if (s->regular_join) {
    fprintf(o, "%s(void)wm; /* a regular join keeps every row: nothing closes */\n", ind);
    return;
  }
  if (s->interval_join) {
    emit_interval_join_expire(g, o, st, env, ind);
    return;
  }
  if (env->slide && st->partial) {
    emit_close_slices(st, env, o, ind);
    return;
  }
  if (env->slide) {
    /* whole windows, from their slices: result rows (cg_vertices' _result) */
    fprintf(o, "%sair_slide_close(%s, wm, stage%d_result, NULL);\n", ind, env->slide, st->id);
    return;
  }
  if (env->dense) {
    char port[64];
    snprintf(port, sizeof port, env->outs, st->outs[0]);
    fprintf(o, "%s{\n%s  int64_t ws;\n", ind, ind);
    fprintf(o, "%s  while (air_dense_pop_closed(%s, wm, INT64_C(%" PRId64 "), &ws)) {\n", ind, env->win,
            s->window->size_ms);
    fprintf(o, "%s    closed = true;\n%s    size_t pos = 0;\n%s    int64_t kv;\n%s    void *ap;\n", ind, ind, ind, ind);
    fprintf(o, "%s    while (air_dense_next(%s, &pos, &kv, &ap)) {\n", ind, env->win);
    fprintf(o, "%s      K%d key;\n%s      memset(&key, 0, sizeof key);\n", ind, c, ind);
    fprintf(o, "%s      key.k0 = (%s)kv;\n", ind, ctype(s->keys[0]->type));
    fprintf(o, "%s      const int dest = (int)(hash_K%d(&key) %% (uint64_t)air_world(g_rt));\n", ind, c);
    fprintf(o, "%s      P%d *p = air_out_row(%s, dest);\n", ind, c, port);
    fprintf(o, "%s      p->wstart = ws;\n%s      p->key = key;\n%s      p->acc = *(const A%d *)ap;\n", ind, ind, ind, c);
    fprintf(o, "%s    }\n%s  }\n%s}\n", ind, ind, ind);
    return;
  }
  fprintf(o, "%s{\n%s  int64_t ws;\n%s  AirHash *tab;\n", ind, ind, ind);
  fprintf(o, "%s  while ((tab = air_windows_pop_closed(%s, wm, INT64_C(%" PRId64 "), &ws)) != NULL) {\n", ind,
          env->win, s->window->size_ms);
  if (st->partial) fprintf(o, "%s    closed = true;\n", ind);
  else if (!is_join_stage(st) && sorts_window_keys(ch) && s->nkeys == 1 &&
           (s->keys[0]->type.kind == TY_BIGINT || s->keys[0]->type.kind == TY_TIMESTAMP ||
            s->keys[0]->type.kind == TY_DATE))
    fprintf(o, "%s    air_hash_sort_i64(tab); /* the rows in the collector's order: it merges, not sorts */\n", ind);
  else if (!is_join_stage(st) && sorts_window_keys(ch))
    fprintf(o, "%s    air_hash_sort(tab, cmp_K%d); /* the rows in the collector's order: it merges, not sorts */\n",
            ind, c);
  fprintf(o, "%s    size_t pos = 0;\n%s    const void *kp;\n%s    void *ap;\n", ind, ind, ind);
  const bool ahead = s->updating && !st->partial && !is_join_stage(st);
  if (ahead) { /* the running table is past the caches with many keys: its slots asked for 8 keys ahead */
    fprintf(o, "%s    size_t pa = 0;\n%s    const void *ka;\n%s    void *va;\n", ind, ind, ind);
    fprintf(o, "%s    for (int i = 0; i < 8 && air_hash_next(tab, &pa, &ka, &va); i++)\n", ind);
    fprintf(o, "%s      air_hash_prefetch(stage%d.cum, ka, hash_K%d(ka));\n", ind, st->id, c);
  }
  fprintf(o, "%s    while (air_hash_next(tab, &pos, &kp, &ap)) {\n", ind);
  fprintf(o, "%s      const K%d *key = kp;\n%s      (void)key;\n", ind, c, ind);
  if (ahead)
    fprintf(o, "%s      if (air_hash_next(tab, &pa, &ka, &va)) air_hash_prefetch(stage%d.cum, ka, hash_K%d(ka));\n",
            ind, st->id, c);
  if (st->partial) {
    char ind6[200];
    snprintf(ind6, sizeof ind6, "%s      ", ind);
    fprintf(o, "%s      const A%d *acc = ap;\n", ind, c);
    emit_send_partial(o, st, env, "key", "acc", -1, ind6);
  } else if (is_join_stage(st)) {
    fprintf(o, "%s      J%d *acc = ap;\n", ind, c);
    fprintf(o, "%s      const int64_t wstart = ws, wend = ws + INT64_C(%" PRId64 ");\n", ind, s->window->size_ms);
    fprintf(o, "%s      (void)wstart;\n%s      (void)wend;\n", ind, ind);
    /* a hash join: the right rows indexed, each left row probes; an outer
     * join then sends the rows of its kept sides that matched none, the
     * other side's columns NULL (colref: `l` or `rr` is NULL) */
    const bool keep_l = s->left_join, keep_r = s->right_join;
    const Type kt = join_key_type(s);
    fprintf(o, "%s      AirJoinIndex jx;\n", ind);
    fprintf(o, "%s      air_join_index(&jx, acc->right.data, acc->left.n ? acc->right.n : 0, sizeof(JR%d));\n", ind, c);
    if (keep_r) {
      fprintf(o, "%s      uint8_t *rmatched = acc->right.n ? calloc(acc->right.n, 1) : NULL;\n", ind);
      fprintf(o, "%s      if (acc->right.n && !rmatched) air_oom(\"join\");\n", ind);
    }
    fprintf(o, "%s      for (size_t li = 0; li < acc->left.n; li++) {\n", ind);
    fprintf(o, "%s        const JL%d *le = (const JL%d *)acc->left.data + li;\n", ind, c, c);
    fprintf(o, "%s        const JLR%d *l = &le->row;\n", ind, c);
    if (keep_l) fprintf(o, "%s        bool matched = false;\n", ind);
    fprintf(o, "%s        for (uint32_t ri = air_join_first(&jx, le->h); ri != AIR_JOIN_NONE; ri = air_join_next(&jx, ri)) {\n",
            ind);
    if (kt.nullable && (keep_l || keep_r)) /* kept rows of a NULL key are buffered, and match nothing */
      fprintf(o, "%s          if (%s(le->key.k0)) break;\n", ind, null_test(kt));
    fprintf(o, "%s          const JR%d *re = (const JR%d *)acc->right.data + ri;\n", ind, c, c);
    fprintf(o, "%s          if (re->h != le->h || memcmp(&re->key, &le->key, sizeof le->key) != 0) continue;\n", ind);
    fprintf(o, "%s          const JRR%d *rr = &re->row;\n", ind, c);
    char jwm[96];
    SegEnv je = pair_env(env, result_srcwm(jwm, sizeof jwm, ch, "wend")); /* joined rows are not checked again */
    je.cx.wstart = "wstart";
    je.cx.wend = "wend";
    if (keep_l || keep_r) {
      char ind10[200];
      snprintf(ind10, sizeof ind10, "%s          ", ind);
      emit_join_rest_test(o, s, &je.cx, ind10);
    }
    if (keep_l) fprintf(o, "%s          matched = true;\n", ind);
    if (keep_r) fprintf(o, "%s          rmatched[ri] = 1;\n", ind);
    fprintf(o, "%s          const int64_t ts = l->ts > rr->ts ? l->ts : rr->ts;\n", ind);
    const int first = after_join(st);
    char ind10[200];
    snprintf(ind10, sizeof ind10, "%s          ", ind);
    emit_ops(g, o, st, first, st->last, &je, ind10);
    fprintf(o, "%s        }\n", ind);
    if (keep_l) {
      fprintf(o, "%s        if (!matched) { /* LEFT: the left row, the right side NULL */\n", ind);
      fprintf(o, "%s          const JRR%d *rr = NULL;\n%s          (void)rr;\n", ind, c, ind);
      fprintf(o, "%s          const int64_t ts = l->ts;\n", ind);
      emit_ops(g, o, st, first, st->last, &je, ind10);
      fprintf(o, "%s        }\n", ind);
    }
    fprintf(o, "%s      }\n", ind);
    if (keep_r) {
      fprintf(o, "%s      for (size_t ri = 0; ri < acc->right.n; ri++) { /* RIGHT: the right rows, the left side NULL */\n",
              ind);
      fprintf(o, "%s        if (rmatched[ri]) continue;\n", ind);
      fprintf(o, "%s        const JLR%d *l = NULL;\n%s        (void)l;\n", ind, c, ind);
      fprintf(o, "%s        const JRR%d *rr = &((const JR%d *)acc->right.data + ri)->row;\n", ind, c, c);
      fprintf(o, "%s        const int64_t ts = rr->ts;\n", ind);
      emit_ops(g, o, st, first, st->last, &je, ind10);
      fprintf(o, "%s      }\n", ind);
      fprintf(o, "%s      free(rmatched);\n", ind);
    }
    fprintf(o, "%s      air_join_index_free(&jx);\n", ind);
    fprintf(o, "%s      air_vec_free(&acc->left);\n%s      air_vec_free(&acc->right);\n", ind, ind);
  } else if (s->updating) {
    char ind6[200];
    snprintf(ind6, sizeof ind6, "%s      ", ind);
    emit_updates(o, st, env, ind6);
  } else {
    fprintf(o, "%s      const A%d *acc = ap;\n", ind, c);
    fprintf(o, "%s      const int64_t wstart = ws, wend = ws + INT64_C(%" PRId64 ");\n", ind, s->window->size_ms);
    if (select_grace(s)) /* kept until end + grace: the row written now, which late rows update (+I now) */
      fprintf(o, "%s      bool kn;\n%s      *(A%d *)air_windows_acc(%s, ws, key, hash_K%d(key), &kn) = *acc;\n", ind, ind, c,
              env->grace_kept, c);
    char ind6[200];
    snprintf(ind6, sizeof ind6, "%s      ", ind);
    emit_window_result(o, st, env, ind6, "continue");
  }
  fprintf(o, "%s    }\n%s    air_windows_recycle(%s, tab);\n%s  }\n%s}\n", ind, ind, env->win, ind, ind);
  if (s->updating && s->ttl_ms && !st->partial) emit_ttl_sweep(o, st, ind);
  if (select_grace(s) && !st->partial) emit_grace_updates(o, st, env, ind);
}

/* Watermark wm to every output of a stage (ports named by env->outs). The
 * stage making a windowed derived stream holds it back by the most the
 * stream's event time can trail its window's end (sema's wm_hold_ms). */
void emit_forward_wm(FILE *o, const Stage *st, const char *outs, const char *ind) {
  int64_t hold = st->chain->producer == st->id - 1 ? chain_hold(st->chain) : 0;
  for (int k = 0; k < st->nouts; k++) {
    char port[64];
    snprintf(port, sizeof port, outs, st->outs[k]);
    if (hold)
      fprintf(o, "%sair_out_watermark(%s, q_wm_back(wm, INT64_C(%" PRId64 ")));\n", ind, port, hold);
    else
      fprintf(o, "%sair_out_watermark(%s, wm);\n", ind, port);
  }
}
