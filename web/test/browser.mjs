// browser.mjs BUILD_WEB_DIR PUPPETEER_DIR SCREENSHOT_DIR -- the playground's
// page (web/index.html, app.js, style.css over build/web/pqweb.js) in
// headless Chromium, driven by puppeteer-core (tools/puppeteer.sh --dir).
//
//   node web/test/browser.mjs build/web "$(sh tools/puppeteer.sh --dir)" build/web
//
// The page is served over HTTP by a static server of node's own, on
// 127.0.0.1 and a free port, and opened from file:// too.  Each check prints
// "ok NAME" or "! NAME: detail"; the last line is "N passed, N failed", and
// the exit status is 1 if any failed.  Screenshots (1280 px wide) go to
// SCREENSHOT_DIR: explain-delta.png, file-pages.png, playground.png,
// lab.png, lab-explain.png, url.png.
//
// A second server, on another port (another origin: CORS), serves Parquet
// files by range requests for the URL field, counting each request and its
// bytes, and breaks on demand (a wrong Content-Range, HTTP 500, an ETag
// that changes, no Range at all, headers not exposed to CORS).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [webArg, pupArg, shotArg] = process.argv.slice(2);
if (!webArg || !pupArg || !shotArg) {
  console.error('usage: node web/test/browser.mjs BUILD_WEB_DIR PUPPETEER_DIR SCREENSHOT_DIR');
  process.exit(2);
}
const webDir = path.resolve(webArg);
const shotDir = path.resolve(shotArg);
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const sampleFile = path.resolve(here, '..', '..', '..', 'shared', 'parquet-testing', 'data',
                                'alltypes_plain.parquet');
const deltaOut = path.join(repo, 'sql', 'tutorial', '05_delta_binary_packed.out');
// The same bridge built natively (make build/wasm/run): what the lab's bytes
// are compared with.
const nativeRun = path.join(repo, 'build', 'wasm', 'run');

const require = createRequire(path.resolve(pupArg) + '/node_modules/');
const puppeteer = require('puppeteer-core');

let passed = 0;
let failed = 0;
function ok(name) { passed++; console.log(`ok ${name}`); }
function bad(name, detail) {
  failed++;
  console.log(`! ${name}: ${String(detail).replace(/\s+/g, ' ').slice(0, 1500)}`);
}
// Runs one check: fn returns a note for the "ok" line or throws.
async function check(name, fn) {
  try {
    const note = await fn();
    ok(note ? `${name} (${note})` : name);
    return true;
  } catch (e) {
    bad(name, e && e.message ? e.message : e);
    return false;
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }
function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// A stuck browser must not hang `make test-wasm`.
const deadline = setTimeout(() => {
  bad('time', 'the checks took more than 300 s; stopped');
  finish();
}, 300000);
deadline.unref();

// ---- A static server ---------------------------------------------------------

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

const server = http.createServer((req, res) => {
  let p;
  try {
    p = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  if (p.endsWith('/')) p += 'index.html';
  const file = path.resolve(webDir, '.' + p);
  if (file !== webDir && !file.startsWith(webDir + path.sep)) {
    res.writeHead(403).end();
    return;
  }
  fs.readFile(file, (err, data) => {
    if (err) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
      'Cache-Control': 'no-store',
    });
    res.end(data);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/`;

// ---- A server of files by range requests ---------------------------------------

// name -> bytes; each GET is logged as {name, range, status, bytes}.
const dataFiles = new Map();
const dataLog = [];
// The fault of the next requests: null, 'range' (a Content-Range one byte
// off), 'range-later' (the same, after each file's first request), '500',
// 'etag' (another ETag at each request), 'whole' (200 and the whole body),
// 'whole-later' (the same, after each file's first request),
// 'hidden' (Content-Range and ETag not exposed to CORS); counted from the
// request dataFaultFrom of the log on.
let dataFault = null;
let dataFaultFrom = 0;
const dataServer = http.createServer((req, res) => {
  const cors = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Range',
    'Access-Control-Expose-Headers': dataFault === 'hidden' ? '' : 'Content-Range, ETag',
    'Cache-Control': 'no-store',
  };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { ...cors, 'Access-Control-Allow-Methods': 'GET' }).end();
    return;
  }
  const name = decodeURIComponent(new URL(req.url, 'http://localhost').pathname.slice(1));
  const body = dataFiles.get(name);
  const seen = dataLog.slice(dataFaultFrom).filter((e) => e.name === name).length;
  const entry = { name, range: req.headers.range || '', status: 0, bytes: 0 };
  dataLog.push(entry);
  const send = (status, headers, data) => {
    entry.status = status;
    entry.bytes = data ? data.length : 0;
    res.writeHead(status, { ...cors, ...headers });
    res.end(data);
  };
  if (!body) return send(404, { 'Content-Type': 'text/plain' }, Buffer.from('not found'));
  if (dataFault === '500') return send(500, { 'Content-Type': 'text/plain' }, Buffer.from('broken'));
  const etag = dataFault === 'etag' ? `"v${seen}"` : '"v0"';
  const m = /^bytes=(\d*)-(\d*)$/.exec(entry.range);
  if (dataFault === 'whole' || (dataFault === 'whole-later' && seen > 0) || !m ||
      (m[1] === '' && m[2] === '')) {
    return send(200, { 'Content-Type': 'application/octet-stream', ETag: etag }, body);
  }
  let first, last;
  if (m[1] === '') {
    first = Math.max(0, body.length - Number(m[2]));
    last = body.length - 1;
  } else {
    first = Number(m[1]);
    last = m[2] === '' ? body.length - 1 : Math.min(Number(m[2]), body.length - 1);
  }
  if (first > last || first >= body.length) {
    return send(416, { 'Content-Range': `bytes */${body.length}` }, null);
  }
  const off = dataFault === 'range' || (dataFault === 'range-later' && seen > 0) ? 1 : 0;
  send(206, {
    'Content-Type': 'application/octet-stream',
    'Content-Range': `bytes ${first + off}-${last + off}/${body.length}`,
    ETag: etag,
  }, body.subarray(first, last + 1));
});
await new Promise((resolve) => dataServer.listen(0, '127.0.0.1', resolve));
const dataBase = `http://127.0.0.1:${dataServer.address().port}/`;
const fileUrl = pathToFileURL(path.join(webDir, 'index.html')).href;

// ---- sqlite3's column mode, as in sql/tutorial/*.out ----------------------------

// The tables of a column-mode transcript: [{headers, rows}], each cell trimmed.
function columnTables(text, script) {
  // The transcript echoes its script (.echo on): a line of the script ends
  // a table, as a blank line does.
  const echoed = new Set(script.split('\n').filter((l) => l.trim() !== ''));
  const lines = text.split('\n').map((l) => (echoed.has(l) ? '' : l));
  const dashes = /^-+( {2}-+)*\s*$/;
  const tables = [];
  let i = 0;
  while (i < lines.length) {
    if (i + 1 < lines.length && dashes.test(lines[i + 1]) && lines[i].trim() !== '') {
      const spans = [];
      const re = /-+/g;
      let m;
      while ((m = re.exec(lines[i + 1]))) spans.push([m.index, m.index + m[0].length]);
      const cut = (line) => spans.map(([a, b], k) =>
        (k === spans.length - 1 ? line.slice(a) : line.slice(a, b)).trim());
      const t = { headers: cut(lines[i]), rows: [] };
      i += 2;
      while (i < lines.length && lines[i] !== '' &&
             !(i + 1 < lines.length && dashes.test(lines[i + 1]))) {
        t.rows.push(cut(lines[i]));
        i++;
      }
      tables.push(t);
    } else {
      i++;
    }
  }
  return tables;
}

// ---- The browser ------------------------------------------------------------------

const problems = [];
function isLocal(u) {
  return u.startsWith(base) || u.startsWith(dataBase) || u.startsWith('file:') || u.startsWith('data:') ||
         u.startsWith('blob:') || u.startsWith('about:');
}

const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--allow-file-access-from-files'],
});

async function openPage(url, label) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on('pageerror', (e) => problems.push(`${label}: uncaught: ${e.message}`));
  page.on('request', (r) => {
    if (!isLocal(r.url())) problems.push(`${label}: a request to another host: ${r.url()}`);
  });
  page.on('requestfailed', (r) => {
    if (r.url().startsWith(dataBase)) return; // the URL checks' faults, on purpose
    problems.push(`${label}: failed request: ${r.url()} (${r.failure() && r.failure().errorText})`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().startsWith(dataBase)) problems.push(`${label}: HTTP ${r.status()} for ${r.url()}`);
  });
  await page.goto(url, { waitUntil: 'load', timeout: 30000 });
  await page.waitForFunction('window.pqReady === true', { timeout: 30000 });
  // The page runs what the editor holds once it is ready: wait for that run.
  await page.waitForFunction('window.pqRunCount >= 1', { timeout: 30000 });
  return page;
}

// Does `act`, then waits for the run it starts to finish.
async function runAndWait(page, act, timeout = 30000) {
  const before = await page.evaluate(() => window.pqRunCount);
  await act();
  await page.waitForFunction((n) => window.pqRunCount > n, { timeout }, before);
}

// The results as the page shows them: per table, its headers and cells
// (NULL as null), and the statement above it.
function domTables(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll('#results table')).map((t) => {
    const sec = t.closest('.result');
    const stmt = sec && sec.querySelector('.stmt');
    return {
      sql: stmt ? stmt.textContent : '',
      headers: Array.from(t.tHead.rows[0].cells).map((c) => c.textContent),
      rows: Array.from(t.tBodies[0].rows).map((tr) => Array.from(tr.cells).map((td) =>
        td.classList.contains('null') ? null : td.textContent)),
    };
  }));
}

// Each drawn explain: its table's rows, its fields and its hex bytes.
function drawnExplains(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll('#results .explain')).map((ex) => {
    const sec = ex.closest('.result');
    const table = sec.querySelector('table.explain-table');
    const heads = table ? Array.from(table.tHead.rows[0].cells).map((c) => c.textContent) : [];
    const rows = table ? Array.from(table.tBodies[0].rows).map((tr) => {
      const o = {};
      Array.from(tr.cells).forEach((td, i) => { o[heads[i]] = td.classList.contains('null') ? null : td.textContent; });
      return o;
    }) : [];
    return {
      drawn: Number(ex.dataset.drawn),
      total: Number(ex.dataset.rows),
      rows,
      fields: Array.from(ex.querySelectorAll('.field')).map((f) => ({
        rows: (f.dataset.rows || '').split(' ').filter((s) => s !== '').map(Number),
        path: f.dataset.path, offset: Number(f.dataset.offset), length: Number(f.dataset.length),
      })),
      hex: Array.from(ex.querySelectorAll('.hexbyte')).map((h) => [Number(h.dataset.offset), h.textContent]),
    };
  }));
}

// The drawing's invariant: every row drawn is in some field's data-rows, no
// field names a row that is not drawn, and each field's data-path,
// data-offset and data-length are those of its first row in the table.
// Clicks `selector`, waits for the run, and returns the one explain drawn
// (no error shown).
async function clickForOneDrawing(page, selector) {
  await runAndWait(page, () => page.click(selector));
  const errs = await page.$$eval('#results .error', (e) => e.map((x) => x.textContent));
  assert(!errs.length, `errors: ${errs.join(' | ')}`);
  const exs = await drawnExplains(page);
  assert(exs.length === 1, `${exs.length} drawings`);
  return exs[0];
}

function checkDrawing(ex, label) {
  assert(ex.fields.length > 0, `${label}: no .field elements`);
  assert(ex.rows.length === ex.total || ex.total >= 2000,
         `${label}: the drawing counts ${ex.total} rows, the table has ${ex.rows.length}`);
  const covered = new Set();
  for (const f of ex.fields) {
    assert(f.rows.length > 0, `${label}: a field without data-rows`);
    for (const i of f.rows) {
      assert(i >= 0 && i < ex.drawn, `${label}: a field names row ${i}, beyond the ${ex.drawn} drawn`);
      covered.add(i);
    }
    const r = ex.rows[f.rows[0]];
    assert(r && r.path === f.path, `${label}: field ${f.path} is row ${f.rows[0]}, ${r && r.path} in the table`);
    assert(Number(r.offset) === f.offset, `${label}: field ${f.path} at ${f.offset}, row at ${r.offset}`);
    if ('length' in r) {
      assert(Number(r.length) === f.length, `${label}: field ${f.path} of ${f.length} bytes, row of ${r.length}`);
    }
  }
  const missing = [];
  for (let i = 0; i < ex.drawn; i++) if (!covered.has(i)) missing.push(`${i} ${ex.rows[i].path}`);
  assert(!missing.length, `${label}: rows not drawn: ${missing.slice(0, 5).join(', ')}`);
  // Every row with bytes has a field over them.
  const withBytes = ex.rows.slice(0, ex.drawn).filter((r) =>
    ('length' in r ? Number(r.length) : (r.hex || '').trim().split(/\s+/).filter(Boolean).length) > 0).length;
  return `${ex.fields.length} fields, ${covered.size} of ${ex.total} rows drawn, ${withBytes} with bytes`;
}

function hexOfDrawing(ex) {
  const seen = new Map();
  for (const [off, h] of ex.hex) if (!seen.has(off)) seen.set(off, h);
  return Array.from(seen.keys()).sort((a, b) => a - b).map((k) => seen.get(k)).join('');
}

function shotCheck(name) {
  const f = path.join(shotDir, name);
  return check(`screenshot ${name}`, () => {
    const st = fs.statSync(f);
    assert(st.size > 0, `${f} is empty`);
    return `${st.size} bytes`;
  });
}

fs.mkdirSync(shotDir, { recursive: true });

try {
  // 1. The page over HTTP and from file://.
  let page = null;
  await check('page-http', async () => {
    page = await openPage(base + 'index.html', 'http');
    const n = await page.$$eval('#examples button[data-name]', (b) => b.length);
    const expected = await page.evaluate(() => (window.PQ_EXAMPLES || []).length);
    assert(expected >= 12, `PQ_EXAMPLES has ${expected} scripts`);
    assert(n === expected, `the menu has ${n} examples, PQ_EXAMPLES ${expected}`);
    return `pqReady, ${n} examples`;
  });
  if (!page) throw new Error('the page did not load over HTTP');

  await check('footer-versions', async () => {
    const text = await page.$eval('footer', (f) => f.textContent);
    assert(/SQLite\s+3\.\d+\.\d+/.test(text), `no SQLite version in the footer: ${text}`);
    const m = /Parquet extension\s+(\d+\.\d+\.\d+)/.exec(text);
    assert(m, `no extension version in the footer: ${text}`);
    return m[0];
  });

  await check('page-file', async () => {
    const p = await openPage(fileUrl, 'file');
    const fields = await p.$$eval('#results .explain .field', (f) => f.length);
    const hash = await p.evaluate(() => location.hash);
    const sql = await p.$eval('#sql', (t) => t.value);
    await p.close();
    assert(fields > 0, 'the first query drew nothing');
    assert(hash === '#sql=' + encodeURIComponent(sql), `after the first run the hash is ${hash.slice(0, 80)}`);
    return `pqReady over file://, ${fields} fields drawn`;
  });

  // 2. The DELTA_BINARY_PACKED tutorial from the menu.
  let ranDelta = await check('example-05-runs', async () => {
    await runAndWait(page, () => page.click('#examples button[data-name="05_delta_binary_packed"]'));
    const sql = await page.$eval('#sql', (t) => t.value);
    assert(sql.startsWith('-- 05_delta_binary_packed.sql'), 'the editor does not hold the script');
    const n = await page.$$eval('#results table', (t) => t.length);
    assert(n >= 5, `${n} tables`);
    const errors = await page.$$eval('#results .error', (e) => e.map((x) => x.textContent));
    assert(!errors.length, `errors: ${errors.join(' | ')}`);
    return `${n} tables`;
  });

  if (ranDelta) {
    await check('example-05-matches-out', async () => {
      const want = columnTables(fs.readFileSync(deltaOut, 'utf8'),
                                fs.readFileSync(deltaOut.replace(/\.out$/, '.sql'), 'utf8'));
      const got = await domTables(page);
      assert(want.length >= 5, `${deltaOut}: ${want.length} tables`);
      let k = 0;
      for (const [t, w] of want.entries()) {
        while (k < got.length && got[k].headers.join('|') !== w.headers.join('|')) k++;
        assert(k < got.length, `no table like .out table ${t} (${w.headers.join(', ')})`);
        const g = got[k];
        assert(g.rows.length === w.rows.length,
               `table ${t} (${w.headers.join(', ')}): ${g.rows.length} rows, .out ${w.rows.length}`);
        w.rows.forEach((row, i) => row.forEach((cell, j) => {
          const v = g.rows[i][j] === null ? '' : g.rows[i][j];
          assert(v === cell, `table ${t} row ${i} ${w.headers[j]}: page "${v}", .out "${cell}"`);
        }));
        k++;
      }
      // One cell by name: the header's first value in example 2.
      const ex2 = got.find((g) => g.headers.includes('bits') && g.headers.includes('path'));
      const pi = ex2.headers.indexOf('path'), vi = ex2.headers.indexOf('value');
      const row = ex2.rows.find((r) => r[pi] === 'header.first_value');
      assert(row && row[vi] === '7', `header.first_value is ${row && row[vi]}, .out says 7`);
      return `${want.length} tables of the .out, cell by cell; header.first_value = 7`;
    });

    await check('example-05-drawn', async () => {
      const exs = await drawnExplains(page);
      const got = await domTables(page);
      const explainTables = got.filter((g) => ['offset', 'hex', 'path'].every((c) => g.headers.includes(c)));
      assert(exs.length === explainTables.length,
             `${exs.length} drawings for ${explainTables.length} explain results`);
      assert(exs.length === 2, `${exs.length} drawings, the script has 2 explains`);
      const notes = exs.map((ex, i) => checkDrawing(ex, `explain ${i + 1}`));
      // The bytes drawn are the streams explained.
      const streams = [/FROM parquet_explain\(X'([0-9A-F]+)'/.exec(explainTables[0].sql)[1],
                       /FROM parquet_explain\(X'([0-9A-F]+)'/.exec(explainTables[1].sql)[1]];
      exs.forEach((ex, i) => {
        const h = hexOfDrawing(ex);
        assert(h === streams[i], `explain ${i + 1} draws the bytes ${h}, the stream is ${streams[i]}`);
      });
      // The packed values of example 2 share their bytes: each has a field.
      const v = exs[1].fields.filter((f) => /miniblock\[0\]\.value\[\d\]$/.test(f.path));
      assert(new Set(v.map((f) => f.path)).size === 7, `${v.length} fields of packed values, not 7`);
      return notes.join('; ');
    });

    await check('example-05-hover', async () => {
      const ex = (await page.$$('#results .explain'))[1];
      const field = await ex.$('.field[data-path="block[0].miniblock[0].value[3]"]');
      assert(field, 'no field for block[0].miniblock[0].value[3]');
      await field.hover();
      const detail = await page.$eval('#detail', (d) => d.textContent);
      assert(detail.includes('block[0].miniblock[0].value[3]'), `#detail shows: ${detail.slice(0, 200)}`);
      const lit = await page.evaluate(() => Array.from(document.querySelectorAll('#results tr.hl'))
        .map((tr) => tr.textContent));
      assert(lit.length === 1 && lit[0].includes('block[0].miniblock[0].value[3]'),
             `the table rows lit: ${JSON.stringify(lit)}`);
      // And back: a row of the table lights its field.
      const tr = await page.evaluateHandle(() => Array.from(document.querySelectorAll('#results table.explain-table'))[1]
        .tBodies[0].rows[0]);
      await tr.hover();
      const litFields = await page.$$eval('#results .explain .field.hl', (f) => f.map((x) => x.dataset.path));
      assert(litFields.includes('header.block_size'), `fields lit by the table's row 0: ${litFields}`);
      const detail2 = await page.$eval('#detail', (d) => d.textContent);
      assert(detail2.includes('header.block_size'), `#detail shows: ${detail2.slice(0, 200)}`);
      // A click keeps it.
      const f2 = await ex.$('.field[data-path="header.first_value"]');
      await f2.click();
      const sel = await page.$$eval('#results tr.sel', (r) => r.map((x) => x.textContent));
      assert(sel.length === 1 && sel[0].includes('header.first_value'), `selected rows: ${sel}`);
      await (await ex.$('.field[data-path="block[0].miniblock[0].value[3]"]')).hover();
      return '#detail follows the field and the row';
    });

    await check('screenshot-explain-delta', async () => {
      const ex = (await page.$$('#results .explain'))[1];
      const sec = await ex.evaluateHandle((e) => e.closest('.result'));
      await sec.screenshot({ path: path.join(shotDir, 'explain-delta.png') });
    });
  }

  // 2b. The VARIANT tutorial: each explain drawn, the first over all the
  // bytes of metadata || value, its headers' fields among them.
  await check('example-12-variant-drawn', async () => {
    await runAndWait(page, () => page.click('#examples button[data-name="12_variant"]'));
    const errs = await page.$$eval('#results .error', (e) => e.map((x) => x.textContent));
    assert(!errs.length, `errors: ${errs.join(' | ')}`);
    const exs = await drawnExplains(page);
    const got = await domTables(page);
    const explainTables = got.filter((g) => ['offset', 'hex', 'path'].every((c) => g.headers.includes(c)));
    assert(exs.length === explainTables.length && exs.length >= 2,
           `${exs.length} drawings for ${explainTables.length} explain results`);
    const notes = exs.map((ex, i) => checkDrawing(ex, `variant explain ${i + 1}`));
    const blob = Array.from(explainTables[0].sql.matchAll(/X'([0-9A-F]*)'/g)).map((m) => m[1]).join('');
    const h = hexOfDrawing(exs[0]);
    assert(h === blob, `the first explain draws the bytes ${h}, the variant is ${blob}`);
    const paths = new Set(exs[0].fields.map((f) => f.path));
    for (const p of ['metadata.header', 'metadata.name[1]', 'value.header', 'value.field_id[0]',
                     'value.field[1]("b").data']) {
      assert(paths.has(p), `no field ${p} drawn`);
    }
    return notes.join('; ');
  });

  // 3. An error, as SQLite reports it, with the statement.
  const badSql = "SELECT parquet_decode(X'FF', 'DELTA_BINARY_PACKED', 'INT32');";
  await check('error-shown', async () => {
    await page.$eval('#sql', (t, s) => { t.value = s; }, badSql);
    await runAndWait(page, () => page.click('#run'));
    const errs = await page.$$eval('#results .error', (e) => e.map((x) => x.textContent));
    assert(errs.length === 1, `${errs.length} .error elements`);
    assert(errs[0].includes('parquet_decode') && errs[0].includes('DELTA_BINARY_PACKED'),
           `the error says: ${errs[0]}`);
    assert(errs[0].includes(badSql), `the failing statement is not shown: ${errs[0]}`);
    return errs[0].replace(badSql, '').replace(/\s+/g, ' ').trim();
  });

  await check('hash-written', async () => {
    const hash = await page.evaluate(() => location.hash);
    assert(hash === '#sql=' + encodeURIComponent(badSql), `the hash is ${hash}`);
  });

  // Ctrl+Enter runs too.
  await check('ctrl-enter', async () => {
    await page.$eval('#sql', (t) => { t.value = "SELECT 'typed' AS how;"; });
    await page.focus('#sql');
    await runAndWait(page, async () => {
      await page.keyboard.down('Control');
      await page.keyboard.press('Enter');
      await page.keyboard.up('Control');
    });
    const cells = await page.$$eval('#results td', (t) => t.map((x) => x.textContent));
    assert(cells.includes('typed'), `cells: ${cells}`);
  });

  // 4. A link with the SQL in its hash.
  await check('hash-runs', async () => {
    const sql = 'SELECT 40+2 AS answer;';
    const p = await openPage(base + 'index.html#sql=' + encodeURIComponent(sql), 'hash');
    const t = await domTables(p);
    const editor = await p.$eval('#sql', (x) => x.value);
    await p.close();
    assert(editor === sql, `the editor holds ${JSON.stringify(editor)}`);
    assert(t.length === 1 && t[0].headers[0] === 'answer' && t[0].rows[0][0] === '42',
           `tables: ${JSON.stringify(t)}`);
    return 'answer = 42';
  });

  // A shared link is someone else's SQL: what it returns is shown as text,
  // never taken as markup (column names, values, errors, explain notes).
  await check('hash-no-markup', async () => {
    const tag = '<img src=x onerror="window.pqInjected=1">';
    const sql = `SELECT '${tag}' AS "${tag}"; ` +
                `SELECT path, note FROM parquet_explain(X'01', 'PLAIN', 'INT32') WHERE '${tag}' <> '';`;
    const p = await openPage(base + 'index.html#sql=' + encodeURIComponent(sql), 'markup');
    const imgs = await p.$$eval('#results img, #detail img', (x) => x.length);
    const injected = await p.evaluate(() => window.pqInjected === 1);
    const text = await p.$eval('#results', (x) => x.textContent);
    await p.close();
    assert(!imgs && !injected, `${imgs} img elements in the results`);
    assert(text.includes(tag), 'the tag is not shown as text');
    return 'shown as text';
  });

  // 5. The demo, for the README's picture (before any file is opened).
  await check('demo', async () => {
    await runAndWait(page, () => page.click('#examples button[data-name="demo"]'), 90000);
    const errs = await page.$$eval('#results .error', (e) => e.map((x) => x.textContent));
    assert(!errs.length, `errors: ${errs.join(' | ')}`);
    const t = await domTables(page);
    const sizes = t.find((x) => x.headers.includes('encoding') && x.headers.includes('bytes'));
    assert(sizes && sizes.rows.length > 10, 'no table of sizes by encoding');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(shotDir, 'playground.png'), fullPage: true });
    return `${sizes.rows.length} sizes`;
  });

  // 6. A .parquet file from the disk.
  let uploaded = await check('file-upload', async () => {
    assert(fs.existsSync(sampleFile), `no ${sampleFile}`);
    const input = await page.$('#file');
    await runAndWait(page, () => input.uploadFile(sampleFile));
    const sql = await page.$eval('#sql', (t) => t.value);
    assert(sql.includes("parquet_metadata('/files/alltypes_plain.parquet')") &&
           sql.includes("parquet_pages('/files/alltypes_plain.parquet')"), `the editor holds: ${sql}`);
    const errs = await page.$$eval('#results .error', (e) => e.map((x) => x.textContent));
    assert(!errs.length, `errors: ${errs.join(' | ')}`);
    const t = await domTables(page);
    const meta = t.find((x) => x.headers.includes('path_in_schema'));
    const pages = t.find((x) => x.headers.includes('page_type'));
    assert(meta && meta.rows.length === 11, `metadata: ${meta ? meta.rows.length + ' rows' : 'none'}`);
    assert(pages && pages.rows.length > 0, 'no pages');
    const buttons = await page.$$eval('#results .explain-page', (b) => b.length);
    assert(buttons === pages.rows.length, `${buttons} explain buttons for ${pages.rows.length} pages`);
    assert(await page.$('#explain-file'), 'no #explain-file button');
    await page.screenshot({ path: path.join(shotDir, 'file-pages.png'), fullPage: true });
    return `${meta.rows.length} column chunks, ${pages.rows.length} pages`;
  });

  if (uploaded) {
    await check('file-explain-page', async () => {
      const ex = await clickForOneDrawing(page, '#results .explain-page');
      const note = checkDrawing(ex, 'page 0');
      assert(ex.rows[0].path === 'header.type', `the first row is ${ex.rows[0].path}`);
      return note;
    });

    await check('file-explain-whole', async () => {
      const ex = await clickForOneDrawing(page, '#explain-file');
      const note = checkDrawing(ex, 'file');
      assert(ex.rows[0].path === 'magic' && ex.rows[ex.rows.length - 1].path === 'end_magic',
             `rows from ${ex.rows[0].path} to ${ex.rows[ex.rows.length - 1].path}`);
      const size = fs.statSync(sampleFile).size;
      const head = hexOfDrawing(ex);
      assert(head.startsWith('50415231'), `the drawing begins ${head.slice(0, 16)}`);
      assert(head.length === 2 * size, `the drawing has ${head.length / 2} bytes, the file ${size}`);
      return note;
    });
  }

  // 7. A file dropped on the page: a second file, of DELTA_BINARY_PACKED pages.
  const dropFile = path.join(path.dirname(sampleFile), 'delta_encoding_required_column.parquet');
  let dropped = await check('file-drop', async () => {
    assert(fs.existsSync(dropFile), `no ${dropFile}`);
    const b64 = fs.readFileSync(dropFile).toString('base64');
    await runAndWait(page, () => page.evaluate((data, name) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name));
      for (const type of ['dragenter', 'dragover', 'drop']) {
        document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      }
    }, b64, path.basename(dropFile)));
    const errs = await page.$$eval('#results .error', (e) => e.map((x) => x.textContent));
    assert(!errs.length, `errors: ${errs.join(' | ')}`);
    assert(await page.$eval('#drop', (d) => d.hidden), 'the drop overlay stays');
    const chips = await page.$$eval('#files .file-chip', (c) => c.map((x) => x.dataset.file));
    assert(chips.length === 2 && chips.includes('alltypes_plain.parquet'), `files: ${chips}`);
    const t = await domTables(page);
    const pages = t.find((x) => x.headers.includes('page_type'));
    assert(pages && pages.rows.length > 10, 'no pages');
    return `${pages.rows.length} pages`;
  });

  if (dropped) {
    await check('file-explain-delta-page', async () => {
      const note = checkDrawing(
        await clickForOneDrawing(page, '#results .explain-page[data-col="1"]'), 'delta page');
      // Its miniblocks' values are drawn over their own bits.
      const packed = await page.$$eval('#results .explain .field.bitseg', (f) =>
        f.filter((x) => /miniblock\[\d+\]\.value\[\d+\]$/.test(x.dataset.path)).length);
      assert(packed >= 99, `${packed} bit fields of packed values`);
      return `${note}, ${packed} over bits`;
    });
  }

  // 7b. Files at URLs: read by range requests from another origin (CORS),
  // every value the native build's, a part of a big file fetched for a
  // part of its rows, and each fault of the server a clean error.
  const runNative = (sql) => {
    assert(fs.existsSync(nativeRun), `no ${nativeRun} (make build/wasm/run)`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pqurl-'));
    const script = path.join(dir, 'url.sql');
    fs.writeFileSync(script, sql + '\n');
    let a;
    try {
      a = JSON.parse(execFileSync(nativeRun, [script], { cwd: dir, encoding: 'utf8' }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const e = a.error || (a.results || []).map((r) => r.error).find((x) => x);
    assert(!e && a.results && a.results.length, `the native build failed: ${JSON.stringify(a).slice(0, 300)}`);
    return a.results;
  };
  // The SQL run in the page: its answer, requests and errors, and the
  // server's log of the run.
  const runInPage = async (sql) => {
    await page.$eval('#sql', (t, s) => { t.value = s; }, sql);
    const from = dataLog.length;
    await runAndWait(page, () => page.click('#run'));
    return {
      answer: JSON.parse(await page.evaluate(() => window.pqLastAnswer)),
      http: await page.evaluate(() => window.pqHttp),
      errors: await page.$$eval('#results .error', (e) => e.map((x) => x.textContent.replace(/\s+/g, ' '))),
      log: dataLog.slice(from),
    };
  };
  const sameRows = (got, want, label) => {
    assert(got && !got.error, `${label}: ${got && got.error}`);
    assert(JSON.stringify(got.columns) === JSON.stringify(want.columns),
           `${label}: columns ${got.columns}, natively ${want.columns}`);
    assert(got.rows.length === want.rows.length, `${label}: ${got.rows.length} rows, natively ${want.rows.length}`);
    got.rows.forEach((r, i) => {
      const a = JSON.stringify(r), b = JSON.stringify(want.rows[i]);
      assert(a === b, `${label}: row ${i} is ${a.slice(0, 200)}, natively ${b.slice(0, 200)}`);
    });
    return got.rows.length * got.columns.length;
  };
  const fetched = (log) => log.reduce((n, e) => n + e.bytes, 0);
  const sqlQ = (s) => `'${s.replace(/'/g, "''")}'`;
  // The table t over src (a URL or a path), and the rows `rest` asks of it.
  const onTable = (src, rest) => `CREATE VIRTUAL TABLE temp.t USING parquet(${sqlQ(src)});\n` +
                                 `SELECT * FROM t ${rest};`;
  const last = (list) => list[list.length - 1];

  const urlDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pqurl-files-'));
  const bigPath = path.join(urlDir, 'big.parquet');
  const tinyPath = path.join(path.dirname(sampleFile), 'alltypes_tiny_pages_plain.parquet');
  const local = { 'alltypes_plain.parquet': sampleFile, 'big.parquet': bigPath,
                  'alltypes_tiny_pages_plain.parquet': tinyPath };
  let urlReady = await check('url-files', () => {
    // Written by the native build: 2000 rows in 4 row groups, pages of 100, uncompressed,
    // with byte order marks among the values of `mark`.
    runNative(`SELECT parquet_write(${sqlQ(bigPath)}, ${sqlQ(
      'WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 2000) ' +
      'SELECT i AS id, (i * 2654435761) % 100003 AS n, round(i / 7.0, 3) AS price, ' +
      "printf('%.*c', 100 + i % 150, char(97 + i % 26)) AS word, " +
      "CASE i % 3 WHEN 0 THEN X'EFBBBF41' WHEN 1 THEN X'FFFE4243' ELSE X'FEFF4445' END AS mark FROM s")},
      '{"codec":"UNCOMPRESSED","page_values":100,"row_group_size":500}');`);
    for (const [name, p] of Object.entries(local)) dataFiles.set(name, fs.readFileSync(p));
    const big = dataFiles.get('big.parquet').length;
    assert(big > 4 * 65536, `big.parquet is ${big} bytes`);
    return `big.parquet ${big} bytes`;
  });

  if (urlReady) {
    await check('url-field', async () => {
      const url = dataBase + 'alltypes_plain.parquet';
      await page.$eval('#url', (x, u) => { x.value = u; }, url);
      const from = dataLog.length;
      await runAndWait(page, () => page.click('#url-open'));
      const log = dataLog.slice(from);
      const errs = await page.$$eval('#results .error', (e) => e.map((x) => x.textContent));
      assert(!errs.length, `errors: ${errs.join(' | ')}`);
      const sql = await page.$eval('#sql', (t) => t.value);
      assert(sql.includes(`parquet_metadata('${url}')`) && sql.includes(`USING parquet('${url}')`),
             `the editor holds: ${sql}`);
      const t = await domTables(page);
      const meta = t.find((x) => x.headers.includes('path_in_schema'));
      assert(meta && meta.rows.length === 11, `metadata: ${meta ? meta.rows.length + ' rows' : 'none'}`);
      const rows = t.find((x) => x.headers.includes('bool_col'));
      assert(rows && rows.rows.length === 8, `rows: ${rows ? rows.rows.length : 'none'}`);
      const line = await page.$eval('#http-status', (x) => x.textContent);
      const m = /^HTTP: (\d+) requests?, ([\d,]+) bytes fetched$/.exec(line);
      assert(m, `the status line says: ${line}`);
      assert(Number(m[1]) === log.length && log.length >= 2,
             `the page counts ${m[1]} requests, the server ${log.length}`);
      assert(Number(m[2].replace(/,/g, '')) === fetched(log),
             `the page counts ${m[2]} bytes, the server sent ${fetched(log)}`);
      // each statement's suffix range, and the table's scan its check
      assert(log.every((e) => e.status === 206) && /^bytes=-\d+$/.test(log[0].range),
             `requests: ${JSON.stringify(log)}`);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(shotDir, 'url.png') });
      return line;
    });

    for (const name of ['alltypes_plain.parquet', 'big.parquet']) {
      await check(`url-values-${name}`, async () => {
        const run = await runInPage(onTable(dataBase + name, ''));
        const want = last(runNative(onTable(local[name], '')));
        const n = sameRows(last(run.answer.results), want, name);
        assert(run.http.requests === run.log.length, `${run.http.requests} requests, the server saw ${run.log.length}`);
        return `${n} values as the native build's, ${run.log.length} requests`;
      });
    }

    // A part of the rows: a part of the file.
    for (const [name, where] of [['big.parquet', 'WHERE id = 1234'], ['big.parquet', 'LIMIT 10'],
                                 ['alltypes_tiny_pages_plain.parquet', 'WHERE id = 1234'],
                                 ['alltypes_tiny_pages_plain.parquet', 'LIMIT 10']]) {
      await check(`url-part-${name}-${where.split(' ')[0].toLowerCase()}`, async () => {
        const run = await runInPage(onTable(dataBase + name, where));
        const want = last(runNative(onTable(local[name], where)));
        sameRows(last(run.answer.results), want, name);
        assert(want.rows.length > 0, 'no rows');
        const size = dataFiles.get(name).length;
        const got = fetched(run.log);
        assert(got === run.http.bytes, `the page counts ${run.http.bytes} bytes, the server sent ${got}`);
        assert(got < size / 2, `${got} bytes fetched of ${size}`);
        return `${want.rows.length} rows, ${run.log.length} requests, ${got} bytes of ${size}`;
      });
    }

    // A range whose first bytes are a byte order mark: a browser decodes the
    // body as text, shorter; it is asked for again from a byte earlier.
    await check('url-byte-order-mark', async () => {
      const body = dataFiles.get('big.parquet');
      const notes = [];
      for (const mark of [[0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff]]) {
        const at = body.lastIndexOf(Buffer.from(mark));
        assert(at > 0, `no ${Buffer.from(mark).toString('hex')} in big.parquet`);
        const guess = body.length - at;
        const run = await runInPage(`SELECT parquet_http_option('footer_guess', ${guess});\n` +
                                    onTable(dataBase + 'big.parquet', 'WHERE id = 1234'));
        const want = last(runNative(onTable(bigPath, 'WHERE id = 1234')));
        sameRows(last(run.answer.results), want, `footer_guess ${guess}`);
        assert(run.log[0].range === `bytes=-${guess}`, `the first request: ${run.log[0].range}`);
        assert(run.log.some((e) => e.range === `bytes=${at - 1}-${body.length - 1}`),
               `no request from byte ${at - 1}: ${run.log.map((e) => e.range).join(', ')}`);
        notes.push(`${Buffer.from(mark).toString('hex')} at ${at}`);
      }
      return notes.join(', ');
    });

    // A footer longer than the first request: a second one for the rest; and
    // short reads (page headers) fetched as blocks of read_min bytes.
    await check('url-footer-and-blocks', async () => {
      const size = dataFiles.get('big.parquet').length;
      const run = await runInPage("SELECT parquet_http_option('footer_guess', 64);\n" +
                                  "SELECT parquet_http_option('read_min', 8192);\n" +
                                  onTable(dataBase + 'big.parquet', 'WHERE id % 97 = 0'));
      const want = last(runNative(onTable(bigPath, 'WHERE id % 97 = 0')));
      sameRows(last(run.answer.results), want, 'footer_guess 64, read_min 8192');
      assert(run.log[0].range === 'bytes=-64', `the first request: ${run.log[0].range}`);
      const second = /^bytes=(\d+)-(\d+)$/.exec(run.log[1].range);
      assert(second && Number(second[2]) === size - 65, `the second request: ${run.log[1].range}`);
      const blocks = run.log.filter((e) => e.bytes === 8192).length;
      assert(blocks > 0, `no block of 8192 bytes: ${run.log.map((e) => e.range).join(', ')}`);
      return `footer from byte ${second[1]}, ${blocks} blocks of 8192 bytes, ${run.log.length} requests`;
    });

    // The server's faults: each a clean error that names the function, the
    // URL, the bytes and the status; the page goes on.
    const faults = [
      ['whole', 'alltypes_plain.parquet', null],
      ['whole', 'big.parquet', /parquet: 'URL': the server sent the whole object \(HTTP 200\): it does not serve ranges, and the object is larger than 65536 bytes/],
      // (a table's scan would check the file first, and open it again)
      ['whole-later', 'big.parquet', /parquet_pages: 'URL'.*http: bytes \d+-\d+: the server sent the whole object \(HTTP 200\): it does not serve ranges/,
       (url) => `SELECT count(*) FROM parquet_pages('${url}');`],
      ['range', 'big.parquet', /parquet: 'URL': the response to the range of the last 65536 bytes has no Content-Range that matches it/],
      ['range-later', 'big.parquet', /parquet: 'URL'.*http: bytes \d+-\d+: the response's Content-Range is not that range/],
      ['500', 'big.parquet', /parquet: 'URL': http: bytes -65536: HTTP 500 \(after retries\)/],
      ['etag', 'big.parquet', /parquet: 'URL'.*http: it changed while it was read \(bytes \d+-\d+: another ETag, date or size\)/],
      ['hidden', 'big.parquet', /parquet: 'URL': the response to the range of the last 65536 bytes has no Content-Range that matches it \(none this page may read: does the server expose Content-Range to CORS\?\)/],
    ];
    for (const [fault, name, re, sqlOf] of faults) {
      await check(`url-fault-${fault}-${name}`, async () => {
        const url = dataBase + name;
        dataFault = fault;
        dataFaultFrom = dataLog.length;
        let run;
        try {
          run = await runInPage(sqlOf ? sqlOf(url) : onTable(url, 'WHERE id < 5'));
        } finally {
          dataFault = null;
        }
        if (!re) {
          const want = last(runNative(onTable(local[name], 'WHERE id < 5')));
          sameRows(last(run.answer.results), want, name);
          assert(run.log.every((e) => e.status === 200 && e.bytes === dataFiles.get(name).length),
                 `requests: ${JSON.stringify(run.log)}`);
          return `taken whole: ${run.log.length} requests of ${run.log[0].bytes} bytes`;
        }
        const want = new RegExp(re.source.replace('URL', url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        assert(run.errors.length && want.test(run.errors[0]), `errors: ${run.errors.join(' | ')}`);
        assert(!run.answer.results.some((r) => r.rows && r.rows.length), 'rows came with the error');
        if (fault === '500') assert(run.log.length === 4, `${run.log.length} requests: three retries expected`);
        const status = await page.$eval('#status', (x) => x.className);
        assert(/bad/.test(status), `the status line is ${status}`);
        return run.errors[0].replace(/(CREATE|SELECT) .*$/, '').trim();
      });
    }

    await check('url-s3', async () => {
      const run = await runInPage(onTable('s3://bucket/data/t.parquet', ''));
      assert(run.errors.length &&
             run.errors[0].includes("parquet: 's3://bucket/data/t.parquet': the playground reads no s3:// URLs"),
             `errors: ${run.errors.join(' | ')}`);
      assert(!run.log.length, 'a request was made');
    });

    await check('url-after-faults', async () => {
      const run = await runInPage(`CREATE VIRTUAL TABLE temp.t USING parquet('${dataBase}big.parquet');\n` +
                                  'SELECT count(*) AS n FROM t;');
      assert(!run.errors.length, `errors: ${run.errors.join(' | ')}`);
      assert(last(run.answer.results).rows[0][0] === 2000, `count ${JSON.stringify(last(run.answer.results).rows)}`);
      return `${run.log.length} requests`;
    });
  }
  fs.rmSync(urlDir, { recursive: true, force: true });

  // 8. The encoding lab: a query's lab as a table that sorts and a chart
  // of a panel per column, its bytes those of the native build, a point
  // explained; then an opened file's lab.
  const labQuery =
    'WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 600)\n' +
    'SELECT i AS id, round(10 + (i * 37 % 1000) / 100.0, 2) AS price, \'tag\' || (i % 7) AS tag FROM s';
  // The statements of `sql` run by the native build: their results, each
  // {columns, rows}; throws on an error.
  const nativeRun2 = (sql) => {
    assert(fs.existsSync(nativeRun), `no ${nativeRun} (make build/wasm/run)`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pqlab-'));
    const script = path.join(dir, 'lab.sql');
    fs.writeFileSync(script, sql + '\n');
    let a;
    try {
      a = JSON.parse(execFileSync(nativeRun, [script], { cwd: dir, encoding: 'utf8' }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const e = a.error || (a.results || []).map((r) => r.error).find((x) => x);
    assert(!e && a.results && a.results.length, `the native build failed: ${JSON.stringify(a).slice(0, 300)}`);
    return a.results;
  };
  const sqlText = (s) => `'${s.replace(/'/g, "''")}'`;
  let native = null;
  await check('lab-native', () => {
    native = nativeRun2(`SELECT "column", encoding, codec, level, bytes FROM parquet_lab(${
      sqlText(labQuery)}, '{"min_time":0}');`)[0].rows;
    assert(native.length > 20, `${native.length} rows natively`);
    return `${native.length} rows natively, every codec of the build`;
  });

  // The lab's table as the page shows it: headers and cells (NULL as '').
  const labTable = () => page.evaluate(() => {
    const t = document.querySelector('#lab-out table.lab-table');
    if (!t) return null;
    return {
      headers: Array.from(t.tHead.rows[0].cells).map((c) => c.querySelector('button').firstChild.textContent),
      rows: Array.from(t.tBodies[0].rows).map((tr) => Array.from(tr.cells).map((td) =>
        td.classList.contains('null') ? '' : td.textContent)),
    };
  });

  let labRan = false;
  if (native) {
    labRan = await check('lab-runs', async () => {
      await page.click('#tab-lab');
      assert(await page.$eval('#view-sql', (v) => v.hidden), 'the SQL page is still shown');
      await page.$eval('#lab-query', (t, q) => { t.value = q; }, labQuery);
      const codecs = await page.$$eval('#lab-codecs input[type=checkbox]', (boxes) =>
        boxes.map((b) => { b.checked = true; return b.value; }));
      assert(codecs.includes('UNCOMPRESSED') && codecs.includes('ZSTD'), `codecs: ${codecs}`);
      const before = await page.evaluate(() => window.pqLabCount);
      await page.click('#lab-run');
      await page.waitForFunction((n) => window.pqLabCount > n, { timeout: 90000 }, before);
      const errs = await page.$$eval('#lab-out .error', (e) => e.map((x) => x.textContent));
      assert(!errs.length, `errors: ${errs.join(' | ')}`);
      const t = await labTable();
      assert(t, 'no lab table');
      assert(t.rows.length === native.length, `${t.rows.length} rows in the page, ${native.length} natively`);
      const ix = (c) => t.headers.indexOf(c);
      for (const c of ['column', 'encoding', 'codec', 'level', 'bytes', 'decode_mb_s']) {
        assert(ix(c) >= 0, `no column ${c}: ${t.headers}`);
      }
      // The same bytes as the native build's, row for row.
      const key = (r) => [r[0], r[1], r[2], r[3] === null ? '' : String(r[3])].join('|');
      const want = new Map(native.map((r) => [key(r), String(r[4])]));
      for (const r of t.rows) {
        const k = [r[ix('column')], r[ix('encoding')], r[ix('codec')], r[ix('level')]].join('|');
        assert(want.has(k), `the page has ${k}, the native build not`);
        assert(want.get(k) === r[ix('bytes')], `${k}: ${r[ix('bytes')]} bytes in the page, ${want.get(k)} natively`);
      }
      const speeds = t.rows.filter((r) => Number(r[ix('decode_mb_s')]) > 0).length;
      assert(speeds === t.rows.length, `${speeds} of ${t.rows.length} rows have a decode speed`);
      const note = await page.$eval('.lab-note', (n) => n.textContent);
      assert(/WebAssembly/.test(note), 'the page does not say whose speeds they are');
      return `${t.rows.length} rows, bytes as the native build's, ${codecs.length} codecs`;
    });
  }

  if (labRan) {
    await check('lab-sort', async () => {
      const t0 = await labTable();
      const b = t0.headers.indexOf('bytes');
      const bytesNow = async () => (await labTable()).rows.map((r) => Number(r[b]));
      const sorted = (a, d) => a.every((v, i) => i === 0 || d * (v - a[i - 1]) >= 0);
      const first = t0.rows.map((r) => Number(r[b]));
      assert(!sorted(first, 1), 'the rows came sorted by bytes already');
      await page.click(`#lab-out th:nth-child(${b + 1}) button.sort`);
      const up = await bytesNow();
      assert(sorted(up, 1), `not ascending: ${up.slice(0, 8)}`);
      const aria = await page.$eval(`#lab-out th:nth-child(${b + 1})`, (th) => th.getAttribute('aria-sort'));
      assert(aria === 'ascending', `aria-sort ${aria}`);
      await page.click(`#lab-out th:nth-child(${b + 1}) button.sort`);
      const down = await bytesNow();
      assert(sorted(down, -1), `not descending: ${down.slice(0, 8)}`);
      const e = t0.headers.indexOf('encoding');
      await page.click(`#lab-out th:nth-child(${e + 1}) button.sort`);
      const encs = (await labTable()).rows.map((r) => r[e]);
      assert(encs.every((v, i) => i === 0 || v >= encs[i - 1]), `encodings not in order: ${encs.slice(0, 6)}`);
      assert(up.length === first.length, 'sorting lost rows');
      return `bytes ${up[0]} to ${up[up.length - 1]} and back, encodings A to Z`;
    });

    await check('lab-chart', async () => {
      const t = await labTable();
      const c = t.headers.indexOf('column');
      const perColumn = new Map();
      for (const r of t.rows) perColumn.set(r[c], (perColumn.get(r[c]) || 0) + 1);
      const panels = await page.$$eval('#lab-out .lab-panel', (ps) => ps.map((p) => ({
        column: p.dataset.column,
        points: p.querySelectorAll('.lab-pt').length,
        rows: Array.from(p.querySelectorAll('.lab-pt')).map((x) => Number(x.dataset.i)),
      })));
      assert(panels.length === perColumn.size && panels.length === 3,
             `${panels.length} panels for ${perColumn.size} columns`);
      for (const p of panels) {
        assert(perColumn.get(p.column) === p.points,
               `panel ${p.column}: ${p.points} points, ${perColumn.get(p.column)} rows`);
      }
      const all = panels.flatMap((p) => p.rows);
      assert(new Set(all).size === t.rows.length, `${new Set(all).size} distinct points for ${t.rows.length} rows`);
      return panels.map((p) => `${p.column} ${p.points}`).join(', ');
    });

    await check('screenshot-lab', async () => {
      await page.evaluate(() => window.scrollTo(0, 0));
      await (await page.$('#view-lab')).screenshot({ path: path.join(shotDir, 'lab.png') });
    });

    await check('lab-point-explains', async () => {
      // The price column's ALP + ZSTD point.
      const i = await page.evaluate(() => {
        const rows = Array.from(document.querySelectorAll('#lab-out table.lab-table tbody tr'));
        const heads = Array.from(document.querySelectorAll('#lab-out table.lab-table th button'))
          .map((b) => b.firstChild.textContent);
        const tr = rows.find((r) => r.cells[heads.indexOf('column')].textContent === 'price' &&
          r.cells[heads.indexOf('encoding')].textContent === 'ALP' &&
          r.cells[heads.indexOf('codec')].textContent === 'ZSTD');
        return tr ? Number(tr.dataset.i) : -1;
      });
      assert(i >= 0, 'no row price, ALP, ZSTD');
      const before = await page.evaluate(() => window.pqLabExplainCount);
      await page.click(`#lab-out .lab-panel[data-column="price"] .lab-pt[data-i="${i}"]`);
      await page.waitForFunction((n) => window.pqLabExplainCount > n, { timeout: 60000 }, before);
      const errs = await page.$$eval('#lab-explain .error', (e) => e.map((x) => x.textContent));
      assert(!errs.length, `errors: ${errs.join(' | ')}`);
      const sel = await page.$$eval('#lab-out .sel', (e) => e.length);
      assert(sel === 2, `${sel} elements selected (the point and its row)`);
      const exs = await page.evaluate(() => Array.from(document.querySelectorAll('#lab-explain .explain')).length);
      assert(exs === 1, `${exs} drawings`);
      const rows = await page.$$eval('#lab-explain table.explain-table tbody tr', (trs) => trs.map((tr) =>
        Array.from(tr.cells).map((td) => td.textContent)));
      const heads = await page.$$eval('#lab-explain table.explain-table th', (th) => th.map((x) => x.textContent));
      const pi = heads.indexOf('path'), vi = heads.indexOf('value');
      assert(rows.length > 10 && rows[0][pi] === 'header.type', `the explain begins at ${rows[0] && rows[0][pi]}`);
      const enc = rows.find((r) => r[pi] === 'header.data_page_header.encoding');
      assert(enc && /ALP|10/.test(enc[vi]), `the page's encoding is ${enc && enc[vi]}`);
      const fields = await page.$$eval('#lab-explain .explain .field', (f) => f.length);
      assert(fields > 10, `${fields} fields drawn`);
      // The drawing's fields light the table's rows, as on the SQL page.
      const f = await page.$('#lab-explain .explain .field[data-path="header.type"]');
      await f.hover();
      const detail = await page.$eval('#detail', (d) => d.textContent);
      assert(detail.includes('header.type'), `#detail shows: ${detail.slice(0, 120)}`);
      await page.$eval('#lab-explain', (e) => e.scrollIntoView());
      await (await page.$('#lab-explain')).screenshot({ path: path.join(shotDir, 'lab-explain.png') });
      return `${rows.length} rows, ${fields} fields`;
    });

    // The form's options: the level picker, page sizes, page version,
    // row groups, sample and the free JSON, each in the options the page
    // runs the lab with; the SQL it shows gives the native build the same
    // rows.
    const labForm = (f) => page.evaluate((f) => {
      const set = (id, v) => { document.getElementById(id).value = v === undefined ? '' : String(v); };
      if (f.query !== undefined) set('lab-query', f.query);
      if (f.codecs) {
        document.querySelectorAll('#lab-codecs input[type=checkbox]').forEach((b) => {
          b.checked = f.codecs.includes(b.value);
        });
      }
      set('lab-levels', f.levels);
      set('lab-min-time', f.min_time);
      set('lab-sample', f.sample);
      set('lab-page-size', f.page_size);
      set('lab-dict-page-size', f.dictionary_page_size);
      set('lab-page-version', f.page_version);
      set('lab-row-group-size', f.row_group_size);
      set('lab-json', f.json);
      document.getElementById('lab-levels').dispatchEvent(new Event('input'));
    }, f);
    const runLabPage = async () => {
      const before = await page.evaluate(() => window.pqLabCount);
      await page.click('#lab-run');
      await page.waitForFunction((n) => window.pqLabCount > n, { timeout: 90000 }, before);
      return {
        sql: await page.$eval('#lab-out pre', (p) => p.textContent),
        errors: await page.$$eval('#lab-out .error', (e) => e.map((x) => x.textContent)),
        table: await labTable(),
      };
    };
    // The rows of a lab table by "column|encoding|codec|level": [bytes, pages].
    const labRowsByKey = (headers, rows) => {
      const ix = (c) => headers.indexOf(c);
      const m = new Map();
      for (const r of rows) {
        const lv = r[ix('level')];
        m.set([r[ix('column')], r[ix('encoding')], r[ix('codec')], lv === null ? '' : String(lv)].join('|'),
              [String(r[ix('bytes')]), String(r[ix('pages')])]);
      }
      return m;
    };
    // The page's lab against the native build's run of the SQL it shows.
    const sameAsNative = (run) => {
      const n = nativeRun2(run.sql).pop();
      const want = labRowsByKey(n.columns, n.rows);
      const got = labRowsByKey(run.table.headers, run.table.rows);
      assert(got.size === want.size, `${got.size} rows in the page, ${want.size} natively`);
      for (const [k, v] of got) {
        assert(want.has(k), `the page has ${k}, the native build not`);
        assert(want.get(k).join() === v.join(), `${k}: bytes, pages ${v} in the page, ${want.get(k)} natively`);
      }
      return got;
    };
    const levelQuery =
      'WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 3000)\n' +
      "SELECT 'https://example.org/a/' || (i * 31 % 700) AS url, i * 7 % 1000 AS n FROM s";

    await check('lab-level-picker', async () => {
      const want = nativeRun2('SELECT name, min_level, max_level, default_level FROM parquet_codecs ' +
                              'WHERE available AND max_level IS NOT NULL ORDER BY codec;')[0].rows;
      const got = await page.$$eval('#lab-level-ranges .lab-range', (rs) => rs.map((r) =>
        [r.dataset.codec, Number(r.dataset.min), Number(r.dataset.max), Number(r.dataset.default)]));
      assert(want.length >= 1, 'the native build has no codec with levels');
      assert(JSON.stringify(got) === JSON.stringify(want), `the picker lists ${JSON.stringify(got)}, ` +
             `parquet_codecs ${JSON.stringify(want)}`);
      // Its buttons put a level in the field, and take it out.
      await labForm({ codecs: ['ZSTD'], levels: '1' });
      const zstd = want.find((r) => r[0] === 'ZSTD');
      assert(zstd, 'no ZSTD');
      await page.click(`#lab-level-ranges .lab-range[data-codec="ZSTD"] button.lv[data-level="${zstd[2]}"]`);
      const v1 = await page.$eval('#lab-levels', (i) => i.value);
      assert(v1 === `1, ${zstd[2]}`, `after a click on ${zstd[2]} the field holds "${v1}"`);
      const use = await page.$eval('#lab-level-ranges .lab-range[data-codec="ZSTD"] .lv-use', (u) => u.textContent);
      assert(use.includes(`1, ${zstd[2]}`), `ZSTD's levels shown: ${use}`);
      await page.click(`#lab-level-ranges .lab-range[data-codec="ZSTD"] button.lv[data-level="${zstd[2]}"]`);
      const v2 = await page.$eval('#lab-levels', (i) => i.value);
      assert(v2 === '1', `after a second click on ${zstd[2]} the field holds "${v2}"`);
      return got.map((r) => `${r[0]} ${r[1]}..${r[2]} (${r[3]})`).join(', ');
    });

    let levelRun = null;
    await check('lab-levels', async () => {
      await labForm({ query: levelQuery, codecs: ['SNAPPY', 'ZSTD'], levels: '1, 19', min_time: 0 });
      const run = await runLabPage();
      assert(!run.errors.length, `errors: ${run.errors.join(' | ')}`);
      assert(run.sql.includes('"levels":[1,19]') && run.sql.includes('"min_time":0'), `the SQL: ${run.sql}`);
      const got = sameAsNative(run);
      // A row per ZSTD level, one for SNAPPY; levels 1 and 19 apart.
      const keys = Array.from(got.keys());
      const z1 = keys.filter((k) => k.endsWith('|ZSTD|1')).length;
      const z19 = keys.filter((k) => k.endsWith('|ZSTD|19')).length;
      const sn = keys.filter((k) => k.endsWith('|SNAPPY|')).length;
      assert(z1 > 0 && z1 === z19 && z1 === sn && keys.length === 3 * z1,
             `${z1} ZSTD 1 rows, ${z19} ZSTD 19, ${sn} SNAPPY of ${keys.length}`);
      const plain1 = got.get('url|PLAIN|ZSTD|1'), plain19 = got.get('url|PLAIN|ZSTD|19');
      assert(plain1 && plain19 && plain19[0] !== plain1[0],
             `url PLAIN ZSTD: ${plain1} at level 1, ${plain19} at 19`);
      const labels = await page.$$eval('#lab-out .lab-panel[data-column="url"] .lab-lv', (t) => t.map((x) => x.textContent));
      const url19 = keys.filter((k) => k.startsWith('url|') && k.endsWith('|ZSTD|19')).length;
      assert(labels.length === 2 * url19 && labels.filter((l) => l === '19').length === url19,
             `levels beside url's points: ${labels}`);
      levelRun = { got, plain1, plain19 };
      return `${keys.length} rows as the native build's; url PLAIN ZSTD ${plain1[0]} bytes at 1, ${plain19[0]} at 19`;
    });

    if (levelRun) {
      await check('lab-level-explains', async () => {
        // A point explains its page under its codec and level: the page's
        // compressed size is parquet_write's at that level, natively.
        const sizes = {};
        for (const level of [1, 19]) {
          const i = await page.evaluate((level) => {
            const heads = Array.from(document.querySelectorAll('#lab-out table.lab-table th button'))
              .map((b) => b.firstChild.textContent);
            const tr = Array.from(document.querySelectorAll('#lab-out table.lab-table tbody tr')).find((r) =>
              r.cells[heads.indexOf('column')].textContent === 'url' &&
              r.cells[heads.indexOf('encoding')].textContent === 'PLAIN' &&
              r.cells[heads.indexOf('codec')].textContent === 'ZSTD' &&
              r.cells[heads.indexOf('level')].textContent === String(level));
            return tr ? Number(tr.dataset.i) : -1;
          }, level);
          assert(i >= 0, `no row url, PLAIN, ZSTD ${level}`);
          const before = await page.evaluate(() => window.pqLabExplainCount);
          // (Points may overlap: the click goes to this one.)
          await page.$eval(`#lab-out .lab-panel[data-column="url"] .lab-pt[data-i="${i}"]`,
                           (pt) => pt.dispatchEvent(new MouseEvent('click', { bubbles: true })));
          await page.waitForFunction((n) => window.pqLabExplainCount > n, { timeout: 60000 }, before);
          const errs = await page.$$eval('#lab-explain .error', (e) => e.map((x) => x.textContent));
          assert(!errs.length, `errors: ${errs.join(' | ')}`);
          const sql = await page.$eval('#lab-explain pre', (p) => p.textContent);
          assert(sql.includes(`"codec":"ZSTD","level":${level}`), `the explain's SQL: ${sql.slice(0, 400)}`);
          const heads = await page.$$eval('#lab-explain table.explain-table th', (th) => th.map((x) => x.textContent));
          const rows = await page.$$eval('#lab-explain table.explain-table tbody tr', (trs) => trs.map((tr) =>
            Array.from(tr.cells).map((td) => td.textContent)));
          const r = rows.find((x) => x[heads.indexOf('path')] === 'header.compressed_page_size');
          assert(r, 'no header.compressed_page_size');
          sizes[level] = Number(r[heads.indexOf('value')]);
          const want = nativeRun2(`SELECT compressed_size FROM parquet_pages(parquet_write(NULL, ${sqlText(
            'SELECT url FROM (' + levelQuery + ')')}, '{"columns":{"url":{"encoding":"PLAIN","codec":"ZSTD","level":${
            level}}}}')) WHERE page = 0;`)[0].rows[0][0];
          assert(sizes[level] === Number(want), `level ${level}: the page explained has ${sizes[level]} bytes ` +
                 `compressed, parquet_write's ${want}`);
        }
        assert(sizes[1] !== sizes[19], `the same page at levels 1 and 19: ${sizes[1]} bytes`);
        return `url's page: ${sizes[1]} bytes at level 1, ${sizes[19]} at 19, as natively`;
      });
    }

    await check('lab-page-options', async () => {
      const base = { query: levelQuery, codecs: ['UNCOMPRESSED'], min_time: 0 };
      await labForm(base);
      const plain = await runLabPage();
      assert(!plain.errors.length, `errors: ${plain.errors.join(' | ')}`);
      await labForm({ ...base, page_size: 1024, dictionary_page_size: 2048, page_version: 2,
                      row_group_size: 2000, json: '{"statistics": false}' });
      const run = await runLabPage();
      assert(!run.errors.length, `errors: ${run.errors.join(' | ')}`);
      for (const m of ['"page_size":1024', '"dictionary_page_size":2048', '"page_version":2',
                       '"row_group_size":2000', '"statistics": false']) {
        assert(run.sql.includes(m), `the SQL has no ${m}: ${run.sql}`);
      }
      const got = sameAsNative(run);
      const before = labRowsByKey(plain.table.headers, plain.table.rows);
      const k = 'url|PLAIN|UNCOMPRESSED|';
      assert(Number(got.get(k)[1]) > Number(before.get(k)[1]) && Number(before.get(k)[1]) === 1,
             `url PLAIN: ${before.get(k)[1]} pages, ${got.get(k)[1]} with page_size 1024`);
      return `url PLAIN: ${before.get(k)[1]} page, ${got.get(k)[1]} with the options; as natively`;
    });

    await check('lab-sample-explains', async () => {
      await labForm({ query: levelQuery, codecs: ['ZSTD'], min_time: 0, sample: 0.25, page_version: 2 });
      const run = await runLabPage();
      assert(!run.errors.length, `errors: ${run.errors.join(' | ')}`);
      sameAsNative(run);
      const before = await page.evaluate(() => window.pqLabExplainCount);
      await page.click('#lab-out table.lab-table tbody tr');
      await page.waitForFunction((n) => window.pqLabExplainCount > n, { timeout: 60000 }, before);
      const errs = await page.$$eval('#lab-explain .error', (e) => e.map((x) => x.textContent));
      assert(!errs.length, `errors: ${errs.join(' | ')}`);
      const heads = await page.$$eval('#lab-explain table.explain-table th', (th) => th.map((x) => x.textContent));
      const rows = await page.$$eval('#lab-explain table.explain-table tbody tr', (trs) => trs.map((tr) =>
        Array.from(tr.cells).map((td) => td.textContent)));
      const v = (p) => { const r = rows.find((x) => x[heads.indexOf('path')] === p); return r && r[heads.indexOf('value')]; };
      assert(v('header.data_page_header_v2.num_rows') === '750',
             `the page explained has ${v('header.data_page_header_v2.num_rows')} rows, a sample of 0.25 of 3000 750`);
      return 'a V2 page of the 750 rows sampled';
    });

    await check('lab-bad-options', async () => {
      const cases = [
        [{ page_size: 'big' }, /parquet_lab: .*page_size/],
        [{ levels: '1, x' }, /parquet_lab: options: "levels" must be an array of integers/],
        [{ json: '{"page_sise": 5}' }, /parquet_lab: options: unknown option "page_sise"/],
        [{ json: '{"page_values": ' }, /parquet_lab: options: /],
        [{ sample: '0' }, /parquet_lab: options: "sample"/],
      ];
      for (const [f, re] of cases) {
        await labForm({ query: levelQuery, codecs: ['UNCOMPRESSED'], min_time: 0, ...f });
        const run = await runLabPage();
        assert(run.errors.length === 1 && re.test(run.errors[0]), `${JSON.stringify(f)}: ${run.errors.join(' | ')}`);
        assert(!run.table, `${JSON.stringify(f)}: a table is shown with the error`);
        const status = await page.$eval('#lab-status', (x) => x.className);
        assert(/bad/.test(status), `${JSON.stringify(f)}: the status is ${status}`);
      }
      // The page still works.
      await labForm({ query: levelQuery, codecs: ['UNCOMPRESSED'], min_time: 0 });
      const run = await runLabPage();
      assert(!run.errors.length && run.table && run.table.rows.length > 0, 'the lab no longer runs');
      await labForm({ codecs: ['UNCOMPRESSED', 'SNAPPY', 'ZSTD'], min_time: 0.01 });
      return `${cases.length} mistakes, each the lab's error`;
    });

    if (uploaded) {
      await check('lab-file', async () => {
        const before = await page.evaluate(() => window.pqLabCount);
        await page.click('#lab-source button[data-file="alltypes_plain.parquet"]');
        await page.waitForFunction((n) => window.pqLabCount > n, { timeout: 90000 }, before);
        const errs = await page.$$eval('#lab-out .error', (e) => e.map((x) => x.textContent));
        assert(!errs.length, `errors: ${errs.join(' | ')}`);
        const q = await page.$eval('#lab-query', (t) => t.value);
        assert(/FROM file\b/.test(q), `the query is ${q}`);
        const panels = await page.$$eval('#lab-out .lab-panel', (p) => p.map((x) => x.dataset.column));
        assert(panels.length === 11 && panels.includes('bool_col') && panels.includes('string_col'),
               `panels: ${panels}`);
        return `${panels.length} panels`;
      });
    }
    await page.click('#tab-sql');
  }

  for (const name of ['explain-delta.png', 'file-pages.png', 'playground.png', 'lab.png', 'lab-explain.png', 'url.png']) {
    await shotCheck(name);
  }

  await check('no-page-errors', () => {
    const errs = problems.filter((p) => !/request to another host/.test(p));
    assert(!errs.length, errs.join(' | '));
  });
  await check('no-other-hosts', () => {
    const foreign = problems.filter((p) => /request to another host/.test(p));
    assert(!foreign.length, foreign.join(' | '));
  });
} catch (e) {
  bad('browser', e && e.stack ? e.stack : e);
} finally {
  await browser.close().catch(() => {});
  server.close();
  dataServer.close();
}
finish();
