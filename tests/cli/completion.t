#!/bin/sh
# The completions at work: bash through its completion function (compgen),
# fish through `complete -C`, zsh in a pseudo-terminal when zsh is there.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd bash

COMP=$SQK_SRCDIR/completions

# bcomp WORD...: what bash offers for the last word, with the words split
# as readline splits them ("--opt=value" is "--opt" "=" "value"); one a line.
bcomp() {
	bash -c '
		. "$0" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_squashkit
		printf "%s\n" "${COMPREPLY[@]}"' "$COMP/squashkit.bash" "$@" 2>/dev/null | sort
}

# words LIST: the words, sorted, one a line.
words() {
	printf '%s\n' "$@" | sort
}

bash -c '. "$0" && complete -p squashkit' "$COMP/squashkit.bash" >"$TMP/spec" 2>&1
grep -q -- '-F _squashkit squashkit' "$TMP/spec"
ok $? "bash: sourcing the completion registers _squashkit for squashkit"

is "$(bcomp squashkit '')" \
	"$(words bench cat diff fsck inspect ls mkimage mount stat umount unimage verity mksquashfs unsquashfs)" \
	"bash: the commands"
is "$(bcomp squashkit diff --no-)" "$(words --no-contents --no-owner --no-permissions --no-xattrs)" \
	"bash: diff's --no- options"
is "$(bcomp squashkit diff --offset-b '')" "auto" "bash: auto after diff --offset-b"
is "$(bcomp squashkit mki)" "mkimage" "bash: a command from its first letters"
is "$(bcomp squashkit mk)" "$(words mkimage mksquashfs)" "bash: the front ends are commands too"
is "$(bcomp squashkit --v)" "--version" "bash: a top-level option"
is "$(bcomp squashkit mkimage --comp)" "$(words --comp-opt --compressor)" \
	"bash: options from their first letters"
is "$(bcomp squashkit mkimage --no-f)" "--no-fragments" "bash: one option"
is "$(bcomp squashkit mkimage -c '')" "$(words gzip lz4 lzma lzo xz zstd)" \
	"bash: the compressors after -c"
is "$(bcomp squashkit mkimage --compressor z)" "zstd" "bash: a compressor from its first letter"
is "$(bcomp squashkit mkimage -b 12)" "128K" "bash: a block size"
is "$(bcomp squashkit mkimage -X bcj = x86,a)" "$(words x86,arm x86,armthumb)" \
	"bash: xz filters in a -X bcj= list"
is "$(bcomp squashkit unimage --format = c)" "cpio" "bash: an archive format after --format="
is "$(bcomp squashkit unimage --cache-policy '')" "$(words exclusive herd keyed)" \
	"bash: the cache policies"
is "$(bcomp squashkit unimage --cache meta = 8,f)" "8,frag=" \
	"bash: a cache name inside --cache meta=8,..."
is "$(bcomp squashkit bench -w stat,r)" "$(words stat,random stat,randread stat,read)" \
	"bash: the next workload of a list"
is "$(bcomp squashkit bench --against kernel,m)" "kernel,mount" "bash: the places of --against"
is "$(bcomp squashkit bench -f '')" "$(words csv json table)" "bash: bench formats after -f"
is "$(bcomp squashkit bench --decomp '')" "$(words percpu single)" "bash: decompressor models"
is "$(bcomp squashkit fsck -- -)" "" "bash: no options after --"
is "$(bcomp squashkit mount --offset '')" "auto" "bash: mount --offset auto"
is "$(bcomp squashkit mount --decomp '')" "$(words percpu single)" "bash: mount decompressor models"
# The compatibility front ends: their options from their -help (the binary is asked).
is "$(bcomp "$SQUASHKIT" mksquashfs src img -noapp)" "-noappend" \
	"bash: a mksquashfs option after the operands"
is "$(bcomp "$SQUASHKIT" mksquashfs src img -root-)" "$(words -root-gid -root-mode -root-owned -root-uid)" \
	"bash: every spelling of the table, -all-root's other one too"
is "$(bcomp "$SQUASHKIT" mksquashfs src img -comp '')" "$(words gzip lz4 lzma lzo xz zstd)" \
	"bash: the compressors after -comp"
is "$(bcomp "$SQUASHKIT" unsquashfs -ll)" "$(words -ll -llc -lln -llnumeric -lls)" \
	"bash: unsquashfs options"
is "$(bcomp "$SQUASHKIT" unsquashfs -p 2 -mk)" "-mkfs-time" \
	"bash: an unsquashfs option after one with a value"

# IMAGE operands: image files and directories; then paths inside the image.
mkdir "$TMP/w" "$TMP/w/sub" "$TMP/src" "$TMP/src/dir"
: >"$TMP/w/notes.txt"
printf 'x\n' >"$TMP/src/dir/inner"
printf 'y\n' >"$TMP/src/top"
"$SQUASHKIT" mkimage -q "$TMP/src" "$TMP/w/a.sqfs" >/dev/null 2>&1
ok $? "an image to complete paths in"
cd "$TMP/w" || exit 1
is "$(bcomp squashkit ls '')" "$(words a.sqfs sub)" "bash: an IMAGE operand offers images and directories"
is "$(bcomp squashkit unimage -d out '')" "$(words a.sqfs sub)" \
	"bash: the IMAGE operand after an option and its value"
is "$(bcomp squashkit unimage -d '')" "sub" "bash: directories after --dest"
is "$(bcomp "$SQUASHKIT" ls a.sqfs '')" "$(words dir/ top)" \
	"bash: paths inside the image after IMAGE"
is "$(bcomp "$SQUASHKIT" cat a.sqfs dir/)" "dir/inner" "bash: paths inside a directory of the image"
is "$(bcomp "$SQUASHKIT" unimage --format = pax a.sqfs t)" "top" \
	"bash: paths after IMAGE when an option had a value after '='"
cd "$SQK_SRCDIR" || exit 1

# fish: the same questions through `complete -C`.
if command -v fish >/dev/null 2>&1; then
	fcomp() {
		(cd "$TMP/w" && PATH=$(dirname "$SQUASHKIT"):$PATH fish -N -c \
			'source $argv[1]; complete -C$argv[2]' "$COMP/squashkit.fish" "$1" </dev/null) |
			cut -f1 | sort
	}
	fish --no-execute "$COMP/squashkit.fish"
	ok $? "fish: the completion parses"
	is "$(fcomp 'squashkit ')" \
		"$(words bench cat diff fsck inspect ls mkimage mount stat umount unimage verity mksquashfs unsquashfs)" \
		"fish: the commands"
	is "$(fcomp 'squashkit diff --offset-a ')" "auto" "fish: auto after diff --offset-a"
	is "$(fcomp 'squashkit mkimage -c ')" "$(words gzip lz4 lzma lzo xz zstd)" \
		"fish: the compressors after -c"
	is "$(fcomp 'squashkit mkimage --no-f')" "--no-fragments" "fish: an option"
	is "$(fcomp 'squashkit unimage --format=c')" "--format=cpio" "fish: a format after --format="
	is "$(fcomp 'squashkit bench -w stat,r')" "$(words stat,random stat,randread stat,read)" \
		"fish: the next workload of a list"
	is "$(fcomp 'squashkit bench --against k')" "kernel" "fish: the places of --against"
	is "$(fcomp 'squashkit ls ')" "$(words a.sqfs sub/)" "fish: images and directories for IMAGE"
	if [ "$(basename "$SQUASHKIT")" = squashkit ]; then
		is "$(fcomp 'squashkit ls a.sqfs ')" "$(words dir/ top)" "fish: paths inside the image"
		is "$(fcomp 'squashkit mksquashfs src img -noapp')" "-noappend" \
			"fish: a mksquashfs option, from its -help"
		fcomp 'squashkit unsquashfs -' | grep -qx -- -lls
		ok $? "fish: unsquashfs options, from its -help"
	else
		skip "fish: paths inside the image and the front ends' options need the binary named squashkit"
	fi
else
	skip "fish is not installed: its completion is not run"
fi

# zsh: the specs parse, and the completion system offers the compressors.
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$COMP/_squashkit"
	ok $? "zsh: the completion parses"
	cat >"$TMP/zcomp.zsh" <<'EOF'
# zsh -f zcomp.zsh DIR LINE WANT: type LINE and TAB in a zsh on a pty,
# succeed when the listing shows WANT within ten seconds.
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; unsetopt beep"
zpty -w -n z "$2"$'\t'
out=
for i in {1..100}; do
	while zpty -r -t z chunk 2>/dev/null; do out+=$chunk; done
	[[ $out == *$3* ]] && { zpty -d z; exit 0; }
	sleep 0.1
done
zpty -d z
print -r -- "$out" | tr -d '\033' | tail -5 >&2
exit 1
EOF
	zsh -f "$TMP/zcomp.zsh" "$COMP" 'squashkit mkimage -c ' lzma 2>"$TMP/zerr"
	ok $? "zsh: the compressors after -c"
	zsh -f "$TMP/zcomp.zsh" "$COMP" 'squashkit unimage --cache-pol' 'cache-policy' 2>"$TMP/zerr"
	ok $? "zsh: an option from its first letters"
	if [ "$(basename "$SQUASHKIT")" = squashkit ]; then
		PATH=$(dirname "$SQUASHKIT"):$PATH zsh -f "$TMP/zcomp.zsh" "$COMP" \
			'squashkit mksquashfs src img -noapp' 'noappend' 2>"$TMP/zerr"
		ok $? "zsh: a mksquashfs option, from its -help"
	else
		skip "zsh: the front ends' options need the binary named squashkit"
	fi
else
	skip "zsh is not installed: its completion is not run"
fi

done_testing
