# wasm.tcl -- `make test-wasm`: the playground (web/, doc/playground.md)
# against the native build.  Ends with "N passed, N failed".
#
#   1. wasm-size            the page's wasm is at most 3 MB
#   2. wasm-SCRIPT          the demo, each tutorial script, the SQL of
#                           each doc/ page's transcripts and a lab of every
#                           codec (wasm-lab-bytes), run through the
#                           WebAssembly build under node
#                           (web/test/run_node.js), answer what the same
#                           bridge answers natively (web/run.c, the same
#                           codecs left out), byte for byte, statement by
#                           statement, errors included
#   3. the page in headless Chromium (web/test/browser.mjs): its checks,
#      one line each; screenshots in build/web/
#
# Each script runs in a folder of its own under build/wasm/cmp/native/ and
# build/wasm/cmp/wasm/, beside a link `shared` to ../shared, so that the
# pages' '../shared/parquet-testing/...' paths hold.

set root [file normalize [file join [file dirname [info script]] ..]]
cd $root
source [file join $root tests doc_lib.tcl]
encoding system utf-8
set pass 0
set fail 0
proc ok {name} { global pass; incr pass; puts "ok $name" }
proc fail {name detail} {
  global fail
  incr fail
  puts "! $name: [string range $detail 0 1500]"
}

set wasm build/wasm
set max_wasm [expr {3 * 1000 * 1000}]

# 1. Size.
set size [file size $wasm/pqweb.wasm]
if {$size <= $max_wasm} {
  ok "wasm-size ($size bytes)"
} else {
  fail wasm-size "$wasm/pqweb.wasm is $size bytes, above $max_wasm"
}

# 2. The scripts: {NAME SQL}.
set scripts {}
foreach path [concat sql/demo.sql [lsort [glob sql/tutorial/*.sql]]] {
  lappend scripts [list [file rootname [file tail $path]] [doc_read $path]]
}
# The encoding lab over columns of each kind, codecs and levels, and with
# the options the playground's lab page sets (page sizes, page version,
# row groups, a sample): parquet_lab's bytes, page counts and auto's pick
# must be the native build's (its speeds are left out: they differ from run to run).  LZ4,
# LZ4_RAW, and ZSTD at levels 5 to 10, are left out: on long inputs the
# WebAssembly build's liblz4 and libzstd (32-bit, without SIMD) may find
# other matches than the native build's, a few bytes apart
# (doc/playground.md).
lappend scripts [list lab-bytes {
CREATE TABLE t(id INTEGER, n INTEGER, price REAL, f FLOAT, word TEXT, url TEXT, flag BOOLEAN, d DATE);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 3000)
INSERT INTO t SELECT i, (i * 2654435761) % 100003, round(5 + (i * 7919) % 10000 / 100.0, 2),
                     (i % 97) / 8.0, 'w' || (i % 11), 'https://example.org/a/' || (i * 31 % 700),
                     i % 5 = 0, date('2024-01-01', '+' || (i % 400) || ' days') FROM s;
SELECT "column", physical_type, logical_type, encoding, codec, level, bytes, values_bytes,
       pages, auto, readers, encode_mb_s IS NULL AND decode_mb_s IS NULL AS no_speeds
  FROM parquet_lab('SELECT * FROM t', '{"min_time":0,"levels":[1,3,11],
                   "codecs":["UNCOMPRESSED","SNAPPY","GZIP","BROTLI","ZSTD"]}');
SELECT "column", encoding, codec, bytes, pages
  FROM parquet_lab('SELECT url, price FROM t',
                   '{"min_time":0,"page_size":4096,"codecs":["UNCOMPRESSED","SNAPPY","GZIP","BROTLI","ZSTD"]}');
SELECT "column", encoding, codec, level, bytes, pages, auto
  FROM parquet_lab('SELECT url, word, n, d FROM t',
                   '{"min_time":0,"codecs":["GZIP","BROTLI","ZSTD"],"levels":[1,19],"page_size":2048,
                     "dictionary_page_size":1024,"page_version":2,"row_group_size":1000,"sample":0.5}');
}]
# A transcript fenced ```sqlite-3.40 shows what the system's SQLite (3.40)
# answers where the playground's later SQLite answers otherwise
# (doc/security.md): the comparison leaves it out, and says so.
set version_blocks {}
foreach path [lsort [glob doc/*.md]] {
  set sql ""
  foreach b [doc_blocks [doc_read $path]] {
    lassign $b line info body
    if {![doc_is_transcript $body]} continue
    if {$info eq "sqlite-3.40"} {
      lappend version_blocks "[file tail $path]:$line"
      continue
    }
    append sql [join [doc_inputs $body] \n] \n
  }
  if {$sql ne ""} { lappend scripts [list doc-[file rootname [file tail $path]] $sql] }
}

proc write_file {path text} {
  set f [open $path w]
  fconfigure $f -encoding utf-8 -translation lf
  puts -nonewline $f $text
  close $f
}

# Runs `cmd` on the script in a fresh folder of `side`; its output.
proc run_side {side name sql cmd} {
  global root wasm
  set top [file join $root $wasm cmp $side]
  file mkdir $top
  if {![file exists $top/shared]} {
    file link -symbolic $top/shared [file normalize [file join $root .. shared]]
  }
  set dir $top/$name
  file delete -force $dir
  file mkdir $dir
  write_file $dir/script.sql $sql
  set here [pwd]
  cd $dir
  set rc [catch {exec {*}$cmd script.sql 2>@1} out]
  cd $here
  return [list $rc $out]
}

set native [list [file join $root $wasm run]]
set node [list node [file join $root web test run_node.js] [file join $root $wasm pqweb-node.js]]
foreach s $scripts {
  lassign $s name sql
  lassign [run_side native $name $sql $native] nrc nout
  lassign [run_side wasm $name $sql $node] wrc wout
  if {$nrc || [string first "\"results\":\[\{" $nout] != 1} {
    fail wasm-$name "the native bridge gave no results: [string range $nout 0 300]"
  } elseif {$wrc} {
    fail wasm-$name "the WebAssembly build failed: [string range $wout 0 300]"
  } elseif {$nout ne $wout} {
    # Where they part: the first differing statement.
    set i 0
    while {$i < [string length $nout] && [string index $nout $i] eq [string index $wout $i]} { incr i }
    set from [expr {max(0, $i - 200)}]
    fail wasm-$name "differs at byte $i:\n  native: [string range $nout $from [expr {$i + 200}]]\n  wasm:   [string range $wout $from [expr {$i + 200}]]"
  } else {
    ok wasm-$name
  }
}
if {[llength $version_blocks]} {
  puts "# left out of the comparison (SQLite 3.40's answers): [join $version_blocks {, }]"
}

# 3. The page in a browser.
set pup [exec sh tools/puppeteer.sh --dir]
set rc [catch {exec node web/test/browser.mjs build/web $pup build/web 2>@1} out]
set counted 0
foreach line [split $out \n] {
  if {[regexp {^(\d+) passed, (\d+) failed$} $line -> p f]} {
    set counted 1
  } elseif {[string match "ok *" $line]} {
    incr pass
    puts $line
  } elseif {[string match "!*" $line]} {
    incr fail
    puts $line
  }
}
if {!$counted || ($rc && $f == 0)} {
  fail browser "web/test/browser.mjs did not finish: [string range $out end-1500 end]"
}

puts "$pass passed, $fail failed"
exit [expr {$fail > 0}]
