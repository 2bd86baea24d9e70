# squashkit — one non-recursive Makefile.
#   make            build ./squashkit (in $(BUILD), linked to ./squashkit)
#   make check      install what is missing, build, run every test (plain, ASan+UBSan, TSan, fuzz)
#   make demo       install what is missing, build, run the bench on its embedded default image
#   make install    PREFIX=/usr/local DESTDIR=
#   make install-links, make install-compat   the command links (never by default)
#   make fuzz       build the libFuzzer targets

VERSION := 0.1.0
BUILD ?= build
CC ?= cc
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

# Package flags are read once, when make starts. On a fresh machine the
# packages arrive only with `deps`, so the entry points that install them
# (check, demo) run deps and then a new make, which reads the flags afresh.
PKGS := liblzma libzstd liblz4 lzo2 libarchive zlib libdeflate fuse3 libcrypto libselinux
PKG_CONFIG ?= pkg-config
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
INSTALL_DEPS ?= ./scripts/install-deps

OPT ?= -O2
WARN := -Wall -Wextra -Werror -Wno-unused-parameter
# The library is core/ in one folder per part (docs/DESIGN.md, "Layers"). A header
# of the same folder is included by its bare name, any other by its folder:
# "read/dir.h" (core/), "compressors/codec.h" and "cmd/cmd.h" (the top); the public
# headers by <squashkit/name.h> (include/), as a program using the library does.
INCLUDES := -Iinclude -Icore -I.
CFLAGS_ALL := -std=gnu11 $(OPT) -g $(WARN) -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-DSQK_VERSION='"$(VERSION)"' $(INCLUDES) $(PKG_CFLAGS) -pthread $(SANITIZE) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -pthread -lm $(SANITIZE) $(LDFLAGS)

LIB_SRC := $(sort $(wildcard core/*/*.c compressors/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
# Code the tools share (tests/tools/lib) is linked into each of them.
TOOL_LIB_SRC := $(sort $(wildcard tests/tools/lib/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.t)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/tools/%)
TOOL_LIB_OBJ := $(TOOL_LIB_SRC:%.c=$(BUILD)/%.o)
# Made only as a prerequisite, so make would delete them and relink every tool next time.
.SECONDARY: $(TOOL_LIB_OBJ)
LIB := $(BUILD)/libsquashkit.a
BIN := $(BUILD)/squashkit

# The shared library: the library's sources compiled again as position-
# independent code in a tree of their own ($(BUILD)/pic; the static objects
# stay as they are), every symbol hidden but those the public headers mark
# SQK_API (include/squashkit), and only the export map's names exported,
# under the version node SQUASHKIT_0. The soname changes with an
# incompatible change of the ABI (abi/libsquashkit.abi, `make abi-baseline`).
SONAME := libsquashkit.so.0
SO := $(BUILD)/$(SONAME)
PIC_OBJ := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
LIB_MAP := core/api/libsquashkit.map
PUBLIC_HEADERS := $(sort $(wildcard include/squashkit/*.h))

.PHONY: all lib deps check abi-baseline check-plain check-asan check-tsan check-fuzz demo demo-run install \
	install-links install-compat uninstall fuzz clean tests

all: $(BIN) squashkit lib

lib: $(LIB) $(SO)

squashkit: $(BIN)
	@if [ "$(BUILD)" = build ]; then ln -sf $(BIN) squashkit; fi

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(SO): $(PIC_OBJ) $(LIB_MAP)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(LIB_MAP) -Wl,--no-undefined \
		-o $@ $(PIC_OBJ) $(LDLIBS_ALL)

# pkg-config's file, written by install for the prefix and LIBDIR it installs
# under (its libraries private: a program linking the shared library names
# only -lsquashkit).
PC_MAKE = sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	-e 's|@VERSION@|$(VERSION)|; s|@REQUIRES@|$(PKGS)|' squashkit.pc.in

# The ABI the shared library promises: update it only with a deliberate change
# (and a new SONAME when the change is incompatible); tests/api/abi.t compares.
abi-baseline: $(SO)
	abidw --no-corpus-path --no-comp-dir-path --short-locs --drop-private-types \
		--drop-undefined-syms --headers-dir include/squashkit $(SO) >abi/libsquashkit.abi

$(BIN): $(CMD_OBJ) $(LIB)
	$(CC) -o $@ $(CMD_OBJ) $(LIB) $(LDLIBS_ALL)

$(BUILD)/tests/unit/%.t: tests/unit/%.c $(wildcard tests/unit/*.h tests/tools/lib/*.h) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(LIB) $(LDLIBS_ALL)

$(BUILD)/tests/tools/%: tests/tools/%.c $(wildcard tests/tools/lib/*.h) $(TOOL_LIB_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(TOOL_LIB_OBJ) $(LIB) $(LDLIBS_ALL)

# The fault injection library (LD_PRELOAD), built without the sanitizers:
# under them, their runtime is preloaded in front of it.
FAULT_LIB := $(BUILD)/tests/tools/libfault.so
$(FAULT_LIB): tests/tools/preload/fault.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(OPT) -g $(WARN) -D_GNU_SOURCE -fPIC -shared -o $@ $< -ldl

# ./squashkit is linked by every entry point that builds it: make, make check, make demo.
tests: $(BIN) squashkit lib $(UNIT_BIN) $(TOOL_BIN) $(FAULT_LIB)

deps:
	@$(INSTALL_DEPS)

# The suite: unit tests are programs, cli/interop tests are shell scripts; all speak TAP.
# Two test files at a time: each uses its own scratch directory, mount point and
# loop device, and the suite is mostly waiting on processes. PROVE_JOBS=1 for one.
PROVE_JOBS ?= 2
PROVE := prove --exec '' --timer -j$(PROVE_JOBS)
TEST_ENV = SQUASHKIT=$(abspath $(BIN)) SQK_TOOLS=$(abspath $(BUILD)/tests/tools) \
	SQK_SRCDIR=$(abspath .) SQK_SANITIZE='$(SANITIZE)'

# The builds inside check and demo use both cores of the machines we run on
# (each step builds a tree of its own: plain, ASan, TSan, fuzz). BUILD_JOBS=1 for one.
BUILD_JOBS ?= 2
CHECK_STEPS = check-plain check-asan check-tsan check-fuzz
check: deps
	@for step in $(CHECK_STEPS); do $(MAKE) -j$(BUILD_JOBS) $$step || exit 1; done

# The longest files start first, so that two at a time end together.
SLOW_FIRST := tests/interop/corrupt.t tests/interop/mkimage.t tests/interop/mkimage-scale.t \
	tests/interop/fsck.t \
	tests/interop/inspect.t tests/interop/compat-unsquashfs.t tests/interop/agree-damaged.t \
	tests/cli/make-deps.t
SUITE = $(SLOW_FIRST) $(filter-out $(SLOW_FIRST),$(UNIT_BIN) \
	$(sort $(wildcard tests/cli/*.t tests/interop/*.t tests/api/*.t)))
# Tests that run no squashkit code run once, in the plain pass, not again under the sanitizers.
PLAIN_ONLY := tests/interop/model.t tests/cli/make-deps.t tests/api/abi.t

check-plain: tests
	$(TEST_ENV) $(PROVE) $(if $(SQK_SANITIZED),$(filter-out $(PLAIN_ONLY),$(SUITE)),$(SUITE))

check-asan:
	$(MAKE) BUILD=build/asan SANITIZE='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	SQK_SANITIZED=1 $(MAKE) BUILD=build/asan SANITIZE='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' check-plain

TSAN_TESTS = $(filter $(BUILD)/tests/unit/cache% $(BUILD)/tests/unit/pool%,$(UNIT_BIN))
check-tsan:
	$(MAKE) BUILD=build/tsan SANITIZE='-fsanitize=thread' OPT=-O1 tests
	$(MAKE) BUILD=build/tsan SANITIZE='-fsanitize=thread' OPT=-O1 run-tsan

# The public API's readers and walker too, built against the TSan library.
TSAN_SUITE = $(TSAN_TESTS) tests/api/threads.t
run-tsan:
	TSAN_OPTIONS=halt_on_error=1 $(TEST_ENV) $(PROVE) $(TSAN_SUITE)

check-fuzz:
	@if [ -f fuzz/Makefile.inc ]; then $(MAKE) fuzz-run; else echo "fuzz: no targets yet"; fi

-include fuzz/Makefile.inc

demo: deps
	$(MAKE) -j$(BUILD_JOBS) demo-run

DEMO = $(BIN) bench
demo-run: $(BIN) squashkit
	$(DEMO)

# Completions go where bash-completion, zsh and fish look by default.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
MANPAGES := $(sort $(wildcard man/*.1))
MANPAGES3 := $(sort $(wildcard man/*.3))
# Command links: only with `make install-links`, never by default, so that
# another mkimage (U-Boot's) is never shadowed by surprise.
CMD_LINKS := mkimage unimage
# The compatibility front ends: links named after the peers, only with
# `make install-compat`, and never over the peers' own programs.
COMPAT_LINKS := mksquashfs unsquashfs

install: $(BIN) $(LIB) $(SO)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/squashkit $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/squashkit
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MANPAGES3) $(DESTDIR)$(MANDIR)/man3/
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/squashkit/
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libsquashkit.a
	install -m 755 $(SO) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libsquashkit.so
	$(PC_MAKE) >$(DESTDIR)$(PKGCONFIGDIR)/squashkit.pc
	install -m 644 completions/squashkit.bash $(DESTDIR)$(BASHCOMPDIR)/squashkit
	install -m 644 completions/_squashkit $(DESTDIR)$(ZSHCOMPDIR)/_squashkit
	install -m 644 completions/squashkit.fish $(DESTDIR)$(FISHCOMPDIR)/squashkit.fish

# A link is made only where nothing else is: an existing program of that
# name stays, and the target fails saying so.
# Every link is checked before any is made, so a refusal leaves nothing half done.
LINK_SAFELY = for l in $(1); do \
		t=$(DESTDIR)$(BINDIR)/$$l; \
		if [ -e "$$t" -o -L "$$t" ] && [ "$$(readlink "$$t")" != squashkit ]; then \
			echo "$@: $$t exists and is not squashkit's; left alone" >&2; \
			exit 1; \
		fi; \
	done; \
	for l in $(1); do \
		t=$(DESTDIR)$(BINDIR)/$$l; \
		echo "ln -sf squashkit $$t"; ln -sf squashkit "$$t" || exit 1; \
	done

install-links: install
	@$(call LINK_SAFELY,$(CMD_LINKS))

install-compat: install
	@$(call LINK_SAFELY,$(COMPAT_LINKS))

# Removes what install, install-links and install-compat put there (links only when they
# are squashkit's); directories stay, as other packages may share them.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/squashkit
	@for l in $(CMD_LINKS) $(COMPAT_LINKS); do \
		t=$(DESTDIR)$(BINDIR)/$$l; \
		if [ -L "$$t" ] && [ "$$(readlink "$$t")" = squashkit ]; then \
			echo "rm -f $$t"; rm -f "$$t"; \
		fi; \
	done
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MANPAGES3)))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/squashkit/,$(notdir $(PUBLIC_HEADERS)))
	rm -f $(DESTDIR)$(LIBDIR)/libsquashkit.a $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/libsquashkit.so $(DESTDIR)$(PKGCONFIGDIR)/squashkit.pc
	rm -f $(DESTDIR)$(BASHCOMPDIR)/squashkit $(DESTDIR)$(ZSHCOMPDIR)/_squashkit \
		$(DESTDIR)$(FISHCOMPDIR)/squashkit.fish

clean:
	rm -rf build build-* squashkit

-include $(LIB_OBJ:.o=.d) $(PIC_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(TOOL_LIB_OBJ:.o=.d)
