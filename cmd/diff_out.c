// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit diff's output: a line per change, or an object per change in
 * the JSON document, and the summary. One letter starts each line, so that
 * grep and awk can pick the kinds of change:
 *
 *   + PATH                          only in B
 *   - PATH                          only in A
 *   T PATH: type A -> B             the rest of the two is not compared
 *   M PATH: mode 0644 -> 0600
 *   O PATH: owner UID:GID -> UID:GID
 *   D PATH: mtime A -> B            (--times)
 *   S PATH: size A -> B
 *   C PATH: contents differ from byte N
 *   L PATH: target A -> B           symlinks
 *   R PATH: device MAJ,MIN -> MAJ,MIN
 *   X PATH: xattr NAME A -> B       a value, "none", or its size when long
 *   H PATH: hard link A -> B        the path it is linked with, or "none"
 *   I superblock: FIELD A -> B      (--super)
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd.h"
#include "diff_cmd.h"
#include "show.h"

/* Xattr values longer than this are shown by their size. */
#define VALUE_SHOWN 64

static void put_time(int64_t t)
{
	char buf[32];
	struct tm tm;
	time_t tt = (time_t)t;

	if (gmtime_r(&tt, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		fputs(buf, stdout);
	else
		printf("%lld", (long long)t);
}

static void put_value(const char *v, size_t len)
{
	if (!v) {
		fputs("none", stdout);
	} else if (len > VALUE_SHOWN) {
		printf("<%zu bytes>", len);
	} else {
		putchar('"');
		cli_print_escaped_len(stdout, v, len);
		putchar('"');
	}
}

static void put_link(const char *with)
{
	if (with)
		cli_print_escaped(stdout, with);
	else
		fputs("none", stdout);
}

/* ": WHAT A<sep>A2 -> B<sep>B2": owners, device numbers. */
static void put_pairs(const char *what, char sep, const struct sqk_change *c)
{
	printf(": %s %llu%c%llu -> %llu%c%llu", what, (unsigned long long)c->a, sep,
	       (unsigned long long)c->a2, (unsigned long long)c->b, sep, (unsigned long long)c->b2);
}

static void text(const struct sqk_diff_entry *e)
{
	static const char letter[] = {
		[SQK_CHANGE_SUPER] = 'I',  [SQK_CHANGE_ADDED] = '+',  [SQK_CHANGE_REMOVED] = '-',
		[SQK_CHANGE_TYPE] = 'T',   [SQK_CHANGE_MODE] = 'M',   [SQK_CHANGE_OWNER] = 'O',
		[SQK_CHANGE_MTIME] = 'D',  [SQK_CHANGE_SIZE] = 'S',   [SQK_CHANGE_CONTENTS] = 'C',
		[SQK_CHANGE_TARGET] = 'L', [SQK_CHANGE_DEVICE] = 'R', [SQK_CHANGE_XATTR] = 'X',
		[SQK_CHANGE_LINK] = 'H',
	};
	const struct sqk_change *c = e->change;

	printf("%c ", letter[c->kind]);
	if (c->kind == SQK_CHANGE_SUPER) {
		printf("superblock: %s ", c->name);
		if (c->sa)
			printf("%s -> %s\n", c->sa, c->sb);
		else if (e->flag)
			printf("%s -> %s\n", c->a ? "yes" : "no", c->b ? "yes" : "no");
		else
			printf("%llu -> %llu\n", (unsigned long long)c->a,
			       (unsigned long long)c->b);
		return;
	}
	cli_print_escaped(stdout, c->path);
	switch (c->kind) {
	case SQK_CHANGE_ADDED:
	case SQK_CHANGE_REMOVED:
		break;
	case SQK_CHANGE_TYPE:
		printf(": type %s -> %s", sqk_type_name((mode_t)c->a), sqk_type_name((mode_t)c->b));
		break;
	case SQK_CHANGE_MODE:
		printf(": mode %04llo -> %04llo", (unsigned long long)c->a,
		       (unsigned long long)c->b);
		break;
	case SQK_CHANGE_OWNER:
		put_pairs("owner", ':', c);
		break;
	case SQK_CHANGE_MTIME:
		fputs(": mtime ", stdout);
		put_time((int64_t)c->a);
		fputs(" -> ", stdout);
		put_time((int64_t)c->b);
		break;
	case SQK_CHANGE_SIZE:
		printf(": size %llu -> %llu", (unsigned long long)c->a, (unsigned long long)c->b);
		break;
	case SQK_CHANGE_CONTENTS:
		printf(": contents differ from byte %llu", (unsigned long long)c->offset);
		break;
	case SQK_CHANGE_TARGET:
		fputs(": target ", stdout);
		cli_print_escaped_len(stdout, c->sa, c->la);
		fputs(" -> ", stdout);
		cli_print_escaped_len(stdout, c->sb, c->lb);
		break;
	case SQK_CHANGE_DEVICE:
		put_pairs("device", ',', c);
		break;
	case SQK_CHANGE_XATTR:
		fputs(": xattr ", stdout);
		cli_print_escaped(stdout, c->name);
		putchar(' ');
		put_value(c->sa, c->la);
		fputs(" -> ", stdout);
		put_value(c->sb, c->lb);
		break;
	case SQK_CHANGE_LINK:
		fputs(": hard link ", stdout);
		put_link(c->sa);
		fputs(" -> ", stdout);
		put_link(c->sb);
		break;
	default:
		break;
	}
	putchar('\n');
}

static const char *const json_what[] = {
	[SQK_CHANGE_SUPER] = "superblock",  [SQK_CHANGE_ADDED] = "added",
	[SQK_CHANGE_REMOVED] = "removed",   [SQK_CHANGE_TYPE] = "type",
	[SQK_CHANGE_MODE] = "mode",	    [SQK_CHANGE_OWNER] = "owner",
	[SQK_CHANGE_MTIME] = "mtime",	    [SQK_CHANGE_SIZE] = "size",
	[SQK_CHANGE_CONTENTS] = "contents", [SQK_CHANGE_TARGET] = "target",
	[SQK_CHANGE_DEVICE] = "device",	    [SQK_CHANGE_XATTR] = "xattr",
	[SQK_CHANGE_LINK] = "link",
};

/* "key": {"k1": v1, "k2": v2} */
static void json_pair(struct sqk_json *j, const char *key, const char *k1, uint64_t v1,
		      const char *k2, uint64_t v2)
{
	sqk_json_key(j, key);
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, k1, v1);
	sqk_json_key_uint(j, k2, v2);
	sqk_json_end_object(j);
}

/* A symlink target or a hard link's path as a string, an xattr value as a blob. */
static void json_bytes(struct sqk_json *j, const char *key, const char *v, size_t len, int blob)
{
	sqk_json_key(j, key);
	if (!v)
		sqk_json_null(j);
	else if (blob)
		sqk_json_blob(j, v, len);
	else
		sqk_json_bytes(j, v, len);
}

static void json(struct sqk_json *j, const struct sqk_diff_entry *e)
{
	const struct sqk_change *c = e->change;

	sqk_json_begin_object(j, 0);
	if (c->path)
		sqk_json_key_string(j, "path", c->path);
	else
		sqk_json_key_null(j, "path");
	sqk_json_key_string(j, "change", json_what[c->kind]);
	switch (c->kind) {
	case SQK_CHANGE_SUPER:
		sqk_json_key_string(j, "field", c->name);
		if (c->sa) {
			sqk_json_key_string(j, "a", c->sa);
			sqk_json_key_string(j, "b", c->sb);
		} else if (e->flag) {
			sqk_json_key_bool(j, "a", (int)c->a);
			sqk_json_key_bool(j, "b", (int)c->b);
		} else {
			sqk_json_key_uint(j, "a", c->a);
			sqk_json_key_uint(j, "b", c->b);
		}
		break;
	case SQK_CHANGE_ADDED:
	case SQK_CHANGE_REMOVED:
		sqk_json_key_string(j, "type", sqk_type_key(e->type));
		if (S_ISREG(e->type))
			sqk_json_key_uint(j, "size", c->size);
		break;
	case SQK_CHANGE_TYPE:
		sqk_json_key_string(j, "a", sqk_type_key((mode_t)c->a));
		sqk_json_key_string(j, "b", sqk_type_key((mode_t)c->b));
		break;
	case SQK_CHANGE_MTIME:
		sqk_json_key(j, "a");
		sqk_json_int(j, (int64_t)c->a);
		sqk_json_key(j, "b");
		sqk_json_int(j, (int64_t)c->b);
		break;
	case SQK_CHANGE_MODE:
	case SQK_CHANGE_SIZE:
		sqk_json_key_uint(j, "a", c->a);
		sqk_json_key_uint(j, "b", c->b);
		break;
	case SQK_CHANGE_OWNER:
		json_pair(j, "a", "uid", c->a, "gid", c->a2);
		json_pair(j, "b", "uid", c->b, "gid", c->b2);
		break;
	case SQK_CHANGE_DEVICE:
		json_pair(j, "a", "major", c->a, "minor", c->a2);
		json_pair(j, "b", "major", c->b, "minor", c->b2);
		break;
	case SQK_CHANGE_CONTENTS:
		sqk_json_key_uint(j, "offset", c->offset);
		break;
	case SQK_CHANGE_XATTR:
		sqk_json_key_string(j, "name", c->name);
		/* fall through */
	case SQK_CHANGE_TARGET:
	case SQK_CHANGE_LINK:
		json_bytes(j, "a", c->sa, c->la, c->kind == SQK_CHANGE_XATTR);
		json_bytes(j, "b", c->sb, c->lb, c->kind == SQK_CHANGE_XATTR);
		break;
	}
	sqk_json_end_object(j);
}

int cli_diff_out_change(void *ctx, const struct sqk_diff_entry *e)
{
	struct diff_out *o = ctx;

	o->differ = 1;
	if (o->quiet)
		return 1; /* one difference says it all */
	if (o->stat)
		return 0;
	if (o->json)
		json(&o->j, e);
	else
		text(e);
	/* A reader that went away: stop there, it is an error. */
	return ferror(stdout) ? SQK_ERR_IO : 0;
}

void cli_diff_out_begin(struct diff_out *o, const char *a, const char *b)
{
	if (o->quiet)
		o->json = o->stat = 0;
	if (!o->json)
		return;
	sqk_json_init_file(&o->j, stdout);
	sqk_json_begin_object(&o->j, 0);
	sqk_json_key_string(&o->j, "a", a);
	sqk_json_key_string(&o->j, "b", b);
	if (o->stat)
		return;
	sqk_json_key(&o->j, "differences");
	sqk_json_begin_array(&o->j, SQK_JSON_LINES);
}

/* A count of the comparison by name (one of sqk_diff_count_names()). */
static unsigned long long count(const struct sqk_diff *d, const char *name)
{
	uint64_t v = 0;

	sqk_diff_count(d, name, &v);
	return (unsigned long long)v;
}

static void summary_json(struct sqk_json *j, const struct sqk_diff *d)
{
	const char *const *name;

	sqk_json_key(j, "summary");
	sqk_json_begin_object(j, 0);
	for (name = sqk_diff_count_names(); *name; name++)
		sqk_json_key_uint(j, *name, count(d, *name));
	sqk_json_end_object(j);
}

int cli_diff_out_end(struct diff_out *o, const struct sqk_diff *d, const char *error)
{
	if (o->json) {
		if (!o->stat)
			sqk_json_end_array(&o->j);
		if (error)
			sqk_json_key_string(&o->j, "error", error);
		else
			sqk_json_key_bool(&o->j, "same", !o->differ);
		summary_json(&o->j, d);
		sqk_json_end_object(&o->j);
		return sqk_json_finish(&o->j);
	}
	if (o->stat && !o->quiet && !error) {
		printf("added: %llu (%llu bytes)\n", count(d, "added"), count(d, "bytes_added"));
		printf("removed: %llu (%llu bytes)\n", count(d, "removed"),
		       count(d, "bytes_removed"));
		printf("changed: %llu (%llu bytes)\n", count(d, "changed"),
		       count(d, "bytes_changed"));
		printf("files compared: %llu (%llu blocks alike as stored, %llu bytes read)\n",
		       count(d, "files_compared"), count(d, "blocks_stored_alike"),
		       count(d, "bytes_read"));
	}
	return 0;
}
