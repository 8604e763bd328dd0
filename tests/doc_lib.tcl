# doc_lib.tcl -- the pages of doc/ as tests/doc.test and tests/wasm.tcl
# read them: their fenced blocks, and the SQL typed in their transcripts.

proc doc_read {path} {
  set f [open $path r]
  fconfigure $f -encoding utf-8 -translation lf
  set d [read $f]
  close $f
  return $d
}

# The fenced blocks of a page: a list of {LINE INFO BODY}, LINE the line
# number of the opening fence, INFO its info string (`sql`, `sh`, or
# empty), BODY the list of lines between the fences, less the fence's
# indentation (a block inside a list item is indented).
proc doc_blocks {text} {
  set blocks {}
  set open 0
  set n 0
  foreach line [split $text "\n"] {
    incr n
    if {!$open} {
      if {[regexp {^( *)```\s*([^`\s]*)} $line -> indent info]} {
        set open 1
        set start $n
        set width [string length $indent]
        set body {}
      }
    } elseif {[regexp {^ *```\s*$} $line]} {
      lappend blocks [list $start $info $body]
      set open 0
    } else {
      if {[string trim [string range $line 0 [expr {$width - 1}]]] eq ""} {
        set line [string range $line $width end]
      }
      lappend body $line
    }
  }
  if {$open} { lappend blocks [list $start unclosed $body] }
  return $blocks
}

proc doc_is_transcript {body} {
  string match "sqlite> *" [lindex $body 0]
}

# What was typed: the lines of a transcript that begin with a prompt, less
# the prompt.
proc doc_inputs {body} {
  set in {}
  foreach line $body {
    if {[string match "sqlite> *" $line] || [string match "   ...> *" $line]} {
      lappend in [string range $line 8 end]
    }
  }
  return $in
}

