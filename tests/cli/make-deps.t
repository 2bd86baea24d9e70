#!/bin/sh
# The README's two commands on a fresh machine: `make demo` and `make check`
# install the packages and then build with their compiler and linker flags.
# A fresh machine is played by a pkg-config that knows no package until the
# install step has run (it leaves a marker); the Makefile must read the
# flags only after that step. Without the step the build must fail, which
# shows that the stand-in really hides the flags.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd make pkg-config

# The test runs inside make check: the outer make's settings must not leak in.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

marker=$TMP/installed
cat >"$TMP/pkg-config" <<EOF
#!/bin/sh
[ -e "$marker" ] || exit 1
exec pkg-config "\$@"
EOF
chmod +x "$TMP/pkg-config"

fresh_make() {
	make -C "$SQK_SRCDIR" --no-print-directory PKG_CONFIG="$TMP/pkg-config" \
		BUILD="$TMP/build" "$@"
}

# What the flags decide is one object that needs a package's header (lzo.c:
# only pkg-config names lzo's directory) and every link: the build under test
# starts from a copy of the suite's own objects (their times kept, so make
# takes them as up to date) without lzo.o and without the program, rather
# than compiling the whole library again.
objs=$(dirname "$SQUASHKIT")
mkdir -p "$TMP/build"
for f in core compressors cmd flags.list parts.list; do
	[ -e "$objs/$f" ] && cp -a "$objs/$f" "$TMP/build/"
done
rm -f "$TMP/build/compressors/lzo.o"

# demo: deps installs (the marker appears), then the build must get the flags.
fresh_make demo INSTALL_DEPS="touch $marker" DEMO='$(BIN) --version' >"$TMP/demo.out" 2>&1
ok $? "make demo builds on a machine whose packages arrive with deps"
grep -q '^squashkit [0-9]' "$TMP/demo.out"
ok $? "make demo ran the built program"
# lzo's header lives in its own directory: only pkg-config names it.
lzo_inc=$(pkg-config --cflags-only-I lzo2 | tr -d " ")
grep "compressors/lzo.c" "$TMP/demo.out" | grep -q -e "$lzo_inc"
ok $? "lzo.c was compiled with the flags pkg-config gives after deps"

# check: same, from a machine that has lost its packages again; only what
# needs the flags is rebuilt (lzo.o and the link), the test steps are not run.
rm -f "$marker" "$TMP/build/compressors/lzo.o" "$TMP/build/squashkit"
fresh_make check INSTALL_DEPS="touch $marker" CHECK_STEPS=all >"$TMP/check.out" 2>&1
ok $? "make check builds on a machine whose packages arrive with deps"
test -x "$TMP/build/squashkit"
ok $? "make check linked the program"

# ./squashkit is linked by each entry point the README names: make (all),
# make check (whose steps build through tests) and make demo (demo-run).
# A dry run with the binary taken as new shows what each would do.
for t in all tests demo-run; do
	make -C "$SQK_SRCDIR" --no-print-directory -n -W build/squashkit "$t" 2>/dev/null |
		grep -q 'ln -sf build/squashkit squashkit'
	ok $? "make $t links ./squashkit"
done

# The control: when deps installs nothing, the same build fails.
rm -f "$marker" "$TMP/build/compressors/lzo.o" "$TMP/build/squashkit"
fresh_make demo INSTALL_DEPS=true DEMO='$(BIN) --version' >"$TMP/control.out" 2>&1
test $? -ne 0
ok $? "without the packages the build fails (the stand-in hides the flags)"

done_testing
