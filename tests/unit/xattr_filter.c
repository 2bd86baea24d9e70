// SPDX-License-Identifier: BSD-2-Clause
/* The xattr name filter and the values of --xattrs-add in each encoding. */
#include "tap.h"
#include "util/error.h"
#include "util/xattr_filter.h"

static void value_is(const char *arg, const char *want, size_t want_len)
{
	struct sqk_xattr_add a;
	const char *why = NULL;
	int err = sqk_xattr_add_parse(arg, &a, &why);

	if (!ok(err == 0, "'%s' parses", arg)) {
		printf("#   %s\n", why ? why : "?");
		return;
	}
	ok(a.value_len == want_len && memcmp(a.value, want, want_len) == 0,
	   "'%s' gives its %zu bytes", arg, want_len);
	sqk_xattr_add_release(&a);
}

static void refused(const char *arg)
{
	struct sqk_xattr_add a;
	const char *why = NULL;

	is_int(sqk_xattr_add_parse(arg, &a, &why), SQK_ERR_ARG, "'%s' is refused", arg);
	ok(why && *why, "and says why (%s)", why ? why : "nothing");
}

int main(void)
{
	struct sqk_xattr_filter f = {0};
	char why[128];
	struct sqk_xattr_add a;
	const char *w;

	/* Worked by hand: "hi!" is 68 69 21, base64 aGkh; "h" is aA==, "hi" aGk=. */
	value_is("user.a=hi!", "hi!", 3);
	value_is("user.a=0saGkh", "hi!", 3);
	value_is("user.a=0SaGk=", "hi", 2);
	value_is("user.a=0saGk", "hi", 2);
	value_is("user.a=0saA==", "h", 1);
	value_is("user.a=0saA", "h", 1);
	value_is("user.a=0x68692100", "hi!\0", 4);
	value_is("user.a=0XfF", "\xff", 1);
	value_is("user.a=0t\\150i\\041", "hi!", 3);
	value_is("user.a=0t\\377\\000", "\xff\0", 2);
	value_is("user.a=0bhi", "hi", 2);
	value_is("user.a=0B0s", "0s", 2);
	value_is("user.a=0", "0", 1);
	value_is("user.a=0z", "0z", 2);
	value_is("trusted.x=a=b", "a=b", 3);
	value_is("security.selinux=x", "x", 1);
	refused("user.a=0saGk=="); /* padding where none is due */
	refused("user.a=0saB");	   /* bits left over that an encoder leaves zero */
	refused("user.a=0sa");	   /* one character is never whole bytes */
	refused("user.a=0saG=k");  /* padding inside */
	refused("user.a=0x6");
	refused("user.a=0xg0");
	refused("user.a=0t\\8");
	refused("user.a=0t\\400");
	refused("user.a=0t\\1");
	refused("user.a=0x");
	refused("user.a=0t");
	refused("user.a");
	refused("user.=a");
	refused("user=a");
	refused("system.posix_acl_access=a");
	refused("user.a=");
	ok(sqk_xattr_add_parse("user.name=value", &a, &w) == 0 && strcmp(a.name, "user.name") == 0,
	   "the name stops at the first '='");
	sqk_xattr_add_release(&a);

	ok(sqk_xattr_filter_pass(NULL, "user.a"), "no filter passes everything");
	is_int(sqk_xattr_filter_set(&f, 0, "^user\\.", why, sizeof(why)), 0, "include compiles");
	ok(sqk_xattr_filter_pass(&f, "user.a") && !sqk_xattr_filter_pass(&f, "trusted.user.a"),
	   "include: anchored match only");
	is_int(sqk_xattr_filter_set(&f, 1, "a$", why, sizeof(why)), 0, "exclude compiles");
	ok(!sqk_xattr_filter_pass(&f, "user.a") && sqk_xattr_filter_pass(&f, "user.b") &&
		   !sqk_xattr_filter_pass(&f, "security.b"),
	   "include, then exclude");
	is_int(sqk_xattr_filter_set(&f, 0, "b", why, sizeof(why)), 0, "a second include");
	ok(sqk_xattr_filter_pass(&f, "security.b") && !sqk_xattr_filter_pass(&f, "user.c"),
	   "replaces the first");
	is_int(sqk_xattr_filter_set(&f, 1, "(", why, sizeof(why)), SQK_ERR_ARG,
	       "a bad pattern is refused");
	ok(*why, "with regcomp's reason (%s)", why);
	ok(!sqk_xattr_filter_pass(&f, "user.a"), "and the exclude pattern before it stays");
	sqk_xattr_filter_release(&f);
	return tap_done();
}
