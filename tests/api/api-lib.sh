# Shared by the tests of tests/api: the library installed as a user gets it
# (make install DESTDIR=...), and programs built against that install only:
# its headers and pkg-config file, linked with the shared library, run with
# LD_LIBRARY_PATH. Source it after tests/lib.sh.
#
# The install is the suite's one (SQK_STAGE, made by `make tests` before the
# suite runs, PREFIX=/usr/local); a file run on its own without it installs
# into its scratch directory.

need_cmd pkg-config
need_cmd cc

if [ -n "${SQK_STAGE:-}" ]; then
	api_root=$SQK_STAGE
	if [ ! -f "$api_root/usr/local/lib/pkgconfig/squashkit.pc" ]; then
		echo "Bail out! SQK_STAGE=$SQK_STAGE holds no install (make stage makes it)"
		exit 1
	fi
else
	need_cmd make
	. "$SQK_SRCDIR/tests/cli/install-lib.sh"
	api_root=$TMP/root
	if ! mk "$api_root" install >"$TMP/install.out" 2>&1; then
		echo "Bail out! make install failed: $(tail -1 "$TMP/install.out")"
		exit 1
	fi
fi
api_lib=$api_root/usr/local/lib

# api_cflags: how a program finds the installed library, as pkg-config says.
api_cflags=$(PKG_CONFIG_SYSROOT_DIR=$api_root PKG_CONFIG_PATH=$api_lib/pkgconfig \
	pkg-config --cflags --libs squashkit) || {
	echo "Bail out! pkg-config does not know the installed squashkit"
	exit 1
}

# api_cc SOURCE: build SOURCE into $TMP/bin/NAME against the install alone
# (sanitized as the library is), or say why not.
mkdir -p "$TMP/bin"
api_cc() {
	_out=$TMP/bin/$(basename "$1" .c)
	# shellcheck disable=SC2086
	cc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -pthread \
		${SQK_SANITIZE:-} -o "$_out" "$1" $api_cflags 2>"$TMP/cc.err"
	ok $? "$(basename "$1") builds against the installed headers and pkg-config"
	sed 's/^/#   /' "$TMP/cc.err" | head -20
}

# api_run NAME ARGS...: run a program built by api_cc with the installed library.
api_run() {
	_prog=$1
	shift
	LD_LIBRARY_PATH=$api_lib "$TMP/bin/$_prog" "$@"
}
