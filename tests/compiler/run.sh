#!/bin/sh
# The compiler driver on hostile inputs: what it must refuse, and how fast.
# Run from the repository root (make check-compiler):
#
#   sh tests/compiler/run.sh [section ...]      (default: every section)
#
# Environment: AIRC (default build/airc), KEEP=1 keeps the work directory.
# Sections:
#   size         a query file over 64 MiB (a device, a pipe, a regular file)
#                is refused at once with one message; one of 64 MiB is
#                scanned in linear time
#   scale        tests/compiler/scale.py: time and memory linear in the
#                number of statements (50k and 100k)

set -u

root=$(pwd)
AIRC=${AIRC:-$root/build/airc}
case $AIRC in /*) ;; */*) AIRC=$root/$AIRC ;; esac
harness=compiler
ok_prefix="compiler "
show_lines=20
# shellcheck source=tests/lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"

# expect_refusal LABEL MESSAGE CMD...: CMD exits 1 within 20 s, and its
# stderr is exactly MESSAGE.
expect_refusal() {
  label=$1
  msg=$2
  shift 2
  timeout -k 5 20 "$@" > "$work/out" 2> "$work/err"
  rc=$?
  printf '%s\n' "$msg" > "$work/want"
  if [ $rc -ne 1 ]; then
    fail "$label: exit status $rc, expected 1"
    show "$work/err"
  elif ! cmp -s "$work/want" "$work/err"; then
    fail "$label: wrong message"
    diff -u "$work/want" "$work/err" | sed 's/^/    /' | head -n 20
  else
    ok "$label"
  fi
}

# --- input size -------------------------------------------------------------
section_size() {
expect_refusal "input size: /dev/zero" \
  "airc: error: '/dev/zero' is larger than 64 MiB: not a query file" \
  "$AIRC" --check /dev/zero
truncate -s $((64 * 1024 * 1024 + 1)) "$work/big.airq"
expect_refusal "input size: a regular file of 64 MiB + 1 byte" \
  "airc: error: '$work/big.airq' is larger than 64 MiB: not a query file" \
  "$AIRC" --check "$work/big.airq"
# A pipe has no size either: only the count while reading stops it.
expect_refusal "input size: a pipe" \
  "airc: error: '/dev/stdin' is larger than 64 MiB: not a query file" \
  sh -c "head -c 70000000 /dev/zero | '$AIRC' --check /dev/stdin"
# Just under the limit is read, and scanned in linear time: 64 MiB of NUL
# bytes are one error (flex rescanned a token at every NUL it held, so the
# run took time quadratic in its length: days for this file).
truncate -s $((64 * 1024 * 1024)) "$work/limit.airq"
timeout -k 5 20 "$AIRC" --check "$work/limit.airq" > /dev/null 2> "$work/err"
rc=$?
if [ $rc -ne 1 ] || [ "$(grep -c 'error:' "$work/err")" -ne 1 ] ||
    ! grep -qF "limit.airq:1:1: error: invalid character '\\x00' (NUL byte)" "$work/err"; then
  fail "input size: 64 MiB of NUL bytes: one error within 20 s (exit status $rc)"
  show "$work/err" 5
else
  ok "input size: 64 MiB of NUL bytes: one error within 20 s"
fi
}

# --- scale ------------------------------------------------------------------
section_scale() {
mkdir -p "$work/scale"
if python3 "$root/tests/compiler/scale.py" "$AIRC" "$work/scale" > "$work/scale.log" 2>&1; then
  sed 's/^/    /' "$work/scale.log" | grep -v '^    ok '
  ok "scale: 50k and 100k statements, linear time and memory"
else
  sed 's/^/    /' "$work/scale.log"
  fail "scale: 50k and 100k statements, linear time and memory"
fi
}

sections=${*:-size scale}
for s in $sections; do
  case $s in
    size | scale) "section_$s" ;;
    *) fail "unknown section '$s'" ;;
  esac
done

summary
[ $failed -eq 0 ]
