# quern — one binary, bin/quern, plus the demo target and the tests.
#
#   make            build bin/quern and bin/quern-target (optimised)
#   make demo       install missing packages, build, start the demo target, run an example
#   make test       install missing packages, build under ASan+UBSan, run every test
#   make test-valgrind   unit tests under valgrind, zero leaks
#   make fuzz       build the libFuzzer targets with clang, run each FUZZ_SECONDS (tests/fuzz/)
#   make bench      quern against wrk and Locust (not part of make test)
#   make clean

CC      ?= cc
PKGS    := libcurl lua5.4 libprotobuf-c sqlite3 libxml-2.0 jansson libcrypto
CFLAGS_BASE := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-format-truncation \
               -D_GNU_SOURCE -g -I. -Ibuild/gen $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lev -lm
TARGET_LIBS := $(shell pkg-config --libs libmicrohttpd 2>/dev/null)
TEST_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)

# Two build modes share the sources: rel (bin/quern) and asan (what the tests run).
MODE ?= rel
ifeq ($(MODE),asan)
  MODE_CFLAGS := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
else
  MODE_CFLAGS := -O2
endif
B := build/$(MODE)
CFLAGS := $(CFLAGS_BASE) $(MODE_CFLAGS) $(EXTRA_CFLAGS)

# Every .c of these folders goes into one archive; console/main.c holds main().
PROTO_SRC := $(wildcard proto/*.proto)
PROTO_GEN := $(patsubst proto/%.proto,build/gen/proto/%.pb-c.c,$(PROTO_SRC))
# Generated sources are kept: make would otherwise delete them as intermediates
# and rebuild every object at the next call.
.SECONDARY: $(PROTO_GEN) $(PROTO_GEN:.c=.h)
# reports/schema.sql, compiled in as schema_sql[] (reports/schema.h): the one copy.
SCHEMA_GEN := build/gen/reports/schema_sql.c
GEN_SRC := $(PROTO_GEN) $(SCHEMA_GEN)
.SECONDARY: $(SCHEMA_GEN)
LIB_SRC := $(wildcard common/*.c proto/*.c worker/*.c agent/*.c console/*.c reports/*.c)
LIB_SRC := $(filter-out console/main.c,$(LIB_SRC))
LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(LIB_SRC)) $(patsubst build/gen/%.c,$(B)/gen/%.o,$(GEN_SRC))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
# Fuzz targets: under make test each runs once over its corpus (gcc, tests/fuzz/driver.c).
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_RUN := $(patsubst tests/fuzz/%.c,build/asan/fuzz/%,$(FUZZ_SRC))

.PHONY: all quern deps demo test test-build test-valgrind bench clean format fuzz fuzz-build
all: quern

quern: $(B)/quern $(B)/quern-target
ifeq ($(MODE),rel)
	@mkdir -p bin
	@# copy then rename: a running bin/quern-target must not block the build
	@cp $(B)/quern bin/.quern.tmp && mv -f bin/.quern.tmp bin/quern
	@cp $(B)/quern-target bin/.quern-target.tmp && mv -f bin/.quern-target.tmp bin/quern-target
endif

deps:
	@scripts/install-deps.sh

build/gen/proto/%.pb-c.c build/gen/proto/%.pb-c.h: proto/%.proto
	@mkdir -p build/gen/proto
	protoc-c --c_out=build/gen $<

# od and sed only (coreutils), so no extra package: one 0xNN per byte, then a NUL.
$(SCHEMA_GEN): reports/schema.sql
	@mkdir -p $(dir $@)
	@{ echo '/* Generated from reports/schema.sql by the Makefile: do not edit. */'; \
	  echo '#include "reports/schema.h"'; \
	  echo 'const char schema_sql[] = {'; \
	  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0x00};'; \
	  echo 'const size_t schema_sql_len = sizeof(schema_sql) - 1;'; } >$@.tmp
	@mv -f $@.tmp $@

$(B)/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-error -c $< -o $@

$(B)/%.o: %.c $(PROTO_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/libquern.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/quern: $(B)/console/main.o $(B)/libquern.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(B)/quern-target: $(B)/tests/target/target.o
	$(CC) $(CFLAGS) -o $@ $^ $(TARGET_LIBS) -ljansson

$(B)/tests/%: tests/unit/%.c $(B)/libquern.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(B)/libquern.a $(LIBS) $(TEST_LIBS)

$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/driver.c tests/fuzz/fuzz_util.h $(B)/libquern.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< tests/fuzz/driver.c $(B)/libquern.a $(LIBS)

test-build:
	$(MAKE) MODE=asan quern build/asan/linkprobe $(patsubst tests/unit/%.c,build/asan/tests/%,$(UNIT_SRC)) $(FUZZ_RUN)

test: deps
	$(MAKE) test-build
	@tests/run.sh build/asan

test-valgrind: deps
	$(MAKE) MODE=rel $(patsubst tests/unit/%.c,build/rel/tests/%,$(UNIT_SRC))
	@tests/run.sh --valgrind build/rel

demo: deps
	$(MAKE) quern
	@scripts/demo.sh

# Side by side with wrk and Locust on loopback; writes docs/benchmarks.md.
bench: deps
	$(MAKE) quern
	@bench/run.sh

# libFuzzer: the project's sources built again by clang (build/fuzz/obj, apart
# from the gcc-built archives), one program per tests/fuzz/fuzz_<target>.c,
# each run FUZZ_SECONDS over a working corpus seeded from the checked-in one.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FZ := build/fuzz
FUZZ_CFLAGS := $(CFLAGS_BASE) -Wno-unknown-warning-option -O1 -fno-omit-frame-pointer \
               -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ := $(patsubst %.c,$(FZ)/obj/%.o,$(LIB_SRC)) \
            $(patsubst build/gen/%.c,$(FZ)/obj/gen/%.o,$(GEN_SRC))

$(FZ)/obj/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-error -c $< -o $@

$(FZ)/obj/%.o: %.c $(PROTO_GEN)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FZ)/libquern.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $(FZ)/libquern.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FZ)/libquern.a $(LIBS)

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "make fuzz: $(FUZZ_CC) not found" \
	  "(scripts/install-deps.sh --fuzz installs Debian's clang)" >&2; exit 1; }
	$(MAKE) $(patsubst %,$(FZ)/fuzz_%,$(FUZZ_TARGETS))

fuzz:
	@scripts/install-deps.sh --fuzz
	$(MAKE) fuzz-build
	@tests/fuzz/run.sh $(FZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

-include $(FUZZ_OBJ:.o=.d)

clean:
	rm -rf build bin

format:
	clang-format -i $(wildcard */*.c */*.h tests/*/*.c)

-include $(LIB_OBJ:.o=.d) $(B)/console/main.d

# Test helper for bench/run.sh: N simulated agents reporting to one console.
$(B)/fanin: tests/tools/fanin.c $(B)/libquern.a
	$(CC) $(CFLAGS) -o $@ $< $(B)/libquern.a $(LIBS)

# Test helper for tests/e2e/dist_link.sh: an attacker on the console-agent link.
$(B)/linkprobe: tests/tools/linkprobe.c $(B)/libquern.a
	$(CC) $(CFLAGS) -o $@ $< $(B)/libquern.a $(LIBS)
