// SPDX-License-Identifier: BSD-2-Clause
/* mkimage's command line: its options, their help and their checks. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "mkimage.h"
#include "fe.h"
#include "fe.h"

static const char usage_text[] =
	"Usage: squashkit mkimage [OPTIONS] SOURCE... IMAGE\n"
	"Build a SquashFS 4.0 image from directories (merged into one root), archives\n"
	"(--archive), a listing (--listing) or pseudo definitions (--pseudo).\n"
	"IMAGE '-' writes the image to stdout (a pipe gets it from a spool file).\n"
	"\n"
	"Compression:\n"
	"  -c, --compressor NAME    gzip, lzma, lzo, xz, lz4 or zstd (default zstd)\n"
	"  -L, --level N            compression level (gzip 9, xz 6, zstd 15, lz4 0, lzo 8)\n"
	"  -X, --comp-opt KEY=VAL   codec option, e.g. dict-size=1M, bcj=x86,arm, window=15\n"
	"  -b, --block-size SIZE    data block size, a power of two from 4K to 1M (128K)\n"
	"\n"
	"Layout:\n"
	"      --no-fragments       store small files and tails as short blocks\n"
	"      --tail-ends          pack the tail ends of large files into fragments too\n"
	"      --no-dedup           do not look for duplicate files and fragments\n"
	"      --no-sparse          store all-zero blocks as data, not as sparse blocks\n"
	"      --no-xattrs          leave extended attributes out\n"
	"      --no-hardlinks       give every hard link its own inode\n"
	"      --no-export          write no NFS export table\n"
	"      --no-pad             end the image at its last byte (default: padded\n"
	"                           to a multiple of 4K, as block devices need)\n"
	"      --sort FILE          place file data as mksquashfs's sort file FILE says\n"
	"                           (\"PATH PRIORITY\" a line, highest priority first)\n"
	"      --uncompressed LIST  store these parts uncompressed: inodes (the inode,\n"
	"                           directory, export and id tables), data, fragments,\n"
	"                           xattrs, ids (comma-separated)\n"
	"\n"
	"Extended attributes:\n"
	"      --xattrs-include REGEX\n"
	"                           keep only the attributes whose names match REGEX\n"
	"      --xattrs-exclude REGEX\n"
	"                           leave out the attributes whose names match REGEX\n"
	"      --xattrs-add NAME=VALUE\n"
	"                           give every inode this attribute (repeatable; VALUE\n"
	"                           may start with 0s for base64, 0x hex or 0t text)\n"
	"\n"
	"Owners, modes and times:\n"
	"      --all-root           make every file owned by root (uid and gid 0)\n"
	"      --uid N              make every file owned by uid N\n"
	"      --gid N              make every file owned by gid N\n"
	"      --file-mode MODE     set the mode of every file that is not a directory\n"
	"                           (octal, or symbolic as chmod takes it: u+rwX,go-w)\n"
	"      --dir-mode MODE      set the mode of every directory\n"
	"      --root-mode MODE     set the mode of the root directory\n"
	"      --root-uid N         make the root directory owned by uid N\n"
	"      --root-gid N         make the root directory owned by gid N\n"
	"                           (the --root-* options win for the root)\n"
	"      --mtime T            set every inode time to T: seconds since 1970,\n"
	"                           @SECONDS, or 2024-01-01[T12:00[:00]] (local time\n"
	"                           unless Z or +HH:MM follows)\n"
	"      --fstime T           set the superblock time to T (the same forms)\n"
	"                           (default: SOURCE_DATE_EPOCH, else the newest inode time;\n"
	"                           SOURCE_DATE_EPOCH also clamps newer inode times)\n"
	"\n"
	"Sources:\n"
	"  -e, --exclude GLOB       leave out paths matching GLOB (repeatable)\n"
	"      --exclude-from FILE  read GLOBs from FILE, one a line\n"
	"      --regex              the exclude patterns are POSIX extended regular\n"
	"                           expressions, one per path component ('a/b.*');\n"
	"                           a leading / matches from the root, else at any depth\n"
	"      --wildcards          the exclude patterns are globs, one per path\n"
	"                           component, as mksquashfs -wildcards takes them: a\n"
	"                           wildcard matches no leading '.', and @(a|b) +(a)\n"
	"                           *(a) ?(a) !(a) are extended patterns; a leading /\n"
	"                           matches from the root, else at any depth\n"
	"      --one-file-system    do not cross into other file systems below a\n"
	"                           SOURCE: mount points become empty directories\n"
	"      --named-sources      put each SOURCE (a directory or any other file) in\n"
	"                           the root under its own name, as mksquashfs does\n"
	"                           with several sources\n"
	"      --full-paths         put each SOURCE at its own path, as tar does: 'a/b/c'\n"
	"                           becomes a, a/b (with their host directories'\n"
	"                           attributes) and a/b/c; no '.' or '..' in the path\n"
	"      --listing FILE       add the entries of a listing: gen_init_cpio's kinds\n"
	"                           in gensquashfs's field order ('file PATH MODE UID\n"
	"                           GID [SOURCE]', see squashkit-mkimage(1))\n"
	"      --archive[=FILE]     SOURCEs are archives (tar, pax, cpio, zip, compressed\n"
	"                           or not; - is stdin); with =FILE, add that archive\n"
	"      --pseudo DEF         add a pseudo definition in mksquashfs's syntax, e.g.\n"
	"                           'dev/console c 600 0 0 5 1' (repeatable)\n"
	"      --pseudo-file FILE   add the pseudo definitions of FILE (- is stdin)\n"
	"      --pseudo-warn        a pseudo definition that cannot be applied (a path\n"
	"                           a source has, m with nothing to modify) is a\n"
	"                           warning and is left out, as mksquashfs does\n"
	"      --whiteouts          the archives are container layers, applied in order:\n"
	"                           .wh.NAME removes NAME, .wh..wh..opq the lower\n"
	"                           contents of its directory (the OCI image spec)\n"
	"\n"
	"Container images (no SOURCE needed; the config's entrypoint and environment\n"
	"are not part of the image):\n"
	"      --oci LAYOUT[:REF]   the OCI image named REF (or the only one) of the image\n"
	"                           layout directory LAYOUT, or of oci-archive:FILE (a tar\n"
	"                           of one): its layers applied in order, digests checked\n"
	"      --platform OS/ARCH[/VARIANT]\n"
	"                           the image of this platform from an index of several\n"
	"                           (default: this machine's)\n"
	"      --oci-layers         one image per layer, IMAGE.1 (the lowest) to IMAGE.N,\n"
	"                           whiteouts kept as overlayfs reads them\n"
	"\n"
	"SELinux:\n"
	"      --file-contexts FILE give every inode the security.selinux label that FILE\n"
	"                           (a policy's file_contexts) gives its path and type,\n"
	"                           as restorecon would set it\n"
	"      --selinux-root PATH  match paths as PATH/path (the image mounted at PATH)\n"
	"      --keep-source-labels a label a source gives stays\n"
	"\n"
	"Running:\n"
	"  -j, --threads N          compression threads (default: online CPUs)\n"
	"      --memory SIZE        memory the build may hold (K/M/G suffixes; default\n"
	"                           a quarter of RAM, at most 2G); what does not fit\n"
	"                           waits in temporary files, and the image is the same\n"
	"      --tmpdir DIR         where those temporary files go (default: the\n"
	"                           directory of IMAGE)\n"
	"  -f, --force              write over an existing IMAGE (a file is replaced,\n"
	"                           a block device written in place, a fifo streamed)\n"
	"      --append             add the SOURCEs to the existing IMAGE, with its\n"
	"                           compressor and block size; its bytes stay as they\n"
	"                           are until the new superblock is written, last\n"
	"      --offset N           write the image after the first N bytes of the\n"
	"                           existing IMAGE, which are kept (K/M suffixes)\n"
	"      --reuse OLD          copy the stored blocks of the earlier image OLD\n"
	"                           that hold the same bytes instead of compressing\n"
	"                           them again (repeatable; same compressor, options\n"
	"                           and block size); when squashkit wrote OLD with\n"
	"                           those, the image is byte for byte the one built\n"
	"                           without --reuse\n"
	"      --reuse-offset N|auto\n"
	"                           each OLD starts N bytes into its file; auto looks\n"
	"                           for it\n"
	"\n"
	"dm-verity (the root hash goes to stdout, one line, unless a file or --json\n"
	"takes it):\n"
	"      --verity[=appended|FILE]\n"
	"                           make a dm-verity hash tree as the image is written,\n"
	"                           in veritysetup's format: after the image, padded to\n"
	"                           4K (appended, the default), or into FILE\n"
	"      --verity-salt HEX|random|-\n"
	"                           the salt (default random; with SOURCE_DATE_EPOCH,\n"
	"                           made of the image's bytes, which costs a second\n"
	"                           read of the image); - for none\n"
	"      --verity-hash sha256|sha512\n"
	"                           the hash algorithm (default sha256)\n"
	"      --verity-no-superblock\n"
	"                           no verity superblock before the tree (RAUC's way)\n"
	"      --verity-root-hash-file F\n"
	"                           write the root hash to F, not to stdout\n"
	"      --verity-sign KEY    sign the root hash with KEY (PEM) as dm-verity and\n"
	"                           systemd check it: IMAGE.roothash.p7s (.raw dropped)\n"
	"      --verity-cert CERT   the certificate (PEM) of KEY\n"
	"      --verity-sig P7S     write the signature to P7S instead\n"
	"      --verity-sig-json F  write systemd's verity signature partition (JSON)\n"
	"\n"
	"  -q, --quiet              no progress bar\n"
	"      --stats              print a summary of sizes, counts and savings\n"
	"      --json               print the summary as one JSON object on stdout\n"
	"  -h, --help               show this help\n";

enum {
	OPT_NO_FRAGMENTS = 256,
	OPT_TAIL_ENDS,
	OPT_NO_DEDUP,
	OPT_NO_SPARSE,
	OPT_NO_XATTRS,
	OPT_NO_HARDLINKS,
	OPT_NO_EXPORT,
	OPT_ALL_ROOT,
	OPT_UID,
	OPT_GID,
	OPT_MTIME,
	OPT_FSTIME,
	OPT_EXCLUDE_FROM,
	OPT_LISTING,
	OPT_ARCHIVE,
	OPT_PSEUDO,
	OPT_PSEUDO_FILE,
	OPT_STATS,
	OPT_JSON,
	OPT_OFFSET,
	OPT_UNCOMPRESSED,
	OPT_NAMED_SOURCES,
	OPT_FULL_PATHS,
	OPT_APPEND,
	OPT_REGEX,
	OPT_ONE_FILE_SYSTEM,
	OPT_NO_PAD,
	OPT_WILDCARDS,
	OPT_PSEUDO_WARN,
	OPT_REUSE,
	OPT_REUSE_OFFSET,
	OPT_VERITY,
	OPT_VERITY_SALT,
	OPT_VERITY_HASH,
	OPT_VERITY_NO_SUPERBLOCK,
	OPT_VERITY_ROOT_HASH_FILE,
	OPT_VERITY_SIGN,
	OPT_VERITY_CERT,
	OPT_VERITY_SIG,
	OPT_VERITY_SIG_JSON,
	/* The container and label options (mkimage_inputs.c), in this order. */
	OPT_WHITEOUTS,
	OPT_OCI,
	OPT_PLATFORM,
	OPT_OCI_LAYERS,
	OPT_FILE_CONTEXTS,
	OPT_SELINUX_ROOT,
	OPT_KEEP_SOURCE_LABELS,
	OPT_MEMORY,
	OPT_TMPDIR,
};

static const struct option long_opts[] = {
	{"compressor", required_argument, NULL, 'c'},
	{"level", required_argument, NULL, 'L'},
	{"comp-opt", required_argument, NULL, 'X'},
	{"block-size", required_argument, NULL, 'b'},
	{"no-fragments", no_argument, NULL, OPT_NO_FRAGMENTS},
	{"tail-ends", no_argument, NULL, OPT_TAIL_ENDS},
	{"no-dedup", no_argument, NULL, OPT_NO_DEDUP},
	{"no-sparse", no_argument, NULL, OPT_NO_SPARSE},
	{"no-xattrs", no_argument, NULL, OPT_NO_XATTRS},
	{"no-hardlinks", no_argument, NULL, OPT_NO_HARDLINKS},
	{"no-export", no_argument, NULL, OPT_NO_EXPORT},
	{"no-pad", no_argument, NULL, OPT_NO_PAD},
	{"all-root", no_argument, NULL, OPT_ALL_ROOT},
	{"uid", required_argument, NULL, OPT_UID},
	{"gid", required_argument, NULL, OPT_GID},
	{"mtime", required_argument, NULL, OPT_MTIME},
	{"fstime", required_argument, NULL, OPT_FSTIME},
	{"file-mode", required_argument, NULL, OPT_FILE_MODE},
	{"dir-mode", required_argument, NULL, OPT_DIR_MODE},
	{"root-mode", required_argument, NULL, OPT_ROOT_MODE},
	{"root-uid", required_argument, NULL, OPT_ROOT_UID},
	{"root-gid", required_argument, NULL, OPT_ROOT_GID},
	{"xattrs-include", required_argument, NULL, OPT_XATTRS_INCLUDE},
	{"xattrs-exclude", required_argument, NULL, OPT_XATTRS_EXCLUDE},
	{"xattrs-add", required_argument, NULL, OPT_XATTRS_ADD},
	{"sort", required_argument, NULL, OPT_SORT},
	{"uncompressed", required_argument, NULL, OPT_UNCOMPRESSED},
	{"named-sources", no_argument, NULL, OPT_NAMED_SOURCES},
	{"full-paths", no_argument, NULL, OPT_FULL_PATHS},
	{"exclude", required_argument, NULL, 'e'},
	{"exclude-from", required_argument, NULL, OPT_EXCLUDE_FROM},
	{"regex", no_argument, NULL, OPT_REGEX},
	{"wildcards", no_argument, NULL, OPT_WILDCARDS},
	{"one-file-system", no_argument, NULL, OPT_ONE_FILE_SYSTEM},
	{"listing", required_argument, NULL, OPT_LISTING},
	{"archive", optional_argument, NULL, OPT_ARCHIVE},
	{"pseudo", required_argument, NULL, OPT_PSEUDO},
	{"pseudo-file", required_argument, NULL, OPT_PSEUDO_FILE},
	{"pseudo-warn", no_argument, NULL, OPT_PSEUDO_WARN},
	{"threads", required_argument, NULL, 'j'},
	{"force", no_argument, NULL, 'f'},
	{"append", no_argument, NULL, OPT_APPEND},
	{"offset", required_argument, NULL, OPT_OFFSET},
	{"reuse", required_argument, NULL, OPT_REUSE},
	{"reuse-offset", required_argument, NULL, OPT_REUSE_OFFSET},
	{"verity", optional_argument, NULL, OPT_VERITY},
	{"verity-salt", required_argument, NULL, OPT_VERITY_SALT},
	{"verity-hash", required_argument, NULL, OPT_VERITY_HASH},
	{"verity-no-superblock", no_argument, NULL, OPT_VERITY_NO_SUPERBLOCK},
	{"verity-root-hash-file", required_argument, NULL, OPT_VERITY_ROOT_HASH_FILE},
	{"verity-sign", required_argument, NULL, OPT_VERITY_SIGN},
	{"verity-cert", required_argument, NULL, OPT_VERITY_CERT},
	{"verity-sig", required_argument, NULL, OPT_VERITY_SIG},
	{"verity-sig-json", required_argument, NULL, OPT_VERITY_SIG_JSON},
	{"whiteouts", no_argument, NULL, OPT_WHITEOUTS},
	{"oci", required_argument, NULL, OPT_OCI},
	{"platform", required_argument, NULL, OPT_PLATFORM},
	{"oci-layers", no_argument, NULL, OPT_OCI_LAYERS},
	{"file-contexts", required_argument, NULL, OPT_FILE_CONTEXTS},
	{"selinux-root", required_argument, NULL, OPT_SELINUX_ROOT},
	{"keep-source-labels", no_argument, NULL, OPT_KEEP_SOURCE_LABELS},
	{"memory", required_argument, NULL, OPT_MEMORY},
	{"tmpdir", required_argument, NULL, OPT_TMPDIR},
	{"quiet", no_argument, NULL, 'q'},
	{"stats", no_argument, NULL, OPT_STATS},
	{"json", no_argument, NULL, OPT_JSON},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int strv_add(struct strv *s, const char *str)
{
	if (SQK_ARRAY_GROW(s->v, s->cap, s->n + 1))
		return -1;
	s->v[s->n] = strdup(str);
	return s->v[s->n] ? (int)s->n++ : -1;
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

int cli_mkimage_parse_u32(const char *what, const char *s, uint32_t *out)
{
	uint64_t v;

	if (sqk_parse_uint(s, 0xffffffffu, &v))
		return cli_usage_error("invalid %s '%s'", what, s);
	*out = (uint32_t)v;
	return 0;
}

/* An option the library refused: the exit status after its line. */
static int refused(int err)
{
	if (err == SQK_ERR_ARG)
		return cli_usage_error("%s", sqk_error_message());
	/* A file of patterns that cannot be read says which and why. */
	if (err == SQK_ERR_NOMEM)
		cli_error(NULL, "out of memory");
	else
		cli_error(NULL, "%s", sqk_error_message());
	return EXIT_FAIL;
}

int cli_mkimage_set(struct args *a, const char *name, const char *value)
{
	int err = sqk_build_opts_set(a->bo, name, value);

	return err ? refused(err) : 0;
}

/* An option whose refusal names it as the command line spells it. */
static int take_named(struct args *a, const char *name, const char *arg)
{
	int err = sqk_build_opts_set(a->bo, name, arg);

	if (err == SQK_ERR_ARG)
		return cli_refused(name);
	return err ? refused(err) : 0;
}

/* --uncompressed LIST: the names of the parts, comma-separated. */
static int parse_raw(struct args *a, const char *arg)
{
	int err = sqk_build_opts_set(a->bo, "uncompressed", arg);

	if (err == SQK_ERR_ARG)
		return cli_usage_error("invalid --uncompressed list '%s' (inodes, data, "
				       "fragments, xattrs, ids)",
				       arg);
	return err ? refused(err) : 0;
}

/* Pseudo definitions are read where they stand among the options (L links to earlier ones). */
static int add_pseudo(struct args *a, int file, const char *arg)
{
	int err = file ? sqk_build_opts_add_pseudo_file(a->bo, arg)
		       : sqk_build_opts_add_pseudo(a->bo, arg);

	a->has_pseudo = 1;
	if (err == SQK_ERR_ARG)
		return cli_usage_error("%s", sqk_error_message());
	if (err) {
		cli_error(NULL, "%s", sqk_error_message());
		return EXIT_FAIL;
	}
	return 0;
}

/* The attribute options: the library checks them; its words, the option as given. */
static int take_attr(struct args *a, int c, const char *name, const char *arg)
{
	a->xattrs_added |= c == OPT_XATTRS_ADD;
	return take_named(a, name, arg);
}

/* The long name of a switch of the table above, as the library takes it. */
static const char *switch_name(int c)
{
	for (const struct option *o = long_opts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "";
}

int cli_mkimage_parse_args(int argc, char **argv, struct args *a)
{
	uint64_t v;
	int c, rc;

	a->comp_name = "zstd";
	a->level = -1;
	a->bo = sqk_build_opts_create();
	if (!a->bo) {
		cli_error(NULL, "out of memory");
		return EXIT_FAIL;
	}
	optind = 0;
	while ((c = cli_getopt(argc, argv, "c:L:X:b:e:j:fqh", long_opts)) != -1) {
		rc = 0;
		switch (c) {
		case 'c':
			/* Named when the codec is set up, after the checks of the operands. */
			a->comp_name = optarg;
			a->comp_given = 1;
			break;
		case 'L':
			rc = cli_mkimage_set(a, "level", optarg);
			/* The library took it: a number up to 1000. */
			if (!rc && !sqk_parse_uint(optarg, 1000, &v))
				a->level = (int)v;
			break;
		case 'X':
			rc = cli_mkimage_set(a, "comp-opt", optarg);
			a->ncomp_opts++;
			break;
		case 'b':
			rc = cli_mkimage_set(a, "block-size", optarg);
			sqk_parse_size(optarg, &a->block_size);
			a->block_given = 1;
			break;
		case OPT_NO_FRAGMENTS:
		case OPT_TAIL_ENDS:
		case OPT_NO_XATTRS:
			a->no_fragments |= c == OPT_NO_FRAGMENTS;
			a->tail_ends |= c == OPT_TAIL_ENDS;
			a->no_xattrs |= c == OPT_NO_XATTRS;
			/* fall through */
		case OPT_NO_PAD:
			a->no_pad |= c == OPT_NO_PAD;
			/* fall through */
		case OPT_NO_DEDUP:
		case OPT_NO_SPARSE:
		case OPT_NO_HARDLINKS:
		case OPT_NO_EXPORT:
		case OPT_ALL_ROOT:
		case OPT_PSEUDO_WARN:
		case OPT_ONE_FILE_SYSTEM:
			rc = cli_mkimage_set(a, switch_name(c), NULL);
			break;
		case OPT_UID:
		case OPT_GID:
			rc = cli_mkimage_set(a, switch_name(c), optarg);
			break;
		case OPT_MTIME:
		case OPT_FSTIME:
			rc = take_named(a, switch_name(c), optarg);
			break;
		case 'e':
			rc = cli_mkimage_set(a, "exclude", optarg);
			break;
		case OPT_EXCLUDE_FROM:
			rc = cli_mkimage_set(a, "exclude-from", optarg);
			break;
		case OPT_LISTING:
			if (strv_add(&a->listings, optarg) < 0)
				return EXIT_FAIL;
			break;
		case OPT_ARCHIVE:
			if (optarg) {
				if (strv_add(&a->archives, optarg) < 0)
					return EXIT_FAIL;
			} else {
				a->archive_mode = 1;
			}
			break;
		case OPT_PSEUDO:
		case OPT_PSEUDO_FILE:
			rc = add_pseudo(a, c == OPT_PSEUDO_FILE, optarg);
			break;
		case 'j': {
			unsigned threads;
			char n[16];

			if (cli_threads_option(optarg, &threads) != 0)
				return EXIT_USAGE;
			snprintf(n, sizeof(n), "%u", threads);
			rc = cli_mkimage_set(a, "threads", n);
			break;
		}
		case OPT_XATTRS_INCLUDE:
		case OPT_XATTRS_EXCLUDE:
		case OPT_XATTRS_ADD:
		case OPT_ROOT_MODE:
		case OPT_ROOT_UID:
		case OPT_ROOT_GID:
		case OPT_FILE_MODE:
		case OPT_DIR_MODE:
		case OPT_SORT:
			rc = take_attr(a, c, switch_name(c), optarg);
			break;
		case 'f':
			a->force = 1;
			break;
		case OPT_UNCOMPRESSED:
			rc = parse_raw(a, optarg);
			break;
		case OPT_NAMED_SOURCES:
			a->named_sources = 1;
			break;
		case OPT_FULL_PATHS:
			a->full_paths = 1;
			break;
		case OPT_APPEND:
			a->append = 1;
			break;
		case OPT_REGEX:
		case OPT_WILDCARDS:
			if (a->exclude_style)
				return cli_usage_error(
					"--regex and --wildcards exclude each other");
			a->exclude_style = c;
			rc = cli_mkimage_set(a, switch_name(c), NULL);
			break;
		case OPT_OFFSET:
			if (sqk_parse_size(optarg, &a->offset) != 0)
				return cli_usage_error("invalid offset '%s'", optarg);
			a->offset_arg = optarg;
			break;
		case OPT_REUSE:
			if (strv_add(&a->reuse, optarg) < 0)
				return EXIT_FAIL;
			break;
		case OPT_REUSE_OFFSET:
			if (strcmp(optarg, "auto") != 0 && sqk_parse_size(optarg, &v) != 0)
				return cli_usage_error("invalid offset '%s'", optarg);
			a->reuse_offset = optarg;
			break;
		case OPT_VERITY:
			a->verity = 1;
			rc = cli_mkimage_set(a, "verity", optarg);
			break;
		case OPT_VERITY_SALT:
		case OPT_VERITY_HASH:
		case OPT_VERITY_NO_SUPERBLOCK:
		case OPT_VERITY_ROOT_HASH_FILE:
		case OPT_VERITY_SIGN:
		case OPT_VERITY_CERT:
		case OPT_VERITY_SIG:
		case OPT_VERITY_SIG_JSON:
			/* Checked against each other once all are read (cli_mkimage_verity_check).
			 */
			a->verity_opts |= 1u << (c - OPT_VERITY_SALT);
			rc = cli_mkimage_set(a, switch_name(c), optarg);
			break;
		case OPT_WHITEOUTS:
		case OPT_OCI:
		case OPT_PLATFORM:
		case OPT_OCI_LAYERS:
		case OPT_FILE_CONTEXTS:
		case OPT_SELINUX_ROOT:
		case OPT_KEEP_SOURCE_LABELS:
			rc = cli_mkimage_input_opt(a, c - OPT_WHITEOUTS, switch_name(c), optarg);
			break;
		case OPT_MEMORY:
			if (sqk_parse_size(optarg, &v) != 0 || v < (8u << 20))
				return cli_usage_error("invalid --memory size '%s' (at least 8M)",
						       optarg);
			rc = cli_mkimage_set(a, "memory", optarg);
			break;
		case OPT_TMPDIR:
			rc = cli_mkimage_set(a, "tmpdir", optarg);
			break;
		case 'q':
			a->quiet = 1;
			break;
		case OPT_STATS:
			a->stats = 1;
			break;
		case OPT_JSON:
			a->json = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			return EXIT_USAGE;
		}
		if (rc)
			return rc;
	}
	return 0;
}

void cli_mkimage_args_free(struct args *a)
{
	strv_free(&a->listings);
	strv_free(&a->archives);
	strv_free(&a->reuse);
	sqk_build_opts_destroy(a->bo);
}
