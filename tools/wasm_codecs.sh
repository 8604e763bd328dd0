#!/bin/sh
# wasm_codecs.sh OUT CODEC... -- builds the codecs' libraries for the
# WebAssembly build with emscripten, from the sources tools/codec_src.sh
# fetches: OUT/lib<codec>.a for each of snappy, zlib, zstd, lz4, brotli
# named, and OUT/include.flags, the -I flags of their headers.
set -e
out=$1
shift
here=$(dirname "$0")
sh "$here/codec_src.sh"
src=$(sh "$here/codec_src.sh" --dir)
# Debian's emscripten finds its node modules there.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
EMCC=emcc
EMXX=em++
FLAGS="-Os -DNDEBUG"
mkdir -p "$out"
: > "$out/include.flags.new"
for codec in "$@"; do
  case $codec in
    zlib)
      dir=$src/zlib-1.2.13.dfsg
      files="adler32 compress crc32 deflate infback inffast inflate inftrees trees uncompr zutil"
      files=$(for f in $files; do echo "$dir/$f.c"; done)
      inc="-I$dir" cc=$EMCC defs="" ;;
    zstd)
      dir=$src/zstd-1.5.4/lib
      files=$(ls "$dir"/common/*.c "$dir"/compress/*.c "$dir"/decompress/*.c)
      inc="-I$dir" cc=$EMCC defs="-DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0" ;;
    lz4)
      dir=$src/lz4-1.9.4/lib
      files="$dir/lz4.c"
      inc="-I$dir" cc=$EMCC defs="" ;;
    snappy)
      dir=$src/snappy-1.1.9
      files="$dir/snappy.cc $dir/snappy-c.cc $dir/snappy-sinksource.cc $dir/snappy-stubs-internal.cc"
      inc="-I$dir" cc=$EMXX
      defs="-std=c++11 -DHAVE_BUILTIN_EXPECT=1 -DHAVE_BUILTIN_CTZ=1 -DHAVE_ATTRIBUTE_ALWAYS_INLINE=1" ;;
    brotli)
      dir=$src/brotli-1.0.9/c
      files=$(ls "$dir"/common/*.c "$dir"/dec/*.c "$dir"/enc/*.c)
      inc="-I$dir/include" cc=$EMCC defs="" ;;
    *) echo "wasm_codecs.sh: unknown codec library '$codec'" >&2; exit 1 ;;
  esac
  echo "$inc" >> "$out/include.flags.new"
  [ -f "$out/lib$codec.a" ] && continue
  echo "building $codec for WebAssembly"
  rm -rf "$out/$codec" && mkdir -p "$out/$codec"
  for f in $files; do
    $cc $FLAGS $defs $inc -c "$f" -o "$out/$codec/$(basename "$f").o"
  done
  rm -f "$out/lib$codec.a"
  emar rcs "$out/lib$codec.a" "$out/$codec"/*.o
done
tr '\n' ' ' < "$out/include.flags.new" > "$out/include.flags"
rm "$out/include.flags.new"
