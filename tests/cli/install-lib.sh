# Shared by install.t and install-compat.t: make run on the tree's Makefile
# with the binary under test installed as it is. Source it after tests/lib.sh.

# make must not rebuild the binary (-o), nor anything else, whatever the make
# running the test was told.
build=$(cd "$(dirname "$SQUASHKIT")" && pwd)
bin=$build/$(basename "$SQUASHKIT")
mk() { # DESTDIR TARGET...
	dest=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$SQK_SRCDIR" BUILD="$build" \
		BIN="$bin" -o "$bin" PREFIX=/usr/local DESTDIR="$dest" "$@"
}
