# httpd.sh: the test server (tests/tools/httpd) for the tests of images read
# over HTTP. Source it after tests/lib.sh.

# http_start DIR LOG [httpd options...]: serve DIR on 127.0.0.1 (a port the
# kernel chooses), each request a line of LOG; $BASE is then its URL and
# $HTTP_PID its process, killed at exit or by http_stop.
http_start() {
	_hdir=$1
	_hlog=$2
	shift 2
	rm -f "$TMP/http.port"
	"$SQK_TOOLS/httpd" --root "$_hdir" --port-file "$TMP/http.port" --log "$_hlog" \
		--lifetime 300 "$@" &
	HTTP_PID=$!
	at_exit "kill $HTTP_PID 2>/dev/null"
	_hi=0
	while [ ! -s "$TMP/http.port" ] && [ $_hi -lt 200 ]; do
		sleep 0.05
		_hi=$((_hi + 1))
	done
	if [ ! -s "$TMP/http.port" ]; then
		echo "Bail out! the test server did not start"
		exit 1
	fi
	BASE="http://127.0.0.1:$(cat "$TMP/http.port")"
}

http_stop() {
	kill "$HTTP_PID" 2>/dev/null
	wait "$HTTP_PID" 2>/dev/null
}

# http_requests LOG: how many requests LOG counts; http_bytes LOG: the body bytes sent.
http_requests() { wc -l <"$1" | tr -d ' '; }
http_bytes() { awk '{ s += $6 } END { print s + 0 }' "$1"; }
