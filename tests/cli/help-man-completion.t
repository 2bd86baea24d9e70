#!/bin/sh
# The options of every command, as --help, the man page and the bash, zsh
# and fish completions name them, are the same, and docs/CLI.md names each
# (by its long or its short form). Each list is derived from its source, so
# whoever adds an option is told here what else to update.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

MAN=$SQK_SRCDIR/man
COMP=$SQK_SRCDIR/completions
CLI=$SQK_SRCDIR/docs/CLI.md

# Options in the option column of --help: "  -c, --compressor NAME  text".
help_opts() {
	awk '/^ +-/ {
		sub(/^ +/, "")
		i = index($0, "  ")
		if (i) $0 = substr($0, 1, i - 1)
		n = split($0, w, /[ ,]+/)
		for (k = 1; k <= n; k++)
			if (w[k] ~ /^--?[A-Za-z0-9]/) {
				o = w[k]
				sub(/[=[].*/, "", o)
				print o
			}
	}' "$1" | sort -u
}

# The commands listed by "squashkit --help".
help_commands() {
	awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }' \
		"$1" | sort -u
}
# The compatibility front ends it lists apart.
help_compat() {
	awk '/^Compatibility front ends/ { on = 1; next } on && /^$/ { on = 0 }
	on && /^  [a-z]/ { print $1 }' "$1" | sort -u
}

# The forms of each option of --help, one option a line: "-l --long".
help_forms() {
	awk '/^ +-/ {
		sub(/^ +/, "")
		i = index($0, "  ")
		if (i) $0 = substr($0, 1, i - 1)
		n = split($0, w, /[ ,]+/)
		out = ""
		for (k = 1; k <= n; k++)
			if (w[k] ~ /^--?[A-Za-z0-9]/) {
				o = w[k]
				sub(/[=[].*/, "", o)
				out = out (out == "" ? "" : " ") o
			}
		if (out != "") print out
	}' "$1"
}

# undocumented HELP DOC: the options of HELP (help_forms lines) of which
# DOC names no form (a form stands alone: "-l" is not in "-lz" or "x-l").
undocumented() {
	while read -r forms; do
		found=0
		for f in $forms; do
			grep -qE -- "(^|[^A-Za-z0-9_-])$f([^A-Za-z0-9_-]|\$)" "$2" && found=1
		done
		[ $found -eq 1 ] || echo "$forms"
	done <"$1"
}

# Options of a front end in squashkit-compat(1): in its .Ss section, the
# first column of each .It (up to Ta) and the words of the .Fl lines of
# the paragraph of those accepted with no effect.
man_compat_opts() {
	awk -v want="$2" '/^\.Ss / { on = ($3 == want); noeff = 0; next }
	!on { next }
	/^Accepted with no effect/ { noeff = 1; next }
	/^\.Pp/ { noeff = 0 }
	/^\.It / || (noeff && /^\.Fl /) {
		n = split($0, w, /[ \t]+/)
		fl = 0
		sub(/^\./, "", w[1])
		for (k = 1; k <= n; k++) {
			x = w[k]
			if (x == "Ta") break
			if (x == "Fl") { fl = 1; continue }
			if (x ~ /^(It|Ar|No|Ns|Op|Pq|Cm|Li|Ql|Sy|Em|Pa|Ev|Dv|Xr)$/) { fl = 0; continue }
			if (!fl || x == "," || x == ".") continue
			gsub(/\\&/, "", x)
			sub(/[,.]$/, "", x)
			if (x != "") print "-" x
		}
	}' "$1" | sort -u
}

# What fish offers for "squashkit CMD -" (empty when fish is not there).
fish_complete() {
	command -v fish >/dev/null 2>&1 || return 0
	PATH=$(dirname "$SQUASHKIT"):$PATH fish -N -c 'source $argv[1]; complete -C$argv[2]' \
		"$COMP/squashkit.fish" "squashkit $1 -" </dev/null | cut -f1 | sort -u
}

# Options of the .It Fl entries in the OPTIONS section of an mdoc page. Fl
# prefixes a dash to each following word until the next macro.
man_opts() {
	awk '/^\.Sh / { inopt = ($2 == "OPTIONS"); next }
	inopt && /^\.It / {
		n = split($0, w, /[ \t]+/)
		fl = 0
		for (k = 2; k <= n; k++) {
			x = w[k]
			if (x == "Fl") { fl = 1; continue }
			if (x ~ /^[A-Z][a-z][a-z]?$/) { fl = 0; continue }
			if (!fl || x == "," || x == "|") continue
			gsub(/\\-/, "-", x)
			gsub(/\\&/, "", x)
			sub(/[,|]$/, "", x)
			if (x != "") print "-" x
		}
	}' "$1" | sort -u
}

# The commands squashkit(1) describes: ".It Cm NAME" in DESCRIPTION.
man_commands() {
	awk '/^\.Sh / { on = ($2 == "DESCRIPTION"); next } on && /^\.It Cm / { print $3 }' "$1" |
		sort -u
}

# What the bash completion offers for "squashkit [CMD] -" (every option),
# or for "squashkit " (the commands) when CMD is "commands".
bash_complete() {
	bash -c '
		. "$1" || exit 1
		if [ "$2" = commands ]; then
			COMP_WORDS=(squashkit "")
		elif [ -n "$2" ]; then
			COMP_WORDS=(squashkit "$2" -)
		else
			COMP_WORDS=(squashkit -)
		fi
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		_squashkit
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMP/squashkit.bash" "$1" 2>/dev/null | sort -u
}

# Option names in the specs of the zsh function _squashkit_CMD (_squashkit
# for the top level): the part of each spec line before its "[".
zsh_opts() {
	fn=_squashkit${1:+_$1}
	awk -v fn="$fn" '$0 ~ "^" fn "\\(\\)" { on = 1; next }
	on && /^}/ { on = 0 }
	on {
		line = $0
		sub(/^[ \t]+/, "", line)
		sub(/^\x27\([^)]*\)\x27?/, "", line)
		sub(/^\x27\*\x27/, "", line)
		sub(/^\x27/, "", line)
		sub(/^\*/, "", line)
		if (line !~ /^[-{]/) next
		i = index(line, "[")
		if (i) line = substr(line, 1, i - 1)
		while (match(line, /--?[A-Za-z0-9][A-Za-z0-9-]*/)) {
			print substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$COMP/_squashkit" | sort -u
}

zsh_commands() {
	awk '/^\tcommands=\(/ { on = 1; next } on && /^\t\)/ { on = 0 }
	on { sub(/^[ \t]+\x27/, ""); sub(/:.*/, ""); print }' "$COMP/_squashkit" | sort -u
}

# -s and -l of the fish "complete" lines whose condition names CMD (or, for
# the top level, the lines for when no command was given yet).
fish_opts() {
	awk -v want="$1" '/^complete -c squashkit / {
		line = $0
		cond = ""
		if (match(line, /-n \x27[^\x27]*\x27/) || match(line, /-n "[^"]*"/))
			cond = substr(line, RSTART + 4, RLENGTH - 5)
		top = cond ~ /not __fish_seen_subcommand_from/
		applies = 0
		if (want == "")
			applies = top
		else if (!top && match(cond, /__fish_seen_subcommand_from [^;]*/)) {
			list = substr(cond, RSTART + 28, RLENGTH - 28)
			if (list ~ /\$__squashkit_(commands|native)/)
				applies = 1
			n = split(list, l, " ")
			for (k = 1; k <= n; k++)
				if (l[k] == want)
					applies = 1
		}
		if (!applies)
			next
		n = split(line, w, " ")
		for (k = 1; k < n; k++) {
			if (w[k] == "-d")
				break
			if (w[k] == "-s")
				print "-" w[k + 1]
			if (w[k] == "-l")
				print "--" w[k + 1]
		}
	}' "$COMP/squashkit.fish" | sort -u
}

fish_commands() {
	awk '/^complete -c squashkit -n "not __fish_seen_subcommand_from/ {
		n = split($0, w, " ")
		for (k = 1; k < n; k++)
			if (w[k] == "-a")
				print w[k + 1]
	}' "$COMP/squashkit.fish" | sort -u
}

# agree A_NAME A_FILE B_NAME B_FILE DESC: the two lists are the same; else
# say which names are missing where.
agree() {
	if [ ! -s "$2" ] && [ ! -s "$4" ]; then
		ok 1 "$5"
		echo "#   both lists are empty: the extraction from $1 and $3 failed"
	elif cmp -s "$2" "$4"; then
		ok 0 "$5"
	else
		ok 1 "$5"
		comm -23 "$2" "$4" | sed "s|^|#   in $1, missing from $3: |"
		comm -13 "$2" "$4" | sed "s|^|#   in $3, missing from $1: |"
	fi
}

need_cmd awk comm bash

# The commands: --help is the source, everything else must follow it. The
# completions offer the compatibility front ends too.
"$SQUASHKIT" --help >"$TMP/top.help" 2>&1
help_commands "$TMP/top.help" >"$TMP/cmds.help"
help_compat "$TMP/top.help" >"$TMP/compat.help"
sort -u "$TMP/cmds.help" "$TMP/compat.help" >"$TMP/all.help"
man_commands "$MAN/squashkit.1" >"$TMP/cmds.man"
bash_complete commands >"$TMP/cmds.bash"
zsh_commands >"$TMP/cmds.zsh"
fish_commands >"$TMP/cmds.fish"
agree "squashkit --help" "$TMP/cmds.help" "squashkit(1)" "$TMP/cmds.man" \
	"squashkit(1) describes the commands --help lists"
agree "squashkit --help" "$TMP/all.help" "completions/squashkit.bash" "$TMP/cmds.bash" \
	"bash completes the commands and front ends --help lists"
agree "squashkit --help" "$TMP/all.help" "completions/_squashkit" "$TMP/cmds.zsh" \
	"zsh completes the commands and front ends --help lists"
agree "squashkit --help" "$TMP/all.help" "completions/squashkit.fish" "$TMP/cmds.fish" \
	"fish completes the commands and front ends --help lists"

# The top level's own options (--help, --version).
man_opts "$MAN/squashkit.1" >"$TMP/top.man"
bash_complete "" >"$TMP/top.bash"
zsh_opts "" >"$TMP/top.zsh"
fish_opts "" >"$TMP/top.fish"
for o in --help --version; do
	grep -qx -- "$o" "$TMP/top.man"
	ok $? "squashkit(1) documents squashkit $o"
done
agree "squashkit(1)" "$TMP/top.man" "completions/squashkit.bash" "$TMP/top.bash" \
	"bash completes the top-level options of squashkit(1)"
agree "squashkit(1)" "$TMP/top.man" "completions/_squashkit" "$TMP/top.zsh" \
	"zsh completes the top-level options of squashkit(1)"
agree "squashkit(1)" "$TMP/top.man" "completions/squashkit.fish" "$TMP/top.fish" \
	"fish completes the top-level options of squashkit(1)"

for cmd in $(cat "$TMP/cmds.help"); do
	page=$MAN/squashkit-$cmd.1
	if [ ! -f "$page" ]; then
		ok 1 "$cmd has a man page"
		echo "#   missing: man/squashkit-$cmd.1"
		continue
	fi
	man_opts "$page" >"$TMP/$cmd.man"
	"$SQUASHKIT" "$cmd" --help >"$TMP/$cmd.helptext" 2>"$TMP/$cmd.helperr"
	if grep -q "not implemented yet" "$TMP/$cmd.helperr"; then
		skip "$cmd --help: the command is not implemented yet (a stub), so only its man page and completions are compared"
	else
		help_opts "$TMP/$cmd.helptext" >"$TMP/$cmd.help"
		agree "squashkit $cmd --help" "$TMP/$cmd.help" "man/squashkit-$cmd.1" "$TMP/$cmd.man" \
			"$cmd: the man page lists the options --help lists"
	fi
	if [ -s "$TMP/$cmd.help" ]; then
		help_forms "$TMP/$cmd.helptext" >"$TMP/$cmd.forms"
		undocumented "$TMP/$cmd.forms" "$CLI" >"$TMP/$cmd.undoc"
		ok $([ -s "$TMP/$cmd.undoc" ]; echo $((!$?))) \
			"$cmd: docs/CLI.md names every option --help lists"
		sed 's|^|#   not in docs/CLI.md: |' "$TMP/$cmd.undoc"
	fi
	bash_complete "$cmd" >"$TMP/$cmd.bash"
	agree "man/squashkit-$cmd.1" "$TMP/$cmd.man" "completions/squashkit.bash" "$TMP/$cmd.bash" \
		"$cmd: bash completes the options of the man page"
	zsh_opts "$cmd" >"$TMP/$cmd.zsh"
	agree "man/squashkit-$cmd.1" "$TMP/$cmd.man" "completions/_squashkit" "$TMP/$cmd.zsh" \
		"$cmd: zsh completes the options of the man page"
	fish_opts "$cmd" >"$TMP/$cmd.fish"
	agree "man/squashkit-$cmd.1" "$TMP/$cmd.man" "completions/squashkit.fish" "$TMP/$cmd.fish" \
		"$cmd: fish completes the options of the man page"
done

# The front ends: -help prints the table each one parses; squashkit-compat(1)
# must list the same options, and bash and fish offer them (read from -help).
for cmd in $(cat "$TMP/compat.help"); do
	"$SQUASHKIT" "$cmd" -help >"$TMP/$cmd.helptext" 2>&1
	help_opts "$TMP/$cmd.helptext" >"$TMP/$cmd.help"
	man_compat_opts "$MAN/squashkit-compat.1" "$cmd" >"$TMP/$cmd.man"
	agree "squashkit $cmd -help" "$TMP/$cmd.help" "man/squashkit-compat.1" "$TMP/$cmd.man" \
		"$cmd: squashkit-compat(1) lists the options its -help lists"
	PATH=$(dirname "$SQUASHKIT"):$PATH bash_complete "$cmd" >"$TMP/$cmd.bash"
	agree "squashkit $cmd -help" "$TMP/$cmd.help" "completions/squashkit.bash" "$TMP/$cmd.bash" \
		"$cmd: bash completes the options its -help lists"
	if command -v fish >/dev/null 2>&1 && [ "$(basename "$SQUASHKIT")" = squashkit ]; then
		fish_complete "$cmd" >"$TMP/$cmd.fish"
		agree "squashkit $cmd -help" "$TMP/$cmd.help" "completions/squashkit.fish" \
			"$TMP/$cmd.fish" "$cmd: fish completes the options its -help lists"
	else
		skip "$cmd: fish is not installed, or the binary is not named squashkit"
	fi
done

# The checker must see a difference: a made-up option in a copy of a page.
sed 's/^\.It Fl -json$/.It Fl -json\n.It Fl -not-an-option/' "$MAN/squashkit-inspect.1" \
	>"$TMP/mutant.1"
man_opts "$TMP/mutant.1" >"$TMP/mutant.man"
grep -qx -- --not-an-option "$TMP/mutant.man" && ! cmp -s "$TMP/mutant.man" "$TMP/inspect.man"
ok $? "an option added to a man page alone is noticed"
printf '  -q, --quiet   no output\n      --not-an-option  none\n' >"$TMP/mutant.help"
help_forms "$TMP/mutant.help" >"$TMP/mutant.forms"
is "$(undocumented "$TMP/mutant.forms" "$CLI")" "--not-an-option" \
	"an option added to --help alone is noticed as not in docs/CLI.md"

done_testing
