#!/bin/sh
# better_sqlite3.sh [--dir] -- Node's better-sqlite3 for tests/clients.test,
# from the npm registry.
#
# Installs the npm package better-sqlite3, at the version below, into a
# cache folder outside the repository, once: the package's tarball must
# have the sha512 below (npm checks its dependencies' against the
# registry's), and its native addon, with the SQLite it bundles, is built
# from source against the headers of the node on PATH (node-gyp: python3,
# make, g++), never downloaded prebuilt; that takes about a minute.
# --dir prints the folder, whose node_modules/ holds the package;
# PQ_BETTER_SQLITE3_DIR overrides it.
#
# 11.10.0 is the last release that runs on Node 18 (Debian 12's nodejs)
# as well as on 20 and later; the 12.x releases need Node 20.
VERSION=11.10.0
INTEGRITY=sha512-EwhOpyXiOEL/lKzHz9AW1msWFNzGc/z+LzeB3/jnFJpxu+th2yqvzsSWas1v9jgs9+xiXJcD5A8CJxAG2TaghQ==
DIR=${PQ_BETTER_SQLITE3_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet-sqlite/better-sqlite3-$VERSION}
if [ "$1" = --dir ]; then
  echo "$DIR"
  exit 0
fi
# Written last, when the addon is built and loads.
STAMP=$DIR/.installed
[ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "better-sqlite3@$VERSION" ] && exit 0

here=$(dirname "$0")
command -v npm >/dev/null 2>&1 || sh "$here/deps.sh" nodejs npm || exit 1
major=$(node -p 'process.versions.node.split(".")[0]') || exit 1
if [ "$major" -lt 18 ]; then
  echo "better-sqlite3 $VERSION needs Node 18 or later; this node is $(node --version)" >&2
  exit 1
fi

# The node's own headers: beside its binary (/usr/bin/node: /usr/include/node,
# which Debian's nodejs leaves to libnode-dev).  Without them node-gyp
# would download them.
nodedir=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
need="python3 make g++"
[ -f "$nodedir/include/node/node.h" ] || {
  [ "$nodedir" = /usr ] && need="$need libnode-dev"
}
sh "$here/deps.sh" $need || exit 1
if [ ! -f "$nodedir/include/node/node.h" ]; then
  echo "no headers for $(command -v node) in $nodedir/include/node" >&2
  exit 1
fi

echo "installing better-sqlite3@$VERSION into $DIR (its addon is built from source, about a minute)"
tgz=$DIR/better-sqlite3-$VERSION.tgz
mkdir -p "$DIR" && rm -f "$STAMP" "$tgz" || exit 1
npm pack --pack-destination "$DIR" --loglevel=error "better-sqlite3@$VERSION" >/dev/null || exit 1
sum=sha512-$(node -e '
  const data = require("fs").readFileSync(process.argv[1]);
  process.stdout.write(require("crypto").createHash("sha512").update(data).digest("base64"));
' "$tgz") || exit 1
if [ "$sum" != "$INTEGRITY" ]; then
  echo "better-sqlite3-$VERSION.tgz: $sum, not the expected $INTEGRITY" >&2
  exit 1
fi

# No install script runs (npm leaves dependencies' to an allow list from
# version 12, and this one would first try to download a prebuilt addon):
# the package's own build-release script, node-gyp, builds the addon.
npm install --prefix "$DIR" --no-audit --no-fund --no-save --ignore-scripts \
  --loglevel=error "$tgz" || exit 1
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
npm_config_nodedir=$nodedir npm_config_python=$python JOBS=max \
  npm run --prefix "$DIR/node_modules/better-sqlite3" --loglevel=error \
    build-release > "$DIR/build.log" 2>&1 ||
  { tail -n 40 "$DIR/build.log" >&2; echo "better-sqlite3: the build failed; $DIR/build.log has it all" >&2; exit 1; }

# It loads, and its SQLite loads extensions.
(cd "$DIR" && node -e '
  const Database = require("better-sqlite3");
  const db = new Database(":memory:");
  try { db.loadExtension("./no-such-extension"); } catch (e) {
    if (!/no-such-extension/.test(e.message)) throw e;
  }
  console.log("better-sqlite3 " + require("better-sqlite3/package.json").version +
              ", SQLite " + db.prepare("SELECT sqlite_version() AS v").get().v);
') || exit 1
echo "better-sqlite3@$VERSION" > "$STAMP"
