# fish completion for squashkit
# SPDX-License-Identifier: BSD-2-Clause
#
# One `complete` line per option, under the commands it belongs to;
# tests/cli/help-man-completion.t reads them to check that the options here
# are the ones the man pages and --help list. The options of the
# compatibility front ends come from their -help, which prints the very
# table they parse.

set -l __squashkit_native mkimage unimage inspect ls cat stat fsck verity diff bench mount umount
set -l __squashkit_commands $__squashkit_native mksquashfs unsquashfs

# Options that take a value, per command: to find the operands.
function __squashkit_argopts
    switch $argv[1]
        case mkimage
            echo -c --compressor -L --level -X --comp-opt -b --block-size --uid --gid \
                --mtime --fstime -e --exclude --exclude-from --listing --pseudo --pseudo-file \
                -j --threads --file-mode --dir-mode --root-mode --root-uid --root-gid \
                --xattrs-include --xattrs-exclude --xattrs-add --sort --offset \
                --uncompressed --reuse --reuse-offset --memory --tmpdir --verity-salt --verity-hash \
                --verity-root-hash-file --verity-sign --verity-cert --verity-sig --verity-sig-json \
                --oci --platform --file-contexts --selinux-root
        case unimage
            echo -d --dest -o --tar --format -j --threads --offset --cache-policy --cache \
                --xattrs-include --xattrs-exclude --memory --tmpdir --root-hash --root-hash-file --verity-hash-file --verity-hash-offset --verity-salt --verity-hash --header --cache-dir --cache-size --timeout --retries
        case inspect ls cat stat
            echo --offset --root-hash --root-hash-file --verity-hash-file --verity-hash-offset --verity-salt --verity-hash --header --cache-dir --cache-size --timeout --retries
        case fsck
            echo -j --threads --offset --memory --tmpdir --root-hash --root-hash-file --verity-hash-file --verity-hash-offset --verity-salt --verity-hash --verity-sig --verity-cert --header --cache-dir --cache-size --timeout --retries
        case verity
            echo --hash-file --salt --hash --root-hash-file --sign --cert --sig --sig-json \
                --offset -j --threads
        case diff
            echo -e --exclude -j --threads --offset --offset-a --offset-b --root-hash-a \
                --root-hash-b --verity-hash-file-a --verity-hash-file-b --memory --tmpdir --header --cache-dir --cache-size --timeout --retries
        case bench
            echo -w --workload -t --threads -p --policy --cache --decomp --lookup \
                -d --duration -r --runs -f --format --plot --seed --offset --header --cache-dir --cache-size --timeout --retries
        case mount
            echo -j --threads --offset --cache-policy --cache --decomp --root-hash --root-hash-file --verity-hash-file --verity-hash-offset --verity-salt --verity-hash --header --cache-dir --cache-size --timeout --retries
    end
end

# The operands before the cursor, options and their values left out.
function __squashkit_operands
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmd $tokens[1]
    set -e tokens[1]
    set -l argopts (__squashkit_argopts $cmd | string split ' ')
    set -l skip 0
    set -l optend 0
    for t in $tokens
        if test $skip -eq 1
            set skip 0
        else if test $optend -eq 0; and test "x$t" = x--
            set optend 1
        else if test $optend -eq 0; and string match -q -- '-?*' $t
            if contains -- $t $argopts
                set skip 1
            end
        else
            echo $t
        end
    end
end

# True when the cursor is at the first operand (the image).
function __squashkit_at_image
    test (count (__squashkit_operands)) -eq 0
end

function __squashkit_images
    set -l token (commandline -ct)
    set -q token[1]; or set token ''
    set -l found
    for f in "$token"*
        if test -d $f
            echo $f/
        else if string match -qr '\.(sqfs|squashfs|sfs|squash|img)$' -- $f
            echo $f
            set -a found $f
        end
    end
    if test (count $found) -eq 0
        __fish_complete_path "$token"
    end
end

# Paths inside the image named by the first operand, a level at a time.
function __squashkit_paths
    set -l image (__squashkit_operands)[1]
    test -f "$image"; or return
    set -l token (commandline -ct)
    set -q token[1]; or set token ''
    set -l dir
    set -l prefix ''
    if string match -q '*/*' -- "$token"
        set dir (string replace -r '/[^/]*$' '' -- "$token")
        set prefix $dir/
    end
    for entry in (command squashkit ls --json -- $image $dir 2>/dev/null)
        set -l name (string match -r '"name":"([^"\\\\]*)"' -- $entry)[2]
        test -n "$name"; or continue
        if string match -q '*"type":"directory"*' -- $entry
            echo $prefix$name/
        else
            echo $prefix$name
        end
    end
end

function __squashkit_list --argument-names words
    set -l token (commandline -ct)
    set -q token[1]; or set token ''
    set -l head (string replace -r '[^,]*$' '' -- "$token")
    for w in (string split ' ' -- $words)
        echo $head$w
    end
end

complete -c squashkit -f
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -s h -l help -d 'show the commands'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -s V -l version -d 'show the version'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a mkimage -d 'build an image'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a unimage -d 'extract an image'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a inspect -d 'show superblock, tables, counts'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a ls -d 'list directories in an image'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a cat -d 'write files to stdout'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a stat -d 'show one inode'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a fsck -d 'verify an image'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a verity -d 'add a dm-verity hash tree'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a diff -d 'compare images or directories'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a bench -d 'measure the cache wait policies'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a mount -d 'serve an image through FUSE'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a umount -d 'unmount what mount serves'
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a mksquashfs -d "mksquashfs's options, squashkit's writer"
complete -c squashkit -n "not __fish_seen_subcommand_from $__squashkit_commands" -a unsquashfs -d "unsquashfs's options, squashkit's reader"

# Every command
complete -c squashkit -n "__fish_seen_subcommand_from $__squashkit_native" -s h -l help -d 'show the options'

# mkimage
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -F
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -s c -l compressor -x -a 'gzip lzma lzo xz lz4 zstd' -d compressor
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -s L -l level -x -d 'compression level'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -s X -l comp-opt -x -a 'level= window= strategy= dict-size= bcj= extreme= lc= lp= pb= algorithm=' -d 'compressor option KEY=VALUE'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -s b -l block-size -x -a '4K 8K 16K 32K 64K 128K 256K 512K 1M' -d 'data block size'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l no-fragments -d 'store small files and tails as short blocks'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l tail-ends -d 'pack tail ends of large files into fragments'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l no-dedup -d 'do not look for duplicates'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l no-sparse -d 'store zero blocks as data'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l no-xattrs -d 'leave extended attributes out'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l no-hardlinks -d 'an inode for every hard link'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l no-export -d 'no NFS export table'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l no-pad -d 'do not pad the image to a multiple of 4K'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l all-root -d 'root owns every file'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l uid -x -d 'owner uid of every file'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l gid -x -d 'group of every file'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l mtime -x -d 'time of every inode'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l fstime -x -d 'superblock time'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l file-mode -x -d 'mode of every non-directory (octal or u+rwX,go-w)'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l dir-mode -x -d 'mode of every directory'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l root-mode -x -d 'mode of the root directory'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l root-uid -x -d 'owner uid of the root directory'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l root-gid -x -d 'group of the root directory'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l xattrs-include -x -d 'keep only xattrs whose names match a regex'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l xattrs-exclude -x -d 'leave out xattrs whose names match a regex'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l xattrs-add -x -a 'user. trusted. security.' -d 'give every inode the xattr NAME=VALUE'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l sort -r -F -d 'place file data as a sort file says'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l uncompressed -x -a 'inodes data fragments xattrs ids' -d 'store these parts uncompressed'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l named-sources -d 'put each source in the root under its own name'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l full-paths -d 'put each source at its own path, as tar does'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -s e -l exclude -x -d 'leave out paths matching a glob'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l exclude-from -r -F -d 'read globs from a file'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l regex -d 'exclude patterns are regular expressions'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l wildcards -d 'exclude patterns are globs per component, as mksquashfs -wildcards'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l one-file-system -d 'do not cross into other file systems'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l listing -r -F -d 'add the entries of a listing'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l archive -d 'sources are archives (--archive=FILE adds one)'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l pseudo -x -d 'add a pseudo definition (mksquashfs syntax)'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l pseudo-file -r -F -d 'add the pseudo definitions of a file'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l pseudo-warn -d 'a pseudo definition that cannot be applied is a warning'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l whiteouts -d 'the archives are container layers, applied in order'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l oci -r -a '(__fish_complete_directories)' -d 'the OCI image of a layout (LAYOUT[:REF], oci-archive:FILE)'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l platform -x -a 'linux/amd64 linux/arm64 linux/arm/v7 linux/arm/v6 linux/386 linux/ppc64le linux/s390x linux/riscv64' -d 'the image of this platform from an index'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l oci-layers -d 'one image per layer, as overlayfs layers'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l file-contexts -r -F -d 'SELinux labels from a file_contexts'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l selinux-root -r -a '(__fish_complete_directories)' -d 'match the labels below this path'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l keep-source-labels -d "a source's SELinux label stays"
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -s j -l threads -x -d 'compression threads'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -s f -l force -d 'overwrite an existing image'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l append -d 'add the sources to the existing image'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l offset -x -d 'write after the first N bytes of the existing image'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l reuse -r -F -d 'copy unchanged blocks from an earlier image'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l reuse-offset -x -a auto -d 'where each earlier image starts in its file'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity -r -F -d 'make a dm-verity tree: appended (the default) or =FILE'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity-salt -x -a 'random -' -d "the tree's salt (hex)"
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity-hash -x -a 'sha256 sha512' -d "the tree's hash"
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity-no-superblock -d 'no verity superblock'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity-root-hash-file -r -F -d 'write the root hash to FILE'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity-sign -r -F -d 'sign the root hash with KEY'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity-cert -r -F -d 'the certificate of KEY'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity-sig -r -F -d 'write the signature to FILE'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l verity-sig-json -r -F -d 'write the verity signature partition to FILE'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -s q -l quiet -d 'no progress bar'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l memory -x -d 'memory the build may hold'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l tmpdir -x -a '(__fish_complete_directories)' -d 'where the temporary files go'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l stats -d 'print a summary'
complete -c squashkit -n '__fish_seen_subcommand_from mkimage' -l json -d 'print the summary as JSON'

# unimage
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -s d -l dest -x -a '(__fish_complete_directories)' -d 'destination directory'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -s f -l force -d 'extract into an existing directory'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -s o -l tar -r -F -d 'write an archive to FILE'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -s k -l keep-going -d 'extract what can be read, name what cannot'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l format -x -a 'pax gnu ustar cpio zip' -d 'archive format'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l describe -d 'write a pseudo file instead (--describe=FILE)'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l no-xattrs -d 'do not restore extended attributes'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l xattrs-include -x -d 'restore only xattrs whose names match a regex'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l xattrs-exclude -x -d 'do not restore xattrs whose names match a regex'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l no-owner -d 'do not restore owners'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -s j -l threads -x -d 'worker threads'
complete -c squashkit -n '__fish_seen_subcommand_from unimage fsck diff' -l memory -x -d 'memory for what is kept about the whole image'
complete -c squashkit -n '__fish_seen_subcommand_from unimage fsck diff' -l tmpdir -x -a '(__fish_complete_directories)' -d 'where temporary files go'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l cache-policy -x -a 'herd exclusive keyed' -d 'cache wait policy'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l cache -x -a '(__squashkit_list "meta= frag= data= comp=")' -d 'cache entries'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l stats -d 'print cache counters'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -l json -d 'print the counters as JSON'
complete -c squashkit -n '__fish_seen_subcommand_from unimage' -s q -l quiet -d 'no progress bar'

# inspect, ls, cat, stat
complete -c squashkit -n '__fish_seen_subcommand_from inspect stat' -l json -d 'print one JSON object'
complete -c squashkit -n '__fish_seen_subcommand_from stat' -s L -l dereference -d 'follow a symlink that PATH names'
complete -c squashkit -n '__fish_seen_subcommand_from inspect ls cat stat' -l stats -d 'print cache counters'
complete -c squashkit -n '__fish_seen_subcommand_from ls' -s l -l long -d 'long listing'
complete -c squashkit -n '__fish_seen_subcommand_from ls' -s R -l recursive -d 'list subdirectories too'
complete -c squashkit -n '__fish_seen_subcommand_from ls' -l json -d 'print a JSON array'

# fsck
complete -c squashkit -n '__fish_seen_subcommand_from fsck' -s j -l threads -x -d 'worker threads'
complete -c squashkit -n '__fish_seen_subcommand_from fsck' -l json -d 'print the result as JSON'
complete -c squashkit -n '__fish_seen_subcommand_from fsck' -l stats -d 'print cache counters'
complete -c squashkit -n '__fish_seen_subcommand_from fsck' -s q -l quiet -d 'no summary line, no progress bar'

# The options that read an image through its dm-verity tree
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck mount' -l root-hash -x -d "read through the image's dm-verity tree"
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck mount' -l root-hash-file -r -F -d 'the root hash is the first line of FILE'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck mount' -l verity-hash-file -r -F -d 'the hash area is in FILE'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck mount' -l verity-hash-offset -x -d 'where the hash area starts in its file'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck mount' -l verity-salt -x -d 'the area has no superblock: its salt'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck mount' -l verity-hash -x -a 'sha256 sha512' -d 'the hash of an area with no superblock'
complete -c squashkit -n '__fish_seen_subcommand_from fsck' -l verity-sig -r -F -d 'check this signature of the root hash'
complete -c squashkit -n '__fish_seen_subcommand_from fsck' -l verity-cert -r -F -d 'the certificate the signature is checked with'
complete -c squashkit -n '__fish_seen_subcommand_from fsck' -l verity-only -d 'check the tree and the signature alone'

# verity
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l hash-file -r -F -d 'write the hash area to FILE'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l salt -x -a 'random -' -d 'the salt (hex)'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l hash -x -a 'sha256 sha512' -d 'the hash algorithm'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l no-superblock -d 'no verity superblock'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l root-hash-file -r -F -d 'write the root hash to FILE'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l sign -r -F -d 'sign the root hash with KEY'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l cert -r -F -d 'the certificate of KEY'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l sig -r -F -d 'write the signature to FILE'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l sig-json -r -F -d 'write the verity signature partition to FILE'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l offset -x -d 'where the image starts in the file'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -s f -l force -d 'replace what follows the image'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -s j -l threads -x -d 'hashing threads'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -l json -d 'print the parameters as JSON'
complete -c squashkit -n '__fish_seen_subcommand_from verity' -s q -l quiet -d 'nothing on stderr but errors'

# bench
complete -c squashkit -n '__fish_seen_subcommand_from bench' -s w -l workload -x -a '(__squashkit_list "stat read mixed random seq randread")' -d workloads
complete -c squashkit -n '__fish_seen_subcommand_from bench' -s t -l threads -x -d 'thread counts'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -s p -l policy -x -a '(__squashkit_list "herd exclusive keyed")' -d 'wait policies'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l cache -x -a '(__squashkit_list "meta= frag= data= comp=")' -d 'cache entries'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l decomp -x -a 'single percpu' -d 'decompressor model'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l lookup -x -a 'scan hash' -d 'cache lookup'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l cold -d 'drop the image from the page cache'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l against -x -a '(__squashkit_list "kernel mount")' -d 'also run through the VFS'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l slow-device -x -d 'a throttled loop device: IOPS,BYTES'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -s d -l duration -x -d 'time per run'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -s r -l runs -x -d 'runs per cell'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -s f -l format -x -a 'table json csv' -d 'output format'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l wide -d 'every column in the table'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l plot -r -F -d 'draw an SVG plot'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -l seed -x -d 'seed of the random choices'
complete -c squashkit -n '__fish_seen_subcommand_from bench' -s q -l quiet -d 'no progress lines'

# diff
complete -c squashkit -n '__fish_seen_subcommand_from diff' -s C -l no-contents -d 'compare sizes, not contents'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -s O -l no-owner -d 'leave owners out'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -s P -l no-permissions -d 'leave permission bits out'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l no-xattrs -d 'leave extended attributes out'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -s T -l times -d 'compare mtimes too'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -s S -l super -d 'compare the superblocks too'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -s e -l exclude -x -d 'leave out what matches'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -s j -l threads -x -d 'threads comparing contents'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l stat -d 'a summary instead of the differences'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l json -d 'one JSON object'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -s q -l quiet -d 'print nothing, the exit status says it'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l offset-a -x -a auto -d 'where A starts in its file'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l offset-b -x -a auto -d 'where B starts in its file'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l root-hash-a -x -d "read A through its dm-verity tree"
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l root-hash-b -x -d "read B through its dm-verity tree"
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l verity-hash-file-a -r -F -d 'the hash area of A is in FILE'
complete -c squashkit -n '__fish_seen_subcommand_from diff' -l verity-hash-file-b -r -F -d 'the hash area of B is in FILE'

# mount
complete -c squashkit -n '__fish_seen_subcommand_from mount' -s f -l foreground -d 'serve in the foreground'
complete -c squashkit -n '__fish_seen_subcommand_from mount' -s j -l threads -x -d 'at most this many serving threads'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck diff bench mount' -l offset -x -a auto -d 'where the image starts in the file'
complete -c squashkit -n '__fish_seen_subcommand_from mount' -l cache-policy -x -a 'herd exclusive keyed' -d 'wait policy'
complete -c squashkit -n '__fish_seen_subcommand_from mount' -l cache -x -a '(__squashkit_list "meta= frag= data= comp=")' -d 'cache entries'
complete -c squashkit -n '__fish_seen_subcommand_from mount' -l decomp -x -a 'single percpu' -d 'decompressor model'
complete -c squashkit -n '__fish_seen_subcommand_from mount' -l stats -r -F -d 'write the counters when unmounted and on SIGUSR1'
complete -c squashkit -n '__fish_seen_subcommand_from mount' -l json -d 'the counters as JSON'

# umount
complete -c squashkit -n '__fish_seen_subcommand_from umount' -s l -l lazy -d 'detach now, end when unused'

# Operands: an image, then paths inside it.
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck verity bench mount; and __squashkit_at_image' -a '(__squashkit_images)'
complete -c squashkit -n '__fish_seen_subcommand_from mount; and test (count (__squashkit_operands)) -eq 1' -a '(__fish_complete_directories)'
complete -c squashkit -n '__fish_seen_subcommand_from umount; and __squashkit_at_image' -a '(__fish_complete_directories)'
complete -c squashkit -n '__fish_seen_subcommand_from unimage ls cat stat; and not __squashkit_at_image' -a '(__squashkit_paths)'
complete -c squashkit -n '__fish_seen_subcommand_from diff; and test (count (__squashkit_operands)) -lt 2' -a '(__squashkit_images)'
complete -c squashkit -n '__fish_seen_subcommand_from diff; and test (count (__squashkit_operands)) -ge 2' -a '(__squashkit_paths)'

# mksquashfs, unsquashfs: every option their -help lists ("  -dest, -d VALUE").
function __squashkit_compat_options --argument-names front
    for line in (command squashkit $front -help 2>/dev/null | string match -r '^  -.*')
        set -l kind option
        string match -q '* VALUE' -- $line; and set kind 'option with a value'
        for w in (string split ' ' -- (string replace -a ',' '' -- $line))
            string match -q -- '-*' $w; and printf '%s\t%s\n' $w $kind
        end
    end
end
complete -c squashkit -n '__fish_seen_subcommand_from mksquashfs' -F
complete -c squashkit -n '__fish_seen_subcommand_from mksquashfs' -a '(__squashkit_compat_options mksquashfs)'
complete -c squashkit -n '__fish_seen_subcommand_from unsquashfs' -F
complete -c squashkit -n '__fish_seen_subcommand_from unsquashfs' -a '(__squashkit_compat_options unsquashfs)'
# An image read over HTTP.
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck diff bench mount' -l header -x -d 'send this header with each request'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck diff bench mount' -l cache-dir -r -a '(__fish_complete_directories)' -d 'keep fetched blocks in this directory'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck diff bench mount' -l cache-size -x -d 'at most this many bytes in --cache-dir'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck diff bench mount' -l download -d 'fetch it whole from a server without range requests'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck diff bench mount' -l timeout -x -d 'seconds a request may stall'
complete -c squashkit -n '__fish_seen_subcommand_from unimage inspect ls cat stat fsck diff bench mount' -l retries -x -d 'tries again after a failure'
