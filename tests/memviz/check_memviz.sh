#!/usr/bin/env bash
# tests/memviz/check_memviz.sh TESSERA_MEMVIZ OUTDIR
#
# Checks tessera-memviz end to end (CTest: memviz). For each snapshot below it
# writes the page, loads it in headless Chromium (--dump-dom) and reads the
# page's own verdict, <pre id="memviz-status">{"ok":true,"allocations":N,...}:
# every section drew, with the expected counts, and the browser's console
# stayed silent (no script error, no blocked network load). Then it takes a
# screenshot of the full fixture, OUTDIR/memviz.png (1400x1000), to look at.
# It also checks the failures: a missing file, invalid JSON, JSON that is not
# a snapshot, a wrong field, an unwritable output: a non-zero exit, a message
# saying why, and no output file (an existing one left as it was).
#
# Fixtures (tests/memviz):
#   full.json       every block state, two streams, an expandable segment,
#                   labels (one trying to close the <script>), an oom entry.
#                   Its timeline has the 11 alloc entries plus 4 allocations
#                   made before the trace began: a free_completed with no alloc
#                   (0x7f0000080000, then reused), and three blocks active at
#                   the snapshot that no alloc entry accounts for
#                   (0x7f0000000000, 0x7f0001c00000, and the pending-free
#                   0x7f0102000000).
#   no_trace.json   the same with recording off: the timeline says so.
#   minimal.json    only "segments": every optional field missing.
#   generated here  2500 short-lived allocations: only the 2000 largest get a
#                   band of their own (TIMELINE_DRAW_LIMIT), the rest fold.
#
# Exit status: 0 passed, 1 a check failed, 77 Chromium is not installed (skip;
# scripts/install-deps test installs it).
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 TESSERA_MEMVIZ OUTDIR" >&2
  exit 2
fi
tool=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "memviz: chromium is not installed, skipping (scripts/install-deps test installs it)"
  exit 77
fi

rm -rf "$out"
mkdir -p "$out"
profiles=$(mktemp -d)
trap 'rm -rf "$profiles"' EXIT

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Headless Chromium with a fresh, empty profile per run, and nothing started
# besides the page (no updates, sync or background fetches).
chrome() {
  local profile
  profile=$(mktemp -d "$profiles/p.XXXXXX")
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" "$@"
}

# check_page NAME SNAPSHOT FIELD...: writes OUTDIR/NAME.html, loads it, and
# checks that the status is ok and holds each FIELD ("key":value).
check_page() {
  local name=$1 snapshot=$2
  shift 2
  local page="$out/$name.html"
  if ! "$tool" "$snapshot" -o "$page"; then
    fail "$name: tessera-memviz exited $?"
    return
  fi
  # Offline: no address of anything to load (the SVG namespace is a name).
  if grep -oE 'https?://[^"'\'' )]*' "$page" | grep -v '^http://www.w3.org/2000/svg$' | head -3 | grep .; then
    fail "$name: the page refers to the network"
  fi
  chrome --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$page" \
    > "$out/$name.dom.html" 2> "$out/$name.stderr"
  # Chromium logs console messages as "...:INFO:CONSOLE:<line>] "<text>", source: ..."
  # whatever their level, and its own dbus/gpu complaints without "CONSOLE".
  # The page writes nothing to the console, so any such line is an error, an
  # uncaught exception or a blocked load.
  if grep -a -E ':CONSOLE[:(]|Uncaught' "$out/$name.stderr"; then
    fail "$name: the page wrote to the console (above)"
  fi
  local status
  status=$(sed -n 's:.*<pre id="memviz-status"[^>]*>\([^<]*\)</pre>.*:\1:p' "$out/$name.dom.html")
  echo "$name: $status"
  for field in '"ok":true' "$@"; do
    [[ "$status" =~ $field[,}] ]] || fail "$name: status lacks $field"
  done
}

# expect_failure NAME STATUS MESSAGE TESSERA-MEMVIZ-ARGS...: the run fails with
# STATUS, says MESSAGE (a grep -F pattern) and leaves no output file.
expect_failure() {
  local name=$1 want=$2 message=$3
  shift 3
  "$tool" "$@" > "$out/$name.out" 2> "$out/$name.err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "$name: exit status $got, expected $want"
  grep -qF -- "$message" "$out/$name.err" || fail "$name: message lacks '$message': $(cat "$out/$name.err")"
  echo "$name: $(cat "$out/$name.err")"
}

# ---- pages -----------------------------------------------------------------
alloc_entries=$(grep -cE '"action": *"alloc"' "$here/full.json")
check_page full "$here/full.json" "\"allocations\":$((alloc_entries + 4))" '"drawn":15' \
  '"trace_entries":34' '"segments":3' '"blocks":11'
check_page no_trace "$here/no_trace.json" '"allocations":0' '"trace_entries":0' \
  '"segments":3' '"blocks":11'
grep -q 'memory history was not being recorded' "$out/no_trace.dom.html" ||
  fail "no_trace: the timeline does not say that recording was off"
check_page minimal "$here/minimal.json" '"allocations":0' '"segments":1' '"blocks":2'

# 2500 allocations of 4 KiB to 256 KiB, each freed 5 entries later. (%.0f:
# mawk's %d stops at 2^31.)
awk 'BEGIN {
  n = 2500; base = 140000000000000; t = 1700000000000000;
  printf "{\"segments\": [{\"address\": %.0f, \"total_size\": 268435456, \"stream\": 0,", base;
  printf " \"blocks\": [{\"size\": 268435456, \"state\": \"inactive\"}]}],\n";
  printf "\"trace_max_entries\": 10000, \"device_traces\": [[\n";
  sep = "";
  for (i = 0; i < n + 5; i++) {
    if (i < n) {
      printf "%s{\"action\": \"alloc\", \"addr\": %.0f, \"size\": %.0f, \"stream\": 0, \"time_us\": %.0f}",
             sep, base + i * 262144, ((i * 37) % 64 + 1) * 4096, t + 3 * i;
      sep = ",\n";
    }
    if (i >= 5) {
      a = base + (i - 5) * 262144; s = (((i - 5) * 37) % 64 + 1) * 4096;
      printf "%s{\"action\": \"free_requested\", \"addr\": %.0f, \"size\": %.0f, \"stream\": 0, \"time_us\": %.0f}", sep, a, s, t + 3 * i + 1;
      printf ",\n{\"action\": \"free_completed\", \"addr\": %.0f, \"size\": %.0f, \"stream\": 0, \"time_us\": %.0f}", a, s, t + 3 * i + 2;
    }
  }
  printf "]]}\n";
}' > "$out/generated.json"
check_page generated "$out/generated.json" '"allocations":2500' '"drawn":2000' \
  '"trace_entries":7500' '"segments":1' '"blocks":1'

# ---- the screenshot ----------------------------------------------------------
chrome --hide-scrollbars --virtual-time-budget=5000 --window-size=1400,1000 \
  --screenshot="$out/memviz.png" "file://$out/full.html" > /dev/null 2>&1
[ -s "$out/memviz.png" ] || fail "no screenshot written"

# ---- failures ----------------------------------------------------------------
expect_failure missing 1 'cannot read' "$out/missing.json" -o "$out/missing.html"
printf '{"segments": [' > "$out/invalid.json"
expect_failure invalid 2 'is not valid JSON' "$out/invalid.json" -o "$out/invalid.html"
expect_failure not_snapshot 2 'not a memory snapshot' "$here/not_snapshot.json" -o "$out/not_snapshot.html"
expect_failure bad_field 2 'segments[0].blocks[1].size: expected a non-negative integer' \
  "$here/bad_field.json" -o "$out/bad_field.html"
expect_failure unwritable 1 'cannot write' "$here/full.json" -o "$out/no/such/dir/page.html"
expect_failure no_args 2 'usage:'
for name in missing invalid not_snapshot bad_field; do
  [ ! -e "$out/$name.html" ] || fail "$name: an output file was written"
done
echo "an older page" > "$out/kept.html"
expect_failure kept 2 'is not valid JSON' "$out/invalid.json" -o "$out/kept.html"
[ "$(cat "$out/kept.html")" = "an older page" ] || fail "kept: a failed run changed the existing output"
leftovers=$(find "$out" -name '*.tmp-*')
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"

if [ "$failures" -ne 0 ]; then
  echo "memviz: $failures check(s) failed; pages and browser logs in $out"
  exit 1
fi
echo "memviz: all checks passed; screenshot in $out/memviz.png"
