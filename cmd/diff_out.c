// SPDX-License-Identifier: GPL-2.0-or-later
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
#include <time.h>

#include "cmd.h"
#include "diff_cmd.h"
#include "format/fmt_type.h"
#include "format/format.h"
#include "read/inode.h"
#include "show.h"
#include "util/error.h"

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
static void put_pairs(const char *what, char sep, const struct sqk_diff_change *c)
{
	printf(": %s %llu%c%llu -> %llu%c%llu", what, (unsigned long long)c->a, sep,
	       (unsigned long long)c->a2, (unsigned long long)c->b, sep, (unsigned long long)c->b2);
}

static void text(const struct sqk_diff_change *c)
{
	static const char letter[] = {
		[SQK_DIFF_SUPER] = 'I',	 [SQK_DIFF_ADDED] = '+',  [SQK_DIFF_REMOVED] = '-',
		[SQK_DIFF_TYPE] = 'T',	 [SQK_DIFF_MODE] = 'M',	  [SQK_DIFF_OWNER] = 'O',
		[SQK_DIFF_MTIME] = 'D',	 [SQK_DIFF_SIZE] = 'S',	  [SQK_DIFF_CONTENTS] = 'C',
		[SQK_DIFF_TARGET] = 'L', [SQK_DIFF_DEVICE] = 'R', [SQK_DIFF_XATTR] = 'X',
		[SQK_DIFF_LINK] = 'H',
	};

	printf("%c ", letter[c->what]);
	if (c->what == SQK_DIFF_SUPER) {
		printf("superblock: %s ", c->name);
		if (c->sa)
			printf("%s -> %s\n", c->sa, c->sb);
		else if (c->flag)
			printf("%s -> %s\n", c->a ? "yes" : "no", c->b ? "yes" : "no");
		else
			printf("%llu -> %llu\n", (unsigned long long)c->a,
			       (unsigned long long)c->b);
		return;
	}
	cli_print_escaped(stdout, c->path);
	switch (c->what) {
	case SQK_DIFF_ADDED:
	case SQK_DIFF_REMOVED:
		break;
	case SQK_DIFF_TYPE:
		printf(": type %s -> %s", sqk_fmt_type_name((unsigned)c->a),
		       sqk_fmt_type_name((unsigned)c->b));
		break;
	case SQK_DIFF_MODE:
		printf(": mode %04llo -> %04llo", (unsigned long long)c->a,
		       (unsigned long long)c->b);
		break;
	case SQK_DIFF_OWNER:
		put_pairs("owner", ':', c);
		break;
	case SQK_DIFF_MTIME:
		fputs(": mtime ", stdout);
		put_time((int64_t)c->a);
		fputs(" -> ", stdout);
		put_time((int64_t)c->b);
		break;
	case SQK_DIFF_SIZE:
		printf(": size %llu -> %llu", (unsigned long long)c->a, (unsigned long long)c->b);
		break;
	case SQK_DIFF_CONTENTS:
		printf(": contents differ from byte %llu", (unsigned long long)c->offset);
		break;
	case SQK_DIFF_TARGET:
		fputs(": target ", stdout);
		cli_print_escaped_len(stdout, c->sa, c->la);
		fputs(" -> ", stdout);
		cli_print_escaped_len(stdout, c->sb, c->lb);
		break;
	case SQK_DIFF_DEVICE:
		put_pairs("device", ',', c);
		break;
	case SQK_DIFF_XATTR:
		fputs(": xattr ", stdout);
		cli_print_escaped(stdout, c->name);
		putchar(' ');
		put_value(c->sa, c->la);
		fputs(" -> ", stdout);
		put_value(c->sb, c->lb);
		break;
	case SQK_DIFF_LINK:
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
	[SQK_DIFF_SUPER] = "superblock",  [SQK_DIFF_ADDED] = "added",
	[SQK_DIFF_REMOVED] = "removed",	  [SQK_DIFF_TYPE] = "type",
	[SQK_DIFF_MODE] = "mode",	  [SQK_DIFF_OWNER] = "owner",
	[SQK_DIFF_MTIME] = "mtime",	  [SQK_DIFF_SIZE] = "size",
	[SQK_DIFF_CONTENTS] = "contents", [SQK_DIFF_TARGET] = "target",
	[SQK_DIFF_DEVICE] = "device",	  [SQK_DIFF_XATTR] = "xattr",
	[SQK_DIFF_LINK] = "link",
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

static void json_bytes(struct sqk_json *j, const char *key, const char *v, size_t len)
{
	sqk_json_key(j, key);
	if (v)
		sqk_json_bytes(j, v, len);
	else
		sqk_json_null(j);
}

static void json(struct sqk_json *j, const struct sqk_diff_change *c)
{
	sqk_json_begin_object(j, 0);
	if (c->path)
		sqk_json_key_string(j, "path", c->path);
	else
		sqk_json_key_null(j, "path");
	sqk_json_key_string(j, "change", json_what[c->what]);
	switch (c->what) {
	case SQK_DIFF_SUPER:
		sqk_json_key_string(j, "field", c->name);
		if (c->sa) {
			sqk_json_key_string(j, "a", c->sa);
			sqk_json_key_string(j, "b", c->sb);
		} else if (c->flag) {
			sqk_json_key_bool(j, "a", (int)c->a);
			sqk_json_key_bool(j, "b", (int)c->b);
		} else {
			sqk_json_key_uint(j, "a", c->a);
			sqk_json_key_uint(j, "b", c->b);
		}
		break;
	case SQK_DIFF_ADDED:
	case SQK_DIFF_REMOVED:
		sqk_json_key_string(j, "type", cli_json_type(c->type));
		if (c->type == SQK_FILE)
			sqk_json_key_uint(j, "size", c->size);
		break;
	case SQK_DIFF_TYPE:
		sqk_json_key_string(j, "a", cli_json_type((unsigned)c->a));
		sqk_json_key_string(j, "b", cli_json_type((unsigned)c->b));
		break;
	case SQK_DIFF_MTIME:
		sqk_json_key(j, "a");
		sqk_json_int(j, (int64_t)c->a);
		sqk_json_key(j, "b");
		sqk_json_int(j, (int64_t)c->b);
		break;
	case SQK_DIFF_MODE:
	case SQK_DIFF_SIZE:
		sqk_json_key_uint(j, "a", c->a);
		sqk_json_key_uint(j, "b", c->b);
		break;
	case SQK_DIFF_OWNER:
		json_pair(j, "a", "uid", c->a, "gid", c->a2);
		json_pair(j, "b", "uid", c->b, "gid", c->b2);
		break;
	case SQK_DIFF_DEVICE:
		json_pair(j, "a", "major", c->a, "minor", c->a2);
		json_pair(j, "b", "major", c->b, "minor", c->b2);
		break;
	case SQK_DIFF_CONTENTS:
		sqk_json_key_uint(j, "offset", c->offset);
		break;
	case SQK_DIFF_XATTR:
		sqk_json_key_string(j, "name", c->name);
		/* fall through */
	case SQK_DIFF_TARGET:
	case SQK_DIFF_LINK:
		json_bytes(j, "a", c->sa, c->la);
		json_bytes(j, "b", c->sb, c->lb);
		break;
	}
	sqk_json_end_object(j);
}

int cli_diff_out_change(struct sqk_diff_sink *s, const struct sqk_diff_change *c)
{
	struct diff_out *o = (struct diff_out *)s;

	o->differ = 1;
	if (o->quiet)
		return 1; /* one difference says it all */
	if (o->stat)
		return 0;
	if (o->json)
		json(&o->j, c);
	else
		text(c);
	/* A reader that went away: stop there, it is an error. */
	return ferror(stdout) ? SQK_ERR_IO : 0;
}

void cli_diff_out_begin(struct diff_out *o, const char *a, const char *b)
{
	o->sink.change = cli_diff_out_change;
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

static void summary_json(struct sqk_json *j, const struct sqk_diff_stats *st)
{
	sqk_json_key(j, "summary");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "added", st->added);
	sqk_json_key_uint(j, "removed", st->removed);
	sqk_json_key_uint(j, "changed", st->changed);
	sqk_json_key_uint(j, "bytes_added", st->bytes_added);
	sqk_json_key_uint(j, "bytes_removed", st->bytes_removed);
	sqk_json_key_uint(j, "bytes_changed", st->bytes_changed);
	sqk_json_key_uint(j, "files_compared", st->files);
	sqk_json_key_uint(j, "blocks_stored_alike", st->blocks_stored);
	sqk_json_key_uint(j, "bytes_read", st->bytes_read);
	sqk_json_end_object(j);
}

int cli_diff_out_end(struct diff_out *o, const struct sqk_diff_stats *st, const char *error)
{
	if (o->json) {
		if (!o->stat)
			sqk_json_end_array(&o->j);
		if (error)
			sqk_json_key_string(&o->j, "error", error);
		else
			sqk_json_key_bool(&o->j, "same", !o->differ);
		summary_json(&o->j, st);
		sqk_json_end_object(&o->j);
		return sqk_json_finish(&o->j);
	}
	if (o->stat && !o->quiet && !error) {
		printf("added: %llu (%llu bytes)\n", (unsigned long long)st->added,
		       (unsigned long long)st->bytes_added);
		printf("removed: %llu (%llu bytes)\n", (unsigned long long)st->removed,
		       (unsigned long long)st->bytes_removed);
		printf("changed: %llu (%llu bytes)\n", (unsigned long long)st->changed,
		       (unsigned long long)st->bytes_changed);
		printf("files compared: %llu (%llu blocks alike as stored, %llu bytes read)\n",
		       (unsigned long long)st->files, (unsigned long long)st->blocks_stored,
		       (unsigned long long)st->bytes_read);
	}
	return 0;
}
