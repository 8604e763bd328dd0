#!/bin/sh
# bench/kept_memory.sh [EXT] -- the SQL statements of make bench whose 80 MB
# argument or result SQLite copies, timed as make bench times them (best of
# three in one sqlite3 shell, three shells), once as the process's malloc
# behaves by default and once with freed memory kept in the process
# (glibc's mmap and trim thresholds raised), so that the copies land in
# pages the process has written before.  The difference is what new pages
# cost on the machine (bench/NOTES.md).  "blob" is SQLite reading the 80 MB
# argument out of its table alone (substr() needs the whole value), and
# "less blob" the parquet_values ratio without it.
#
#   sh bench/kept_memory.sh build/parquet.so
set -eu
ext=$(realpath "${1:-build/parquet.so}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n=10000000
sqlite3 "$dir/t.db" <<EOF
.load $ext
CREATE TABLE b AS SELECT parquet_encode(value, 'PLAIN') AS blob FROM generate_series(1, $n);
CREATE TABLE t AS SELECT value * 7 % 1000003 AS x FROM generate_series(1, $n);
EOF
kept=glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295
# best NAME SQL [ENV]: the best "real" time of three runs in one shell.
best() {
  printf '.load %s\n.timer on\n%s\n%s\n%s\n' "$ext" "$2" "$2" "$2" >"$dir/q.sql"
  env ${3:+GLIBC_TUNABLES=$3} sqlite3 "$dir/t.db" <"$dir/q.sql" |
    awk '/^Run Time/ { if (b == "" || $4 < b) b = $4 } END { print b }'
}
gs="SELECT sum(value) FROM generate_series(1, $n);"
pv="SELECT sum(value) FROM b, parquet_values(b.blob, 'PLAIN', 'INT64');"
rb="SELECT length(substr(blob, 1, 1)) FROM b;"
sx="SELECT sum(x) FROM t;"
pe="SELECT length(parquet_encode(x, 'PLAIN')) FROM t;"
echo "| malloc | shell | generate_series | parquet_values PLAIN | ratio | blob | less blob | sum(x) | parquet_encode PLAIN | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for mode in default kept; do
  env=""
  [ "$mode" = kept ] && env=$kept
  for shell in 1 2 3; do
    a=$(best gs "$gs" "$env"); b=$(best pv "$pv" "$env"); r=$(best rb "$rb" "$env")
    c=$(best sx "$sx" "$env"); d=$(best pe "$pe" "$env")
    echo "$mode $shell $a $b $r $c $d" |
      awk '{ printf "| %s | %s | %.3f | %.3f | %.2f | %.3f | %.2f | %.3f | %.3f | %.2f |\n", $1, $2, $3, $4, $4 / $3, $5, ($4 - $5) / $3, $6, $7, $7 / $6 }'
  done
done
