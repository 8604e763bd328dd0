#!/bin/sh
# parquet_wasm.sh [--dir] -- arrow-rs's Parquet reader and writer built for
# WebAssembly: the npm package parquet-wasm, pinned, in a cache folder
# outside the repository; --dir prints that folder.
exec sh "$(dirname "$0")/npm_cache.sh" parquet-wasm 0.8.0 "$@"
