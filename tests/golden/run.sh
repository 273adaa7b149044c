#!/bin/sh
# Golden tests: every directory under tests/golden/ holding a query.airq is a
# case; each expected file in it names one check (see tests/README.md):
#   stderr.txt        airc --check query.airq     (exit 1 iff it says "error:")
#   plan.txt          airc --explain query.airq
#   plan-nofuse.txt   airc --explain --no-fuse query.airq
#   plan.dot          airc --explain=dot query.airq
#   query.c           airc -S, and the C must compile with -Wall -Wextra -Werror
# UPDATE=1 rewrites the expected files that exist, plus those a case's
# `update` file lists, instead of comparing. Run from the repository root.
# Environment: AIRC (default build/airc), MPICC (mpicc), KEEP=1.

set -u

root=$(pwd)
AIRC=${AIRC:-$root/build/airc}
case $AIRC in /*) ;; */*) AIRC=$root/$AIRC ;; esac
MPICC=${MPICC:-mpicc}
UPDATE=${UPDATE:-0}
golden=$root/tests/golden
known="stderr.txt plan.txt plan-nofuse.txt plan.dot query.c"

ncases=0
harness=golden
show_lines=40
# shellcheck source=tests/lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"

# airc's status is 0 or 1 by contract; anything else (a signal, an abort)
# is a crash whatever the check expects.
crashed() {
  [ "$1" -ne 0 ] && [ "$1" -ne 1 ]
}

# settle CASE FILE ACTUAL: compare ACTUAL with the expected FILE, or replace
# FILE with it under UPDATE=1.
settle() {
  if [ "$UPDATE" = 1 ]; then
    if [ -f "$dir/$2" ] && cmp -s "$3" "$dir/$2"; then
      ok "$1 $2"
    else
      cp "$3" "$dir/$2" && ok "$1 $2 (updated)"
    fi
  elif diff -u --label "$1/$2 (expected)" --label "$1/$2 (airc)" \
      "$dir/$2" "$3" > "$w/diff" 2>&1; then
    ok "$1 $2"
  else
    fail "$1 $2"
    show "$w/diff" 60
  fi
}

check_stderr() {
  (cd "$dir" && "$AIRC" --check query.airq) > /dev/null 2> "$w/stderr.txt"
  rc=$?
  if crashed $rc; then
    fail "$1 stderr.txt: airc exit status $rc"
    show "$w/stderr.txt" 20
    return
  fi
  # The status follows the messages: 1 exactly when an error was reported
  # (taken from the new output when updating).
  ref=$dir/stderr.txt
  [ "$UPDATE" = 1 ] && ref=$w/stderr.txt
  want=0
  grep -q "error:" "$ref" && want=1
  if [ $rc -ne $want ]; then
    fail "$1 stderr.txt: exit status $rc, expected $want"
    show "$w/stderr.txt" 20
    return
  fi
  settle "$1" stderr.txt "$w/stderr.txt"
}

# check_plan CASE FILE [FLAG]
check_plan() {
  # shellcheck disable=SC2086 # FLAG is empty or one word
  (cd "$dir" && "$AIRC" --explain ${3:-} query.airq) > "$w/$2" 2> "$w/$2.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "$1 $2: airc exit status $rc"
    show "$w/$2.err" 20
    return
  fi
  settle "$1" "$2" "$w/$2"
}

check_c() {
  (cd "$dir" && "$AIRC" -S -o "$w/query.c" query.airq) > "$w/query.c.err" 2>&1
  rc=$?
  if [ $rc -ne 0 ] || [ ! -f "$w/query.c" ]; then
    fail "$1 query.c: airc exit status $rc"
    show "$w/query.c.err" 20
    return
  fi
  settle "$1" query.c "$w/query.c"
  # The flags airc itself compiles with (common.md), plus -Werror.
  if "$MPICC" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I "$root/build/include" \
      -o "$w/query" "$w/query.c" "$root/build/libair.a" -lm -pthread \
      > "$w/cc.log" 2>&1; then
    ok "$1 query.c:compiles"
  else
    fail "$1 query.c:compiles"
    show "$w/cc.log" 30
  fi
}

run_case() {
  name=$1
  dir=$golden/$name
  w=$work/$name
  mkdir -p "$w"
  checks=""
  for f in $known; do
    [ -f "$dir/$f" ] && checks="$checks $f"
  done
  if [ -f "$dir/update" ]; then
    # shellcheck disable=SC2013 # the list is whitespace-separated words
    for f in $(cat "$dir/update"); do
      case " $known " in
        *" $f "*) ;;
        *) fail "$name update: unknown output '$f'"; continue ;;
      esac
      case " $checks " in *" $f "*) continue ;; esac
      if [ "$UPDATE" = 1 ]; then
        checks="$checks $f"
      else
        fail "$name $f: missing (make update-golden, then review the diff)"
      fi
    done
  fi
  if [ -z "$checks" ] && [ ! -f "$dir/update" ]; then
    fail "$name: no expected file and no update list"
    return
  fi
  for f in $checks; do
    case $f in
      stderr.txt) check_stderr "$name" ;;
      plan.txt) check_plan "$name" plan.txt ;;
      plan-nofuse.txt) check_plan "$name" plan-nofuse.txt --no-fuse ;;
      plan.dot) check_plan "$name" plan.dot --explain=dot ;;
      query.c) check_c "$name" ;;
    esac
  done
}

if [ ! -x "$AIRC" ] && ! command -v "$AIRC" > /dev/null 2>&1; then
  echo "golden: no compiler at $AIRC (run make first)"
  echo "golden: 0 passed, 1 failed"
  exit 1
fi

cases=$(cd "$golden" && find . -name query.airq -type f | sed 's|^\./||; s|/query\.airq$||' | LC_ALL=C sort)
for c in $cases; do
  ncases=$((ncases + 1))
  run_case "$c"
done
if [ $ncases -eq 0 ]; then
  fail "golden: no case found under tests/golden"
fi

summary
[ $failed -eq 0 ]
