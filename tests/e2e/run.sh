#!/bin/sh
# End-to-end result tests: compile each tests/e2e/cases/<name>/query.airq
# fused and unfused, run it on the ranks the case lists (default 1..3), and
# compare its standard output (and any sink files it writes) with an
# independent Python reference. See tests/README.md.
#
#   sh tests/e2e/run.sh [case ...]      from the repository root
#
# Environment: AIRC (default build/airc), MPIRUN (mpirun), PYTHON (python3),
# E2E_TIMEOUT (seconds per run, 60), KEEP=1 keeps the work directory.

set -u

root=$(pwd)
AIRC=${AIRC:-$root/build/airc}
case $AIRC in /*) ;; */*) AIRC=$root/$AIRC ;; esac
MPIRUN=${MPIRUN:-mpirun}
PYTHON=${PYTHON:-python3}
E2E_TIMEOUT=${E2E_TIMEOUT:-60}
cases_dir=$root/tests/e2e/cases
# The references import tests/e2e/lib; keep __pycache__ out of the tree.
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
lib=$root/tests/e2e/lib

harness=e2e
# shellcheck source=tests/lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"

# The comparable form of an output: as is, or with the rows below the header
# sorted when the case says their order is unspecified.
normalize() {
  if [ "$unordered" = 1 ]; then
    { head -n 1 "$1"; tail -n +2 "$1" | LC_ALL=C sort; } > "$2"
  else
    cp "$1" "$2"
  fi
}

# run_one NAME NP VARIANT BIN: one run of a compiled query and its checks.
run_one() {
  label="$1 np=$2 $3"
  out=$w/out.$2.$3
  err=$w/err.$2.$3
  why=""
  # A sink file left by an earlier run must not pass for this run's.
  for f in $outputs; do
    rm -f "$run/$f" "$run/$f.tmp"
  done
  # Several ranks split a csv file in blocks (4 MiB by default, more than
  # any case's file): small odd sizes here, so blocks start mid-record.
  case $2 in 2) blk=97 ;; 3) blk=331 ;; *) blk=0 ;; esac
  # The collector holds a sender's rows in chunks (2 MiB): 1, 2 or 5 rows
  # here, so held rows cross and free chunks in every case.
  case $2 in 2) chunk=1 ;; 3) chunk=5 ;; *) chunk=2 ;; esac
  # A per-rank partial stages its rows once its tables are past the
  # caches (32k keys): from the first chunk here on 1 and 3 ranks, so the
  # staged path and the direct one (2 ranks) both run every case.
  case $2 in 2) stage="" ;; *) stage=0 ;; esac
  # shellcheck disable=SC2086 # args are whitespace-separated flags
  (cd "$run" && AIR_CSV_BLOCK=$blk AIR_COLLECTOR_CHUNK_ROWS=$chunk AIR_PARTIAL_STAGE_KEYS=$stage timeout -k 5 "$E2E_TIMEOUT" "$MPIRUN" -np "$2" "$4" $args) \
    > "$out" 2> "$err" < /dev/null
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    why="timed out after ${E2E_TIMEOUT}s"
  elif [ $rc -ne 0 ]; then
    why="exit status $rc"
  fi

  if [ -z "$why" ] && [ -n "$check" ]; then
    if ! (cd "$dir" && PYTHONPATH=$lib "$PYTHON" check.py "$out") > "$w/check.log" 2>&1; then
      why="check.py rejected the output"
    fi
  elif [ -z "$why" ]; then
    normalize "$out" "$out.norm"
    if ! cmp -s "$w/expected.norm" "$out.norm"; then
      why="output differs from expected.py"
      diff -u --label expected --label "np=$2 $3" "$w/expected.norm" "$out.norm" \
        > "$w/diff" 2>&1
    elif [ -z "$first" ]; then
      first=$out.norm
    elif ! cmp -s "$first" "$out.norm"; then
      why="output differs from $(basename "$first" .norm)"
    fi
  fi

  # Sink files: each compared with expected.py's version and across runs.
  for f in $outputs; do
    [ -n "$why" ] && break
    key=$(echo "$f" | tr '/' '_')
    if [ ! -f "$run/$f" ]; then
      why="no sink file $f"
      break
    fi
    normalize "$run/$f" "$out.$key.norm"
    if ! cmp -s "$w/expected_$key.norm" "$out.$key.norm"; then
      why="sink file $f differs from expected.py"
      diff -u --label "expected $f" --label "np=$2 $3 $f" "$w/expected_$key.norm" \
        "$out.$key.norm" > "$w/diff" 2>&1
    elif [ -n "$first" ] && ! cmp -s "${first%.norm}.$key.norm" "$out.$key.norm"; then
      why="sink file $f differs from $(basename "$first" .norm)'s"
    fi
  done
  # Sinks are written to a temporary file renamed at the end (docs/language.md).
  if [ -z "$why" ]; then
    tmps=$(cd "$run" && find . -name '*.tmp' | head -n 3 | tr '\n' ' ')
    [ -n "$tmps" ] && why="temporary files left: $tmps"
  fi

  if [ -z "$why" ] && [ -f "$dir/stderr_grep" ]; then
    while IFS= read -r pat || [ -n "$pat" ]; do
      [ -z "$pat" ] && continue
      if ! grep -E -q -e "$pat" "$err"; then
        why="stderr lacks /$pat/"
        break
      fi
    done < "$dir/stderr_grep"
  fi

  if [ -z "$why" ]; then
    ok "$label"
    return
  fi
  fail "$label: $why"
  case $why in
    output*from\ expected.py | sink*from\ expected.py) show "$w/diff" 40 ;;
    check.py*) show "$w/check.log" 20 ;;
    *) show "$out" 10 ;;
  esac
  echo "    --- stderr:"
  show "$err" 15
}

run_case() {
  name=$1
  dir=$cases_dir/$name
  w=$work/$name
  mkdir -p "$w"
  first=""
  check=""
  unordered=0
  [ -f "$dir/unordered" ] && unordered=1
  ranks="1 2 3"
  [ -f "$dir/ranks" ] && ranks=$(cat "$dir/ranks")
  args=""
  [ -f "$dir/args" ] && args=$(cat "$dir/args")
  outputs=""
  [ -f "$dir/outputs" ] && outputs=$(cat "$dir/outputs")
  repeat=1
  [ -f "$dir/repeat" ] && repeat=$(cat "$dir/repeat")

  if [ ! -f "$dir/query.airq" ]; then
    fail "$name: no query.airq"
    return
  fi
  # Runs happen in a copy of the case, so that sink files never land in
  # the source tree.
  run=$w/run
  rm -rf "$run"
  cp -R "$dir" "$run"
  if [ -f "$dir/check.py" ]; then
    check=1
  elif [ -f "$dir/expected.py" ]; then
    if ! (cd "$dir" && PYTHONPATH=$lib "$PYTHON" expected.py) \
        > "$w/expected.csv" 2> "$w/expected.err"; then
      fail "$name: expected.py failed"
      show "$w/expected.err" 20
      return
    fi
    normalize "$w/expected.csv" "$w/expected.norm"
    for f in $outputs; do
      key=$(echo "$f" | tr '/' '_')
      if ! (cd "$dir" && PYTHONPATH=$lib "$PYTHON" expected.py "$f") \
          > "$w/expected_$key" 2> "$w/expected.err"; then
        fail "$name: expected.py $f failed"
        show "$w/expected.err" 20
        return
      fi
      normalize "$w/expected_$key" "$w/expected_$key.norm"
    done
  elif [ -n "$outputs" ]; then
    fail "$name: outputs needs expected.py"
    return
  else
    fail "$name: neither expected.py nor check.py"
    return
  fi

  # The references compute TIMESTAMPs as epoch ms; a case with a file
  # iso_default leaves airc's default (ISO text).
  tsflag="--timestamp-format=epoch_ms"
  [ -f "$dir/iso_default" ] && tsflag=""
  for variant in fuse nofuse; do
    bin=$w/q_$variant
    flag=""
    [ $variant = nofuse ] && flag=--no-fuse
    # shellcheck disable=SC2086 # flag and tsflag are empty or one word
    if ! (cd "$dir" && "$AIRC" $flag $tsflag --cflags -Werror query.airq -o "$bin") > "$w/airc.$variant" 2>&1 \
        || [ ! -x "$bin" ]; then
      fail "$name $variant: airc did not compile the query"
      show "$w/airc.$variant" 20
      continue
    fi
    for np in $ranks; do
      if [ "$repeat" = 1 ]; then
        run_one "$name" "$np" "$variant" "$bin"
        continue
      fi
      i=1
      while [ "$i" -le "$repeat" ]; do
        run_one "$name" "$np" "$variant#$i" "$bin"
        i=$((i + 1))
      done
    done
  done
}

if [ ! -x "$AIRC" ] && ! command -v "$AIRC" > /dev/null 2>&1; then
  echo "e2e: no compiler at $AIRC (run make first)"
  echo "e2e: 0 passed, 1 failed"
  exit 1
fi

if [ $# -gt 0 ]; then
  names="$*"
else
  names=$(cd "$cases_dir" && for d in */; do [ -f "$d/query.airq" ] && echo "${d%/}"; done)
fi
for n in $names; do
  run_case "$n"
done

summary
[ $failed -eq 0 ] && [ $passed -gt 0 ]
