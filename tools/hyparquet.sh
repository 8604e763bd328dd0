#!/bin/sh
# hyparquet.sh [--dir] -- hyparquet, a Parquet reader in plain JavaScript,
# for the interop tests: the npm package, pinned, in a cache folder outside
# the repository; --dir prints that folder.  It reads SNAPPY itself; the
# other codecs (GZIP, BROTLI, ZSTD, LZ4, LZ4_RAW) come from its companion
# hyparquet-compressors, pinned too, in a folder of its own, linked into
# hyparquet's node_modules/ so that one folder resolves both.
here=$(dirname "$0")
dir=$(sh "$here/npm_cache.sh" hyparquet 1.33.0 --dir)
[ "$1" = --dir ] && { echo "$dir"; exit 0; }
codecs=$(sh "$here/npm_cache.sh" hyparquet-compressors 1.1.2 --dir)
sh "$here/npm_cache.sh" hyparquet 1.33.0 &&
  sh "$here/npm_cache.sh" hyparquet-compressors 1.1.2 &&
  ln -sfn "$codecs/node_modules/hyparquet-compressors" "$dir/node_modules/hyparquet-compressors"
