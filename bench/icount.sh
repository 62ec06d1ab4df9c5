#!/usr/bin/env bash
# Instructions per operation, counted by valgrind's callgrind (repeatable, unlike time on
# a shared machine): bench/icount.sh BINARY OP N INPUT [PRELUDE]
#   BINARY   a native mkfifo-sh (this build, or an older one from bench/run.sh --against)
#   OP       one line of shell, run N times with `>/dev/null`, with INPUT's bytes in $x
#   PRELUDE  a file of shell run first (definitions, variables)
# The count of a script that runs OP N times, minus that of the same script ending after
# its first line(s), divided by N: parsing and start-up cancel out.
set -euo pipefail
binary=$1 op=$2 n=$3 input=$4 prelude=${5:-/dev/null}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
body() { for _ in $(seq "$n"); do printf '%s >/dev/null\n' "$op"; done; }
{ cat "$prelude"; printf 'x=$(cat)\n'; body; } >"$tmp/all.sh"
{ cat "$prelude"; printf 'x=$(cat)\nexit 0\n'; body; } >"$tmp/none.sh"
count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$binary" --budget 1000000000000 \
        -c "$(cat "$1")" <"$input" >/dev/null 2>"$tmp/log"
    grep -o 'refs: *[0-9,]*' "$tmp/log" | tr -dc 0-9
}
all=$(count "$tmp/all.sh")
none=$(count "$tmp/none.sh")
echo $(((all - none) / n))
