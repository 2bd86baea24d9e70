// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit verity: add a dm-verity hash tree to an image that exists,
 * written by any SquashFS writer (sqk_verity_add()), as mkimage --verity
 * makes one while it writes.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "fe.h"
#include "verityopt.h"

static const char usage_text[] =
	"Usage: squashkit verity [OPTIONS] IMAGE\n"
	"Add a dm-verity hash tree to IMAGE, as veritysetup format makes it (format 1,\n"
	"4096-byte blocks): IMAGE is read once, padded to 4K if it is not, and the hash\n"
	"area written after it (veritysetup --hash-offset's layout) or to a file of its\n"
	"own. The root hash goes to stdout, one line, unless a file or --json takes it.\n\n"
	"      --hash-file F        write the hash area to F, not after the image\n"
	"      --salt HEX|random|-  the salt (default random; with SOURCE_DATE_EPOCH,\n"
	"                           made of the image's bytes, read a second time)\n"
	"      --hash sha256|sha512 the hash algorithm (default sha256)\n"
	"      --no-superblock      no verity superblock before the tree (RAUC's way)\n"
	"      --root-hash-file F   write the root hash to F, not to stdout\n"
	"      --sign KEY           sign the root hash with KEY (PEM): IMAGE.roothash.p7s\n"
	"                           (a .raw suffix dropped), as dm-verity and systemd check it\n"
	"      --cert CERT          the certificate (PEM) of KEY\n"
	"      --sig P7S            write the signature to P7S instead\n"
	"      --sig-json F         write systemd's verity signature partition (JSON) to F\n"
	"      --offset N           the image starts N bytes into IMAGE (K/M suffixes); the\n"
	"                           tree covers the image, and the area's offset counts\n"
	"                           from the image's start\n"
	"  -f, --force              replace bytes that follow the image (an earlier area)\n"
	"                           and files that exist\n"
	"  -j, --threads N          hash on N threads (default: online CPUs)\n"
	"      --json               print the tree's parameters as one JSON object\n"
	"  -q, --quiet              nothing on stderr but errors\n"
	"  -h, --help               show this help\n";

enum {
	OPT_HASH_FILE = 256,
	OPT_SALT,
	OPT_HASH,
	OPT_NO_SUPERBLOCK,
	OPT_ROOT_HASH_FILE,
	OPT_SIGN,
	OPT_CERT,
	OPT_SIG,
	OPT_SIG_JSON,
	OPT_OFFSET,
	OPT_JSON,
};

static const struct option longopts[] = {
	{"hash-file", required_argument, NULL, OPT_HASH_FILE},
	{"salt", required_argument, NULL, OPT_SALT},
	{"hash", required_argument, NULL, OPT_HASH},
	{"no-superblock", no_argument, NULL, OPT_NO_SUPERBLOCK},
	{"root-hash-file", required_argument, NULL, OPT_ROOT_HASH_FILE},
	{"sign", required_argument, NULL, OPT_SIGN},
	{"cert", required_argument, NULL, OPT_CERT},
	{"sig", required_argument, NULL, OPT_SIG},
	{"sig-json", required_argument, NULL, OPT_SIG_JSON},
	{"offset", required_argument, NULL, OPT_OFFSET},
	{"force", no_argument, NULL, 'f'},
	{"threads", required_argument, NULL, 'j'},
	{"json", no_argument, NULL, OPT_JSON},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The library's name of each option above from OPT_HASH_FILE on (mkimage's). */
static const char *const names[] = {
	"verity",
	"verity-salt",
	"verity-hash",
	"verity-no-superblock",
	"verity-root-hash-file",
	"verity-sign",
	"verity-cert",
	"verity-sig",
	"verity-sig-json",
	"offset",
};

struct run {
	struct sqk_build_opts *bo;
	int json, root_file, sign, cert, sig;
};

static int set(struct run *r, const char *name, const char *value)
{
	int err = sqk_build_opts_set(r->bo, name, value);

	if (err == SQK_ERR_ARG)
		return cli_usage_error("%s", sqk_error_message());
	if (err) {
		cli_error(NULL, "%s", sqk_error_message());
		return EXIT_FAIL;
	}
	return 0;
}

static int parse(struct run *r, int argc, char **argv)
{
	unsigned threads;
	char n[16];
	uint64_t v;
	int c, rc;

	while ((c = cli_getopt(argc, argv, "fj:qh", longopts)) != -1) {
		rc = 0;
		switch (c) {
		case 'f':
			rc = set(r, "force", NULL);
			break;
		case 'j':
			if (cli_threads_option(optarg, &threads) != 0)
				return EXIT_USAGE;
			snprintf(n, sizeof(n), "%u", threads);
			rc = set(r, "threads", n);
			break;
		case OPT_JSON:
			r->json = 1;
			break;
		case 'q':
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case OPT_OFFSET:
			if (sqk_parse_size(optarg, &v) != 0)
				return cli_usage_error("invalid offset '%s'", optarg);
			/* fall through */
		case OPT_HASH_FILE:
		case OPT_SALT:
		case OPT_HASH:
		case OPT_NO_SUPERBLOCK:
		case OPT_ROOT_HASH_FILE:
		case OPT_SIGN:
		case OPT_CERT:
		case OPT_SIG:
		case OPT_SIG_JSON:
			r->root_file |= c == OPT_ROOT_HASH_FILE;
			r->sign |= c == OPT_SIGN;
			r->cert |= c == OPT_CERT;
			r->sig |= c == OPT_SIG || c == OPT_SIG_JSON;
			rc = set(r, names[c - OPT_HASH_FILE], optarg);
			break;
		default:
			return EXIT_USAGE;
		}
		if (rc)
			return rc;
	}
	if (optind >= argc)
		return cli_usage_error("missing IMAGE operand");
	if (argc - optind > 1)
		return cli_usage_error("extra operand '%s'", argv[optind + 1]);
	if (r->sign != r->cert)
		return cli_usage_error("--sign and --cert go together");
	if (r->sig && !r->sign)
		return cli_usage_error("--sig and --sig-json need --sign");
	return 0;
}

static void print_json(const char *image, const struct sqk_verity_info *info)
{
	struct sqk_json j;

	sqk_json_init_file(&j, stdout);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "image", image);
	sqk_json_key(&j, "verity");
	sqk_json_begin_object(&j, 0);
	cli_verity_json_members(&j, info);
	sqk_json_end_object(&j);
	sqk_json_end_object(&j);
	sqk_json_finish(&j);
}

int cli_verity(int argc, char **argv)
{
	struct run r = {0};
	struct sqk_verity_info info;
	const char *epoch = getenv("SOURCE_DATE_EPOCH"), *image;
	int rc;

	r.bo = sqk_build_opts_create();
	if (!r.bo) {
		cli_error(NULL, "%s", sqk_error_message());
		return EXIT_FAIL;
	}
	optind = 0;
	rc = parse(&r, argc, argv);
	if (!rc && epoch && *epoch)
		rc = set(&r, "source-date-epoch", epoch);
	if (rc) {
		sqk_build_opts_destroy(r.bo);
		return rc < 0 ? EXIT_OK : rc;
	}
	image = argv[optind];
	rc = sqk_verity_add(image, r.bo, &info);
	if (rc) {
		/* The library names its option "force"; here it is --force. */
		if (rc == SQK_ERR_EXIST && strstr(sqk_error_message(), "follow the image"))
			cli_error(image, "bytes follow the image (an earlier hash area?); --force "
					 "replaces them");
		else
			cli_error(NULL, "%s", sqk_error_message());
		sqk_build_opts_destroy(r.bo);
		return EXIT_FAIL;
	}
	sqk_build_opts_destroy(r.bo);
	if (r.json)
		print_json(image, &info);
	else if (!r.root_file)
		printf("%s\n", info.root_hash);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("stdout", "write error");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
