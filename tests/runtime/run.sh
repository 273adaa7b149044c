#!/bin/sh
# libair integration test: tests/runtime/wsum.c on 1..4 ranks against an
# independent awk computation of the same windowed sums; rate limit,
# --duration, --stats-json, file output and 20 repeated runs (hangs).
# Run from anywhere: sh tests/runtime/run.sh   (needs mpicc, mpirun, awk)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${WSUM_TMP:-build/tests/runtime}
mkdir -p "$OUT"
LIBAIR=${LIBAIR:-build/libair.a}
[ -n "${LIBAIR_NO_MAKE:-}" ] || make -s "$LIBAIR" || exit 1
${MPICC:-mpicc} -std=c11 -D_GNU_SOURCE ${WSUM_CFLAGS:--O2 -g} -Wall -Wextra -pthread -Iruntime \
  tests/runtime/wsum.c "$LIBAIR" -lm -o "$OUT/wsum" || exit 1
T=${TIMEOUT:-120}
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# expected N SIZE: key = i % 50, value = i % 97, window = i / SIZE
expected() {
  awk -v n="$1" -v size="$2" 'BEGIN {
    for (i = 0; i < n; i++) { k = i % 50; w = int(i / size); t[w, k] += i % 97; seen[w, k] = 1 }
    print "key,total,WINDOW_END"
    nw = int((n + size - 1) / size)
    for (w = 0; w < nw; w++) for (k = 0; k < 50; k++) if ((w, k) in seen) print k "," t[w, k] "," (w + 1) * size
  }'
}

expected 200000 1000 > "$OUT/exp1.csv"
for np in 1 2 3 4; do
  if timeout $T mpirun -np $np "$OUT/wsum" --quiet 200000 1000 > "$OUT/np$np.csv" &&
     cmp -s "$OUT/np$np.csv" "$OUT/exp1.csv"; then ok "np $np: 200000 rows, 10000 windows"
  else bad "np $np: output differs from the reference (or run failed)"; fi
done
for np in 2 3 4; do
  cmp -s "$OUT/np1.csv" "$OUT/np$np.csv" || bad "np 1 and np $np outputs differ"
done

# Uneven sizes, 2 generator threads per rank, result file via path.tmp.
expected 77777 700 > "$OUT/exp2.csv"
rm -f "$OUT/file.csv"
if WSUM_OUT="$OUT/file.csv" timeout $T mpirun -np 3 "$OUT/wsum" --threads 2 --quiet 77777 700 > "$OUT/stdout.txt" &&
   cmp -s "$OUT/file.csv" "$OUT/exp2.csv" && [ ! -s "$OUT/stdout.txt" ] && [ ! -e "$OUT/file.csv.tmp" ]
then ok "np 3, --threads 2, output file"
else bad "np 3, --threads 2, output file"; fi

# Backpressure: a bigger stream on 4 ranks through small queues.
expected 3000000 10000 > "$OUT/exp3.csv"
if timeout $T mpirun -np 4 "$OUT/wsum" --quiet 3000000 10000 > "$OUT/big.csv" &&
   cmp -s "$OUT/big.csv" "$OUT/exp3.csv"; then ok "np 4: 3000000 rows"
else bad "np 4: 3000000 rows"; fi

# Every row over MPI (no partial sums): batching and backpressure.
for np in 2 4; do
  if WSUM_RAW=1 timeout $T mpirun -np $np "$OUT/wsum" --quiet --threads 2 3000000 10000 > "$OUT/raw.csv" &&
     cmp -s "$OUT/raw.csv" "$OUT/exp3.csv"; then ok "np $np: 3000000 raw rows, 2 threads"
  else bad "np $np: 3000000 raw rows, 2 threads"; fi
done

# --stats-json: counters merged over ranks.
if timeout $T mpirun -np 2 "$OUT/wsum" --quiet --stats-json "$OUT/stats.json" 200000 1000 > /dev/null &&
   grep -q '"events_in":200000,' "$OUT/stats.json" && grep -q '"windows":10000,' "$OUT/stats.json" &&
   grep -q '"late":0,"dropped":0,' "$OUT/stats.json"
then ok "--stats-json"
else bad "--stats-json: $(cat "$OUT/stats.json" 2>/dev/null)"; fi

# Rate limit and --duration: 20000 events/s for 2 s over 2 ranks.
start=$(date +%s.%N)
if timeout 30 mpirun -np 2 "$OUT/wsum" --rate 20000 --duration 2 --stats-json "$OUT/rate.json" \
     1000000000 100000 > "$OUT/rate.csv" 2> "$OUT/rate.err"; then
  end=$(date +%s.%N)
  ev=$(sed 's/.*"events_in":\([0-9]*\),.*/\1/' "$OUT/rate.json")
  el=$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')
  if [ "$ev" -ge 30000 ] && [ "$ev" -le 46000 ] && awk -v e="$el" 'BEGIN { exit !(e >= 1.8 && e < 6) }'
  then ok "--rate 20000 --duration 2: $ev events in ${el} s"
  else bad "--rate 20000 --duration 2: $ev events in ${el} s"; fi
  # The header is written even before the first window closes.
  head -1 "$OUT/rate.csv" | grep -qx 'key,total,WINDOW_END' || bad "rate run: header"
else bad "--rate/--duration run failed: $(cat "$OUT/rate.err")"; fi

# Unknown flag: exit 2 with one message.
timeout $T mpirun -np 2 "$OUT/wsum" --bogus > /dev/null 2> "$OUT/flag.err"
st=$?
if [ $st -eq 2 ] && [ "$(grep -c "unknown option '--bogus'" "$OUT/flag.err")" -eq 1 ]; then ok "unknown flag"
else bad "unknown flag: status $st, $(cat "$OUT/flag.err")"; fi

# Clean termination, every time.
hangs=0
for i in $(seq 1 ${REPEAT:-20}); do
  np=$(( (i % 4) + 1 ))
  if ! timeout 60 mpirun -np $np "$OUT/wsum" --quiet 50000 300 > "$OUT/rep.csv" 2> "$OUT/rep.err"; then
    hangs=$((hangs + 1)); echo "  run $i (np $np) failed or hung: $(cat "$OUT/rep.err")"
  elif ! expected 50000 300 | cmp -s - "$OUT/rep.csv"; then
    hangs=$((hangs + 1)); echo "  run $i (np $np): wrong output"
  fi
done
[ $hangs -eq 0 ] && ok "${REPEAT:-20} repeated runs end cleanly" || bad "$hangs of ${REPEAT:-20} repeated runs"

[ $fail -eq 0 ] && echo "runtime tests passed" || echo "runtime tests FAILED"
exit $fail
