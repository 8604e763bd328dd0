#!/bin/sh
# codec_src.sh [--dir] -- the sources of the codecs' libraries for the
# WebAssembly build: the upstream tarballs of Debian 12's source packages
# (the versions the native build links), from Debian's archive, pinned by
# checksum, unpacked once into a cache folder outside the repository;
# --dir prints that folder.  PQ_NPM_CACHE overrides the cache's root.
ROOT=${PQ_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet-sqlite}
DIR=$ROOT/codecs-src-deb12
POOL=${PQ_DEBIAN_POOL:-http://deb.debian.org/debian/pool/main}
if [ "$1" = --dir ]; then
  echo "$DIR"
  exit 0
fi
[ -f "$DIR/done" ] && exit 0
# path in the pool, sha256, the folder it unpacks to
set -- \
  z/zlib/zlib_1.2.13.dfsg.orig.tar.bz2 71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1 zlib-1.2.13.dfsg \
  libz/libzstd/libzstd_1.5.4+dfsg2.orig.tar.xz 8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953 zstd-1.5.4 \
  l/lz4/lz4_1.9.4.orig.tar.gz 0b0e3aa07c8c063ddf40b082bdf7e37a1562bda40a0ff5272957f3e987e0e54b lz4-1.9.4 \
  s/snappy/snappy_1.1.9.orig.tar.gz 75c1fbb3d618dd3a0483bff0e26d0a92b495bbe5059c8b4f1c962b478b6e06e7 snappy-1.1.9 \
  b/brotli/brotli_1.0.9.orig.tar.gz f9e8d81d0405ba66d181529af42a3354f838c939095ff99930da6aa9cdf6fe46 brotli-1.0.9
command -v curl >/dev/null 2>&1 || sh "$(dirname "$0")/deps.sh" curl ca-certificates || exit 1
rm -rf "$DIR" && mkdir -p "$DIR" || exit 1
while [ $# -gt 0 ]; do
  file=$(basename "$1")
  echo "fetching $file into $DIR"
  curl -fsS -o "$DIR/$file" "$POOL/$1" || { rm -rf "$DIR"; exit 1; }
  got=$(sha256sum "$DIR/$file" | cut -d' ' -f1)
  if [ "$got" != "$2" ]; then
    echo "codec_src.sh: $file: checksum $got, expected $2" >&2
    rm -rf "$DIR"
    exit 1
  fi
  tar --no-same-owner -xf "$DIR/$file" -C "$DIR" && rm "$DIR/$file" &&
    [ -d "$DIR/$3" ] || { rm -rf "$DIR"; exit 1; }
  shift 3
done
# snappy's public header is made by its CMake build from a template: the
# same substitutions here (sys/uio.h is present; version 1.1.9).
sed -e 's/\${HAVE_SYS_UIO_H_01}/1/' -e 's/\${PROJECT_VERSION_MAJOR}/1/' \
    -e 's/\${PROJECT_VERSION_MINOR}/1/' -e 's/\${PROJECT_VERSION_PATCH}/9/' \
    "$DIR/snappy-1.1.9/snappy-stubs-public.h.in" > "$DIR/snappy-1.1.9/snappy-stubs-public.h" &&
  touch "$DIR/done"
