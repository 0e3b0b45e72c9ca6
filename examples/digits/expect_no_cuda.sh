#!/bin/bash
# `digits --device cuda` where CUDA cannot be used: exit status exactly 3
# and "digits: CUDA is not available: <reason>" on stderr, the reason naming
# the missing plugin or driver. Skipped (77) where CUDA works (digits then
# trains on the GPU and exits 0).
#   expect_no_cuda.sh DIGITS DATA.csv.gz CHECKPOINT
digits=$1 data=$2 checkpoint=$3
stderr=$(mktemp)
trap 'rm -f "$stderr"' EXIT
"$digits" --device cuda "$data" "$checkpoint" 2>"$stderr" >/dev/null
status=$?
cat "$stderr"
if [ "$status" -eq 0 ]; then
  echo "CUDA is available here: digits trained on cuda:0; nothing to check"
  exit 77
fi
if [ "$status" -ne 3 ]; then
  echo "FAILED: exit status $status, expected 3" >&2
  exit 1
fi
if ! grep -q '^digits: CUDA is not available: ' "$stderr"; then
  echo "FAILED: stderr lacks 'digits: CUDA is not available: '" >&2
  exit 1
fi
if ! grep -Eq 'CUDA plugin not found|cudaErrorInsufficientDriver' "$stderr"; then
  echo "FAILED: the reason names neither the plugin nor the driver" >&2
  exit 1
fi
echo "exit status 3 with the reason, as documented"
