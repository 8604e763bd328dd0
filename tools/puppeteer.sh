#!/bin/sh
# puppeteer.sh [--dir] -- puppeteer-core, which drives Debian's chromium
# for `make test-wasm` (tests/wasm.tcl, web/test/browser.mjs): the npm
# package, pinned, in a cache folder outside the repository; it downloads
# no browser.  --dir prints that folder.
exec sh "$(dirname "$0")/npm_cache.sh" puppeteer-core 24.31.0 "$@"
