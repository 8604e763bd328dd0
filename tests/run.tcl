# run.tcl BUILD -- runs every test of the project and ends with the line
# "N passed, N failed".
#
#   1. the generated bit packers are current (tools/gen_bitpack.c)
#   2. the C unit tests of the core (BUILD/unit*: unit, unit_codec)
#   3. every tests/*.test file, each in its own tclsh, against
#      BUILD/parquet.so (2 and 3 run PQ_JOBS at a time, by default as
#      many as the machine has processors)
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
  set f [open $path r]
  fconfigure $f -encoding utf-8
  set d [read $f]
  close $f
  return $d
}
# " (12.3 s)": the wall time since T0, printed after each program's counts
# so that a slow step shows in any log of the run.
proc took {t0} {
  format " (%.1f s)" [expr {([clock milliseconds] - $t0) / 1000.0}]
}

# What programs print is read as UTF-8, as the expected files are.
encoding system utf-8

# 1. Generated code.
if {[catch {exec $build/gen_bitpack} gen]} {
  fail "gen_bitpack did not run" $gen
} elseif {[string trimright $gen "\n"] ne [string trimright [slurp src/encodings/bitpack_gen.h] "\n"]} {
  fail "src/encodings/bitpack_gen.h is not what tools/gen_bitpack.c writes: run make gen"
} else {
  incr pass
}

# 2 and 3. Every Tcl test file, each in a tclsh of its own so that a crash
# is a failure of that file, not the end of the run, then the C unit tests,
# every BUILD/unit* program (unit, unit_codec, ...).  PQ_WRAP, when set, is
# a command that runs each Tcl file (and the scripts of step 4, below): valgrind's
# memcheck.  They run PQ_JOBS at a time (default: one a processor); each
# keeps to a folder of its own under BUILD, and its results are printed as
# it ends.
set wrap [expr {[info exists env(PQ_WRAP)] ? $env(PQ_WRAP) : ""}]
set ext [file normalize $build/parquet.so]
set tasks {}
# The files that take longest (natively, under ASan and under valgrind)
# start first, so that the run does not end waiting on one of them alone.
set first {interop_tables lab_file alp interop_write dist lab table
           geospatial meaning remote prune_diff layers}
set files [lsort [glob -nocomplain tests/*.test]]
set order {}
foreach name $first {
  if {[lsearch -exact $files tests/$name.test] >= 0} { lappend order tests/$name.test }
}
foreach file $files {
  if {[lsearch -exact $order $file] < 0} { lappend order $file }
}
foreach file $order {
  lappend tasks [file tail $file] \
    [list {*}$wrap [info nameofexecutable] tests/tester.tcl $ext $file] 1
}
set progs [lsort [glob -nocomplain -types {f x} $build/unit*]]
if {[llength $progs] == 0} { fail "no unit test program in $build" }
foreach prog $progs {
  # A unit program that fails a check exits 1: an error only without one.
  lappend tasks [file tail $prog] [list $prog] 0
}
# 4. SQL scripts with expected output: X.sql beside X.out, each a task of
# its own (tests/sqlscript.tcl).  The scripts load ./parquet themselves;
# they run in a folder where that is this build.
set rundir [file normalize $build/sqlrun]
file mkdir $rundir
file delete $rundir/parquet.so
file link -symbolic $rundir/parquet.so $ext
foreach script [lsort [concat [glob -nocomplain sql/*.sql] \
                              [glob -nocomplain sql/tutorial/*.sql]]] {
  set expect [file rootname $script].out
  if {![file exists $expect]} {
    fail "$script has no expected output beside it ([file tail $expect])"
    continue
  }
  lappend tasks $script \
    [list [info nameofexecutable] tests/sqlscript.tcl $rundir \
       [file join $root $script] [file join $root $expect] {*}$wrap] 0
}

# Counts a finished task's results: its "N passed, N failed" line, the
# lines of its failures ("!"), and a nonzero exit (a sanitizer report, a
# crash) as a failure of its own.
proc finish {name strict rc out t0} {
  global pass fail
  foreach line [split $out "\n"] {
    if {[string match "!*" $line]} { puts $line }
  }
  if {[regexp -line {^(\d+) passed, (\d+) failed$} $out -> p f]} {
    incr pass $p
    incr fail $f
    puts "$name: $p passed, $f failed[took $t0]"
    if {$rc && ($strict || $f == 0)} {
      fail "$name exited with an error (a sanitizer report?)" \
        [string range $out end-3000 end]
    }
  } else {
    fail "$name did not finish" [string range $out end-2000 end]
  }
}

# LeakSanitizer's own thread, which stops the process's threads at its exit
# to look for leaks, now and then fails by itself ("Tracer caught signal
# 11", then "LeakSanitizer has encountered a fatal error", and no report),
# in the task's process or a shell it runs: a task whose output says so is
# run once more, and said to have been.  (The cause known, gcc's runtime
# misreading a dynamic TLS block, is turned off by make test-asan's
# ASAN_OPTIONS; it fails alike on a second run.)
proc collect {ch name cmd strict t0} {
  append ::output($ch) [read $ch]
  if {![eof $ch]} return
  fconfigure $ch -blocking 1
  set rc [catch {close $ch}]
  set out [string trimright $::output($ch) "\n"]
  unset ::output($ch)
  incr ::running -1
  if {![info exists ::again($name)] &&
      ([string first "LeakSanitizer has encountered a fatal error" $out] >= 0 ||
       [string first "Tracer caught signal" $out] >= 0)} {
    set ::again($name) 1
    puts "$name: LeakSanitizer failed by itself at the exit; run again"
    launch $name $cmd $strict
    return
  }
  finish $name $strict $rc $out $t0
}

proc launch {name cmd strict} {
  set ch [open |[concat $cmd [list 2>@1]] r]
  fconfigure $ch -blocking 0
  set ::output($ch) ""
  fileevent $ch readable [list collect $ch $name $cmd $strict [clock milliseconds]]
  incr ::running
}

set jobs [expr {[info exists env(PQ_JOBS)] ? $env(PQ_JOBS) : 0}]
if {![string is integer -strict $jobs] || $jobs < 1} {
  if {[catch {exec nproc} jobs] || ![string is integer -strict $jobs]} { set jobs 1 }
}
set running 0
foreach {name cmd strict} $tasks {
  while {$running >= $jobs} { vwait running }
  launch $name $cmd $strict
}
while {$running > 0} { vwait running }

puts "$pass passed, $fail failed"
exit [expr {$fail > 0}]
