#!/bin/sh
# compare_devices.sh FASHION DATA_DIR WORK_DIR [FLAGS...]
#
# fashion_cuda_emulated (issue 32): trains the Fashion CNN with FLAGS on the
# CPU and on the CUDA device (the emulated one when $TSR_CUDA_PLUGIN names
# it), first in float32 and then under --autocast bf16, and checks that the
# two devices train the same model. FLAGS should hold --log-every 1 and
# --max-steps. Each run checks itself first (its accuracy floor, the
# reloaded model, no memory left); then, per mode:
#   - the first 20 losses agree to a relative 2e-4 (float32) or 1e-2
#     (bfloat16: a rounding that flips differently, e.g. in a convolution
#     whose float sums run in another order, moves a loss by up to 0.3%);
#   - the mean loss of the last 100 steps agrees to a relative 2%
#     (measured 0.2-0.3% over 300 steps: the runs drift apart as any two
#     float orders do, training amplifying it, about like 1 and 2 threads);
#   - test accuracies differ by at most 0.015 (measured: equal).
# Exits 1 on a difference or a failed run.
set -eu
fashion=$1 data=$2 work=$3
shift 3
mkdir -p "$work"
for mode in float32 bf16; do
  if [ "$mode" = bf16 ]; then amp="--autocast bf16" first_tol=1e-2; else amp="" first_tol=2e-4; fi
  for device in cpu cuda; do
    # shellcheck disable=SC2086 # $amp is two words or none
    "$fashion" --device "$device" $amp "$@" "$data" "$work/$device-$mode.tsr" > "$work/$device-$mode.txt" 2>&1 ||
      { cat "$work/$device-$mode.txt"; echo "FAILED: the $device run ($mode)"; exit 1; }
    grep -E '^ *step +[0-9]+ +loss' "$work/$device-$mode.txt" > "$work/$device-$mode.steps" || true
  done
  grep -q '^tessera .*device cuda' "$work/cuda-$mode.txt" ||
    { cat "$work/cuda-$mode.txt"; echo "FAILED: the cuda run did not train on CUDA"; exit 1; }
  acc_cpu=$(sed -n 's/^test accuracy: //p' "$work/cpu-$mode.txt")
  acc_cuda=$(sed -n 's/^test accuracy: //p' "$work/cuda-$mode.txt")
  paste "$work/cpu-$mode.steps" "$work/cuda-$mode.steps" | awk -v mode="$mode" -v tol="$first_tol" \
      -v acc_cpu="$acc_cpu" -v acc_cuda="$acc_cuda" '
    function abs(v) { return v < 0 ? -v : v }
    NF != 8 || $2 != $6 { print "FAILED: the runs logged different steps: " $0; bad = 1; exit }
    {
      a[NR] = $4; b[NR] = $8; n = NR
      if (NR <= 20 && abs($4 - $8) > tol * abs($4)) {
        printf "FAILED (%s): step %d loss cpu %s cuda %s, beyond %s relative\n", mode, $2, $4, $8, tol; bad = 1
      }
    }
    END {
      if (bad) exit 1
      if (n < 120) { print "FAILED: " n " step lines, 120 or more wanted"; exit 1 }
      for (i = n - 99; i <= n; ++i) { sa += a[i]; sb += b[i] }
      sa /= 100; sb /= 100
      printf "%s: %d steps; first 20 losses within %s; last 100 mean loss cpu %.5f cuda %.5f (%.2f%%); " \
             "test accuracy cpu %s cuda %s\n", mode, n, tol, sa, sb, 100 * abs(sa - sb) / sa, acc_cpu, acc_cuda
      if (abs(sa - sb) > 0.02 * sa) { print "FAILED: the last 100 steps mean loss differs by more than 2%"; exit 1 }
      if (acc_cpu == "" || acc_cuda == "" || abs(acc_cpu - acc_cuda) > 0.015) {
        print "FAILED: test accuracies differ by more than 0.015"; exit 1
      }
    }'
done
