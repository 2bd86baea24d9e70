#!/bin/sh
# mkimage --file-contexts: every inode's security.selinux, as the kernel
# reads it from the image, is the label matchpathcon (selinux-utils: the
# same file_contexts through -f, each path with its type through -m) gives
# that path: regular-expression rules, the last match winning, <<none>>
# (no label at all), rules for one type (--, -d, -l, -c, -b, -p, -s), a
# tree that meets each of them. The same with every source: a directory
# with pseudo definitions (devices, a fifo, a socket), a tar archive, an
# OCI image, a listing; under --selinux-root, the paths matched below the
# root given. A source's own label gives way, unless --keep-source-labels.
# An invalid file_contexts (a bad regular expression, a missing field, a
# file type that is none, a context that is no context) is refused in one
# line that names the file and the line, with nothing written.
SCRATCH=shm-xattrs
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd matchpathcon getfattr setfattr tar sha256sum
. "$SQK_SRCDIR/tests/interop/oci-lib.sh"
scratch_mount
SQK=$SQUASHKIT

FC=$TMP/file_contexts
cat >"$FC" <<'EOF'
/.*			system_u:object_r:default_t:s0
/			system_u:object_r:root_t:s0
/etc(/.*)?		system_u:object_r:etc_t:s0
/etc/shadow.*	--	system_u:object_r:shadow_t:s0
/etc/ssl(/.*)?		system_u:object_r:cert_t:s0
/usr/bin(/.*)?		system_u:object_r:bin_t:s0
/usr/bin/[^/]*\.so(\.[0-9]+)*	--	system_u:object_r:lib_t:s0
/usr/lib	-d	system_u:object_r:lib_t:s0
/usr/lib/[^/]+	-l	system_u:object_r:lib_link_t:s0
/usr/lib/[^/]+	--	system_u:object_r:lib_file_t:s0
/dev/.*		-c	system_u:object_r:device_t:s0
/dev/.*		-b	system_u:object_r:fixed_disk_device_t:s0
/dev/.*		-p	system_u:object_r:fifo_t:s0
/run(/.*)?		system_u:object_r:var_run_t:s0
/run/[^/]*\.sock	-s	system_u:object_r:sock_t:s0
/tmp(/.*)?		<<none>>
/home/[^/]+/\.ssh(/.*)?	system_u:object_r:ssh_home_t:s0
EOF

T=$TMP/tree
mkdir -p "$T/etc/ssl/certs" "$T/usr/bin" "$T/usr/lib/sub" "$T/tmp/deep" "$T/run" \
	"$T/home/u/.ssh" "$T/srv"
for f in etc/shadow etc/shadow- etc/passwd etc/ssl/certs/ca.pem usr/bin/tool usr/bin/libx.so \
	usr/bin/libx.so.1.2 usr/lib/file usr/lib/sub/deep tmp/x tmp/deep/y home/u/.ssh/id \
	home/u/plain srv/data; do
	echo "$f" >"$T/$f"
done
ln -s ../bin/tool "$T/usr/lib/link"
ln -s shadow "$T/etc/shadow-link"
mkdir "$T/etc/shadow.d"
PSEUDO="--pseudo 'dev d 755 0 0' --pseudo 'dev/null c 666 0 0 1 3' \
	--pseudo 'dev/sda b 660 0 0 8 0' --pseudo 'dev/initctl i 600 0 0 f' \
	--pseudo 'run/a.sock i 644 0 0 s' --pseudo 'run/b i 644 0 0 s'"

# labels IMG [ROOT]: "PATH TYPE LABEL" for every inode, as the kernel reads
# the image (PATH under ROOT, as the file_contexts sees it; no label: -).
labels() {
	if ! mount -t squashfs -o loop,ro "$1" "$MNT" 2>"$TMP/mount.err"; then
		echo "mount failed: $(cat "$TMP/mount.err")"
		return
	fi
	(cd "$MNT" && find . -printf '/%P %y\n') | sort | while read -r p y; do
		l=$(getfattr -h --only-values -n security.selinux "$MNT$p" 2>/dev/null | tr -d '\0')
		[ "$p" = / ] && [ -n "${2:-}" ] && p=
		echo "${2:-}$p $y ${l:--}"
	done
	umount "$MNT"
}
# expected LIST FC: the same lines with matchpathcon's labels for each path and type.
expected() {
	while read -r p y _; do
		case $y in d | l | c | b | p | s) m=$y ;; *) m=f ;; esac
		l=$(matchpathcon -n -f "$2" -m "$m" "$p" 2>&1)
		[ "$l" = "<<none>>" ] && l=-
		echo "$p $y $l"
	done <"$1"
}
# same_labels DESC IMG [ROOT] [FC]: the image's labels are matchpathcon's.
same_labels() {
	labels "$2" "${3:-}" >"$TMP/got"
	expected "$TMP/got" "${4:-$FC}" >"$TMP/want"
	n=$(wc -l <"$TMP/got")
	[ "$n" -gt 20 ] || echo "#   only $n inodes: $(head -1 "$TMP/got")"
	same_file "$TMP/got" "$TMP/want" "$1 ($n inodes)"
}

eval "\"\$SQK\" mkimage -q --file-contexts \"\$FC\" $PSEUDO \"\$T\" \"\$TMP/dir.img\""
same_labels "a directory with pseudo definitions: every label is matchpathcon's" "$TMP/dir.img"
grep -q '^/tmp/x f -$' "$TMP/got" && grep -q '^/etc/shadow.d d system_u:object_r:etc_t:s0$' "$TMP/got" &&
	grep -q '^/dev/initctl p system_u:object_r:fifo_t:s0$' "$TMP/got" &&
	grep -q '^/run/b s system_u:object_r:var_run_t:s0$' "$TMP/got" &&
	grep -q '^/ d system_u:object_r:root_t:s0$' "$TMP/got"
ok $? "<<none>> leaves no label; a rule for files does not label a directory, one for sockets only sockets"
cp "$TMP/got" "$TMP/dir.labels"

(cd "$T" && tar --sort=name -cf "$TMP/tree.tar" .)
eval "\"\$SQK\" mkimage -q --file-contexts \"\$FC\" $PSEUDO --archive \"\$TMP/tree.tar\" \"\$TMP/tar.img\""
labels "$TMP/tar.img" >"$TMP/tar.labels"
same_file "$TMP/tar.labels" "$TMP/dir.labels" "an archive: the same labels"
L=$TMP/oci
oci_init "$L"
oci_image "$L" - - "tar:$TMP/tree.tar"
eval "\"\$SQK\" mkimage -q --file-contexts \"\$FC\" $PSEUDO --oci \"\$L\" \"\$TMP/oci.img\""
labels "$TMP/oci.img" >"$TMP/oci.labels"
same_file "$TMP/oci.labels" "$TMP/dir.labels" "an OCI image: the same labels"
(cd "$T" && find . -mindepth 1 | sort) | while read -r p; do
	p=${p#./}
	if [ -L "$T/$p" ]; then
		echo "slink /$p 0777 0 0 $(readlink "$T/$p")"
	elif [ -d "$T/$p" ]; then
		echo "dir /$p 0755 0 0"
	else
		echo "file /$p 0644 0 0 $T/$p"
	fi
done >"$TMP/listing"
eval "\"\$SQK\" mkimage -q --file-contexts \"\$FC\" $PSEUDO --listing \"\$TMP/listing\" \"\$TMP/list.img\""
same_labels "a listing: matchpathcon's labels" "$TMP/list.img"

# --selinux-root: the paths are matched below it.
sed 's|^/|/sysroot/|' "$FC" >"$TMP/fc.sysroot"
eval "\"\$SQK\" mkimage -q --file-contexts \"\$TMP/fc.sysroot\" --selinux-root /sysroot $PSEUDO \"\$T\" \"\$TMP/root.img\""
same_labels "--selinux-root /sysroot: labels of the paths below /sysroot" "$TMP/root.img" /sysroot \
	"$TMP/fc.sysroot"
sed -n 's|^/sysroot/|/|p' "$TMP/got" >"$TMP/root.labels"
grep -v '^/ ' "$TMP/dir.labels" | cmp -s - "$TMP/root.labels"
ok $? "  the same labels as without the root, the root's own aside"

# A source's own label.
setfattr -n security.selinux -v "system_u:object_r:custom_t:s0" "$T/srv/data"
"$SQK" mkimage -q --file-contexts "$FC" "$T" "$TMP/src.img"
labels "$TMP/src.img" | grep '^/srv/data ' >"$TMP/one"
is "$(cat "$TMP/one")" "/srv/data f system_u:object_r:default_t:s0" "a source's label gives way to the file_contexts'"
"$SQK" mkimage -q --file-contexts "$FC" --keep-source-labels "$T" "$TMP/keep.img"
labels "$TMP/keep.img" >"$TMP/keep.labels"
grep -q '^/srv/data f system_u:object_r:custom_t:s0$' "$TMP/keep.labels" &&
	grep -q '^/srv d system_u:object_r:default_t:s0$' "$TMP/keep.labels"
ok $? "--keep-source-labels: the source's label stays, the others come from the file"

# Invalid file_contexts: one line naming the file and the line, nothing written.
bad() {
	desc=$1
	want=$2
	printf '%b' "$3" >"$TMP/bad.fc"
	rm -rf "$TMP/out" && mkdir "$TMP/out"
	"$SQK" mkimage -q --file-contexts "$TMP/bad.fc" "$T" "$TMP/out/x.img" 2>"$TMP/err"
	st=$?
	if [ $st -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ -z "$(ls -A "$TMP/out")" ] &&
		grep -q "^squashkit mkimage: $TMP/bad.fc: $want" "$TMP/err"; then
		ok 0 "$desc: $(cat "$TMP/err")"
	else
		ok 1 "$desc"
		echo "#   exit $st: $(cat "$TMP/err")"
	fi
}
bad "an invalid regular expression" "line 2 has invalid regex /bad(" \
	'/etc(/.*)?\tsystem_u:object_r:etc_t:s0\n/bad(\tsystem_u:object_r:x_t:s0\n'
bad "a line without a context" "line 1 is missing fields" '/etc\n'
bad "a file type that is none" "line 1 has invalid file type -q" \
	'/etc\t-q\tsystem_u:object_r:x_t:s0\n'
bad "a context that is no context" "line 1 has invalid context garbage" '/etc\tgarbage\n'
"$SQK" mkimage -q --file-contexts "$TMP/nothing" "$T" "$TMP/out/x.img" 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "1:squashkit mkimage: $TMP/nothing: No such file or directory" \
	"a file_contexts that is not there"
expect_status 2 "--file-contexts with --no-xattrs" \
	"$SQK" mkimage --file-contexts "$FC" --no-xattrs "$T" "$TMP/out/x.img"
expect_status 2 "--selinux-root without --file-contexts" \
	"$SQK" mkimage --selinux-root /sysroot "$T" "$TMP/out/x.img"

done_testing
