# quern — one binary, bin/quern, plus the demo target and the tests.
#
#   make            build bin/quern and bin/quern-target (optimised)
#   make demo       install missing packages, build, start the demo target, run an example
#   make test       install missing packages, build under ASan+UBSan, run every test
#   make lint       layering of includes, the run's state in its own files, SQLite only in
#                   store/, headers that compile alone, clang-format, tests/unit mirroring
#                   the tree, module prefixes, error
#                   messages through err_set in ERR_MAX buffers, luacheck over the Lua
#                   scripts, the docs' links
#                   (tests/lint/; also part of make test)
#   make test-valgrind   unit tests under valgrind, zero leaks
#   make fuzz       build the libFuzzer targets with clang, run each FUZZ_SECONDS (tests/fuzz/)
#   make bench      quern against wrk and Locust (not part of make test)
#   make install    bin/quern, its man pages and the Lua annotations under $(DESTDIR)$(PREFIX)
#                   (default /usr/local)
#   make clean

CC      ?= cc
PKGS    := libcurl lua5.4 libprotobuf-c sqlite3 libxml-2.0 jansson libcrypto libmicrohttpd zlib libdw
CFLAGS_BASE := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-format-truncation \
               -D_GNU_SOURCE -g -I. -Ibuild/gen $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lev -lwslay -lsnappy -lm
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

# One archive per folder (build/MODE/libFOLDER.a), linked in layer order: a
# folder may call only the folders after it in LAYERS (reports/ only store/
# and common/, store/ only common/), and a call upwards (say common/ into
# proto/) fails to link: see layer_check.
# Every .c of a folder is in its archive, and of its subfolders (SUBDIRS_x:
# console/serve/, the HTTP servers, whose rule tests/lint/layers.sh checks;
# worker/'s rooms, whose rules tests/lint/rooms.sh checks);
# console/main.c holds main(); build/gen/proto/*.pb-c.c go with proto/.
LAYERS := console reports store record agent worker proto common
SUBDIRS_console := console/serve
SUBDIRS_worker := worker/engine worker/plugs worker/lua worker/wire
PROTO_SRC := $(wildcard proto/*.proto)
PROTO_GEN := $(patsubst proto/%.proto,build/gen/proto/%.pb-c.c,$(PROTO_SRC))
# Generated sources are kept: make would otherwise delete them as intermediates
# and rebuild every object at the next call.
.SECONDARY: $(PROTO_GEN) $(PROTO_GEN:.c=.h)
# store/schema.sql, compiled in as schema_sql[] (store/schema.h): the one copy.
SCHEMA_GEN := build/gen/store/schema_sql.c
# console/serve/webpage.html, compiled in as webpage_html[] (console/serve/webpage.h): the --web page.
WEB_GEN := build/gen/console/serve/webpage_html.c
# worker/lua/mods/NAME.lua, the protocols written in Lua, compiled in as
# NAME_lua[] (worker/lua/lmods.h): require "quern.NAME".
MODS_GEN := $(patsubst worker/lua/mods/%.lua,build/gen/worker/lua/mods/%_lua.c,$(wildcard worker/lua/mods/*.lua))
GEN_SRC := $(PROTO_GEN) $(SCHEMA_GEN) $(WEB_GEN) $(MODS_GEN)
.SECONDARY: $(SCHEMA_GEN) $(WEB_GEN) $(MODS_GEN)
layer_src = $(filter-out console/main.c,$(wildcard $(1)/*.c $(addsuffix /*.c,$(SUBDIRS_$(1)))))
# $(call layer_obj,OBJDIR,FOLDER): the objects of FOLDER's archive
layer_obj = $(patsubst %.c,$(1)/%.o,$(call layer_src,$(2))) \
            $(if $(filter proto,$(2)),$(patsubst build/gen/%.c,$(1)/gen/%.o,$(PROTO_GEN))) \
            $(if $(filter store,$(2)),$(patsubst build/gen/%.c,$(1)/gen/%.o,$(SCHEMA_GEN))) \
            $(if $(filter console,$(2)),$(patsubst build/gen/%.c,$(1)/gen/%.o,$(WEB_GEN))) \
            $(if $(filter worker,$(2)),$(patsubst build/gen/%.c,$(1)/gen/%.o,$(MODS_GEN)))
LIB_SRC := $(foreach l,$(LAYERS),$(call layer_src,$(l)))
LIB_OBJ := $(foreach l,$(LAYERS),$(call layer_obj,$(B),$(l)))
ARCHIVES := $(foreach l,$(LAYERS),$(B)/lib$(l).a)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
# Code shared by unit tests: tests/unit/NAME.c (not test_*), with its NAME.h;
# built as $(B)/tests/unit/NAME.o and linked into each test that includes
# "tests/unit/NAME.h" (found by grep), into no other.
UNIT_SHARED_SRC := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))
UNIT_SHARED_OBJ := $(patsubst tests/unit/%.c,$(B)/tests/unit/%.o,$(UNIT_SHARED_SRC))
# Fuzz targets: under make test each runs once over its corpus (gcc, tests/fuzz/driver.c).
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_RUN := $(patsubst tests/fuzz/%.c,build/asan/fuzz/%,$(FUZZ_SRC))

.PHONY: all quern deps demo test test-build test-valgrind bench clean format fuzz fuzz-build lint cflags deb test-package \
        man install uninstall
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

# A file compiled in as a NUL-ended array: $(call embed,HEADER,NAME) writes
# $@ from $<, NAME[] and NAME_len as HEADER declares them. od and sed only
# (coreutils), so no extra package: one 0xNN per byte, then a NUL.
define embed
@mkdir -p $(dir $@)
@{ echo '/* Generated from $< by the Makefile: do not edit. */'; \
  echo '#include "$(1)"'; \
  echo 'const char $(2)[] = {'; \
  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
  echo '0x00};'; \
  echo 'const size_t $(2)_len = sizeof($(2)) - 1;'; } >$@.tmp
@mv -f $@.tmp $@
endef

$(SCHEMA_GEN): store/schema.sql
	$(call embed,store/schema.h,schema_sql)

$(WEB_GEN): console/serve/webpage.html
	$(call embed,console/serve/webpage.h,webpage_html)

build/gen/worker/lua/mods/%_lua.c: worker/lua/mods/%.lua
	$(call embed,worker/lua/lmods.h,$*_lua)

$(B)/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-error -c $< -o $@

$(B)/%.o: %.c $(PROTO_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# $(call archive_rule,ARCHIVEDIR,OBJDIR,FOLDER)
define archive_rule
$(1)/lib$(3).a: $(call layer_obj,$(2),$(3))
	@rm -f $$@
	ar rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call archive_rule,$(B),$(B),$(l))))

# The link order alone misses a call upwards into an object that the program
# pulls in anyway; so each archive is also linked whole (a stamp
# build/MODE/layers/FOLDER.ok), with only the archives it may call: a call from
# common/ to proto/ fails here, whatever else links.
# $(call below,FOLDER,LAYERS): the folders after FOLDER
below = $(if $(filter $(1),$(firstword $(2))),$(wordlist 2,99,$(2)),$(call below,$(1),$(wordlist 2,99,$(2))))
# store/ is the results database (the only folder that calls SQLite:
# tests/lint/sqlite.sh): it may call common/ alone; reports/ reads it through
# store/'s functions and calls store/ and common/; record/ (recordings turned
# into scripts) reads only files.
calls_store := common
calls_reports := store common
calls_record := common
calls = $(or $(calls_$(1)),$(call below,$(1),$(LAYERS)))
define layer_check
$(B)/layers/$(1).ok: $(B)/lib$(1).a $(foreach l,$(call calls,$(1)),$(B)/lib$(l).a)
	@mkdir -p $$(dir $$@)
	@echo "layer $(1): lib$(1).a links alone on $(or $(call calls,$(1)),the system libraries)"
	@echo 'int main(void) { return 0; }' | $$(CC) $$(CFLAGS) -o $$(basename $$@) -x c - -x none \
	  -Wl,--whole-archive $$< -Wl,--no-whole-archive $$(filter-out $$<,$$^) $$(LIBS)
	@rm -f $$(basename $$@)
	@touch $$@
endef
$(foreach l,$(LAYERS),$(eval $(call layer_check,$(l))))
LAYER_OK := $(foreach l,$(LAYERS),$(B)/layers/$(l).ok)

$(B)/quern: $(B)/console/main.o $(ARCHIVES) | $(LAYER_OK)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/quern-target: $(B)/tests/target/target.o $(B)/tests/target/tpage.o
	$(CC) $(CFLAGS) -o $@ $^ $(TARGET_LIBS) -ljansson

# Programs built from one source file against the archives write their own
# dependency file next to them (BIN.d).
DEPFLAGS = -MMD -MP -MT $@ -MF $@.d

$(B)/tests/%: tests/unit/%.c $(ARCHIVES) $(PROTO_GEN) | $(LAYER_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(filter $(UNIT_SHARED_OBJ),$^) $(ARCHIVES) $(LIBS) \
	  $(TEST_LIBS)

# $(call unit_users,NAME): the tests that include tests/unit/NAME.h
unit_users = $(patsubst tests/unit/%.c,$(B)/tests/%, \
  $(shell grep -l '^\#include "tests/unit/$(1)\.h"' $(UNIT_SRC)))
$(foreach h,$(UNIT_SHARED_SRC:tests/unit/%.c=%), \
  $(if $(call unit_users,$(h)),$(eval $(call unit_users,$(h)): $(B)/tests/unit/$(h).o)))

# driver.o is kept (not an intermediate make would delete after each build).
.SECONDARY: $(B)/tests/fuzz/driver.o
$(B)/fuzz/%: tests/fuzz/%.c $(B)/tests/fuzz/driver.o $(ARCHIVES) $(PROTO_GEN) | $(LAYER_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(B)/tests/fuzz/driver.o $(ARCHIVES) $(LIBS)

test-build:
	$(MAKE) MODE=asan quern build/asan/linkprobe build/asan/knee-server $(patsubst tests/unit/%.c,build/asan/tests/%,$(UNIT_SRC)) $(FUZZ_RUN)

# The build uses every core; tests/run.sh runs the end-to-end tests three at a time.
test: deps
	$(MAKE) -j$(shell nproc) test-build
	@QUERN_CFLAGS='$(CFLAGS_BASE)' tests/run.sh build/asan

# The checks of tests/lint/, each one ok / not ok (tests/run.sh runs them too).
lint: $(PROTO_GEN)
	@QUERN_CFLAGS='$(CFLAGS_BASE)' tests/lint/run.sh

# The flags tests/lint/headers.sh compiles each header with.
cflags:
	@echo '$(CFLAGS_BASE)'

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
FUZZ_OBJ := $(foreach l,$(LAYERS),$(call layer_obj,$(FZ)/obj,$(l)))
FUZZ_ARCHIVES := $(foreach l,$(LAYERS),$(FZ)/lib$(l).a)

$(FZ)/obj/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-error -c $< -o $@

$(FZ)/obj/%.o: %.c $(PROTO_GEN)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

# The same archives and link order as the gcc build.
$(foreach l,$(LAYERS),$(eval $(call archive_rule,$(FZ),$(FZ)/obj,$(l))))

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_ARCHIVES) $(PROTO_GEN)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_ARCHIVES) $(LIBS)

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "make fuzz: $(FUZZ_CC) not found" \
	  "(scripts/install-deps.sh --fuzz installs Debian's clang)" >&2; exit 1; }
	$(MAKE) $(patsubst %,$(FZ)/fuzz_%,$(FUZZ_TARGETS))

fuzz:
	@scripts/install-deps.sh --fuzz
	$(MAKE) fuzz-build
	@tests/fuzz/run.sh $(FZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

-include $(FUZZ_OBJ:.o=.d) $(wildcard $(FZ)/fuzz_*.d)

clean:
	rm -rf build bin

# Man pages, one a command, written from the help each command prints
# (scripts/manpage.sh), so they cannot disagree with it.
MAN_CMDS := run check new agent runs report compare har2lua ctl
MAN_PAGES := $(B)/man/quern.1 $(patsubst %,$(B)/man/quern-%.1,$(MAN_CMDS))
man: $(MAN_PAGES)

$(B)/man/quern.1: $(B)/quern scripts/manpage.sh
	@mkdir -p $(dir $@)
	scripts/manpage.sh $(B)/quern >$@.tmp && mv $@.tmp $@

$(B)/man/quern-%.1: $(B)/quern scripts/manpage.sh
	@mkdir -p $(dir $@)
	scripts/manpage.sh $(B)/quern $* >$@.tmp && mv $@.tmp $@

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary, its man pages,
# the scripts' editor annotations (share/annotations/, for LuaLS and EmmyLua)
# with an example .luarc.json naming their folder, the agent's systemd unit
# and its settings file (kept if already there).
PREFIX ?= /usr/local
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(PREFIX)/lib/systemd/system
DATADIR ?= $(PREFIX)/share/quern
install: $(B)/quern man
	install -D -m 755 $(B)/quern $(DESTDIR)$(PREFIX)/bin/quern
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(DATADIR)/annotations/quern
	install -m 644 share/annotations/*.lua $(DESTDIR)$(DATADIR)/annotations/
	install -m 644 share/annotations/quern/*.lua $(DESTDIR)$(DATADIR)/annotations/quern/
	sed 's|/usr/share/quern/|$(DATADIR)/|' docs/luarc.json >$(DESTDIR)$(DATADIR)/luarc.json
	chmod 644 $(DESTDIR)$(DATADIR)/luarc.json
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@BINDIR@|$(PREFIX)/bin|' scripts/systemd/quern-agent.service \
	  >$(DESTDIR)$(UNITDIR)/quern-agent.service
	chmod 644 $(DESTDIR)$(UNITDIR)/quern-agent.service
	test -e $(DESTDIR)$(SYSCONFDIR)/default/quern-agent || \
	  install -D -m 644 scripts/systemd/quern-agent.default $(DESTDIR)$(SYSCONFDIR)/default/quern-agent

# make deb: the Debian package (build/deb/quern_VERSION_ARCH.deb), built by
# dpkg-buildpackage from a copy of the source tree whose debian/ folder is
# scripts/debian/, then read by lintian (any warning fails).
DEB_VERSION := $(shell sed -n 's/^\#define QUERN_VERSION "\(.*\)"/\1/p' common/version.h)
deb:
	scripts/install-deps.sh debhelper dpkg-dev lintian fakeroot
	rm -rf build/deb && mkdir -p build/deb/quern-$(DEB_VERSION)
	tar -c --exclude=./build --exclude=./bin --exclude=./.git --exclude=./tests/artifacts . | \
	  tar -x -C build/deb/quern-$(DEB_VERSION)
	cp -r scripts/debian build/deb/quern-$(DEB_VERSION)/debian
	cd build/deb/quern-$(DEB_VERSION) && dpkg-buildpackage -us -uc -b -j$(shell nproc)
	lintian --fail-on error,warning build/deb/quern_$(DEB_VERSION)_*.deb

# The package installed into a clean Debian 12 root (debootstrap): minutes,
# and a Debian mirror, so not part of make test.
test-package:
	@tests/package/deb.sh

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/quern $(DESTDIR)$(UNITDIR)/quern-agent.service
	rm -f $(patsubst $(B)/man/%,$(DESTDIR)$(PREFIX)/share/man/man1/%,$(MAN_PAGES))
	rm -rf $(DESTDIR)$(DATADIR)

# The files tests/lint/format.sh checks.
FORMAT_DIRS := common proto worker $(SUBDIRS_worker) agent store reports record console console/serve tests/unit tests/fuzz tests/tools tests/target
format:
	clang-format -i $(wildcard $(addsuffix /*.c,$(FORMAT_DIRS)) $(addsuffix /*.h,$(FORMAT_DIRS)))

-include $(LIB_OBJ:.o=.d) $(B)/console/main.d $(B)/tests/fuzz/driver.d $(B)/tests/target/target.d \
  $(B)/tests/target/tpage.d $(UNIT_SHARED_OBJ:.o=.d)
-include $(UNIT_BIN:=.d) $(FUZZ_RUN:=.d) $(B)/fanin.d $(B)/linkprobe.d $(B)/connfloor.d \
  $(B)/idlefloor.d $(B)/reqfloor.d $(B)/timerlag.d $(B)/knee-server.d

# bench/run.sh's floor of memory per VU: a bare libcurl multi holding N connections.
$(B)/connfloor: bench/connfloor.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBS)

# bench/run.sh's floor of memory per idle connection: a bare epoll loop holding N sockets.
$(B)/idlefloor: bench/idlefloor.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $<

# bench/run.sh's floor of instructions per request: a bare libcurl multi loop.
$(B)/reqfloor: bench/reqfloor.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBS)

# bench/run.sh's floor of start lag: a bare timerfd loop at a fixed rate.
$(B)/timerlag: bench/timerlag.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBS)

# Test helper for bench/run.sh: N simulated agents reporting to one console.
$(B)/fanin: tests/tools/fanin.c $(ARCHIVES) $(PROTO_GEN) | $(LAYER_OK)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(ARCHIVES) $(LIBS)

# Test helper for tests/e2e/dist_link.sh: an attacker on the console-agent link.
$(B)/linkprobe: tests/tools/linkprobe.c $(ARCHIVES) $(PROTO_GEN) | $(LAYER_OK)
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(ARCHIVES) $(LIBS)

# Test helper for profiling: an HTTP server with one bottleneck (a mutex, a linear search,
# none); built alike in every mode, without sanitizers, with symbols and frame pointers.
$(B)/knee-server: tests/tools/knee_server.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -O2 -g -fno-omit-frame-pointer -pthread $(DEPFLAGS) -o $@ $<
