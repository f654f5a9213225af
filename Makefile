# stackbench: plain GNU Make. Sources are found by wildcard so that adding a
# file under src/ needs no edit here.

PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    ?= $(PREFIX)/sbin
MANDIR    ?= $(PREFIX)/share/man
DATADIR   ?= $(PREFIX)/share/stackbench

CC        ?= cc
PKGS      := blkid libudev mount devmapper fdisk smartcols json-c liburing sqlite3
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)

CFLAGS    ?= -O2 -g
# The preprocessor flags a packager gives (Debian: -D_FORTIFY_SOURCE=2 from
# dpkg-buildflags) reach every compile line, as make's own rules would pass them.
CPPFLAGS  ?=
CFLAGS    += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
             -fno-strict-aliasing -D_GNU_SOURCE -Isrc \
             -DSB_VERSION='"$(VERSION)"' -DSB_DATADIR='"$(DATADIR)"' \
             $(shell pkg-config --cflags $(PKGS))
LDLIBS    += $(shell pkg-config --libs $(PKGS)) -lm -lpthread

ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
BUILD     ?= build/asan
endif
BUILD     ?= build

SRCS      := $(sort $(wildcard src/*.c src/*/*.c))
OBJS      := $(SRCS:%.c=$(BUILD)/%.o)
LIBOBJS   := $(filter-out $(BUILD)/src/main.o,$(OBJS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all man check check-unit check-loop check-vm install clean deps demo bench bench-sensitivity bench-hybrids fmt deb FORCE

all: stackbench man

# The man page's workload entries and profile list are generated from the
# tool's own tables and the tree (tools/gen-man), rewritten when they change;
# tests/loop/harden-man.sh fails when the committed page differs.
man: $(BUILD)/stackbench
	@tools/gen-man $(BUILD)/stackbench doc/stackbench.8

stackbench: $(BUILD)/stackbench
	@if [ "$(BUILD)" = build ]; then ln -sf $(BUILD)/stackbench stackbench; fi

$(BUILD)/stackbench: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBOBJS) $(LDLIBS) -lcmocka

-include $(OBJS:.o=.d)

# The version is baked in at compile time: the objects that use it are rebuilt
# when `git describe` changes (a stamp rewritten only then), so that
# --version and result sets never show a stale commit.
VERSION_STAMP := $(BUILD)/.version
VERSION_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(shell grep -l SB_VERSION $(SRCS)))
$(VERSION_STAMP): FORCE
	@mkdir -p $(BUILD)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
$(VERSION_OBJS): $(VERSION_STAMP)
FORCE:

deps:
	tools/install-deps

# All tiers: unit (no root), loop (root, loop devices), vm (qemu). Tiers that
# cannot run here say "skipped" and why.
# Loop tests run TEST_JOBS at a time (each under its own tag, so that the
# leftover check stays per test); the VM tier boots one guest for the
# scenarios that can share it (contrib/vm/tier).
TEST_JOBS ?= 2
# The test binaries link TEST_JOBS at a time when make check is run without
# -j (44 of them, 25 s one by one from a fresh clone).
ifneq ($(filter check check-unit,$(MAKECMDGOALS)),)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(TEST_JOBS)
endif
endif
# make check runs the VM tier beside the loop tier (once the loop tests that
# must run alone are done): a software-emulated guest and the loop tests'
# waits share the cores better than one after the other (doc/testtime.md).
# VM_BESIDE= runs them one after the other.
VM_BESIDE ?= --vm-beside

check: all $(UNIT_BINS)
	tools/run-tests --build $(BUILD) -j $(TEST_JOBS) $(VM_BESIDE) unit loop vm

check-unit: all $(UNIT_BINS)
	tools/run-tests --build $(BUILD) unit

check-loop: all
	tools/run-tests --build $(BUILD) -j $(TEST_JOBS) loop

check-vm: all
	tools/run-tests --build $(BUILD) vm

install: all
	install -D -m 0755 $(BUILD)/stackbench $(DESTDIR)$(BINDIR)/stackbench
	install -d $(DESTDIR)$(DATADIR)/profiles
	install -m 0644 profiles/*.conf $(DESTDIR)$(DATADIR)/profiles/
	install -D -m 0644 contrib/bash-completion/stackbench \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/stackbench
	if [ -f doc/stackbench.8 ]; then install -D -m 0644 doc/stackbench.8 $(DESTDIR)$(MANDIR)/man8/stackbench.8; fi

fmt:
	clang-format -i $(SRCS) $(wildcard src/*.h src/*/*.h)

clean:
	rm -rf build stackbench

# The headline job: md RAID1 of an SSD and two HDDs, benchmarked and torn
# down (on loop devices when the kernel has md, in the VM runner otherwise).
# No `all` prerequisite: tools/demo installs the build dependencies first.
demo:
	tools/demo

# The Debian package, built by the Debian tools from a copy of the tree
# (dpkg-buildpackage writes next to the source, so the copy keeps the
# checkout clean); lintian errors fail. Result: build/deb/stackbench_*.deb
deb:
	tools/make-deb

# Speed and memory figures against fio and bonnie++ (not timed tests).
bench: all
	bench/run $(BENCH_ARGS)

# How small a change the comparisons see (bench/sensitivity), then what
# side by side buys against rounds and an A/A check of its intervals
# (bench/side-by-side, about 20 minutes), then what millisecond turns buy,
# their A/A check and a known injected difference found in turns and
# whole (bench/turns, about 20 minutes). They take different options:
# BENCH_ARGS goes to the first, SIDE_BENCH_ARGS (--disk-dir, --keep,
# --results) to the second, TURNS_BENCH_ARGS (--disk-dir, --keep) to the
# third.
bench-sensitivity: all
	bench/sensitivity --quick $(BENCH_ARGS)
	bench/side-by-side --quick $(SIDE_BENCH_ARGS)
	bench/turns --quick $(TURNS_BENCH_ARGS)

# The SSD + two HDDs table (issue 22) in two VM guests: every hybrid, and
# md degraded and rebuilding, with repeats (doc/hybrids.md).
bench-hybrids: all
	bench/hybrids-vm --quick $(BENCH_ARGS)

# --- Hardening (issue 7): fuzzing, static analysis, valgrind -----------------
# libFuzzer targets fuzz/fuzz_NAME.c, built with clang against the sources
# compiled with coverage and sanitizers under build/fuzz; `make fuzz` runs each
# for FUZZ_SECONDS from its seed corpus fuzz/corpus/NAME (FUZZ_TARGETS=a,b for
# a subset). Crashes land in build/fuzz/crashes/NAME; see fuzz/README.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_BUILD   := build/fuzz
FUZZ_CFLAGS  := $(filter-out -O2 -fsanitize=%,$(CFLAGS)) -O1 -fno-omit-frame-pointer \
                -fsanitize=address,undefined -fsanitize-address-use-after-scope
FUZZ_SRCS    := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_SRCS:fuzz/%.c=$(FUZZ_BUILD)/%)
FUZZ_OBJS    := $(patsubst src/%.c,$(FUZZ_BUILD)/src/%.o,$(filter-out src/main.c,$(SRCS)))

.PHONY: fuzz fuzz-build lint fmt-check valgrind-check

$(FUZZ_BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DSB_FUZZ_LIBFUZZER -o $@ $< $(FUZZ_OBJS) $(LDLIBS)

-include $(FUZZ_OBJS:.o=.d)

comma := ,

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	fuzz/run --build $(FUZZ_BUILD) --seconds $(FUZZ_SECONDS) $(subst $(comma), ,$(FUZZ_TARGETS))


# clang-format's check, the include edges of src/ against ARCHITECTURE.md's
# folder table (tools/lint-includes), the lookups of profile keys by name
# outside the layer that owns the key (tools/lint-keys), the sizes of src/'s files and
# functions (tools/lint-size: 800 and 100 lines), shellcheck over every
# shell file, then cppcheck and clang-tidy over src/: no findings, or a
# justified suppression.
lint: fmt-check
	tools/lint-includes
	tools/lint-keys
	tools/lint-size
	tools/lint-sh
	tools/lint

# clang-format over src/ (.clang-format at the root): lists what `make fmt`
# would change and fails if anything.
fmt-check:
	clang-format --dry-run --Werror $(SRCS) $(wildcard src/*.h src/*/*.h)

# The unit test binaries under valgrind: no leaks, no memory errors.
valgrind-check: $(UNIT_BINS)
	tools/valgrind-unit --build $(BUILD)

# The replay test #includes the fuzz targets: rebuild it when they change.
$(BUILD)/tests/test_fuzz_replay: $(wildcard fuzz/*.c fuzz/*.h)
