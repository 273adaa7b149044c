/* Pipeline @ID@: @DESC@ (template stage.c.tpl).
 * Runs on its own thread on every rank; rows arrive in batches. */
static struct {
/*%% state_fields %%*/
} @CTX@;

static void @FN@_batch(AirVertex *v, int input, const void *rows, size_t nrows, void *ctx) {
  (void)v;
  (void)input;
  (void)ctx;
  int64_t filtered = 0, unmatched = 0, late = 0;
/*%% body %%*/
  if (filtered) air_stat_add(g_rt, AIR_STAT_FILTERED, filtered);
  if (unmatched) air_stat_add(g_rt, AIR_STAT_UNMATCHED, unmatched);
  if (late) air_stat_add(g_rt, AIR_STAT_LATE, late);
}

static void @FN@_watermark(AirVertex *v, int64_t wm, void *ctx) {
  (void)v;
  (void)ctx;
  bool closed = false;
  (void)closed;
/*%% on_watermark %%*/
  @CTX@.wm = wm;
}
