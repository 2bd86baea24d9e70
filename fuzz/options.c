// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: the option parsing of every command. The input is split
 * into arguments (one per line), and each command runs with them. Nothing
 * can reach outside a private scratch directory, which is emptied before
 * every command:
 *   - '/' in an argument becomes '_' and ".." becomes "__", so every path
 *     names something in the scratch directory;
 *   - "--" and a name that does not exist end every argument list, so a
 *     command that wants an image finds none (bench does not build its
 *     default image; nothing reads a real image);
 *   - stdin is /dev/null, stdout and stderr go to /dev/null during the
 *     call (sanitizer reports go to the real stderr);
 *   - exit() inside a command returns here instead of ending the fuzzer;
 *   - no program is ever started: posix_spawn fails (mkimage --pseudo
 *     would run an f definition's command, and date for a date string).
 */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <sanitizer/common_interface_defs.h>
#include <errno.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "walk/extract.h"

#define MAX_ARGS    48
#define MAX_ARG_LEN 256

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{"mkimage", cli_mkimage}, {"unimage", cli_unimage}, {"inspect", cli_inspect},
	{"ls", cli_ls},		  {"cat", cli_cat},	    {"stat", cli_stat},
	{"fsck", cli_fsck},	  {"bench", cli_bench},
};

static jmp_buf back;
static int in_command;
static int null_fd, out_fd, err_fd;
static char scratch[64];

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));

/* Linked with --wrap=exit: a command's exit() comes back to the harness. */
void __wrap_exit(int status)
{
	if (in_command)
		longjmp(back, 1);
	__real_exit(status);
}

/* Linked with --wrap=posix_spawn and --wrap=posix_spawnp: the input runs nothing. */
int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return EPERM;
}

int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return EPERM;
}

static void empty_scratch(void)
{
	DIR *d = opendir(".");
	struct dirent *e;

	if (!d)
		abort();
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			sqk_remove_tree(AT_FDCWD, e->d_name);
	}
	closedir(d);
}

static void cleanup(void)
{
	if (chdir(scratch) == 0) {
		empty_scratch();
		if (chdir("/") == 0)
			rmdir(scratch);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(scratch, sizeof(scratch), "%s", "/tmp/sqk-fuzz-options.XXXXXX");
	if (!mkdtemp(scratch) || chdir(scratch) != 0)
		abort();
	atexit(cleanup);
	null_fd = open("/dev/null", O_RDWR);
	out_fd = dup(1);
	err_fd = dup(2);
	if (null_fd < 0 || out_fd < 0 || err_fd < 0 || dup2(null_fd, 0) < 0)
		abort();
	__sanitizer_set_report_fd((void *)(intptr_t)err_fd);
	return 0;
}

/* Split on newlines and NULs; make every argument harmless as a path. */
static int split(const uint8_t *data, size_t size, char **args)
{
	size_t i = 0;
	int n = 0;

	while (i <= size && n < MAX_ARGS) {
		size_t j = i, len, k;
		char *a;

		while (j < size && data[j] != '\n' && data[j] != '\0')
			j++;
		len = j - i < MAX_ARG_LEN ? j - i : MAX_ARG_LEN;
		a = malloc(len + 1);
		if (!a)
			break;
		memcpy(a, data + i, len);
		a[len] = '\0';
		for (k = 0; k < len; k++) {
			if (a[k] == '/')
				a[k] = '_';
			if (k + 1 < len && a[k] == '.' && a[k + 1] == '.')
				a[k] = a[k + 1] = '_';
		}
		args[n++] = a;
		i = j + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *args[MAX_ARGS], *argv[MAX_ARGS + 4];
	int n = split(data, size, args), c, i;
	char dashes[3], image[32];

	for (c = 0; c < (int)(sizeof(commands) / sizeof(commands[0])); c++) {
		volatile int argc = 0;

		empty_scratch();
		char name[16];

		snprintf(name, sizeof(name), "%s", commands[c].name);
		argv[argc++] = name;
		for (i = 0; i < n; i++)
			argv[argc++] = args[i];
		/* Fresh copies: a command may write into its arguments. */
		strcpy(dashes, "--");
		strcpy(image, "sqk-fuzz-nonexistent.img");
		argv[argc++] = dashes;
		argv[argc++] = image;
		argv[argc] = NULL;

		fflush(stdout);
		fflush(stderr);
		dup2(null_fd, 1);
		dup2(null_fd, 2);
		optind = 0; /* GNU getopt: start afresh */
		cli_cmd_name = commands[c].name;
		in_command = 1;
		if (setjmp(back) == 0)
			commands[c].run(argc, argv);
		in_command = 0;
		fflush(stdout);
		fflush(stderr);
		clearerr(stdout);
		dup2(out_fd, 1);
		dup2(err_fd, 2);
	}
	for (i = 0; i < n; i++)
		free(args[i]);
	return 0;
}
