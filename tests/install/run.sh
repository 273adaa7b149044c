#!/bin/sh
# make install into a temporary PREFIX, then use the installed airc the way a
# user would: in a directory outside the checkout, with no AIRC_RUNTIME_DIR,
# compile queries/swa.airq, run it on 2 ranks for 2 seconds, check its output;
# then make uninstall and check that nothing is left. Run from the repository
# root (make check-install). KEEP=1 keeps the work directory.

set -u

root=$(pwd)
harness=install
ok_prefix="install "
show_lines=20
# shellcheck source=tests/lib.sh
. "$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
prefix=$work/prefix
user=$work/elsewhere
mkdir -p "$user"
unset AIRC_RUNTIME_DIR AIRC_TEMPLATE_DIR

finish() {
  summary
  [ $failed -eq 0 ]
  exit $?
}

if make -s install PREFIX="$prefix" > "$work/install.log" 2>&1; then
  ok "make install"
else
  fail "make install"; show "$work/install.log"; finish
fi
for f in bin/airc lib/libair.a include/air.h include/air_limits.h include/air_query.h share/man/man1/airc.1; do
  if [ -f "$prefix/$f" ]; then ok "installed $f"; else fail "installed $f: missing"; fi
done

airc=$prefix/bin/airc
if "$airc" --version | grep -Eq '^airc [0-9]+\.[0-9]+'; then ok "airc --version"; else fail "airc --version"; fi
if command -v man > /dev/null 2>&1; then
  if MANWIDTH=80 man -l "$prefix/share/man/man1/airc.1" 2>/dev/null | grep -q -- "--explain=dot"; then
    ok "man page renders"
  else
    fail "man page renders"
  fi
fi

# A user's own directory, with a copy of the query: no path into the checkout.
cp "$root/queries/swa.airq" "$user/swa.airq"
if (cd "$user" && "$airc" swa.airq) > "$work/airc.log" 2>&1 && [ -x "$user/swa" ]; then
  ok "installed airc compiles swa.airq outside the checkout"
else
  fail "installed airc compiles swa.airq outside the checkout"; show "$work/airc.log"
fi
if [ -x "$user/swa" ]; then
  (cd "$user" && timeout 60 mpirun -np 2 ./swa --duration 2 --rate 100000) \
    > "$work/out.csv" 2> "$work/err.txt"
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "swa run: exit status $rc"; show "$work/err.txt"
  elif [ "$(head -n 1 "$work/out.csv")" != "key,total,WINDOW_END" ]; then
    fail "swa run: header"; show "$work/out.csv"
  elif ! grep -q "events in" "$work/err.txt"; then
    fail "swa run: no summary on stderr"; show "$work/err.txt"
  else
    ok "swa runs on 2 ranks (header, summary)"
  fi
fi

if make -s uninstall PREFIX="$prefix" > "$work/uninstall.log" 2>&1; then
  ok "make uninstall"
else
  fail "make uninstall"; show "$work/uninstall.log"
fi
left=$(find "$prefix" -type f 2>/dev/null)
if [ -z "$left" ]; then ok "nothing left after uninstall"; else fail "left after uninstall: $left"; fi
finish
