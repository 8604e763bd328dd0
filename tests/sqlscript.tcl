# tests/sqlscript.tcl DIR SCRIPT EXPECT ?WRAP...? -- runs the sqlite3 shell
# on SCRIPT in folder DIR (where ./parquet is the build under test), under
# the command WRAP when given (valgrind), and compares what it prints with
# the file EXPECT.  Prints "1 passed, 0 failed", or the difference's first
# lines and "0 passed, 1 failed": a task of tests/run.tcl.
encoding system utf-8
lassign $argv dir script expect
set wrap [lrange $argv 3 end]
set f [open $expect r]
fconfigure $f -encoding utf-8
set want [string trimright [read $f] "\n"]
close $f
cd $dir
set rc [catch {exec {*}$wrap sqlite3 -bail < $script 2>@1} out]
if {$rc == 0 && $out eq $want} {
  puts "1 passed, 0 failed"
  exit 0
}
puts "! [file tail $script]: output differs from [file tail $expect] (exit $rc)"
set got [split $out "\n"]
set exp [split $want "\n"]
for {set i 0} {$i < [llength $got] || $i < [llength $exp]} {incr i} {
  if {[lindex $got $i] ne [lindex $exp $i]} {
    puts "!   line [expr {$i + 1}]: expected [list [lindex $exp $i]]"
    puts "!   line [expr {$i + 1}]: got      [list [lindex $got $i]]"
    break
  }
}
puts "0 passed, 1 failed"
exit 1
