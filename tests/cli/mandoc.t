#!/bin/sh
# Every man page is clean for mandoc -Tlint at every level, style included
# (and for groff -ww when groff is there). Our pages refer to each other,
# so mandoc searches them first, then the system's pages.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mandoc

MAN=$SQK_SRCDIR/man
mkdir -p "$TMP/man/man1" "$TMP/man/man3"
cp "$MAN"/*.1 "$TMP/man/man1/"
cp "$MAN"/*.3 "$TMP/man/man3/"
if command -v makewhatis >/dev/null 2>&1; then
	makewhatis "$TMP/man" 2>/dev/null
fi
system=$(manpath 2>/dev/null || echo /usr/share/man)

# A page of another package that this machine does not have is not a fault
# of ours: say so, and do not count it.
not_installed() { # NAME SECTION
	IFS=:
	for d in $system; do
		for f in "$d/man$2/$1.$2"*; do
			if [ -e "$f" ]; then
				unset IFS
				return 1
			fi
		done
	done
	unset IFS
	return 0
}

npages=0
for page in "$MAN"/*.1 "$MAN"/*.3; do
	case $page in *.1) npages=$((npages + 1)) ;; esac
	name=$(basename "$page")
	mandoc -Tlint -W style -M "$TMP/man:$system" "$page" >"$TMP/lint" 2>&1
	: >"$TMP/findings"
	grep -v 'outdated mandoc.db' "$TMP/lint" | while IFS= read -r line; do
		case $line in
		*"referenced manual not found: Xr "*)
			ref=${line#*Xr }
			set -- $ref
			case $1 in
			squashkit*) ;;
			*)
				if not_installed "$1" "$2"; then
					echo "#   not on this machine, not counted: $1($2)"
					continue
				fi
				;;
			esac
			;;
		esac
		echo "$line" >>"$TMP/findings"
	done
	if [ -s "$TMP/findings" ]; then
		ok 1 "mandoc -Tlint finds nothing in $name"
		sed 's/^/#   /' "$TMP/findings"
	else
		ok 0 "mandoc -Tlint finds nothing in $name"
	fi
	if command -v groff >/dev/null 2>&1; then
		# Every warning, on each device the page is read on: man(1) in a
		# terminal (utf8, ascii) lays lines out other than PostScript does,
		# and a line too long to break shows on one device only.
		: >"$TMP/groff"
		for dev in utf8 ascii ps; do
			groff -mdoc -t -ww -T"$dev" "$page" 2>&1 >/dev/null |
				sed "s/^/$dev: /" >>"$TMP/groff"
		done
		if [ -s "$TMP/groff" ]; then
			ok 1 "groff -ww finds nothing in $name (utf8, ascii, ps)"
			sed 's/^/#   /' "$TMP/groff" | head -20
		else
			ok 0 "groff -ww finds nothing in $name (utf8, ascii, ps)"
		fi
	fi
	# Rendered, a command's page has its name and an OPTIONS part; a
	# library's (section 3) its name, the header to include and the functions.
	mandoc -Tascii "$page" 2>/dev/null | col -b >"$TMP/text"
	# Quotes in pairs: a quoting macro nested in another's line renders
	# ("a, "b"") with one quote open where another closes.
	grep -nE '[a-z-]""|\("[a-z-]+, "' "$TMP/text" >"$TMP/quotes"
	test ! -s "$TMP/quotes"
	ok $? "$name renders its quotes in pairs"
	sed 's/^/#   /' "$TMP/quotes" | head -5
	case $name in
	*.3)
		grep -q '^NAME' "$TMP/text" && grep -q '^SYNOPSIS' "$TMP/text" &&
			grep -q '#include <squashkit/' "$TMP/text"
		ok $? "$name renders with NAME and a SYNOPSIS that includes a header"
		;;
	*)
		grep -q '^NAME' "$TMP/text" && grep -q '^OPTIONS' "$TMP/text"
		ok $? "$name renders with NAME and OPTIONS"
		;;
	esac
done
# squashkit(1) and one page per command of "squashkit --help".
ncmds=$("$SQUASHKIT" --help 2>&1 |
	awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { n++ } END { print n + 0 }')
# squashkit-compat(1) describes the compatibility front ends, listed apart.
test -f "$MAN/squashkit-compat.1"
ok $? "squashkit-compat(1) is there"
is "$npages" $((ncmds + 2)) "squashkit(1), squashkit-compat(1) and one page per command ($ncmds commands)"

# groff must see a warning: a word too long for its column on a terminal.
if command -v groff >/dev/null 2>&1; then
	printf '.Dd November 30, 2026\n.Dt WIDE 1\n.Os\n.Sh NAME\n.Nm wide\n.Nd x\n.Sh DESCRIPTION\n.Bl -column "xx" "yy"\n.It a Ta %s\n.El\n' \
		"$(printf 'w%.0s' $(seq 100))" >"$TMP/wide.1"
	groff -mdoc -t -ww -Tutf8 "$TMP/wide.1" 2>&1 >/dev/null | grep -q "can't break line"
	ok $? "groff -ww -Tutf8 reports a line it cannot break"
fi

# The linter must see a fault: a page with a broken list.
printf '.Dd November 30, 2026\n.Dt BROKEN 1\n.Os\n.Sh NAME\n.Nm broken\n.Nd x\n.Sh DESCRIPTION\n.Bl -tag\n.It x\n' \
	>"$TMP/broken.1"
mandoc -Tlint -W style "$TMP/broken.1" >"$TMP/lint" 2>&1
grep -q 'broken.1' "$TMP/lint"
ok $? "mandoc -Tlint reports a broken page"

done_testing
