// SPDX-License-Identifier: BSD-2-Clause
/*
 * httpd: the HTTP/1.1 server the remote tests read images from. It serves
 * the files of one directory on 127.0.0.1 only, on a port the kernel
 * chooses (written to --port-file), with single byte ranges, ETag and
 * Last-Modified, and the conditions If-Match, If-Unmodified-Since and
 * If-Range. Faults are injected by request number (counted from 1, over
 * every connection):
 *
 *   --fault cut@N      reply N sends half of its body, then closes
 *   --fault 503@N      reply N is 503 Service Unavailable
 *   --fault stall@N    reply N sends nothing for --stall seconds, then closes
 *   --fault full@N     reply N ignores Range (200, the whole file)
 *   --fault replace@N  before reply N, --replace-from is renamed over --replace-to
 *   KIND@N+            the same for every request from N on
 *   --no-range         every reply ignores Range
 *   --latency MS       each reply waits MS milliseconds first
 *   --rate BYTES       the replies' bodies share a link of BYTES per second
 *   --require LINE     a request without the header line LINE is 401
 *   --fail-while FILE  every reply is 503 while FILE exists
 *   /redirect/NAME     is a 302 to /NAME
 *
 * Every request is a line of --log: "N METHOD PATH RANGE STATUS BODY-BYTES".
 * Bounded: it exits after --lifetime seconds (default 300) or --max
 * requests, and serves at most 256 connections at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { F_CUT, F_503, F_STALL, F_FULL, F_REPLACE, F_KINDS };
static const char *const kind_names[F_KINDS] = {"cut", "503", "stall", "full", "replace"};

struct fault {
	int kind;
	unsigned long n;
	int onward;
};

static struct fault faults[32];
static unsigned nfaults;
static const char *root = ".", *log_path, *replace_from, *replace_to, *require, *fail_while;
static unsigned latency_ms, stall_s = 5, no_range;
static double rate;	 /* bytes per second of the shared link; 0: unlimited */
static double link_free; /* when the link has sent what it was given, CLOCK_MONOTONIC s */
static unsigned long max_requests = 1000000, served;
static unsigned connections;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;

static int fault_at(unsigned long n, int kind)
{
	unsigned i;

	for (i = 0; i < nfaults; i++)
		if (faults[i].kind == kind &&
		    (faults[i].n == n || (faults[i].onward && n > faults[i].n)))
			return 1;
	return 0;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n bytes through the shared link: wait for their turn on it. */
static void pace(size_t n)
{
	double start, until, wait;

	if (rate <= 0)
		return;
	pthread_mutex_lock(&lock);
	start = now_s();
	if (link_free > start)
		start = link_free;
	until = link_free = start + (double)n / rate;
	pthread_mutex_unlock(&lock);
	wait = until - now_s();
	if (wait > 0)
		sleep_ms((unsigned)(wait * 1000));
}

static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The value of header name in the request head, into out ("" when absent). */
static void header(const char *head, const char *name, char *out, size_t cap)
{
	const char *p = head;
	size_t k = strlen(name);

	out[0] = '\0';
	while ((p = strstr(p, "\r\n"))) {
		p += 2;
		if (strncasecmp(p, name, k) == 0 && p[k] == ':') {
			const char *v = p + k + 1, *e;

			while (*v == ' ')
				v++;
			e = strstr(v, "\r\n");
			if (!e)
				return;
			snprintf(out, cap, "%.*s", (int)(e - v), v);
			return;
		}
	}
}

/* A single range "bytes=a-b", "bytes=a-", "bytes=-n" of size: 1 and [*a, *b]; 0 none; -1 bad. */
static int parse_range(const char *v, unsigned long long size, unsigned long long *a,
		       unsigned long long *b)
{
	char *end;

	if (!*v)
		return 0;
	if (strncmp(v, "bytes=", 6) != 0 || strchr(v, ','))
		return 0;
	v += 6;
	if (*v == '-') {
		unsigned long long n = strtoull(v + 1, &end, 10);

		if (*end || !n || !size)
			return -1;
		*a = n > size ? 0 : size - n;
		*b = size - 1;
		return 1;
	}
	*a = strtoull(v, &end, 10);
	if (*end != '-')
		return 0;
	*b = end[1] ? strtoull(end + 1, &end, 10) : size - 1;
	if (*a >= size || *b < *a)
		return -1;
	if (*b >= size)
		*b = size - 1;
	return 1;
}

static void log_line(unsigned long n, const char *method, const char *path, const char *range,
		     int status, unsigned long long bytes)
{
	char line[1024];
	int len = snprintf(line, sizeof(line), "%lu %s %s %s %d %llu\n", n, method, path,
			   *range ? range : "-", status, bytes);

	if (log_fd >= 0 && len > 0)
		(void)!write(log_fd, line, (size_t)len);
}

/* Serve one request whose head is in head; 0 to go on with the connection, -1 to close. */
static int serve(int c, char *head)
{
	char method[16], path[512], file[1024], range[128], ifmatch[256], ifunmod[128],
		ifrange[256];
	char etag[96], lastmod[64], hdr[1024], conn[32];
	unsigned long long size, a = 0, b = 0;
	unsigned long n;
	struct stat st;
	struct tm tm;
	int fd, status, r, full, keep;
	size_t hl;

	if (sscanf(head, "%15s %511s", method, path) != 2)
		return -1;
	header(head, "Range", range, sizeof(range));
	header(head, "If-Match", ifmatch, sizeof(ifmatch));
	header(head, "If-Unmodified-Since", ifunmod, sizeof(ifunmod));
	header(head, "If-Range", ifrange, sizeof(ifrange));
	header(head, "Connection", conn, sizeof(conn));
	keep = strcasecmp(conn, "close") != 0;
	pthread_mutex_lock(&lock);
	n = ++served;
	if (fault_at(n, F_REPLACE) && replace_from && replace_to)
		rename(replace_from, replace_to);
	pthread_mutex_unlock(&lock);
	if (n > max_requests)
		return -1;
	if (latency_ms)
		sleep_ms(latency_ms);
	if (fault_at(n, F_STALL)) {
		sleep_ms(stall_s * 1000);
		log_line(n, method, path, range, 0, 0);
		return -1;
	}
	if (fault_at(n, F_503) || (fail_while && access(fail_while, F_OK) == 0)) {
		hl = (size_t)snprintf(
			hdr, sizeof(hdr),
			"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n");
		log_line(n, method, path, range, 503, 0);
		return send_all(c, hdr, hl) ? -1 : 0;
	}
	if (require && !strstr(head, require)) {
		hl = (size_t)snprintf(hdr, sizeof(hdr),
				      "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
		log_line(n, method, path, range, 401, 0);
		return send_all(c, hdr, hl) ? -1 : 0;
	}
	if (strncmp(path, "/redirect/", 10) == 0) {
		hl = (size_t)snprintf(
			hdr, sizeof(hdr),
			"HTTP/1.1 302 Found\r\nLocation: /%s\r\nContent-Length: 0\r\n\r\n",
			path + 10);
		log_line(n, method, path, range, 302, 0);
		return send_all(c, hdr, hl) ? -1 : 0;
	}
	snprintf(file, sizeof(file), "%s/%s", root, path + 1);
	fd = strstr(path, "..") ? -1 : open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		hl = (size_t)snprintf(hdr, sizeof(hdr),
				      "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
		log_line(n, method, path, range, 404, 0);
		return send_all(c, hdr, hl) ? -1 : 0;
	}
	size = (unsigned long long)st.st_size;
	snprintf(etag, sizeof(etag), "\"%llx-%llx-%llx\"", (unsigned long long)st.st_ino, size,
		 (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
			 (unsigned long long)st.st_mtim.tv_nsec);
	gmtime_r(&st.st_mtime, &tm);
	strftime(lastmod, sizeof(lastmod), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	full = no_range || fault_at(n, F_FULL) || (*ifrange && strcmp(ifrange, etag) != 0);
	r = full ? 0 : parse_range(range, size, &a, &b);
	if ((*ifmatch && strcmp(ifmatch, "*") != 0 && strcmp(ifmatch, etag) != 0) ||
	    (*ifunmod && strcmp(ifunmod, lastmod) != 0)) {
		status = 412;
		r = -2;
	} else if (r < 0) {
		status = 416;
	} else if (r == 0) {
		status = 200;
		a = 0;
		b = size - 1;
	} else {
		status = 206;
	}
	if (status >= 400) {
		hl = (size_t)snprintf(
			hdr, sizeof(hdr),
			"HTTP/1.1 %d %s\r\nContent-Range: bytes */%llu\r\n"
			"Content-Length: 0\r\n\r\n",
			status, status == 412 ? "Precondition Failed" : "Range Not Satisfiable",
			size);
		close(fd);
		log_line(n, method, path, range, status, 0);
		return send_all(c, hdr, hl) ? -1 : 0;
	}
	hl = (size_t)snprintf(hdr, sizeof(hdr),
			      "HTTP/1.1 %d %s\r\nContent-Length: %llu\r\nETag: %s\r\n"
			      "Last-Modified: %s\r\nAccept-Ranges: bytes\r\n",
			      status, status == 206 ? "Partial Content" : "OK",
			      size ? b - a + 1 : 0, etag, lastmod);
	if (status == 206)
		hl += (size_t)snprintf(hdr + hl, sizeof(hdr) - hl,
				       "Content-Range: bytes %llu-%llu/%llu\r\n", a, b, size);
	hl += (size_t)snprintf(hdr + hl, sizeof(hdr) - hl, "\r\n");
	if (send_all(c, hdr, hl)) {
		close(fd);
		return -1;
	}
	{
		unsigned long long left = size ? b - a + 1 : 0, sent = 0, stop = left;
		char buf[65536];

		if (strcmp(method, "HEAD") == 0)
			left = stop = 0;
		if (fault_at(n, F_CUT))
			stop = left / 2;
		while (sent < stop) {
			size_t want =
				stop - sent < sizeof(buf) ? (size_t)(stop - sent) : sizeof(buf);
			ssize_t got = pread(fd, buf, want, (off_t)(a + sent));

			if (got <= 0)
				break;
			pace((size_t)got);
			if (send_all(c, buf, (size_t)got))
				break;
			sent += (unsigned long long)got;
		}
		close(fd);
		log_line(n, method, path, range, status, sent);
		if (sent < left)
			return -1;
	}
	return keep ? 0 : -1;
}

static void *connection(void *arg)
{
	int c = (int)(long)arg;
	char buf[16384];
	size_t have = 0;
	unsigned requests = 0;

	/* Bounded: a connection serves at most 10000 requests. */
	while (requests < 10000) {
		char *end = have ? memmem(buf, have, "\r\n\r\n", 4) : NULL;
		ssize_t n;

		if (end) {
			size_t used = (size_t)(end + 4 - buf);

			*end = '\0';
			requests++;
			if (serve(c, buf) != 0)
				break;
			memmove(buf, buf + used, have - used);
			have -= used;
			continue;
		}
		if (have == sizeof(buf) - 1)
			break;
		n = recv(c, buf + have, sizeof(buf) - 1 - have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(c);
	pthread_mutex_lock(&lock);
	connections--;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static int add_fault(const char *spec)
{
	const char *at = strchr(spec, '@');
	char *end;
	int k;

	if (!at || nfaults == sizeof(faults) / sizeof(faults[0]))
		return -1;
	for (k = 0; k < F_KINDS; k++)
		if (strlen(kind_names[k]) == (size_t)(at - spec) &&
		    strncmp(spec, kind_names[k], (size_t)(at - spec)) == 0)
			break;
	if (k == F_KINDS)
		return -1;
	faults[nfaults].kind = k;
	faults[nfaults].n = strtoul(at + 1, &end, 10);
	faults[nfaults].onward = *end == '+';
	if (end == at + 1 || (*end && strcmp(end, "+") != 0))
		return -1;
	nfaults++;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: httpd --root DIR --port-file FILE [--log FILE] [--fault KIND@N[+]]\n"
		"       [--no-range] [--latency MS] [--rate BYTES] [--stall S] [--lifetime S] "
		"[--max N]\n"
		"       [--replace-from FILE --replace-to FILE] [--require LINE]\n"
		"       [--fail-while FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	const char *port_file = NULL;
	char tmp[4096];
	unsigned lifetime = 300;
	FILE *pf;
	int s, i, one = 1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--no-range")) {
			no_range = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--root"))
			root = v;
		else if (!strcmp(a, "--port-file"))
			port_file = v;
		else if (!strcmp(a, "--log"))
			log_path = v;
		else if (!strcmp(a, "--fault")) {
			if (add_fault(v))
				usage();
		} else if (!strcmp(a, "--latency"))
			latency_ms = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--fail-while"))
			fail_while = v;
		else if (!strcmp(a, "--require"))
			require = v;
		else if (!strcmp(a, "--rate"))
			rate = strtod(v, NULL);
		else if (!strcmp(a, "--stall"))
			stall_s = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--lifetime"))
			lifetime = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--max"))
			max_requests = strtoul(v, NULL, 10);
		else if (!strcmp(a, "--replace-from"))
			replace_from = v;
		else if (!strcmp(a, "--replace-to"))
			replace_to = v;
		else
			usage();
	}
	if (!port_file)
		usage();
	if (log_path &&
	    (log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644)) < 0) {
		perror(log_path);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	/* The bound on its life: SIGALRM's default action ends the process. */
	alarm(lifetime);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 128) ||
	    getsockname(s, (struct sockaddr *)&sa, &len)) {
		perror("httpd");
		return 1;
	}
	/* Written whole, then renamed: a reader never sees half a number. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
	pf = fopen(tmp, "w");
	if (!pf || fprintf(pf, "%u\n", ntohs(sa.sin_port)) < 0 || fclose(pf) ||
	    rename(tmp, port_file)) {
		perror(port_file);
		return 1;
	}
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		pthread_t t;

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE)
				continue;
			perror("accept");
			return 1;
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pthread_mutex_lock(&lock);
		if (connections >= 256) {
			pthread_mutex_unlock(&lock);
			close(c);
			continue;
		}
		connections++;
		pthread_mutex_unlock(&lock);
		if (pthread_create(&t, NULL, connection, (void *)(long)c) != 0) {
			close(c);
			pthread_mutex_lock(&lock);
			connections--;
			pthread_mutex_unlock(&lock);
			continue;
		}
		pthread_detach(t);
	}
}
