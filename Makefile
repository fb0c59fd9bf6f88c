# bringup: plain GNU make, pkg-config for every library.
#
#   make            build ./bringup
#   make check      unit tests (cmocka) + integration tests (simulated cluster)
#   make asan       the same tests under AddressSanitizer + UBSan (build-asan/)
#   make bench      benchmarks (see tests/bench/)
#   make demo       simulated cluster + the main job on it
#   make install    PREFIX=/usr/local DESTDIR=
#   make clean

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=
O       ?= build

CC      ?= cc
PKGS    := libssh yaml-0.1 libarchive libcurl ncursesw libibverbs jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wformat=2 -Wno-missing-field-initializers
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE -pthread $(WARN) $(PKG_CFLAGS) $(CFLAGS) $(SAN)
ALL_LDFLAGS = -pthread $(LDFLAGS) $(SAN)

LIB_SRCS := $(sort $(wildcard engine/*.c modules/*.c sim/*.c tui/*.c))
CMD_SRCS := $(sort $(filter-out cmd/main.c,$(wildcard cmd/*.c)))
SIM_TOOLS := $(sort $(wildcard sim/tools/*))
TEMPLATES := $(sort $(shell find templates playbooks -type f 2>/dev/null))

LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o) $(O)/gen/sim-assets.o $(O)/gen/templates.o
CMD_OBJS := $(CMD_SRCS:%.c=$(O)/%.o)
MAIN_OBJ := $(O)/cmd/main.o

UNIT_SRCS  := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)

BIN := $(O)/bringup

# Short lines unless V=1 (kernel style), so that warnings stand out.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

.PHONY: all check unit integration asan bench demo install clean deps
all: $(BIN) bringup

bringup: $(BIN)
	@ln -sf $(BIN) bringup

$(BIN): $(MAIN_OBJ) $(CMD_OBJS) $(LIB_OBJS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The simulator's stand-in tools travel inside the binary so that bringup
# stays a single file; sim up writes them out.
$(O)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -o $@ $<

$(O)/gen/sim-assets.c: $(O)/tools/embed $(SIM_TOOLS) Makefile
	@mkdir -p $(dir $@)
	$(O)/tools/embed sim/assets.h sim_asset sim_assets sim_nassets sim/tools/ \
		$(SIM_TOOLS) > $@.tmp && mv $@.tmp $@

# Templates (manifests, config files, remote scripts) travel the same way.
$(O)/gen/templates.c: $(O)/tools/embed $(TEMPLATES) Makefile
	@mkdir -p $(dir $@)
	$(O)/tools/embed engine/template.h template_asset template_assets \
		template_nassets templates/ $(TEMPLATES) > $@.tmp && mv $@.tmp $@

$(O)/gen/%.o: $(O)/gen/%.c
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -I. -c -o $@ $<

$(O)/tests/test-%: tests/unit/test-%.c $(CMD_OBJS) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call say,TEST,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS) $(ALL_LDFLAGS)

unit: $(UNIT_BINS)
	@O=$(O) sh tests/run-unit.sh $(UNIT_BINS)

integration: $(BIN)
	@BRINGUP=$(CURDIR)/$(BIN) sh tests/integration/run.sh

check: $(BIN) $(UNIT_BINS)
	@O=$(O) BRINGUP=$(CURDIR)/$(BIN) sh tests/run-all.sh $(UNIT_BINS)

asan:
	$(MAKE) O=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" CFLAGS="-O1 -g" check

bench: $(BIN)
	@BRINGUP=$(CURDIR)/$(BIN) sh tests/bench/run.sh

demo: $(BIN)
	@BRINGUP=$(CURDIR)/$(BIN) sh tools/demo.sh

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/bringup
	install -m 0644 man/bringup.1 $(DESTDIR)$(MANDIR)/man1/bringup.1

clean:
	rm -rf build build-asan bringup

-include $(shell find $(O) -name '*.d' 2>/dev/null)
