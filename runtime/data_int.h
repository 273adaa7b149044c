/* data_int.h - libair internals of gen.c and csv.c, exposed for unit tests.
 *
 * The public constructors take a vertex or a runtime and read rank, world
 * and threads from it; these variants take them directly so generators and
 * CSV readers can be tested without MPI. rt may be NULL: no stop requests,
 * no stats.
 */
#ifndef AIR_DATA_INT_H
#define AIR_DATA_INT_H

#include "air.h"

/* Rows at `rate` per second (pace.c), for generators and csv replay. */
typedef struct AirPace {
  double rate;     /* rows/s, 0 = unthrottled */
  int64_t t0_ns;   /* pacing origin, monotonic ns; 0 until the first take */
  double emitted;  /* rows allowed since t0_ns */
} AirPace;
void air_pace_init(AirPace *p, double rate);
/* How many of n rows may go now (all of them when unthrottled), after
 * sleeping as the rate needs; 0 after a short nap when the wait is longer
 * (the caller sends its watermark, checks for a stop and asks again). */
uint64_t air_pace_take(AirPace *p, uint64_t n);

/* A generator instance `instance` of `threads` on rank `rank` of `world`.
 * rate is the final rate over all ranks (0 = unthrottled), seed the final
 * seed. Owned by the caller; free with air_gen_close. */
AirGen *air_gen_open_at(AirRuntime *rt, int rank, int world, int instance,
                        int threads, int64_t rate, int64_t limit,
                        int64_t seed);

/* A CSV reader of every record (air_csv_split_local then deals a regular
 * file's blocks to several readers, as ranks). NULL with errno set when the file
 * cannot be opened. With rt NULL what would end the run (a header that
 * does not match, a read error, a file that shrank) is kept for
 * air_csv_error instead, the input then ending. Anything but a regular
 * file is read by this reader alone, waiting in poll(2). Owned by the
 * caller; free with air_csv_close. */
AirCsv *air_csv_open_at(AirRuntime *rt, const AirCsvDef *def);
const char *air_csv_error(const AirCsv *c); /* that message, or NULL */
/* The split of a regular file's stream across ranks (csv.c), without MPI:
 * readers[r] is rank r's of world (each opened with rank 0, world 1), size
 * the file's size, block the bytes per block (0: the default). */
void air_csv_split_local(AirCsv **readers, int world, uint64_t size, uint64_t block);
long air_csv_bad_count(const AirCsv *c); /* rows passed to air_csv_bad_row */

#endif /* AIR_DATA_INT_H */
