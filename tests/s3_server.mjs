// s3_server.mjs S3RVER_DIR DATA_DIR -- the S3 server of tests/remote.test:
// s3rver (npm, pinned: tools/npm_cache.sh s3rver 3.7.1), on loopback, on a
// port the system chooses (the first line printed), with one bucket,
// `bkt`, kept in DATA_DIR.  It checks SigV4 signatures against its one
// account (key id S3RVER, secret S3RVER) and lets unsigned requests in.
// It ends when its standard input closes.
//
// Added in front of s3rver, which has no AbortMultipartUpload: that
// request (DELETE of a key with ?uploadId=ID), which removes the upload's
// folder of parts from s3rver's store (GET /__aborts: how many so far);
// and faults, by the key's first
// segments: fault/part2-403/... refuses part 2 of an upload (403
// AccessDenied), fault/part2-503once/... answers 503 (SlowDown) to the
// first try of part 2 of each upload.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [dir, data] = process.argv.slice(2);
const require = createRequire(path.join(dir, 'node_modules', 'x.js'));
const S3rver = require('s3rver');
const server = new S3rver({
  port: 0,
  address: '127.0.0.1',
  silent: true,
  directory: data,
  configureBuckets: [{ name: 'bkt' }],
});

// (the request's body read first: a connection closed under a body still
// being sent would be a reset, not the answer)
async function s3Error(ctx, status, code) {
  for await (const chunk of ctx.req) void chunk;
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code></Error>`;
}
const uploads = path.join(data, 'bkt', '._S3rver_uploads');
const refusedOnce = new Set();
let aborts = 0;
server.middleware.unshift(async (ctx, next) => {
  if (ctx.method === 'GET' && ctx.path === '/__aborts') {
    ctx.body = String(aborts);
    return;
  }
  const id = ctx.query.uploadId;
  const key = ctx.path.startsWith('/bkt/') ? ctx.path.slice(5) : '';
  if (ctx.method === 'DELETE' && typeof id === 'string' && key) {
    const dir = path.join(uploads, id);
    if (!/^[0-9a-f]+$/.test(id) || !fs.existsSync(dir)) return s3Error(ctx, 404, 'NoSuchUpload');
    fs.rmSync(dir, { recursive: true, force: true });
    aborts++;
    ctx.status = 204;
    return;
  }
  if (ctx.method === 'PUT' && typeof id === 'string' && ctx.query.partNumber === '2') {
    if (key.startsWith('fault/part2-403/')) return s3Error(ctx, 403, 'AccessDenied');
    if (key.startsWith('fault/part2-503once/') && !refusedOnce.has(id)) {
      refusedOnce.add(id);
      return s3Error(ctx, 503, 'SlowDown');
    }
  }
  await next();
});
const info = await server.run();
console.log(info.port);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
