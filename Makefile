# Parquet encodings for SQLite.
#
#   make             the extension (./parquet.so) and the core library
#   make demo        runs sql/demo.sql in the sqlite3 shell
#   make test        C unit tests of the core, the Tcl tests of the SQL, and
#                    files read by DuckDB (installed from npm into a cache)
#   make test-asan   the same, built with -fsanitize=address,undefined
#   make bench       the benchmark: the core, DuckDB and SQLite side by side;
#                    writes bench/RESULTS.md (BENCH_ARGS="--quick" for a
#                    short run, "--only DELTA" for some cases)
#   make gen         regenerates src/bitpack_gen.h
#   make WITHOUT="snappy zstd"   leaves codec libraries out (any of snappy,
#                    zlib, zstd, lz4, brotli); their codecs then fail with
#                    an error that says so
#
# Missing Debian packages are installed with apt-get when run as root;
# otherwise the exact apt-get line is printed.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes
PIC     = -fPIC -fvisibility=hidden
BUILD   ?= build
SAN     =
EXT     = parquet.so

CORE_SRC = $(sort $(wildcard src/*.c))
EXT_SRC  = $(sort $(wildcard ext/*.c))
CORE_OBJ = $(CORE_SRC:src/%.c=$(BUILD)/core/%.o)
EXT_OBJ  = $(EXT_SRC:ext/%.c=$(BUILD)/ext/%.o)
HEADERS  = $(wildcard src/*.h) $(wildcard ext/*.h)

# The codecs' libraries, each optional (WITHOUT=...): its Debian package,
# its link flags, and the macro that leaves it out of src/codec.c.
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
ifneq ($(filter-out $(CODECS),$(WITHOUT)),)
$(error WITHOUT: unknown library '$(filter-out $(CODECS),$(WITHOUT))' (one of: $(CODECS)))
endif
WITH        = $(filter-out $(WITHOUT),$(CODECS))
CODEC_DEFS  = $(foreach c,$(sort $(WITHOUT)),$(NO_$(c)))
CODEC_LIBS  = $(foreach c,$(WITH),$(LIB_$(c)))

BUILD_DEPS = libsqlite3-dev $(foreach c,$(WITH),$(DEB_$(c)))
TEST_DEPS  = sqlite3 tcl libsqlite3-tcl

.PHONY: all deps test-deps interop-deps demo test test-asan bench gen clean FORCE

all: deps $(BUILD)/$(EXT) $(BUILD)/libpqcore.a $(if $(SAN),,$(EXT))

deps:
	@sh tools/deps.sh $(BUILD_DEPS)

test-deps:
	@sh tools/deps.sh $(BUILD_DEPS) $(TEST_DEPS)

# DuckDB for tests/interop.test: the npm package @duckdb/node-api, once,
# into a cache folder outside the repository (tools/duckdb.sh --dir).
interop-deps:
	@sh tools/duckdb.sh

$(BUILD)/core/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(PIC) $(CODEC_DEFS) -c $< -o $@

# codec.c is rebuilt when WITHOUT changes: the stamp holds the last value
# and is rewritten only when it differs.
$(BUILD)/core/codec.o: $(BUILD)/without
$(BUILD)/without: FORCE
	@mkdir -p $(dir $@)
	@echo '$(sort $(WITHOUT))' | cmp -s - $@ || echo '$(sort $(WITHOUT))' > $@

$(BUILD)/ext/%.o: ext/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(PIC) -c $< -o $@

$(BUILD)/libpqcore.a: $(CORE_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/$(EXT): $(EXT_OBJ) $(BUILD)/libpqcore.a
	$(CC) $(CFLAGS) $(SAN) -shared -o $@ $(EXT_OBJ) $(BUILD)/libpqcore.a -lm $(CODEC_LIBS)

# The extension at the top, so that `.load ./parquet` finds it: always the
# one of this BUILD and WITHOUT, even when another build's copy is newer.
$(EXT): $(BUILD)/$(EXT) FORCE
	@cmp -s $< $@ || { echo "cp $< $@"; cp $< $@; }

# The C unit tests: one program per tests/unit*.c.
UNITS = $(patsubst tests/%.c,%,$(wildcard tests/unit*.c))
$(UNITS:%=$(BUILD)/%): $(BUILD)/%: tests/%.c $(BUILD)/libpqcore.a $(HEADERS)
	$(CC) $(CFLAGS) $(SAN) $(WARN) -Isrc -o $@ $< $(BUILD)/libpqcore.a -lm $(CODEC_LIBS)

# The benchmark (bench/bench.c), against the core library.
$(BUILD)/bench/bench: bench/bench.c bench/reference.c bench/reference.h $(BUILD)/libpqcore.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Isrc -Ibench -o $@ bench/bench.c bench/reference.c $(BUILD)/libpqcore.a -lm $(CODEC_LIBS)

BENCH_ARGS ?=
bench: test-deps interop-deps $(BUILD)/$(EXT) $(BUILD)/bench/bench
	$(BUILD)/bench/bench --extension $(BUILD)/$(EXT) --work $(BUILD)/bench \
	  --duckdb "$$(sh tools/duckdb.sh --dir)" \
	  $(if $(BENCH_ARGS),$(BENCH_ARGS),--results bench/RESULTS.md)

$(BUILD)/gen_bitpack: tools/gen_bitpack.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ $<

gen: $(BUILD)/gen_bitpack
	$(BUILD)/gen_bitpack > src/bitpack_gen.h

demo: all test-deps
	sqlite3 -bail < sql/demo.sql

# The runner prints one line per failure and ends with "N passed, N failed".
test: test-deps interop-deps $(BUILD)/$(EXT) $(UNITS:%=$(BUILD)/%) $(BUILD)/gen_bitpack
	tclsh tests/run.tcl $(BUILD)

# tclsh and sqlite3 are not built with the sanitizers, so ASan is preloaded
# into them (and the unit tests, which link it anyway); leaks are reported.
ASAN_LIB = $(shell $(CC) -print-file-name=libasan.so)
test-asan:
	$(MAKE) BUILD=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  build-asan/$(EXT) $(UNITS:%=build-asan/%) build-asan/gen_bitpack test-deps interop-deps
	LD_PRELOAD=$(ASAN_LIB) ASAN_OPTIONS=detect_leaks=1 tclsh tests/run.tcl build-asan

clean:
	rm -rf build build-asan $(EXT)
