# run.tcl BUILD -- runs every test of the project and ends with the line
# "N passed, N failed".
#
#   1. the generated bit packers are current (tools/gen_bitpack.c)
#   2. the C unit tests of the core (BUILD/unit*: unit, unit_codec)
#   3. every tests/*.test file, each in its own tclsh, against
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

# 2. C unit tests: every BUILD/unit* program (unit, unit_codec, ...).
set progs [lsort [glob -nocomplain -types {f x} $build/unit*]]
if {[llength $progs] == 0} { fail "no unit test program in $build" }
foreach prog $progs {
  set name [file tail $prog]
  set t0 [clock milliseconds]
  set rc [catch {exec $prog 2>@1} out]
  foreach line [split $out "\n"] {
    if {[string match "!*" $line]} { puts $line }
  }
  if {[regexp -line {^(\d+) passed, (\d+) failed$} $out -> p f]} {
    incr pass $p
    incr fail $f
    puts "$name: $p passed, $f failed[took $t0]"
    if {$rc && $f == 0} { fail "$name exited with an error" [string range $out end-3000 end] }
  } else {
    fail "$name did not finish" [string range $out end-2000 end]
  }
}

# 3. Tcl tests, each file in its own tclsh so that a crash is a failure
# of that file, not the end of the run.  PQ_WRAP, when set, is a command
# that runs each of them (and the scripts of step 4): valgrind's memcheck.
set wrap [expr {[info exists env(PQ_WRAP)] ? $env(PQ_WRAP) : ""}]
set ext [file normalize $build/parquet.so]
foreach file [lsort [glob -nocomplain tests/*.test]] {
  set t0 [clock milliseconds]
  set rc [catch {exec {*}$wrap [info nameofexecutable] tests/tester.tcl $ext $file 2>@1} out]
  foreach line [split $out "\n"] {
    if {[string match "!*" $line]} { puts $line }
  }
  if {[regexp -line {^(\d+) passed, (\d+) failed$} $out -> p f]} {
    incr pass $p
    incr fail $f
    puts "[file tail $file]: $p passed, $f failed[took $t0]"
    if {$rc} {
      fail "[file tail $file] exited with an error (a sanitizer report?)" \
        [string range $out end-3000 end]
    }
  } else {
    fail "[file tail $file] did not finish" [string range $out end-2000 end]
  }
}

# 4. SQL scripts with expected output: X.sql beside X.out.  The scripts
# load ./parquet themselves; they run in a folder where that is this build.
set t0 [clock milliseconds]
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
  set here [pwd]
  cd $rundir
  set rc [catch {exec {*}$wrap sqlite3 -bail < [file join $root $script] 2>@1} out]
  cd $here
  if {$rc == 0 && $out eq [string trimright [slurp $expect] "\n"]} {
    incr pass
  } else {
    fail "$script: output differs from [file tail $expect]" $out
  }
}

puts "sql scripts:[took $t0]"
puts "$pass passed, $fail failed"
exit [expr {$fail > 0}]
