#!/bin/sh
# verity-faults.t: faults.t's and signals.t's sweeps over the builds that
# make a dm-verity tree. Every write, read, open, sync, rename, truncate and
# close of mkimage --verity into a hash file of its own with the root hash,
# the signature and its JSON beside the image; of mkimage --verity with the
# tree after the image and IMAGE.roothash.p7s; and of squashkit verity
# adding a tree to an image in place, failed in turn: exit 1, one line
# naming the file the call was about with the errno's words, and nothing
# left behind (no image, no hash file, no signature, no temporary file; the
# image squashkit verity was given cut back to its bytes). Then SIGINT at
# every call and SIGTERM at every write and sync: death by the signal,
# nothing left behind (squashkit verity's image whole with its tree once
# that was synced).
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
need_cmd openssl
. "$SQK_SRCDIR/tests/cli/faults.sh"

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/k.pem" -out "$W/c.pem" -days 3650 \
	-subj /CN=faults >/dev/null 2>&1 || skip_all "openssl cannot make a key"
SIGN="--verity-sign $W/k.pem --verity-cert $W/c.pem"

# A hash file of its own, the root hash, the signature and its JSON: five files at once.
run_vfile() {
	# shellcheck disable=SC2086
	sqk mkimage -q -b 4K --verity="$W/out/img.hash" --verity-salt 01 \
		--verity-root-hash-file "$W/out/root" $SIGN --verity-sig "$W/out/img.p7s" \
		--verity-sig-json "$W/out/sig.json" "$W/src" "$W/out/img"
}
prep_vfile() { rm -rf "$W/out" && mkdir "$W/out"; }
left_vfile() { is_empty "$W/out"; }
same_vfile() { diff -r "$W/out" "$W/ref-vfile" >/dev/null; }

# The tree after the image, the signature beside it (IMAGE.roothash.p7s, .raw dropped).
run_vapp() {
	# shellcheck disable=SC2086
	sqk mkimage -q -b 4K --verity --verity-salt 01 $SIGN "$W/src" "$W/out/img.raw"
}
prep_vapp() { rm -rf "$W/out" && mkdir "$W/out"; }
left_vapp() { is_empty "$W/out"; }
same_vapp() { diff -r "$W/out" "$W/ref-vapp" >/dev/null; }

# squashkit verity, in place on an image that exists.
run_vadd() {
	sqk verity -q --salt 01 --sign "$W/k.pem" --cert "$W/c.pem" "$W/v/img"
}
prep_vadd() { rm -rf "$W/v" && mkdir "$W/v" && cp "$W/ref.img" "$W/v/img"; }
left_vadd() { [ "$(ls -A "$W/v")" = img ] && cmp -s "$W/v/img" "$W/ref.img"; }
same_vadd() { diff -r "$W/v" "$W/ref-vadd" >/dev/null; }

for sc in vfile vapp vadd; do
	"prep_$sc"
	"run_$sc" >/dev/null 2>&1
	ok $? "$sc: runs under the fault library"
	case $sc in
	vadd) cp -r "$W/v" "$W/ref-vadd" ;;
	*) cp -r "$W/out" "$W/ref-$sc" ;;
	esac
done
"$SQUASHKIT" fsck -q --root-hash "$(cat "$W/ref-vfile/root")" --verity-hash-file \
	"$W/ref-vfile/img.hash" --verity-sig "$W/ref-vfile/img.p7s" --verity-cert "$W/c.pem" \
	"$W/ref-vfile/img"
ok $? "the reference outputs check"

total=0
for sc in vfile vapp vadd; do
	# The image's descriptor is closed once its tree is synced: nothing is lost then.
	if [ $sc = vadd ]; then sweep_scenario $sc close; else sweep_scenario $sc; fi
	for sig in INT TERM; do
		[ $sig = INT ] && num=2 || num=15
		signal_scenario $sc $sig $num
		[ $runs -gt 0 ] || continue
		is "$bad" 0 "$sc: SIG$sig at each of $runs calls: death by the signal, nothing left behind"
	done
done
echo "# $total injection points covered"
done_testing
