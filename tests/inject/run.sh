#!/bin/sh
# No injection (docs/language.md section 7): string literals, quoted identifiers,
# WITH paths and the query's own file name built to break out of C strings,
# comments and macros, or to run shell commands, either behave as plain data
# (the C compiles with -Werror, the program reads and writes exactly the
# files named, nothing named pwned_* ever appears) or are rejected with a
# located error and exit status 1. Expected outputs below are written by
# hand from the CSV quoting rules (RFC 4180, as docs/language.md says).
# Run from the repository root; AIRC, MPICC, MPIRUN, KEEP=1 as elsewhere.
set -u
root=$(pwd)
AIRC=${AIRC:-$root/build/airc}
case $AIRC in /*) ;; */*) AIRC=$root/$AIRC ;; esac
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
passed=0
failed=0
w=$(mktemp -d "${TMPDIR:-/tmp}/airc-inject.XXXXXX") || exit 1
if [ "${KEEP:-0}" = 1 ]; then echo "inject: keeping $w"; else trap 'rm -rf "$w"' EXIT; fi
trap 'exit 130' INT TERM HUP

ok() { echo "ok inject $*"; passed=$((passed + 1)); }
fail() { echo "FAIL inject $*"; failed=$((failed + 1)); }
show() { [ -s "$1" ] && head -n 20 "$1" | sed 's/^/    /'; return 0; }

# The C airc writes must compile like golden C: -Wall -Wextra -Werror.
cc_ok() { # NAME CFILE EXE
  if "$MPICC" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I "$root/build/include" \
      -o "$3" "$2" "$root/build/libair.a" -lm -pthread > "$w/cc.log" 2>&1; then
    ok "$1 compiles"
  else
    fail "$1 compiles"; show "$w/cc.log"
  fi
}

no_pwned() { # NAME: no command from the query ran, anywhere it could have
  if [ -n "$(find "$w" /tmp -maxdepth 1 -name 'pwned_[a-z]' 2> /dev/null)" ]; then
    fail "$1: a shell ran query text"
  else
    ok "$1 runs no shell command"
  fi
}

# --- 1. strings and identifiers as data, and a CSV path with odd bytes ------
d=$w/strings
mkdir -p "$d"
cat > "$d/query.airq" <<'EOF'
-- Names and strings with quotes, backslashes, */, ??/ trigraphs, printf
-- directives and UTF-8; the path also holds shell syntax and slashes.
CREATE STREAM "it*/s""" (id INT, "na??/me\" VARCHAR(40), ts TIMESTAMP)
  WITH (source = 'csv', path = 'in $(touch pwned_a);`touch pwned_b`''"*/??/%s\.csv', header = true);
SELECT id, "na??/me\" AS "o*/u""t%n\", 'q"\*/??/ %s%n é' AS lit
FROM "it*/s"""
WHERE "na??/me\" <> 'it''s \" */ ??/';
EOF
# the exact file the path names (its directories included)
csv="$d/in \$(touch pwned_a);\`touch pwned_b\`'\"*/??/%s\\.csv"
mkdir -p "$(dirname "$csv")"
cat > "$csv" <<'EOF'
id,na??/me\,ts
1,plain,1000
2,"it's \"" */ ??/",2000
3,"a,b""c",3000
4,%s%n\,4000
EOF
# row 2 equals the WHERE literal and is filtered out
cat > "$d/expected" <<'EOF'
id,"o*/u""t%n\",lit
1,plain,"q""\*/??/ %s%n é"
3,"a,b""c","q""\*/??/ %s%n é"
4,%s%n\,"q""\*/??/ %s%n é"
EOF
if (cd "$d" && "$AIRC" -S -o query.c query.airq) > "$w/airc.log" 2>&1; then
  ok "strings -S"
  cc_ok strings "$d/query.c" "$d/query"
  (cd "$d" && timeout 60 "$MPIRUN" -np 1 ./query) > "$d/out" 2> "$d/err"
  rc=$?
  if [ $rc -eq 0 ] && cmp -s "$d/out" "$d/expected"; then
    ok "strings run: reads the odd path, prints the strings as data"
  else
    fail "strings run (status $rc)"; diff "$d/expected" "$d/out" | head; show "$d/err"
  fi
else
  fail "strings -S"; show "$w/airc.log"
fi
no_pwned strings

# --- 2. a sink path with shell syntax: that exact file is written ----------
d=$w/sink
mkdir -p "$d"
cat > "$d/query.airq" <<'EOF'
CREATE STREAM s (id INT, ts TIMESTAMP) WITH (source = 'csv', path = 'plain.csv');
CREATE SINK out WITH (sink = 'csv', path = 'out $(touch pwned_c);`touch pwned_d`|"x''y%n.csv');
INSERT INTO out SELECT id FROM s WHERE id > 1;
EOF
printf '1,1000\n2,2000\n3,3000\n' > "$d/plain.csv"
sink="$d/out \$(touch pwned_c);\`touch pwned_d\`|\"x'y%n.csv"
printf 'id\n2\n3\n' > "$d/expected"
if (cd "$d" && "$AIRC" -S -o query.c query.airq) > "$w/airc.log" 2>&1; then
  cc_ok sink "$d/query.c" "$d/query"
  (cd "$d" && timeout 60 "$MPIRUN" -np 1 ./query) > "$d/out" 2> "$d/err"
  rc=$?
  if [ $rc -eq 0 ] && [ -f "$sink" ] && cmp -s "$sink" "$d/expected"; then
    ok "sink run: writes exactly the odd path"
  else
    fail "sink run (status $rc)"; ls "$d"; show "$d/err"
  fi
else
  fail "sink -S"; show "$w/airc.log"
fi
no_pwned sink

# --- 3. the query file's own name, and airc running the C compiler ----------
# The name goes into the banner comment and the program's name string; the
# executable name and the C file reach mpicc through execvp, not a shell.
d=$w/name
mkdir -p "$d"
q="$d/odd*\"\$(touch pwned_e);\`touch pwned_f\`??\\ é.airq"
printf '%s\n' "CREATE STREAM s (id INT, ts TIMESTAMP) WITH (source = 'csv', path = 'plain.csv');" \
  "SELECT id FROM s;" > "$q"
printf '1,1000\n2,2000\n' > "$d/plain.csv"
exe="$d/exe \$(touch pwned_g);'x"
if (cd "$d" && "$AIRC" -S -o name.c "$q") > "$w/airc.log" 2>&1; then
  cc_ok name "$d/name.c" "$d/name"
else
  fail "name -S"; show "$w/airc.log"
fi
if (cd "$d" && "$AIRC" -o "$exe" "$q") > "$w/airc.log" 2>&1 && [ -x "$exe" ]; then
  (cd "$d" && timeout 60 "$MPIRUN" -np 1 "$exe") > "$d/out" 2> "$d/err"
  if [ "$(cat "$d/out")" = "$(printf 'id\n1\n2')" ]; then
    ok "name: airc builds and the odd-named program runs"
  else
    fail "name run"; show "$d/err"
  fi
else
  fail "name build"; show "$w/airc.log"
fi
no_pwned name

# --- 4. what the grammar refuses: a located error, status 1, no crash -------
# reject NAME EXPECTED-LOCATION (line:col) < query text
reject() {
  d=$w/reject_$1
  mkdir -p "$d"
  cat > "$d/query.airq"
  (cd "$d" && "$AIRC" --check query.airq) > /dev/null 2> "$d/err"
  rc=$?
  if [ $rc -eq 1 ] && grep -q "^query.airq:$2: error: " "$d/err"; then
    ok "reject $1"
  else
    fail "reject $1 (status $rc, expected an error at $2)"; show "$d/err"
  fi
}
s="CREATE STREAM s (id INT, ts TIMESTAMP) WITH (source = 'csv', path = 'f.csv');"
printf "%s\nSELECT 'a\nb' AS x FROM s;\n" "$s" > "$w/in"
reject newline_in_string 2:8 < "$w/in"
printf '%s\nSELECT id AS "a\nb" FROM s;\n' "$s" > "$w/in"
reject newline_in_ident 2:14 < "$w/in"
printf "%s\nSELECT 'a\000b' AS x FROM s;\n" "$s" > "$w/in"
reject nul_in_string 2:8 < "$w/in"
printf '%s\nSELECT id AS "a\000" FROM s;\n' "$s" > "$w/in"
reject nul_in_ident 2:14 < "$w/in"
printf "CREATE STREAM s (id INT, ts TIMESTAMP) WITH (source = 'csv', path = 'f\000.csv');\n" > "$w/in"
reject nul_in_path 1:69 < "$w/in"
printf '%s\nSELECT id AS caf\303\251 FROM s;\n' "$s" > "$w/in"
reject utf8_bare_ident 2:17 < "$w/in"
printf '%s\nSELECT id FROM s WHERE id = 1 \\\n;\n' "$s" > "$w/in"
reject backslash_newline 2:31 < "$w/in"
printf '%s\n#define x 1\nSELECT id FROM s;\n' "$s" > "$w/in"
reject directive 2:1 < "$w/in"

echo "inject: $passed passed, $failed failed"
[ $failed -eq 0 ]
