#!/bin/sh
# Every example in queries/ compiles with airc and runs briefly on 2 ranks
# (queries/nexmark/: --explain only; tests/nexmark/run.py compiles and runs
# them against references): exit status 0, the CSV header its select list implies
# (written out by hand below, from the query text), and the end-of-run
# summary. Each query runs in its directory of a copy of queries/ (its files
# are relative to it) for at most --duration 2 s (finite sources end
# earlier). Run from the
# repository root (make check-queries). Environment: AIRC (default
# build/airc), KEEP=1.

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
    nexmark/q0) echo "stdout|auction,bidder,price,dateTime,extra|" ;;
    nexmark/q1) echo "stdout|auction,bidder,price,dateTime,extra|" ;;
    nexmark/q2) echo "stdout|auction,price|" ;;
    nexmark/q3) echo "stdout|name,city,state,id|" ;;
    nexmark/q4) echo "stdout|category,avg_final,window_start,window_end|" ;;
    nexmark/q5) echo "stdout|auction,num|" ;;
    nexmark/q6) echo "stdout|id,seller,final,dateTime|" ;;
    nexmark/q7) echo "stdout|auction,price,bidder,dateTime,extra|" ;;
    nexmark/q8) echo "stdout|id,name,starttime|" ;;
    nexmark/q9) echo "stdout|id,itemName,description,initialBid,reserve,dateTime,expires,seller,category,extra,auction,bidder,price,bid_dateTime,bid_extra|" ;;
    nexmark/q10) echo "q10_bids.csv|auction,bidder,price,dateTime,extra,dt,hm|" ;;
    nexmark/q11) echo "stdout|bidder,bid_count,starttime,endtime|" ;;
    nexmark/q12) echo "stdout|bidder,bid_count,starttime,endtime|" ;;
    nexmark/q13) echo "stdout|auction,bidder,price,dateTime,value|unmatched [1-9]" ;;
    nexmark/q14) echo "stdout|auction,bidder,price,bidTimeType,dateTime,extra,c_counts|" ;;
    nexmark/q15) echo "stdout|day,total_bids,rank1_bids,rank2_bids,rank3_bids,total_bidders,rank1_bidders,rank2_bidders,rank3_bidders,total_auctions,rank1_auctions,rank2_auctions,rank3_auctions|" ;;
    nexmark/q16) echo "stdout|channel,day,minute,total_bids,rank1_bids,rank2_bids,rank3_bids,total_bidders,rank1_bidders,rank2_bidders,rank3_bidders,total_auctions,rank1_auctions,rank2_auctions,rank3_auctions|" ;;
    nexmark/q17) echo "stdout|auction,day,total_bids,rank1_bids,rank2_bids,rank3_bids,min_price,max_price,avg_price,sum_price|" ;;
    nexmark/q18) echo "stdout|auction,bidder,price,channel,url,dateTime,extra|" ;;
    nexmark/q19) echo "stdout|auction,bidder,price,channel,url,dateTime,extra,window_start,window_end,window_time,rank_number|" ;;
    nexmark/q20) echo "stdout|auction,bidder,price,channel,url,bid_dateTime,bid_extra,itemName,description,initialBid,reserve,auction_dateTime,expires,seller,category,auction_extra|" ;;
    nexmark/q21) echo "stdout|auction,bidder,price,channel,channel_id|" ;;
    nexmark/q22) echo "stdout|auction,bidder,price,channel,dir1,dir2,dir3|" ;;
    *) echo "" ;;
  esac
}

cp -R "$root/queries" "$work/q"
for path in "$root"/queries/*.airq "$root"/queries/nexmark/*.airq; do
  name=${path#"$root"/queries/}
  name=${name%.airq}
  # the directory the query runs in (its paths are relative to it), and its file there
  qdir=$work/q/$(dirname "$name")
  file=$(basename "$name").airq
  log=$work/$(echo "$name" | tr / _)
  spec=$(expect "$name")
  if [ -z "$spec" ]; then
    fail "$name: no expected header in tests/queries/run.sh"
    continue
  fi
  dest=${spec%%|*}
  rest=${spec#*|}
  header=${rest%%|*}
  summary=${rest#*|}
  # tests/nexmark/run.py compiles and runs each Nexmark file against its
  # reference: here only its --explain
  case $name in nexmark/*) compile=false ;; *) compile=true ;; esac
  if ! $compile; then
    :
  elif (cd "$qdir" && "$AIRC" --cflags -Werror "$file") > "$log.airc" 2>&1; then
    ok "$name compiles"
  else
    fail "$name compiles"
    show "$log.airc"
    continue
  fi
  # --explain, fused and not: every stateful pipeline (Aggregation, Reduce,
  # Join) says its state, and every edge, on the next line, what its rows carry
  for mode in "" --no-fuse; do
    # shellcheck disable=SC2086 # mode is empty or one flag
    (cd "$qdir" && "$AIRC" --explain $mode "$file") > "$log.plan" 2>&1
    lack=$(awk '
      pending && !/^          carrying ./ { nopay++ }
      { pending = 0 }
      /^    pipeline / { if (need) bad++; need = /Aggregation|Reduce|[:>] Join/ }
      /^        state: ./ { need = 0 }
      /^      <-- edge / { pending = 1 }
      END { if (need) bad++; if (pending) nopay++; print bad + 0, nopay + 0 }' "$log.plan")
    if [ "$lack" = "0 0" ]; then
      ok "$name --explain $mode: state of each stateful pipeline, payload of each edge"
    else
      fail "$name --explain $mode: (pipelines without state, edges without payload) = $lack"
      show "$log.plan"
    fi
  done
  $compile || continue
  (cd "$qdir" && timeout 60 mpirun -np 2 "./${file%.airq}" --duration 2) \
    > "$log.out" 2> "$log.err"
  rc=$?
  out=$log.out
  [ "$dest" != stdout ] && out=$qdir/$dest
  if [ $rc -ne 0 ]; then
    fail "$name runs: exit status $rc"
    show "$log.err"
  elif [ ! -f "$out" ] || [ "$(head -n 1 "$out")" != "$header" ]; then
    fail "$name runs: expected header '$header' in $dest"
    [ -f "$out" ] && show "$out"
  elif ! grep -q "events in" "$log.err" ||
      { [ -n "$summary" ] && ! grep -q -- "$summary" "$log.err"; }; then
    fail "$name runs: summary"
    show "$log.err"
  else
    ok "$name runs on 2 ranks ($(($(wc -l < "$out") - 1)) rows)"
  fi
done

summary
[ $failed -eq 0 ] && [ $passed -gt 0 ]
