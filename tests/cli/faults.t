#!/bin/sh
# faults.t: every system call that data goes through, failed in turn.
#
# tests/tools/libfault.so (LD_PRELOAD) makes the Nth call of a class fail
# (write, read, open, make, sync, rename, truncate, close: see its header).
# For a build, an append, an extraction to a directory and to an archive,
# and the unsquashfs front end, each on a tiny tree, the calls are counted
# once; then every N of every class is failed with each of its errnos, in
# a run of its own:
#   - the run exits 1 (never a signal) with one line on stderr, which ends
#     in the errno's words and names the path the call was about (the
#     target for a temporary file; the image for a read of it);
#   - nothing is left behind: no image, no temporary file, no tree, an
#     appended image back to its old bytes (the unsquashfs front end keeps
#     what it made, as unsquashfs does: every file there whole).
# EINTR and short counts: every read and write loop retries them, so those
# runs succeed, with the output a run without faults gives (under the
# sanitizers, SQK_SANITIZED=1, at every other call). Opens retry
# EINTR only where they may block (the image); the other calls never
# return it on a Linux file system and are not given it here.
# A mount reading the image, the Nth read failed: that read is EIO for its
# reader, the same read again gives the right bytes, the mount goes on.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

. "$SQK_SRCDIR/tests/cli/faults.sh"

total=0
for sc in build append dir tar unsq; do
	# The appended image's descriptor is closed after the image is synced
	# and committed: nothing a close could report is lost then.
	if [ $sc = append ]; then sweep_scenario $sc close; else sweep_scenario $sc; fi
done

# The mount: the Nth read of the image failed.
if [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null 2>&1; then
	skip "the mount: no /dev/fuse or fusermount3"
else
	scratch_mount
	# mount_run SPEC: mount with the fault, read every file twice; prints a line if wrong.
	mount_run() {
		rm -f "$W/log"
		SQK_FAULT="$1" SQK_FAULT_LOG="$W/log" \
			env LD_PRELOAD="$PRELOAD" "$SQUASHKIT" mount -f "$W/ref.img" "$MNT" 2>"$W/merr" &
		mpid=$!
		tries=0
		while ! mountpoint -q "$MNT" && kill -0 $mpid 2>/dev/null && [ $tries -lt 500 ]; do
			sleep 0.02
			tries=$((tries + 1))
		done
		if ! mountpoint -q "$MNT"; then
			wait $mpid
			st=$?
			# A failure at the start: exit 1, one line naming the image.
			[ $st -eq 1 ] && [ "$(wc -l <"$W/merr")" -eq 1 ] &&
				grep -qx "squashkit mount: $W/ref.img: .*Input/output error" "$W/merr" ||
				echo "no mount: exit $st: $(head -2 "$W/merr" | tr '\n' '|')"
			return
		fi
		failed=0
		for f in big small d/f d/hard; do
			if ! timeout 10 cat "$MNT/$f" >"$W/got" 2>"$W/cat.err"; then
				failed=$((failed + 1))
				grep -q "Input/output error" "$W/cat.err" ||
					echo "$f: not EIO: $(cat "$W/cat.err")"
			fi
			# The right bytes, at the latest when read again.
			timeout 10 cmp -s "$MNT/$f" "$W/src/$f" ||
				echo "$f: wrong, or wrong when read again"
		done
		[ "$(readlink "$MNT/link")" = small ] || echo "the symlink is wrong"
		[ $failed -le 1 ] || echo "$failed files failed to read, for one fault"
		"$SQUASHKIT" umount "$MNT" 2>/dev/null || fusermount3 -u "$MNT"
		wait $mpid
		st=$?
		[ $st -eq 0 ] || echo "the mount ended with $st: $(head -2 "$W/merr" | tr '\n' '|')"
	}
	rm -f "$W/count"
	SQK_FAULT_COUNT="$W/count" env LD_PRELOAD="$PRELOAD" "$SQUASHKIT" mount -f "$W/ref.img" \
		"$MNT" 2>/dev/null &
	mpid=$!
	while ! mountpoint -q "$MNT" && kill -0 $mpid 2>/dev/null; do sleep 0.05; done
	for f in big small d/f d/hard; do cat "$MNT/$f" >/dev/null; done
	"$SQUASHKIT" umount "$MNT" 2>/dev/null || fusermount3 -u "$MNT"
	wait $mpid
	n=$(awk '$1 == "read" { print $2 }' "$W/count")
	bad=0
	i=1
	while [ $i -le "${n:-0}" ]; do
		why=$(mount_run "read:$i:EIO")
		if [ -n "$why" ]; then
			bad=$((bad + 1))
			[ $bad -gt 5 ] || echo "#   mount read:$i:EIO: $why"
		fi
		i=$((i + 1))
	done
	total=$((total + ${n:-0}))
	ok "$([ "${n:-0}" -gt 0 ] && [ $bad -eq 0 ]; echo $?)" \
		"mount: each of ${n:-0} reads of the image failed in turn: EIO for that read only"
fi

echo "# $total injection points covered"
done_testing
