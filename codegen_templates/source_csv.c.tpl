/* Pipeline @ID@: source @SOURCE@, @DESC@ (template source_csv.c.tpl).
 * This rank reads its blocks of the file's records; malformed rows are
 * skipped and counted. Every query reading this source runs in this loop.
 * Lateness and watermarks follow the file's record order only (air.h). */
static void @FN@(AirVertex *v, int inst, void *ctx) {
  (void)inst;
  (void)ctx;
  @STATE@ st;
  memset(&st, 0, sizeof st);
  st.wm = AIR_WM_NONE;
/*%% open %%*/
  AirCsv *csv = @CSV@;
  air_csv_bind(csv, v);
  st.reader = csv;
  air_ckpt_source_begin(v, inst, &st); /* resuming: the state of a checkpoint */
  AirField f[@NCOLS@ + 1];
  long line = 0;
  int nf = 0;
  for (;;) {
    size_t n = 0;
    /* a chunk ends early when replay at a rate waits: time for the watermark */
    while (n < CHUNK_ROWS && (nf = air_csv_next(csv, f, @NCOLS@ + 1, &line)) != AIR_CSV_END &&
           nf != AIR_CSV_WAIT && nf != AIR_CSV_BARRIER) {
      if (nf == AIR_CSV_BAD_QUOTING) {
        air_csv_bad_row(csv, line, air_csv_bad_why(csv));
        continue;
      }
      if (nf != @NCOLS@) {
        air_csv_bad_row(csv, line, "expected @NCOLS@ fields");
        continue;
      }
      /* W(i): the row is late for windows that ended by then */
      const int64_t rowwm = air_csv_row_wm(csv);
      (void)rowwm;
      @ROW@ s;
      memset(&s, 0, sizeof s);
/*%% rows %%*/
      n++;
/*%% branches %%*/
    }
    air_stat_add(g_rt, AIR_STAT_EVENTS_IN, (int64_t)n);
/*%% chunk_end %%*/
    if (nf == AIR_CSV_BARRIER) @FN@_barrier(&st, v, inst); /* a checkpoint's cut */
    if (nf == AIR_CSV_END) break;
  }
/*%% finish %%*/
}
