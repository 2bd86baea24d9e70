#!/bin/sh
# Every --json output is valid JSON, whatever the names hold: an image
# whose names (and whose own file name) have invalid UTF-8 bytes, control
# characters, quotes, backslashes and valid multi-byte UTF-8 goes through
# inspect, ls (-l, -R), stat, fsck (clean and damaged), unimage --stats,
# mkimage --stats, diff and bench. Each output is parsed strictly by python3 (UTF-8
# text, no control characters in strings, no NaN, no duplicate keys), and
# each name must decode to what the string contract says: valid UTF-8 as it
# is, every other byte b as the lone surrogate U+DC00+b (sent as \udcXX,
# Python's surrogateescape), so that each string encodes back to its bytes.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd python3 dd
export LC_ALL=C

sqk() {
	timeout 120 "$SQUASHKIT" "$@"
}

# check.py: the strict parser and the contract, independent of squashkit.
cat >"$TMP/check.py" <<'EOF'
import json, os, sys

def fail(msg):
    print("#   " + msg.replace("\n", "\n#   "))
    sys.exit(1)

def no_constants(name):
    raise ValueError("not JSON: " + name)

def unique(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key in " + repr(keys))
    return dict(pairs)

def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8", errors="strict")
        return json.loads(text, parse_constant=no_constants, object_pairs_hook=unique)
    except ValueError as e:
        fail("%s: %s" % (path, e))

# The contract: valid UTF-8 sequences decode as they are; each byte that
# is not part of one becomes the lone surrogate U+DC00 + byte. Written out
# rather than with Python's own handler, so that the checker is checked.
def contract(b):
    out, i = [], 0
    while i < len(b):
        for n in (4, 3, 2, 1):
            try:
                out.append(b[i:i + n].decode("utf-8", errors="strict"))
                i += n
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append(chr(0xdc00 + b[i]))
            i += 1
    return "".join(out)

def pointer(doc, ptr):
    for part in [p for p in ptr.split("/") if p != ""]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc

def arg(s):
    return contract(os.fsencode(s))

cmd, path = sys.argv[1], sys.argv[2]
if cmd == "contract":  # contract RAW WANT: the checker itself, on known strings
    want = sys.argv[3].encode().decode("unicode_escape")
    if arg(sys.argv[2]) != want:
        fail("contract(%r) = %r, want %r" % (sys.argv[2], arg(sys.argv[2]), want))
    if arg(sys.argv[2]).encode("utf-8", "surrogateescape") != os.fsencode(sys.argv[2]):
        fail("contract(%r) does not encode back to its bytes" % sys.argv[2])
    sys.exit(0)
doc = load(path)
if cmd == "valid":
    pass
elif cmd == "eq":  # eq FILE POINTER RAW: the string there decodes to RAW
    got, want = pointer(doc, sys.argv[3]), arg(sys.argv[4])
    if got != want:
        fail("got %r, want %r" % (got, want))
elif cmd == "bytes":  # bytes FILE POINTER KEY RAW...: the elements' KEYs encode back to the RAWs
    got = sorted(o[sys.argv[4]].encode("utf-8", "surrogateescape")
                 for o in pointer(doc, sys.argv[3]))
    want = sorted(os.fsencode(a) for a in sys.argv[5:])
    if got != want:
        fail("got  %r\nwant %r" % (got, want))
elif cmd == "is":  # is FILE POINTER JSON: the value there equals JSON
    got, want = pointer(doc, sys.argv[3]), json.loads(sys.argv[4])
    if got != want:
        fail("got %r, want %r" % (got, want))
elif cmd == "names":  # names FILE KEY RAW...: the set of KEY over the array
    got = sorted(o[sys.argv[3]] for o in doc)
    want = sorted(arg(a) for a in sys.argv[4:])
    if got != want:
        fail("got  %r\nwant %r" % (got, want))
elif cmd == "has":  # has FILE POINTER KEY RAW: some element's KEY decodes to RAW
    want = arg(sys.argv[5])
    if not any(o.get(sys.argv[4]) == want for o in pointer(doc, sys.argv[3])):
        fail("no %s %r in %r" % (sys.argv[4], want, pointer(doc, sys.argv[3])))
else:
    fail("unknown check " + cmd)
EOF
# The interpreter itself, not a version manager's wrapper script: it runs often.
PY=$(python3 -c 'import sys; print(sys.executable)') || skip_all "python3 does not run"
check() {
	"$PY" "$TMP/check.py" "$@"
}

# The checker's own contract, against strings written by hand.
check contract "$(printf 'a\377b')" 'a\udcffb'
ok $? "checker: an invalid byte is a lone surrogate"
check contract "$(printf 'caf\303\251')" 'caf\xe9'
ok $? "checker: valid UTF-8 decodes as it is"
check contract "$(printf '\346\227x')" '\udce6\udc97x'
ok $? "checker: a sequence cut short is two lone surrogates"

# The names. The shell keeps every byte but NUL.
n_bad=$(printf 'bad-\377\376')
n_cont=$(printf 'cont-\200')
n_cut=$(printf 'cut-\303')
n_over=$(printf 'over-\300\257')
n_surr=$(printf 'surr-\355\240\200')
n_ctl=$(printf 'ctl-\001\037\177')
n_tab=$(printf 'tab\there')
n_nl=$(printf 'nl\nhere')
n_cr=$(printf 'cr\rhere')
n_quote='quote"s'
n_back='back\slash'
n_utf8=$(printf 'utf8-caf\303\251-\346\227\245\346\234\254-\360\237\230\200')
n_dir=$(printf 'dir-\377"\\\001')
n_inner=$(printf 'inner-\376')
n_link=$(printf 'link-\200')
t_link=$(printf 'tgt-\377"\002')
n_data=$(printf 'data-\377')
names="$n_bad|$n_cont|$n_cut|$n_over|$n_surr|$n_ctl|$n_tab|$n_nl|$n_cr|$n_quote|$n_back|$n_utf8"

src=$TMP/src
mkdir -p "$src/$n_dir"
IFS='|'
for n in $names; do
	printf '%s\n' "$n" >"$src/$n"
done
unset IFS
printf 'in\n' >"$src/$n_dir/$n_inner"
ln -s "$t_link" "$src/$n_dir/$n_link"
# Compressible, so its blocks are compressed and a zeroed one cannot decompress.
seq 1 60000 >"$src/$n_data"
if command -v setfattr >/dev/null 2>&1 && setfattr -n user.t -v "$(printf 'v\001"')" \
	"$src/$n_utf8" 2>/dev/null; then
	xattrs=1
	setfattr -n user.b -v 0xff00 "$src/$n_utf8"
else
	xattrs=0
fi

# The image's own name is hostile too: it appears in "image" keys.
img=$TMP/$(printf 'img-\377"\\\001.sq')
sqk mkimage -q --no-fragments --stats --json "$src" "$img" >"$TMP/mkimage.json"
ok $? "mkimage --stats --json: exit 0"
check valid "$TMP/mkimage.json"
ok $? "mkimage --stats --json: valid JSON"
check eq "$TMP/mkimage.json" /image "$img"
ok $? "mkimage --stats --json: the image name decodes by the contract"
grep -q -F '"image":' "$TMP/mkimage.json" && grep -q -F '\udcff' "$TMP/mkimage.json"
ok $? "mkimage --stats --json: an invalid byte is sent as \\udcff"

sqk inspect --json "$img" >"$TMP/inspect.json"
ok $? "inspect --json: exit 0"
check valid "$TMP/inspect.json"
ok $? "inspect --json: valid JSON"
check eq "$TMP/inspect.json" /image "$img"
ok $? "inspect --json: the image name decodes by the contract"
check is "$TMP/inspect.json" /counts/files 14
ok $? "inspect --json: 14 files counted"

# ls: the root, -l, -R, a directory whose name is hostile.
sqk ls --json "$img" >"$TMP/ls.json"
ok $? "ls --json: exit 0"
check names "$TMP/ls.json" name "$n_bad" "$n_cont" "$n_cut" "$n_over" "$n_surr" "$n_ctl" \
	"$n_tab" "$n_nl" "$n_cr" "$n_quote" "$n_back" "$n_utf8" "$n_dir" "$n_data"
ok $? "ls --json: valid JSON, every name decodes by the contract"
sqk ls -l --json "$img" "/$n_dir" >"$TMP/ls-l.json"
ok $? "ls -l --json DIR: exit 0"
check names "$TMP/ls-l.json" path "/$n_dir/$n_inner" "/$n_dir/$n_link"
ok $? "ls -l --json DIR: the paths decode by the contract"
check has "$TMP/ls-l.json" / target "$t_link"
ok $? "ls -l --json DIR: the symlink target decodes by the contract"
sqk ls -R --json "$img" >"$TMP/ls-R.json"
ok $? "ls -R --json: exit 0"
check has "$TMP/ls-R.json" / path "/$n_dir/$n_inner"
ok $? "ls -R --json: valid JSON, reaches the hostile directory's entries"
sqk ls -lR --json "$img" >"$TMP/ls-lR.json"
check valid "$TMP/ls-lR.json"
ok $? "ls -lR --json: valid JSON"

# stat on every hostile path.
i=0
IFS='|'
for n in $names; do
	unset IFS
	i=$((i + 1))
	sqk stat --json "$img" "$n" >"$TMP/stat.json" &&
		check eq "$TMP/stat.json" /path "/$n"
	ok $? "stat --json: hostile name $i of 12, its path decodes by the contract"
done
unset IFS
sqk stat --json "$img" "$n_dir/$n_link" >"$TMP/stat.json" &&
	check eq "$TMP/stat.json" /target "$t_link"
ok $? "stat --json: a hostile symlink target decodes by the contract"
if [ "$xattrs" -eq 1 ]; then
	sqk stat --json "$img" "$n_utf8" >"$TMP/stat.json" &&
		check eq "$TMP/stat.json" /xattrs/user.t "$(printf 'v\001"')" &&
		check is "$TMP/stat.json" /xattrs/user.b '{"hex":"ff00"}'
	ok $? "stat --json: xattr values, text with a control character and binary"
else
	skip "user xattrs cannot be set here"
fi

# fsck: clean, then with the hostile file's first block overwritten.
sqk fsck -q --json "$img" >"$TMP/fsck.json"
ok $? "fsck --json: a clean image, exit 0"
check is "$TMP/fsck.json" /clean true
ok $? "fsck --json: valid JSON, clean"
sqk stat --json "$img" "$n_data" >"$TMP/stat.json"
start=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["blocks"][0]["start"])' \
	"$TMP/stat.json")
bad=$TMP/bad.sq
cp "$img" "$bad"
dd if=/dev/zero of="$bad" bs=1 seek="$start" count=64 conv=notrunc 2>/dev/null
sqk fsck -q --json "$bad" >"$TMP/fsck.json"
is "$?" 4 "fsck --json: a damaged image, exit 4"
check is "$TMP/fsck.json" /clean false &&
	check has "$TMP/fsck.json" /errors path "/$n_data"
ok $? "fsck --json: valid JSON, the error's path decodes by the contract"

# diff --json: the image against its source is the same; against a copy of
# the source without one hostile name and a hostile symlink target changed,
# the paths and the targets decode by the contract.
sqk diff --json "$img" "$src" >"$TMP/diff.json"
ok $? "diff --json: the image against its source, exit 0"
check is "$TMP/diff.json" /same true && check eq "$TMP/diff.json" /a "$img"
ok $? "diff --json: valid JSON, the same, the image name decodes by the contract"
cp -a "$src" "$TMP/src2"
rm "$TMP/src2/$n_bad"
ln -sfn "$t_link-2" "$TMP/src2/$n_dir/$n_link"
sqk diff --json "$img" "$TMP/src2" >"$TMP/diff.json"
is "$?" 1 "diff --json: against a changed copy, exit 1"
check has "$TMP/diff.json" /differences path "/$n_bad" &&
	check has "$TMP/diff.json" /differences path "/$n_dir/$n_link" &&
	check has "$TMP/diff.json" /differences b "$t_link-2"
ok $? "diff --json: valid JSON, hostile paths and targets decode by the contract"

# The bytes 0xff 0xfe and the characters U+00FF U+00FE ("\303\277\303\276"
# in UTF-8) as names: different JSON strings, each encoding back to its
# bytes, through ls, stat, diff and jsonq.
raw=$(printf '\377\376')
chars=$(printf '\303\277\303\276')
mkdir "$TMP/yp" "$TMP/empty"
printf 'raw\n' >"$TMP/yp/$raw"
printf 'chars\n' >"$TMP/yp/$chars"
sqk mkimage -q "$TMP/yp" "$TMP/yp.sq"
ok $? "mkimage: names 0xff 0xfe and U+00FF U+00FE"
sqk ls --json "$TMP/yp.sq" >"$TMP/yp-ls.json" &&
	check bytes "$TMP/yp-ls.json" / name "$raw" "$chars"
ok $? "ls --json: both names encode back to their own bytes"
grep -q -F '"name":"\udcff\udcfe"' "$TMP/yp-ls.json" &&
	grep -q -F "\"name\":\"$chars\"" "$TMP/yp-ls.json"
ok $? "ls --json: the bytes as \\udcff\\udcfe, the characters as themselves"
sqk stat --json "$TMP/yp.sq" "$raw" >"$TMP/yp-s1.json" &&
	sqk stat --json "$TMP/yp.sq" "$chars" >"$TMP/yp-s2.json" &&
	! cmp -s "$TMP/yp-s1.json" "$TMP/yp-s2.json" &&
	check eq "$TMP/yp-s1.json" /path "/$raw" && check eq "$TMP/yp-s2.json" /path "/$chars"
ok $? "stat --json: the two paths differ and each decodes to its own bytes"
sqk diff --json "$TMP/yp.sq" "$TMP/empty" >"$TMP/yp-diff.json"
is "$?" 1 "diff --json: both names removed, exit 1"
"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))["differences"]
sys.exit(0 if len(d) == 2 and d[0]["path"] != d[1]["path"] else 1)' "$TMP/yp-diff.json"
ok $? "diff --json: two differences with two different paths"
check bytes "$TMP/yp-diff.json" /differences path "/$raw" "/$chars"
ok $? "diff --json: each path encodes back to its bytes"
"$SQK_TOOLS/jsonq" "$TMP/yp-diff.json" '/differences/*/path' >"$TMP/yp-jq" &&
	printf '/%s\n/%s\n' "$raw" "$chars" | sort >"$TMP/yp-want" &&
	sort "$TMP/yp-jq" | cmp -s - "$TMP/yp-want"
ok $? "jsonq reads the escaped bytes back as the bytes"
if [ "$xattrs" -eq 1 ]; then
	mkdir "$TMP/xa" "$TMP/xb"
	: >"$TMP/xa/f"
	: >"$TMP/xb/f"
	setfattr -n user.v -v 0xfffe "$TMP/xa/f"
	setfattr -n user.v -v "$chars" "$TMP/xb/f"
	sqk diff --json "$TMP/xa" "$TMP/xb" >"$TMP/x-diff.json"
	is "$?" 1 "diff --json: an xattr value, bytes against characters, exit 1"
	check is "$TMP/x-diff.json" /differences/0/a '{"hex":"fffe"}' &&
		check eq "$TMP/x-diff.json" /differences/0/b "$chars"
	ok $? "diff --json: a binary xattr value as {\"hex\":…}, as stat gives it, text as text"
else
	skip "user xattrs cannot be set here"
	skip "user xattrs cannot be set here"
fi

# unimage --stats --json, and bench with a very short run.
sqk unimage -q --stats --json -d "$TMP/out" "$img" >"$TMP/unimage.json"
ok $? "unimage --stats --json: exit 0"
check valid "$TMP/unimage.json"
ok $? "unimage --stats --json: valid JSON"
cmp -s "$src/$n_nl" "$TMP/out/$n_nl"
ok $? "unimage: a name with a newline extracted as it is"
sqk bench -q --format json -w stat -t 1 -p keyed -d 20ms -r 1 "$img" >"$TMP/bench.json"
ok $? "bench --format json: exit 0"
check eq "$TMP/bench.json" /image "$img" &&
	check is "$TMP/bench.json" /cells/0/policy '"keyed"'
ok $? "bench --format json: valid JSON, the image name decodes by the contract"

done_testing
