#!/bin/sh
# run.sh BUILD_DIR LIBFUZZER_OPTION TARGET... -- runs each fuzz target on
# its corpus (BUILD_DIR/corpus/TARGET, grown as it runs) with the option
# (-max_total_time=S or -runs=N) and the Thrift dictionary, one after the
# other, its output in BUILD_DIR/logs/TARGET.log.  Prints a line per
# target with its executions, and "N passed, N failed" at the end; a
# finding (a crash, a sanitizer report, a leak, a timeout) fails.
build=$1
opt=$2
shift 2
here=$(dirname "$0")
mkdir -p "$build/logs"
pass=0
fail=0
for t in "$@"; do
  mkdir -p "$build/corpus/$t"
  log="$build/logs/$t.log"
  if "$build/$t" "$opt" -dict="$here/thrift.dict" -timeout=25 -rss_limit_mb=2048 \
      -max_len=262144 \
      -artifact_prefix="$build/logs/$t-" -print_final_stats=1 \
      "$build/corpus/$t" >"$log" 2>&1; then
    runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 executions in \2 s/p' "$log" | tail -1)
    echo "$t: $runs, no finding"
    pass=$((pass + 1))
  else
    echo "! $t: FINDING (see $log)"
    grep -m 5 -E 'ERROR|SUMMARY|runtime error|deadly signal' "$log" | sed 's/^/!   /'
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
