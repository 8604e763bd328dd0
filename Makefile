# Parquet encodings for SQLite.
#
#   make             the extension (./parquet.so) and the core library
#   make demo        runs sql/demo.sql in the sqlite3 shell
#   make test        C unit tests of the core, the Tcl tests of the SQL, and
#                    files read by DuckDB (installed from npm into a cache)
#   make test-asan   the same, built with -fsanitize=address,undefined
#   make test-valgrind  the Tcl suite and SQL scripts under valgrind memcheck
#   make test-tsan   tests/threads.c, the extension on 8 threads at once,
#                    files at URLs included (tests/tsan_run.sh), built
#                    with -fsanitize=thread: no data race
#   make test-oom    tests/oom.c, every statement of its list with its Nth
#                    allocation failing, for each N, built as test-asan
#   make bench       the benchmark: the core, DuckDB and SQLite side by side;
#                    writes bench/RESULTS.md (BENCH_ARGS="--quick" for a
#                    short run, "--only DELTA" for some cases)
#   make bench-lab   the encoding lab's benchmark alone (bench/lab.c)
#   make fuzz        builds the libFuzzer targets (clang) and runs each for
#                    FUZZ_TIME seconds (or FUZZ_RUNS executions)
#   make gen         regenerates src/encodings/bitpack_gen.h
#   make wasm        the playground: SQLite and the extension in WebAssembly,
#                    a static page in build/web/ (doc/playground.md)
#   make test-wasm   the playground against the native build, under node,
#                    and its page in headless Chromium
#   make WITHOUT="snappy zstd"   leaves codec libraries out (any of snappy,
#                    zlib, zstd, lz4, brotli); their codecs then fail with
#                    an error that says so
#
# Missing Debian packages are installed with apt-get when run as root;
# otherwise the exact apt-get line is printed.

CC      ?= cc
CFLAGS  ?= -O2 -g
# -ffp-contract=off: arithmetic as written, no fused multiply-adds (ALP's
# values must come out bit for bit as its spec computes them).
WARN    = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -ffp-contract=off
PIC     = -fPIC -fvisibility=hidden
BUILD   ?= build
SAN     =
EXT     = parquet.so

CORE_SRC = $(sort $(wildcard src/*/*.c))
EXT_SRC  = $(sort $(wildcard ext/*.c))
CORE_OBJ = $(CORE_SRC:src/%.c=$(BUILD)/core/%.o)
EXT_OBJ  = $(EXT_SRC:ext/%.c=$(BUILD)/ext/%.o)
HEADERS  = $(wildcard src/*.h src/*/*.h) $(wildcard ext/*.h)

# The codecs' libraries, each optional (WITHOUT=...): its Debian package,
# its link flags, and the macro that leaves it out of src/format/codec.c.
CODECS      = snappy zlib zstd lz4 brotli
DEB_snappy  = libsnappy-dev
DEB_zlib    = zlib1g-dev
DEB_zstd    = libzstd-dev
DEB_lz4     = liblz4-dev
DEB_brotli  = libbrotli-dev
LIB_snappy  = -lsnappy
LIB_zlib    = -lz
LIB_zstd    = -lzstd
LIB_lz4     = -llz4
LIB_brotli  = -lbrotlienc -lbrotlidec
NO_snappy   = -DPQ_NO_SNAPPY
NO_zlib     = -DPQ_NO_ZLIB
NO_zstd     = -DPQ_NO_ZSTD
NO_lz4      = -DPQ_NO_LZ4
NO_brotli   = -DPQ_NO_BROTLI
WITHOUT    ?=
ifneq ($(filter-out $(CODECS) curl,$(WITHOUT)),)
$(error WITHOUT: unknown library '$(filter-out $(CODECS) curl,$(WITHOUT))' (one of: $(CODECS) curl))
endif
WITH        = $(filter-out $(WITHOUT),$(CODECS))
CODEC_DEFS  = $(foreach c,$(sort $(filter-out curl,$(WITHOUT))),$(NO_$(c)))
CODEC_LIBS  = $(foreach c,$(WITH),$(LIB_$(c)))
# libcurl, for http:// and https:// sources (ext/remote.c, doc/remote.md):
# the extension's alone, optional like the codecs (WITHOUT=curl).
ifeq ($(filter curl,$(WITHOUT)),)
CURL_DEFS  = -DPQX_HAVE_CURL
CURL_LIBS  = -lcurl
CURL_DEB   = libcurl4-openssl-dev
endif

BUILD_DEPS = libsqlite3-dev $(foreach c,$(WITH),$(DEB_$(c))) $(CURL_DEB)
TEST_DEPS  = sqlite3 tcl libsqlite3-tcl pkg-config strace

.PHONY: bench-against bench-lab bench-remote wasm test-wasm wasm-deps all deps test-deps interop-deps clients-deps fuzz-deps tsan-deps demo test test-asan test-tsan test-oom test-valgrind bench fuzz fuzz-build gen install uninstall dist clean FORCE

all: deps $(BUILD)/$(EXT) $(BUILD)/libpqcore.a $(if $(SAN),,$(EXT))

deps:
	@sh tools/deps.sh $(BUILD_DEPS)

test-deps:
	@sh tools/deps.sh $(BUILD_DEPS) $(TEST_DEPS)

# The other readers of the interop tests, from npm, pinned, once, into a
# cache folder outside the repository (tools/npm_cache.sh): DuckDB
# (@duckdb/node-api), arrow-rs (parquet-wasm) and hyparquet; and s3rver,
# the S3 server of tests/remote.test.
interop-deps:
	@sh tools/duckdb.sh
	@sh tools/parquet_wasm.sh
	@sh tools/hyparquet.sh
	@sh tools/npm_cache.sh s3rver 3.7.1

# The clients of tests/clients.test (doc/clients.md) besides the sqlite3
# shell and Tcl: Debian's python3 with APSW, sqlite-utils, and Node's
# better-sqlite3, from npm, pinned, its addon built from source into a
# cache folder outside the repository (tools/better_sqlite3.sh --dir).
CLIENT_DEPS = python3 python3-apsw sqlite-utils
clients-deps:
	@sh tools/deps.sh $(CLIENT_DEPS)
	@sh tools/better_sqlite3.sh

$(BUILD)/core/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(PIC) $(CODEC_DEFS) -c $< -o $@

# codec.c and crc32.c (zlib's CRC) are rebuilt when WITHOUT changes: the
# stamp holds the last value and is rewritten only when it differs.
$(BUILD)/core/format/codec.o $(BUILD)/core/format/crc32.o: $(BUILD)/without
$(BUILD)/without: FORCE
	@mkdir -p $(dir $@)
	@echo '$(sort $(WITHOUT))' | cmp -s - $@ || echo '$(sort $(WITHOUT))' > $@

$(BUILD)/ext/%.o: ext/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(PIC) $(CURL_DEFS) -c $< -o $@

# remote.c is rebuilt when WITHOUT changes (curl in it or not).
$(BUILD)/ext/remote.o: $(BUILD)/without

$(BUILD)/libpqcore.a: $(CORE_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/$(EXT): $(EXT_OBJ) $(BUILD)/libpqcore.a
	$(CC) $(CFLAGS) $(SAN) -shared -o $@ $(EXT_OBJ) $(BUILD)/libpqcore.a -lm $(CODEC_LIBS) $(CURL_LIBS)

# The extension at the top, so that `.load ./parquet` finds it: always the
# one of this BUILD and WITHOUT, even when another build's copy is newer.
$(EXT): $(BUILD)/$(EXT) FORCE
	@cmp -s $< $@ || { echo "cp $< $@"; cp $< $@; }

# The C unit tests: one program per tests/unit*.c.
UNITS = $(patsubst tests/%.c,%,$(wildcard tests/unit*.c))
$(UNITS:%=$(BUILD)/%): $(BUILD)/%: tests/%.c tests/check.h tests/footer.h $(BUILD)/libpqcore.a $(HEADERS)
	$(CC) $(CFLAGS) $(SAN) $(WARN) -Isrc -o $@ $< $(BUILD)/libpqcore.a -lm $(CODEC_LIBS)

# tests/mutate.c: copies of a file whose metadata lies in ways a reader can
# detect, for tests/prune.test and tests/prune_diff.test.
$(BUILD)/mutate: tests/mutate.c $(BUILD)/libpqcore.a $(HEADERS)
	$(CC) $(CFLAGS) $(SAN) $(WARN) -Isrc -o $@ $< $(BUILD)/libpqcore.a -lm $(CODEC_LIBS)

# The benchmark (bench/bench.c), against the core library.
$(BUILD)/bench/bench: bench/bench.c bench/reference.c bench/reference.h bench/stats.h $(BUILD)/libpqcore.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Isrc -Ibench -o $@ bench/bench.c bench/reference.c $(BUILD)/libpqcore.a -lm $(CODEC_LIBS)

# The benchmark of ALP (bench/alp.c): size on the ALP paper's data sets
# (../shared/alp-testing/floatingpoint_data.tar.gz, extracted at each run
# into $(BUILD)/bench/alp_data) and speed, against PLAIN + ZSTD.
ALP_DATA ?= ../shared/alp-testing/floatingpoint_data.tar.gz
$(BUILD)/bench/alp: bench/alp.c bench/shell.h bench/stats.h $(BUILD)/libpqcore.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Isrc -Ibench -o $@ bench/alp.c $(BUILD)/libpqcore.a -lm $(CODEC_LIBS)

BENCH_ARGS ?=
bench: test-deps interop-deps $(BUILD)/$(EXT) $(BUILD)/bench/bench \
       $(BUILD)/bench/tables $(BUILD)/bench/write \
       $(BUILD)/bench/step.so $(BUILD)/bench/alp $(BUILD)/bench/lab
	$(BUILD)/bench/bench --extension $(BUILD)/$(EXT) --work $(BUILD)/bench \
	  --duckdb "$$(sh tools/duckdb.sh --dir)" \
	  $(if $(BENCH_ARGS),$(BENCH_ARGS),--results bench/RESULTS.md --notes bench/NOTES.md)
	@sh tools/parquet_wasm.sh
	$(BUILD)/bench/tables --extension $(BUILD)/$(EXT) --work $(BUILD)/bench \
	  --duckdb "$$(sh tools/duckdb.sh --dir)" --parquet-wasm "$$(sh tools/parquet_wasm.sh --dir)" \
	  $(if $(BENCH_ARGS),$(BENCH_ARGS),--results bench/RESULTS.md)
	$(BUILD)/bench/write --extension $(BUILD)/$(EXT) --work $(BUILD)/bench \
	  --duckdb "$$(sh tools/duckdb.sh --dir)" \
	  $(if $(BENCH_ARGS),$(BENCH_ARGS),--results bench/RESULTS.md)
	$(BUILD)/bench/alp --work $(BUILD)/bench --data $(ALP_DATA) \
	  $(if $(BENCH_ARGS),$(BENCH_ARGS),--results bench/RESULTS.md)
	$(BUILD)/bench/lab --extension $(BUILD)/$(EXT) --work $(BUILD)/bench \
	  $(if $(BENCH_ARGS),$(BENCH_ARGS),--results bench/RESULTS.md)

# This build against another (BASELINE=path/to/parquet.so), side by side
# in one run, over the table benchmark's files (bench/against.c): make
# bench first, for the files.
BASELINE ?=
$(BUILD)/bench/against: bench/against.c bench/shell.h bench/stats.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ bench/against.c
bench-against: $(BUILD)/$(EXT) $(BUILD)/bench/against
	@test -n "$(BASELINE)" || { echo "make bench-against BASELINE=path/to/parquet.so"; exit 1; }
	$(BUILD)/bench/against --extension $(BUILD)/$(EXT) --baseline $(BASELINE) \
	  --work $(BUILD)/bench $(if $(BENCH_ARGS),$(BENCH_ARGS),--results bench/RESULTS.md)

# The benchmark of the parquet table (bench/tables.c, bench/tables.mjs);
# its files are kept under $(BUILD)/bench/table_data.
$(BUILD)/bench/tables: bench/tables.c bench/shell.h bench/stats.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ bench/tables.c
# The benchmark of parquet_write (bench/write.c, bench/write.mjs): it reads
# the table's native.db and writes its files under $(BUILD)/bench/write_data.
$(BUILD)/bench/write: bench/write.c bench/shell.h bench/stats.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ bench/write.c
$(BUILD)/bench/lab: bench/lab.c bench/shell.h bench/stats.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ bench/lab.c

# The encoding lab's benchmark alone (bench/lab.c; also part of make bench).
# Files over HTTP on loopback against the same files read locally
# (bench/remote.sh, doc/remote.md); FILE= another file than the bench's.
bench-remote: $(BUILD)/$(EXT)
	sh bench/remote.sh $(BUILD)/$(EXT) $(BUILD)/bench $(FILE)

bench-lab: $(BUILD)/$(EXT) $(BUILD)/bench/lab
	$(BUILD)/bench/lab --extension $(BUILD)/$(EXT) --work $(BUILD)/bench \
	  $(if $(BENCH_ARGS),$(BENCH_ARGS),--results bench/RESULTS.md)
$(BUILD)/bench/step.so: bench/step.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -fPIC -shared -o $@ bench/step.c

# ---- Fuzzing (tests/fuzz/): libFuzzer with ASan and UBSan, clang ----
FUZZ_CC    ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_FLAGS  = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=all
FUZZ_ENCS   = plain:0 group_var_int:1 plain_dictionary:2 rle:3 bit_packed:4 \
              delta_binary_packed:5 delta_length_byte_array:6 \
              delta_byte_array:7 rle_dictionary:8 byte_stream_split:9 \
              alp:10
FUZZ_NAMES  = $(foreach e,$(FUZZ_ENCS),$(firstword $(subst :, ,$(e))))
FUZZ_TARGETS = $(FUZZ_NAMES:%=decode_%) $(FUZZ_NAMES:%=roundtrip_%) \
               explain file thrift page write order variant wkb \
               explain_variant lab_options http
FUZZ_TIME  ?= 60
FUZZ_RUNS  ?=
FUZZ_DEPS   = clang libclang-rt-14-dev
FUZZ_CORE   = $(CORE_SRC:src/%.c=$(FUZZ_BUILD)/core/%.o)
FUZZ_HDRS   = $(HEADERS) tests/fuzz/fuzz.h tests/footer.h

fuzz-deps:
	@sh tools/deps.sh $(BUILD_DEPS) $(FUZZ_DEPS)

$(FUZZ_BUILD)/core/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(WARN) $(CODEC_DEFS) -c $< -o $@
$(FUZZ_BUILD)/libpqcore.a: $(FUZZ_CORE)
	rm -f $@
	ar rcs $@ $^

# One decode_ and one roundtrip_ target per encoding, from one source each.
define fuzz_enc
$(FUZZ_BUILD)/decode_$(1): tests/fuzz/fuzz_decode.c $(FUZZ_BUILD)/libpqcore.a $(FUZZ_HDRS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -DFUZZ_ENC=$(2) -Isrc -o $$@ $$< $(FUZZ_BUILD)/libpqcore.a -lm $(CODEC_LIBS)
$(FUZZ_BUILD)/roundtrip_$(1): tests/fuzz/fuzz_roundtrip.c $(FUZZ_BUILD)/libpqcore.a $(FUZZ_HDRS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -DFUZZ_ENC=$(2) -Isrc -o $$@ $$< $(FUZZ_BUILD)/libpqcore.a -lm $(CODEC_LIBS)
endef
$(foreach e,$(FUZZ_ENCS),$(eval $(call fuzz_enc,$(firstword $(subst :, ,$(e))),$(lastword $(subst :, ,$(e))))))
$(FUZZ_BUILD)/%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/libpqcore.a $(FUZZ_HDRS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -Isrc -o $@ $< $(FUZZ_BUILD)/libpqcore.a -lm $(CODEC_LIBS)

# The seed corpora: streams of every encoding, the spec's examples, and the
# files of ../shared/parquet-testing (read in place, never copied here).
$(FUZZ_BUILD)/seeds: tests/fuzz/seeds.c $(BUILD)/libpqcore.a $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Isrc -o $@ $< $(BUILD)/libpqcore.a -lm $(CODEC_LIBS)

fuzz-build: fuzz-deps $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%) $(FUZZ_BUILD)/seeds
	$(FUZZ_BUILD)/seeds $(FUZZ_BUILD)/corpus ../shared/parquet-testing

fuzz: fuzz-build
	sh tests/fuzz/run.sh $(FUZZ_BUILD) \
	  $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_TIME)) \
	  $(if $(TARGETS),$(TARGETS),$(FUZZ_TARGETS))

$(BUILD)/gen_bitpack: tools/gen_bitpack.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ $<

gen: $(BUILD)/gen_bitpack
	$(BUILD)/gen_bitpack > src/encodings/bitpack_gen.h

# ---- Installing, and the amalgamation ----------------------------------
# make install puts, under DESTDIR (for packaging) and PREFIX (/usr/local):
#   the extension     PREFIX/lib/sqlite3/parquet.so   (.load it by path)
#   the core          LIBDIR/libpqcore.a, INCLUDEDIR/parquet.h
#   pkg-config        LIBDIR/pkgconfig/pqcore.pc
# LIBDIR is PREFIX/lib/<multiarch triplet> as on Debian, where pkg-config
# looks (PREFIX/lib elsewhere).  make uninstall removes them.
PREFIX       ?= /usr/local
MULTIARCH    := $(shell $(CC) -print-multiarch 2>/dev/null)
LIBDIR       ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
INCLUDEDIR   ?= $(PREFIX)/include
EXTDIR       ?= $(PREFIX)/lib/sqlite3
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
VERSION      := $(shell sed -n 's/^\#define PQ_VERSION_STRING "\(.*\)"/\1/p' src/parquet.h)

# The library is static only, so its Libs name what it links against.  The
# file is rewritten only when its text changes (PREFIX, WITHOUT).
PC_LINES = 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
  'Name: pqcore' \
  'Description: Apache Parquet encodings, pages and files, the core of the parquet SQLite extension' \
  'Version: $(VERSION)' \
  'Libs: -L$${libdir} -lpqcore $(CODEC_LIBS) -lm' 'Cflags: -I$${includedir}'
$(BUILD)/pqcore.pc: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' $(PC_LINES) | cmp -s - $@ || printf '%s\n' $(PC_LINES) > $@

install: $(BUILD)/$(EXT) $(BUILD)/libpqcore.a $(BUILD)/pqcore.pc
	install -d $(DESTDIR)$(EXTDIR) $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(BUILD)/$(EXT) $(DESTDIR)$(EXTDIR)/$(EXT)
	install -m 644 $(BUILD)/libpqcore.a $(DESTDIR)$(LIBDIR)/libpqcore.a
	install -m 644 src/parquet.h $(DESTDIR)$(INCLUDEDIR)/parquet.h
	install -m 644 $(BUILD)/pqcore.pc $(DESTDIR)$(PKGCONFIGDIR)/pqcore.pc

uninstall:
	rm -f $(DESTDIR)$(EXTDIR)/$(EXT) $(DESTDIR)$(LIBDIR)/libpqcore.a \
	  $(DESTDIR)$(INCLUDEDIR)/parquet.h $(DESTDIR)$(PKGCONFIGDIR)/pqcore.pc
	-rmdir $(DESTDIR)$(EXTDIR) 2>/dev/null

# make dist: BUILD/dist/parquet.c and parquet.h, the whole extension as one
# C file for applications to compile in (tools/amalgamate.tcl says how).
dist: $(BUILD)/dist/parquet.c
$(BUILD)/dist/parquet.c: tools/amalgamate.tcl $(CORE_SRC) $(EXT_SRC) $(HEADERS)
	@sh tools/deps.sh tcl
	tclsh tools/amalgamate.tcl $(BUILD)/dist

demo: all test-deps
	sqlite3 -bail < sql/demo.sql

# The runner prints one line per failure and ends with "N passed, N failed".
test: test-deps interop-deps clients-deps $(BUILD)/$(EXT) $(UNITS:%=$(BUILD)/%) $(BUILD)/gen_bitpack $(BUILD)/mutate
	tclsh tests/run.tcl $(BUILD)

# tclsh and sqlite3 are not built with the sanitizers, so ASan is preloaded
# into them (and the unit tests, which link it anyway); leaks are reported.
# PQ_ASAN tells the tests they run under ASan (the labs leave BROTLI out:
# tests/lab.test).
ASAN_LIB = $(shell $(CC) -print-file-name=libasan.so)
ASAN_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# intercept_tls_get_addr=0: gcc 12's runtime reads a dynamic TLS block
# (the extension's, libcurl's, OpenSSL's: loaded by dlopen) that happens to
# begin 16 bytes into a page as having glibc's pre-2.25 header, and
# LeakSanitizer's tracer then dies at the exit ("Tracer caught signal 11",
# no report), the same way on every run of a process laid out alike.
ASAN_RUN = detect_leaks=1:intercept_tls_get_addr=0
test-asan:
	$(MAKE) BUILD=build-asan SAN="$(ASAN_SAN)" \
	  build-asan/$(EXT) $(UNITS:%=build-asan/%) build-asan/gen_bitpack build-asan/mutate test-deps interop-deps clients-deps
	PQ_ASAN=1 LD_PRELOAD=$(ASAN_LIB) ASAN_OPTIONS=$(ASAN_RUN) tclsh tests/run.tcl build-asan

# tests/oom.c: each statement of its list run with its Nth allocation
# failing (SQLite's allocator, which the core allocates through), for N =
# 1, 2, ... until it runs whole: SQLITE_NOMEM or the same result, the
# connection still right, no memory and no file left.  The extension is
# test-asan's build (its objects are shared); the program is built with
# the same sanitizers, so ASan is in it from the start (no LD_PRELOAD)
# and reports leaks at its exit.
# (Its list of statements leaves the fields after `undo` out: zero.)
$(BUILD)/oom: tests/oom.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) -Wno-missing-field-initializers -o $@ $< -lsqlite3 -ldl
test-oom: deps
	$(MAKE) BUILD=build-asan SAN="$(ASAN_SAN)" build-asan/$(EXT) build-asan/oom
	rm -rf build-asan/oom.out && mkdir -p build-asan/oom.out
	ASAN_OPTIONS=$(ASAN_RUN) build-asan/oom build-asan/$(EXT) build-asan/oom.out

# tests/threads.c: the extension loaded into connections on several
# threads at once, then every job run on 8 threads, each on its own
# connection and all on one they share, and compared with its result
# alone.  test-tsan builds the extension (core and binding) and the
# program with ThreadSanitizer; any report, of a race or of a lock order
# that could deadlock, ends the run with a failure (halt_on_error,
# exitcode).  libsqlite3 and libcurl are the system's, threadsafe and not
# instrumented: ThreadSanitizer sees their locking through the pthread
# calls they make.  tests/tsan_run.sh runs the program with
# tests/http_server.py on loopback, serving parquet-testing's files and
# the program's own, for its jobs that read URLs (the connection's
# footers, the table's worker fetching ahead, curl's handles), and stops
# the server when the program ends, however it ends.
$(BUILD)/threads: tests/threads.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) -o $@ $< -lsqlite3 -lpthread

TSAN_DEPS    = $(if $(findstring clang,$(CC)),libclang-rt-14-dev,libgcc-12-dev)
TSAN_OPTIONS = halt_on_error=1 exitcode=66 second_deadlock_stack=1
tsan-deps:
	@sh tools/deps.sh $(BUILD_DEPS) $(TSAN_DEPS)
test-tsan: tsan-deps
	$(MAKE) BUILD=build-tsan SAN="-fsanitize=thread -g -O1" build-tsan/$(EXT) build-tsan/threads
	rm -rf build-tsan/threads.out && mkdir -p build-tsan/threads.out
	TSAN_OPTIONS="$(TSAN_OPTIONS)" sh tests/tsan_run.sh build-tsan/threads \
	  build-tsan/$(EXT) build-tsan/threads.out ../shared/parquet-testing/data

# The Tcl suite and the SQL scripts under valgrind's memcheck: no invalid
# access, no leak (definite or indirect); the C unit tests are the ASan
# build's.
VALGRIND = valgrind --tool=memcheck --leak-check=full \
  --errors-for-leak-kinds=definite,indirect \
  --show-leak-kinds=definite,indirect --error-exitcode=99 -q
test-valgrind: test-deps interop-deps clients-deps $(BUILD)/$(EXT) $(UNITS:%=$(BUILD)/%) $(BUILD)/gen_bitpack $(BUILD)/mutate
	@sh tools/deps.sh valgrind
	PQ_WRAP="$(VALGRIND)" PQ_VALGRIND=1 tclsh tests/run.tcl $(BUILD)

# ---- The playground (web/, doc/playground.md): WebAssembly, emscripten ----
# The core, the binding and SQLite's amalgamation (tools/sqlite_src.sh,
# pinned) built with Debian's emscripten, SQLITE_CORE: one module with the
# extension built in.  build/web/ is the page, a folder of static files;
# $(WASM_BUILD)/pqweb-node.js the same module for node, on the host's
# files (NODERAWFS), for test-wasm's comparison with the native build.
# The codecs' libraries are built from the sources of Debian's packages
# (tools/codec_src.sh, tools/wasm_codecs.sh); WASM_WITHOUT="..." leaves
# some out, and their codecs then fail as the native WITHOUT build's do.
WASM_BUILD  = build/wasm
WEB_OUT     = build/web
EMCC        = NODE_PATH=/usr/share/nodejs emcc
EMXX        = NODE_PATH=/usr/share/nodejs em++
WASM_FLAGS  = -O2 -ffp-contract=off
WASM_WITHOUT ?=
ifneq ($(filter-out $(CODECS),$(WASM_WITHOUT)),)
$(error WASM_WITHOUT: unknown library '$(filter-out $(CODECS),$(WASM_WITHOUT))' (one of: $(CODECS)))
endif
WASM_WITH   = $(filter-out $(WASM_WITHOUT),$(CODECS))
WASM_DEFS   = -DSQLITE_CORE $(foreach c,$(sort $(WASM_WITHOUT)),$(NO_$(c)))
WASM_CODECS = $(WASM_WITH:%=$(WASM_BUILD)/codecs/lib%.a)
SQLITE_SRC  = $(shell sh tools/sqlite_src.sh --dir)
SQLITE_DEFS = -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
              -DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_DEFAULT_MEMSTATUS=0
WASM_OBJ    = $(CORE_SRC:src/%.c=$(WASM_BUILD)/core/%.o) \
              $(EXT_SRC:ext/%.c=$(WASM_BUILD)/ext/%.o) \
              $(WASM_BUILD)/pqweb.o $(WASM_BUILD)/sqlite3.o
WASM_LINK   = -O2 -sALLOW_MEMORY_GROWTH=1 -sMODULARIZE=1 \
              -sEXPORTED_FUNCTIONS=_pqweb_open,_pqweb_exec,_pqweb_version \
              -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,FS --js-library web/remote_lib.js
WEB_FILES   = $(filter-out web/remote_lib.js,$(wildcard web/*.html web/*.js web/*.css))

wasm-deps:
	@sh tools/deps.sh emscripten tcl
	@sh tools/sqlite_src.sh

$(WASM_BUILD)/sqlite3.o: tools/sqlite_src.sh | wasm-deps
	@mkdir -p $(dir $@)
	$(EMCC) $(WASM_FLAGS) $(SQLITE_DEFS) -c $(SQLITE_SRC)/sqlite3.c -o $@
$(WASM_BUILD)/core/%.o: src/%.c $(HEADERS) | wasm-deps
	@mkdir -p $(dir $@)
	$(EMCC) $(WASM_FLAGS) $(WARN) $(WASM_DEFS) -c $< -o $@
# The codecs' libraries, and the files that use them (codec.c, and crc32.c
# zlib's CRC) against their headers, rebuilt when WASM_WITHOUT changes.
# include.flags is written last: it stands for the libraries too.
$(WASM_BUILD)/codecs/include.flags: tools/wasm_codecs.sh tools/codec_src.sh $(WASM_BUILD)/without | wasm-deps
	sh tools/wasm_codecs.sh $(WASM_BUILD)/codecs $(WASM_WITH)
$(WASM_BUILD)/core/format/codec.o $(WASM_BUILD)/core/format/crc32.o: $(WASM_BUILD)/core/format/%.o: src/format/%.c $(HEADERS) $(WASM_BUILD)/without $(WASM_BUILD)/codecs/include.flags
	@mkdir -p $(dir $@)
	$(EMCC) $(WASM_FLAGS) $(WARN) $(WASM_DEFS) $$(cat $(WASM_BUILD)/codecs/include.flags) -c $< -o $@
$(WASM_BUILD)/without: FORCE
	@mkdir -p $(dir $@)
	@echo '$(sort $(WASM_WITHOUT))' | cmp -s - $@ || echo '$(sort $(WASM_WITHOUT))' > $@
$(WASM_BUILD)/ext/%.o: ext/%.c $(HEADERS) | wasm-deps
	@mkdir -p $(dir $@)
	$(EMCC) $(WASM_FLAGS) $(WARN) $(WASM_DEFS) -I$(SQLITE_SRC) -c $< -o $@
$(WASM_BUILD)/pqweb.o: web/pqweb.c web/pqweb.h | wasm-deps
	@mkdir -p $(dir $@)
	$(EMCC) $(WASM_FLAGS) $(WARN) $(WASM_DEFS) -I$(SQLITE_SRC) -c $< -o $@

# The page's module: the wasm inside the script (SINGLE_FILE), so that the
# page also works from file://, where a browser fetches nothing.
$(WEB_OUT)/pqweb.js: $(WASM_OBJ) $(WASM_BUILD)/codecs/include.flags web/remote_lib.js
	@mkdir -p $(dir $@)
	$(EMXX) $(WASM_LINK) -sENVIRONMENT=web -sEXPORT_NAME=createPqweb \
	  -sSINGLE_FILE=1 -o $@ $(WASM_OBJ) $(WASM_CODECS)
# The same module as a .wasm of its own: the size test-wasm checks.
$(WASM_BUILD)/pqweb.wasm: $(WASM_OBJ) $(WASM_BUILD)/codecs/include.flags web/remote_lib.js
	$(EMXX) $(WASM_LINK) -sENVIRONMENT=web -o $(WASM_BUILD)/pqweb-size.js $(WASM_OBJ) $(WASM_CODECS)
	mv $(WASM_BUILD)/pqweb-size.wasm $@
$(WASM_BUILD)/pqweb-node.js: $(WASM_OBJ) $(WASM_BUILD)/codecs/include.flags web/remote_lib.js
	$(EMXX) $(WASM_LINK) -sENVIRONMENT=node -sNODERAWFS=1 -o $@ $(WASM_OBJ) $(WASM_CODECS)
# The tutorial's scripts and the demo, for the page's menu.
$(WEB_OUT)/examples.js: tools/web_examples.tcl sql/demo.sql $(wildcard sql/tutorial/*.sql)
	@mkdir -p $(dir $@)
	tclsh tools/web_examples.tcl sql/demo.sql sql/tutorial/*.sql > $@
$(WEB_OUT)/%: web/%
	@mkdir -p $(dir $@)
	cp $< $@

wasm: $(WEB_OUT)/pqweb.js $(WEB_OUT)/examples.js $(WEB_FILES:web/%=$(WEB_OUT)/%) \
      $(WASM_BUILD)/pqweb.wasm $(WASM_BUILD)/pqweb-node.js
	@echo "the playground: $(WEB_OUT)/index.html ($$(wc -c < $(WASM_BUILD)/pqweb.wasm) bytes of wasm)"

# The same bridge, native, with the system's SQLite and codecs' libraries,
# and the same codecs left out: what test-wasm compares the WebAssembly
# build's answers with.
$(WASM_BUILD)/run: web/run.c web/pqweb.c web/pqweb.h $(EXT_SRC) $(CORE_SRC) $(HEADERS) $(WASM_BUILD)/without
	$(MAKE) BUILD=$(WASM_BUILD)/native WITHOUT="$(WASM_WITHOUT)" $(WASM_BUILD)/native/libpqcore.a
	$(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -Isrc -o $@ web/run.c web/pqweb.c $(EXT_SRC) \
	  $(WASM_BUILD)/native/libpqcore.a -lsqlite3 -lm $(foreach c,$(WASM_WITH),$(LIB_$(c)))

test-wasm: wasm $(WASM_BUILD)/run test-deps
	@sh tools/deps.sh chromium fonts-dejavu-core
	@sh tools/puppeteer.sh
	tclsh tests/wasm.tcl

clean:
	rm -rf build build-asan build-tsan $(FUZZ_BUILD) $(EXT)
