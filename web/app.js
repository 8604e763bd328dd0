/*
** app.js -- the playground's page: an SQL editor over SQLite with the
** Parquet extension (pqweb.js, WebAssembly), its results as tables, the
** rows of parquet_explain drawn over the bytes they explain, and .parquet
** files opened from the disk or read at a URL.  A classic script (the page
** works from file://, where ES modules do not load); no framework.  The
** page fetches nothing of its own: a URL in the SQL is read by the module,
** by range requests (web/remote_lib.js), and each run's requests are
** counted on the status line.
**
** For the browser test (web/test/browser.mjs): window.pqReady is true once
** the module is loaded, window.pqRunCount counts the runs that finished,
** window.pqLastAnswer is the last run's answer as pqweb_exec gave it and
** window.pqHttp its requests ({requests, bytes, log}).
*/
(function () {
  'use strict';

  var MAX_ROWS = 2000;          // rows a statement shows; the rest is "truncated"
  var DRAW_MAX_LINES = 256;     // lines of 16 bytes an explain draws, at most
  var DRAW_MAX_ROWS = 3000;     // rows an explain draws, at most
  var PER_LINE = 16;            // bytes per line of the drawing
  var COLS_PER_BYTE = 9;        // 8 bit columns and a gap
  var FILE_TABLE_MAX = 16 * 1024 * 1024; // bytes of a file copied into `files`
  var CELL_TEXT_MAX = 2000;     // characters of a TEXT cell shown before "..."
  var CELL_BLOB_MAX = 64;       // bytes of a BLOB cell shown before "..."
  var CONTINUE = 1;             // pqweb_exec: go on after an error, as the shell does
  var PALETTE = 11;             // colour classes c0..c10 in style.css

  window.pqReady = false;
  window.pqRunCount = 0;
  window.pqLastAnswer = null;
  window.pqHttp = null;

  var M = null;
  var running = false;
  var uploaded = [];            // {name, path, size, bytes, hex}
  var current = null;           // the file the buttons act on
  var explains = [];            // per run: the drawn explains, by id
  var labExplains = [];         // the lab's explain of a page, by id "L0"
  var longCells = [];           // per run: full text of clipped cells
  var activeExample = null;
  var hashWritten = null;       // the hash this page wrote last

  function $(id) { return document.getElementById(id); }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
    });
  }

  function sqlQuote(s) { return "'" + String(s).replace(/'/g, "''") + "'"; }

  function setStatus(text, isError) {
    var s = $('status');
    s.textContent = text;
    s.classList.toggle('bad', !!isError);
  }

  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : (many || one + 's')); }

  // ---- The module -----------------------------------------------------------

  // Reals keep their text (10.0 stays 10.0) where the browser gives JSON.parse
  // the source of each number.
  var keepsSource = (function () {
    try {
      return JSON.parse('[1.0]', function (k, v, ctx) {
        return k === '0' && ctx && ctx.source === '1.0' ? 'yes' : v;
      })[0] === 'yes';
    } catch (e) { return false; }
  })();

  function parseAnswer(text) {
    if (!keepsSource) return JSON.parse(text);
    return JSON.parse(text, function (k, v, ctx) {
      if (typeof v === 'number' && ctx && typeof ctx.source === 'string' &&
          /[.eE]/.test(ctx.source)) {
        return {real: ctx.source};
      }
      return v;
    });
  }

  // pqweb_exec's answer as text.  Long SQL (a file's bytes as a literal) goes
  // through malloc rather than the stack that ccall uses for strings.
  function execText(sql) {
    if (sql.length > 200000 && M._malloc && M._free && M._pqweb_exec && M.HEAPU8) {
      var bytes = new TextEncoder().encode(sql);
      var p = M._malloc(bytes.length + 1);
      if (!p) throw new Error('out of memory for ' + bytes.length + ' bytes of SQL');
      try {
        M.HEAPU8.set(bytes, p);
        M.HEAPU8[p + bytes.length] = 0;
        var r = M._pqweb_exec(p, MAX_ROWS, CONTINUE);
        var heap = M.HEAPU8; // memory may have grown: the view is new
        var end = r;
        while (heap[end]) end++;
        return new TextDecoder().decode(heap.subarray(r, end));
      } finally {
        M._free(p);
      }
    }
    return M.ccall('pqweb_exec', 'string', ['string', 'number', 'number'],
                   [sql, MAX_ROWS, CONTINUE]);
  }

  function execSql(sql) { return parseAnswer(execText(sql)); }

  // The error of an answer, if any: the top level's message, or the first
  // statement's.
  function answerError(a) {
    if (typeof a.error === 'string') return a.error;
    for (var i = 0; i < (a.results || []).length; i++) {
      if (a.results[i].error) return a.results[i].error;
    }
    return a.error ? 'error' : null;
  }

  // ---- Files ----------------------------------------------------------------

  var HEX = [];
  for (var h = 0; h < 256; h++) HEX.push((h < 16 ? '0' : '') + h.toString(16).toUpperCase());

  function hexOf(bytes) {
    var parts = new Array(bytes.length);
    for (var i = 0; i < bytes.length; i++) parts[i] = HEX[bytes[i]];
    return parts.join('');
  }

  function filesSetupSql() {
    if (!uploaded.length) return '';
    var s = 'CREATE TABLE files(name TEXT PRIMARY KEY, path TEXT, size INTEGER, data BLOB);\n';
    uploaded.forEach(function (f) {
      var data = 'NULL';
      if (f.size <= FILE_TABLE_MAX) {
        if (f.hex == null) f.hex = hexOf(f.bytes);
        data = "X'" + f.hex + "'";
      }
      s += 'INSERT INTO files VALUES(' + sqlQuote(f.name) + ', ' + sqlQuote(f.path) + ', ' +
           f.size + ', ' + data + ');\n';
    });
    return s;
  }

  function safeName(name) {
    var base = String(name).split(/[\\/]/).pop() || 'file.parquet';
    base = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '');
    return base || 'file.parquet';
  }

  function addFile(name, bytes) {
    name = safeName(name);
    var path = '/files/' + name;
    try { M.FS.mkdir('/files'); } catch (e) { /* there already */ }
    M.FS.writeFile(path, bytes);
    uploaded = uploaded.filter(function (f) { return f.name !== name; });
    var f = {name: name, path: path, size: bytes.length, bytes: bytes, hex: null};
    uploaded.push(f);
    current = f;
    renderFiles();
    return f;
  }

  function openFiles(list) {
    if (!M || !list || !list.length) return;
    var queue = Array.prototype.slice.call(list);
    var last = null;
    (function next() {
      var file = queue.shift();
      if (!file) {
        if (last && labShown()) labUseFile(last);
        else if (last) showFile(last);
        return;
      }
      file.arrayBuffer().then(function (buf) {
        last = addFile(file.name, new Uint8Array(buf));
        next();
      }, function (e) {
        setStatus('Cannot read ' + file.name + ': ' + e, true);
      });
    })();
  }

  function fileByPath(p) {
    for (var i = 0; i < uploaded.length; i++) {
      if (uploaded[i].path === p || uploaded[i].name === p) return uploaded[i];
    }
    return null;
  }

  function fileByName(n) {
    for (var i = 0; i < uploaded.length; i++) if (uploaded[i].name === n) return uploaded[i];
    return null;
  }

  function fmtCount(n) { return n.toLocaleString('en-US'); }
  function fmtSize(n) { return fmtCount(n) + ' byte' + (n === 1 ? '' : 's'); }

  function renderFiles() {
    var box = $('files');
    if (!uploaded.length) { box.hidden = true; return; }
    box.hidden = false;
    var html = '<span class="files-label">Files</span>';
    uploaded.forEach(function (f) {
      html += '<button type="button" class="file-chip' + (f === current ? ' current' : '') +
              '" data-file="' + esc(f.name) + '" title="' + esc(f.path) + '">' + esc(f.name) +
              ' <span class="size">' + esc(fmtSize(f.size)) + '</span></button>';
    });
    if (current) {
      html += '<span class="sep" aria-hidden="true"></span>' +
              '<button type="button" id="show-pages" data-file="' + esc(current.name) +
              '">Metadata and pages</button>' +
              '<button type="button" id="explain-file" data-file="' + esc(current.name) + '"' +
              (current.size > FILE_TABLE_MAX ? ' disabled title="larger than ' +
               fmtSize(FILE_TABLE_MAX) + '"' : '') + '>Explain the whole file</button>';
    }
    box.innerHTML = html;
  }

  function showFile(f) {
    current = f;
    renderFiles();
    var p = sqlQuote(f.path);
    var sql =
      '-- ' + f.name + ', ' + fmtSize(f.size) + ", at '" + f.path + "' (its bytes are also\n" +
      '-- in the table files). Its column chunks, as the footer describes them:\n' +
      'SELECT row_group_id, column_id, path_in_schema, type, compression, encodings,\n' +
      '       num_values, total_compressed_size, total_uncompressed_size,\n' +
      '       dictionary_page_offset, data_page_offset, stats_min_value, stats_max_value,\n' +
      '       stats_null_count\n' +
      '  FROM parquet_metadata(' + p + ');\n\n' +
      '-- Its pages: "explain" draws a page byte by byte.\n' +
      'SELECT row_group, column_id, path, type, page, page_type, encoding, num_values,\n' +
      '       num_nulls, codec, compressed_size, uncompressed_size, offset, header_size,\n' +
      '       max_def, max_rep, stats_min, stats_max\n' +
      '  FROM parquet_pages(' + p + ');\n';
    loadAndRun(sql, null);
  }

  // ---- URLs -----------------------------------------------------------------

  // A URL's footer and first rows: what opening it by the URL field runs.
  function urlSql(url) {
    var u = sqlQuote(url);
    return '-- ' + url + '\n' +
      '-- read where it is, by HTTP range requests: each statement fetches the end\n' +
      '-- of the file (its footer), then only the ranges it needs; the status line\n' +
      '-- counts the requests and their bytes. Its column chunks:\n' +
      'SELECT row_group_id, column_id, path_in_schema, type, compression, encodings,\n' +
      '       num_values, total_compressed_size, stats_min_value, stats_max_value\n' +
      '  FROM parquet_metadata(' + u + ');\n\n' +
      '-- A table over it, and its first rows:\n' +
      'CREATE VIRTUAL TABLE temp.remote USING parquet(' + u + ');\n' +
      'SELECT * FROM remote LIMIT 10;\n';
  }

  function openUrl(url) {
    url = String(url || '').trim();
    if (!url || !M) return;
    if (!/^(https?|s3):\/\//i.test(url)) {
      setStatus('Not a URL: it must begin with https:// or http://', true);
      return;
    }
    activeExample = null;
    markExample();
    loadAndRun(urlSql(url), null);
  }

  // The run's requests, on the status line under the URL field: how many,
  // their bytes, and each one in the line's tooltip.
  function showHttp(stats) {
    var el = $('http-status');
    if (!stats || !stats.requests) {
      el.textContent = '';
      el.removeAttribute('title');
      return '';
    }
    var failed = stats.log.filter(function (e) { return e.status !== 206 && e.status !== 200; }).length;
    var text = 'HTTP: ' + plural(stats.requests, 'request') + ', ' + fmtSize(stats.bytes) + ' fetched' +
               (failed ? ' (' + failed + ' failed)' : '');
    var lines = stats.log.map(function (e) {
      return 'bytes ' + e.range + ': ' + (e.status || 'failed') + ', ' + fmtSize(e.bytes) + ', ' + e.url;
    });
    if (stats.requests > stats.log.length) lines.push('\u2026 and ' + (stats.requests - stats.log.length) + ' more');
    el.textContent = text;
    el.title = lines.join('\n');
    return text;
  }

  function explainPageSql(f, rg, col, page, extra) {
    var head = '-- Page ' + page + ' of column ' + col + (extra.path ? ' (' + extra.path + ')' : '') +
               ', row group ' + rg + ', of ' + f.name + ', as stored:\n' +
               '-- its header field by field, then its levels and values' +
               (extra.offset != null ? ' (offsets count from the page\'s\n-- first byte, byte ' +
                extra.offset + ' of the file)' : '') + '.\n';
    return head +
      'SELECT e.offset, e.length, e.hex, e.bits, e.labels, e.path, e.value, e.note\n' +
      '  FROM files f, parquet_pages(f.path) p,\n' +
      '       parquet_explain(substr(f.data, p.offset + 1, p.header_size + p.compressed_size),\n' +
      "                       'PAGE', p.type,\n" +
      "                       json_object('max_def', p.max_def, 'max_rep', p.max_rep,\n" +
      "                                   'codec', p.codec),\n" +
      '                       p.dictionary) e\n' +
      ' WHERE f.name = ' + sqlQuote(f.name) + '\n' +
      '   AND p.row_group = ' + rg + ' AND p.column_id = ' + col + ' AND p.page = ' + page + ';\n';
  }

  function explainFileSql(f) {
    return '-- ' + f.name + ', every byte: the magic, each column chunk\'s pages, the\n' +
      "-- footer's FileMetaData field by field, its length and the closing magic.\n" +
      "SELECT e.* FROM files f, parquet_explain(f.data, 'FILE') e\n" +
      ' WHERE f.name = ' + sqlQuote(f.name) + ';\n';
  }

  // ---- Running --------------------------------------------------------------

  // The editor as tall as its text, within bounds (and the user's resizing).
  function fitEditor() {
    var ta = $('sql');
    ta.style.height = 'auto';
    ta.style.height = Math.max(110, Math.min(ta.scrollHeight + 2, 440)) + 'px';
  }

  function loadAndRun(sql, exampleName) {
    $('sql').value = sql;
    fitEditor();
    activeExample = exampleName;
    markExample();
    run(sql);
  }

  function markExample() {
    var buttons = $('examples').querySelectorAll('button');
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].classList.toggle('active', buttons[i].getAttribute('data-name') === activeExample);
    }
  }

  function writeHash(sql) {
    var hash = '#sql=' + encodeURIComponent(sql);
    if (hash.length > 200000) return; // too long for a link; leave the old one
    hashWritten = hash;
    try {
      history.replaceState(null, '', hash);
    } catch (e) {
      location.hash = hash;
    }
  }

  function sqlFromHash() {
    var h = location.hash || '';
    if (h.indexOf('#sql=') !== 0) return null;
    try {
      return decodeURIComponent(h.slice(5).replace(/\+/g, '%20'));
    } catch (e) {
      return null;
    }
  }

  var pending = null;           // SQL asked for while a run was going

  function run(sql) {
    if (!M) return;
    if (running) { pending = sql; return; }
    running = true;
    $('run').disabled = true;
    document.body.classList.add('busy');
    setStatus('Running\u2026');
    // Let the page paint "Running" before the run blocks it.
    setTimeout(function () {
      var t0 = performance.now();
      var answer, setupError = null;
      M.pqwebHttp = {requests: 0, bytes: 0, log: []};
      try {
        var rc = M.ccall('pqweb_open', 'number', [], []);
        if (rc !== 0) throw new Error('cannot open a database (SQLite error ' + rc + ')');
        var setup = filesSetupSql();
        if (setup) {
          var s = execSql(setup);
          setupError = answerError(s);
        }
        var text = execText(sql);
        window.pqLastAnswer = text;
        answer = parseAnswer(text);
      } catch (e) {
        answer = {results: [], error: 'the module failed: ' + (e && e.message || e)};
      }
      var ms = performance.now() - t0;
      window.pqHttp = M.pqwebHttp;
      var httpText = showHttp(M.pqwebHttp);
      try {
        render(answer, setupError);
      } catch (e) {
        $('results').innerHTML = '<div class="error"><div class="msg">The page failed to show ' +
          'the results: ' + esc(e && e.stack || e) + '</div></div>';
      }
      writeHash(sql);
      var n = answer.results ? answer.results.length : 0;
      var errors = (answer.results || []).filter(function (r) { return r.error; }).length;
      if (!errors && typeof answer.error === 'string') errors = 1;
      setStatus(plural(n, 'statement') + ' in ' + (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + ' ms' +
                (errors ? ' \u00b7 ' + plural(errors, 'error') : '') +
                (httpText ? ' \u00b7 ' + plural(M.pqwebHttp.requests, 'request') : ''), errors > 0);
      running = false;
      $('run').disabled = false;
      document.body.classList.remove('busy');
      window.pqRunCount++;
      if (pending != null) {
        var next = pending;
        pending = null;
        run(next);
      }
    }, 20);
  }

  // ---- Results --------------------------------------------------------------

  function render(answer, setupError) {
    parkDetail();
    explains = [];
    longCells = [];
    var box = $('results');
    box.textContent = '';
    if (setupError) box.appendChild(errorBlock('the table files could not be made: ' + setupError, null));
    var shown = false;
    (answer.results || []).forEach(function (r, k) {
      box.appendChild(renderResult(r, k));
      if (r.error) shown = true;
    });
    if (typeof answer.error === 'string' && !shown) {
      box.appendChild(errorBlock(answer.error, answer.error_sql || null));
    }
    if (!(answer.results || []).length && !answer.error) {
      var p = document.createElement('p');
      p.className = 'empty';
      p.textContent = 'No statements to run.';
      box.appendChild(p);
    }
    explains.forEach(wireExplain);
    if (explains.length) moveDetail(explains[0]);
  }

  function errorBlock(message, sql) {
    var d = document.createElement('div');
    d.className = 'error';
    var hint = '';
    if (/no such table: files\b/.test(message)) {
      hint = '<div class="hint">The table files holds the .parquet files opened in this page; ' +
             'open the file again (files live only as long as the page).</div>';
    }
    d.innerHTML = '<div class="msg"><strong>Error:</strong> ' + esc(message) + '</div>' +
                  (sql ? '<pre class="failed-sql">' + esc(sql) + '</pre>' : '') + hint;
    return d;
  }

  // One statement's result: its table, and its explain drawn if it is one
  // (kept in `list`, its id `prefix` and its place there).
  function renderResult(r, k, list, prefix) {
    list = list || explains;
    var sec = document.createElement('section');
    sec.className = 'result';
    var cols = r.columns || [];
    var rows = r.rows || [];
    if (!cols.length && !r.error) {
      sec.className += ' quiet';
      sec.innerHTML = '<pre class="stmt">' + esc(r.sql) + '</pre><span class="done">done</span>';
      return sec;
    }
    sec.innerHTML = '<pre class="stmt">' + esc(r.sql) + '</pre>';
    var ex = null;
    if (cols.length && (rows.length || !r.error)) {
      ex = explainOf(r);
      if (ex) {
        ex.id = (prefix || '') + list.length;
        list.push(ex);
        sec.appendChild(drawExplain(ex));
      }
      var wrap = document.createElement('div');
      wrap.innerHTML = tableHtml(r, ex);
      while (wrap.firstChild) sec.appendChild(wrap.firstChild);
      if (ex) {
        ex.section = sec;
        ex.table = sec.querySelector('table');
      }
    }
    if (r.error) sec.appendChild(errorBlock(r.error, r.sql));
    return sec;
  }

  function cellText(v) {
    if (v === null || v === undefined) return 'NULL';
    if (typeof v === 'object') {
      if ('blob' in v) return "X'" + v.blob + "'";
      if ('int' in v) return v['int'];
      if ('real' in v) return v.real;
      return JSON.stringify(v);
    }
    return String(v);
  }

  function clip(full, shown, extra) {
    var k = longCells.length;
    longCells.push(full);
    return '<span class="clipped" data-long="' + k + '" title="click to show all">' + esc(shown) +
           '<span class="more">\u2026 ' + esc(extra) + '</span></span>';
  }

  function cellHtml(v) {
    if (v === null || v === undefined) return '<td class="null">NULL</td>';
    if (typeof v === 'number') return '<td class="num">' + esc(String(v)) + '</td>';
    if (typeof v === 'object') {
      if ('blob' in v) {
        var n = v.blob.length / 2;
        if (n > CELL_BLOB_MAX) {
          return '<td class="blob">' + clip("X'" + v.blob + "'", "X'" + v.blob.slice(0, CELL_BLOB_MAX * 2),
                                            '(' + fmtSize(n) + ')') + '</td>';
        }
        return '<td class="blob">X\'' + esc(v.blob) + '\'</td>';
      }
      if ('int' in v) return '<td class="num">' + esc(v['int']) + '</td>';
      if ('real' in v) return '<td class="num">' + esc(v.real) + '</td>';
      return '<td>' + esc(JSON.stringify(v)) + '</td>';
    }
    var s = String(v);
    if (s.length > CELL_TEXT_MAX) {
      return '<td class="text">' + clip(s, s.slice(0, CELL_TEXT_MAX),
                                       '(' + s.length.toLocaleString('en-US') + ' characters)') + '</td>';
    }
    // Short text stays on one line (the table scrolls); long text wraps.
    return '<td class="text' + (s.length <= 40 && s.indexOf('\n') < 0 ? ' nw' : '') + '">' + esc(s) + '</td>';
  }

  // A parquet_pages result over an opened file: its rows get "explain" buttons.
  function pagesFileOf(r) {
    var c = r.columns;
    if (c.indexOf('row_group') < 0 || c.indexOf('column_id') < 0 || c.indexOf('page') < 0) return null;
    var m = /parquet_pages\s*\(\s*'((?:[^']|'')*)'\s*\)/i.exec(r.sql || '');
    if (!m) return null;
    return fileByPath(m[1].replace(/''/g, "'"));
  }

  function tableHtml(r, ex) {
    var cols = r.columns, rows = r.rows || [];
    var pf = pagesFileOf(r);
    var ix = {};
    cols.forEach(function (c, i) { if (!(c in ix)) ix[c] = i; });
    var h = '<div class="table-wrap"><table' + (ex ? ' class="explain-table" data-explain="' + ex.id + '"' : '') +
            '><thead><tr>';
    if (pf) h += '<th class="act"></th>';
    cols.forEach(function (c) { h += '<th>' + esc(c) + '</th>'; });
    h += '</tr></thead><tbody>';
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      h += '<tr data-row="' + i + '">';
      if (pf) {
        var extra = '';
        if ('path' in ix) extra += ' data-path="' + esc(cellText(row[ix.path])) + '"';
        if ('offset' in ix) extra += ' data-offset="' + esc(cellText(row[ix.offset])) + '"';
        h += '<td class="act"><button type="button" class="explain-page" data-file="' + esc(pf.name) +
             '" data-rg="' + esc(cellText(row[ix.row_group])) + '" data-col="' +
             esc(cellText(row[ix.column_id])) + '" data-page="' + esc(cellText(row[ix.page])) + '"' +
             extra + '>explain</button></td>';
      }
      for (var j = 0; j < row.length; j++) h += cellHtml(row[j]);
      h += '</tr>';
    }
    h += '</tbody></table></div>';
    var meta = plural(rows.length, 'row');
    if (r.truncated) meta += ', the first ' + MAX_ROWS + ': the rest were left out (add a LIMIT or a WHERE)';
    h += '<p class="meta' + (r.truncated ? ' truncated' : '') + '">' + esc(meta) + '</p>';
    return h;
  }

  // ---- parquet_explain, drawn -----------------------------------------------

  function toInt(v) {
    if (typeof v === 'number') return Math.floor(v);
    if (v && typeof v === 'object' && 'int' in v) return Number(v['int']);
    if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
    return null;
  }

  function str(v) { return typeof v === 'string' ? v : ''; }

  // The explain's rows, if the result is one: its columns include offset,
  // hex and path.
  function explainOf(r) {
    var c = r.columns, ix = {};
    c.forEach(function (n, i) { if (!(n in ix)) ix[n] = i; });
    if (!('offset' in ix && 'hex' in ix && 'path' in ix)) return null;
    var rows = (r.rows || []).map(function (row, i) {
      var hex = str(row[ix.hex]).trim();
      var bytes = hex ? hex.split(/\s+/) : [];
      var off = toInt(row[ix.offset]);
      var len = 'length' in ix ? toInt(row[ix.length]) : bytes.length;
      if (len === null) len = bytes.length;
      return {
        i: i, off: off, len: len, bytes: bytes,
        bits: 'bits' in ix ? str(row[ix.bits]) : '',
        labels: 'labels' in ix ? str(row[ix.labels]) : '',
        path: cellText(row[ix.path]),
        value: 'value' in ix ? row[ix.value] : undefined,
        hasValue: 'value' in ix,
        note: 'note' in ix ? str(row[ix.note]) : '',
        children: [], parent: null
      };
    });
    return {rows: rows, truncated: !!r.truncated, hasBits: 'bits' in ix, hasLabels: 'labels' in ix};
  }

  function lastSegment(path) {
    var p = path.replace(/\[\d+\]/g, '');
    var k = p.lastIndexOf('.');
    return k < 0 ? p : p.slice(k + 1);
  }

  function colourClass(path) {
    var kind = lastSegment(path);
    if (path === 'error' || kind === 'error') return 'k-error';
    if (/^(padding|rest|data|stop|compressed)$/.test(kind)) return 'k-muted';
    var hash = 0;
    for (var i = 0; i < kind.length; i++) hash = (hash * 31 + kind.charCodeAt(i)) >>> 0;
    return 'c' + (hash % PALETTE);
  }

  // Bits of whole bytes ("00001000 00000001", maybe "... "): how many bytes.
  function alignedGroups(bits) {
    if (!bits) return null;
    var g = bits.split(' ');
    if (g[g.length - 1] === '...') g.pop();
    for (var i = 0; i < g.length; i++) if (!/^[01]{8}$/.test(g[i])) return null;
    return g.length ? g : null;
  }

  function isPathChild(c, r) {
    var p = c.path;
    return r.path.length > p.length && r.path.lastIndexOf(p, 0) === 0 &&
           (r.path.charAt(p.length) === '.' || r.path.charAt(p.length) === '[');
  }

  // Whether row c holds row r: r's bytes are within c's (r comes after c),
  // and c is r's parent by path (miniblock[0] holds miniblock[0].value[3]),
  // or c is a part named without an index that holds others (packed_values
  // holds value[0] in ALP, values holds value[0] in BIT_PACKED).  value[2]
  // does not hold value[3] even where value[3] is within its bytes.
  function holds(c, r) {
    if (c.off === null || r.off === null) return false;
    var child = isPathChild(c, r);
    var part = !/\]$/.test(c.path);
    if (!child && !part) return false;
    var cEnd = c.off + c.len, rEnd = r.off + r.len;
    if (r.len === 0) {
      if (c.len === 0) return r.off === c.off && child;
      return (r.off >= c.off && r.off < cEnd) || (r.off === c.off && child);
    }
    if (r.off < c.off || rEnd > cEnd) return false;
    if (c.len > r.len) return true;
    // The same bytes: a container by its path, or as packed bits over values.
    return child ||
           (!!alignedGroups(c.bits) && !!c.labels && !!r.bits && !r.labels && !alignedGroups(r.bits));
  }

  // Splits the rows where the offset goes back (a join over many streams).
  function streamsOf(rows) {
    var out = [], cur = [], prev = -1;
    rows.forEach(function (r) {
      if (r.off === null) return;
      if (r.off < prev && cur.length) { out.push(cur); cur = []; }
      cur.push(r);
      prev = r.off;
    });
    if (cur.length) out.push(cur);
    return out;
  }

  function nest(rows) {
    var stack = [];
    rows.forEach(function (r) {
      while (stack.length && !holds(stack[stack.length - 1], r)) stack.pop();
      if (stack.length) {
        r.parent = stack[stack.length - 1];
        r.parent.children.push(r);
      }
      stack.push(r);
    });
  }

  // A container of bit-packed values: which bits each value takes.  Returns
  // [[row, byte, d], ...] (d: 0 = the byte's most significant bit, as drawn)
  // or null when the rows do not tell (no bits of the values, other rows).
  function packedBits(P) {
    return packedLayout(P, P.children.filter(function (k) { return k.len > 0; }));
  }

  // The same for values packed with no row over them all (PLAIN BOOLEAN):
  // runs of value rows of the same width, under the same parent, each in
  // or next to the bytes of the one before, taken as packed from the first
  // one's byte.
  function packedRuns(rows, isContainer) {
    var out = [];
    var run = [];
    function flush() {
      if (run.length > 1) {
        var first = run[0], last = run[run.length - 1];
        var off = first.off, len = last.off + last.len - off;
        var bytes = [];
        for (var b = off; b < off + len; b++) {
          var h = null;
          for (var k = 0; k < run.length && h === null; k++) {
            var r = run[k];
            if (b >= r.off && b < r.off + r.len && r.bytes[b - r.off]) h = r.bytes[b - r.off];
          }
          bytes.push(h);
        }
        if (bytes.every(function (x) { return x !== null; })) {
          var bits = packedLayout({off: off, len: len, bytes: bytes}, run);
          if (bits) out.push(bits);
        }
      }
      run = [];
    }
    rows.forEach(function (r) {
      var w = /^[01]+$/.test(r.bits) ? r.bits.length : 0;
      var ok = r.len > 0 && w > 0 && w % 8 !== 0 && /value\[\d+\]$/.test(r.path) && !isContainer(r);
      if (!ok) { flush(); return; }
      var prev = run[run.length - 1];
      if (prev && !(prev.parent === r.parent && prev.bits.length === w && r.off <= prev.off + prev.len)) flush();
      run.push(r);
    });
    flush();
    return out;
  }

  function packedLayout(P, kids) {
    if (!(P.len > 0) || P.bytes.length < P.len) return null;
    var slots = kids.filter(function (k) { return /value\[\d+\]$/.test(k.path) && /^[01]+$/.test(k.bits); });
    if (!slots.length) return null;
    var w = slots[0].bits.length;
    for (var s = 0; s < slots.length; s++) if (slots[s].bits.length !== w) return null;
    if (slots.length * w > P.len * 8) return null;
    var pad = null, others = 0;
    kids.forEach(function (k) {
      if (slots.indexOf(k) >= 0) return;
      if (/padding$/.test(k.path) && !pad) pad = k; else others++;
    });
    if (others) return null;
    var data = [];
    for (var b = 0; b < P.len; b++) data.push(parseInt(P.bytes[b], 16));
    function bitAt(p, msb) { return (data[p >> 3] >> (msb ? 7 - (p & 7) : (p & 7))) & 1; }
    function fits(msb) {
      for (var i = 0; i < slots.length; i++) {
        var s = '';
        for (var j = 0; j < w; j++) {
          // The value's bits, most significant first, as its bits column shows them.
          var p = msb ? i * w + j : i * w + (w - 1 - j);
          s += bitAt(p, msb);
        }
        if (s !== slots[i].bits) return false;
      }
      return true;
    }
    var msb;
    if (fits(false)) msb = false;
    else if (fits(true)) msb = true;
    else return null;
    var out = [];
    for (var p = 0; p < P.len * 8; p++) {
      var slot = Math.floor(p / w);
      var owner = slot < slots.length ? slots[slot] : pad;
      if (!owner) continue;
      var byte = P.off + (p >> 3);
      out.push([owner, byte, msb ? (p & 7) : 7 - (p & 7)]);
    }
    // Each value's bits lie in its bytes.
    for (var q = 0; q < out.length; q++) {
      var o = out[q];
      if (o[1] < o[0].off || o[1] >= o[0].off + o[0].len) return null;
    }
    return out;
  }

  function drawExplain(ex) {
    var div = document.createElement('div');
    div.className = 'explain';
    div.setAttribute('data-explain', ex.id);
    var streams = streamsOf(ex.rows);
    var linesLeft = DRAW_MAX_LINES, rowsLeft = DRAW_MAX_ROWS;
    var drawnRows = 0, totalBytes = 0, cut = false;
    var html = '';
    streams.forEach(function (rows, si) {
      if (linesLeft <= 0 || rowsLeft <= 0) { cut = true; return; }
      var d = drawStream(rows, linesLeft, rowsLeft);
      linesLeft -= d.lines;
      rowsLeft -= d.rows;
      drawnRows += d.rows;
      totalBytes += d.bytes;
      if (d.cut) cut = true;
      if (streams.length > 1) {
        html += '<div class="stream-head">stream ' + (si + 1) + ' of ' + streams.length +
                ' (rows ' + (rows[0].i + 1) + ' to ' + (rows[rows.length - 1].i + 1) + ')</div>';
      }
      html += d.html;
    });
    ex.drawnRows = drawnRows;
    var n = ex.rows.length;
    var head;
    if (cut || drawnRows < n) {
      head = 'drawn: the first ' + fmtCount(drawnRows) + ' of ' + fmtCount(n) + ' fields, over ' +
             fmtSize(totalBytes) + '; the table below has every row';
    } else {
      head = plural(n, 'field') + ' over ' + fmtSize(totalBytes);
    }
    if (streams.length > 1) head += ', in ' + streams.length + ' streams';
    if (ex.truncated) head += ' (the results stop at ' + fmtCount(MAX_ROWS) + ' rows: add a WHERE or a LIMIT)';
    div.setAttribute('data-rows', String(n));
    div.setAttribute('data-drawn', String(drawnRows));
    div.innerHTML =
      '<div class="explain-head"><span class="title">The bytes, field by field</span> ' +
      '<span class="counts">' + esc(head) + '</span>' +
      '<span class="legend"><span class="lg-leaf">field</span><span class="lg-packed">packed bits</span>' +
      '<span class="lg-box">holds fields</span><span class="lg-zero">\u25BE no bytes</span></span></div>' +
      '<div class="explain-body"><div class="bytes">' + html + '</div><div class="detail-slot"></div></div>';
    return div;
  }

  // Draws one stream: rows in byte order.  Returns {html, lines, rows, bytes, cut}.
  function drawStream(rows, maxLines, maxRows) {
    nest(rows);
    // What is drawn: rows on the first maxLines lines that have any, at most maxRows.
    var lineSet = {};
    var drawn = [];
    var lineCount = 0, cut = false, limit = Infinity;
    for (var k = 0; k < rows.length; k++) {
      var r = rows[k];
      if (drawn.length >= maxRows || r.off >= limit) { cut = true; break; }
      var first = Math.floor(r.off / PER_LINE);
      var last = r.len > 0 ? Math.floor((r.off + r.len - 1) / PER_LINE) : first;
      for (var L = first; L <= last; L++) {
        if (!lineSet[L]) {
          if (lineCount >= maxLines) { limit = Math.min(limit, L * PER_LINE); cut = true; break; }
          lineSet[L] = true;
          lineCount++;
        }
      }
      if (r.off >= limit) { cut = true; break; }
      drawn.push(r);
    }
    var drawnSet = new Set(drawn);
    function inRange(b) { return b < limit; }

    // Leaves and containers.
    var isContainer = function (r) { return r.children.some(function (c) { return drawnSet.has(c); }); };

    // Bit owners: byte -> [8 lists of rows].
    var cells = new Map();
    function cellOf(b) {
      var c = cells.get(b);
      if (!c) { c = [[], [], [], [], [], [], [], []]; cells.set(b, c); }
      return c;
    }
    var packedDone = new Set();
    function place(bits) {
      bits.forEach(function (t) {
        if (inRange(t[1])) cellOf(t[1])[t[2]].push(t[0]);
        packedDone.add(t[0]);
      });
    }
    drawn.forEach(function (r) {
      if (r.len > 0 && isContainer(r)) {
        var bits = packedBits(r);
        if (bits) place(bits);
      }
    });
    packedRuns(drawn.filter(function (r) { return !packedDone.has(r); }), isContainer).forEach(place);
    var claims = new Map(); // byte -> leaves that claim the whole byte
    drawn.forEach(function (r) {
      if (!(r.len > 0) || isContainer(r) || packedDone.has(r)) return;
      for (var b = r.off; b < r.off + r.len && inRange(b); b++) {
        var l = claims.get(b);
        if (!l) claims.set(b, l = []);
        l.push(r);
      }
    });
    claims.forEach(function (list, b) {
      var c = cellOf(b);
      var hasBits = c.some(function (x) { return x.length > 0; });
      if (hasBits) {
        for (var d = 0; d < 8; d++) Array.prototype.push.apply(c[d], list);
        return;
      }
      var n = list.length;
      for (var j = 0; j < n; j++) {
        var c0 = Math.floor(j * 8 / n), c1 = Math.max(c0 + 1, Math.floor((j + 1) * 8 / n));
        for (var dd = c0; dd < c1 && dd < 8; dd++) c[dd].push(list[j]);
      }
    });

    // The hex of each byte, and where bits (and their letters) are shown.
    var hexAt = new Map(), bitsSrc = new Map(), covered = new Set();
    drawn.forEach(function (r) {
      for (var b = r.off; b < r.off + r.len && inRange(b); b++) {
        covered.add(b);
        if (!hexAt.has(b) && r.bytes[b - r.off]) hexAt.set(b, r.bytes[b - r.off].toUpperCase());
      }
      var g = alignedGroups(r.bits);
      if (g && r.len > 0) {
        var lg = r.labels ? r.labels.split(' ') : [];
        for (var k2 = 0; k2 < g.length && k2 < r.len; k2++) {
          var b2 = r.off + k2;
          if (!inRange(b2) || bitsSrc.has(b2)) continue;
          bitsSrc.set(b2, {row: r, labels: lg[k2] && lg[k2].length === 8 ? lg[k2] : null});
        }
      }
    });

    // Containers' heights (0: holds no container), for their lanes.
    var height = new Map();
    function heightOf(r) {
      if (height.has(r)) return height.get(r);
      var h = 0;
      r.children.forEach(function (c) {
        if (drawnSet.has(c) && c.len > 0 && isContainer(c)) h = Math.max(h, heightOf(c) + 1);
      });
      height.set(r, h);
      return h;
    }
    var containers = drawn.filter(function (r) { return r.len > 0 && isContainer(r); });
    containers.forEach(heightOf);

    // Rows of no bytes, grouped by offset.
    var zeros = new Map();
    drawn.forEach(function (r) {
      if (r.len === 0 && inRange(r.off)) {
        var l = zeros.get(r.off);
        if (!l) zeros.set(r.off, l = []);
        l.push(r);
      }
    });

    var lines = Object.keys(lineSet).map(Number).sort(function (a, b) { return a - b; });
    var html = '', prevLine = null, bytesShown = 0;
    lines.forEach(function (L) {
      if (prevLine !== null && L > prevLine + 1) {
        html += '<div class="gap">\u22EE bytes ' + ((prevLine + 1) * PER_LINE) + ' to ' +
                (L * PER_LINE - 1) + ': no rows</div>';
      }
      prevLine = L;
      var out = drawLine(L * PER_LINE);
      bytesShown += out.bytes;
      html += out.html;
    });
    return {html: html, lines: lines.length, rows: drawn.length, bytes: bytesShown, cut: cut};

    function ownersKey(list) {
      return list.map(function (r) { return r.i; }).join(' ');
    }

    function fieldAttrs(list) {
      var r = list[0];
      return ' data-rows="' + ownersKey(list) + '" data-path="' + esc(r.path) + '" data-offset="' + r.off +
             '" data-length="' + r.len + '"';
    }

    function col(j, d) { return 2 + j * COLS_PER_BYTE + d; }

    function drawLine(base) {
      var parts = [];
      var nBytes = 0;
      var rowNo = 1;
      var markerRow = 0, hexRow, bitsRow = 0, labelsRow = 0, bracketRow0 = 0;
      var j, b;

      var lineZeros = [];
      zeros.forEach(function (list, off) { if (off >= base && off < base + PER_LINE) lineZeros.push([off, list]); });
      // A row of no bytes is marked in the hex lane where no byte is drawn
      // (after a stream's last byte), else in a lane above the bytes.
      if (lineZeros.some(function (z) { return covered.has(z[0]); })) markerRow = rowNo++;
      hexRow = rowNo++;

      var shared = [], hasBitsLane = false, hasLabels = false;
      for (j = 0; j < PER_LINE; j++) {
        b = base + j;
        var c = cells.get(b);
        var isShared = false;
        if (c && covered.has(b)) {
          var k0 = ownersKey(c[0]);
          for (var d = 1; d < 8; d++) if (ownersKey(c[d]) !== k0) isShared = true;
          if (!isShared && c[0].length > 1) isShared = true;
        }
        shared.push(isShared);
        if (covered.has(b) && (isShared || bitsSrc.has(b))) hasBitsLane = true;
        if (covered.has(b) && bitsSrc.has(b) && bitsSrc.get(b).labels) hasLabels = true;
      }
      if (hasBitsLane) bitsRow = rowNo++;
      if (hasLabels) labelsRow = rowNo++;
      var lineContainers = containers.filter(function (r) {
        return r.off < base + PER_LINE && r.off + r.len > base && r.off < limit;
      });
      var lanes = 0;
      lineContainers.forEach(function (r) { lanes = Math.max(lanes, height.get(r) + 1); });
      if (lanes) { bracketRow0 = rowNo; rowNo += lanes; }

      parts.push('<div class="off" style="grid-row:' + hexRow + '">' + base + '</div>');

      // Markers: rows of no bytes.
      lineZeros.forEach(function (z) {
        var list = z[1];
        var label = list.length > 1 ? '\u25BE' + list.length : '\u25BE';
        var inHex = !covered.has(z[0]);
        parts.push('<div class="field zero' + (inHex ? ' in-hex' : '') + '" style="grid-row:' +
                   (inHex ? hexRow : markerRow) + ';grid-column:' +
                   col(z[0] - base, 0) + ' / span 6"' + fieldAttrs(list) + ' title="' +
                   esc(plural(list.length, 'row') + ' of no bytes at offset ' + z[0]) + '">' + label + '</div>');
      });

      // Hex: boxes of bytes with the same owners.
      var prevClass = null, prevEnd = -1;
      j = 0;
      while (j < PER_LINE) {
        b = base + j;
        if (!covered.has(b)) { j++; continue; }
        var cl = cells.get(b);
        var key = shared[j] ? 'shared' : (cl ? ownersKey(cl[0]) : '');
        var start = j;
        j++;
        while (j < PER_LINE && covered.has(base + j)) {
          var cl2 = cells.get(base + j);
          var key2 = shared[j] ? 'shared' : (cl2 ? ownersKey(cl2[0]) : '');
          if (key2 !== key || (key === 'shared' && !sameContainer(base + j - 1, base + j))) break;
          j++;
        }
        var n = j - start;
        nBytes += n;
        var hx = '';
        for (var q = start; q < j; q++) {
          hx += '<span class="hexbyte" data-offset="' + (base + q) + '">' + esc(hexAt.get(base + q) || '\u00b7\u00b7') +
                '</span>';
        }
        var place = 'grid-row:' + hexRow + ';grid-column:' + col(start, 0) + ' / span ' +
                    (n * COLS_PER_BYTE - 1);
        var contL = start === 0 && continuesFromLeft(cl, base), contR = j === PER_LINE && continuesRight(cl, base + j);
        var extraCls = (contL ? ' cont-l' : '') + (contR ? ' cont-r' : '');
        if (key === 'shared' || !cl || !cl[0].length) {
          parts.push('<div class="hexbox shared' + extraCls + '" style="' + place + '">' + hx + '</div>');
          prevClass = null;
        } else {
          var owners = cl[0];
          var cc = colourClass(owners[0].path);
          var alt = cc === prevClass && prevEnd === start ? ' alt' : '';
          parts.push('<div class="field hexbox ' + cc + alt + extraCls + '" style="' + place + '"' +
                     fieldAttrs(owners) + '>' + hx + '</div>');
          prevClass = alt ? cc + '-alt' : cc;
          prevEnd = j;
        }
      }

      // Bits: packed values' own bits as segments; whole fields' bits as text.
      if (bitsRow) {
        var segs = []; // {list, key, c0, c1, text}
        var cur = null;
        for (j = 0; j < PER_LINE; j++) {
          b = base + j;
          if (!covered.has(b)) { cur = null; continue; }
          var byteVal = hexAt.has(b) ? parseInt(hexAt.get(b), 16) : NaN;
          var bitsText = isNaN(byteVal) ? '\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7' :
                         ('00000000' + byteVal.toString(2)).slice(-8);
          if (shared[j]) {
            var cs = cells.get(b);
            for (var dd = 0; dd < 8; dd++) {
              var list = cs[dd];
              var kk = ownersKey(list);
              var cc2 = col(j, dd);
              if (cur && cur.kind === 'seg' && cur.key === kk && cur.c1 === cc2 - 1 - (dd === 0 ? 1 : 0)) {
                if (dd === 0) cur.text += ' ';
                cur.text += bitsText.charAt(dd);
                cur.c1 = cc2;
              } else {
                cur = {kind: 'seg', key: kk, list: list, c0: cc2, c1: cc2, text: bitsText.charAt(dd)};
                segs.push(cur);
              }
            }
          } else if (bitsSrc.has(b)) {
            var src = bitsSrc.get(b).row;
            if (cur && cur.kind === 'plain' && cur.src === src && cur.c1 === col(j, 0) - 2) {
              cur.text += ' ' + bitsText;
              cur.c1 = col(j, 7);
            } else {
              cur = {kind: 'plain', src: src, c0: col(j, 0), c1: col(j, 7), text: bitsText};
              segs.push(cur);
            }
          } else {
            cur = null;
          }
        }
        var prevSegClass = null, prevSegEnd = -10;
        segs.forEach(function (s) {
          var place = 'grid-row:' + bitsRow + ';grid-column:' + s.c0 + ' / span ' + (s.c1 - s.c0 + 1);
          if (s.kind === 'plain') {
            parts.push('<div class="bits" style="' + place + '">' + s.text + '</div>');
            prevSegClass = null;
          } else if (!s.list.length) {
            parts.push('<div class="bits bitseg none" style="' + place + '">' + s.text + '</div>');
            prevSegClass = null;
          } else {
            var cc3 = colourClass(s.list[0].path);
            var touching = prevSegEnd === s.c0 - 1 || prevSegEnd === s.c0 - 2;
            var alt2 = cc3 === prevSegClass && touching ? ' alt' : '';
            parts.push('<div class="field bits bitseg ' + cc3 + alt2 + '" style="' + place + '"' +
                       fieldAttrs(s.list) + '>' + s.text + '</div>');
            prevSegClass = alt2 ? cc3 + '-alt' : cc3;
          }
          prevSegEnd = s.c1;
        });
      }

      // The spec's letters under the bits.
      if (labelsRow) {
        for (j = 0; j < PER_LINE; j++) {
          b = base + j;
          if (!covered.has(b) || !bitsSrc.has(b)) continue;
          var lab = bitsSrc.get(b).labels;
          if (!lab) continue;
          parts.push('<div class="labels" style="grid-row:' + labelsRow + ';grid-column:' + col(j, 0) +
                     ' / span 8">' + esc(lab) + '</div>');
        }
      }

      // Brackets under the fields a container holds.
      lineContainers.forEach(function (r) {
        var s = Math.max(r.off, base), e = Math.min(r.off + r.len, base + PER_LINE, limit);
        if (e <= s) return;
        var lane = height.get(r);
        var cls = 'field bracket' + (r.off < base ? ' cont-l' : '') + (r.off + r.len > base + PER_LINE ? ' cont-r' : '');
        var name = r.off >= base ? lastName(r.path) : '';
        parts.push('<div class="' + cls + '" style="grid-row:' + (bracketRow0 + lane) + ';grid-column:' +
                   col(s - base, 0) + ' / span ' + ((e - s) * COLS_PER_BYTE - 1) + '"' + fieldAttrs([r]) +
                   ' title="' + esc(r.path) + '"><span>' + esc(name) + '</span></div>');
      });

      return {html: '<div class="xline">' + parts.join('') + '</div>', bytes: nBytes};
    }

    function sameContainer(a, b) {
      var ca = cells.get(a), cb = cells.get(b);
      var ra = ca && ca[0][0], rb = cb && cb[0][0];
      var pa = ra && ra.parent, pb = rb && rb.parent;
      return pa === pb;
    }

    function continuesFromLeft(cl, base) {
      if (!cl || !cl[0].length || base === 0) return false;
      var prev = cells.get(base - 1);
      return !!prev && ownersKey(prev[7]) === ownersKey(cl[0]) && covered.has(base - 1);
    }

    function continuesRight(cl, next) {
      if (!cl || !cl[0].length) return false;
      var n = cells.get(next);
      return !!n && ownersKey(n[0]) === ownersKey(cl[0]) && covered.has(next);
    }
  }

  function lastName(path) {
    var k = path.lastIndexOf('.');
    return k < 0 ? path : path.slice(k + 1);
  }

  // ---- The drawing and the table, linked -----------------------------------

  function wireExplain(ex) {
    var div = ex.section.querySelector('.explain');
    ex.div = div;
    ex.fieldsByRow = new Map();
    var fields = div.querySelectorAll('.field');
    for (var i = 0; i < fields.length; i++) {
      var ids = fields[i].getAttribute('data-rows').split(' ');
      for (var k = 0; k < ids.length; k++) {
        var id = Number(ids[k]);
        var l = ex.fieldsByRow.get(id);
        if (!l) ex.fieldsByRow.set(id, l = []);
        l.push(fields[i]);
      }
    }
    ex.trs = ex.table ? ex.table.tBodies[0].rows : [];
    ex.lit = [];
    ex.selected = null;
  }

  function parkDetail() {
    var d = $('detail');
    $('detail-home').appendChild(d);
    d.innerHTML = '';
  }

  function moveDetail(ex) {
    var d = $('detail');
    var slot = ex.div.querySelector('.detail-slot');
    if (d.parentNode !== slot) {
      slot.appendChild(d);
      if (!d.innerHTML) d.innerHTML = detailIntro();
    }
  }

  function detailIntro() {
    return '<div class="d-intro">Point at a field of the drawing, or a row of the table: its path, ' +
           'bytes, value and note show here. Click to keep it.</div>';
  }

  function valueHtml(v) {
    if (v === null || v === undefined) return '<span class="null">NULL</span>';
    return esc(cellText(v));
  }

  function detailHtml(ex, ids) {
    var rows = ids.map(function (i) { return ex.rows[i]; }).filter(Boolean);
    if (!rows.length) return detailIntro();
    var h = '';
    rows.slice(0, 12).forEach(function (r, k) {
      var where;
      if (r.off === null) where = '';
      else if (r.len === 0) where = 'at byte ' + r.off + ', no bytes';
      else if (r.len === 1) where = 'byte ' + r.off;
      else where = 'bytes ' + r.off + ' to ' + (r.off + r.len - 1) + ' (' + r.len + ')';
      h += '<div class="d-row' + (k ? ' more' : '') + '">' +
           '<div class="d-path">' + esc(r.path) + '</div>' +
           '<dl>' +
           '<dt>where</dt><dd>' + esc(where) + '</dd>' +
           (r.bytes.length ? '<dt>hex</dt><dd class="mono">' + esc(r.bytes.join(' ')) + '</dd>' : '') +
           (r.bits ? '<dt>bits</dt><dd class="mono">' + esc(r.bits) + '</dd>' : '') +
           (r.labels ? '<dt>labels</dt><dd class="mono">' + esc(r.labels) + '</dd>' : '') +
           (r.hasValue ? '<dt>value</dt><dd class="mono">' + valueHtml(r.value) + '</dd>' : '') +
           '</dl>' +
           (r.note ? '<p class="d-note">' + esc(r.note) + '</p>' : '') +
           '</div>';
    });
    if (rows.length > 12) h += '<div class="d-more">and ' + (rows.length - 12) + ' more rows</div>';
    return h;
  }

  function light(ex, ids, cls) {
    ex.lit.forEach(function (e) { e.classList.remove(cls); });
    if (cls === 'hl') ex.lit = [];
    var list = [];
    ids.forEach(function (i) {
      (ex.fieldsByRow.get(i) || []).forEach(function (e) { list.push(e); });
      if (ex.trs[i]) list.push(ex.trs[i]);
    });
    list.forEach(function (e) { e.classList.add(cls); });
    return list;
  }

  function idsOf(el) {
    var a = el.getAttribute('data-rows');
    if (a != null) return a.split(' ').map(Number);
    var r = el.getAttribute('data-row');
    return r != null ? [Number(r)] : [];
  }

  function exOf(el) {
    var holder = el.closest('[data-explain]');
    if (!holder) return null;
    var id = holder.getAttribute('data-explain');
    if (id.charAt(0) === 'L') return labExplains[Number(id.slice(1))] || null;
    return explains[Number(id)] || null;
  }

  function hover(el) {
    var ex = exOf(el);
    if (!ex || !ex.fieldsByRow) return;
    var ids = idsOf(el);
    ex.lit.forEach(function (e) { e.classList.remove('hl'); });
    ex.lit = light(ex, ids, 'hl');
    moveDetail(ex);
    $('detail').innerHTML = detailHtml(ex, ids);
  }

  function unhover(ex) {
    ex.lit.forEach(function (e) { e.classList.remove('hl'); });
    ex.lit = [];
    if (ex.selected) $('detail').innerHTML = detailHtml(ex, ex.selected);
  }

  function select(el, fromTable) {
    var ex = exOf(el);
    if (!ex || !ex.fieldsByRow) return;
    var ids = idsOf(el);
    explains.concat(labExplains).forEach(function (x) {
      if (x.selEls) x.selEls.forEach(function (e) { e.classList.remove('sel'); });
      x.selEls = null;
      x.selected = null;
    });
    ex.selected = ids;
    ex.selEls = [];
    ids.forEach(function (i) {
      (ex.fieldsByRow.get(i) || []).forEach(function (e) { e.classList.add('sel'); ex.selEls.push(e); });
      if (ex.trs[i]) { ex.trs[i].classList.add('sel'); ex.selEls.push(ex.trs[i]); }
    });
    moveDetail(ex);
    $('detail').innerHTML = detailHtml(ex, ids);
    if (fromTable) {
      var f = ex.fieldsByRow.get(ids[0]);
      if (f && f[0]) f[0].scrollIntoView({block: 'nearest', inline: 'nearest'});
    } else {
      var tr = ex.trs[ids[0]];
      if (tr) scrollWithin(tr.closest('.table-wrap'), tr);
    }
  }

  function scrollWithin(box, el) {
    if (!box) return;
    var top = el.offsetTop, h = el.offsetHeight;
    var head = box.querySelector('thead');
    var headH = head ? head.offsetHeight : 0;
    if (top - headH < box.scrollTop) box.scrollTop = top - headH;
    else if (top + h > box.scrollTop + box.clientHeight) box.scrollTop = top + h - box.clientHeight;
  }

  function wireResults(box) {
    box.addEventListener('mouseover', function (e) {
      var f = e.target.closest('.explain .field, table.explain-table tbody tr');
      if (f) hover(f);
    });
    box.addEventListener('mouseout', function (e) {
      var from = e.target.closest('.explain .bytes, table.explain-table tbody');
      if (!from) return;
      var to = e.relatedTarget;
      if (to && from.contains(to)) return;
      var ex = exOf(from);
      if (ex && ex.lit) unhover(ex);
    });
    box.addEventListener('click', function (e) {
      var t = e.target;
      var btn = t.closest('button.explain-page');
      if (btn) {
        var f = fileByName(btn.getAttribute('data-file'));
        if (f) {
          var extra = {path: btn.getAttribute('data-path'), offset: btn.getAttribute('data-offset')};
          loadAndRun(explainPageSql(f, Number(btn.getAttribute('data-rg')), Number(btn.getAttribute('data-col')),
                                    Number(btn.getAttribute('data-page')), extra), null);
        }
        return;
      }
      var clipped = t.closest('.clipped');
      if (clipped) {
        var full = longCells[Number(clipped.getAttribute('data-long'))];
        if (full != null) {
          var span = document.createElement('span');
          span.className = 'unclipped';
          span.textContent = full;
          clipped.replaceWith(span);
        }
        return;
      }
      var field = t.closest('.explain .field');
      if (field) { select(field, false); return; }
      var tr = t.closest('table.explain-table tbody tr');
      if (tr) select(tr, true);
    });
  }

  // ---- The encoding lab -----------------------------------------------------

  // parquet_lab over a query (or over a file opened into the page, as the
  // table `file`): its rows as a table that sorts by any column, and a chart
  // per column of size against decode speed, a point per encoding and codec.
  // A point (or a row) explains the first page of that column as
  // parquet_write writes it with that encoding, codec and level, and the
  // lab's other options. The form's fields are the lab's options of their
  // names.
  window.pqLabCount = 0;        // lab runs that finished
  window.pqLabExplainCount = 0; // explains of a point that finished

  var LAB_DEFAULT_CODECS = ['UNCOMPRESSED', 'SNAPPY', 'ZSTD'];
  var LAB_QUERY =
    "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 4000),\n" +
    "     h(i, x) AS (SELECT i, (i * 2654435761 + 40503) % 4294967296 FROM s)\n" +
    "SELECT i AS id,\n" +
    "       1 + (x >> 7) % 200 AS qty,\n" +
    "       round(1 + (i * 7919) % 10000 / 100.0, 2) AS price,\n" +
    "       CASE (x >> 11) % 5 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped'\n" +
    "                          WHEN 3 THEN 'delivered' ELSE 'returned' END AS status,\n" +
    "       'https://shop.example.com/product/' || (100000 + (x >> 9) % 2000) AS url\n" +
    "  FROM h";
  var LAB_FILE_QUERY = 'SELECT * FROM file LIMIT 10000';
  // Colours of the encodings, one each; shapes of the codecs.
  var LAB_COLOURS = {
    PLAIN: '#57606a', PLAIN_DICTIONARY: '#8250df', RLE_DICTIONARY: '#8250df', RLE: '#bf3989',
    BIT_PACKED: '#6e7781', DELTA_BINARY_PACKED: '#0969da', DELTA_LENGTH_BYTE_ARRAY: '#1a7f37',
    DELTA_BYTE_ARRAY: '#2da44e', BYTE_STREAM_SPLIT: '#bc4c00', ALP: '#cf222e', GROUP_VAR_INT: '#9a6700'
  };
  var LAB_SHAPES = ['circle', 'square', 'diamond', 'up', 'down', 'plus', 'cross', 'wide'];

  var lab = {
    source: null,               // the opened file the table `file` reads, or null
    sql: '', query: '', options: null, optionsText: '', setup: '',
    columns: [], rows: [], order: [], sortCol: -1, sortDir: 1,
    codecs: [], selected: null,
    ranges: []                  // the codecs with levels: {name, min, max, def}
  };

  function labNum(v) {
    if (v === null || v === undefined) return null;
    if (typeof v === 'number') return v;
    if (typeof v === 'object') {
      if ('int' in v) return Number(v['int']);
      if ('real' in v) return Number(v.real);
      return null;
    }
    var n = Number(v);
    return isNaN(n) ? null : n;
  }

  function labCol(name) { return lab.columns.indexOf(name); }

  function labValue(i, name) {
    var j = labCol(name);
    return j < 0 ? null : lab.rows[i][j];
  }

  function quoteIdent(s) { return '"' + String(s).replace(/"/g, '""') + '"'; }

  function labSetupSql() {
    if (!lab.source) return '';
    return 'CREATE VIRTUAL TABLE temp.file USING parquet(' + sqlQuote(lab.source.path) + ');\n';
  }

  function labCheckedCodecs() {
    var boxes = $('lab-codecs').querySelectorAll('input[type=checkbox]');
    var out = [];
    for (var i = 0; i < boxes.length; i++) if (boxes[i].checked) out.push(boxes[i].value);
    return out;
  }

  // The build's codecs, and the levels of those that have them, as
  // parquet_codecs gives them.
  function renderLabCodecs() {
    var names = [], ranges = [];
    try {
      var a = execSql('SELECT name, min_level, max_level, default_level FROM parquet_codecs\n' +
                      ' WHERE available ORDER BY codec;');
      (a.results[0].rows || []).forEach(function (r) {
        var n = cellText(r[0]);
        names.push(n);
        if (r[1] !== null && r[2] !== null) {
          ranges.push({name: n, min: labNum(r[1]), max: labNum(r[2]), def: labNum(r[3])});
        }
      });
    } catch (e) { /* none: the lab's own default, every codec */ }
    lab.codecs = names;
    lab.ranges = ranges;
    var html = '<span class="lab-label">codecs</span>';
    names.forEach(function (n) {
      html += '<label class="lab-codec"><input type="checkbox" value="' + esc(n) + '"' +
              (LAB_DEFAULT_CODECS.indexOf(n) >= 0 ? ' checked' : '') + '> ' + esc(n) + '</label>';
    });
    $('lab-codecs').innerHTML = html;
    renderLabLevels();
  }

  // The words of the levels field: "1, 19", "1 19" and "[1, 19]" alike.
  function labLevelWords() {
    return $('lab-levels').value.trim().replace(/^\[|\]$/g, '').split(/[\s,]+/)
      .filter(function (w) { return w !== ''; });
  }

  function labLevelsChosen() {
    var out = [];
    labLevelWords().forEach(function (w) {
      if (/^-?\d{1,7}$/.test(w)) out.push(parseInt(w, 10));
    });
    return out;
  }

  // The level picker: each codec with levels, its range and default (each a
  // button that adds the level to the field, or takes it out), and which
  // of the levels asked for it has rows for.
  function renderLabLevels() {
    var box = $('lab-level-ranges');
    if (!box) return;
    var chosen = labLevelsChosen();
    var ticked = labCheckedCodecs();
    var html = '';
    lab.ranges.forEach(function (g) {
      var lv = function (v, what) {
        return '<button type="button" class="lv' + (chosen.indexOf(v) >= 0 ? ' on' : '') + '" data-level="' +
               v + '" title="' + esc(what + ' level of ' + g.name + ': ' + (chosen.indexOf(v) >= 0 ?
               'take it out of' : 'add it to') + ' the levels') + '">' + v + '</button>';
      };
      var mine = chosen.filter(function (v) { return v >= g.min && v <= g.max; });
      var use = '';
      if (chosen.length) {
        use = mine.length ? '<span class="lv-use">: ' + esc(mine.join(', ')) + '</span>'
                          : '<span class="lv-use none">: no rows</span>';
      }
      html += '<span class="lab-range' + (ticked.length && ticked.indexOf(g.name) < 0 ? ' off' : '') +
              '" data-codec="' + esc(g.name) + '" data-min="' + g.min + '" data-max="' + g.max +
              '" data-default="' + (g.def === null ? '' : g.def) + '"><b>' + esc(g.name) + '</b> ' +
              lv(g.min, 'the least') + '\u2026' + lv(g.max, 'the greatest') +
              (g.def === null ? '' : ' default ' + lv(g.def, 'the default')) + use + '</span>';
    });
    box.innerHTML = html;
  }

  // Adds level v to the levels field, or takes it out.
  function labToggleLevel(v) {
    var words = labLevelWords();
    var k = -1;
    words.forEach(function (w, i) { if (/^-?\d+$/.test(w) && parseInt(w, 10) === v) k = i; });
    if (k >= 0) words.splice(k, 1);
    else words.push(String(v));
    var nums = words.every(function (w) { return /^-?\d+$/.test(w); });
    if (nums) words.sort(function (a, b) { return parseInt(a, 10) - parseInt(b, 10); });
    $('lab-levels').value = words.join(', ');
    renderLabLevels();
  }

  // A number field's text as a JSON value: the number as typed (".5" as
  // 0.5), or a JSON string of anything else, for the lab to refuse in its
  // own words; null when empty.
  function labNumberJson(text) {
    var t = String(text).trim();
    if (t === '') return null;
    if (/^-?\.\d/.test(t)) t = t.replace('.', '0.');
    return /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(t) ? t : JSON.stringify(t);
  }

  // The options the form asks for, as the JSON text the lab is given: the
  // fields' members, in this order, then the text of the "more options"
  // field, whose keys win over the fields' (the fields' members it names
  // are left out). That text goes in as it is written, so that a mistake
  // in it is the lab's error, not the page's.
  function labOptionsText() {
    var members = [];
    var add = function (k, v) { if (v !== null && v !== undefined && v !== '') members.push([k, v]); };
    var codecs = labCheckedCodecs();
    if (codecs.length) add('codecs', JSON.stringify(codecs));
    var words = labLevelWords();
    if (words.length) {
      add('levels', '[' + words.map(function (w) {
        return /^-?\d{1,7}$/.test(w) ? String(parseInt(w, 10)) : JSON.stringify(w);
      }).join(',') + ']');
    }
    add('min_time', labNumberJson($('lab-min-time').value));
    add('sample', labNumberJson($('lab-sample').value));
    add('page_size', labNumberJson($('lab-page-size').value));
    add('dictionary_page_size', labNumberJson($('lab-dict-page-size').value));
    add('page_version', labNumberJson($('lab-page-version').value));
    add('row_group_size', labNumberJson($('lab-row-group-size').value));
    var more = $('lab-json').value.trim();
    if (/^\{[\s\S]*\}$/.test(more)) more = more.slice(1, -1).trim();
    var theirs = {};
    if (more) {
      try {
        var o = JSON.parse('{' + more + '}');
        Object.keys(o).forEach(function (k) { theirs[k] = true; });
      } catch (e) { /* the lab says what is wrong with it */ }
    }
    var parts = members.filter(function (m) { return !theirs[m[0]]; }).map(function (m) {
      return JSON.stringify(m[0]) + ':' + m[1];
    });
    if (more) parts.push(more);
    return '{' + parts.join(',') + '}';
  }

  function renderLabSource() {
    var box = $('lab-source');
    if (!uploaded.length) { box.hidden = true; return; }
    box.hidden = false;
    var html = '<span class="files-label">The table file</span>';
    uploaded.forEach(function (f) {
      html += '<button type="button" class="file-chip' + (f === lab.source ? ' current' : '') +
              '" data-file="' + esc(f.name) + '" title="CREATE VIRTUAL TABLE temp.file USING parquet(' +
              esc(sqlQuote(f.path)) + ')">' + esc(f.name) + ' <span class="size">' +
              esc(fmtSize(f.size)) + '</span></button>';
    });
    if (lab.source) html += '<span class="hint">the lab\'s query reads it as <code>file</code></span>';
    box.innerHTML = html;
  }

  function labUseFile(f) {
    lab.source = f;
    $('lab-query').value = LAB_FILE_QUERY;
    renderLabSource();
    runLab();
  }

  function labStatus(text, isError) {
    var s = $('lab-status');
    s.textContent = text;
    s.classList.toggle('bad', !!isError);
  }

  function runLab() {
    if (!M) return;
    if (running) { setTimeout(runLab, 50); return; }
    var query = $('lab-query').value.trim().replace(/;\s*$/, '');
    var text = labOptionsText();
    renderLabLevels();
    lab.query = query;
    lab.optionsText = text;
    try { lab.options = JSON.parse(text); } catch (e) { lab.options = null; }
    lab.setup = labSetupSql();
    lab.sql = lab.setup + 'SELECT * FROM parquet_lab(' + sqlQuote(query) + ',\n                          ' +
              sqlQuote(text) + ');';
    running = true;
    $('lab-run').disabled = true;
    $('run').disabled = true;
    document.body.classList.add('busy');
    labStatus('Running the lab\u2026');
    setTimeout(function () {
      var t0 = performance.now();
      var answer;
      try {
        var rc = M.ccall('pqweb_open', 'number', [], []);
        if (rc !== 0) throw new Error('cannot open a database (SQLite error ' + rc + ')');
        answer = execSql(lab.sql);
      } catch (e) {
        answer = {results: [], error: 'the module failed: ' + (e && e.message || e)};
      }
      var s = (performance.now() - t0) / 1000;
      var err = answerError(answer);
      var res = answer.results || [];
      var last = res[res.length - 1];
      try {
        if (err || !last || !last.columns) {
          lab.columns = [];
          lab.rows = [];
          $('lab-out').textContent = '';
          $('lab-out').appendChild(errorBlock(err || 'no result', lab.sql));
          labStatus('The lab failed.', true);
        } else {
          lab.columns = last.columns;
          lab.rows = last.rows || [];
          lab.order = lab.rows.map(function (r, i) { return i; });
          lab.sortCol = -1;
          lab.selected = null;
          renderLab(last.truncated);
          labStatus(plural(lab.rows.length, 'row') + ' in ' + s.toFixed(2) + ' s');
        }
        // (The detail box may be in the explain that goes: it is kept.)
        if ($('lab-explain').contains($('detail'))) parkDetail();
        $('lab-explain').textContent = '';
        labExplains = [];
      } catch (e) {
        $('lab-out').innerHTML = '<div class="error"><div class="msg">The page failed to show the lab: ' +
          esc(e && e.stack || e) + '</div></div>';
      }
      running = false;
      $('lab-run').disabled = false;
      $('run').disabled = false;
      document.body.classList.remove('busy');
      window.pqLabCount++;
      if (pending != null) {
        var next = pending;
        pending = null;
        run(next);
      }
    }, 20);
  }

  // ---- The lab's chart

  function niceStep(span, n) {
    var raw = span / n;
    var p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  function fmtTick(v) {
    if (v >= 1e6) return (v / 1e6) + 'M';
    if (v >= 1e3) return (v / 1e3) + 'k';
    return String(Math.round(v * 100) / 100);
  }

  function shapePath(kind, x, y, r) {
    var f = function (n) { return Math.round(n * 10) / 10; };
    switch (kind) {
      case 'square': return 'M' + f(x - r * 0.85) + ' ' + f(y - r * 0.85) + 'h' + f(r * 1.7) + 'v' + f(r * 1.7) + 'h' + f(-r * 1.7) + 'z';
      case 'diamond': return 'M' + f(x) + ' ' + f(y - r * 1.2) + 'L' + f(x + r * 1.2) + ' ' + f(y) + 'L' + f(x) + ' ' + f(y + r * 1.2) + 'L' + f(x - r * 1.2) + ' ' + f(y) + 'z';
      case 'up': return 'M' + f(x) + ' ' + f(y - r * 1.2) + 'L' + f(x + r * 1.1) + ' ' + f(y + r * 0.8) + 'L' + f(x - r * 1.1) + ' ' + f(y + r * 0.8) + 'z';
      case 'down': return 'M' + f(x) + ' ' + f(y + r * 1.2) + 'L' + f(x + r * 1.1) + ' ' + f(y - r * 0.8) + 'L' + f(x - r * 1.1) + ' ' + f(y - r * 0.8) + 'z';
      case 'plus': return 'M' + f(x - r * 0.4) + ' ' + f(y - r * 1.1) + 'h' + f(r * 0.8) + 'v' + f(r * 0.7) + 'h' + f(r * 0.7) + 'v' + f(r * 0.8) + 'h' + f(-r * 0.7) + 'v' + f(r * 0.7) + 'h' + f(-r * 0.8) + 'v' + f(-r * 0.7) + 'h' + f(-r * 0.7) + 'v' + f(-r * 0.8) + 'h' + f(r * 0.7) + 'z';
      case 'cross': return 'M' + f(x - r) + ' ' + f(y - r * 0.5) + 'L' + f(x - r * 0.5) + ' ' + f(y - r) + 'L' + f(x + r) + ' ' + f(y + r * 0.5) + 'L' + f(x + r * 0.5) + ' ' + f(y + r) + 'z' +
                          'M' + f(x + r * 0.5) + ' ' + f(y - r) + 'L' + f(x + r) + ' ' + f(y - r * 0.5) + 'L' + f(x - r * 0.5) + ' ' + f(y + r) + 'L' + f(x - r) + ' ' + f(y + r * 0.5) + 'z';
      case 'wide': return 'M' + f(x - r * 1.3) + ' ' + f(y - r * 0.55) + 'h' + f(r * 2.6) + 'v' + f(r * 1.1) + 'h' + f(-r * 2.6) + 'z';
      default: return 'M' + f(x - r) + ' ' + f(y) + 'a' + r + ' ' + r + ' 0 1 0 ' + f(2 * r) + ' 0a' + r + ' ' + r + ' 0 1 0 ' + f(-2 * r) + ' 0z';
    }
  }

  function labCodecKey(i) {
    var c = cellText(labValue(i, 'codec'));
    var l = labValue(i, 'level');
    return l === null || l === undefined ? c : c + ' ' + cellText(l);
  }

  function labShapeOf(codec) {
    var k = lab.codecs.indexOf(codec);
    if (k < 0) k = lab.codecs.length + 1;
    return LAB_SHAPES[k % LAB_SHAPES.length];
  }

  function labColourOf(enc) { return LAB_COLOURS[enc] || '#24292f'; }

  function labPanel(name, ids, hasSpeed) {
    var W = 372, H = 236, ML = 54, MR = 14, MT = 12, MB = 38;
    var pw = W - ML - MR, ph = H - MT - MB;
    var xs = ids.map(function (i) { return Math.max(1, labNum(labValue(i, 'bytes')) || 1); });
    var ys = ids.map(function (i) { return labNum(labValue(i, 'decode_mb_s')); });
    var lx = xs.map(function (v) { return Math.log(v) / Math.LN10; });
    var x0 = Math.min.apply(null, lx), x1 = Math.max.apply(null, lx);
    if (x1 - x0 < 0.3) { var mid = (x0 + x1) / 2; x0 = mid - 0.5; x1 = mid + 0.5; }
    var pad = (x1 - x0) * 0.06;
    x0 -= pad; x1 += pad;
    var yMax = 0;
    ys.forEach(function (v) { if (v !== null && v > yMax) yMax = v; });
    if (!(yMax > 0)) yMax = 1;
    var yStep = niceStep(yMax, 4);
    var yTop = Math.ceil(yMax * 1.05 / yStep) * yStep;
    function X(l) { return ML + (l - x0) / (x1 - x0) * pw; }
    function Y(v) { return MT + ph - v / yTop * ph; }
    var s = '<svg class="lab-svg" viewBox="0 0 ' + W + ' ' + H + '" width="' + W + '" height="' + H +
            '" role="img" aria-label="' + esc(name + ': bytes against decode MB/s') + '">';
    // Grid and ticks.
    var ticks = [];
    for (var e = Math.floor(x0); e <= Math.ceil(x1); e++) {
      [1, 2, 5].forEach(function (m) {
        var l = e + Math.log(m) / Math.LN10;
        if (l >= x0 && l <= x1) ticks.push({l: l, v: m * Math.pow(10, e), major: m === 1});
      });
    }
    if (ticks.filter(function (t) { return t.major; }).length >= 3) {
      ticks = ticks.filter(function (t) { return t.major; });
    }
    ticks.forEach(function (t) {
      var x = X(t.l).toFixed(1);
      s += '<line class="grid" x1="' + x + '" x2="' + x + '" y1="' + MT + '" y2="' + (MT + ph) + '"/>' +
           '<text class="tick" x="' + x + '" y="' + (MT + ph + 14) + '" text-anchor="middle">' +
           esc(fmtTick(t.v)) + '</text>';
    });
    if (hasSpeed) {
      for (var v = 0; v <= yTop + 1e-9; v += yStep) {
        var y = Y(v).toFixed(1);
        s += '<line class="grid" x1="' + ML + '" x2="' + (ML + pw) + '" y1="' + y + '" y2="' + y + '"/>' +
             '<text class="tick" x="' + (ML - 6) + '" y="' + (Number(y) + 4) + '" text-anchor="end">' +
             esc(fmtTick(v)) + '</text>';
      }
    } else {
      s += '<text class="tick" x="' + (ML + pw / 2) + '" y="' + (MT + 16) + '" text-anchor="middle">' +
           'no speeds: min_time is 0</text>';
    }
    s += '<rect class="frame" x="' + ML + '" y="' + MT + '" width="' + pw + '" height="' + ph + '"/>';
    s += '<text class="axis" x="' + (ML + pw / 2) + '" y="' + (H - 4) + '" text-anchor="middle">bytes (log scale)</text>';
    s += '<text class="axis" transform="translate(13 ' + (MT + ph / 2) + ') rotate(-90)" text-anchor="middle">' +
         'decode MB/s</text>';
    // The points, the biggest first so that small ones stay on top.
    ids.forEach(function (i, k) {
      var enc = cellText(labValue(i, 'encoding'));
      var codec = cellText(labValue(i, 'codec'));
      var px = X(lx[k]), py = hasSpeed && ys[k] !== null ? Y(ys[k]) : MT + ph / 2;
      var auto = labNum(labValue(i, 'auto')) === 1;
      var tip = enc + ' + ' + labCodecKey(i) + ': ' + fmtSize(xs[k]) +
                (ys[k] !== null ? ', decode ' + ys[k] + ' MB/s' : '') + (auto ? ' (auto picks it)' : '');
      s += '<path class="lab-pt' + (auto ? ' auto' : '') + '" data-i="' + i + '" tabindex="0" d="' +
           shapePath(labShapeOf(codec), px, py, 5) + '" fill="' + labColourOf(enc) + '"><title>' +
           esc(tip) + '</title></path>';
      var level = labValue(i, 'level');
      if (level !== null && level !== undefined) {
        s += '<text class="lab-lv" x="' + (px + 6).toFixed(1) + '" y="' + (py - 5).toFixed(1) + '" fill="' +
             labColourOf(enc) + '" aria-hidden="true">' + esc(cellText(level)) + '</text>';
      }
    });
    s += '</svg>';
    var type = cellText(labValue(ids[0], 'physical_type'));
    var logical = labValue(ids[0], 'logical_type');
    return '<figure class="lab-panel" data-column="' + esc(name) + '"><figcaption><b>' + esc(name) +
           '</b> <span class="hint">' + esc(type + (logical ? ' ' + cellText(logical) : '')) + ', ' +
           plural(ids.length, 'point') + '</span></figcaption>' + s + '</figure>';
  }

  function labLegend() {
    var encs = [], codecs = [];
    lab.rows.forEach(function (r, i) {
      var e = cellText(labValue(i, 'encoding')), c = cellText(labValue(i, 'codec'));
      if (encs.indexOf(e) < 0) encs.push(e);
      if (codecs.indexOf(c) < 0) codecs.push(c);
    });
    var h = '<div class="lab-legend">';
    encs.forEach(function (e) {
      h += '<span class="lg-enc"><svg width="12" height="12"><rect width="12" height="12" rx="2" fill="' +
           labColourOf(e) + '"/></svg>' + esc(e) + '</span>';
    });
    h += '<span class="sep" aria-hidden="true"></span>';
    codecs.forEach(function (c) {
      h += '<span class="lg-codec"><svg width="14" height="14"><path d="' + shapePath(labShapeOf(c), 7, 7, 5) +
           '" fill="#57606a"/></svg>' + esc(c) + '</span>';
    });
    h += '<span class="lg-auto"><svg width="14" height="14"><circle cx="7" cy="7" r="5" fill="#fff" ' +
         'stroke="#1f2328" stroke-width="2"/></svg>outlined: what "encoding":"auto" picks</span>';
    if (lab.rows.some(function (r, i) { var l = labValue(i, 'level'); return l !== null && l !== undefined; })) {
      h += '<span class="lg-level">a number beside a point: its level</span>';
    }
    h += '</div>';
    return h;
  }

  function renderLab(truncated) {
    var out = $('lab-out');
    var groups = [], byName = {};
    lab.rows.forEach(function (r, i) {
      var c = cellText(labValue(i, 'column'));
      if (!(c in byName)) { byName[c] = []; groups.push(c); }
      byName[c].push(i);
    });
    var hasSpeed = lab.rows.some(function (r, i) { return labNum(labValue(i, 'decode_mb_s')) !== null; });
    var h = '<pre class="stmt">' + esc(lab.sql) + '</pre>';
    if (!lab.rows.length) {
      h += '<p class="empty">No rows: the query has no column the lab measures (nested columns have none).</p>';
      out.innerHTML = h;
      return;
    }
    h += labLegend();
    h += '<div class="lab-chart" data-panels="' + groups.length + '">';
    groups.forEach(function (g) { h += labPanel(g, byName[g], hasSpeed); });
    h += '</div>';
    h += '<div class="table-wrap lab-table-wrap"><table class="lab-table"><thead><tr>';
    lab.columns.forEach(function (c, j) {
      h += '<th aria-sort="none"><button type="button" class="sort" data-col="' + j + '">' + esc(c) +
           '<span class="arrow" aria-hidden="true"></span></button></th>';
    });
    h += '</tr></thead><tbody></tbody></table></div>';
    var meta = plural(lab.rows.length, 'row') + ', ' + plural(groups.length, 'column') +
               ': click a header to sort, a row or a point to explain its first page';
    if (truncated) meta += '; the first ' + MAX_ROWS + ' rows only (choose fewer codecs or columns)';
    h += '<p class="meta' + (truncated ? ' truncated' : '') + '">' + esc(meta) + '</p>';
    out.innerHTML = h;
    renderLabRows();
  }

  function renderLabRows() {
    var tb = $('lab-out').querySelector('table.lab-table tbody');
    if (!tb) return;
    var h = '';
    lab.order.forEach(function (i) {
      var auto = labNum(labValue(i, 'auto')) === 1;
      h += '<tr data-i="' + i + '" class="' + (auto ? 'auto' : '') + (lab.selected === i ? ' sel' : '') + '">';
      lab.rows[i].forEach(function (v) { h += labCellHtml(v); });
      h += '</tr>';
    });
    tb.innerHTML = h;
    var ths = $('lab-out').querySelectorAll('table.lab-table th');
    for (var j = 0; j < ths.length; j++) {
      ths[j].setAttribute('aria-sort', j === lab.sortCol ? (lab.sortDir > 0 ? 'ascending' : 'descending') : 'none');
      ths[j].querySelector('.arrow').textContent = j === lab.sortCol ? (lab.sortDir > 0 ? ' \u25B2' : ' \u25BC') : '';
    }
  }

  // A cell of the lab's table: reals to 4 decimals (all their digits in
  // the title), the rest as the SQL page shows it.
  function labCellHtml(v) {
    if (v && typeof v === 'object' && 'real' in v) {
      var n = Number(v.real);
      if (isFinite(n) && Math.abs(n) < 1e15) {
        var t = String(Math.round(n * 10000) / 10000);
        return '<td class="num" title="' + esc(v.real) + '">' + esc(t) + '</td>';
      }
    }
    return cellHtml(v);
  }

  // Sorts by column j: numbers as numbers, text as text, NULL last; a
  // second click on the same header sorts the other way.
  function labSort(j) {
    if (lab.sortCol === j) lab.sortDir = -lab.sortDir;
    else { lab.sortCol = j; lab.sortDir = 1; }
    var dir = lab.sortDir;
    var numeric = lab.rows.every(function (r) { return r[j] === null || labNum(r[j]) !== null; });
    lab.order = lab.rows.map(function (r, i) { return i; });
    lab.order.sort(function (a, b) {
      var va = lab.rows[a][j], vb = lab.rows[b][j];
      if (va === null && vb === null) return a - b;
      if (va === null) return 1;
      if (vb === null) return -1;
      var c;
      if (numeric) c = labNum(va) - labNum(vb);
      else c = cellText(va) < cellText(vb) ? -1 : cellText(va) > cellText(vb) ? 1 : 0;
      return c ? c * dir : a - b;
    });
    renderLabRows();
  }

  // ---- A point's page, explained

  // The lab's options that are parquet_write's: all but its own keys.
  function labOwnOptions() {
    var o = {};
    var skip = {columns: 1, encodings: 1, codecs: 1, levels: 1, min_time: 1, sample: 1};
    Object.keys(lab.options || {}).forEach(function (k) { if (!skip[k]) o[k] = lab.options[k]; });
    return o;
  }

  // The rows the lab measured, as a query of column col: all of them, or
  // those of its "sample" (read from the options' text, as the lab reads
  // it: digits alone, the first N rows; with a point, every k-th row from
  // the first, k being 1/f rounded).
  function labColumnQuery(col) {
    var q = 'SELECT ' + quoteIdent(col) + ' FROM (' + lab.query + '\n)';
    var m = /"sample"\s*:\s*(-?[0-9.eE+-]+)/.exec(lab.optionsText || '');
    if (!m) return {sql: q, note: ''};
    var t = m[1];
    if (/^\d+$/.test(t)) return {sql: q + ' LIMIT ' + t, note: 'its first ' + t + ' rows'};
    var k = Math.floor(1 / Number(t) + 0.5);
    if (!(k > 1)) return {sql: q, note: ''};
    var n = quoteIdent('lab row number');
    return {
      sql: 'SELECT ' + quoteIdent(col) + ' FROM (SELECT ' + quoteIdent(col) + ', row_number() OVER () AS ' +
           n + '\n  FROM (' + lab.query + '\n)) WHERE (' + n + ' - 1) % ' + k + ' = 0',
      note: 'one row in ' + k + ', from the first'
    };
  }

  function labExplainSql(i) {
    var col = cellText(labValue(i, 'column'));
    var enc = cellText(labValue(i, 'encoding'));
    var codec = cellText(labValue(i, 'codec'));
    var level = labValue(i, 'level');
    var opts = labOwnOptions();
    var c = {encoding: enc, codec: codec};
    if (level !== null && level !== undefined) c.level = labNum(level);
    opts.columns = {};
    opts.columns[col] = c;
    var cq = labColumnQuery(col);
    var q = cq.sql;
    return lab.setup +
      '-- Column ' + col + (cq.note ? ' (' + cq.note + ')' : '') + ' written by parquet_write with ' +
      enc + ' and ' + codec + (level !== null && level !== undefined ? ' level ' + cellText(level) : '') + ',\n' +
      '-- as the lab wrote it: its first data page (and its dictionary page, if it has one),\n' +
      '-- header, levels and values, field by field.\n' +
      'WITH f(data) AS MATERIALIZED (\n' +
      '  SELECT parquet_write(NULL, ' + sqlQuote(q) + ',\n' +
      '                       ' + sqlQuote(JSON.stringify(opts)) + '))\n' +
      'SELECT p.page, e.offset, e.length, e.hex, e.bits, e.labels, e.path, e.value, e.note\n' +
      '  FROM f, parquet_pages(f.data) p,\n' +
      '       parquet_explain(substr(f.data, p.offset + 1, p.header_size + p.compressed_size),\n' +
      "                       'PAGE', p.type,\n" +
      "                       json_object('max_def', p.max_def, 'max_rep', p.max_rep,\n" +
      "                                   'codec', p.codec),\n" +
      '                       p.dictionary) e\n' +
      ' WHERE p.row_group = 0\n' +
      '   AND p.page <= (SELECT min(q.page) FROM f, parquet_pages(f.data) q\n' +
      "                   WHERE q.row_group = 0 AND q.page_type <> 'DICTIONARY_PAGE');\n";
  }

  function labMark(i) {
    lab.selected = i;
    var out = $('lab-out');
    Array.prototype.forEach.call(out.querySelectorAll('.lab-pt.sel, table.lab-table tr.sel'), function (e) {
      e.classList.remove('sel');
    });
    Array.prototype.forEach.call(out.querySelectorAll('.lab-pt[data-i="' + i + '"], table.lab-table tr[data-i="' + i + '"]'),
      function (e) { e.classList.add('sel'); });
  }

  function labExplain(i) {
    if (!M || !lab.rows[i]) return;
    if (running) { setTimeout(function () { labExplain(i); }, 50); return; }
    labMark(i);
    var sql = labExplainSql(i);
    running = true;
    document.body.classList.add('busy');
    labStatus('Explaining the page\u2026');
    setTimeout(function () {
      var answer;
      try {
        var rc = M.ccall('pqweb_open', 'number', [], []);
        if (rc !== 0) throw new Error('cannot open a database (SQLite error ' + rc + ')');
        answer = execSql(sql);
      } catch (e) {
        answer = {results: [], error: 'the module failed: ' + (e && e.message || e)};
      }
      try {
        parkDetail();
        labExplains = [];
        var box = $('lab-explain');
        box.textContent = '';
        var head = document.createElement('h3');
        head.className = 'lab-explain-title';
        head.textContent = cellText(labValue(i, 'column')) + ' as ' + cellText(labValue(i, 'encoding')) +
                           ' + ' + labCodecKey(i) + ': ' + fmtSize(labNum(labValue(i, 'bytes')) || 0) +
                           ' in ' + plural(labNum(labValue(i, 'pages')) || 0, 'page');
        box.appendChild(head);
        var shown = false;
        (answer.results || []).forEach(function (r, k) {
          if (!r.columns || !r.columns.length) { if (!r.error) return; }
          box.appendChild(renderResult(r, k, labExplains, 'L'));
          if (r.error) shown = true;
        });
        if (typeof answer.error === 'string' && !shown) box.appendChild(errorBlock(answer.error, sql));
        labExplains.forEach(wireExplain);
        if (labExplains.length) moveDetail(labExplains[0]);
        labStatus(plural(lab.rows.length, 'row') + '; explained: ' + head.textContent);
        head.scrollIntoView({block: 'start'});
      } catch (e) {
        $('lab-explain').innerHTML = '<div class="error"><div class="msg">The page failed to show the explain: ' +
          esc(e && e.stack || e) + '</div></div>';
      }
      running = false;
      document.body.classList.remove('busy');
      window.pqLabExplainCount++;
    }, 20);
  }

  function wireLab() {
    $('lab-query').value = LAB_QUERY;
    $('lab-run').addEventListener('click', runLab);
    $('lab-query').addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); runLab(); }
    });
    $('lab-out').addEventListener('click', function (e) {
      var b = e.target.closest('button.sort');
      if (b) { labSort(Number(b.getAttribute('data-col'))); return; }
      var pt = e.target.closest('.lab-pt');
      if (pt) { labExplain(Number(pt.getAttribute('data-i'))); return; }
      var tr = e.target.closest('table.lab-table tbody tr');
      if (tr && !e.target.closest('.clipped')) labExplain(Number(tr.getAttribute('data-i')));
    });
    $('lab-out').addEventListener('keydown', function (e) {
      var pt = e.target.closest && e.target.closest('.lab-pt');
      if (pt && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); labExplain(Number(pt.getAttribute('data-i'))); }
    });
    $('lab-codecs').addEventListener('change', renderLabLevels);
    $('lab-levels').addEventListener('input', renderLabLevels);
    $('lab-level-ranges').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-level]');
      if (b) labToggleLevel(Number(b.getAttribute('data-level')));
    });
    Array.prototype.forEach.call($('view-lab').querySelectorAll('.lab-options input'), function (inp) {
      inp.addEventListener('keydown', function (e) {
        if (e.key === 'Enter') { e.preventDefault(); runLab(); }
      });
    });
    $('lab-source').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-file]');
      if (!b) return;
      var f = fileByName(b.getAttribute('data-file'));
      if (f) labUseFile(f);
    });
    $('tab-sql').addEventListener('click', function () { showView('sql'); });
    $('tab-lab').addEventListener('click', function () { showView('lab'); });
  }

  function labShown() { return !$('view-lab').hidden; }

  function showView(name) {
    var isLab = name === 'lab';
    $('view-sql').hidden = isLab;
    $('view-lab').hidden = !isLab;
    $('tab-sql').setAttribute('aria-selected', String(!isLab));
    $('tab-lab').setAttribute('aria-selected', String(isLab));
    if (isLab) renderLabSource();
  }

  // ---- The page -------------------------------------------------------------

  function exampleLabel(ex) {
    var m = /^(\d+)_/.exec(ex.name);
    var title = String(ex.title || ex.name).replace(/\.\s*$/, '');
    title = title.charAt(0).toUpperCase() + title.slice(1);
    return {num: m ? m[1] : (ex.name === 'demo' ? 'Demo' : ex.name), title: title};
  }

  function renderExamples() {
    var list = window.PQ_EXAMPLES || [];
    var nav = $('examples');
    var html = '';
    list.forEach(function (ex) {
      var l = exampleLabel(ex);
      html += '<button type="button" class="example" data-name="' + esc(ex.name) + '" title="' +
              esc(ex.name + '.sql') + '"><span class="ex-num">' + esc(l.num) + '</span>' +
              '<span class="ex-title">' + esc(l.title) + '</span></button>';
    });
    if (!list.length) html = '<p class="hint">No examples: examples.js did not load.</p>';
    nav.innerHTML = html;
    nav.addEventListener('click', function (e) {
      var b = e.target.closest('button[data-name]');
      if (!b || !M) return;
      var name = b.getAttribute('data-name');
      for (var i = 0; i < list.length; i++) {
        if (list[i].name === name) { loadAndRun(list[i].sql, name); return; }
      }
    });
  }

  var STARTER =
    "-- Pick an example above, open a .parquet file, or write SQL here and press Ctrl+Enter.\n" +
    "-- The spec's DELTA_BINARY_PACKED example 2 (7 5 3 1 2 3 4 5), field by field:\n" +
    "SELECT offset, length, hex, bits, labels, path, value, note\n" +
    "  FROM parquet_explain(X'0801080E0302C03F', 'DELTA_BINARY_PACKED');\n";

  function wirePage() {
    var ta = $('sql');
    ta.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        run(ta.value);
      }
    });
    ta.addEventListener('input', function () {
      if (activeExample) { activeExample = null; markExample(); }
      if (ta.scrollHeight > ta.clientHeight && ta.clientHeight < 440) fitEditor();
    });
    $('run').addEventListener('click', function () { run(ta.value); });
    $('file').addEventListener('change', function () {
      var input = $('file');
      openFiles(input.files);
      input.value = '';
    });
    $('url-form').addEventListener('submit', function (e) {
      e.preventDefault();
      openUrl($('url').value);
    });
    $('files').addEventListener('click', function (e) {
      var b = e.target.closest('button');
      if (!b || !M) return;
      var f = fileByName(b.getAttribute('data-file'));
      if (!f) return;
      if (b.id === 'explain-file') loadAndRun(explainFileSql(f), null);
      else showFile(f);
    });
    window.addEventListener('hashchange', function () {
      if (location.hash === hashWritten) return;
      var sql = sqlFromHash();
      if (sql != null && M) { activeExample = null; markExample(); ta.value = sql; fitEditor(); run(sql); }
    });

    // Dropping files anywhere on the page.
    var depth = 0;
    function hasFiles(e) {
      var t = e.dataTransfer && e.dataTransfer.types;
      return !!t && Array.prototype.indexOf.call(t, 'Files') >= 0;
    }
    document.addEventListener('dragenter', function (e) {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth++;
      $('drop').hidden = false;
    });
    document.addEventListener('dragover', function (e) {
      if (!hasFiles(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    });
    document.addEventListener('dragleave', function (e) {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (!depth) $('drop').hidden = true;
    });
    document.addEventListener('drop', function (e) {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      $('drop').hidden = true;
      openFiles(e.dataTransfer.files);
    });
  }

  function start() {
    renderExamples();
    wirePage();
    wireResults($('results'));
    wireResults($('lab-explain'));
    wireLab();
    var fromHash = sqlFromHash();
    $('sql').value = fromHash != null ? fromHash : STARTER;
    fitEditor();
    if (typeof window.createPqweb !== 'function') {
      setStatus('pqweb.js did not load: the page needs it beside index.html.', true);
      return;
    }
    window.createPqweb({
      print: function () {},
      printErr: function (t) { if (window.console) console.warn(t); }
    }).then(function (mod) {
      M = mod;
      var rc = M.ccall('pqweb_open', 'number', [], []);
      var sqliteVersion = M.ccall('pqweb_version', 'string', [], []);
      var ext = '?';
      try {
        var a = execSql('SELECT parquet_version();');
        ext = cellText(a.results[0].rows[0][0]);
      } catch (e) { /* shown as "?" */ }
      $('versions').innerHTML = 'SQLite <b>' + esc(sqliteVersion) + '</b> \u00b7 Parquet extension <b>' +
                                esc(ext) + '</b> \u00b7 WebAssembly';
      $('run').disabled = false;
      $('lab-run').disabled = false;
      $('file').disabled = false;
      $('url').disabled = false;
      $('url-open').disabled = false;
      renderLabCodecs();
      document.body.classList.add('ready');
      setStatus(rc === 0 ? 'Ready.' : 'SQLite did not open (' + rc + ').', rc !== 0);
      window.pqReady = true;
      run($('sql').value);
    }, function (e) {
      setStatus('The WebAssembly module failed to load: ' + (e && e.message || e), true);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
