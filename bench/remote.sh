#!/bin/sh
# remote.sh EXTENSION WORK [FILE] -- a Parquet file read over HTTP on
# loopback (tests/http_server.py, which counts what it serves) against the
# same file read locally, for doc/remote.md and bench/RESULTS.md.
#
#   - a point query on the sorted column `id` of a file with a page index:
#     its requests (target: at most 3 + one a column) and the bytes it
#     fetches of the column chunks against the pages that hold the row
#     (from parquet_offset_index) and the dictionary pages of their chunks
#     (target: at most 1.2 times), the footer and index region apart;
#   - full scans, `sum(x)` and every column: the time over HTTP against
#     the local file's, each the median of 3 runs in fresh sqlite3 shells
#     (target: at least 0.7 times the local speed, a time ratio of at
#     most 1.43).
#
# FILE defaults to WORK/table_data/t_pi.parquet (make bench writes it:
# 10 M rows, a page index, by arrow-rs); without it, a file of 2 M rows
# with a page index is written with parquet_write.  Prints a Markdown
# section.
set -eu
ext=$1
work=$2
given=${3:-}
file=${given:-$work/table_data/t_pi.parquet}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work/remote"
if [ ! -f "$file" ]; then
  file=$work/remote/r.parquet
  [ -f "$file" ] || sqlite3 -cmd ".load $ext" :memory: "
    SELECT parquet_write('$file',
      'WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i < 1999999)
       SELECT i AS id, i * 0.25 AS x, ''cat'' || (i % 50) AS cat,
              printf(''https://example.com/%d/%x'', i % 977, i) AS url FROM g',
      '{\"page_index\":true,\"row_group_size\":200000,\"page_values\":20000}')" >/dev/null
fi
dir=$(cd "$(dirname "$file")" && pwd)
name=$(basename "$file")

fifo=$work/remote/server.in
rm -f "$fifo"
mkfifo "$fifo"
rm -f "$work/remote/port"
python3 "$here/tests/http_server.py" "d=$dir" <"$fifo" >"$work/remote/port" &
exec 9>"$fifo"
trap 'exec 9>&-; rm -f "$fifo"' EXIT
i=0
while [ ! -s "$work/remote/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(head -1 "$work/remote/port")
url=http://127.0.0.1:$port/d/$name

q() { sqlite3 -cmd ".load $ext" :memory: "$1"; }
stats() { python3 -c "import json,urllib.request;print(json.dumps(json.load(urllib.request.urlopen('http://127.0.0.1:$port/__stats'))))"; }
reset() { python3 -c "import urllib.request;urllib.request.urlopen('http://127.0.0.1:$port/__reset').read()"; }

# ---- The point query ----------------------------------------------------------
ncols=$(q "SELECT count(DISTINCT column_id) FROM parquet_metadata('$file')")
size=$(wc -c <"$file")
# where the column chunks end (file_offset, which writers fill in
# differently, left aside)
data_end=$(q "SELECT max(coalesce(dictionary_page_offset, data_page_offset)
                         + total_compressed_size) FROM parquet_metadata('$file')")
id=$(q "CREATE VIRTUAL TABLE t USING parquet('$file');
        SELECT id FROM t WHERE rowid = (SELECT count(*) FROM t) / 2")
row=$(q "CREATE VIRTUAL TABLE t USING parquet('$file');
         SELECT file_row_number FROM t WHERE id = $id")
need=$(q "WITH g AS (SELECT row_group_id AS g,
                            sum(row_group_num_rows) OVER (ORDER BY row_group_id)
                              - row_group_num_rows AS first, row_group_num_rows AS n
                     FROM (SELECT DISTINCT row_group_id, row_group_num_rows
                           FROM parquet_metadata('$file'))),
              h AS (SELECT g, first FROM g WHERE $row >= first AND $row < first + n)
         SELECT (SELECT sum(compressed_page_size) FROM parquet_offset_index('$file') AS o
                 WHERE o.row_group_id = h.g AND o.first_row_index = (
                   SELECT max(first_row_index) FROM parquet_offset_index('$file') AS i
                   WHERE i.row_group_id = h.g AND i.column_id = o.column_id
                     AND i.first_row_index <= $row - h.first))
              + (SELECT coalesce(sum(data_page_offset - dictionary_page_offset), 0)
                 FROM parquet_metadata('$file') AS m
                 WHERE m.row_group_id = h.g AND dictionary_page_offset IS NOT NULL)
         FROM h")
reset
q "CREATE VIRTUAL TABLE t USING parquet('$url')" >/dev/null
open_stats=$(stats)
reset
q "CREATE VIRTUAL TABLE t USING parquet('$url'); SELECT * FROM t WHERE id = $id" >/dev/null
# the point query alone: its statement's stats less the CREATE's
point_stats=$(stats)
summary=$(python3 - "$open_stats" "$point_stats" "$data_end" "$need" "$ncols" <<'EOF'
import json, sys
o, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
data_end, need, ncols = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def split(ranges):
    data = meta = 0
    for a, b in ranges:
        if a < 0:
            continue
        n = b - a + 1
        d = max(0, min(b + 1, data_end) - a)
        data += d
        meta += n - d
    return data, meta
od, om = split(o["ranges"])
pd, pm = split(p["ranges"])
req = p["requests"] - o["requests"]
data, meta = pd - od, pm - om
print(req, data, meta, o["requests"], om + od, "%.2f" % (data / need), 3 + ncols)
EOF
)
set -- $summary
req=$1 data=$2 meta=$3 oreq=$4 obytes=$5 ratio=$6 reqmax=$7

# ---- Full scans -----------------------------------------------------------------
# The median of 3 runs of a statement in fresh shells, seconds.
timed() {
  for k in 1 2 3; do
    printf '.timer on\n%s\n' "$1" | sqlite3 -cmd ".load $ext" :memory: 2>&1 |
      sed -n 's/^Run Time: real \([0-9.]*\).*/\1/p' | tail -1
  done | sort -n | sed -n 2p
}
cols=$(q "SELECT group_concat(CASE WHEN type IN ('INT32','INT64','DOUBLE','FLOAT')
                                   THEN 'sum(\"' || path_in_schema || '\")'
                                   ELSE 'max(\"' || path_in_schema || '\")' END, ', ')
          FROM parquet_metadata('$file') WHERE row_group_id = 0")
xcol=$(q "SELECT path_in_schema FROM parquet_metadata('$file')
          WHERE row_group_id = 0 AND type = 'DOUBLE' LIMIT 1")
l1=$(timed "CREATE VIRTUAL TABLE t USING parquet('$file'); SELECT sum(\"$xcol\") FROM t;")
r1=$(timed "CREATE VIRTUAL TABLE t USING parquet('$url'); SELECT sum(\"$xcol\") FROM t;")
l2=$(timed "CREATE VIRTUAL TABLE t USING parquet('$file'); SELECT $cols FROM t;")
r2=$(timed "CREATE VIRTUAL TABLE t USING parquet('$url'); SELECT $cols FROM t;")
verdict() { python3 -c "import sys;r=float(sys.argv[1])/float(sys.argv[2]);print('%.2f %s'%(r,'met' if r<=float(sys.argv[3]) else 'MISSED'))" "$@"; }

echo "## Files over HTTP"
echo
echo "- command: \`sh bench/remote.sh $ext $work${given:+ $given}\`"
echo "- machine: $(nproc) CPUs, $(uname -sr); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- data: \`$file\` ($size bytes, $ncols columns), served by \`tests/http_server.py\` on loopback"
echo
echo "| figure | value | target |"
echo "|---|---|---|"
echo "| \`CREATE VIRTUAL TABLE ... USING parquet(URL)\`: requests, bytes | $oreq, $obytes | 1 request for a footer under 64 KiB |"
echo "| point query \`WHERE id = $id\`: requests (the check, then the pages and dictionary pages that hold the row, in one request of several ranges) | $req | $(if [ "$req" -le "$reqmax" ]; then echo "met <= $reqmax"; else echo "MISSED <= $reqmax"; fi) |"
echo "| ... bytes of the column chunks fetched, over the pages that hold the row and their chunks' dictionary pages ($data / $need) | $(verdict "$data" "$need" 1.2) | <= 1.2 |"
echo "| ... bytes of the footer and index region fetched | $meta | |"
echo "| \`SELECT sum($xcol)\`: HTTP s / local s ($r1 / $l1) | $(verdict "$r1" "$l1" 1.43) | <= 1.43 (0.7x the speed) |"
echo "| every column: HTTP s / local s ($r2 / $l2) | $(verdict "$r2" "$l2" 1.43) | <= 1.43 |"
