/* cg_vertices.c - the vertices: a source's loop (its kind's template and
 * hooks), consumer stages, and the collector on rank 0. */
#include "codegen_int.h"

/* ---- source vertices ------------------------------------------------------- */

/* The C that makes a sliced stage's AirSlide. */
static const char *slide_new(const Stage *st) {
  static char buf[200];
  const WindowSpec *w = st->chain->sel->window;
  int c = st->chain->index;
  snprintf(buf, sizeof buf, "air_slide_new(sizeof(K%d), sizeof(A%d), INT64_C(%" PRId64 "), INT64_C(%" PRId64 "), merge_A%d)",
           c, c, w->size_ms, w->advance_ms, c);
  return buf;
}

static bool loop_stage_of(const Stage *st, const Relation *r) {
  return in_source_loop(st) && leg_source(st) == r;
}

static void source_env(const Stage *st, SegEnv *env, bool ptr, char *win, size_t nw, char *ts,
                       size_t nt, char *slide, size_t ns, char *raw, size_t nr) {
  memset(env, 0, sizeof *env);
  stage_ctx(st, &env->cx, true);
  env->cnt = "st.";
  /* A csv row's lateness is W(i), a function of the file alone (air.h). */
  bool rowwm = !ptr && leg_source(st)->source->time == TIME_SCANNED;
  env->wm = rowwm ? "rowwm" : ptr ? "st->wm" : "st.wm";
  env->outs = ptr ? "st->oe%d" : "st.oe%d";
  snprintf(win, nw, ptr ? "st->win%d" : "st.win%d", st->id);
  env->win = win;
  colref(ts, nt, &env->cx, st->leg, leg_source(st)->time_col);
  env->ts = ts;
  env->dense = st->state.kind == STATE_DENSE;
  if (stage_is_adaptive(st)) {
    snprintf(raw, nr, ptr ? "st->oe%d" : "st.oe%d", st->outs[0]);
    env->raw_port = raw;
    env->stage_id = st->id;
  }
  if (select_grace(st->chain->sel) && st->partial) { /* late rows on as partials of their own */
    snprintf(raw, nr, ptr ? "st->oe%d" : "st.oe%d", st->outs[0]);
    env->grace_port = raw;
  }
  if (st->state.slice_ms) {
    /* a hash partial's slices are its AirSlide; a dense one's are in the
     * AirDense, its extras and cut in the AirSlide */
    if (env->dense)
      snprintf(slide, ns, ptr ? "st->sl%d" : "st.sl%d", st->id);
    else
      snprintf(slide, ns, "%s", win);
    env->slide = slide;
    env->own_wm = !rowwm;
  }
}


/* Make column i of generator row s (every byte of it: no memset needed). */
static void emit_gen_fill(FILE *f, const Relation *r, int i, const char *ind) {
  const Column *col = &r->cols[i];
  char dst[32];
  snprintf(dst, sizeof dst, "s.c%d", i);
  if (col->ysb_field >= 0) { /* a ysb column */
    if (col->ysb_field == AIR_YSB_TS) /* ingestion time */
      fprintf(f, "%s%s = now;\n", ind, dst);
    else
      fprintf(f, "%sconst uint64_t r%d = air_gen_col(h, %d);\n%sair_ysb_fill(%d, r%d, %s, sizeof %s);\n", ind, i,
              col->ysb_field, ind, col->ysb_field, i, dst, dst);
    return;
  }
  const char *ct = ctype(col->type);
  switch (col->gen.kind) {
  case GEN_NONE:
  case GEN_NOW: fprintf(f, "%s%s = now;\n", ind, dst); break;
  case GEN_SEQUENCE:
    fprintf(f, "%s%s = (%s)(int64_t)((uint64_t)INT64_C(%" PRId64 ") + i * (uint64_t)INT64_C(%" PRId64 "));\n", ind,
            dst, ct, col->gen.a, col->gen.b);
    break;
  case GEN_UNIFORM:
    fprintf(f, "%s%s = (%s)air_gen_uniform(air_gen_col(h, %d), INT64_C(%" PRId64 "), INT64_C(%" PRId64 "));\n", ind,
            dst, ct, i, col->gen.a, col->gen.b);
    break;
  case GEN_CHOICE:
    fprintf(f, "%s{\n%s  static const char *const choices[] = {", ind, ind);
    for (int k = 0; k < col->gen.nchoices; k++) {
      fprintf(f, "%s\"", k ? ", " : "");
      c_escape_str(f, col->gen.choices[k], col->gen.choice_lens[k]);
      fprintf(f, "\"");
    }
    fprintf(f, "};\n%s  q_strcpy(%s, sizeof %s, choices[air_gen_col(h, %d) %% %d]);\n%s}\n", ind, dst, dst, i,
            col->gen.nchoices, ind);
    break;
  case GEN_UUID:
    fprintf(f, "%s{\n%s  char u[37];\n%s  air_gen_uuid(air_gen_col(h, %d), u);\n%s  q_strcpy(%s, sizeof %s, u);\n%s}\n",
            ind, ind, ind, i, ind, dst, dst, ind);
    break;
  }
}

/* The generator kinds' row: the columns the queries read, made from the
 * row's number and hash. */
void cg_gen_row(Gen *g, const Relation *r, FILE *out, char **late) {
  const Physical *ph = g->ph;
  const Plan *pl = g->pl;
  const char *ind = "      ";
  char tsvar[32];
  snprintf(tsvar, sizeof tsvar, "s.c%d", r->time_col);
  /* the columns the plan makes late (Stage.late): only for the rows the
   * stage's first Filter passes */
  const bool *lates = NULL;
  for (int i = 0; i < ph->nstages; i++)
    if (loop_stage_of(&ph->stages[i], r) && ph->stages[i].late) lates = ph->stages[i].late;
  Buf latebuf;
  buf_open(&latebuf);
  for (int i = 0; i < r->ncols; i++) {
    if (!source_col_used(pl, r, i)) continue;
    bool late_col = lates && lates[i];
    emit_gen_fill(late_col ? latebuf.f : out, r, i, late_col ? "        " : ind);
  }
  *late = buf_take(&latebuf);
  if (!r->ingestion_time && r->cols[r->time_col].gen.kind == GEN_SEQUENCE) {
    /* sequence() may run past the TIMESTAMP range: the stream ends there */
    fprintf(out, "%sif (%s < AIR_TS_MIN || %s > AIR_TS_MAX) {\n", ind, tsvar, tsvar);
    fprintf(out, "%s  air_gen_end(g, ", ind);
    c_str(out, r->name);
    fprintf(out, ", \"its event time leaves the TIMESTAMP range (years 1 to 9999)\");\n");
    fprintf(out, "%s  n = k;\n%s  break;\n%s}\n", ind, ind, ind);
  }
  if (!r->ingestion_time) fprintf(out, "%sif (%s > st.maxts) st.maxts = %s;\n", ind, tsvar, tsvar);
}

/* The csv kind's row: every field of the record parsed and checked. */
void cg_csv_row(Gen *g, const Relation *r, FILE *out, char **late) {
  (void)g, (void)late;
  emit_csv_parse(out, r, "s", "      ", "csv", "continue");
}

/* A csv reader's file-scope handle, opened before the run starts (setup);
 * path: the C expression of its path. */
static void csv_global(Gen *g, const Relation *r, const char *path, bool single, const char *what) {
  fprintf(g->types.f, "static AirCsv *g_csv%d; /* %s%sopened before the run starts */\n", r->index, what,
          *what ? ", " : "");
  char lhs[32];
  snprintf(lhs, sizeof lhs, "g_csv%d", r->index);
  emit_csv_open(g->setup.f, r, path, single, lhs, "  ");
}

/* The csv kind: its file, each rank reading its share (csv.c). */
void cg_csv_global(Gen *g, const Relation *r) {
  char path[48];
  snprintf(path, sizeof path, "air_opt_str(g_rt, %d)", opt_row(r, OPT_PATH));
  csv_global(g, r, path, false, "");
}

/* The stdin kind: the csv reader over /dev/stdin, on rank 0 alone (the
 * plan's exchanges spread the keyed work over the ranks). */
void cg_stdin_global(Gen *g, const Relation *r) { csv_global(g, r, "\"/dev/stdin\"", true, "standard input"); }

/* The tcp kind: the csv reader over a socket, on rank 0 alone; its path,
 * for messages, is "tcp:host:port". */
void cg_tcp_global(Gen *g, const Relation *r) {
  char path[64];
  snprintf(path, sizeof path, "air_opt_join(g_rt, \"tcp:\", %d)", opt_row(r, r->tcp_listen ? OPT_LISTEN : OPT_CONNECT));
  csv_global(g, r, path, true, r->tcp_listen ? "listening" : "connecting");
}

/* The kafka kind: the csv reader over this rank's partitions (kafka.c);
 * its path, for messages, is "kafka:topics". */
void cg_kafka_global(Gen *g, const Relation *r) {
  char path[64];
  snprintf(path, sizeof path, "air_opt_join(g_rt, \"kafka:\", %d)", opt_row(r, OPT_TOPIC));
  csv_global(g, r, path, false, "kafka partitions j with j mod N == this rank");
}

/* A hole of a source kind's own template. */
static void kind_hole(KindHoles *h, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void kind_hole(KindHoles *h, const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->text[h->n], sizeof h->text[h->n], fmt, ap);
  va_end(ap);
  h->h[h->n] = (TplHole){name, h->text[h->n]};
  h->n++;
}

/* source_gen.c.tpl: the pace, the row limit and the seed, as they are
 * after run-time overrides. */
void cg_gen_holes(const Relation *r, KindHoles *h) {
  kind_hole(h, "RATE", "air_opt_i64(g_rt, %d)", opt_row(r, OPT_RATE));
  kind_hole(h, "LIMIT", "air_opt_i64(g_rt, %d)", opt_row(r, OPT_LIMIT));
  kind_hole(h, "SEED", "air_opt_i64(g_rt, %d)", opt_row(r, OPT_SEED));
  kind_hole(h, "SEED_GIVEN", "air_opt_given(g_rt, %d)", opt_row(r, OPT_SEED));
}

/* source_csv.c.tpl: the file opened at setup (cg_csv_global), its fields. */
void cg_csv_holes(const Relation *r, KindHoles *h) {
  kind_hole(h, "CSV", "g_csv%d", r->index);
  kind_hole(h, "NCOLS", "%d", csv_fields(r));
}

/* A source instance's state in a checkpoint (ckpt.c): its watermark, its
 * reader's position, its partial aggregates; written at the barrier, after
 * its staged rows went into them. */
static void emit_source_ckpt(FILE *f, const Physical *ph, const Relation *r, const char *state, const char *fn) {
  for (int pass = 0; r->source->ckpt && pass < 2; pass++) {
    bool save = pass == 0;
    fprintf(f, "static void %s_%s(%s, void *p) {\n  %s%s *st = p;\n", fn, save ? "save" : "load",
            save ? "AirCkptW *w" : "AirCkptR *r", save ? "const " : "", state);
    const char *io = save ? "w" : "r";
    if (save) fprintf(f, "  air_ckpt_put_i64(w, st->wm);\n");
    else fprintf(f, "  st->wm = air_ckpt_get_min(r, st->wm); /* several files (rescaled): the least */\n");
    if (r->source->time == TIME_GENERATED) {
      if (save) fprintf(f, "  air_ckpt_put_i64(w, st->maxts);\n");
      else fprintf(f, "  st->maxts = air_ckpt_get_min(r, st->maxts);\n");
    }
    if (r->source->ckpt) fprintf(f, "  %s_%s(%s, st->reader);\n", r->source->ckpt, save ? "save" : "load", io);
    for (int i = 0; i < ph->nstages; i++) {
      const Stage *st = &ph->stages[i];
      if (!loop_stage_of(st, r)) continue;
      const char *verb = save ? "save" : "load";
      /* loaded, a partial folds into what another file of the same cut gave it (rescaled) */
      int c = st->chain->index;
      if (st->state.kind == STATE_DENSE) {
        if (save) fprintf(f, "  air_dense_save(w, st->win%d);\n", st->id);
        else fprintf(f, "  air_dense_load(r, st->win%d, merge_A%d);\n", st->id, c);
      }
      if (st->state.slice_ms)
        fprintf(f, "  air_slide_%s(%s, st->%s%d);\n", verb, io, st->state.kind == STATE_DENSE ? "sl" : "win", st->id);
      else if (st->partial && st->state.kind != STATE_DENSE) {
        if (save) fprintf(f, "  air_windows_save(w, st->win%d, NULL);\n", st->id);
        else fprintf(f, "  air_windows_load(r, st->win%d, NULL, NULL, merge_A%d);\n", st->id, c);
      }
      if (!save && stage_is_adaptive(st))
        fprintf(f, "  st->stage_on%d = air_windows_staging(st->win%d);\n", st->id, st->id);
    }
    fprintf(f, "}\n\n");
  }
  if (r->source->ckpt)
    fprintf(f, "static void %s_seek(void *p, const int64_t *pos, int n) {\n  %s_seek(((%s *)p)->reader, pos, n);\n}\n\n",
            fn, r->source->ckpt, state);
  fprintf(f, "/* The rows before a checkpoint's cut are made: the state, then a barrier on each port. */\n");
  fprintf(f, "static void %s_barrier(%s *st, AirVertex *v, int inst) {\n", fn, state);
  for (int i = 0; i < ph->nstages; i++)
    if (loop_stage_of(&ph->stages[i], r) && stage_is_adaptive(&ph->stages[i]))
      fprintf(f, "  flush_partial%d(st);\n", ph->stages[i].id);
  fprintf(f, "  air_ckpt_source_barrier(v, inst, st);\n}\n\n");
}

void emit_source(Gen *g, const Relation *r) {
  const Physical *ph = g->ph;
  int ri = r->index;
  char state[32], fn[32], row[32];
  snprintf(state, sizeof state, "SrcState%d", ri);
  snprintf(fn, sizeof fn, "source%d", ri);
  snprintf(row, sizeof row, "S%d", ri);

  /* per-instance state */
  FILE *o = g->types.f;
  fprintf(o, "typedef struct %s { /* one instance of source ", state);
  c_comment(o, r->name);
  fprintf(o, " */\n  int64_t wm; /* watermark sent, ms */\n");
  if (r->source->time == TIME_GENERATED) fprintf(o, "  int64_t maxts; /* latest event time seen */\n");
  fprintf(o, "  int64_t filtered, unmatched, late; /* counters not yet added to the stats */\n");
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (!loop_stage_of(st, r)) continue;
    for (int k = 0; k < st->nouts; k++)
      fprintf(o, "  AirOut *oe%d; /* pipeline %d's port on edge %d */\n", st->outs[k], st->id, st->outs[k]);
    fprintf(o, "  int64_t sent%d; /* when pipeline %d last sent a watermark */\n", st->id, st->id);
    if (st->state.kind == STATE_DENSE)
      fprintf(o, "  AirDense *win%d; /* pipeline %d's partial aggregates, by key - %" PRId64 "%s */\n", st->id, st->id,
              st->state.lo, st->state.slice_ms ? ", per slice" : "");
    if (st->state.slice_ms)
      fprintf(o, "  AirSlide *%s%d; /* pipeline %d's %s */\n", st->state.kind == STATE_DENSE ? "sl" : "win", st->id,
              st->id, st->state.kind == STATE_DENSE ? "slice cut and rows of one window" : "partial aggregates, per slice");
    else if (st->partial && st->state.kind != STATE_DENSE)
      fprintf(o, "  AirWindows *win%d; /* pipeline %d's partial aggregates */\n", st->id, st->id);
    if (stage_is_adaptive(st))
      fprintf(o, "  bool stage_on%d; /* rows are staged (air_windows_staging) */\n"
                 "  size_t nstg%d; /* rows staged */\n"
                 "  P%d *stg%d; /* staged rows as one-row partials, AIR_STAGE_ROWS */\n"
                 "  uint64_t *stgh%d; /* their key hashes */\n",
              st->id, st->id, st->chain->index, st->id, st->id);
  }
  fprintf(o, "  %s *reader; /* its rows come from here */\n", r->source->reader);
  fprintf(o, "} %s;\n\n", state);

  /* staged rows: merged a batch at a time, each row's slot asked for
   * AIR_STAGE_AHEAD rows before (air_windows_staging) */
  FILE *f = g->funcs.f;
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (!loop_stage_of(st, r) || !stage_is_adaptive(st)) continue;
    int id = st->id, c = st->chain->index;
    fprintf(f, "/* Pipeline %d's staged rows, merged into its partial; then whether to stage on. */\n", id);
    fprintf(f, "static void flush_partial%d(%s *st) {\n", id, state);
    fprintf(f, "  const size_t n = st->nstg%d;\n", id);
    fprintf(f, "  for (size_t k = 0; k < n && k < AIR_STAGE_AHEAD; k++)\n"
               "    air_windows_prefetch(st->win%d, st->stg%d[k].wstart, &st->stg%d[k].key, st->stgh%d[k]);\n",
            id, id, id, id);
    fprintf(f, "  for (size_t k = 0; k < n; k++) {\n");
    fprintf(f, "    if (k + AIR_STAGE_AHEAD < n) {\n"
               "      const P%d *f = &st->stg%d[k + AIR_STAGE_AHEAD];\n"
               "      air_windows_prefetch(st->win%d, f->wstart, &f->key, st->stgh%d[k + AIR_STAGE_AHEAD]);\n    }\n",
            c, id, id, id);
    fprintf(f, "    const P%d *p0 = &st->stg%d[k];\n    bool is_new;\n", c, id);
    fprintf(f, "    A%d *acc = air_windows_partial_acc(st->win%d, p0->wstart, &p0->key, st->stgh%d[k], &is_new);\n", c,
            id, id);
    fprintf(f, "    if (!acc) { /* not pre-aggregating: the row on as a partial of one row */\n"
               "      memcpy(air_out_row(st->oe%d, (int)(hash_K%d(&p0->key) %% (uint64_t)air_world(g_rt))), p0, sizeof *p0);\n"
               "      continue;\n    }\n",
            st->outs[0], c);
    fprintf(f, "    const A%d *p = &p0->acc;\n", c);
    emit_acc_merge(f, st->chain, "    ");
    fprintf(f, "  }\n  st->nstg%d = 0;\n  st->stage_on%d = air_windows_staging(st->win%d);\n}\n\n", id, id, id);
  }

  emit_source_ckpt(f, ph, r, state, fn);

  /* advance: merge staged rows, close partial windows, send watermarks */
  fprintf(f, "static void %s_advance(%s *st, int64_t wm, int64_t now, bool force) {\n", fn, state);
  /* force: forward wm even if it was reached before, when sending was
   * left for later (a stop's cut watermark must reach the consumers) */
  for (int i = 0; i < ph->nstages; i++)
    if (loop_stage_of(&ph->stages[i], r) && stage_is_adaptive(&ph->stages[i]))
      fprintf(f, "  flush_partial%d(st);\n", ph->stages[i].id);
  fprintf(f, "  if (wm < st->wm || (wm == st->wm && !force)) return;\n  st->wm = wm;\n");
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (!loop_stage_of(st, r)) continue;
    SegEnv env;
    char win[32], ts[96], slide[32], raw[32];
    source_env(st, &env, true, win, sizeof win, ts, sizeof ts, slide, sizeof slide, raw, sizeof raw);
    fprintf(f, "  {\n    bool closed = false;\n");
    if (st->partial) emit_close_windows(g, f, st, &env, "    ");
    fprintf(f, "    if (wm == AIR_WM_END) {\n");
    for (int k = 0; k < st->nouts; k++) fprintf(f, "      air_out_flush(st->oe%d);\n", st->outs[k]);
    /* a closed window sends the watermark at once (its results are due),
     * but not an updating query's intervals shorter than a second: EMIT
     * CHANGES closes one per ms, and a message per ms to every rank costs
     * more than the rows (100x on 2 ranks); they go with the next one */
    const Select *ss = st->chain->sel;
    bool eager = !(ss->updating && ss->emit_ms < 1000);
    fprintf(f, "    } else if (%sforce || now - st->sent%d >= WM_EVERY_MS) {\n", eager ? "closed || " : "(void)closed, ",
            st->id);
    emit_forward_wm(f, st, "st->oe%d", "      ");
    fprintf(f, "      st->sent%d = now;\n    }\n  }\n", st->id);
  }
  fprintf(f, "}\n\n");

  /* fill holes */
  Buf open, rows, branches, chunk_end, finish;
  char *late_fill = NULL;
  buf_open(&open);
  buf_open(&rows);
  buf_open(&branches);
  buf_open(&chunk_end);
  buf_open(&finish);
  r->source->emit_row(g, r, rows.f, &late_fill);
  int first_stage = 0;
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (!loop_stage_of(st, r)) continue;
    if (!first_stage) first_stage = st->id;
    for (int k = 0; k < st->nouts; k++)
      fprintf(open.f, "  st.oe%d = air_out_open(v, inst, g_edge[%d]);\n", st->outs[k], st->outs[k]);
    if (st->state.kind == STATE_DENSE)
      fprintf(open.f, "  st.win%d = air_dense_new(INT64_C(%" PRId64 "), INT64_C(%" PRId64 "), sizeof(A%d));\n", st->id,
              st->state.lo, st->state.hi, st->chain->index);
    if (st->state.slice_ms)
      fprintf(open.f, "  st.%s%d = %s;\n", st->state.kind == STATE_DENSE ? "sl" : "win", st->id, slide_new(st));
    else if (st->partial && st->state.kind != STATE_DENSE)
    {
      fprintf(open.f, "  st.win%d = air_windows_new(sizeof(K%d), sizeof(A%d));\n", st->id, st->chain->index,
              st->chain->index);
      if (st->chain->sel->updating && st->chain->sel->emit_ms < 1000)
        fprintf(open.f, "  air_windows_small(st.win%d); /* a window per short interval */\n", st->id);
    }
    if (stage_is_adaptive(st)) {
      fprintf(open.f, "  st.stg%d = malloc(AIR_STAGE_ROWS * sizeof *st.stg%d);\n", st->id, st->id);
      fprintf(open.f, "  st.stgh%d = malloc(AIR_STAGE_ROWS * sizeof *st.stgh%d);\n", st->id, st->id);
      fprintf(open.f, "  if (!st.stg%d || !st.stgh%d) air_oom(\"staged rows\");\n", st->id, st->id);
    }
    SegEnv env;
    char win[32], ts[96], slide[32], raw[32];
    source_env(st, &env, false, win, sizeof win, ts, sizeof ts, slide, sizeof slide, raw, sizeof raw);
    env.late_fill = late_fill;
    emit_ops(g, branches.f, st, st->first, st->last, &env, "      ");
  }
  /* chunk end: counters, then the watermark */
  FILE *ce = chunk_end.f;
  fprintf(ce, "    q_count_rows(st.filtered, st.unmatched, st.late);\n");
  fprintf(ce, "    st.filtered = st.unmatched = st.late = 0;\n");
  if (r->ingestion_time) {
    fprintf(ce, "    %s_advance(&st, now, now, false);\n", fn);
  } else if (r->source->time == TIME_SCANNED) {
    /* every record before the last one read, whichever rank's: no later W(i) is lower */
    fprintf(ce, "    %s_advance(&st, air_csv_scanned_wm(csv), air_now_ms(), false);\n", fn);
  } else {
    fprintf(ce, "    if (st.maxts != AIR_WM_NONE)\n      %s_advance(&st, st.maxts - INT64_C(%" PRId64 "), now, false);\n",
            fn, r->wm_bound_ms);
  }
  /* finish: close every window and send the last rows, then free */
  {
    /* A stop: the rows before the agreed cut are made or read (cut.c). The
     * watermark they imply goes first, so that consumers tell the windows
     * they complete from those AIR_WM_STOP then closes early. */
    fprintf(finish.f, "  int64_t cut;\n  if (%s) {\n", r->source->cut);
    if (r->source->time == TIME_SCANNED && !r->ingestion_time) {
      /* every record before the cut scanned, here as on every rank */
      fprintf(finish.f, "    (void)cut;\n    %s_advance(&st, air_csv_scanned_wm(csv), air_now_ms(), true);\n", fn);
    } else if (r->ingestion_time) {
      fprintf(finish.f, "    %s_advance(&st, air_now_ms(), air_now_ms(), true);\n", fn);
    } else {
      const GenSpec *gs = &r->cols[r->time_col].gen;
      fprintf(finish.f, "    const int64_t limit = air_opt_i64(g_rt, %d);\n", opt_row(r, OPT_LIMIT));
      fprintf(finish.f, "    const int64_t rows = limit > 0 && limit < cut ? limit : cut;\n");
      fprintf(finish.f, "    %s_advance(&st, q_wm_back(q_seq_max(INT64_C(%" PRId64 "), INT64_C(%" PRId64
                        "), rows), INT64_C(%" PRId64 ")), air_now_ms(), true);\n",
              fn, gs->a, gs->b, r->wm_bound_ms);
    }
    fprintf(finish.f, "    %s_advance(&st, AIR_WM_STOP, air_now_ms(), true);\n  }\n", fn);
  }
  fprintf(finish.f, "  %s_advance(&st, AIR_WM_END, air_now_ms(), true);\n", fn);
  for (int i = 0; i < ph->nstages; i++) {
    const Stage *st = &ph->stages[i];
    if (!loop_stage_of(st, r) || !st->partial) continue;
    if (st->state.kind == STATE_DENSE) fprintf(finish.f, "  air_dense_free(st.win%d);\n", st->id);
    if (st->state.slice_ms)
      fprintf(finish.f, "  air_slide_free(st.%s%d);\n", st->state.kind == STATE_DENSE ? "sl" : "win", st->id);
    else if (st->state.kind != STATE_DENSE)
      fprintf(finish.f, "  air_windows_free(st.win%d);\n", st->id);
    if (stage_is_adaptive(st)) fprintf(finish.f, "  free(st.stg%d);\n  free(st.stgh%d);\n", st->id, st->id);
  }

  char id[16];
  snprintf(id, sizeof id, "%d", first_stage);
  Buf srcname;
  buf_open(&srcname);
  c_comment(srcname.f, r->name);
  char *srcname_s = buf_take(&srcname);
  char *open_s = buf_take(&open), *rows_s = buf_take(&rows), *br_s = buf_take(&branches),
       *ce_s = buf_take(&chunk_end), *fin_s = buf_take(&finish);
  KindHoles kh = {.n = 0};
  r->source->holes(r, &kh);
  TplHole holes[11 + sizeof kh.h / sizeof kh.h[0]] = {
      {"ID", id},         {"SOURCE", srcname_s}, {"DESC", r->source->desc}, {"FN", fn},
      {"STATE", state},   {"ROW", row},          {"open", open_s},          {"rows", rows_s},
      {"branches", br_s}, {"chunk_end", ce_s},   {"finish", fin_s}};
  int nholes = 11;
  for (int k = 0; k < kh.n; k++) holes[nholes++] = kh.h[k];
  char err[256];
  bool ok = tpl_fill(f, r->source->tpl, holes, nholes, err, sizeof err);
  if (!ok) {
    diag_fatal_noloc(g->d, "internal error: %s", err);
    g->ok = false;
  }
  fprintf(f, "\n");
  free(srcname_s);
  free(open_s);
  free(rows_s);
  free(br_s);
  free(ce_s);
  free(fin_s);
  free(late_fill);
}

/* ---- consumer stages ------------------------------------------------------- */

/* expr_walk: an aggregate or a window bound makes a column no key column */
static bool not_key_part(void *ctx, const Expr *e) {
  if ((e->kind == EX_CALL && e->agg != AGG_NONE) || e->kind == EX_WINDOW_START || e->kind == EX_WINDOW_END)
    *(bool *)ctx = true;
  return true;
}

/* sink = 'kafka': the producer's settings, and the message key: the result
 * columns made of the GROUP BY keys alone (none without GROUP BY). */
void cg_kafka_sink_def(FILE *su, const Chain *ch, const Relation *r) {
  fprintf(su, "    static const int kkeys[] = {");
  int nkey = 0;
  if (ch->sel->group_by) {
    int i = 0;
    for (const SelectItem *it = ch->sel->items; it; it = it->next, i++) {
      bool other = false;
      expr_walk(it->expr, not_key_part, &other);
      if (!other) fprintf(su, "%s%d", nkey++ ? ", " : "", i);
    }
  }
  fprintf(su, "%s};\n    static const char *const kprops[] = {", nkey ? "" : "-1");
  for (int i = 0; i < 2 * r->nprops; i++) {
    if (i) fprintf(su, ", ");
    c_str(su, r->props[i]);
  }
  fprintf(su, "%s};\n    static AirKafkaSinkDef sdef = {\n", r->nprops ? "" : "NULL");
  fprintf(su, "        .key_fields = kkeys,\n        .nkey = %d,\n        .json = %s,\n        .ops = %s,\n    };\n",
          nkey, r->json ? "true" : "false", select_changes(ch->sel) && ch->sel->emit != EMIT_FINAL ? "true" : "false");
  opt_read(su, "  ", "sdef.brokers", "air_opt_str", r, OPT_BROKERS);
  opt_read(su, "  ", "sdef.topic", "air_opt_str", r, OPT_TOPIC);
  opt_read(su, "  ", "sdef.timeout_ms", "air_opt_i64", r, OPT_TIMEOUT);
  fprintf(su, "    air_opt_props(g_rt, %d, kprops, %d, &sdef.props, &sdef.nprops);\n", opt_row(r, OPT_KAFKA_PROPS),
          r->nprops);
}

/* sink = 'redis': where, the key's prefix, the hash's fields (the result
 * columns) and the key's columns: for each GROUP BY key in turn, the first
 * result column equal to it (sema made sure there is one). */
void cg_redis_sink_def(FILE *su, const Chain *ch, const Relation *r) {
  const Select *sel = ch->sel;
  fprintf(su, "    static const char *const rcols[] = {");
  for (int i = 0; i < sel->nout; i++) {
    if (i) fprintf(su, ", ");
    c_str(su, sel->out[i].name);
  }
  fprintf(su, "};\n    static const int rkeys[] = {");
  int nkey = 0;
  for (int k = 0; k < sel->nkeys; k++)
    for (int i = 0; i < sel->nout; i++)
      if (sel->out[i].expr && sel->out[i].expr->key_idx == k) {
        fprintf(su, "%s%d", nkey++ ? ", " : "", i);
        break;
      }
  fprintf(su, "%s};\n    static AirRedisSinkDef sdef = {\n        .name = ", nkey ? "" : "-1");
  c_str(su, r->name);
  fprintf(su, ",\n        .columns = rcols,\n        .ncolumns = %d,\n        .key_fields = rkeys,\n        .nkey = %d,\n",
          sel->nout, nkey);
  if (sel->updating) /* upserts: a hash per key, made anew by each change */
    fprintf(su, "        .upsert = true,\n        .ops = %s,\n", sel->emit != EMIT_FINAL ? "true" : "false");
  fprintf(su, "    };\n");
  opt_read(su, "  ", "sdef.address", "air_opt_str", r, OPT_ADDRESS);
  /* the prefix's default: the sink's name and ':' */
  fprintf(su, "    sdef.prefix = air_opt_given(g_rt, %d) ? air_opt_str(g_rt, %d) : ", opt_row(r, OPT_PREFIX),
          opt_row(r, OPT_PREFIX));
  c_str(su, r->name);
  fprintf(su, " \":\";\n");
  opt_read(su, "  ", "sdef.password", "air_opt_str", r, OPT_PASSWORD);
  opt_read(su, "  ", "sdef.db", "(int)air_opt_i64", r, OPT_DB);
  opt_read(su, "  ", "sdef.timeout_ms", "air_opt_i64", r, OPT_TIMEOUT);
}

/* sink = 'tcp': the server, and how long it may take nothing. */
void cg_tcp_sink_def(FILE *su, const Chain *ch, const Relation *r) {
  (void)ch;
  fprintf(su, "    static AirTcpSinkDef sdef = {\n        .name = ");
  c_str(su, r->name);
  fprintf(su, ",\n    };\n");
  opt_read(su, "  ", "sdef.address", "air_opt_str", r, OPT_CONNECT);
  opt_read(su, "  ", "sdef.timeout_ms", "air_opt_i64", r, OPT_TIMEOUT);
}

static void emit_collector(Gen *g, const Stage *st) {
  const Chain *ch = st->chain;
  int c = ch->index;
  const Operator *sink = stage_op(st, st->first);
  const SinkKindDef *kind = sink->rel ? sink->rel->sink : NULL;
  FILE *su = g->setup.f;
  char *hdr = csv_header(ch->sel);
  fprintf(su, "  {\n");
  if (kind && kind->emit_def) kind->emit_def(su, ch, sink->rel);
  fprintf(su, "    static AirCollectorDef def = {\n");
  fprintf(su, "        .row_size = sizeof(O%d),\n        .wend_offset = offsetof(O%d, wend),\n", c, c);
  fprintf(su, "        .ts_offset = offsetof(O%d, ts),\n        .windowed = %s,\n", c, ch->windowed ? "true" : "false");
  fprintf(su, "        .latency = %s,\n", ch->source->ingestion_time || ch->source->proc_col >= 0 ? "true" : "false");
  fprintf(su, "        .compare = cmp_O%d,\n        .format = fmt_O%d,\n        .line_max = LINE_MAX_O%d,\n        .header = ", c, c, c);
  if (sink->rel && sink->rel->json)
    fprintf(su, "NULL /* JSON lines: no header */");
  else if (kind && !kind->header)
    fprintf(su, "NULL /* a message or a hash per row: no header */");
  else
    c_str(su, hdr);
  /* an unbounded source (as compiled): the file is written in place, window by window */
  if (kind && kind->file && (relation_unbounded(ch->source) || relation_unbounded(ch->source1)))
    fprintf(su, ",\n        .live = true");
  if (kind && kind->ops) fprintf(su, ",\n        .sink_ops = &%s,\n        .sink_def = &sdef", kind->ops);
  /* Several queries on standard output: every line of each (its header
   * too) starts with the query's number as --explain shows it. */
  if (!sink->rel && g->pl->nstdout > 1) fprintf(su, ",\n        .tag = \"q%d\"", ch->number);
  if (ch->sel->limit > 0) fprintf(su, ",\n        .limit = INT64_C(%" PRId64 ")", ch->sel->limit);
  if (ch->sel->limit_part > 0) fprintf(su, ",\n        .same_part = part_O%d", ch->index);
  if (ch->sel->rank_where) fprintf(su, ",\n        .keep = keep_O%d", ch->index);
  for (int i = 0; i < ch->sel->nout; i++)
    if (ch->sel->out[i].expr && ch->sel->out[i].expr->kind == EX_ROW_NUMBER)
      fprintf(su, ",\n        .rn = true,\n        .rn_offset = offsetof(O%d, o%d)", ch->index, i);
  fprintf(su, ",\n    };\n");
  if (kind && kind->file) opt_read(su, "  ", "def.path", "air_opt_str", sink->rel, OPT_PATH);
  fprintf(su, "    air_collector_new(g_rt, \"results of query %d\", g_edge[%d], &def);\n  }\n", ch->number, st->edge);
  free(hdr);
}

void emit_stage(Gen *g, const Stage *st) {
  if (is_sink_stage(st)) {
    emit_collector(g, st);
    return;
  }
  const Chain *ch = st->chain;
  const Select *s = ch->sel;
  int c = ch->index;
  FILE *f = g->funcs.f;
  FILE *su = g->setup.f;
  bool session = st->state.kind == STATE_SESSIONS;
  bool windows = st->state.kind == STATE_WINDOWS || st->state.kind == STATE_JOIN;
  bool sliced = st->state.slice_ms != 0;
  bool results = session || (sliced && !st->partial); /* closed windows come back through _result */
  char ctxn[48], fn[48], id[16];
  snprintf(ctxn, sizeof ctxn, "stage%d", st->id);
  snprintf(fn, sizeof fn, "stage%d", st->id);
  snprintf(id, sizeof id, "%d", st->id);

  Buf fields, body, wmk, desc;
  buf_open(&fields);
  buf_open(&body);
  buf_open(&wmk);
  buf_open(&desc);
  for (int k = 0; k < st->nouts; k++)
    fprintf(fields.f, "  AirOut *oe%d; /* port on edge %d */\n", st->outs[k], st->outs[k]);
  fprintf(fields.f, "  int64_t wm; /* input watermark, ms */\n");
  if (sliced) fprintf(fields.f, "  AirSlide *win; /* open slices and windows: key -> state */\n");
  else if (windows) fprintf(fields.f, "  AirWindows *win; /* open windows: key -> state */\n");
  if (session) fprintf(fields.f, "  AirSessions *win; /* open sessions per key */\n");
  const bool grace = select_grace(s) && windows && !is_join_stage(st) && !sliced;
  if (grace && !st->partial)
    fprintf(fields.f, "  AirWindows *lwin; /* GRACE PERIOD: each window's late rows, until end + grace */\n"
                      "  AirWindows *kwin; /* ... and the accumulators of its rows written at its end */\n");
  const bool cum = s->updating && windows && !st->partial && !is_join_stage(st);
  if (cum) fprintf(fields.f, "  AirHash *cum; /* key -> its running aggregates and row (C%d) */\n", c);
  if (cum && s->ttl_ms) fprintf(fields.f, "  int64_t swept; /* the watermark of the last state_ttl sweep */\n");
  c_comment(desc.f, g->pl->chains[c].label);
  fprintf(desc.f, ", ");
  for (int i = st->first; i <= st->last; i++)
    fprintf(desc.f, "%s%s", i > st->first ? " -> " : "", op_name(stage_op(st, i)->kind));
  if (st->final) fprintf(desc.f, " (final: merges per-rank partials)");

  char outs[64], win[64], wmv[64];
  snprintf(outs, sizeof outs, "%s.oe%%d", ctxn);
  snprintf(win, sizeof win, "%s.win", ctxn);
  snprintf(wmv, sizeof wmv, "%s.wm", ctxn);
  SegEnv env = {.cnt = "", .outs = outs, .win = win, .wm = wmv, .slide = sliced ? win : NULL};
  char lwin[64], kwin[64], gport[64];
  if (grace && st->partial) {
    snprintf(gport, sizeof gport, outs, st->outs[0]);
    env.grace_port = gport;
  } else if (grace) {
    snprintf(lwin, sizeof lwin, "%s.lwin", ctxn);
    snprintf(kwin, sizeof kwin, "%s.kwin", ctxn);
    env.grace_win = lwin;
    env.grace_kept = kwin;
  }
  stage_ctx(st, &env.cx, false);
  /* Lateness is decided against the watermark of the row's source rank
   * when it was read (carried in R and O rows), so that a row is late or
   * not whatever the fusion and the timing of other ranks' watermarks. */
  env.wm = "r->srcwm";
  if (s->join_retracts && st->leg == 0 && st->chain->join_at >= 0 && st->first > st->chain->join_at)
    env.op = "r->op"; /* an outer regular join's rows, on from its stage */
  char ts[96];
  if (st->first == 0)
    colref(ts, sizeof ts, &env.cx, st->leg, leg_source(st)->time_col);
  else
    snprintf(ts, sizeof ts, "r->ts");
  env.ts = ts;

  FILE *b = body.f;
  char rt0[16], rt1[16];
  edge_row_type(g->ph, st->edge, rt0, sizeof rt0);
  if (st->final) {
    fprintf(b, "  const P%d *in = rows;\n", c);
    if (!sliced && !grace) /* tables past the caches: each row's slot asked for ahead (air_windows_staging) */
      fprintf(b, "  const size_t ahead = air_windows_staging(%s) ? AIR_STAGE_AHEAD : 0;\n"
                 "  for (size_t k = 0; k < nrows && k < ahead; k++)\n"
                 "    air_windows_prefetch(%s, in[k].wstart, &in[k].key, hash_K%d(&in[k].key));\n",
              win, win, c);
    fprintf(b, "  for (size_t k = 0; k < nrows; k++) {\n");
    if (!sliced && !grace)
      fprintf(b, "    if (ahead && k + ahead < nrows)\n"
                 "      air_windows_prefetch(%s, in[k + ahead].wstart, &in[k + ahead].key, hash_K%d(&in[k + ahead].key));\n",
              win, c);
    fprintf(b, "    const P%d *p0 = &in[k];\n    bool is_new;\n", c);
    if (sliced)
      fprintf(b, "    A%d *acc = (p0->whole ? air_slide_extra : air_slide_acc)(%s, p0->wstart, &p0->key, hash_K%d(&p0->key), &is_new);\n",
              c, win, c);
    else if (grace) /* a late bucket's partial (AIR_GRACE_LATE) or an on-time one */
      fprintf(b, "    const bool late = p0->wstart >= AIR_GRACE_LATE;\n"
                 "    A%d *acc = air_windows_acc(late ? %s.lwin : %s, late ? p0->wstart - AIR_GRACE_LATE : p0->wstart, "
                 "&p0->key, hash_K%d(&p0->key), &is_new);\n", c, ctxn, win, c);
    else
      fprintf(b, "    A%d *acc = air_windows_acc(%s, p0->wstart, &p0->key, hash_K%d(&p0->key), &is_new);\n", c, win, c);
    fprintf(b, "    const A%d *p = &p0->acc;\n", c);
    emit_acc_merge(b, ch, "    ");
    fprintf(b, "  }\n");
  } else if (is_join_stage(st)) {
    edge_row_type(g->ph, st->edge1, rt1, sizeof rt1);
    for (int side = 0; side < 2; side++) {
      fprintf(b, "  %sif (input == %d) {\n", side ? "else " : "", side);
      fprintf(b, "    const %s *in = rows;\n    for (size_t k = 0; k < nrows; k++) {\n", side ? rt1 : rt0);
      fprintf(b, "      const %s *r = &in[k];\n", side ? rt1 : rt0);
      SegEnv je = env;
      je.cx.home[0] = side ? HOME_NONE : HOME_EDGE;
      je.cx.home[1] = side ? HOME_EDGE : HOME_NONE;
      if (s->interval_join)
        emit_interval_join_row(g, b, st, &je, side, "      ");
      else
        emit_join_insert(b, ch, &je, side, "      ");
      fprintf(b, "    }\n  }\n");
    }
  } else {
    fprintf(b, "  const %s *in = rows;\n  for (size_t k = 0; k < nrows; k++) {\n", rt0);
    fprintf(b, "    const %s *r = &in[k];\n", rt0);
    emit_ops(g, b, st, st->first, st->last, &env, "    ");
    fprintf(b, "  }\n");
  }

  FILE *w = wmk.f;
  if (session) {
    /* sessions that met are merged; closed ones become result rows */
    fprintf(w, "  air_sessions_close(%s, wm, %s_result, NULL);\n", win, fn);
  } else if (windows) {
    emit_close_windows(g, w, st, &env, "  ");
  }
  fprintf(w, "  if (wm != AIR_WM_END) {\n");
  emit_forward_wm(w, st, outs, "    ");
  fprintf(w, "  }\n");

  char *fields_s = buf_take(&fields), *body_s = buf_take(&body), *wmk_s = buf_take(&wmk),
       *desc_s = buf_take(&desc);
  /* the session emitter is called from on_watermark and writes to the
   * stage's ports: declared before, defined after the stage */
  if (results)
    fprintf(f, "static void %s_result(const void *kp, int64_t ws, int64_t we, void *ap, void *cx);\n", fn);
  TplHole holes[] = {{"ID", id},     {"DESC", desc_s}, {"CTX", ctxn},          {"FN", fn},
                     {"state_fields", fields_s},      {"body", body_s},       {"on_watermark", wmk_s}};
  char err[256];
  if (!tpl_fill(f, "stage.c.tpl", holes, (int)(sizeof holes / sizeof holes[0]), err, sizeof err)) {
    diag_fatal_noloc(g->d, "internal error: %s", err);
    g->ok = false;
  }
  /* its state in a checkpoint: the watermark and the open windows or
   * sessions; read back on another number of ranks, the keys it owns now
   * (the routing hash of the exchange before it) */
  bool keyed = session || (windows && !is_join_stage(st) && !sliced);
  if (keyed)
    fprintf(f, "\nstatic uint64_t %s_route(const void *k) { /* checkpoints */\n  return hash_K%d((const K%d *)k);\n}\n",
            fn, c, c);
  for (int pass = 0; pass < 2; pass++) {
    bool save = pass == 0;
    const char *verb = save ? "save" : "load", *io = save ? "w" : "r";
    fprintf(f, "\nstatic void %s_%s(%s, void *ctx) {\n  (void)ctx;\n", fn, verb, save ? "AirCkptW *w" : "AirCkptR *r");
    if (save) fprintf(f, "  air_ckpt_put_i64(w, %s.wm);\n", ctxn);
    else fprintf(f, "  %s.wm = air_ckpt_get_min(r, %s.wm);\n", ctxn, ctxn);
    if (session && save) fprintf(f, "  air_sessions_save(w, %s.win);\n", ctxn);
    else if (session) fprintf(f, "  air_sessions_load(r, %s.win, %s_route);\n", ctxn, fn);
    else if (sliced) fprintf(f, "  air_slide_%s(%s, %s.win);\n", verb, io, ctxn);
    else if (is_join_stage(st) && save) fprintf(f, "  air_windows_save(w, %s.win, save_J%d);\n", ctxn, c);
    else if (is_join_stage(st)) fprintf(f, "  air_windows_load(r, %s.win, load_J%d, NULL, NULL);\n", ctxn, c);
    else if (windows && save) fprintf(f, "  air_windows_save(w, %s.win, NULL);\n", ctxn);
    else if (windows && st->partial) /* each rank held its partials of any key: rescaled, folded at the key's rank */
      fprintf(f, "  air_windows_load(r, %s.win, NULL, %s_route, merge_A%d);\n", ctxn, fn, c);
    else if (windows) fprintf(f, "  air_windows_load(r, %s.win, NULL, %s_route, NULL);\n", ctxn, fn);
    if (grace && !st->partial && save)
      fprintf(f, "  air_windows_save(w, %s.lwin, NULL);\n  air_windows_save(w, %s.kwin, NULL);\n", ctxn, ctxn);
    else if (grace && !st->partial)
      fprintf(f, "  air_windows_load(r, %s.lwin, NULL, %s_route, NULL);\n  air_windows_load(r, %s.kwin, NULL, %s_route, NULL);\n",
              ctxn, fn, ctxn, fn);
    if (cum && save) fprintf(f, "  air_hash_save(w, %s.cum, NULL);\n", ctxn);
    else if (cum) fprintf(f, "  air_hash_load(r, %s.cum, NULL, %s_route, NULL);\n", ctxn, fn);
    fprintf(f, "}\n");
  }
  if (results) {
    fprintf(f, "\n/* A closed %s of pipeline %d: its result row. */\n", session ? "session" : "window", st->id);
    fprintf(f, "static void %s_result(const void *kp, int64_t ws, int64_t we, void *ap, void *cx) {\n", fn);
    fprintf(f, "  (void)cx;\n  const K%d *key = kp;\n  const A%d *acc = ap;\n  (void)key;\n", c, c);
    fprintf(f, "  const int64_t wstart = ws, wend = we;\n");
    emit_window_result(f, st, &env, "  ", "return");
    fprintf(f, "}\n");
  }
  fprintf(f, "\n");
  free(fields_s);
  free(body_s);
  free(wmk_s);
  free(desc_s);

  fprintf(su, "  {\n");
  if (st->edge1 >= 0)
    fprintf(su, "    AirEdge *in[2] = {g_edge[%d], g_edge[%d]};\n", st->edge, st->edge1);
  else
    fprintf(su, "    AirEdge *in[1] = {g_edge[%d]};\n", st->edge);
  fprintf(su, "    AirVertex *v = air_vertex_consumer(g_rt, \"pipeline %d\", in, %d, %s_batch, %s_watermark, NULL, false);\n",
          st->id, st->edge1 >= 0 ? 2 : 1, fn, fn);
  fprintf(su, "    %s.wm = AIR_WM_NONE;\n", ctxn);
  fprintf(su, "    air_vertex_ckpt(v, %s_save, %s_load, NULL);\n", fn, fn);
  for (int k = 0; k < st->nouts; k++)
    fprintf(su, "    %s.oe%d = air_out_open(v, 0, g_edge[%d]);\n", ctxn, st->outs[k], st->outs[k]);
  if (session)
    fprintf(su, "    %s.win = air_sessions_new(sizeof(K%d), sizeof(A%d), INT64_C(%" PRId64 "), merge_A%d);\n", ctxn, c,
            c, s->window->gap_ms, c);
  else if (sliced)
    fprintf(su, "    %s.win = %s;\n", ctxn, slide_new(st));
  else if (is_join_stage(st))
    fprintf(su, "    %s.win = air_windows_new(sizeof(K%d), sizeof(J%d));\n", ctxn, c, c);
  else if (windows)
    fprintf(su, "    %s.win = air_windows_new(sizeof(K%d), sizeof(A%d));\n", ctxn, c, c);
  if (windows && !is_join_stage(st) && !sliced && s->updating && s->emit_ms < 1000)
    fprintf(su, "    air_windows_small(%s.win); /* a window per short interval */\n", ctxn);
  if (grace && !st->partial)
    fprintf(su, "    %s.lwin = air_windows_new(sizeof(K%d), sizeof(A%d));\n    %s.kwin = air_windows_new(sizeof(K%d), sizeof(A%d));\n",
            ctxn, c, c, ctxn, c, c);
  if (cum) fprintf(su, "    %s.cum = air_hash_new(sizeof(K%d), sizeof(C%d), 1024);\n", ctxn, c, c);
  if (cum && s->ttl_ms) fprintf(su, "    %s.swept = INT64_MIN / 2;\n", ctxn);
  fprintf(su, "  }\n");
}
