# columns.tcl -- what writer.test and interop.test share: a source column
# for each kind of value, the encodings a data page of each kind may use,
# and the rows of a one-column file read back page by page.

# ---- Source columns: one table per kind of value, NULL every 7th row ----
set N 2000
db eval {
  CREATE TABLE ids(id INTEGER PRIMARY KEY);
  WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < CAST($N AS INTEGER))
  INSERT INTO ids SELECT i FROM s;
}
proc make_table {name expr} {
  db eval "CREATE TABLE $name AS SELECT id, CASE WHEN id % 7 = 3 THEN NULL
           ELSE $expr END AS v FROM ids"
}
make_table t_BOOLEAN {(id / 50) % 2 = 0 OR id % 3 = 0}
make_table t_INT32 {CASE id WHEN 5 THEN 2147483647 WHEN 6 THEN -2147483648
                    ELSE ((id * 7919) % 20001) - 10000 END}
make_table t_INT64 {CASE id WHEN 5 THEN 9223372036854775807
                    WHEN 6 THEN -9223372036854775808
                    ELSE 1700000000000000 + id * 1000 + id % 17 END}
make_table t_FLOAT {(id % 1000 - 500) / 8.0}
make_table t_DOUBLE {CASE id WHEN 5 THEN 1e300 WHEN 6 THEN -4.9e-324
                     ELSE id / 3.0 - 100 END}
make_table t_BYTE_ARRAY {CASE id WHEN 5 THEN '' ELSE 'key-' || (id % 40) ||
                         CASE WHEN id % 11 = 0 THEN 'é' ELSE '' END END}
# Values with bytes that are not UTF-8, and fixed-width ones, made in Tcl.
db eval {CREATE TABLE t_BINARY(id INTEGER PRIMARY KEY, v);
         CREATE TABLE t_FLBA(id INTEGER PRIMARY KEY, v);
         CREATE TABLE t_INT96(id INTEGER PRIMARY KEY, v)}
db transaction {
  for {set id 1} {$id <= $N} {incr id} {
    if {$id % 7 == 3} {
      foreach t {t_BINARY t_FLBA t_INT96} {
        db eval "INSERT INTO $t VALUES (\$id, NULL)"
      }
      continue
    }
    set bin [binary format cS 255 [expr {$id % 300}]]
    set flba [binary format cI 128 [expr {$id % 97}]]
    # Nanoseconds of the day (whole microseconds), then the Julian day.
    set i96 [binary format wi [expr {($id % 86400) * 1000000000 + $id * 1000}] \
                              [expr {2460000 + $id % 5}]]
    db eval {INSERT INTO t_BINARY VALUES ($id, @bin);
             INSERT INTO t_FLBA VALUES ($id, @flba);
             INSERT INTO t_INT96 VALUES ($id, @i96)}
  }
}

# Each kind: its table, its type argument, and whether it is binary.
set kinds {
  BOOLEAN    t_BOOLEAN    BOOLEAN                  0
  INT32      t_INT32      INT32                    0
  INT64      t_INT64      INT64                    0
  INT96      t_INT96      INT96                    0
  FLOAT      t_FLOAT      FLOAT                    0
  DOUBLE     t_DOUBLE     DOUBLE                   0
  BYTE_ARRAY t_BYTE_ARRAY BYTE_ARRAY               0
  BINARY     t_BINARY     BYTE_ARRAY               1
  FLBA       t_FLBA       FIXED_LEN_BYTE_ARRAY(5)  0
}
# The encodings a data page may use, by kind (the spec's table; RLE for
# BOOLEAN; GROUP_VAR_INT as the historical document has it; ALP, the
# preview of AlpEncoding.md, for FLOAT and DOUBLE).
set encodings_of {
  BOOLEAN    {PLAIN RLE PLAIN_DICTIONARY RLE_DICTIONARY}
  INT32      {PLAIN PLAIN_DICTIONARY RLE_DICTIONARY DELTA_BINARY_PACKED
              BYTE_STREAM_SPLIT GROUP_VAR_INT}
  INT64      {PLAIN PLAIN_DICTIONARY RLE_DICTIONARY DELTA_BINARY_PACKED
              BYTE_STREAM_SPLIT GROUP_VAR_INT}
  INT96      {PLAIN PLAIN_DICTIONARY RLE_DICTIONARY}
  FLOAT      {PLAIN PLAIN_DICTIONARY RLE_DICTIONARY BYTE_STREAM_SPLIT ALP}
  DOUBLE     {PLAIN PLAIN_DICTIONARY RLE_DICTIONARY BYTE_STREAM_SPLIT ALP}
  BYTE_ARRAY {PLAIN PLAIN_DICTIONARY RLE_DICTIONARY DELTA_LENGTH_BYTE_ARRAY
              DELTA_BYTE_ARRAY}
  BINARY     {PLAIN PLAIN_DICTIONARY RLE_DICTIONARY DELTA_LENGTH_BYTE_ARRAY
              DELTA_BYTE_ARRAY}
  FLBA       {PLAIN PLAIN_DICTIONARY RLE_DICTIONARY DELTA_BYTE_ARRAY
              BYTE_STREAM_SPLIT}
}

# A value as text that keeps its type and every bit of a REAL.
set CANON {CASE WHEN @X@ IS NULL THEN 'NULL'
                WHEN typeof(@X@) = 'real' THEN printf('%!.17g', @X@)
                ELSE quote(@X@) END}
proc canon {expr} { string map [list @X@ $expr] $::CANON }

# The rows of a one-column file, read page by page: definition levels and
# values (BYTE_ARRAY values as BLOBs when binary), merged.
proc file_rows {file binary} {
  set defs [db eval {
    SELECT d.value FROM parquet_pages(@file) p,
           parquet_values(p.def_levels, 'RLE', 'INT32', p.def_options) d
     WHERE p.page_type LIKE 'DATA_PAGE%' ORDER BY p.row_group, p.page, d.idx
  }]
  set b [expr {$binary ? "true" : "false"}]
  set vals [db eval [subst {
    SELECT [canon v.value] FROM parquet_pages(@file) p,
           parquet_values(p.data, p.encoding, p.type,
                          json_set(p.options, '$.binary', json('$b')),
                          p.dictionary) v
     WHERE p.page_type LIKE 'DATA_PAGE%' ORDER BY p.row_group, p.page, v.idx
  }]]
  set max [db onecolumn {SELECT max(max_definition_level) FROM parquet_schema(@file)}]
  if {$max == 0} { return $vals }
  set rows {}
  set i 0
  foreach d $defs {
    if {$d == $max} {
      lappend rows [lindex $vals $i]
      incr i
    } else {
      lappend rows NULL
    }
  }
  if {$i != [llength $vals]} { lappend rows "EXTRA VALUES" }
  return $rows
}
proc table_rows {table {where 1}} {
  db eval "SELECT [canon v] FROM $table WHERE $where ORDER BY id"
}

