# Sourced by the CLI tests that stop a run with a signal.
# signalled_exit SIGNAL DELAY_S CMD...: runs CMD in the background (output to
# out.txt / err.txt), sends it SIGNAL after DELAY_S seconds, prints its exit code.
signalled_exit() {
  local signal=$1 delay=$2
  shift 2
  "$@" >out.txt 2>err.txt &
  local pid=$! rc=0
  sleep "$delay"
  kill -"$signal" "$pid"
  wait "$pid" || rc=$?
  echo "$rc"
}
