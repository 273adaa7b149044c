# tests/lib.sh - what the test harnesses share: a work directory removed at
# exit (KEEP=1 keeps it), the pass/fail counters with their "ok ..." and
# "FAIL ..." lines, excerpts of files for failures, and the closing
# "<harness>: N passed, N failed" line that CI reads.
#
# Use, after setting root:  harness=NAME; . "$root/tests/lib.sh"
#   optional before it:     ok_prefix="NAME " (put before every ok/FAIL line)
#                           show_lines=N (default excerpt length, 30)
# It sets: work (the directory), passed, failed.
# shellcheck shell=sh

: "${harness:?set harness before sourcing tests/lib.sh}"

passed=0
failed=0
ok_prefix=${ok_prefix:-}
show_lines=${show_lines:-30}

work=$(mktemp -d "${TMPDIR:-/tmp}/airc-$harness.XXXXXX") || exit 1
if [ "${KEEP:-0}" = 1 ]; then
  echo "$harness: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM HUP

ok() {
  echo "ok $ok_prefix$*"
  passed=$((passed + 1))
}

fail() {
  echo "FAIL $ok_prefix$*"
  failed=$((failed + 1))
}

# Indented excerpt of a file, so a failure explains itself in `make` output.
show() {
  [ -s "$1" ] && head -n "${2:-$show_lines}" "$1" | sed 's/^/    /'
  return 0
}

summary() {
  echo "$harness: $passed passed, $failed failed"
}
