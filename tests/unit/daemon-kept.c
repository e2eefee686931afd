// SPDX-License-Identifier: GPL-2.0
/*
 * apply_kept(), natively, as TAP: a class the configuration dropped but a
 * rule of another origin still names is kept at every apply (every
 * refresh, every retry); the log says so once per change, not each time.
 * The kernel's table, which the daemon reads to find such classes, needs
 * the nfsfair kernel: tests/integration/nfsfaird.sh covers that part.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../daemon/daemon.h"

static int count, failures;
static int log_fd;	/* the file behind stderr, read back */
static off_t log_pos;

static void ok(int cond, const char *desc)
{
	count++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", count, desc);
	if (!cond)
		failures++;
}

/* What was logged since the last call. */
static const char *said(void)
{
	static char buf[16384];
	ssize_t n = pread(log_fd, buf, sizeof(buf) - 1, log_pos);

	n = n < 0 ? 0 : n;
	buf[n] = '\0';
	log_pos += n;
	return buf;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	static const char origin0[] = "a rule of origin 0 names it";
	static const char origin5[] = "a rule of origin 5 names it";
	struct apply_result first = {}, again = {}, more = {}, why = {}, gone = {}, other = {};
	struct apply_result full = {}, full_again = {};
	FILE *log = tmpfile();
	char name[16];
	const char *s;
	int i;

	if (!log || dup2(fileno(log), STDERR_FILENO) < 0) {
		perror("tmpfile");
		return 1;
	}
	log_fd = fileno(log);

	apply_kept(&first, "", "d", origin0);
	s = said();
	ok(lines(s) == 1 && strstr(s, "class d is no longer in the configuration, keeping it: "
				     "a rule of origin 0 names it"),
	   "first apply: d kept, said");
	ok(!strcmp(first.kept, "d (a rule of origin 0 names it)"),
	   "first apply: the status lists d");

	apply_kept(&again, first.kept, "d", origin0);
	ok(!*said(), "next apply, same reason: nothing said");
	ok(!strcmp(again.kept, first.kept), "next apply: the status still lists d");

	apply_kept(&more, again.kept, "d", origin0);
	apply_kept(&more, again.kept, "e", origin0);
	s = said();
	ok(lines(s) == 1 && strstr(s, "class e is"), "e kept too: e said, d not");

	apply_kept(&why, more.kept, "d", origin5);
	apply_kept(&why, more.kept, "e", origin0);
	s = said();
	ok(lines(s) == 1 && strstr(s, "class d is") && strstr(s, "origin 5"),
	   "d kept for another reason: said again, e not");

	apply_kept(&gone, "", "d", origin5);
	ok(lines(said()) == 1, "d kept again after an apply that kept nothing: said");

	apply_kept(&other, "ad (a rule of origin 0 names it), d (x)", "d", origin0);
	ok(lines(said()) == 1, "another class whose name ends the same: d said");

	/* 40 classes for a long reason: more than the list holds. */
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		apply_kept(&full, "", name, "kernel reports: Device or resource busy");
	}
	ok(lines(said()) == 40 && strlen(full.kept) == sizeof(full.kept) - 1,
	   "40 kept, past the status's room: all said");
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		apply_kept(&full_again, full.kept, name, "kernel reports: Device or resource busy");
	}
	ok(!*said(), "the same 40 at the next apply: nothing said");

	printf("1..%d\n", count);
	return failures ? 1 : 0;
}
