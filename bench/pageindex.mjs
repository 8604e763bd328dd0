// pageindex.mjs PARQUET_WASM_DIR SRC GROUPS DST
//
// The page-index copy of the benchmark's file (bench/tables.c): reads the
// GROUPS row groups of SRC one at a time with parquet-wasm (arrow-rs built for
// WebAssembly) and writes the same rows to DST (unless it exists) as
// arrow-rs does by default: a column index and an offset index for every
// chunk, data pages of at most 20 000 rows (arrow-rs's default
// data_page_row_count_limit) or 1 MB, SNAPPY, row groups of 100 352 rows
// as in SRC; dictionary encoding for cat only, so that a page of any
// other column is read without a dictionary page.
// Prints {file, bytes, row_groups, seconds}.
import { createRequire } from 'node:module';
import { createWriteStream, existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';

const [dir, src, groups, dst] = process.argv.slice(2);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const pw = require('parquet-wasm');
const t0 = Date.now();
if (!existsSync(dst)) {
  const bytes = new Uint8Array(readFileSync(src));
  const total = Number(groups);
  let g = 0;
  const batches = new ReadableStream({
    pull(ctl) {
      if (g >= total) {
        ctl.close();
        return;
      }
      const t = pw.readParquet(bytes, { rowGroups: [g++] });
      for (const b of t.recordBatches()) ctl.enqueue(b);
    },
  });
  const props = new pw.WriterPropertiesBuilder()
    .setMaxRowGroupSize(100352)
    .setCompression(pw.Compression.SNAPPY)
    .setStatisticsEnabled(pw.EnabledStatistics.Page)
    .setDictionaryEnabled(false)
    .setColumnDictionaryEnabled('cat', true)
    .build();
  const tmp = dst + '.tmp';
  const out = await pw.transformParquetStream(batches, props);
  await out.pipeTo(Writable.toWeb(createWriteStream(tmp)));
  renameSync(tmp, dst);
}
console.log(JSON.stringify({ file: dst, bytes: statSync(dst).size, seconds: (Date.now() - t0) / 1000 }));
