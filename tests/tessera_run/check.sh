#!/usr/bin/env bash
# tests/tessera_run/check.sh CASE TESSERA_RUN WORKDIR
#
# Checks one behaviour of tessera-run (CTest: tessera_run_<CASE>), with
# worker.sh as the workers, on 127.0.0.1 only:
#   env          torchrun's variables per rank, OMP_NUM_THREADS, PET_*, --standalone
#   multinode    RANK/WORLD_SIZE arithmetic of --nnodes 2 --node-rank 1
#   prefix       --prefix-rank: every line whole and with its own rank's prefix;
#                --log-line-prefix-template and --local-ranks-filter
#   python       a .py program runs with python3 -u; --no-python, -m
#   failure      a failing rank stops the others at once; its status is ours
#   signal       SIGTERM, SIGHUP, SIGINT, SIGQUIT reach every worker; we exit 128+N
#   grace        a worker ignoring SIGTERM is SIGKILLed after --grace-period
#   orphan       workers die with tessera-run (SIGKILL on it)
#   usage        bad flags: exit 2 and a message; program not found: 127
#   torch        PyTorch 1.13 (gloo) joins and all-reduces from the environment
#                given, on one node and on two (two tessera-runs)
# Exit status: 0 passed, 1 a check failed, 77 torch is not installed (torch case).
set -uo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 CASE TESSERA_RUN WORKDIR" >&2
  exit 2
fi
case_name=$1
tool=$2
export DIR=$3/$case_name
here=$(cd "$(dirname "$0")" && pwd)
worker=$here/worker.sh
rm -rf "$DIR" && mkdir -p "$DIR"

failures=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what" >&2
    failures=$((failures + 1))
  fi
}
contains() { grep -qF -- "$2" "$1"; }
now() { echo "${EPOCHREALTIME/./}"; }                 # microseconds
elapsed_below() { (( $(now) - $1 < $2 * 1000 )); }  # START MILLISECONDS
wait_for_files() {  # wait_for_files PATTERN COUNT: up to 10 s
  for _ in $(seq 100); do
    # shellcheck disable=SC2086
    [ "$(ls $1 2>/dev/null | wc -l)" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}
gone() {  # gone PID: no such process, or a zombie (what init has not reaped yet)
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
  [ -z "$state" ] || [ "$state" = Z ]
}

case_env() {
  unset OMP_NUM_THREADS PET_NPROC_PER_NODE
  RANK=99 FROM_CALLER=kept "$tool" --nproc-per-node 2 --master_port=29999 --rdzv-id job7 --role trainer \
    "$worker" env 2>"$DIR/stderr"
  check "exit 0" test $? -eq 0
  for r in 0 1; do
    local want="RANK=$r
LOCAL_RANK=$r
WORLD_SIZE=2
LOCAL_WORLD_SIZE=2
GROUP_RANK=0
GROUP_WORLD_SIZE=1
ROLE_RANK=$r
ROLE_NAME=trainer
ROLE_WORLD_SIZE=2
MASTER_ADDR=127.0.0.1
MASTER_PORT=29999
TORCHELASTIC_RUN_ID=job7
TORCHELASTIC_RESTART_COUNT=0
TORCHELASTIC_MAX_RESTARTS=0
OMP_NUM_THREADS=1
FROM_CALLER=kept"
    check "rank $r's environment" test "$(cat "$DIR/env.$r")" = "$want"
  done
  check "OMP_NUM_THREADS warning" contains "$DIR/stderr" "Setting OMP_NUM_THREADS environment variable for each process to be 1"

  rm -f "$DIR"/env.*
  OMP_NUM_THREADS=3 PET_NPROC_PER_NODE=3 "$tool" --master-addr 10.1.2.3 "$worker" env 2>"$DIR/stderr"
  check "PET_NPROC_PER_NODE=3 starts 3 workers" test -f "$DIR/env.2" -a ! -f "$DIR/env.3"
  check "OMP_NUM_THREADS kept" contains "$DIR/env.2" "OMP_NUM_THREADS=3"
  check "MASTER_ADDR given" contains "$DIR/env.2" "MASTER_ADDR=10.1.2.3"
  check "no warning when set" test ! -s "$DIR/stderr"

  rm -f "$DIR"/env.*
  "$tool" "$worker" env
  check "defaults: one worker, rank 0" contains "$DIR/env.0" "WORLD_SIZE=1"
  check "defaults: port 29500" contains "$DIR/env.0" "MASTER_PORT=29500"
  check "defaults: role" contains "$DIR/env.0" "ROLE_NAME=default"
  check "one worker: OMP_NUM_THREADS left unset" contains "$DIR/env.0" "OMP_NUM_THREADS=unset"
  check "defaults: one worker only" test ! -f "$DIR/env.1"

  rm -f "$DIR"/env.*
  "$tool" --standalone --nproc_per_node=2 "$worker" env 2>/dev/null
  local port id
  port=$(sed -n 's/^MASTER_PORT=//p' "$DIR/env.0")
  id=$(sed -n 's/^TORCHELASTIC_RUN_ID=//p' "$DIR/env.0")
  check "--standalone: a free port ($port)" test "$port" -ne 29500 -a "$port" -gt 0 -a "$port" -lt 65536
  check "--standalone: both ranks share it" contains "$DIR/env.1" "MASTER_PORT=$port"
  check "--standalone: a random run id ($id)" eval '[[ $id =~ ^[0-9a-f]{32}$ ]]'
}

case_multinode() {
  "$tool" --nnodes 2 --node_rank 1 --nproc-per-node 2 --master-addr 127.0.0.1 "$worker" env 2>/dev/null
  check "exit 0" test $? -eq 0
  for r in 0 1; do
    check "local rank $r: RANK" contains "$DIR/env.$r" "RANK=$((2 + r))"
    check "local rank $r: WORLD_SIZE" contains "$DIR/env.$r" "WORLD_SIZE=4"
    check "local rank $r: GROUP_RANK" contains "$DIR/env.$r" "GROUP_RANK=1"
    check "local rank $r: GROUP_WORLD_SIZE" contains "$DIR/env.$r" "GROUP_WORLD_SIZE=2"
    check "local rank $r: LOCAL_WORLD_SIZE" contains "$DIR/env.$r" "LOCAL_WORLD_SIZE=2"
    check "local rank $r: ROLE_RANK" contains "$DIR/env.$r" "ROLE_RANK=$((2 + r))"
  done
  "$tool" --nnodes 3:3 --node-rank 2 --nproc-per-node 3 "$worker" env 2>/dev/null
  check "3 nodes x 3: last rank" contains "$DIR/env.2" "RANK=8"
  check "3 nodes x 3: world" contains "$DIR/env.2" "WORLD_SIZE=9"
}

case_prefix() {
  local n=3000 w=300
  OMP_NUM_THREADS=1 "$tool" --nproc-per-node 2 --prefix-rank "$worker" lines $n $w >"$DIR/out" 2>"$DIR/err"
  check "exit 0" test $? -eq 0
  # Every line: its rank's prefix, then that rank's own whole line.
  check "stdout: every line whole, with its own rank's prefix" \
    eval '! grep -qvE "^\[rank([01])\]:rank\1 (line [0-9]+ x{$w}|tail)\$" "$DIR/out"'
  check "stderr: every line whole, with its own rank's prefix" \
    eval '! grep -qvE "^\[rank([01])\]:rank\1 err [0-9]+ x{$w}\$" "$DIR/err"'
  for r in 0 1; do
    for kind in line err; do
      check "rank $r's $n $kind lines, in order" \
        test "$(cat "$DIR/out" "$DIR/err" | grep -E "^\[rank$r\]:rank$r $kind" | awk '{print $3}' | tr '\n' ' ')" = \
             "$(seq -s ' ' 0 $((n - 1))) "
    done
  done
  check "the unterminated last line, ended" contains "$DIR/out" "[rank1]:rank1 tail"

  local start
  start=$(now)
  "$tool" --prefix-rank sh -c 'sleep 3 & echo hi' >"$DIR/out1"
  check "relayed: what a worker wrote before it ended" test "$(cat "$DIR/out1")" = "[rank0]:hi"
  check "a pipe held open by what the worker started does not hold tessera-run" elapsed_below "$start" 2000

  "$tool" --nproc-per-node 2 --role trainer --log-line-prefix-template '<${role_name}${local_rank}|${rank}> ' \
    --local-ranks-filter 1 "$worker" lines 2 5 >"$DIR/out2" 2>/dev/null
  check "template and filter" test "$(cat "$DIR/out2")" = "<trainer1|1> rank1 line 0 xxxxx
<trainer1|1> rank1 line 1 xxxxx
<trainer1|1> rank1 tail"
  "$tool" --nproc-per-node 3 --local_ranks_filter=0,2 "$worker" lines 1 1 >"$DIR/out3" 2>/dev/null
  check "filter without prefix: ranks 0 and 2 only" \
    test "$(grep -o 'rank[0-9] line' "$DIR/out3" | sort | tr '\n' ' ')" = "rank0 line rank2 line "
}

case_python() {
  printf 'import os, sys\nprint("py", os.environ["RANK"], "-u" in sys.orig_argv, sys.argv[1:])\n' >"$DIR/w.py"
  PYTHON_EXEC=/usr/bin/python3 "$tool" --nproc-per-node 2 --prefix-rank "$DIR/w.py" a b >"$DIR/out" 2>/dev/null
  check "a .py runs with python3 -u" test "$(sort "$DIR/out")" = "[rank0]:py 0 True ['a', 'b']
[rank1]:py 1 True ['a', 'b']"
  printf '#!/bin/sh\necho direct $RANK\n' >"$DIR/x.py"
  chmod +x "$DIR/x.py"
  "$tool" --no-python "$DIR/x.py" >"$DIR/out"
  check "--no-python runs it directly" test "$(cat "$DIR/out")" = "direct 0"
  printf 'import os\nprint("module", os.environ["LOCAL_RANK"])\n' >"$DIR/tsrmod.py"
  PYTHONPATH=$DIR PYTHON_EXEC=/usr/bin/python3 "$tool" -m tsrmod >"$DIR/out"
  check "-m runs a module" test "$(cat "$DIR/out")" = "module 0"
}

case_failure() {
  local start rc
  start=$(now)
  "$tool" --nproc-per-node 3 "$worker" fail 1 7 2>"$DIR/stderr"
  rc=$?
  check "exit status of the failed rank (7, got $rc)" test $rc -eq 7
  check "the others stopped at once (not after their sleep 60)" elapsed_below "$start" 10000
  check "the others are gone" eval 'gone "$(cat "$DIR/pid.0")" && gone "$(cat "$DIR/pid.2")"'
  check "report: title" contains "$DIR/stderr" "$worker FAILED"
  check "report: root cause" contains "$DIR/stderr" "Root Cause (first observed failure):"
  check "report: rank" contains "$DIR/stderr" "rank      : 1 (local_rank: 1)"
  check "report: exit code" contains "$DIR/stderr" "exitcode  : 7 (pid: "
  check "report: the others were sent SIGTERM" contains "$DIR/stderr" "sending SIGTERM to rank 2 (local_rank 2"

  start=$(now)
  "$tool" --nproc-per-node 2 "$worker" die 0 KILL 2>"$DIR/stderr"
  rc=$?
  check "a rank killed by SIGKILL: 137 (got $rc)" test $rc -eq 137
  check "report: signal" contains "$DIR/stderr" "exitcode  : -9 (pid: "
  check "report: signal name" contains "$DIR/stderr" "Signal 9 (SIGKILL) received by PID"
  check "stopped at once" elapsed_below "$start" 10000

  start=$(now)
  "$tool" --nproc-per-node 2 --grace-period 1 "$worker" ignore-or-fail 2>"$DIR/stderr"
  rc=$?
  check "a survivor ignoring SIGTERM is killed; status still 5 (got $rc)" test $rc -eq 5
  check "within the grace period and a bit" elapsed_below "$start" 6000
  check "says so" contains "$DIR/stderr" "did not stop within 1 s; sending SIGKILL"

  "$tool" --nproc-per-node 2 sh -c 'exit 0'
  check "all exit 0: 0" test $? -eq 0
}

case_signal() {
  local sig code pid rc
  # Job control: a background job of a script ignores SIGINT and SIGQUIT
  # otherwise, and so would the workers (ignored signals stay ignored).
  set -m
  for sig in TERM HUP INT QUIT; do
    rm -f "$DIR"/ready.* "$DIR"/got.*
    "$tool" --nproc-per-node 2 "$worker" trap 2>"$DIR/stderr" &
    pid=$!
    check "$sig: workers started" wait_for_files "$DIR/ready.*" 2
    kill -$sig $pid
    wait $pid
    rc=$?
    code=$((128 + $(kill -l $sig)))
    check "$sig: tessera-run exits $code (got $rc)" test $rc -eq $code
    for r in 0 1; do
      check "$sig reached rank $r" test "$(cat "$DIR/got.$r" 2>/dev/null)" = $sig
    done
    check "$sig: said so" contains "$DIR/stderr" "received SIG$sig; forwarding it to the workers"
    check "$sig: no failure report (the workers did as told)" eval '! contains "$DIR/stderr" FAILED'
  done
}

case_grace() {
  local pid rc start
  "$tool" --nproc-per-node 2 --grace-period 1 "$worker" ignore 2>"$DIR/stderr" &
  pid=$!
  check "workers started" wait_for_files "$DIR/ready.*" 2
  start=$(now)
  kill -TERM $pid
  wait $pid
  rc=$?
  check "exit 143 (got $rc)" test $rc -eq 143
  check "not before the grace period" eval '! elapsed_below "$start" 900'
  check "soon after it" elapsed_below "$start" 5000
  check "workers gone" eval 'gone "$(cat "$DIR/pid.0")" && gone "$(cat "$DIR/pid.1")"'
  check "says so" contains "$DIR/stderr" "rank 0 (pid $(cat "$DIR/pid.0")) did not stop within 1 s; sending SIGKILL"
}

case_orphan() {
  local pid
  "$tool" --nproc-per-node 2 "$worker" ignore 2>/dev/null &
  pid=$!
  check "workers started" wait_for_files "$DIR/ready.*" 2
  kill -KILL $pid
  wait $pid 2>/dev/null
  sleep 0.5
  check "workers die with tessera-run" eval 'gone "$(cat "$DIR/pid.0")" && gone "$(cat "$DIR/pid.1")"'
  # What they started outlives them (PR_SET_PDEATHSIG reaches children only).
  kill -KILL -"$(cat "$DIR/pid.0")" -"$(cat "$DIR/pid.1")" 2>/dev/null
}

usage_fails() {  # usage_fails MESSAGE ARGS...: exit 2, MESSAGE on stderr, no worker run
  local want=$1 rc
  shift
  "$tool" "$@" >"$DIR/out" 2>"$DIR/stderr"
  rc=$?
  check "tessera-run $* => 2 (got $rc)" test $rc -eq 2
  check "tessera-run $* => '$want'" contains "$DIR/stderr" "$want"
  check "tessera-run $*: nothing run" test ! -s "$DIR/out"
}

case_usage() {
  usage_fails "unrecognized option --bogus" --bogus echo hi
  usage_fails "argument --nproc-per-node: invalid value '0'" --nproc-per-node 0 echo hi
  usage_fails "argument --nproc_per_node: invalid value 'two'" --nproc_per_node=two echo hi
  usage_fails "'auto' is not supported" --nproc-per-node auto echo hi
  usage_fails "argument --nnodes: not supported by tessera-run; elastic sizes (1:2)" --nnodes 1:2 echo hi
  usage_fails "argument --node-rank: 2 is not below --nnodes 2" --nnodes 2 --node-rank 2 echo hi
  usage_fails "argument --master-port: invalid value '70000'" --master-port 70000 echo hi
  usage_fails "argument --max-restarts: not supported by tessera-run; workers are not restarted" --max-restarts 3 echo hi
  usage_fails "argument --tee: not supported by tessera-run" --tee 3 echo hi
  usage_fails "argument --rdzv-backend: not supported by tessera-run; there is no rendezvous ('c10d')" --rdzv-backend c10d echo hi
  usage_fails "argument --standalone: runs a single node, but --nnodes is 2" --standalone --nnodes 2 echo hi
  usage_fails "argument --standalone: takes no value" --standalone=1 echo hi
  usage_fails "argument --master-addr: expected a value" --master-addr
  usage_fails "don't use both the '--no-python' flag and the '--module' flag" --no-python -m mod
  usage_fails "argument --grace-period: invalid value '-1'" --grace-period -1 echo hi
  usage_fails "no program given" --nproc-per-node 2
  PET_NNODES=x usage_fails "argument PET_NNODES: invalid value 'x'" echo hi

  "$tool" --max-restarts 0 --rdzv-backend static --monitor-interval 0.5 --start-method spawn -- echo ok >"$DIR/out"
  check "compatibility flags accepted" test "$(cat "$DIR/out")" = ok
  "$tool" --help >"$DIR/out"
  check "--help: 0 and the usage" eval 'test $? -eq 0 && contains "$DIR/out" "usage: tessera-run [options] program"'

  local rc
  "$tool" --nproc-per-node 2 "$DIR/no-such-program" 2>"$DIR/stderr"
  rc=$?
  check "program not found: 127 (got $rc)" test $rc -eq 127
  check "program not found: said so" contains "$DIR/stderr" "cannot run '$DIR/no-such-program': No such file or directory"
  touch "$DIR/not-executable"
  "$tool" "$DIR/not-executable" 2>"$DIR/stderr"
  rc=$?
  check "not executable: 126 (got $rc)" test $rc -eq 126
  check "not executable: said so" contains "$DIR/stderr" "Permission denied"
}

case_torch() {
  local py=/usr/bin/python3
  if ! "$py" -c 'import torch.distributed' 2>/dev/null; then
    echo "torch is not installed for $py: skipped" >&2
    exit 77
  fi
  export PYTHON_EXEC=$py OMP_NUM_THREADS=1
  "$tool" --standalone --nproc-per-node 2 --prefix-rank "$here/torch_allreduce.py" >"$DIR/out"
  check "one node: exit 0" test $? -eq 0
  check "one node: both ranks sum 1 + 2" test "$(sort "$DIR/out")" = "[rank0]:rank 0/2 sum 3
[rank1]:rank 1/2 sum 3"

  local port pid rc
  port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$tool" --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-port "$port" --prefix-rank \
    "$here/torch_allreduce.py" >"$DIR/node1" &
  pid=$!
  "$tool" --nnodes 2 --node-rank 0 --nproc-per-node 1 --master-port "$port" --prefix-rank \
    "$here/torch_allreduce.py" >"$DIR/node0"
  rc=$?
  wait $pid
  check "two nodes: both exit 0" test $rc -eq 0 -a $? -eq 0
  check "two nodes: node 0" test "$(cat "$DIR/node0")" = "[rank0]:rank 0/2 sum 3"
  check "two nodes: node 1" test "$(cat "$DIR/node1")" = "[rank1]:rank 1/2 sum 3"
}

case "$case_name" in
env | multinode | prefix | python | failure | signal | grace | orphan | usage | torch) "case_$case_name" ;;
*) echo "unknown case $case_name" >&2; exit 2 ;;
esac
if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "tessera_run_$case_name: all checks passed"
