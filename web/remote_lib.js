// remote_lib.js -- the playground's requests for ext/remote.c (its
// __EMSCRIPTEN__ part): a range of a URL fetched by a synchronous
// XMLHttpRequest, linked into the module with --js-library.  It fetches and
// copies; every check of what came back is remote.c's.
//
// A page's synchronous request cannot ask for an ArrayBuffer, so the body is
// read as text decoded as x-user-defined (one character per byte; & 0xff
// gives it back).  Each request is counted in Module.pqwebHttp: {requests,
// bytes, log: [{url, range, status, bytes}]}, which the page shows and
// clears at each run.
mergeInto(LibraryManager.library, {
  pqx_js_range: function (url, at, n, suffix, skip, dst, cap, gotp, meta) {
    if (typeof XMLHttpRequest === 'undefined') return -1;
    var u = UTF8ToString(url);
    var range = suffix ? 'bytes=-' + n : 'bytes=' + at + '-' + (at + n - 1);
    var stats = Module['pqwebHttp'];
    if (!stats) stats = Module['pqwebHttp'] = {requests: 0, bytes: 0, log: []};
    var entry = {url: u, range: range.slice(6), status: 0, bytes: 0};
    stats.requests++;
    if (stats.log.length < 200) stats.log.push(entry);
    var x = new XMLHttpRequest();
    var status = 0;
    var body = '';
    try {
      x.open('GET', u, false);
      x.overrideMimeType('text/plain; charset=x-user-defined');
      x.setRequestHeader('Range', range);
      x.send();
      status = x.status;
      body = x.responseText || '';
    } catch (e) {
      status = 0;
    }
    entry.status = status;
    entry.bytes = body.length;
    stats.bytes += body.length;
    var k = Math.max(0, Math.min(body.length - skip, cap));
    for (var i = 0; i < k; i++) HEAPU8[dst + i] = body.charCodeAt(skip + i) & 0xff;
    HEAPF64[gotp >> 3] = body.length;
    // The headers the page may read (getAllResponseHeaders lists those a
    // cross-origin server exposes, without the console's complaints).
    var seen = {};
    (status ? x.getAllResponseHeaders() || '' : '').split('\r\n').forEach(function (line) {
      var c = line.indexOf(':');
      if (c > 0) seen[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
    });
    var names = ['content-range', 'etag', 'last-modified'];
    for (var h = 0; h < 3; h++) {
      var v = seen[names[h]] || '';
      var p = meta + h * 256;
      var m = Math.min(v.length, 255);
      for (var j = 0; j < m; j++) HEAPU8[p + j] = v.charCodeAt(j) & 0xff;
      HEAPU8[p + m] = 0;
    }
    return status;
  },
  pqx_js_wait: function (ms) {
    var end = Date.now() + ms;
    while (Date.now() < end) { /* a synchronous pause: the run is synchronous */ }
  },
});
