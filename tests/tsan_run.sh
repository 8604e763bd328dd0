#!/bin/sh
# tsan_run.sh THREADS EXTENSION WORKDIR DATA -- runs tests/threads.c's
# program (THREADS) with a server of the files it reads at URLs:
# tests/http_server.py on loopback, serving DATA at URL/data/ and WORKDIR
# (where THREADS writes the files it reads, web.parquet among them) at
# URL/work/.  Its exit status is THREADS's (2 when the server does not
# start).
#
# The server ends when its standard input closes: this script holds the
# write end of a FIFO on it, closed when the script exits however it
# exits; it is also killed on the way out.  THREADS runs in the background
# so that a signal to this script (INT, TERM, HUP) ends it at once.
set -u
if [ $# -ne 4 ]; then
  echo "usage: tsan_run.sh THREADS EXTENSION WORKDIR DATA" >&2
  exit 2
fi
threads=$1 ext=$2 work=$3 data=$4
here=$(dirname "$0")
fifos=$(mktemp -d) || exit 2
srv= run=
cleanup() {
  if [ -n "$run" ]; then
    kill "$run" 2>/dev/null
    wait "$run" 2>/dev/null
  fi
  exec 3>&- 4<&- 2>/dev/null
  if [ -n "$srv" ]; then
    kill "$srv" 2>/dev/null
    wait "$srv" 2>/dev/null
  fi
  rm -rf "$fifos"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
mkfifo "$fifos/in" "$fifos/out" || exit 2
# (not the code under test: no sanitizer preloaded)
env -u LD_PRELOAD python3 "$here/http_server.py" data="$data" work="$work" \
  <"$fifos/in" >"$fifos/out" &
srv=$!
exec 3>"$fifos/in" 4<"$fifos/out"
port=
read -r port <&4
case $port in
  ''|*[!0-9]*)
    echo "tsan_run.sh: the server did not start" >&2
    exit 2
    ;;
esac
"$threads" "$ext" "$work" "$data" "http://127.0.0.1:$port" &
run=$!
wait "$run"
status=$?
run=
exit "$status"
