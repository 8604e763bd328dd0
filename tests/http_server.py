#!/usr/bin/env python3
"""http_server.py NAME=DIR... -- the loopback HTTP server of tests/remote.test.

Serves the files under each DIR at http://127.0.0.1:PORT/NAME/<path>
(PORT, chosen by the system, is the first line it prints; a file reached
through a link out of DIR is not served), HTTP/1.1 with keep-alive,
answering single byte ranges (bytes=a-b, bytes=a-, bytes=-n) with 206 and
Content-Range, 416 when none of it is in the file; several (bytes=a-b,c-d)
with 206 and a multipart/byteranges body, a part a range; a strong ETag (of the
file's size, inode and modification time) and Last-Modified; If-Match and
If-Unmodified-Since (412 when they fail); If-None-Match (304 when it is the
file's ETag).

It counts what it serves, so that the tests can assert what a query
fetches:
  GET /__stats    {"requests": N, "bytes": N, "ranges": [[first, last], ...]}
  GET /__reset    zeroes the counts (and the faults' counters)
(neither is counted).

Faults, by a path prefix /__fault/<kind>/<path>:
  500once   the first request for the path is a 500, the next ones served
  500odd    every other request for the path is a 500 (the 2nd, the 4th, ...)
  500       every request is a 500
  reset1    the first response is cut in the middle of its body (the
            connection closed), the next ones served
  reset     every response is cut so
  short     the body is shorter than its Content-Length, every time
  badrange  Content-Range names the range one byte later than the body
  long      the body is one byte longer than the range asked for
  etag      every response has another ETag (the object changes)
  slow      the response waits 3 s before its headers
  norange   ranges are ignored: the whole file, 200
  nomulti   a request of several ranges gets the whole file, 200
  merge     a request of several ranges gets one range from the first
            byte asked to the last, 206 (as RFC 9110 lets a server do)
  badpart   a multipart body whose second part names the range one byte
            later than its bytes
(A request of several ranges is counted once, its parts' bytes summed,
each part's range listed.)
"""
import email.utils
import http.server
import json
import os
import re
import socketserver
import sys
import threading
import time

MOUNTS = dict((a.split("=", 1)[0], os.path.realpath(a.split("=", 1)[1]))
              for a in sys.argv[1:])
LOCK = threading.Lock()
STATS = {"requests": 0, "bytes": 0, "ranges": []}
SEEN = {}  # (kind, path) -> requests so far


def note(first, last, n, more=()):
    with LOCK:
        STATS["requests"] += 1
        STATS["bytes"] += n
        STATS["ranges"].append([first, last])
        for a, z in more:  # a multipart answer's other parts
            STATS["bytes"] += z - a + 1
            STATS["ranges"].append([a, z])


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body written apart: no 40 ms waits

    def log_message(self, fmt, *args):
        pass

    def plain(self, code, text, extra=None):
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/__stats":
            with LOCK:
                self.plain(200, json.dumps(STATS))
            return
        if path == "/__reset":
            with LOCK:
                STATS.update(requests=0, bytes=0, ranges=[])
                SEEN.clear()
            self.plain(200, "ok")
            return
        kind = None
        m = re.match(r"^/__fault/([a-z0-9]+)(/.*)$", path)
        if m:
            kind, path = m.group(1), m.group(2)
        with LOCK:
            seen = SEEN.get((kind, path), 0)
            SEEN[(kind, path)] = seen + 1
        name, _, rest = path.lstrip("/").partition("/")
        root = MOUNTS.get(name)
        full = os.path.realpath(os.path.join(root or "/", rest))
        if (root is None or not full.startswith(root + os.sep)
                or not os.path.isfile(full)):
            note(-1, -1, 0)
            self.plain(404, "not found")
            return
        if kind == "slow":
            time.sleep(3)
        if (kind == "500" or (kind == "500once" and seen == 0)
                or (kind == "500odd" and seen % 2 == 1)):
            note(-1, -1, 0)
            self.plain(500, "injected failure")
            return
        st = os.stat(full)
        etag = '"%x-%x-%x"' % (st.st_size, st.st_ino, st.st_mtime_ns)
        if kind == "etag":
            etag = '"changed-%d"' % seen
        modified = email.utils.formatdate(st.st_mtime, usegmt=True)
        want = self.headers.get("If-Match")
        if want is not None and want.strip() != etag:
            note(-1, -1, 0)
            self.plain(412, "precondition failed")
            return
        since = self.headers.get("If-Unmodified-Since")
        if since is not None and since.strip() != modified:
            note(-1, -1, 0)
            self.plain(412, "precondition failed")
            return
        none = self.headers.get("If-None-Match")
        if none is not None and none.strip() == etag and kind != "etag":
            note(-1, -1, 0)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", modified)
            self.end_headers()
            return
        size = st.st_size
        first, last, code = 0, size - 1, 200
        rng = self.headers.get("Range")
        if rng and "," in rng and kind != "norange":
            if self.multi(full, rng, size, kind, etag, modified):
                return
            rng = None  # nomulti: the whole file
        if rng and kind != "norange":
            m = re.match(r"^bytes=(\d*)-(\d*)$", rng.strip())
            if not m or (m.group(1) == "" and m.group(2) == ""):
                self.plain(400, "bad range")
                return
            if m.group(1) == "":
                n = int(m.group(2))
                first, last = max(0, size - n), size - 1
            else:
                first = int(m.group(1))
                last = int(m.group(2)) if m.group(2) else size - 1
                last = min(last, size - 1)
            if first >= size or last < first:
                note(-1, -1, 0)
                self.plain(416, "range not satisfiable",
                           {"Content-Range": "bytes */%d" % size})
                return
            code = 206
        with open(full, "rb") as f:
            f.seek(first)
            body = f.read(last - first + 1)
        if kind == "long":
            body += b"X"
        self.send_response(code)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", modified)
        self.send_header("Accept-Ranges", "bytes")
        if code == 206:
            shift = 1 if kind == "badrange" else 0
            self.send_header("Content-Range", "bytes %d-%d/%d" %
                             (first + shift, last + shift, size))
        cut = kind == "reset" or (kind == "reset1" and seen == 0)
        if kind == "short":
            self.send_header("Content-Length", str(len(body) + 10))
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        # counted before it is sent: a client that has the bytes may ask for
        # the counts at once
        if cut:
            note(first, last, len(body) // 2)
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        note(first, last, len(body))
        self.wfile.write(body)
        if kind == "short":
            self.close_connection = True


    def multi(self, full, rng, size, kind, etag, modified):
        """Several ranges: True when answered (False: nomulti)."""
        spans = []
        for spec in rng.strip()[len("bytes="):].split(","):
            m = re.match(r"^\s*(\d+)-(\d+)\s*$", spec)
            if not rng.strip().startswith("bytes=") or not m:
                self.plain(400, "bad range")
                return True
            a, z = int(m.group(1)), min(int(m.group(2)), size - 1)
            if a < size and a <= z:
                spans.append((a, z))
        if kind == "nomulti":
            return False
        if not spans:
            note(-1, -1, 0)
            self.plain(416, "range not satisfiable",
                       {"Content-Range": "bytes */%d" % size})
            return True
        if kind == "merge":
            spans = [(min(a for a, _ in spans), max(z for _, z in spans))]
        with open(full, "rb") as f:
            parts = []
            for a, z in spans:
                f.seek(a)
                parts.append(f.read(z - a + 1))
        self.send_response(206)
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", modified)
        self.send_header("Accept-Ranges", "bytes")
        if len(spans) == 1:
            body = parts[0]
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Range", "bytes %d-%d/%d" %
                             (spans[0][0], spans[0][1], size))
        else:
            bd = "PQ_bound%d" % len(spans)
            body = b"a preamble\r\n"
            for i, ((a, z), data) in enumerate(zip(spans, parts)):
                shift = 1 if kind == "badpart" and i == 1 else 0
                body += (("--%s\r\nContent-Type: application/octet-stream\r\n"
                          "Content-Range: bytes %d-%d/%d\r\n\r\n") %
                         (bd, a + shift, z + shift, size)).encode()
                body += data + b"\r\n"
            body += ("--%s--\r\n" % bd).encode()
            self.send_header("Content-Type",
                             "multipart/byteranges; boundary=%s" % bd)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        note(spans[0][0], spans[0][1], len(parts[0]), spans[1:])
        self.wfile.write(body)
        return True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up (a timeout, a body cut short) is fine


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    print(srv.server_address[1], flush=True)
    # ends when the test closes its end of stdin
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
