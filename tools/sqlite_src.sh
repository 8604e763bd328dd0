#!/bin/sh
# sqlite_src.sh [--dir] -- SQLite's amalgamation (sqlite3.c and its headers) for
# the WebAssembly build: the official source tarball as the npm package
# sqlite3 ships it (deps/sqlite-autoconf-*.tar.gz), pinned by version and
# by checksum, unpacked once into a cache folder outside the repository;
# --dir prints the folder that holds sqlite3.c.  PQ_NPM_CACHE overrides the
# cache's root.  Only `npm pack` runs: no dependency, no install script.
PKG_VERSION=6.0.1
PKG_SHA256=ab8d044a93e05bd031d7ea75547c7fa60387cdc259d27f93c0e3e2832c4b1df9
SRC=sqlite-autoconf-3520000
SRC_SHA256=f6b50b0c103392af32a8be15b2b9d25959de9a00a70c3979128aafeaa5338b3f
ROOT=${PQ_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet-sqlite}
DIR=$ROOT/sqlite3-src-$PKG_VERSION
if [ "$1" = --dir ]; then
  echo "$DIR/$SRC"
  exit 0
fi
[ -f "$DIR/$SRC/sqlite3ext.h" ] && exit 0
command -v npm >/dev/null 2>&1 || sh "$(dirname "$0")/deps.sh" nodejs npm || exit 1
check() { # FILE SHA256
  got=$(sha256sum "$1" | cut -d' ' -f1)
  [ "$got" = "$2" ] && return 0
  echo "sqlite_src.sh: $1: checksum $got, expected $2" >&2
  return 1
}
echo "fetching sqlite3@$PKG_VERSION ($SRC) into $DIR"
rm -rf "$DIR" && mkdir -p "$DIR" && cd "$DIR" &&
  npm pack --silent "sqlite3@$PKG_VERSION" >/dev/null &&
  check "sqlite3-$PKG_VERSION.tgz" "$PKG_SHA256" &&
  tar --no-same-owner -xzf "sqlite3-$PKG_VERSION.tgz" "package/deps/$SRC.tar.gz" &&
  check "package/deps/$SRC.tar.gz" "$SRC_SHA256" &&
  tar --no-same-owner -xzf "package/deps/$SRC.tar.gz" "$SRC/sqlite3.c" "$SRC/sqlite3.h" \
    "$SRC/sqlite3ext.h" &&
  rm -rf package "sqlite3-$PKG_VERSION.tgz" ||
  { rm -rf "$DIR"; exit 1; }
