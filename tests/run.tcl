# run.tcl BUILD -- runs every test of the project and ends with the line
# "N passed, N failed".
#
#   1. the generated bit packers are current (tools/gen_bitpack.c)
#   2. the C unit tests of the core (BUILD/unit)
#   3. every tests/*.test file, each in a fresh interpreter, against
#      BUILD/parquet.so
#   4. every sql/tutorial and demo script whose expected output is beside it
#
# Exits with status 1 when anything failed.

set build [lindex $argv 0]
set root [file normalize [file join [file dirname [info script]] ..]]
cd $root
set pass 0
set fail 0

proc fail {what {detail ""}} {
  global fail
  incr fail
  puts "! $what"
  if {$detail ne ""} { puts "!   [string range $detail 0 2000]" }
}

proc slurp {path} {
  set f [open $path rb]
  set d [read $f]
  close $f
  return $d
}

# 1. Generated code.
if {[catch {exec $build/gen_bitpack} gen]} {
  fail "gen_bitpack did not run" $gen
} elseif {[string trimright $gen "\n"] ne [string trimright [slurp src/bitpack_gen.h] "\n"]} {
  fail "src/bitpack_gen.h is not what tools/gen_bitpack.c writes: run make gen"
} else {
  incr pass
}

# 2. C unit tests.  Under the sanitizers, leak checking is on for them.
set saved [array get env ASAN_OPTIONS]
if {[info exists env(LD_PRELOAD)]} { set env(ASAN_OPTIONS) detect_leaks=1 }
set rc [catch {exec $build/unit 2>@1} out]
array unset env ASAN_OPTIONS
array set env $saved
foreach line [split $out "\n"] {
  if {[string match "!*" $line]} { puts $line }
}
if {[regexp {(\d+) passed, (\d+) failed\s*$} $out -> p f]} {
  incr pass $p
  incr fail $f
  puts "unit: $p passed, $f failed"
  if {$rc && $f == 0} { fail "unit exited abnormally" [string range $out end-2000 end] }
} else {
  fail "unit did not finish" [string range $out end-2000 end]
}

# 3. Tcl tests.
set ext [file normalize $build/parquet.so]
foreach file [lsort [glob -nocomplain tests/*.test]] {
  set i [interp create]
  $i eval [list set ::EXT $ext]
  $i eval [list set ::TESTFILE [file tail $file]]
  $i eval [list set ::ROOT $root]
  if {[catch {
    $i eval [list source tests/tester.tcl]
    $i eval [list source $file]
  } msg]} {
    fail "$file stopped: $msg" $::errorInfo
  }
  set p [$i eval {set ::nPass}]
  set f [$i eval {set ::nFail}]
  interp delete $i
  incr pass $p
  incr fail $f
  puts "[file tail $file]: $p passed, $f failed"
}

# 4. SQL scripts with expected output: X.sql beside X.out.
foreach script [lsort [concat [glob -nocomplain sql/*.sql] \
                              [glob -nocomplain sql/tutorial/*.sql]]] {
  set expect [file rootname $script].out
  if {![file exists $expect]} continue
  set rc [catch {exec sqlite3 -bail -cmd ".load $ext" < $script 2>@1} out]
  if {$rc == 0 && $out eq [string trimright [slurp $expect] "\n"]} {
    incr pass
  } else {
    fail "$script: output differs from [file tail $expect]" $out
  }
}

puts "$pass passed, $fail failed"
exit [expr {$fail > 0}]
