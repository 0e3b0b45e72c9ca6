#!/bin/sh
# tests/tessera_run/worker.sh MODE [ARGS]: a worker for check.sh, started by
# tessera-run with torchrun's environment. DIR (set by check.sh) is where it
# leaves files for the checks.
mode=$1
shift
case $mode in
env)  # the torchrun variables (and two of the caller's), one file per rank
  for v in RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK GROUP_WORLD_SIZE ROLE_RANK \
           ROLE_NAME ROLE_WORLD_SIZE MASTER_ADDR MASTER_PORT TORCHELASTIC_RUN_ID \
           TORCHELASTIC_RESTART_COUNT TORCHELASTIC_MAX_RESTARTS OMP_NUM_THREADS FROM_CALLER; do
    eval "echo $v=\${$v-unset}"
  done > "$DIR/env.$LOCAL_RANK" ;;
lines)  # $1 lines of $2 characters on stdout and on stderr, written by awk in
        # blocks that split lines, then an unterminated last line
  awk -v n="$1" -v w="$2" -v r="$RANK" 'BEGIN {
    pad = sprintf("%*s", w, ""); gsub(/ /, "x", pad)
    for (i = 0; i < n; i++) { printf "rank%s line %d %s\n", r, i, pad; printf "rank%s err %d %s\n", r, i, pad > "/dev/stderr" }
    printf "rank%s tail", r }' ;;
fail)  # rank $1 exits with $2 after a moment; the others wait (long)
  if [ "$RANK" = "$1" ]; then sleep 0.3; exit "$2"; fi
  echo $$ > "$DIR/pid.$RANK"
  sleep 60 ;;
die)  # rank $1 kills itself with signal $2; the others wait (long)
  if [ "$RANK" = "$1" ]; then sleep 0.3; kill -"$2" $$; fi
  sleep 60 ;;
trap)  # records the signal that reaches it, then exits 128+N as if it died of it
  # (and ends its sleep, which ignores SIGINT and SIGQUIT as a background job)
  got() { echo "$1" > "$DIR/got.$RANK"; kill "$sleeper" 2>/dev/null; exit "$2"; }
  trap 'got TERM 143' TERM
  trap 'got HUP 129' HUP
  trap 'got INT 130' INT
  trap 'got QUIT 131' QUIT
  sleep 60 &
  sleeper=$!
  touch "$DIR/ready.$RANK"
  wait ;;
ignore)  # ignores SIGTERM (sleep inherits that): only SIGKILL ends it
  trap '' TERM
  echo $$ > "$DIR/pid.$RANK"
  touch "$DIR/ready.$RANK"
  sleep 60 ;;
ignore-or-fail)  # rank 0 ignores SIGTERM, rank 1 fails with status 5
  if [ "$RANK" = 1 ]; then sleep 0.3; exit 5; fi
  trap '' TERM
  sleep 60 ;;
*) echo "worker.sh: unknown mode $mode" >&2; exit 99 ;;
esac
