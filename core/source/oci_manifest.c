// SPDX-License-Identifier: BSD-2-Clause
/*
 * From an OCI layout's index.json to one image manifest and its layers
 * (oci_manifest.h): every document read through its digest, parsed
 * strictly, and a choice that is not clear refused in one line that says
 * what there is to choose from.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "oci_manifest.h"
#include "util/error.h"
#include "util/json_parse.h"

/* A manifest or an index is small; more than this is no layout's. */
#define MAX_DOC	  (4u << 20)
#define MAX_DEPTH 8

static const char REF_NAME[] = "org.opencontainers.image.ref.name";

static const char *const index_types[] = {
	"application/vnd.oci.image.index.v1+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
	NULL,
};
static const char *const manifest_types[] = {
	"application/vnd.oci.image.manifest.v1+json",
	"application/vnd.docker.distribution.manifest.v2+json",
	NULL,
};
static const struct {
	const char *type;
	enum sqk_layer_filter filter;
} layer_types[] = {
	{"application/vnd.oci.image.layer.v1.tar", SQK_LAYER_TAR},
	{"application/vnd.oci.image.layer.v1.tar+gzip", SQK_LAYER_GZIP},
	{"application/vnd.oci.image.layer.v1.tar+zstd", SQK_LAYER_ZSTD},
	{"application/vnd.oci.image.layer.nondistributable.v1.tar", SQK_LAYER_TAR},
	{"application/vnd.oci.image.layer.nondistributable.v1.tar+gzip", SQK_LAYER_GZIP},
	{"application/vnd.oci.image.layer.nondistributable.v1.tar+zstd", SQK_LAYER_ZSTD},
	{"application/vnd.docker.image.rootfs.diff.tar", SQK_LAYER_TAR},
	{"application/vnd.docker.image.rootfs.diff.tar.gzip", SQK_LAYER_GZIP},
	{"application/vnd.docker.image.rootfs.foreign.diff.tar.gzip", SQK_LAYER_GZIP},
};

struct plat {
	char os[64], arch[64], variant[64];
	int given; /* asked for, not this machine's by default */
};

static int say(struct sqk_src_ctx *c, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int say(struct sqk_src_ctx *c, const char *where, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	errno = 0;
	sqk_src_fail(c, where, "%s", why);
	return SQK_ERR_ARCHIVE;
}

static int one_of(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

static int parse_platform(const char *s, struct plat *p)
{
	const char *a = strchr(s, '/'), *v;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (!a || a == s || (size_t)(a - s) >= sizeof(p->os))
		return -1;
	memcpy(p->os, s, (size_t)(a - s));
	a++;
	v = strchr(a, '/');
	n = v ? (size_t)(v - a) : strlen(a);
	if (!n || n >= sizeof(p->arch))
		return -1;
	memcpy(p->arch, a, n);
	if (v) {
		v++;
		if (!*v || strchr(v, '/') || strlen(v) >= sizeof(p->variant))
			return -1;
		strcpy(p->variant, v);
	}
	return 0;
}

int sqk_oci_platform_valid(const char *platform)
{
	struct plat p;

	return parse_platform(platform, &p) == 0;
}

void sqk_oci_platform_native(char *buf, size_t cap)
{
	/* uname's machine names against the OCI spec's (Go's) architecture names. */
	static const struct {
		const char *machine, *platform;
	} map[] = {
		{"x86_64", "linux/amd64"},
		{"aarch64", "linux/arm64"},
		{"armv7l", "linux/arm/v7"},
		{"armv6l", "linux/arm/v6"},
		{"armv5tel", "linux/arm/v5"},
		{"i386", "linux/386"},
		{"i486", "linux/386"},
		{"i586", "linux/386"},
		{"i686", "linux/386"},
		{"ppc64le", "linux/ppc64le"},
		{"ppc64", "linux/ppc64"},
		{"s390x", "linux/s390x"},
		{"riscv64", "linux/riscv64"},
		{"mips64", "linux/mips64"},
		{"loongarch64", "linux/loong64"},
	};
	struct utsname u;
	size_t i;

	if (uname(&u) == 0)
		for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (!strcmp(u.machine, map[i].machine)) {
				snprintf(buf, cap, "%s", map[i].platform);
				return;
			}
	snprintf(buf, cap, "linux/%s", uname(&u) == 0 ? u.machine : "unknown");
}

/* The descriptor's platform, "os/arch[/variant]", into buf: 0 when it has none. */
static int desc_platform(const struct sqk_jv *d, char *buf, size_t cap)
{
	const struct sqk_jv *p = sqk_json_get(d, "platform");
	const char *os = sqk_json_str(p, "os"), *arch = sqk_json_str(p, "architecture");
	const char *v = sqk_json_str(p, "variant");

	if (!os || !arch)
		return 0;
	snprintf(buf, cap, "%s/%s%s%s", os, arch, v && *v ? "/" : "", v && *v ? v : "");
	return 1;
}

static const char *desc_ref(const struct sqk_jv *d)
{
	return sqk_json_str(sqk_json_get(d, "annotations"), REF_NAME);
}

static int plat_match(const struct sqk_jv *d, const struct plat *want)
{
	const struct sqk_jv *p = sqk_json_get(d, "platform");
	const char *os = sqk_json_str(p, "os"), *arch = sqk_json_str(p, "architecture");
	const char *v = sqk_json_str(p, "variant");

	if (!os || !arch || strcmp(os, want->os) || strcmp(arch, want->arch))
		return 0;
	if (!want->variant[0])
		return 1;
	if (v && !strcmp(v, want->variant))
		return 1;
	/* arm64's only variant is v8: a manifest that names none is one. */
	return !strcmp(want->arch, "arm64") && !strcmp(want->variant, "v8") && (!v || !*v);
}

/* "a, b, c": what each descriptor of list[0..n) is called (its platform, name or digest). */
static void describe(const struct sqk_jv *const *list, size_t n, int by_platform, char *buf,
		     size_t cap)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n && len + 1 < cap; i++) {
		char p[200];
		const char *ref = desc_ref(list[i]), *what = ref;

		if (by_platform && desc_platform(list[i], p, sizeof(p)))
			what = p;
		else if (!what)
			what = sqk_json_str(list[i], "digest");
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
					what ? what : "?");
	}
	if (len >= cap && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
}

/*
 * One descriptor of the array ms: named ref (at the top), else the only
 * one, else the one of platform p. *out, or the error, said about where.
 */
static int choose(struct sqk_src_ctx *c, const char *where, const struct sqk_jv *ms,
		  const char *ref, const struct plat *p, const char *pname,
		  const struct sqk_jv **out)
{
	const struct sqk_jv **cand = NULL, **match = NULL;
	size_t n = 0, m = 0, i, with_platform = 0;
	char list[600];
	int err = 0;

	if (!ms || ms->type != SQK_JARR)
		return say(c, where, "no \"manifests\" array");
	cand = calloc(ms->n + 1, sizeof(*cand));
	match = calloc(ms->n + 1, sizeof(*match));
	if (!cand || !match) {
		err = SQK_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < ms->n; i++) {
		const char *r = desc_ref(&ms->kids[i]);

		if (!ref || (r && !strcmp(r, ref)))
			cand[n++] = &ms->kids[i];
	}
	if (!n) {
		for (i = 0; i < ms->n; i++)
			cand[i] = &ms->kids[i];
		describe(cand, ms->n, 0, list, sizeof(list));
		err = ref ? say(c, where, "no image named '%s' (it has: %s)", ref,
				ms->n ? list : "none")
			  : say(c, where, "no image in its index");
		goto out;
	}
	if (n == 1) {
		char have[200];

		/* The only image is taken, but not for a platform asked for that it is not. */
		if (p->given && desc_platform(cand[0], have, sizeof(have)) && !plat_match(cand[0], p))
			err = say(c, where, "its image is for platform %s, not %s", have, pname);
		*out = cand[0];
		goto out;
	}
	for (i = 0; i < n; i++) {
		char tmp[8];

		with_platform += desc_platform(cand[i], tmp, sizeof(tmp));
		if (plat_match(cand[i], p))
			match[m++] = cand[i];
	}
	if (m == 1) {
		*out = match[0];
	} else if (!with_platform) {
		describe(cand, n, 0, list, sizeof(list));
		err = say(c, where, "%zu images: name one as LAYOUT:REF (%s)", n, list);
	} else if (!m) {
		describe(cand, n, 1, list, sizeof(list));
		err = say(c, where, "no image for platform %s (it has: %s; --platform chooses)",
			  pname, list);
	} else {
		describe(match, m, 0, list, sizeof(list));
		err = say(c, where, "%zu images for platform %s: name one as LAYOUT:REF (%s)", m,
			  pname, list);
	}
out:
	free(cand);
	free(match);
	return err;
}

static int parse(struct sqk_src_ctx *c, const char *where, const char *data, size_t len,
		 struct sqk_jdoc **doc)
{
	const char *why = "";
	size_t at = 0;
	int err = sqk_json_parse(data, len, doc, &at, &why);

	if (err == SQK_ERR_CORRUPT)
		return say(c, where, "not valid JSON: %s at byte %zu", why, at);
	return err;
}

/* A descriptor's digest and size, checked. */
static int desc_blob(struct sqk_oci_store *s, struct sqk_src_ctx *c, const char *where,
		     const struct sqk_jv *d, struct sqk_oci_blob **b)
{
	const char *digest = sqk_json_str(d, "digest");
	uint64_t size;

	if (!digest || sqk_json_u64(sqk_json_get(d, "size"), &size))
		return say(c, where, "a descriptor without a digest or a size");
	return sqk_oci_blob_create(s, c, digest, size, b);
}

/* The blob of descriptor d, read whole and checked, parsed: *doc and its place in where. */
static int read_doc(struct sqk_oci_store *s, struct sqk_src_ctx *c, const char *where,
		    const struct sqk_jv *d, struct sqk_jdoc **doc, char *blob_where, size_t cap)
{
	struct sqk_oci_blob *b = NULL;
	char *data = NULL;
	size_t len;
	int err = desc_blob(s, c, where, d, &b);

	if (!err)
		err = sqk_oci_blob_slurp(b, c, MAX_DOC, &data, &len);
	if (!err) {
		snprintf(blob_where, cap, "%s", sqk_oci_blob_where(b));
		err = parse(c, blob_where, data, len, doc);
	}
	free(data);
	sqk_oci_blob_destroy(b);
	return err;
}

static int layers(struct sqk_src_ctx *c, const char *where, const struct sqk_jv *m,
		  struct sqk_oci_image *img)
{
	const struct sqk_jv *ls = sqk_json_get(m, "layers");
	size_t i, k;

	if (!ls || ls->type != SQK_JARR)
		return say(c, where, "a manifest without a \"layers\" array");
	img->layers = calloc(ls->n + 1, sizeof(*img->layers));
	if (!img->layers)
		return SQK_ERR_NOMEM;
	for (i = 0; i < ls->n; i++) {
		const struct sqk_jv *d = &ls->kids[i];
		const char *mt = sqk_json_str(d, "mediaType"), *digest = sqk_json_str(d, "digest");
		struct sqk_oci_layer_desc *l = &img->layers[img->n];

		for (k = 0; k < sizeof(layer_types) / sizeof(layer_types[0]); k++)
			if (mt && !strcmp(mt, layer_types[k].type))
				break;
		if (k == sizeof(layer_types) / sizeof(layer_types[0]))
			return say(c, where, "layer %zu has media type '%s', no tar layer", i + 1,
				   mt ? mt : "(none)");
		if (!digest || !sqk_oci_digest_valid(digest) ||
		    sqk_json_u64(sqk_json_get(d, "size"), &l->size))
			return say(c, where, "layer %zu has no sha256 or sha512 digest, or no size",
				   i + 1);
		snprintf(l->digest, sizeof(l->digest), "%s", digest);
		l->filter = layer_types[k].filter;
		img->n++;
	}
	return 0;
}

/* The layout's oci-layout file says it is one, of version 1. */
static int check_layout(struct sqk_oci_store *s, struct sqk_src_ctx *c)
{
	const char *path = sqk_oci_store_path(s), *v;
	struct sqk_jdoc *doc = NULL;
	char *data = NULL;
	size_t len;
	int err = sqk_oci_store_file(s, c, "oci-layout", MAX_DOC, &data, &len);

	if (err == SQK_ERR_NOENT)
		return say(c, path, "not an OCI image layout: it has no oci-layout file");
	if (!err)
		err = parse(c, path, data, len, &doc);
	if (!err) {
		v = sqk_json_str(sqk_json_root(doc), "imageLayoutVersion");
		if (!v || strncmp(v, "1.", 2))
			err = say(c, path, "its oci-layout file names no image layout version 1");
	}
	sqk_json_free(doc);
	free(data);
	return err;
}

int sqk_oci_image_find(struct sqk_oci_store *s, struct sqk_src_ctx *c, const char *ref,
		       const char *platform, struct sqk_oci_image *img)
{
	char native[64], where[4400], type[200];
	const char *path = sqk_oci_store_path(s);
	struct sqk_jdoc *doc = NULL, *next;
	const struct sqk_jv *d = NULL, *root;
	const char *mt;
	char *data = NULL;
	struct plat p;
	size_t len;
	int err, depth;

	memset(img, 0, sizeof(*img));
	if (!platform) {
		sqk_oci_platform_native(native, sizeof(native));
		platform = native;
	}
	if (parse_platform(platform, &p))
		return say(c, platform, "not a platform (os/arch[/variant])");
	p.given = platform != native;
	err = check_layout(s, c);
	if (!err) {
		err = sqk_oci_store_file(s, c, "index.json", MAX_DOC, &data, &len);
		if (err == SQK_ERR_NOENT)
			err = say(c, path, "not an OCI image layout: it has no index.json");
	}
	snprintf(where, sizeof(where), "%s/index.json", path);
	if (!err)
		err = parse(c, where, data, len, &doc);
	free(data);
	if (!err)
		err = choose(c, path, sqk_json_get(sqk_json_root(doc), "manifests"), ref, &p,
			     platform, &d);
	/* Down through indexes to the manifest: each read through its digest. */
	for (depth = 0; !err; depth++) {
		/* The descriptor's media type, kept: its document goes when the next is read. */
		mt = sqk_json_str(d, "mediaType");
		snprintf(type, sizeof(type), "%s", mt ? mt : "");
		mt = mt ? type : NULL;
		if (depth == MAX_DEPTH) {
			err = say(c, where, "indexes nested more than %d deep", MAX_DEPTH);
			break;
		}
		err = read_doc(s, c, where, d, &next, where, sizeof(where));
		if (err)
			break;
		sqk_json_free(doc);
		doc = next;
		root = sqk_json_root(doc);
		if (!mt)
			mt = sqk_json_str(root, "mediaType");
		if (one_of(mt, index_types) || (!mt && sqk_json_get(root, "manifests"))) {
			err = choose(c, where, sqk_json_get(root, "manifests"), NULL, &p, platform,
				     &d);
			continue;
		}
		if (one_of(mt, manifest_types) || (!mt && sqk_json_get(root, "layers")))
			err = layers(c, where, root, img);
		else
			err = say(c, where, "media type '%s', no image manifest or index", mt);
		break;
	}
	sqk_json_free(doc);
	if (err)
		sqk_oci_image_release(img);
	return err;
}

void sqk_oci_image_release(struct sqk_oci_image *img)
{
	free(img->layers);
	img->layers = NULL;
	img->n = 0;
}
