# web_examples.tcl SCRIPT... -- the playground's menu of examples: prints a
# script for build/web/ that sets window.PQ_EXAMPLES to a list of
# {name, title, sql}, one per SQL script named (the demo and the
# tutorial), the title taken from its first comment line.
proc js_string {s} {
  set map [list \\ \\\\ \" \\\" \n \\n \r \\r \t \\t </ <\\/]
  return "\"[string map $map $s]\""
}
fconfigure stdout -encoding utf-8 -translation lf
puts "// Made by tools/web_examples.tcl from sql/: do not edit."
puts "window.PQ_EXAMPLES = \["
foreach path $argv {
  set f [open $path r]
  fconfigure $f -encoding utf-8
  set sql [read $f]
  close $f
  set name [file rootname [file tail $path]]
  set title $name
  set first [lindex [split $sql \n] 0]
  if {[regexp {^--\s*\S+\.sql:\s*(.*)$} $first -> t]} { set title $t }
  puts "  {name: [js_string $name], title: [js_string $title], sql: [js_string $sql]},"
}
puts "\];"
