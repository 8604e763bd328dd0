// hyparquet_variant.mjs HYPARQUET_DIR FILE COLUMN -- reads FILE with
// hyparquet (tools/hyparquet.sh), which decodes VARIANT columns, shredded
// or not, into JS values, and prints one JSON line: {"rows": [text, ...]}
// with COLUMN's value of each row as JSON text (null for a missing one;
// BigInt as its digits, bytes as {"hex": ...}), or {"error": first line}.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [hypDir, file, column] = process.argv.slice(2);
const require = createRequire(join(hypDir, 'node_modules', 'x.js'));
const hp = await import(pathToFileURL(require.resolve('hyparquet')).href);

// JSON text of a value, BigInt as its digits (JSON.stringify refuses them)
function text(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return String(v);
  if (v instanceof Uint8Array) return JSON.stringify({ hex: Buffer.from(v).toString('hex') });
  if (Array.isArray(v)) return '[' + v.map(text).join(',') + ']';
  if (typeof v === 'object')
    return '{' + Object.entries(v).map(([k, x]) => JSON.stringify(k) + ':' + text(x)).join(',') + '}';
  return JSON.stringify(v);
}

try {
  const buf = readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const rows = await hp.parquetReadObjects({ file: ab });
  console.log(JSON.stringify({ rows: rows.map((r) => (r[column] === null || r[column] === undefined ? null : text(r[column]))) }));
} catch (e) {
  console.log(JSON.stringify({ error: String(e instanceof Error ? e.message : e).split('\n')[0] }));
}
