# Shared by install.t and install-compat.t: make run on the tree's Makefile
# with the binary under test installed as it is. Source it after tests/lib.sh.

# make must not rebuild the binary (-o), nor anything else, whatever the make
# running the test was told: the flags this make sees (no SANITIZE in the
# sanitized pass) are not the build's, and must not make its objects again
# (-o flags.list).
build=$(cd "$(dirname "$SQUASHKIT")" && pwd)
bin=$build/$(basename "$SQUASHKIT")
mk() { # DESTDIR TARGET...
	dest=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$SQK_SRCDIR" BUILD="$build" \
		BIN="$bin" -o "$bin" -o "$build/flags.list" PREFIX=/usr/local DESTDIR="$dest" "$@"
}
