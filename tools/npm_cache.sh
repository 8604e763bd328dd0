#!/bin/sh
# npm_cache.sh PACKAGE VERSION [--dir] -- an npm package, pinned, for the
# interop tests and the benchmarks.
#
# Installs PACKAGE@VERSION from the npm registry into a cache folder outside
# the repository, once (no install script runs); --dir prints that folder.
# PQ_NPM_CACHE overrides the cache's root.
PKG=$1
VERSION=$2
DIR=${PQ_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet-sqlite}/$(echo "$PKG" | tr -d @ | tr / -)-$VERSION
if [ "$3" = --dir ]; then
  echo "$DIR"
  exit 0
fi
[ -f "$DIR/node_modules/$PKG/package.json" ] && exit 0
command -v npm >/dev/null 2>&1 || sh "$(dirname "$0")/deps.sh" nodejs npm || exit 1
echo "installing $PKG@$VERSION into $DIR"
mkdir -p "$DIR" &&
  npm install --prefix "$DIR" --no-audit --no-fund --no-save --ignore-scripts \
    --loglevel=error "$PKG@$VERSION"
