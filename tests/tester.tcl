# tester.tcl -- a small look-alike of SQLite's test harness (test/tester.tcl)
# with the same verbs, for plain tclsh:
#
#   do_execsql_test NAME SQL EXPECTED     the flat list of result values
#   do_catchsql_test NAME SQL EXPECTED    {0 result} or {1 {error message}}
#   do_test NAME SCRIPT EXPECTED          any Tcl script's result
#   finish_test
#
# Run as `tclsh tests/tester.tcl EXTENSION FILE.test`: it loads the
# extension into `db`, an in-memory database, sources the file and ends
# with the line "N passed, N failed".
#
# With PQ_TEST_TIMES=PATH set, each test appends a line "FILE NAME MS" to
# PATH: the milliseconds since the test before it ended (so a test's setup
# counts with it), to find what makes a file slow under valgrind or ASan.

package require sqlite3

set ::nPass 0
set ::nFail 0
set ::failures {}

proc open_db {{name db}} {
  catch {$name close}
  sqlite3 $name :memory:
  $name enable_load_extension 1
  $name eval {SELECT load_extension($::EXT)}
}

proc execsql {sql {db db}} { uplevel #0 [list $db eval $sql] }

proc catchsql {sql {db db}} {
  set rc [catch {uplevel #0 [list $db eval $sql]} msg]
  list $rc $msg
}

set ::lastT [clock milliseconds]
proc test_time {name} {
  set now [clock milliseconds]
  set f [open $::env(PQ_TEST_TIMES) a]
  puts $f "[file tail $::TESTFILE] $name [expr {$now - $::lastT}]"
  close $f
  set ::lastT $now
}

proc do_test {name script expected} {
  if {[catch {uplevel #0 $script} result]} {
    set result "ERROR: $result"
  }
  if {[info exists ::env(PQ_TEST_TIMES)]} { test_time $name }
  # A multi-line expected list matches its canonical form.
  if {$result eq $expected ||
      ([string is list $expected] && $result eq [list {*}$expected])} {
    incr ::nPass
  } else {
    incr ::nFail
    lappend ::failures $name
    puts "! $::TESTFILE $name"
    puts "!   expected: [string range $expected 0 600]"
    puts "!   got:      [string range $result 0 600]"
  }
}

proc do_execsql_test {name sql expected} {
  do_test $name [list execsql $sql] [list {*}$expected]
}

proc do_catchsql_test {name sql expected} {
  do_test $name [list catchsql $sql] $expected
}

# 1 when this build has the codec (make WITHOUT=... leaves some out).
proc have {codec} {
  set r [catchsql "SELECT parquet_compress(X'', '$codec')"]
  expr {![string match "*this build has no*" $r]}
}

# Hex of a Tcl byte array (for BLOBs fetched into Tcl).
proc hexof {bytes} {
  binary scan $bytes H* h
  string toupper $h
}

proc finish_test {} {
  catch {db close}
}

set ::EXT [lindex $argv 0]
set ::TESTFILE [file tail [lindex $argv 1]]
set ::ROOT [file normalize [file join [file dirname [info script]] ..]]
open_db
source [lindex $argv 1]
puts "$::nPass passed, $::nFail failed"
