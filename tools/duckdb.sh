#!/bin/sh
# duckdb.sh [--dir] -- DuckDB for the interop tests, from the npm registry.
#
# Installs the npm package @duckdb/node-api (it ships DuckDB's binary) into
# a cache folder outside the repository, once; --dir prints that folder.
# PQ_DUCKDB_DIR overrides it.
VERSION=1.5.6-r.1
DIR=${PQ_DUCKDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet-sqlite/duckdb-$VERSION}
if [ "$1" = --dir ]; then
  echo "$DIR"
  exit 0
fi
[ -f "$DIR/node_modules/@duckdb/node-api/package.json" ] && exit 0
command -v npm >/dev/null 2>&1 || sh "$(dirname "$0")/deps.sh" nodejs npm || exit 1
echo "installing @duckdb/node-api@$VERSION into $DIR"
mkdir -p "$DIR" &&
  npm install --prefix "$DIR" --no-audit --no-fund --no-save --loglevel=error \
    "@duckdb/node-api@$VERSION"
