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
  q_count_rows(filtered, unmatched, late);
}

/* Closing a window may run operators too (a Filter after a Join): their
 * counters are added like the batch function's. */
static void @FN@_watermark(AirVertex *v, int64_t wm, void *ctx) {
  (void)v;
  (void)ctx;
  bool closed = false;
  (void)closed;
  int64_t filtered = 0, unmatched = 0, late = 0;
/*%% on_watermark %%*/
  @CTX@.wm = wm;
  q_count_rows(filtered, unmatched, late);
}
