# stackbench: plain GNU Make. Sources are found by wildcard so that adding a
# file under src/ needs no edit here.

PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    ?= $(PREFIX)/sbin
MANDIR    ?= $(PREFIX)/share/man
DATADIR   ?= $(PREFIX)/share/stackbench

CC        ?= cc
PKGS      := blkid libudev mount devmapper fdisk smartcols json-c
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)

CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
             -fno-strict-aliasing -D_GNU_SOURCE -Isrc \
             -DSB_VERSION='"$(VERSION)"' -DSB_DATADIR='"$(DATADIR)"' \
             $(shell pkg-config --cflags $(PKGS))
LDLIBS    += $(shell pkg-config --libs $(PKGS)) -lm -lpthread

ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
BUILD     ?= build/asan
endif
BUILD     ?= build

SRCS      := $(sort $(wildcard src/*.c src/*/*.c))
OBJS      := $(SRCS:%.c=$(BUILD)/%.o)
LIBOBJS   := $(filter-out $(BUILD)/src/main.o,$(OBJS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all check check-unit check-loop check-vm install clean deps demo bench fmt

all: stackbench

stackbench: $(BUILD)/stackbench
	@if [ "$(BUILD)" = build ]; then ln -sf $(BUILD)/stackbench stackbench; fi

$(BUILD)/stackbench: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBOBJS) $(LDLIBS) -lcmocka

-include $(OBJS:.o=.d)

deps:
	tools/install-deps

# All tiers: unit (no root), loop (root, loop devices), vm (qemu). Tiers that
# cannot run here say "skipped" and why.
check: all $(UNIT_BINS)
	tools/run-tests --build $(BUILD) unit loop vm

check-unit: all $(UNIT_BINS)
	tools/run-tests --build $(BUILD) unit

check-loop: all
	tools/run-tests --build $(BUILD) loop

check-vm: all
	tools/run-tests --build $(BUILD) vm

install: all
	install -D -m 0755 $(BUILD)/stackbench $(DESTDIR)$(BINDIR)/stackbench
	install -d $(DESTDIR)$(DATADIR)/profiles
	install -m 0644 profiles/*.conf $(DESTDIR)$(DATADIR)/profiles/
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

# Speed and memory figures against fio and bonnie++ (not timed tests).
bench: all
	bench/run $(BENCH_ARGS)
