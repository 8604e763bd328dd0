// run_node.js MODULE SCRIPT... -- the playground's bridge in WebAssembly,
// under node: as web/run.c does natively, each script runs in a fresh
// database and its JSON answer is printed on a line of its own.  MODULE is
// build/wasm/pqweb-node.js (NODERAWFS: paths are the host's, relative to
// the current folder).
'use strict';
const fs = require('fs');
const path = require('path');

const [modulePath, ...scripts] = process.argv.slice(2);
const wasm = modulePath.replace(/\.js$/, '.wasm');
// The wasm is handed over, not fetched: this emscripten's fetch of a path
// fails under node 20.
require(path.resolve(modulePath))({ wasmBinary: fs.readFileSync(wasm) })
  .then((M) => {
    const exec = M.cwrap('pqweb_exec', 'string', ['string', 'number', 'number']);
    const CONTINUE = 1;
    for (const script of scripts) {
      if (M.ccall('pqweb_open', 'number', [], []) !== 0) {
        throw new Error('cannot open a database');
      }
      process.stdout.write(exec(fs.readFileSync(script, 'utf8'), 0, CONTINUE) + '\n');
    }
  })
  .catch((e) => {
    process.stderr.write(`run_node: ${String(e).slice(0, 500)}\n`);
    process.exit(1);
  });
