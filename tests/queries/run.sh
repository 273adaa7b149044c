#!/bin/sh
# Every example in queries/ compiles with airc and runs briefly on 2 ranks:
# exit status 0, the CSV header its select list implies (written out by hand
# below, from the query text), and the end-of-run summary. Each query runs
# in a copy of queries/ (its files are relative to it) for at most
# --duration 2 s (finite sources end earlier). Run from the repository root
# (make check-queries). Environment: AIRC (default build/airc), KEEP=1.

set -u

root=$(pwd)
AIRC=${AIRC:-$root/build/airc}
case $AIRC in /*) ;; */*) AIRC=$root/$AIRC ;; esac
harness=queries
ok_prefix="queries "
show_lines=20
# shellcheck source=tests/lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"

# name | where the results go | their header | a line the summary must have
expect() {
  case $1 in
    filter_map) echo "stdout|id,sensor,celsius,band|" ;;
    table_join) echo "stdout|dept,orders,units,revenue,WINDOW_END|" ;;
    global_reduce) echo "stdout|n,total,smallest,largest,mean,WINDOW_START,WINDOW_END|" ;;
    hot_items) echo "stdout|auction,bids,top_price,WINDOW_END|events in" ;;
    sessions) echo "stdout|user_id,clicks,payments,WINDOW_START,WINDOW_END|" ;;
    ysb_star) echo "stdout|campaign_id,ctr,WINDOW_END|" ;;
    trip_fares) echo "fares.csv|driver,n,avg_fare,top,WINDOW_START|late 2," ;;
    swa) echo "stdout|key,total,WINDOW_END|" ;;
    ysb) echo "stdout|campaign_id,views,WINDOW_END|" ;;
    *) echo "" ;;
  esac
}

cp -R "$root/queries" "$work/q"
for path in "$root"/queries/*.airq; do
  name=$(basename "$path" .airq)
  spec=$(expect "$name")
  if [ -z "$spec" ]; then
    fail "$name: no expected header in tests/queries/run.sh"
    continue
  fi
  dest=${spec%%|*}
  rest=${spec#*|}
  header=${rest%%|*}
  summary=${rest#*|}
  if (cd "$work/q" && "$AIRC" --cflags -Werror "$name.airq") > "$work/$name.airc" 2>&1; then
    ok "$name compiles"
  else
    fail "$name compiles"
    show "$work/$name.airc"
    continue
  fi
  # --explain, fused and not: every stateful pipeline (Aggregation, Reduce,
  # Join) says its state, and every edge, on the next line, what its rows carry
  for mode in "" --no-fuse; do
    # shellcheck disable=SC2086 # mode is empty or one flag
    (cd "$work/q" && "$AIRC" --explain $mode "$name.airq") > "$work/$name.plan" 2>&1
    lack=$(awk '
      pending && !/^          carrying ./ { nopay++ }
      { pending = 0 }
      /^    pipeline / { if (need) bad++; need = /Aggregation|Reduce|[:>] Join/ }
      /^        state: ./ { need = 0 }
      /^      <-- edge / { pending = 1 }
      END { if (need) bad++; if (pending) nopay++; print bad + 0, nopay + 0 }' "$work/$name.plan")
    if [ "$lack" = "0 0" ]; then
      ok "$name --explain $mode: state of each stateful pipeline, payload of each edge"
    else
      fail "$name --explain $mode: (pipelines without state, edges without payload) = $lack"
      show "$work/$name.plan"
    fi
  done
  (cd "$work/q" && timeout 60 mpirun -np 2 "./$name" --duration 2) \
    > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  out=$work/$name.out
  [ "$dest" != stdout ] && out=$work/q/$dest
  if [ $rc -ne 0 ]; then
    fail "$name runs: exit status $rc"
    show "$work/$name.err"
  elif [ ! -f "$out" ] || [ "$(head -n 1 "$out")" != "$header" ]; then
    fail "$name runs: expected header '$header' in $dest"
    [ -f "$out" ] && show "$out"
  elif ! grep -q "events in" "$work/$name.err" ||
      { [ -n "$summary" ] && ! grep -q -- "$summary" "$work/$name.err"; }; then
    fail "$name runs: summary"
    show "$work/$name.err"
  else
    ok "$name runs on 2 ranks ($(($(wc -l < "$out") - 1)) rows)"
  fi
done

summary
[ $failed -eq 0 ] && [ $passed -gt 0 ]
