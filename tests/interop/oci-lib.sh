# OCI image layouts made by hand for the tests (source it after tests/lib.sh):
# the blobs, config, manifest and index.json of an image whose layers are
# tar files the test made, each digest computed with sha256sum.
#
#   oci_init DIR                     an empty layout
#   oci_image DIR REF PLATFORM L...  an image of the layers L ("tar:FILE",
#                                    "gzip:FILE", "zstd:FILE", lowest first)
#                                    named REF ("-": no name), of PLATFORM
#                                    (os/arch[/variant], "-": none said)
#   oci_index DIR                    index.json, of every image made so far

oci_init() {
	mkdir -p "$1/blobs/sha256"
	printf '{"imageLayoutVersion":"1.0.0"}\n' >"$1/oci-layout"
	: >"$1.entries"
}

# oci_put DIR FILE: FILE as a blob of DIR; prints its descriptor's digest and size.
oci_put() {
	_h=$(sha256sum <"$2" | cut -d' ' -f1)
	cp "$2" "$1/blobs/sha256/$_h"
	echo "sha256:$_h $(wc -c <"$2" | tr -d ' ')"
}

# oci_desc MEDIATYPE DIGEST SIZE [EXTRA]: a descriptor.
oci_desc() {
	printf '{"mediaType":"%s","digest":"%s","size":%s%s}' "$1" "$2" "$3" "${4:-}"
}

oci_image() {
	_dir=$1
	_ref=$2
	_plat=$3
	shift 3
	_layers=
	_diffs=
	for _l; do
		_kind=${_l%%:*}
		_f=${_l#*:}
		case $_kind in
		gzip)
			_mt=application/vnd.oci.image.layer.v1.tar+gzip
			_diff=$(gzip -dc "$_f" 2>/dev/null | sha256sum | cut -d' ' -f1)
			;;
		zstd)
			_mt=application/vnd.oci.image.layer.v1.tar+zstd
			_diff=$(zstd -qdc "$_f" 2>/dev/null | sha256sum | cut -d' ' -f1)
			;;
		*)
			_mt=application/vnd.oci.image.layer.v1.tar
			_diff=$(sha256sum <"$_f" | cut -d' ' -f1)
			;;
		esac
		_d=$(oci_put "$_dir" "$_f")
		_layers="$_layers${_layers:+,}$(oci_desc "$_mt" "${_d% *}" "${_d#* }")"
		_diffs="$_diffs${_diffs:+,}\"sha256:$_diff\""
	done
	_os=linux
	_arch=amd64
	_var=
	if [ "$_plat" != - ]; then
		_os=${_plat%%/*}
		_rest=${_plat#*/}
		_arch=${_rest%%/*}
		[ "$_rest" = "$_arch" ] || _var=${_rest#*/}
	fi
	printf '{"architecture":"%s","os":"%s","config":{},"rootfs":{"type":"layers","diff_ids":[%s]}}' \
		"$_arch" "$_os" "$_diffs" >"$_dir.config"
	_c=$(oci_put "$_dir" "$_dir.config")
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":%s,"layers":[%s]}' \
		"$(oci_desc application/vnd.oci.image.config.v1+json "${_c% *}" "${_c#* }")" \
		"$_layers" >"$_dir.manifest"
	_m=$(oci_put "$_dir" "$_dir.manifest")
	_extra=
	if [ "$_plat" != - ]; then
		_extra=",\"platform\":{\"architecture\":\"$_arch\",\"os\":\"$_os\"${_var:+,\"variant\":\"$_var\"}}"
	fi
	[ "$_ref" = - ] ||
		_extra="$_extra,\"annotations\":{\"org.opencontainers.image.ref.name\":\"$_ref\"}"
	oci_desc application/vnd.oci.image.manifest.v1+json "${_m% *}" "${_m#* }" "$_extra" >>"$_dir.entries"
	echo >>"$_dir.entries"
	oci_index "$_dir"
}

oci_index() {
	printf '{"schemaVersion":2,"manifests":[%s]}\n' "$(paste -sd, "$1.entries")" >"$1/index.json"
}

# oci_tar DIR OUT: DIR's tree as a layer tar (sorted, numeric owners, every xattr).
oci_tar() {
	tar --sort=name --numeric-owner --xattrs --xattrs-include='*' --format=posix \
		--pax-option=delete=atime,delete=ctime -C "$1" -cf "$2" .
}

# oci_layers DIR: four layers in DIR (root: devices, owners, trusted xattrs),
# DIR/l1.tar, l2.tar.gz, l3.tar.zst and l4.tar, lowest first (and l5.tar.gz,
# to go over l1 and l2 alone, without links to a lower layer), that exercise
# what applying layers must get right: files replaced, removed by whiteouts
# (a file, a directory, one removed and made again), a directory made opaque,
# a file made a directory and a directory a file, hard links within a layer
# and to a file of a lower layer (which a later layer then removes: the link
# keeps its data), symlinks, devices, a fifo, xattrs and owners across layers.
oci_layers() {
	_L=$1
	_t=200001000
	umask 022
	# Layer 1: the base.
	_d=$_L/1
	mkdir -p "$_d/etc" "$_d/bin" "$_d/usr/lib/sub" "$_d/gone/deep" "$_d/opq/olddir" \
		"$_d/dev" "$_d/d2f" "$_d/again"
	echo root:x:0:0 >"$_d/etc/passwd"
	echo keep >"$_d/etc/keep"
	echo drop >"$_d/etc/drop"
	head -c 300000 /dev/urandom >"$_d/bin/tool"
	ln -s tool "$_d/bin/link"
	ln "$_d/etc/passwd" "$_d/etc/passwd-hard"
	echo deep >"$_d/usr/lib/sub/deep"
	# Removed by layer 2: its megabyte of random bytes must not be in the image.
	head -c 1048576 /dev/urandom >"$_d/dead"
	echo a >"$_d/gone/deep/a"
	echo o >"$_d/opq/old1"
	echo x >"$_d/opq/olddir/x"
	echo old >"$_d/again/old"
	mknod "$_d/dev/null" c 1 3
	mknod "$_d/dev/sda" b 8 0
	mkfifo "$_d/dev/fifo"
	echo f >"$_d/f2d"
	echo y >"$_d/d2f/y"
	setfattr -n user.one -v 1 "$_d/etc/keep"
	setfattr -n trusted.t -v t "$_d/bin/tool"
	setfattr -n user.dir -v d "$_d/usr/lib"
	chown 1000:1001 "$_d/usr/lib/sub/deep"
	chmod 4755 "$_d/bin/tool"
	chmod 700 "$_d/opq"
	# Layer 2: whiteouts, an opaque directory, replacements.
	_d=$_L/2
	mkdir -p "$_d/etc" "$_d/opq/newdir" "$_d/f2d" "$_d/again"
	: >"$_d/.wh.gone"
	: >"$_d/.wh.dead"
	: >"$_d/etc/.wh.drop"
	: >"$_d/opq/.wh..wh..opq"
	: >"$_d/.wh.again"
	echo again >"$_d/again/new"
	echo new1 >"$_d/opq/new1"
	echo n >"$_d/opq/newdir/n"
	echo inner >"$_d/f2d/inner"
	echo file >"$_d/d2f"
	echo passwd2 >"$_d/etc/passwd"
	setfattr -n user.two -v 2 "$_d/etc"
	chmod 750 "$_d/opq"
	# Layer 3: a hard link to a file only a lower layer has (tar --delete
	# takes the file itself out, leaving the link entry to its path).
	_d=$_L/3
	mkdir -p "$_d/etc"
	cp -p "$_L/1/etc/keep" "$_d/etc/keep"
	ln "$_d/etc/keep" "$_d/xlink"
	echo l3 >"$_d/etc/l3"
	setfattr -n user.three -v 3 "$_d/etc"
	# Layer 4 (the top): the linked file removed, a symlink made a file, a
	# hard link to a lower file, the same way.
	_d=$_L/4
	mkdir -p "$_d/etc" "$_d/bin" "$_d/usr/lib/sub"
	: >"$_d/etc/.wh.keep"
	echo "no longer a link" >"$_d/bin/link"
	cp -p "$_L/1/usr/lib/sub/deep" "$_d/usr/lib/sub/deep"
	ln "$_d/usr/lib/sub/deep" "$_d/zlink"
	head -c 5000 /dev/urandom >"$_d/top"
	# Layer 5, over layers 1 and 2 alone (no link to a lower layer, which an
	# overlayfs layer cannot hold): a directory removed and made again, a
	# file made a device, a lower symlink removed.
	_d=$_L/5
	mkdir -p "$_d/usr/lib" "$_d/bin"
	: >"$_d/.wh.usr"
	echo made-again >"$_d/usr/lib/again"
	: >"$_d/bin/.wh.link"
	mknod "$_d/f2d-dev" c 4 64
	: >"$_d/.wh.f2d"
	echo five >"$_d/five"
	for _i in 1 2 3 4 5; do
		find "$_L/$_i" -exec touch -h -d "@$((_t + _i))" {} +
	done
	oci_tar "$_L/1" "$_L/l1.tar"
	oci_tar "$_L/2" "$_L/l2.tar"
	gzip -n9 <"$_L/l2.tar" >"$_L/l2.tar.gz"
	oci_tar "$_L/3" "$_L/l3.tmp"
	tar --delete -f "$_L/l3.tmp" ./etc/keep
	zstd -q <"$_L/l3.tmp" >"$_L/l3.tar.zst"
	oci_tar "$_L/4" "$_L/l4.tar"
	tar --delete -f "$_L/l4.tar" ./usr/lib/sub/deep
	oci_tar "$_L/5" "$_L/l5.tar"
	gzip -n9 <"$_L/l5.tar" >"$_L/l5.tar.gz"
}
