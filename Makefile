# squashkit — one non-recursive Makefile.
#   make            build ./squashkit (in $(BUILD), linked to ./squashkit)
#   make check      install what is missing, build, run every test (plain, ASan+UBSan, TSan, fuzz)
#   make check-quick the unit tests and a round trip of the sources (a package build's check)
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
# The library's packages (squashkit.pc's Requires.private), and libfuse3,
# which only the binary's mount daemon links.
LIB_PKGS := liblzma libzstd liblz4 lzo2 libarchive zlib libdeflate libcrypto libselinux libcurl
BIN_PKGS := fuse3
PKG_CONFIG ?= pkg-config
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS) $(BIN_PKGS) 2>/dev/null)
LIB_LIBS := $(shell $(PKG_CONFIG) --libs $(LIB_PKGS) 2>/dev/null)
BIN_LIBS := $(shell $(PKG_CONFIG) --libs $(BIN_PKGS) 2>/dev/null)
INSTALL_DEPS ?= ./scripts/install-deps

# CPPFLAGS, CFLAGS and LDFLAGS are the builder's (a distribution's
# dpkg-buildflags, a sanitizer build): they come after the project's own, so
# they win, and reach every compile and link. -Werror is the suite's: make
# check (each of its passes), tests and fuzz turn it on; a plain make leaves
# it off, so that a newer compiler's new warning cannot fail a distribution
# build. WERROR= on the command line turns it off anywhere.
OPT ?= -O2
ifneq ($(filter check check-plain check-asan check-tsan check-fuzz tests tsan-build fuzz fuzz-run, \
	$(MAKECMDGOALS)),)
WERROR ?= -Werror
endif
WARN := -Wall -Wextra $(WERROR) -Wno-unused-parameter
# The library is core/ in one folder per part (docs/DESIGN.md, "Layers"). A header
# of the same folder is included by its bare name, any other by its folder:
# "read/dir.h" (core/), "compressors/codec.h" and "cmd/cmd.h" (the top); the public
# headers by <squashkit/name.h> (include/), as a program using the library does.
INCLUDES := -Iinclude -Icore -I.
DEFINES := -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DSQK_VERSION='"$(VERSION)"'
CPPFLAGS_ALL := $(DEFINES) $(INCLUDES) $(PKG_CFLAGS) $(CPPFLAGS)
CFLAGS_ALL := -std=gnu11 $(OPT) -g $(WARN) -pthread $(SANITIZE) $(CFLAGS)
COMPILE = $(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL)
# The line between the library and its front ends is held here: cmd/ is
# compiled with the public headers and the front ends' private library
# (fe/) alone, never core/, so that an internal include there fails the
# build (tests/cli/public-api.t shows it). fe/ sees the library, as do the
# front ends of the two parts that are not in it (bincmd/: mount, umount
# and bench drive core/mount and core/lab), which share cmd/'s helpers.
CMD_INCLUDES := -Iinclude -Ife
BINCMD_INCLUDES := -Iinclude -Ife -Icmd -Icore -I.
CMD_COMPILE = $(CC) $(DEFINES) $(CMD_INCLUDES) $(CPPFLAGS) $(CFLAGS_ALL)
BINCMD_COMPILE = $(CC) $(DEFINES) $(BINCMD_INCLUDES) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS_ALL)
# A link: the flags, then the objects, then the libraries they need.
LINK = $(CC) $(CFLAGS_ALL) $(LDFLAGS)
LIB_LDLIBS := $(LIB_LIBS) -lm
BIN_LDLIBS := $(BIN_LIBS) $(LIB_LIBS) -lm

# The library is core/ and compressors/ but for two parts that are not in
# the API and that only the binary links: the mount daemon (core/mount,
# the one user of libfuse3) and the cache laboratory behind bench
# (core/lab). They make an internal archive of their own, $(BIN_PARTS).
CORE_SRC := $(sort $(wildcard core/*/*.c compressors/*.c))
BIN_PART_SRC := $(sort $(wildcard core/mount/*.c core/lab/*.c))
LIB_SRC := $(filter-out $(BIN_PART_SRC),$(CORE_SRC))
CMD_SRC := $(sort $(wildcard cmd/*.c))
FE_SRC := $(sort $(wildcard fe/*.c))
BINCMD_SRC := $(sort $(wildcard bincmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
# Code the tools share (tests/tools/lib) is linked into each of them.
TOOL_LIB_SRC := $(sort $(wildcard tests/tools/lib/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
BIN_PART_OBJ := $(BIN_PART_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/%.o)
FE_OBJ := $(FE_SRC:%.c=$(BUILD)/%.o)
BINCMD_OBJ := $(BINCMD_SRC:%.c=$(BUILD)/%.o)
FE := $(BUILD)/libsquashkit-fe.a
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.t)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/tools/%)
TOOL_LIB_OBJ := $(TOOL_LIB_SRC:%.c=$(BUILD)/%.o)
# Made only as a prerequisite, so make would delete them and relink every tool next time.
.SECONDARY: $(TOOL_LIB_OBJ)
LIB := $(BUILD)/libsquashkit.a
BIN_PARTS := $(BUILD)/libsquashkit-bin.a
BIN := $(BUILD)/squashkit

# The shared library: the library's objects, position-independent and with
# every symbol hidden but those the public headers mark SQK_API
# (include/squashkit), linked with only the export map's names exported,
# under the version node SQUASHKIT_1. The soname changes with an
# incompatible change of the ABI (abi/libsquashkit.abi, `make abi-baseline`).
# The same objects make libsquashkit.a (hidden symbols link statically as
# any other), so that each build compiles the library once.
SONAME := libsquashkit.so.1
SO := $(BUILD)/$(SONAME)
LIB_MAP := core/api/libsquashkit.map
PUBLIC_HEADERS := $(sort $(wildcard include/squashkit/*.h))

.PHONY: all lib deps stage FORCE check abi-baseline check-quick check-plain check-asan check-tsan \
	tsan-build run-tsan check-fuzz demo demo-run install install-lib install-links \
	install-compat uninstall fuzz clean tests

all: $(BIN) squashkit lib

lib: $(LIB) $(SO)

squashkit: $(BIN)
	@if [ "$(BUILD)" = build ]; then ln -sf $(BIN) squashkit; fi

# The flags an object is compiled with, written down: every object is made
# again when they change (another OPT, CFLAGS or package flags), not only
# when its sources do. -Werror is left out: it changes no object.
FLAGS_LIST := $(BUILD)/flags.list
FLAGS_NOW = $(subst ',,$(subst -Werror,,$(COMPILE)) | lib: $(LIB_CFLAGS) | cmd: $(CMD_INCLUDES) \
	| bincmd: $(BINCMD_INCLUDES))
$(FLAGS_LIST): FORCE
	@mkdir -p $(@D)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' >$@

$(BUILD)/%.o: %.c $(FLAGS_LIST)
	@mkdir -p $(@D)
	$(COMPILE) -MMD -MP -c $< -o $@

$(BUILD)/cmd/%.o: cmd/%.c $(FLAGS_LIST)
	@mkdir -p $(@D)
	$(CMD_COMPILE) -MMD -MP -c $< -o $@

$(BUILD)/bincmd/%.o: bincmd/%.c $(FLAGS_LIST)
	@mkdir -p $(@D)
	$(BINCMD_COMPILE) -MMD -MP -c $< -o $@

$(FE): $(FE_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $(FE_OBJ)

# The library's parts (core/, compressors/) are compiled for the shared
# library; the static one and the binary link the same objects.
LIB_CFLAGS := -fPIC -fvisibility=hidden
$(BUILD)/core/%.o: core/%.c $(FLAGS_LIST)
	@mkdir -p $(@D)
	$(COMPILE) $(LIB_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/compressors/%.o: compressors/%.c $(FLAGS_LIST)
	@mkdir -p $(@D)
	$(COMPILE) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

# Which part goes where, written down: the archives and the shared library
# are made again when it changes (a part moved out of the library), not
# only when one of their objects does.
PARTS_LIST := $(BUILD)/parts.list
$(PARTS_LIST): FORCE
	@mkdir -p $(@D)
	@echo 'lib: $(LIB_SRC) bin: $(BIN_PART_SRC)' | cmp -s - $@ || \
		echo 'lib: $(LIB_SRC) bin: $(BIN_PART_SRC)' >$@
FORCE:

$(LIB): $(LIB_OBJ) $(PARTS_LIST)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(BIN_PARTS): $(BIN_PART_OBJ) $(PARTS_LIST)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $(BIN_PART_OBJ)

$(SO): $(LIB_OBJ) $(LIB_MAP) $(PARTS_LIST)
	$(LINK) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(LIB_MAP) -Wl,--no-undefined \
		-o $@ $(LIB_OBJ) $(LIB_LDLIBS)

# pkg-config's file, written by install for the prefix and LIBDIR it installs
# under (its libraries private: a program linking the shared library names
# only -lsquashkit).
PC_MAKE = sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	-e 's|@VERSION@|$(VERSION)|; s|@REQUIRES@|$(LIB_PKGS)|' squashkit.pc.in

# The ABI the shared library promises: update it only with a deliberate change
# (and a new SONAME when the change is incompatible); tests/api/abi.t compares.
abi-baseline: $(SO)
	abidw --no-corpus-path --no-comp-dir-path --short-locs --drop-private-types \
		--drop-undefined-syms --headers-dir include/squashkit $(SO) >abi/libsquashkit.abi

$(BIN): $(CMD_OBJ) $(BINCMD_OBJ) $(FE) $(BIN_PARTS) $(LIB)
	$(LINK) -o $@ $(CMD_OBJ) $(BINCMD_OBJ) $(FE) $(BIN_PARTS) $(LIB) $(BIN_LDLIBS)

# Unit tests and tools see every part, the binary's own ones too.
$(BUILD)/tests/unit/%.t: tests/unit/%.c $(wildcard tests/unit/*.h tests/tools/lib/*.h) $(BIN_PARTS) $(LIB)
	@mkdir -p $(@D)
	$(COMPILE) -Itests/unit $(LDFLAGS) -o $@ $< $(BIN_PARTS) $(LIB) $(BIN_LDLIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(wildcard tests/tools/lib/*.h) $(TOOL_LIB_OBJ) $(BIN_PARTS) $(LIB)
	@mkdir -p $(@D)
	$(COMPILE) $(LDFLAGS) -o $@ $< $(TOOL_LIB_OBJ) $(BIN_PARTS) $(LIB) $(BIN_LDLIBS)

# The helpers that run no squashkit code (manifest describes a tree, jsonq
# reads JSON text) are built without the sanitizers, as the peers they stand
# beside are: the sanitized passes check squashkit, and the suite runs these
# hundreds of times, three times slower under ASan.
PLAIN_TOOLS := manifest jsonq
$(BUILD)/tests/tools/manifest: tests/tools/lib/sha256.c
$(PLAIN_TOOLS:%=$(BUILD)/tests/tools/%): $(BUILD)/tests/tools/%: tests/tools/%.c \
		$(wildcard tests/tools/lib/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) -std=gnu11 $(OPT) -g $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ \
		$(filter %.c,$^) -lm

# The fault injection library (LD_PRELOAD), built without the sanitizers:
# under them, their runtime is preloaded in front of it.
FAULT_LIB := $(BUILD)/tests/tools/libfault.so
$(FAULT_LIB): tests/tools/preload/fault.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(OPT) -g $(WARN) -D_GNU_SOURCE -fPIC -shared -o $@ $< -ldl

# The library installed once for the whole suite, as a user installs it, in
# $(STAGE) (SQK_STAGE): the programs of tests/api build against it alone.
STAGE := $(BUILD)/stage
STAGE_DIRS := PREFIX=/usr/local LIBDIR=/usr/local/lib INCLUDEDIR=/usr/local/include \
	PKGCONFIGDIR=/usr/local/lib/pkgconfig
stage: $(LIB) $(SO)
	rm -rf $(STAGE)
	$(MAKE) -s install-lib DESTDIR=$(abspath $(STAGE)) $(STAGE_DIRS)

# ./squashkit is linked by every entry point that builds it: make, make check, make demo.
tests: $(BIN) squashkit lib $(UNIT_BIN) $(TOOL_BIN) $(FAULT_LIB) stage

deps:
	@$(INSTALL_DEPS)

# The suite: unit tests are programs, cli/interop tests are shell scripts; all speak TAP.
# Two test files at a time: each uses its own scratch directory, mount point and
# loop device, and the suite is mostly waiting on processes. PROVE_JOBS=1 for one.
PROVE_JOBS ?= 2
PROVE := prove --exec '' --timer -j$(PROVE_JOBS)
# What the peers made of the test trees, kept for the files and passes after
# (peer_image in tests/lib.sh; content-addressed, emptied by make check).
FIXTURES ?= $(abspath $(BUILD))/fixtures
TEST_ENV = SQUASHKIT=$(abspath $(BIN)) SQK_TOOLS=$(abspath $(BUILD)/tests/tools) \
	SQK_SRCDIR=$(abspath .) SQK_SANITIZE='$(SANITIZE)' SQK_STAGE=$(abspath $(STAGE)) \
	SQK_FIXTURES=$(FIXTURES)

# The builds inside check and demo use both cores of the machines we run on
# (each step builds a tree of its own: plain, ASan, TSan, fuzz). BUILD_JOBS=1 for one.
BUILD_JOBS ?= 2
CHECK_STEPS = check-plain check-asan check-tsan check-fuzz
check: deps
	@rm -rf $(FIXTURES)
	@for step in $(CHECK_STEPS); do \
		start=$$(date +%s); \
		$(MAKE) -j$(BUILD_JOBS) WERROR='$(WERROR)' FIXTURES=$(FIXTURES) $$step || exit 1; \
		echo "check: $$step took $$(($$(date +%s) - start)) s"; \
	done

# The longest files start first, so that the jobs end together (measured one
# at a time, the slowest of the plain and the ASan pass first; model.t and
# make-deps.t run in the plain pass only).
SLOW_FIRST := tests/interop/model.t tests/interop/unimage.t tests/interop/fsck.t \
	tests/interop/mkimage.t tests/cli/signals.t tests/interop/agree.t tests/interop/mount.t \
	tests/cli/faults.t tests/interop/codecs.t tests/interop/corrupt.t tests/interop/reuse.t \
	tests/interop/mkimage-scale.t tests/interop/append.t tests/interop/inspect.t \
	tests/interop/compat-mksquashfs.t $(BUILD)/tests/unit/compressors_blocks.t \
	tests/cli/make-deps.t tests/interop/compat-unsquashfs.t tests/interop/diff-damaged.t
SUITE = $(SLOW_FIRST) $(filter-out $(SLOW_FIRST),$(UNIT_BIN) \
	$(sort $(wildcard tests/cli/*.t tests/interop/*.t tests/api/*.t)))
# Tests that run no squashkit code run once, in the plain pass, not again under the
# sanitizers: the model, the build's own checks, the sources' lints, the manifest
# tool (built without the sanitizers anyway); mandoc.t's one squashkit --help is
# help-man-completion.t's too.
PLAIN_ONLY := tests/interop/model.t tests/cli/make-deps.t tests/api/abi.t tests/cli/layers.t \
	tests/cli/format-facts.t tests/cli/public-api.t tests/cli/mandoc.t tests/interop/manifest.t

check-plain: tests
	$(TEST_ENV) $(PROVE) $(if $(SQK_SANITIZED),$(filter-out $(PLAIN_ONLY),$(SUITE)),$(SUITE))

ASAN_BUILD := BUILD=build/asan \
	SANITIZE='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer'
check-asan:
	$(MAKE) $(ASAN_BUILD) WERROR='$(WERROR)' tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	SQK_SANITIZED=1 $(MAKE) $(ASAN_BUILD) WERROR='$(WERROR)' FIXTURES=$(FIXTURES) check-plain

# The unit tests whose code runs on many threads: the block cache, the worker
# pool under the writer, reuse, fsck and diff, the elastic thread set, the
# mount's node table.
TSAN_UNIT := cache diff fsck mount_fs util_elastic verity_read writer_data writer_meta_async writer_reuse
TSAN_TESTS = $(TSAN_UNIT:%=$(BUILD)/tests/unit/%.t)
# Only what the selection runs is built: those unit tests and the library
# installed for tests/api.
TSAN_BUILD := BUILD=build/tsan SANITIZE='-fsanitize=thread' OPT=-O1
check-tsan:
	$(MAKE) $(TSAN_BUILD) WERROR='$(WERROR)' tsan-build
	$(MAKE) $(TSAN_BUILD) FIXTURES=$(FIXTURES) run-tsan
tsan-build: $(TSAN_TESTS) stage

# The public API's readers and walker too, built against the TSan library.
TSAN_SUITE = $(TSAN_TESTS) tests/api/threads.t
run-tsan:
	TSAN_OPTIONS=halt_on_error=1 $(TEST_ENV) $(PROVE) $(TSAN_SUITE)

# What a package build runs (debian/rules): the unit tests, and this tree's
# core/ through the built binary with each compressor (mkimage, fsck,
# unimage, then diff -r against the sources). A minute at most, without
# root, peers, network or -Werror.
QUICK := $(BUILD)/quick
check-quick: $(BIN) $(UNIT_BIN)
	prove --exec '' $(UNIT_BIN)
	rm -rf $(QUICK)
	mkdir -p $(QUICK)
	for c in gzip lzma lzo xz lz4 zstd; do \
		$(BIN) mkimage -q -c $$c core $(QUICK)/$$c.img && \
		$(BIN) fsck -q $(QUICK)/$$c.img && \
		$(BIN) unimage -q -d $(QUICK)/$$c $(QUICK)/$$c.img && \
		diff -r core $(QUICK)/$$c && echo "check-quick: core/ through $$c: same" || exit 1; \
	done
	rm -rf $(QUICK)

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

# Every function the library exports, as its export map names them: each
# gets a page sqk_NAME(3) that man(1) finds, a link to libsquashkit(3).
API_NAMES := $(shell sed -n 's/^\t\(sqk_[a-z_0-9]*\);$$/\1/p' $(LIB_MAP))

# install-lib: the library alone (headers, both libraries, squashkit.pc, the
# section 3 pages); install: that and the program, its pages and completions.
install-lib: $(LIB) $(SO)
	install -d $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/squashkit \
		$(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(MANPAGES3) $(DESTDIR)$(MANDIR)/man3/
	@for n in $(API_NAMES); do \
		printf '.so man3/libsquashkit.3\n' >$(DESTDIR)$(MANDIR)/man3/$$n.3 || exit 1; \
	done
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/squashkit/
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libsquashkit.a
	install -m 755 $(SO) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libsquashkit.so
	$(PC_MAKE) >$(DESTDIR)$(PKGCONFIGDIR)/squashkit.pc

install: $(BIN) install-lib
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/squashkit
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
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
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(addsuffix .3,$(API_NAMES)))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/squashkit/,$(notdir $(PUBLIC_HEADERS)))
	rm -f $(DESTDIR)$(LIBDIR)/libsquashkit.a $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/libsquashkit.so $(DESTDIR)$(PKGCONFIGDIR)/squashkit.pc
	rm -f $(DESTDIR)$(BASHCOMPDIR)/squashkit $(DESTDIR)$(ZSHCOMPDIR)/_squashkit \
		$(DESTDIR)$(FISHCOMPDIR)/squashkit.fish

clean:
	rm -rf build build-* squashkit

-include $(LIB_OBJ:.o=.d) $(BIN_PART_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(BINCMD_OBJ:.o=.d) \
	$(FE_OBJ:.o=.d) $(TOOL_LIB_OBJ:.o=.d)
