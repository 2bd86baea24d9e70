# Helpers for the tests that mount images with squashkit: start a foreground
# mount, wait for it, stop it, and check how its daemon ended. Source it after
# tests/lib.sh. Every wait is bounded; every mount is undone at exit.

# wait_for DESC CMD...: CMD succeeds within 20 s (tried every 0.02 s); a test.
wait_for() {
	_desc=$1
	shift
	_n=0
	while ! "$@" 2>/dev/null; do
		_n=$((_n + 1))
		if [ $_n -ge 1000 ]; then
			ok 1 "$_desc"
			return 1
		fi
		sleep 0.02
	done
	ok 0 "$_desc"
}

# mount_start IMAGE DIR OPTIONS...: `squashkit mount -f` in the background
# ($mount_pid), its stderr in DIR.err. Returns 0 once DIR is mounted; a mount
# that does not come up within 20 s, or a daemon that ends first, fails a test
# and returns 1.
mount_start() {
	_img=$1
	_dir=$2
	shift 2
	mkdir -p "$_dir"
	"$SQUASHKIT" mount -f "$@" "$_img" "$_dir" 2>"$_dir.err" &
	mount_pid=$!
	at_exit "umount -l '$_dir' 2>/dev/null; kill -9 $mount_pid 2>/dev/null"
	_n=0
	while ! timeout 5 mountpoint -q "$_dir" 2>/dev/null; do
		_n=$((_n + 1))
		if ! kill -0 $mount_pid 2>/dev/null || [ $_n -ge 1000 ]; then
			ok 1 "squashkit mount $* $(basename "$_img") comes up"
			sed 's/^/#   /' "$_dir.err" | head -5
			kill -9 $mount_pid 2>/dev/null
			wait $mount_pid 2>/dev/null
			return 1
		fi
		sleep 0.02
	done
	return 0
}

# mount_stop DIR NAME: squashkit umount DIR; the daemon must end within 20 s
# with status 0 and nothing on stderr (a sanitizer report, a leak at exit).
mount_stop() {
	_dir=$1
	_name=$2
	if timeout 30 "$SQUASHKIT" umount "$_dir" >"$TMP/.umount" 2>&1; then
		ok 0 "$_name: squashkit umount unmounts"
	else
		ok 1 "$_name: squashkit umount unmounts"
		sed 's/^/#   /' "$TMP/.umount" | head -5
		umount -l "$_dir" 2>/dev/null
	fi
	_n=0
	while kill -0 $mount_pid 2>/dev/null && [ $_n -lt 1000 ]; do
		_n=$((_n + 1))
		sleep 0.02
	done
	kill -9 $mount_pid 2>/dev/null
	wait $mount_pid
	_rc=$?
	if [ $_rc -eq 0 ] && [ ! -s "$_dir.err" ]; then
		ok 0 "$_name: the daemon ends cleanly"
	else
		ok 1 "$_name: the daemon ends cleanly"
		echo "#   exit $_rc"
		sed 's/^/#   /' "$_dir.err" | head -20
	fi
}
