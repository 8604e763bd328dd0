// s3_server.mjs S3RVER_DIR DATA_DIR -- the S3 server of tests/remote.test:
// s3rver (npm, pinned: tools/npm_cache.sh s3rver 3.7.1), on loopback, on a
// port the system chooses (the first line printed), with one bucket,
// `bkt`, kept in DATA_DIR.  It checks SigV4 signatures against its one
// account (key id S3RVER, secret S3RVER) and lets unsigned requests in.
// It ends when its standard input closes.
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
const info = await server.run();
console.log(info.port);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
