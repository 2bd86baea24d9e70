# Deterministic file contents for the trees the interop tests build: sourced
# by mktree.sh and by the tests that build a tree of their own.

# rnd SEED BYTES: pseudo-random, incompressible bytes (Park-Miller generator).
rnd() {
	awk -v seed="$1" -v n="$2" 'BEGIN {
		s = seed
		for (i = 0; i < n; i++) {
			s = (s * 16807) % 2147483647
			printf "%c", int(s / 128) % 256
		}
	}'
}

# txt SEED BYTES: compressible text, different for each seed. Each line says
# what it is part of, $TXT_LABEL, so that trees built by different tests do
# not hold the same text.
txt() {
	awk -v seed="$1" -v n="$2" -v what="${TXT_LABEL:-a compressible file}" 'BEGIN {
		line = 0
		while (n > 0) {
			l = sprintf("%d line %d of %s\n", seed, line++, what)
			if (length(l) > n)
				l = substr(l, 1, n)
			printf "%s", l
			n -= length(l)
		}
	}'
}

# put FILE OFFSET: write stdin into FILE at byte OFFSET, keeping the rest.
put() {
	dd of="$1" bs=65536 seek="$2" oflag=seek_bytes conv=notrunc status=none
}
