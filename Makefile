# animd - one non-recursive Makefile.
#
#   make run      install missing packages, build, run on the demo assets
#                 with its own configuration (build/animd.ini and the
#                 drop-ins of build/animd.ini.d/), never /etc/animd's
#   make check    install missing packages, build, run every test
#                 (unit tests twice: plain and under ASan+UBSan)
#   make bench    build optimised and print the benchmark figures
#   make fuzz     run every libFuzzer harness for FUZZ_SECONDS each
#   make coverage line and branch coverage from the unit tests and corpora
#   make soak     the real daemon under load and abuse for SOAK_SECONDS
#                 (SOAK_SAN=1: the daemon built with ASan+UBSan)
#   make install  PREFIX=/usr/local DESTDIR= (and BINDIR, LIBDIR, INCLUDEDIR,
#                 MANDIR, SYSCONFDIR, UNITDIR, ... below); make uninstall
#                 with the same variables removes what it installed
#   make deb      the Debian packages (debian/), into build/deb/, and lintian
#   V=1           show full commands
#
# Source files are found by folder, so adding a module or a test needs no
# edit here: everything under daemon/ and proto/ but main() forms
# libanimcore.a (tests link it too), daemon/service/main.c the animd binary, tests/unit/test_*.c one
# cmocka program each, tests/integration/test_*.{c,sh} one end-to-end test
# each (the real animd), tests/fuzz/fuzz_*.c one harness each,
# tests/bench/bench_*.c one benchmark each, tests/gen/gen_*.c one generator
# each; tests/support/*.c (fixture writers) link into all of those.

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DATADIR  ?= $(PREFIX)/share
MANDIR   ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
SYSCONFDIR ?= /etc
# Where systemd looks for units, sysusers.d and tmpfiles.d files (its
# pkg-config file says; without it, under PREFIX).  Asked once.
ifeq ($(origin UNITDIR),undefined)
UNITDIR := $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),$(PREFIX)/lib/systemd/system)
endif
ifeq ($(origin SYSUSERSDIR),undefined)
SYSUSERSDIR := $(or $(shell pkg-config --variable=sysusersdir systemd 2>/dev/null),$(PREFIX)/lib/sysusers.d)
endif
ifeq ($(origin TMPFILESDIR),undefined)
TMPFILESDIR := $(or $(shell pkg-config --variable=tmpfilesdir systemd 2>/dev/null),$(PREFIX)/lib/tmpfiles.d)
endif
BUILD    ?= build
CC       ?= cc
OPT      ?= -O2 -g
SAN      ?=
FUZZ_SECONDS ?= 60
FUZZ_CC  ?= clang
SOAK_SECONDS ?= 20
SOAK_CLIENTS ?= 8
SOAK_SAN ?=

# Debian packages the project needs; `make deps` installs the missing ones.
DEB_PACKAGES = build-essential pkg-config clang libclang-rt-dev \
	libuv1-dev libmsgpack-dev libinih-dev libcmocka-dev zlib1g-dev libdeflate-dev \
	libsystemd-dev libjansson-dev jq gcovr python3 python3-msgpack python3-pynvim \
	python3-numpy python3-matplotlib python3-venv mypy debhelper dpkg-dev
# ... and for make deb only, which checks the packages.
DEB_TOOLS = lintian
# libsystemd is not linked: the daemon loads it when systemd runs it
# (daemon/service/base/systemd_lib.c), so the offline tools never pay for it.
PC_LIBS = jansson msgpack inih libuv zlib libdeflate
# groff renders the manual pages for their lint test (tests/integration/test_man_lint.sh);
# man-db's man -w finds each function's page for test_man_complete.sh.
DEB_PACKAGES += groff-base man-db

# The manual pages, plain roff (man(7) macros): nothing to generate.
MAN_PAGES := $(wildcard man/*.[1-8])

# The one version (VERSION): every compilation gets it as ANIMD_VERSION, the
# pkg-config file as its Version, debian/changelog must start with it, and
# client/animclient.h's ANIMC_VERSION_* macros (what a client's compiler
# sees) must spell it: $(VERSION_STAMP) refuses to build when they do not.
VERSION := $(shell cat VERSION)
HEADER_VERSION = $(shell sed -n 's/^\#define ANIMC_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' \
	client/animclient.h | paste -sd.)
VERSION_CFLAGS = -DANIMD_VERSION='"$(VERSION)"'

# The tests and the bench run the Python package with Debian's python3 (a
# pyenv or virtualenv python3 first on PATH lacks Debian's packages).
PYTHON ?= /usr/bin/python3

SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARN    = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	  -Wno-unused-parameter
CFLAGS_ALL = -std=c11 -D_GNU_SOURCE -fno-strict-aliasing $(WARN) $(OPT) -MMD -MP -I. \
	$(VERSION_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDLIBS_ALL = $(LDLIBS) -lm -lpthread
ifneq ($(SAN),)
CFLAGS_ALL += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=$(SAN)
endif

# pkg-config is evaluated lazily, after `make deps` has run.
PC_CFLAGS = $(shell pkg-config --cflags $(PC_LIBS))
PC_LDLIBS = $(shell pkg-config --libs $(PC_LIBS))
CMOCKA_LDLIBS = $(shell pkg-config --libs cmocka)

# The engine (bytes in, poses out) is what the fuzzers link; the library
# adds the wire, the service and the offline tools, everything but main().
ENGINE_SRC := $(sort $(wildcard daemon/formats/*.c daemon/formats/*/*.c daemon/anim/*.c daemon/import/*.c \
	daemon/assets/*.c))
PROTO_SRC  := $(sort $(wildcard proto/*.c))
CORE_SRC  := $(ENGINE_SRC) $(PROTO_SRC) \
	$(sort $(filter-out daemon/service/main.c,$(wildcard daemon/offline/*.c daemon/service/*.c daemon/service/*/*.c)))
ANIMD_SRC := daemon/service/main.c
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
SUPPORT_SRC := $(sort $(wildcard tests/support/*.c))
BENCH_SRC := $(sort $(wildcard tests/bench/bench_*.c))
GEN_SRC   := $(sort $(wildcard tests/gen/gen_*.c))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
INTEG_SH   := $(sort $(wildcard tests/integration/test_*.sh))
INTEG_SRC  := $(sort $(wildcard tests/integration/test_*.c))
SOAK_SRC   := $(sort $(wildcard tests/soak/*.c))

CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
ANIMD_OBJ := $(ANIMD_SRC:%.c=$(BUILD)/obj/%.o)
SUPPORT_OBJ := $(SUPPORT_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
GEN_BIN   := $(GEN_SRC:tests/gen/%.c=$(BUILD)/gen/%)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
REPLAY_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/replay/%)
INTEG_BIN := $(INTEG_SRC:tests/integration/%.c=$(BUILD)/integration/%)
# Programs the integration tests run (not tests themselves): the C stream
# reader the Python package is compared with.
INTEG_HELPER_BIN := $(BUILD)/integration/c_stream_reader $(BUILD)/integration/whole_writes.so
SOAK_OBJ  := $(SOAK_SRC:%.c=$(BUILD)/obj/%.o)
SOAK_BIN  := $(BUILD)/soak/soak

# libanimclient: client/lib/*.c plus the wire and stream layout of proto/,
# compiled position-independent with hidden visibility; only the animc_
# prefix is exported (client/libanimclient.map).  animctl links the static
# library and uses nothing but the public header, and proto/describe.c: the
# words it prints about an asset, which animd inspect prints too.
CLIENT_SRC     := $(sort $(wildcard client/lib/*.c))
CLIENT_LIB_SRC := $(CLIENT_SRC) $(PROTO_SRC)
CLIENT_LIB_OBJ := $(CLIENT_LIB_SRC:%.c=$(BUILD)/pic/%.o)
# Unit tests of the library's internals (tests/unit/test_client_*.c) link
# its objects compiled plainly, so the ac_ functions they call are visible.
CLIENT_OBJ     := $(CLIENT_SRC:%.c=$(BUILD)/obj/%.o)
ANIMCTL_SRC    := $(sort $(wildcard client/animctl/*.c))
ANIMCTL_OBJ    := $(ANIMCTL_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/proto/describe.o
CLIENT_SONAME  := libanimclient.so.1
CLIENT_A       := $(BUILD)/libanimclient.a
CLIENT_SO      := $(BUILD)/$(CLIENT_SONAME)
ANIMCTL        := $(BUILD)/animctl
CLIENT_PC      := $(BUILD)/animclient.pc

CORE_LIB  := $(BUILD)/libanimcore.a
ANIMD     := $(BUILD)/animd
DEMO_DIR  := $(BUILD)/demo

.PHONY: all deps run check check-layers check-unit check-san check-integration unit-tests \
	bench fuzz replay coverage soak demo install uninstall deb debs clean check-fuzz-findings
.DEFAULT_GOAL := all
# Objects built through pattern chains are kept, not deleted as intermediates.
.SECONDARY:

all: $(ANIMD) $(GEN_BIN) $(if $(wildcard client/lib/*.c),$(CLIENT_A) $(CLIENT_SO) $(CLIENT_PC)) \
	$(if $(ANIMCTL_SRC),$(ANIMCTL))

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# Every object is rebuilt when the version changes (the stamp is rewritten
# only then, so an edit of the header alone rebuilds nothing more).
VERSION_STAMP := $(BUILD)/version.stamp
$(VERSION_STAMP): VERSION client/animclient.h
	@mkdir -p $(dir $@)
	$(Q)[ "$(HEADER_VERSION)" = "$(VERSION)" ] || { echo "client/animclient.h's ANIMC_VERSION_* say" \
	  "$(HEADER_VERSION), VERSION says $(VERSION): make them agree" >&2; exit 1; }
	$(Q)[ "$$(cat $@ 2>/dev/null)" = "$(VERSION)" ] || echo $(VERSION) >$@

$(BUILD)/obj/%.o: %.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(PC_CFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (pic)")
	$(Q)$(CC) $(CFLAGS_ALL) -fPIC -fvisibility=hidden $(PC_CFLAGS) -c $< -o $@

# The static library is one relocatable object whose hidden symbols are made
# local, so a program linking it sees the animc_ prefix and nothing else.
$(CLIENT_A): $(CLIENT_LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ld -r -o $(BUILD)/animclient.o $^ && \
	  objcopy --localize-hidden $(BUILD)/animclient.o && ar rcs $@ $(BUILD)/animclient.o

$(CLIENT_SO): $(CLIENT_LIB_OBJ) client/libanimclient.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -shared -fPIC -Wl,-soname,$(CLIENT_SONAME) \
	  -Wl,--version-script=client/libanimclient.map -Wl,--no-undefined \
	  -o $@ $(CLIENT_LIB_OBJ) $$(pkg-config --libs msgpack) -lm
	$(Q)ln -sf $(CLIENT_SONAME) $(BUILD)/libanimclient.so

$(CLIENT_PC): client/animclient.pc.in $(VERSION_STAMP)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	  -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< >$@

$(ANIMCTL): $(ANIMCTL_OBJ) $(CLIENT_A)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $$(pkg-config --libs msgpack) -lm

$(CORE_LIB): $(CORE_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(ANIMD): $(ANIMD_OBJ) $(CORE_LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(PC_LDLIBS) $(LDLIBS_ALL)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(SUPPORT_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(CMOCKA_LDLIBS) $(PC_LDLIBS) $(LDLIBS_ALL)

# A static pattern rule: its prerequisites are explicit, so the library's
# plain objects are built even in a fresh tree (an implicit rule would be
# passed over for the generic one above when they do not exist yet).
CLIENT_UNIT_BIN := $(filter $(BUILD)/tests/test_client_%,$(UNIT_BIN))
$(CLIENT_UNIT_BIN): $(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(CLIENT_OBJ) $(SUPPORT_OBJ) \
	$(CORE_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(CMOCKA_LDLIBS) $(PC_LDLIBS) $(LDLIBS_ALL)

# What test_whole_writes preloads into animd: socket writes taken whole.
$(BUILD)/integration/whole_writes.so: tests/integration/whole_writes.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -fPIC -shared -o $@ $< $(shell pkg-config --cflags libuv) -ldl

$(BUILD)/integration/%: $(BUILD)/obj/tests/integration/%.o $(SUPPORT_OBJ) $(CORE_LIB) $(CLIENT_A)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(CMOCKA_LDLIBS) $(PC_LDLIBS) $(LDLIBS_ALL)

$(SOAK_BIN): $(SOAK_OBJ) $(SUPPORT_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(PC_LDLIBS) $(LDLIBS_ALL)

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(SUPPORT_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(PC_LDLIBS) $(LDLIBS_ALL)

# The client library's bench links the library, as a client does.
$(BUILD)/bench/bench_client: $(CLIENT_A)

# ACL beside the codec in bench_codec, when ACL_DIR names ACL 2.1's sources
# (github.com/nfrechette/acl, header-only) and RTM_DIR rtm's (by default
# its submodule): `make bench ACL_DIR=... RTM_DIR=...`.  Never part of the
# tree; tests/bench/acl_compare.cpp is the only C++, built only then.
ACL_DIR ?=
RTM_DIR ?= $(ACL_DIR)/external/rtm
ifneq ($(ACL_DIR),)
$(BUILD)/obj/tests/bench/acl_compare.o: tests/bench/acl_compare.cpp tests/bench/acl_compare.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $<")
	$(Q)$(CXX) -std=c++17 $(OPT) -I. -isystem $(ACL_DIR)/includes -isystem $(RTM_DIR)/includes \
	  -c -o $@ $<

$(BUILD)/obj/tests/bench/bench_codec_acl.o: tests/bench/bench_codec.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -DBENCH_ACL -c -o $@ $<

$(BUILD)/bench/bench_codec: $(BUILD)/obj/tests/bench/bench_codec_acl.o \
			    $(BUILD)/obj/tests/bench/acl_compare.o $(SUPPORT_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(PC_LDLIBS) $(LDLIBS_ALL) -lstdc++
endif

$(BUILD)/gen/%: $(BUILD)/obj/tests/gen/%.o $(SUPPORT_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(PC_LDLIBS) $(LDLIBS_ALL)

unit-tests: $(UNIT_BIN)

# Demo assets come from our own generator, never from a game.  Only the
# files missing from $(DEMO_DIR) are written: the README invites edits there
# while `make run` serves it, and the next run keeps them.
demo: $(GEN_BIN)
	@mkdir -p $(DEMO_DIR)
	$(Q)$(BUILD)/gen/gen_demo --missing $(DEMO_DIR)

# make run's own configuration: with -c, animd reads that file and the
# *.ini of its drop-in folder ($(RUN_CONFIG).d/) and nothing else, so an
# animd installed on the machine (/etc/animd/animd.ini and its drop-ins)
# changes nothing here.  The file is written from this Makefile; settings
# of your own for the demo go into a drop-in, which stays.  The assets and
# the socket are flags: relative paths (a file's must be absolute) keep
# the socket's address short wherever the tree is.
RUN_SOCKET := $(BUILD)/animd.sock
RUN_CONFIG := $(BUILD)/animd.ini
$(RUN_CONFIG): Makefile
	@mkdir -p $@.d
	$(Q)printf '%s\n' '; The configuration of `make run` (written by the Makefile, which passes' \
	  '; -c $@): put settings of your own into $@.d/NAME.ini.' \
	  '' '[log]' 'level = info' >$@

run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all demo $(RUN_CONFIG)
	@echo "== animd check $(DEMO_DIR)"
	$(Q)$(ANIMD) check -v $(DEMO_DIR)
	@echo
	@echo "== animd serve: assets $(DEMO_DIR), socket $(RUN_SOCKET), configuration $(RUN_CONFIG)"
	@echo "   (and $(RUN_CONFIG).d/*.ini; Ctrl-C stops it)"
	@echo "   In another terminal, try:"
	@echo "     $(ANIMCTL) --socket $(RUN_SOCKET) list"
	@echo "     $(ANIMCTL) --socket $(RUN_SOCKET) watch walker.md5anim --mesh walker.md5mesh"
	@echo "     $(ANIMCTL) --socket $(RUN_SOCKET) watch crane.x"
	@echo "     $(ANIMCTL) --socket $(RUN_SOCKET) events      (then edit a file in $(DEMO_DIR))"
	@echo
	$(Q)$(ANIMD) serve -c $(RUN_CONFIG) --assets $(DEMO_DIR) --socket $(RUN_SOCKET)

check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory check-unit
	@$(MAKE) --no-print-directory check-san
	@$(MAKE) --no-print-directory check-fuzz-findings
	@$(MAKE) --no-print-directory check-integration

# Every input a fuzzer once crashed on (tests/fuzz/seeds/regression-*),
# replayed through its harness as libFuzzer built it (clang, ASan+UBSan):
# a finding stays a test.
FINDINGS := $(sort $(wildcard tests/fuzz/seeds/regression-*))
FINDING_HARNESSES := $(sort $(foreach f,$(FINDINGS),$(BUILD)/fuzz/fuzz_$(subst .,,$(suffix $(f)))))
check-fuzz-findings: $(FINDING_HARNESSES)
	@echo "== fuzz findings replayed"
	$(Q)set -e; for f in $(FINDINGS); do \
	  h=$(BUILD)/fuzz/fuzz_$${f##*.}; \
	  $$h -runs=1 $$f >$(BUILD)/fuzz/replay.log 2>&1 || { cat $(BUILD)/fuzz/replay.log; exit 1; }; \
	  echo "PASS  $$f"; done

# The folders' include rules (tests/layers), and proof that the check
# catches a wrong include.
check-layers:
	@echo "== layers"
	$(Q)tests/check-layers.sh && tests/check-layers.sh --self-test

check-unit: all unit-tests
	@echo "== unit tests"
	$(Q)tests/run-tests.sh unit $(UNIT_BIN)

check-san:
	@echo "== unit tests under AddressSanitizer + UndefinedBehaviorSanitizer"
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN=address,undefined OPT="-O1 -g" unit-tests
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  tests/run-tests.sh unit-san $(UNIT_BIN:$(BUILD)/%=$(BUILD)/san/%)

check-integration: all demo $(INTEG_BIN) $(INTEG_HELPER_BIN)
	@echo "== integration tests"
	$(Q)ANIMD=$(abspath $(ANIMD)) BUILD=$(abspath $(BUILD)) tests/run-tests.sh integration $(INTEG_SH) $(INTEG_BIN)

# Benchmarks run against an optimised build of everything, daemon included.
BENCH_BUILD := $(BUILD)/bench-build
bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory BUILD=$(BENCH_BUILD) OPT="-O2 -DNDEBUG" \
	  all $(BENCH_SRC:tests/bench/%.c=$(BENCH_BUILD)/bench/%)
	$(Q)set -e; for b in $(BENCH_SRC:tests/bench/%.c=$(BENCH_BUILD)/bench/%); do \
	  ANIMD=$(abspath $(BENCH_BUILD))/animd BUILD=$(abspath $(BENCH_BUILD)) $$b; done
	@# The Python package beside libanimclient: Debian's python3, as the
	@# tests use; it says why and passes when its packages are missing.
	$(Q)if [ -x $(PYTHON) ]; then ANIMD=$(abspath $(BENCH_BUILD))/animd \
	  BUILD=$(abspath $(BENCH_BUILD)) $(PYTHON) tests/bench/bench_python.py; \
	else echo "bench_python: skipped: $(PYTHON) is not installed"; fi

# The soak test drives the real daemon: plain, or with SOAK_SAN=1 built with
# ASan+UBSan into $(BUILD)/san as check-san builds the unit tests, leaks
# checked at its exit (a report fails the run) and slower replies allowed.
SOAK_SAN_DAEMON := $(BUILD)/san/animd
soak:
	@$(MAKE) --no-print-directory deps
ifneq ($(SOAK_SAN),)
	@$(MAKE) --no-print-directory $(SOAK_BIN)
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN=address,undefined OPT="-O1 -g" $(SOAK_SAN_DAEMON)
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:quarantine_size_mb=32 UBSAN_OPTIONS=print_stacktrace=1 SOAK_SAN=1 \
	  ANIMD=$(abspath $(SOAK_SAN_DAEMON)) $(SOAK_BIN) -s $(SOAK_SECONDS) -k $(SOAK_CLIENTS) -t 30000
else
	@$(MAKE) --no-print-directory $(ANIMD) $(SOAK_BIN)
	$(Q)ANIMD=$(abspath $(ANIMD)) $(SOAK_BIN) -s $(SOAK_SECONDS) -k $(SOAK_CLIENTS)
endif

# libFuzzer: each harness links the engine sources compiled by clang; the
# stream reader's harness links the client library's instead.
FUZZ_LINK_SRC = $(ENGINE_SRC) $(PROTO_SRC)
$(BUILD)/fuzz/fuzz_stream: FUZZ_LINK_SRC = $(CLIENT_LIB_SRC)
$(BUILD)/fuzz/fuzz_stream: $(CLIENT_LIB_SRC) tests/fuzz/fuzz_stream.h
$(BUILD)/fuzz/%: tests/fuzz/%.c $(ENGINE_SRC) $(PROTO_SRC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -I. $(WARN) $(VERSION_CFLAGS) \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  $(PC_CFLAGS) -o $@ $< $(FUZZ_LINK_SRC) $(PC_LDLIBS) -lm

fuzz:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory $(FUZZ_BIN) $(BUILD)/gen/gen_x_seeds $(BUILD)/gen/gen_stream_seeds \
	  $(BUILD)/gen/gen_m2_seeds $(BUILD)/gen/gen_gltf_seeds
	@# Binary and compressed .x seeds, M2 and glTF seeds and stream regions
	@# come from our own writers (the daemon's own layout and writer for streams).
	$(Q)mkdir -p $(BUILD)/fuzz/corpus-x && $(BUILD)/gen/gen_x_seeds $(BUILD)/fuzz/corpus-x
	$(Q)mkdir -p $(BUILD)/fuzz/corpus-stream && $(BUILD)/gen/gen_stream_seeds $(BUILD)/fuzz/corpus-stream
	$(Q)mkdir -p $(BUILD)/fuzz/corpus-m2 && $(BUILD)/gen/gen_m2_seeds $(BUILD)/fuzz/corpus-m2
	$(Q)mkdir -p $(BUILD)/fuzz/corpus-gltf && $(BUILD)/gen/gen_gltf_seeds $(BUILD)/fuzz/corpus-gltf
	$(Q)set -e; for f in $(FUZZ_BIN); do tests/fuzz/run-fuzzer.sh $$f $(FUZZ_SECONDS) $(BUILD)/fuzz; done

# The same harnesses built with $(CC) against a main that replays files
# (tests/fuzz/replay.c) instead of libFuzzer, for make coverage.  They link
# the client library's objects too, for fuzz_stream.
$(REPLAY_BIN): $(BUILD)/replay/%: $(BUILD)/obj/tests/fuzz/%.o $(BUILD)/obj/tests/fuzz/replay.o \
	$(CLIENT_OBJ) $(SUPPORT_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(PC_LDLIBS) $(LDLIBS_ALL)

replay: $(REPLAY_BIN)

# Line and branch coverage of daemon/formats, daemon/anim and proto from the
# unit tests and the fuzz corpora: gcc --coverage in its own build
# directory, the report by gcovr (tests/coverage.sh).  Not part of check.
COV_BUILD := $(BUILD)/cov
coverage:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory BUILD=$(COV_BUILD) CC=gcc \
	  OPT="-O0 -g --coverage -fprofile-update=atomic" unit-tests replay \
	  $(COV_BUILD)/gen/gen_x_seeds $(COV_BUILD)/gen/gen_stream_seeds $(COV_BUILD)/gen/gen_m2_seeds \
	  $(COV_BUILD)/gen/gen_gltf_seeds
	$(Q)COV=$(COV_BUILD) FUZZ_WORK=$(BUILD)/fuzz tests/coverage.sh

# What make install puts where, and make uninstall removes: the same lists.
# Man pages are whatever man/*.[1-8] exist (into man$(section)), bash
# completions whatever completion/ holds (a .bash suffix dropped).
MAN_PAGES   := $(sort $(wildcard man/*.[1-8]))
COMPLETIONS := $(sort $(wildcard completion/*))
INSTALLED_MAN := $(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
INSTALLED_COMPLETIONS := $(foreach c,$(COMPLETIONS),$(BASHCOMPDIR)/$(notdir $(c:.bash=)))
INSTALLED := $(BINDIR)/animd $(BINDIR)/animctl $(LIBDIR)/$(CLIENT_SONAME) $(LIBDIR)/libanimclient.so \
	$(LIBDIR)/libanimclient.a $(INCLUDEDIR)/animclient.h $(PKGCONFIGDIR)/animclient.pc \
	$(UNITDIR)/animd.service $(UNITDIR)/animd.socket $(SYSUSERSDIR)/animd.conf \
	$(TMPFILESDIR)/animd.conf $(INSTALLED_MAN) $(INSTALLED_COMPLETIONS)
CONF_FILE := $(SYSCONFDIR)/animd/animd.ini
# The administrator's drop-ins (animd.ini(5)): made empty, never filled.
CONF_DROPINS := $(CONF_FILE).d

install: all
	install -d $(sort $(dir $(addprefix $(DESTDIR),$(INSTALLED) $(CONF_FILE))))
	install -d $(DESTDIR)$(CONF_DROPINS)
	install -m 0755 $(ANIMD) $(DESTDIR)$(BINDIR)/animd
	install -m 0755 $(ANIMCTL) $(DESTDIR)$(BINDIR)/animctl
	install -m 0755 $(CLIENT_SO) $(DESTDIR)$(LIBDIR)/$(CLIENT_SONAME)
	ln -sfn $(CLIENT_SONAME) $(DESTDIR)$(LIBDIR)/libanimclient.so
	install -m 0644 $(CLIENT_A) $(DESTDIR)$(LIBDIR)/libanimclient.a
	install -m 0644 client/animclient.h $(DESTDIR)$(INCLUDEDIR)/animclient.h
	@# Written here, not copied from the build, so PREFIX given to install counts.
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	  -e 's|@VERSION@|$(VERSION)|g' client/animclient.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/animclient.pc
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' systemd/animd.service \
	  >$(DESTDIR)$(UNITDIR)/animd.service
	install -m 0644 systemd/animd.socket $(DESTDIR)$(UNITDIR)/animd.socket
	install -m 0644 systemd/animd.sysusers $(DESTDIR)$(SYSUSERSDIR)/animd.conf
	install -m 0644 systemd/animd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/animd.conf
	$(Q)set -e; for m in $(MAN_PAGES); do s=$${m##*.}; \
	  echo "install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/"; \
	  install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	$(Q)set -e; for c in $(COMPLETIONS); do n=$$(basename $$c .bash); \
	  echo "install -m 0644 $$c $(DESTDIR)$(BASHCOMPDIR)/$$n"; \
	  install -m 0644 $$c $(DESTDIR)$(BASHCOMPDIR)/$$n; done
	@# Never overwrite an operator's configuration on a live system; a
	@# staged install (DESTDIR) gets the default.
	$(Q)if [ -z "$(DESTDIR)" ] && [ -e $(CONF_FILE) ]; then \
	  echo "kept $(CONF_FILE) (the default is conf/animd.ini)"; \
	else echo "install -m 0644 conf/animd.ini $(DESTDIR)$(CONF_FILE)"; \
	  install -m 0644 conf/animd.ini $(DESTDIR)$(CONF_FILE); fi

# Removes what install put, and nothing else: the configuration only while it
# is still the default (an edited one stays), no directory but animd's own
# configuration directory and its drop-in folder once empty (a drop-in is
# the administrator's: it stays, and so do they).
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	$(Q)if cmp -s conf/animd.ini $(DESTDIR)$(CONF_FILE); then \
	  echo "rm -f $(DESTDIR)$(CONF_FILE)"; rm -f $(DESTDIR)$(CONF_FILE); \
	elif [ -e $(DESTDIR)$(CONF_FILE) ]; then echo "kept $(DESTDIR)$(CONF_FILE): it was edited"; fi
	$(Q)[ ! -d $(DESTDIR)$(CONF_DROPINS) ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(CONF_DROPINS)
	$(Q)[ ! -d $(DESTDIR)$(CONF_DROPINS) ] || echo "kept $(DESTDIR)$(CONF_DROPINS): it holds drop-ins"
	$(Q)[ ! -d $(DESTDIR)$(SYSCONFDIR)/animd ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(SYSCONFDIR)/animd

# The Debian packages (debian/), built by dpkg-buildpackage from a copy of
# the tree so that nothing it writes lands in the sources: the .debs and
# .changes into $(DEB_DIR).  make deb checks them with lintian too;
# tests/integration/test_deb.sh builds them with debs and installs them.
DEB_DIR ?= $(BUILD)/deb
debs:
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	$(Q)tar -c --exclude=./build --exclude=./.git . | tar -x -C $(DEB_DIR)/src
	$(Q)cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
	  { tail -40 ../build.log; exit 1; }
	$(Q)rm -rf $(DEB_DIR)/src
	@ls $(DEB_DIR)/*.deb

deb:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(DEB_TOOLS)"
	@$(MAKE) --no-print-directory debs
	lintian $(DEB_DIR)/*.changes

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj $(BUILD)/pic -name '*.d' 2>/dev/null)
