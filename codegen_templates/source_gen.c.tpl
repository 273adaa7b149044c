/* Pipeline @ID@: source @SOURCE@, @DESC@ (template source_gen.c.tpl).
 * Each instance makes its share of the rows (air_gen_next) and runs every
 * query reading this source on each row, in this loop. */
static void @FN@(AirVertex *v, int inst, void *ctx) {
  (void)ctx;
  @STATE@ st;
  memset(&st, 0, sizeof st);
  st.wm = AIR_WM_NONE;
  st.maxts = AIR_WM_NONE;
/*%% open %%*/
  AirGen *g = air_gen_open(v, inst, @RATE@, @LIMIT@, @SEED@, @SEED_GIVEN@);
  st.reader = g;
  air_ckpt_source_begin(v, inst, &st); /* resuming: the state of a checkpoint */
  const int64_t seed = air_gen_seed(g);
  for (;;) {
    uint64_t first, stride;
    int64_t now;
    size_t n = air_gen_next(g, CHUNK_ROWS, &first, &stride, &now);
    if (n == 0 && air_gen_done(g)) break;
    for (size_t k = 0; k < n; k++) {
      const uint64_t i = first + k * stride;
      const uint64_t h = air_gen_row(seed, i);
      @ROW@ s;
      (void)i;
      (void)h;
/*%% rows %%*/
/*%% branches %%*/
    }
    air_stat_add(g_rt, AIR_STAT_EVENTS_IN, (int64_t)n);
/*%% chunk_end %%*/
    if (air_gen_barrier(g)) @FN@_barrier(&st, v, inst); /* a checkpoint's cut */
  }
/*%% finish %%*/
  air_gen_close(g);
}
