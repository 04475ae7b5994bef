# quern — one binary, bin/quern, plus the demo target and the tests.
#
#   make            build bin/quern and bin/quern-target (optimised)
#   make demo       install missing packages, build, start the demo target, run an example
#   make test       install missing packages, build under ASan+UBSan, run every test
#   make test-valgrind   unit tests under valgrind, zero leaks
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
LIB_SRC := $(wildcard common/*.c proto/*.c worker/*.c agent/*.c console/*.c reports/*.c)
LIB_SRC := $(filter-out console/main.c,$(LIB_SRC))
LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(LIB_SRC)) $(patsubst build/gen/%.c,$(B)/gen/%.o,$(PROTO_GEN))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))

.PHONY: all quern deps demo test test-build test-valgrind bench clean format
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

test-build:
	$(MAKE) MODE=asan quern build/asan/linkprobe $(patsubst tests/unit/%.c,build/asan/tests/%,$(UNIT_SRC))

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
