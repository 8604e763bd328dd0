#!/bin/sh
# duckdb.sh [--dir] -- DuckDB for the interop tests and the benchmarks: the
# npm package @duckdb/node-api (it ships DuckDB's binary), pinned, in a
# cache folder outside the repository; --dir prints that folder.
exec sh "$(dirname "$0")/npm_cache.sh" @duckdb/node-api 1.5.6-r.1 "$@"
