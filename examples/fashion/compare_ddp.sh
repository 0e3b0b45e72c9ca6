#!/bin/sh
# compare_ddp.sh FASHION TESSERA_RUN DATA_DIR WORK_DIR [FLAGS...]
#
# Runs fashion FLAGS in one process and `tessera-run --standalone
# --nproc-per-node 2 fashion --ddp FLAGS` (a free port: tests may run side
# by side), then checks that both print the same loss curve
# (`step N loss L` lines, the same steps) to 4 significant digits. FLAGS
# should hold --no-batchnorm and --log-every: without batch norm the ranks'
# averaged gradient is the single-process batch's, so only the order of
# float sums differs. Exits 1 on a difference or a failed run.
set -eu
fashion=$1 run=$2 data=$3 work=$4
shift 4
mkdir -p "$work"
"$fashion" "$@" "$data" "$work/single.tsr" > "$work/single.txt" 2>&1 ||
  { cat "$work/single.txt"; echo "FAILED: the single-process run"; exit 1; }
"$run" --standalone --nproc-per-node 2 "$fashion" --ddp "$@" "$data" "$work/ddp.tsr" > "$work/ddp.txt" 2>&1 ||
  { cat "$work/ddp.txt"; echo "FAILED: the 2-rank run"; exit 1; }
grep -q '^data parallel: 2 ranks' "$work/ddp.txt" ||
  { cat "$work/ddp.txt"; echo "FAILED: the 2-rank run did not train data-parallel"; exit 1; }
grep -E '^ *step +[0-9]+ +loss' "$work/single.txt" > "$work/single.steps" || true
grep -E '^ *step +[0-9]+ +loss' "$work/ddp.txt" > "$work/ddp.steps" || true
# step lines side by side: equal step numbers, losses equal to 4
# significant digits (%.4g, or within 1e-4 relative across a rounding edge).
paste "$work/single.steps" "$work/ddp.steps" | awk '
  NF != 8 || $2 != $6 { print "FAILED: the runs logged different steps: " $0; bad = 1; exit }
  {
    a = $4; b = $8; d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a
    same = sprintf("%.4g", a) == sprintf("%.4g", b) || d <= 1e-4 * m
    printf "  step %5d  single %s  2 ranks %s%s\n", $2, a, b, same ? "" : "  DIFFERENT"
    if (!same) bad = 1; ++n
  }
  END { if (bad || n == 0) { if (n == 0) print "FAILED: no step lines"; exit 1 }
        print n " loss lines identical to 4 significant digits" }'
