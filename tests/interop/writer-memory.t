#!/bin/sh
# writer-memory.t: mkimage within a memory budget. What a build keeps about
# the whole tree (its nodes and names, the entries waiting to be sorted into
# directories, the listings, the dedup indexes, the hard links, every file's
# result, the fragment, directory and export tables) goes to unnamed
# temporary files past its share (core/util/spill.h). SQK_TEST_SPILL=tiny
# holds every structure to the least that works, so that a small input
# takes every path of a large one; the image must be the bytes of a build
# with plenty, for -j 1 and -j 2:
#   - a tree (tests/tools/gentar's software tree, extracted: hard links,
#     symlinks, duplicates), an archive by name and from a pipe, one whose
#     entries come in reverse order, pseudo definitions, --sort, --reuse,
#     --append;
#   - the kernel reads the tiny build as the tree it came from;
#   - --json says what went to disk; nothing is left in --tmpdir.
# Then faults (tests/tools/libfault.so): each call of the temporary files
# (open, write, read) failed in turn: exit 1, one line naming the directory
# and the errno's words, no image and no temporary left; and SIGINT at
# writes of the temporary files late in the build (the merges): the run
# dies of it and leaves nothing.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

GENTAR=$SQK_TOOLS/gentar
MANIFEST=$SQK_TOOLS/manifest
FAULT=$SQK_TOOLS/libfault.so
[ -x "$GENTAR" ] && [ -x "$MANIFEST" ] || skip_all "tests/tools are not built"
need_cmd tar

W=$(cd "$TMP" && pwd -P)
T=$W/tmp
mkdir "$T"
N=2000
[ -n "${SQK_SANITIZED:-}" ] && N=800
t_empty() { [ -z "$(ls -A "$T")" ]; }
plenty() { "$SQUASHKIT" mkimage -q "$@"; }
tiny() { SQK_TEST_SPILL=tiny "$SQUASHKIT" mkimage -q --memory 8M --tmpdir "$T" "$@"; }

"$GENTAR" -m 600 $N >"$W/a.tar" && "$GENTAR" -m 600 -o reverse $N >"$W/rev.tar" &&
	"$GENTAR" -s 7 -m 600 $((N / 4)) >"$W/more.tar" || {
	echo "Bail out! gentar failed"
	exit 1
}
mkdir "$W/src" "$W/more"
tar -C "$W/src" -xf "$W/a.tar" && tar -C "$W/more" -xf "$W/more.tar" || {
	echo "Bail out! tar cannot extract gentar's stream"
	exit 1
}
links=$(find "$W/src" -type f -links +1 | wc -l)
syms=$(find "$W/src" -type l | wc -l)
echo "# $N entries, $links hard-linked files, $syms symlinks"

# same DESC ARGS...: the image of ARGS with plenty (-j 2) and tiny (-j 1 and
# -j 2) is one; stdin from $IN. The tiny builds must have spilled.
IN=/dev/null
same() {
	desc=$1
	shift
	rm -f "$W/p.img" "$W/t1.img" "$W/t2.img"
	plenty -j 2 "$@" "$W/p.img" <"$IN" 2>"$W/err" &&
		tiny -j 1 "$@" "$W/t1.img" <"$IN" 2>>"$W/err" &&
		tiny -j 2 --stats --json "$@" "$W/t2.img" <"$IN" >"$W/json" 2>>"$W/err"
	st=$?
	spilled=$(grep -o '"spilled_bytes":[0-9]*' "$W/json" | cut -d: -f2)
	[ $st -eq 0 ] && cmp -s "$W/p.img" "$W/t1.img" && cmp -s "$W/p.img" "$W/t2.img" &&
		[ "${spilled:-0}" -gt 0 ]
	ok $? "$desc: the same image with plenty and in a tiny budget, -j 1 and 2 ($spilled bytes spilled)"
	[ $st -eq 0 ] || sed 's/^/#   /' "$W/err" | head -5
}

same "a tree" "$W/src"
[ "$links" -gt 0 ] && [ "$syms" -gt 0 ]
ok $? "  the tree has hard links ($links) and symlinks ($syms)"
cp "$W/t2.img" "$W/tree.img"
same "an archive" --archive "$W/a.tar"
IN=$W/a.tar
same "an archive from a pipe" --archive -
IN=/dev/null
same "an archive in reverse order" --archive "$W/rev.tar"
same "pseudo definitions" "$W/src" --pseudo "pdir d 750 1 2" \
	--pseudo "pdir/dev c 640 0 0 1 3" --pseudo "pdir/sym s 777 0 0 ../x" \
	--pseudo "pdir/fifo i 600 0 0 f"
find "$W/src" -type f | sed -n '1~37p' | awk -v s="$W/src/" '{ sub(s, ""); print $0, NR % 7 - 3 }' \
	>"$W/sort"
same "--sort" "$W/src" --sort "$W/sort"
plenty --archive "$W/more.tar" "$W/old.img"
same "--reuse" "$W/src" --reuse "$W/old.img"

# --append: the same base, new entries added with plenty and in a tiny budget.
plenty "$W/src" "$W/base.img"
cp "$W/base.img" "$W/ap.img"
cp "$W/base.img" "$W/at.img"
plenty --append "$W/more" "$W/ap.img" && tiny -j 2 --append "$W/more" "$W/at.img" &&
	cmp -s "$W/ap.img" "$W/at.img"
ok $? "--append: the same image with plenty and in a tiny budget"

# A build with plenty spills nothing.
rm -f "$W/p.img"
plenty --stats --json "$W/src" "$W/p.img" >"$W/json"
grep -q '"spilled_bytes":0,' "$W/json"
ok $? "with plenty nothing goes to disk"
t_empty
ok $? "no temporary file is left, none ever had a name"

# The kernel reads the tiny build as the tree it came from.
if [ "$(id -u)" -eq 0 ] && grep -qw squashfs /proc/filesystems 2>/dev/null ||
	modprobe squashfs 2>/dev/null; then
	scratch_mount
	"$MANIFEST" "$W/src" >"$W/src.m"
	kernel_view "$W/tree.img" "$W/tree.m"
	cmp -s "$W/src.m" "$W/tree.m"
	ok $? "the kernel mounts the tiny build: the tree, contents and hard links"
	[ -s "$W/src.m" ] || echo "#   $(head -1 "$W/tree.m")"
else
	skip "the kernel's squashfs needs root and the module"
fi

if [ ! -f "$FAULT" ]; then
	skip "faults: $FAULT is not built"
	skip "faults: SIGINT"
	done_testing
	exit
fi
asan=$(ldd "$SQUASHKIT" | awk '/libasan/ { print $3 }')
PRELOAD="${asan:+$asan }$FAULT"
"$GENTAR" -s 3 -m 600 400 >"$W/f.tar"
run_build() {
	SQK_TEST_SPILL=tiny timeout 120 env --default-signal=INT LD_PRELOAD="$PRELOAD" \
		"$SQUASHKIT" mkimage -q -j 2 --memory 8M --tmpdir "$T" --archive "$W/f.tar" \
		"$W/out/img"
}
prep_build() { rm -rf "$W/out" && mkdir "$W/out"; }
left_build() { [ -z "$(ls -A "$W/out")" ]; }
. "$SQK_SRCDIR/tests/interop/spill-faults.sh"
prep_build
run_build >/dev/null 2>&1
cp "$W/out/img" "$W/f.img"
sweep build 1 20
[ $runs -gt 8 ] && [ $bad -eq 0 ]
ok $? "$runs calls of the temporary files failed in turn: exit 1, the line, nothing left"

# SIGINT at writes of the temporary files in the last third of the build's
# writes, where the runs are merged and the tables written: nothing left.
n=$(awk '$1 == "write" { print $2 }' "$W/count")
hits=0 bad=0
i=$((n * 2 / 3))
while [ $i -le "$n" ] && [ $hits -lt 6 ]; do
	prep_build
	under "write:$i:SIGINT" run_build
	case $f in
	"$T"/*)
		hits=$((hits + 1))
		if [ $st -ne 130 ] || ! t_empty || ! left_build; then
			bad=$((bad + 1))
			echo "#   write:$i:SIGINT: exit $st, left: $(ls -A "$T" "$W/out" | tr '\n' ' ')"
		fi
		;;
	esac
	i=$((i + (n / 3 + 5) / 6 + 1))
done
[ $hits -gt 2 ] && [ $bad -eq 0 ]
ok $? "SIGINT at $hits late writes of the temporary files: exit 130, nothing left"
prep_build
run_build >/dev/null 2>&1 && cmp -s "$W/out/img" "$W/f.img"
ok $? "the same build without a fault: the image it made before"

done_testing
