# Shared helpers for the shell tests: TAP output and a scratch directory.
# Source it first: . "$SQK_SRCDIR/tests/lib.sh"

: "${SQK_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${SQUASHKIT:=$SQK_SRCDIR/build/squashkit}"
: "${SQK_TOOLS:=$SQK_SRCDIR/build/tests/tools}"
export SQK_SRCDIR SQUASHKIT SQK_TOOLS

test_count=0
test_failed=0
test_skip_all_done=0

# SCRATCH, set before sourcing this file, puts the scratch directory on tmpfs
# (/dev/shm), where thousands of small files cost a fraction of a disk's:
# "shm" whenever it is writable; "shm-user-xattrs" only where it takes user
# xattrs (on tmpfs they need Linux 6.6); "shm-xattrs" only where it takes
# user and trusted ones. An explicit TMPDIR wins.
_scratch_on_shm() {
	[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] || return 1
	[ "$1" = shm ] && return 0
	_probe=$(mktemp -d /dev/shm/sqk-probe.XXXXXX 2>/dev/null) || return 1
	: >"$_probe/f"
	_took=1
	setfattr -n user.probe -v 1 "$_probe/f" 2>/dev/null || _took=0
	if [ "$1" = shm-xattrs ] && [ $_took -eq 1 ]; then
		setfattr -n trusted.probe -v 1 "$_probe/f" 2>/dev/null || _took=0
	fi
	rm -rf "$_probe"
	[ $_took -eq 1 ]
}
if [ -n "${SCRATCH:-}" ] && _scratch_on_shm "$SCRATCH"; then
	TMPDIR=/dev/shm
	export TMPDIR
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sqk-test.XXXXXX")
cleanup_hooks=""
at_exit() { cleanup_hooks="$1; $cleanup_hooks"; }
_cleanup() {
	eval "$cleanup_hooks"
	rm -rf "$TMP"
}
trap _cleanup EXIT
trap 'exit 130' INT TERM

# A mount point in the scratch directory, $MNT, unmounted at exit.
scratch_mount() {
	MNT=$TMP/mnt
	mkdir -p "$MNT"
	at_exit "umount '$MNT' 2>/dev/null"
}

# kernel_view IMG OUT [OFFSET]: the tree of IMG as the kernel shows it (the
# manifest of a loop mount at $MNT, see scratch_mount), or why it did not mount.
kernel_view() {
	if mount -t squashfs -o "loop,ro,offset=${3:-0}" "$1" "$MNT" 2>"$TMP/mount.err"; then
		"$SQK_TOOLS/manifest" "$MNT" >"$2" 2>&1
		umount "$MNT"
	else
		echo "mount failed: $(cat "$TMP/mount.err")" >"$2"
	fi
}

ok() {
	test_count=$((test_count + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $test_count - $2"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $2"
	fi
}

# expect_success DESC CMD...: the command exits 0.
expect_success() {
	desc=$1
	shift
	if "$@" >"$TMP/.out" 2>"$TMP/.err"; then ok 0 "$desc"; else
		ok 1 "$desc"
		sed 's/^/#   /' "$TMP/.err" | head -20
	fi
}

# expect_status N DESC CMD...: the command exits with status N.
expect_status() {
	want=$1
	desc=$2
	shift 2
	"$@" >"$TMP/.out" 2>"$TMP/.err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok 0 "$desc"; else
		ok 1 "$desc"
		echo "#   exit $got, want $want"
		sed 's/^/#   /' "$TMP/.err" | head -20
	fi
}

# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"
		printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
	fi
}

# Compare two files; show a diff on failure.
same_file() {
	if cmp -s "$1" "$2"; then ok 0 "$3"; else
		ok 1 "$3"
		diff -u "$1" "$2" | head -40 | sed 's/^/#   /'
	fi
}

# $SIGNALABLE CMD... &: CMD with SIGINT and SIGQUIT at their defaults. A
# background job of a script starts with them ignored, and squashkit, as
# other tools, leaves a signal it finds ignored ignored (nohup's way). A
# command, not a function: $! is then CMD's own process.
SIGNALABLE="env --default-signal=INT,QUIT"

# smash_block IMAGE KIND PATH [N]: one block of IMAGE no longer decompresses:
# the middle half of the block tests/tools/locate finds (KIND: data, frag,
# inode or dir, of PATH) overwritten. Fails when there is no such block.
smash_block() {
	_img=$1
	shift
	_at=$("$SQK_TOOLS/locate" "$_img" "$@") || return 1
	# shellcheck disable=SC2086
	set -- $_at
	head -c $(($2 / 2)) /dev/zero | tr '\0' '\125' |
		dd of="$_img" bs=1 seek=$(($1 + $2 / 4)) conv=notrunc status=none
}

# each_fault COUNT CHECK CLASS...: each call N of each CLASS that COUNT (a
# SQK_FAULT_COUNT file of tests/tools/libfault.so) counted, failed with EIO
# in a run of its own: "CHECK CLASS:N:EIO" prints why that run went wrong,
# or nothing. Sets runs and bad, and names the first few that went wrong.
each_fault() {
	_count=$1
	_check=$2
	shift 2
	bad=0
	runs=0
	for _cls; do
		_n=$(awk -v c="$_cls" '$1 == c { print $2 }' "$_count")
		_i=1
		while [ "$_i" -le "${_n:-0}" ]; do
			_why=$("$_check" "$_cls:$_i:EIO")
			runs=$((runs + 1))
			if [ -n "$_why" ]; then
				bad=$((bad + 1))
				[ $bad -gt 5 ] || echo "#   $_cls:$_i:EIO: $_why"
			fi
			_i=$((_i + 1))
		done
	done
}

# peer_image IMAGE SOURCE TOOL ARGS...: TOOL ARGS..., mksquashfs or gensquashfs
# reading the directory SOURCE and writing IMAGE (both named in ARGS, and no
# other file whose contents matter), or a copy of the image the same command
# made of the same SOURCE earlier in the suite run: within make check,
# SQK_FIXTURES keeps what the peers made. Many files pack the reference tree
# with the same options, in every pass, and the peers make the same image
# each time but for the superblock's time. The key is all that TOOL reads:
# SOURCE as tests/tools/manifest describes it (names, types, modes, owners,
# times, contents, hard links, devices, xattrs), the arguments (SOURCE and
# IMAGE as placeholders), TOOL's version and SOURCE_DATE_EPOCH. An existing
# IMAGE that mksquashfs would append to (no -noappend) is always made. The
# status is TOOL's, or 0 for a copy.
peer_image() {
	_pimg=$1
	_psrc=$2
	shift 2
	_pmake=0
	[ -n "${SQK_FIXTURES:-}" ] && [ -x "$SQK_TOOLS/manifest" ] || _pmake=1
	if [ "$1" = mksquashfs ] && [ -e "$_pimg" ]; then
		case " $* " in
		*" -noappend "*) ;;
		*) _pmake=1 ;;
		esac
	fi
	if [ $_pmake -eq 1 ]; then
		"$@"
		return
	fi
	_pkey=$(
		{
			"$SQK_TOOLS/manifest" "$_psrc" 2>&1 || echo "no manifest: $$"
			case $1 in
			mksquashfs) mksquashfs -version 2>&1 | head -1 ;;
			*) "$1" --version 2>&1 | head -1 ;;
			esac
			echo "SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-}"
			for _parg; do
				case $_parg in
				"$_psrc") echo "@SOURCE" ;;
				"$_pimg") echo "@IMAGE" ;;
				*) printf '%s\n' "$_parg" ;;
				esac
			done
		} | sha256sum | cut -c1-64
	)
	_phit=$SQK_FIXTURES/$_pkey.img
	if [ -f "$_phit" ]; then
		rm -f "$_pimg" && cp "$_phit" "$_pimg"
		return
	fi
	"$@" || return
	# Two files may make the same image at once: each renames a copy of its own.
	mkdir -p "$SQK_FIXTURES" && cp "$_pimg" "$_phit.$$" && mv -f "$_phit.$$" "$_phit"
	return 0
}

# plain_pass: true in the plain pass of make check (and for a file run on its
# own), false in a sanitized one (SQK_SANITIZED). Checks that run only the
# peers and the test helpers, no squashkit code, run where it is true: under
# the sanitizers they would find the same and look at nothing of ours.
plain_pass() {
	[ -z "${SQK_SANITIZED:-}" ]
}

skip_all() {
	echo "1..0 # SKIP $1"
	test_skip_all_done=1
	exit 0
}

skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1"
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
}

need_cmd() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "$c is not installed"
	done
}

# need_unsquashfs_4_5_1: skip the file unless unsquashfs is 4.5.1, the
# version whose output the compatibility tests hold squashkit to.
need_unsquashfs_4_5_1() {
	case $(unsquashfs -v 2>&1 | head -1) in
	*" 4.5.1 "*) ;;
	*) skip_all "the reference is unsquashfs 4.5.1; this one is $(unsquashfs -v 2>&1 | head -1)" ;;
	esac
}

# ref_tree DIR: the reference tree of tests/interop/mktree.sh in DIR; the
# file bails out when it cannot be built, as every test on it would fail.
# Within make check the tree is built once a suite run and copied (cp -a
# keeps every byte, hole, link, owner, time and xattr that manifest sees),
# for each kind of file system it goes to and each user (without root,
# mktree leaves out what only root may make).
ref_tree() {
	_rkey=
	if [ -n "${SQK_FIXTURES:-}" ]; then
		_rkey=$(cat "$SQK_SRCDIR/tests/interop/mktree.sh" "$SQK_SRCDIR/tests/interop/gen.sh" |
			sha256sum | cut -c1-16)-$(id -u)-$(stat -f -c %T "$(dirname "$1")")
		if [ -d "$SQK_FIXTURES/tree-$_rkey" ] &&
			cp -a "$SQK_FIXTURES/tree-$_rkey" "$1" 2>/dev/null; then
			return 0
		fi
		rm -rf "$1"
	fi
	if ! sh "$SQK_SRCDIR/tests/interop/mktree.sh" "$1" 2>"$TMP/mktree.err"; then
		echo "Bail out! mktree.sh failed: $(head -1 "$TMP/mktree.err")"
		exit 1
	fi
	[ -n "$_rkey" ] || return 0
	# Two files may build it at once: the first rename wins, the other copy goes.
	_rtmp=$SQK_FIXTURES/tree-$_rkey.$$
	if mkdir -p "$SQK_FIXTURES" && cp -a "$1" "$_rtmp" 2>/dev/null &&
		mv -T "$_rtmp" "$SQK_FIXTURES/tree-$_rkey" 2>/dev/null; then
		return 0
	fi
	rm -rf "$_rtmp"
}

done_testing() {
	echo "1..$test_count"
	[ "$test_failed" -eq 0 ]
}
