# csv.tcl -- the expected CSVs of parquet-testing as a table
# expect(r, c, v): row, column and value (NULL for an empty field).

# A CSV line as a list of {s value} (quoted or not) and {n} (empty: NULL).
proc csv_fields {line} {
  set fields {}
  set i 0
  set n [string length $line]
  while {$i <= $n} {
    if {[string index $line $i] eq "\""} {
      set val ""
      set j [expr {$i + 1}]
      while {1} {
        set k [string first "\"" $line $j]
        append val [string range $line $j [expr {$k - 1}]]
        if {[string index $line [expr {$k + 1}]] eq "\""} {
          append val "\""
          set j [expr {$k + 2}]
        } else {
          set i [expr {$k + 1}]
          break
        }
      }
      lappend fields [list s $val]
    } else {
      set k [string first , $line $i]
      if {$k < 0} { set k $n }
      set val [string range $line $i [expr {$k - 1}]]
      lappend fields [expr {$val eq "" ? {n} : [list s $val]}]
      set i $k
    }
    incr i
  }
  return $fields
}

proc load_expect {csv} {
  db eval {DROP TABLE IF EXISTS expect; CREATE TABLE expect(r, c, v)}
  set f [open $csv r]
  fconfigure $f -encoding utf-8
  set lines [split [string trimright [read $f] "\n"] "\n"]
  close $f
  set r 0
  db transaction {
    foreach line [lrange $lines 1 end] {
      set c 0
      foreach field [csv_fields $line] {
        if {[lindex $field 0] eq "n"} {
          db eval {INSERT INTO expect VALUES ($r, $c, NULL)}
        } else {
          set v [lindex $field 1]
          db eval {INSERT INTO expect VALUES ($r, $c, $v)}
        }
        incr c
      }
      incr r
    }
  }
}

