# bash completion for squashkit                            -*- shell-script -*-
# SPDX-License-Identifier: BSD-2-Clause
#
# Completes the commands, their options, the values of options that take
# a word from a fixed set (compressors, formats, policies, workloads), file
# names, image files for IMAGE operands and, once the image is named, the
# paths inside it (through `squashkit ls --json`). Needs no helpers from the
# bash-completion package. tests/cli/help-man-completion.t checks that the
# options here are the ones the man pages and --help list. The options of
# the compatibility front ends come from their -help, which prints the very
# table they parse.

_squashkit_commands="mkimage unimage inspect ls cat stat fsck verity diff bench mount umount
	mksquashfs unsquashfs"
# The options that read an image through its dm-verity tree, all of which take a value.
_squashkit_verity_opts="--root-hash --root-hash-file --verity-hash-file --verity-hash-offset --verity-salt --verity-hash"
# The options that read an image over HTTP that take a value (and --download, which takes none).
_squashkit_remote_opts="--header --cache-dir --cache-size --timeout --retries"

# Per command: every option (_sqk_opts) and those that take a value
# (_sqk_argopts).
_squashkit_options()
{
	case $1 in
	mkimage)
		_sqk_argopts="-c --compressor -L --level -X --comp-opt -b --block-size
			--uid --gid --mtime --fstime -e --exclude --exclude-from --listing
			--pseudo --pseudo-file -j --threads --file-mode --dir-mode --root-mode --root-uid
			--root-gid --xattrs-include --xattrs-exclude --xattrs-add --sort --offset
			--uncompressed --reuse --reuse-offset --memory --tmpdir --verity-salt --verity-hash
			--verity-root-hash-file --verity-sign --verity-cert --verity-sig --verity-sig-json
			--oci --platform --file-contexts --selinux-root"
		_sqk_opts="$_sqk_argopts --verity --verity-no-superblock --named-sources --full-paths
			--whiteouts --oci-layers --keep-source-labels
			--regex --wildcards
			--one-file-system --no-fragments --tail-ends --no-dedup --no-sparse
			--no-xattrs --no-hardlinks --no-export --no-pad --pseudo-warn --all-root
			--archive -f --force
			--append -q --quiet --stats --json -h --help"
		;;
	unimage)
		_sqk_argopts="-d --dest -o --tar --format -j --threads --offset --cache-policy --cache
			--xattrs-include --xattrs-exclude --memory --tmpdir $_squashkit_verity_opts $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download --describe -f --force -k --keep-going --no-xattrs --no-owner
			--stats --json -q --quiet -h --help"
		;;
	inspect)
		_sqk_argopts="--offset $_squashkit_verity_opts $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download --json --stats -h --help"
		;;
	stat)
		_sqk_argopts="--offset $_squashkit_verity_opts $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download -L --dereference --json --stats -h --help"
		;;
	ls)
		_sqk_argopts="--offset $_squashkit_verity_opts $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download -l --long -R --recursive --json --stats -h --help"
		;;
	cat)
		_sqk_argopts="--offset $_squashkit_verity_opts $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download --stats -h --help"
		;;
	fsck)
		_sqk_argopts="-j --threads --offset --memory --tmpdir $_squashkit_verity_opts --verity-sig
			--verity-cert $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download --verity-only --json --stats -q --quiet -h --help"
		;;
	verity)
		_sqk_argopts="--hash-file --salt --hash --root-hash-file --sign --cert --sig --sig-json
			--offset -j --threads"
		_sqk_opts="$_sqk_argopts --no-superblock -f --force --json -q --quiet -h --help"
		;;
	diff)
		_sqk_argopts="-e --exclude -j --threads --offset --offset-a --offset-b --root-hash-a
			--root-hash-b --verity-hash-file-a --verity-hash-file-b --memory --tmpdir $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download -C --no-contents -O --no-owner -P --no-permissions
			--no-xattrs -T --times -S --super --stat --json -q --quiet -h --help"
		;;
	bench)
		_sqk_argopts="-w --workload -t --threads -p --policy --cache --decomp --lookup
			--against --slow-device -d --duration -r --runs -f --format --plot --seed --offset $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download --cold --wide -q --quiet -h --help"
		;;
	mount)
		_sqk_argopts="-j --threads --offset --cache-policy --cache --decomp $_squashkit_verity_opts $_squashkit_remote_opts"
		_sqk_opts="$_sqk_argopts --download -f --foreground --stats --json -h --help"
		;;
	umount)
		_sqk_argopts=""
		_sqk_opts="-l --lazy -h --help"
		;;
	mksquashfs | unsquashfs)
		_squashkit_compat_options "$1"
		;;
	*)
		_sqk_argopts=""
		_sqk_opts="-h --help -V --version"
		;;
	esac
}

# The options of the front end $1 from its -help: "  -dest, -d VALUE" lines.
_squashkit_compat_options()
{
	local line w value
	_sqk_opts= _sqk_argopts=
	while IFS= read -r line; do
		[[ $line == '  -'* ]] || continue
		value=0
		[[ $line == *' VALUE' ]] && value=1
		for w in ${line//,/ }; do
			[[ $w == -* ]] || continue
			_sqk_opts+=" $w"
			((value)) && _sqk_argopts+=" $w"
		done
	done < <(command "$_squashkit_bin" "$1" -help 2>/dev/null)
}

# COMPREPLY from the words of $1 that start with $cur.
_squashkit_words()
{
	local IFS=$' \t\n'
	COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

# A comma-separated list: complete the last element of $cur from $1.
_squashkit_list()
{
	local head= last=$cur w
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		last=${cur##*,}
	fi
	COMPREPLY=()
	for w in $1; do
		[[ $w == "$last"* ]] && COMPREPLY+=("$head$w")
	done
	compopt -o nospace 2>/dev/null
}

# KEY=VALUE specs: offer "KEY=" for each key in $1.
_squashkit_keys()
{
	local head= last=$cur w
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		last=${cur##*,}
	fi
	COMPREPLY=()
	for w in $1; do
		[[ $w= == "$last"* ]] && COMPREPLY+=("$head$w=")
	done
	compopt -o nospace 2>/dev/null
}

_squashkit_files()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$cur"))
	compopt -o filenames 2>/dev/null
}

_squashkit_dirs()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen -d -- "$cur"))
	compopt -o filenames 2>/dev/null
}

# Image files: names ending in an image suffix, and directories; every file
# when nothing here looks like an image.
_squashkit_images()
{
	local IFS=$'\n' f images=0
	local -a all
	all=($(compgen -f -- "$cur"))
	COMPREPLY=()
	for f in "${all[@]}"; do
		if [[ -d $f ]]; then
			COMPREPLY+=("$f")
		else
			case $f in
			*.sqfs | *.squashfs | *.sfs | *.squash | *.img)
				COMPREPLY+=("$f")
				images=1
				;;
			esac
		fi
	done
	((images)) || COMPREPLY=("${all[@]}")
	compopt -o filenames 2>/dev/null
}

# Paths inside the image $1, one directory level at a time.
_squashkit_inner()
{
	local dir= prefix= line name word re_name='"name":"([^"\\]*)"'
	local want=${cur//\\/}
	[[ -f $1 && -r $1 ]] || return
	if [[ $want == */* ]]; then
		dir=${want%/*}
		prefix=$dir/
	fi
	COMPREPLY=()
	while IFS= read -r line; do
		[[ $line =~ $re_name ]] || continue
		name=$prefix${BASH_REMATCH[1]}
		[[ $name == "$want"* ]] || continue
		printf -v word '%q' "$name"
		[[ $line == *'"type":"directory"'* ]] && word+=/
		COMPREPLY+=("$word")
	done < <(command "$_squashkit_bin" ls --json -- "$1" ${dir:+"$dir"} 2>/dev/null)
	compopt -o nospace 2>/dev/null
}

# -X KEY=VALUE of mkimage: the keys, then the values of those with a set.
_squashkit_compopt()
{
	local key=${cur%%=*} full=$cur
	if [[ $cur != *=* ]]; then
		_squashkit_words "level= window= strategy= dict-size= bcj= extreme= lc= lp= pb= algorithm="
		compopt -o nospace 2>/dev/null
		return
	fi
	cur=${cur#*=}
	case $key in
	bcj) _squashkit_list "x86 powerpc ia64 arm armthumb sparc" ;;
	strategy) _squashkit_list "default filtered huffman_only run_length_encoded fixed" ;;
	algorithm) _squashkit_words "lzo1x_1 lzo1x_1_11 lzo1x_1_12 lzo1x_1_15 lzo1x_999" ;;
	*) COMPREPLY=() ;;
	esac
	COMPREPLY=("${COMPREPLY[@]/#/$key=}")
	cur=$full
}

# The value of option $1 of command $2, for the word $cur.
_squashkit_value()
{
	case $2:$1 in
	mkimage:-c | mkimage:--compressor)
		_squashkit_words "gzip lzma lzo xz lz4 zstd"
		;;
	mkimage:-X | mkimage:--comp-opt)
		_squashkit_compopt
		;;
	mkimage:-b | mkimage:--block-size)
		_squashkit_words "4K 8K 16K 32K 64K 128K 256K 512K 1M"
		;;
	mkimage:--exclude-from | mkimage:--listing | mkimage:--archive | mkimage:--sort | \
		mkimage:--pseudo-file | mkimage:--file-contexts)
		_squashkit_files
		;;
	mkimage:--oci)
		_squashkit_dirs
		;;
	mkimage:--selinux-root)
		_squashkit_dirs
		;;
	mkimage:--platform)
		_squashkit_words "linux/amd64 linux/arm64 linux/arm/v7 linux/arm/v6 linux/386 linux/ppc64le linux/s390x linux/riscv64"
		;;
	mkimage:--uncompressed)
		_squashkit_list "inodes data fragments xattrs ids"
		;;
	mkimage:--xattrs-add)
		_squashkit_words "user. trusted. security."
		compopt -o nospace 2>/dev/null
		;;
	mkimage:--reuse)
		_squashkit_images
		;;
	mkimage:--reuse-offset)
		_squashkit_words "auto"
		;;
	mkimage:--tmpdir | unimage:-d | unimage:--dest | unimage:--tmpdir | fsck:--tmpdir | diff:--tmpdir)
		_squashkit_dirs
		;;
	unimage:-o | unimage:--tar | unimage:--describe | bench:--plot)
		_squashkit_files
		;;
	unimage:--format)
		_squashkit_words "pax gnu ustar cpio zip"
		;;
	unimage:--cache-policy | mount:--cache-policy)
		_squashkit_words "herd exclusive keyed"
		;;
	unimage:--cache | bench:--cache | mount:--cache)
		_squashkit_keys "meta frag data comp"
		;;
	unimage:--offset | inspect:--offset | ls:--offset | cat:--offset | stat:--offset | \
	fsck:--offset | bench:--offset | mount:--offset | diff:--offset | diff:--offset-a | \
	diff:--offset-b)
		_squashkit_words "auto"
		;;
	mount:--stats | *:--cache-dir)
		_squashkit_files
		;;
	*:--root-hash-file | *:--verity-hash-file | *:--verity-hash-file-a | \
		*:--verity-hash-file-b | *:--verity-sig | *:--verity-cert | *:--verity-sign | \
		*:--verity-sig-json | *:--verity-root-hash-file | verity:--hash-file | \
		verity:--root-hash-file | verity:--sign | verity:--cert | verity:--sig | \
		verity:--sig-json)
		_squashkit_files
		;;
	*:--verity-hash | verity:--hash)
		_squashkit_words "sha256 sha512"
		;;
	mkimage:--verity)
		_squashkit_files
		;;
	mkimage:--verity-salt | verity:--salt)
		_squashkit_words "random -"
		;;
	bench:-w | bench:--workload)
		_squashkit_list "stat read mixed random seq randread"
		;;
	bench:--against)
		_squashkit_list "kernel mount"
		;;
	bench:-p | bench:--policy)
		_squashkit_list "herd exclusive keyed"
		;;
	bench:--decomp | mount:--decomp)
		_squashkit_words "single percpu"
		;;
	bench:--lookup)
		_squashkit_words "scan hash"
		;;
	bench:-f | bench:--format)
		_squashkit_words "table json csv"
		;;
	mksquashfs:-comp)
		_squashkit_words "gzip lzma lzo xz lz4 zstd"
		;;
	mksquashfs:-b)
		_squashkit_words "4K 8K 16K 32K 64K 128K 256K 512K 1M"
		;;
	mksquashfs:-ef | mksquashfs:-pf | mksquashfs:-sort | unsquashfs:-[ep]f | \
		unsquashfs:-e | unsquashfs:-extract-file | unsquashfs:-exc* | \
		unsquashfs:-exclude-file | unsquashfs:-pseudo-file)
		_squashkit_files
		;;
	unsquashfs:-d | unsquashfs:-dest)
		_squashkit_dirs
		;;
	*)
		COMPREPLY=()
		;;
	esac
}

# Everything but the final trim of _squashkit.
_squashkit_main()
{
	local prev= cmd= first=1 i j w opt image= noperands=0 optend=0 join=0
	local _sqk_opts _sqk_argopts
	local -a words=()
	local cword=0

	# bash splits "--opt=value" and "key=value" at "=": join them again.
	for ((j = 0; j < ${#COMP_WORDS[@]}; j++)); do
		w=${COMP_WORDS[j]}
		if ((${#words[@]} > 0)) && [[ $w == = ]] || ((join)); then
			words[${#words[@]} - 1]+=$w
			join=0
			[[ $w == = ]] && join=1
		else
			words+=("$w")
		fi
		((j == COMP_CWORD)) && cword=$((${#words[@]} - 1))
	done
	cur=${words[cword]}
	((cword > 0)) && prev=${words[cword - 1]}

	_squashkit_bin=${words[0]}
	if [[ ${words[0]##*/} != squashkit ]]; then
		# Called through a link named after a command (mkimage, unimage).
		cmd=${words[0]##*/}
		first=0
		_squashkit_bin=squashkit
	elif ((cword == 1)); then
		if [[ $cur == -* ]]; then
			_squashkit_words "-h --help -V --version"
		else
			_squashkit_words "$_squashkit_commands"
		fi
		return
	else
		cmd=${words[1]}
	fi
	_squashkit_options "$cmd"

	# Walk the words before the cursor: options, their values, operands.
	for ((i = 1 + first; i < cword; i++)); do
		w=${words[i]}
		if ((!optend)) && [[ $w == -- ]]; then
			optend=1
		elif ((!optend)) && [[ $w == -?* ]]; then
			[[ $w == --*=* ]] && continue
			for opt in $_sqk_argopts; do
				if [[ $w == "$opt" ]]; then
					((i++))
					break
				fi
			done
		else
			((noperands++)) || image=$w
		fi
	done
	# "--opt=value"
	if ((!optend)) && [[ $cur == --*=* ]]; then
		opt=${cur%%=*}
		cur=${cur#*=}
		_squashkit_value "$opt" "$cmd"
		COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		cur=$opt=$cur
		return
	fi
	# The value of an option.
	for opt in $_sqk_argopts; do
		if [[ $prev == "$opt" ]] && ((!optend)); then
			_squashkit_value "$prev" "$cmd"
			return
		fi
	done
	if ((!optend)) && [[ $cur == -* ]]; then
		_squashkit_words "$_sqk_opts"
		return
	fi
	case $cmd in
	mkimage | mksquashfs)
		_squashkit_files
		;;
	unimage | ls | cat | stat | unsquashfs)
		if ((noperands == 0)); then
			_squashkit_images
		else
			_squashkit_inner "$image"
		fi
		;;
	inspect | fsck | bench | verity)
		((noperands == 0)) && _squashkit_images
		;;
	diff)
		# A and B, images or directories; then paths inside A.
		if ((noperands < 2)); then
			_squashkit_images
		else
			_squashkit_inner "$image"
		fi
		;;
	mount)
		if ((noperands == 0)); then
			_squashkit_images
		elif ((noperands == 1)); then
			_squashkit_dirs
		fi
		;;
	umount)
		((noperands == 0)) && _squashkit_dirs
		;;
	esac
}

_squashkit()
{
	local cur _squashkit_bin

	COMPREPLY=()
	_squashkit_main
	# Readline replaces only what follows the last "=" of the word.
	if [[ $COMP_WORDBREAKS == *=* && $cur == *=* ]]; then
		local done=${cur%"${cur##*=}"}
		COMPREPLY=("${COMPREPLY[@]#"$done"}")
	fi
	return 0
}

complete -F _squashkit squashkit
