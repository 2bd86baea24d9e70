#!/bin/sh
# mkimage --oci with every call of every class failed in turn (faults.sh's
# sweep, tests/tools/libfault.so): the reads of the layout's files and
# blobs, in a directory and in an oci-archive, on both passes over a lower
# layer, and the image's own calls. Each run exits 1 with one line that
# ends in the errno's words and names the file the call was about (the
# blob, index.json, the archive), and leaves nothing behind; EINTR and
# short reads give the image a run without faults gives. Then SIGINT and
# SIGTERM at each call: death by the signal, nothing left.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/cli/faults.sh"
. "$SQK_SRCDIR/tests/interop/oci-lib.sh"
need_cmd tar gzip sha256sum

# Two layers: the top one removes a lower file and replaces another.
mkdir -p "$W/l1/d" "$W/l2/d"
awk 'BEGIN { for (i = 0; i < 900; i++) printf "line %d of a lower file\n", i }' >"$W/l1/big"
echo gone >"$W/l1/d/gone"
echo old >"$W/l1/d/f"
: >"$W/l2/d/.wh.gone"
echo new >"$W/l2/d/f"
tar --sort=name -C "$W/l1" -cf "$W/l1.tar" .
tar --sort=name -C "$W/l2" -cf - . | gzip -n >"$W/l2.tar.gz"
oci_init "$W/lay"
oci_image "$W/lay" - - "tar:$W/l1.tar" "gzip:$W/l2.tar.gz"
(cd "$W/lay" && tar -cf "$W/lay.tar" .)
"$SQUASHKIT" mkimage -q -b 4K --oci "$W/lay" "$W/oci-ref.img" || {
	echo "Bail out! the reference image cannot be built"
	exit 1
}

prep_oci() { rm -rf "$W/out" && mkdir "$W/out"; }
run_oci() { sqk mkimage -q -b 4K --oci "$W/lay" "$W/out/img"; }
left_oci() { is_empty "$W/out"; }
same_oci() { cmp -s "$W/out/img" "$W/oci-ref.img"; }
prep_ociar() { prep_oci; }
run_ociar() { sqk mkimage -q -b 4K --oci "oci-archive:$W/lay.tar" "$W/out/img"; }
left_ociar() { left_oci; }
same_ociar() { same_oci; }

total=0
for sc in oci ociar; do
	sweep_scenario $sc
	signal_sweep $sc
done
echo "# $total runs"

done_testing
