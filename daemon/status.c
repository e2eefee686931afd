// SPDX-License-Identifier: GPL-2.0
/*
 * The status file: what the running daemon last did and what each of its
 * hostnames resolved to and when, rewritten whole and renamed into place
 * after every load, apply and lookup, so that nfsfaird --status (another
 * process, with no channel to the daemon) never reads half of it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

void iso_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!t || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "never");
}

static void print_host(FILE *fp, const struct res_host *h)
{
	char addr[INET6_ADDRSTRLEN], when[32];
	size_t i;

	fprintf(fp, "host %s:", h->name);
	for (i = 0; i < h->nr_addrs; i++)
		fprintf(fp, " %s", inet_ntop(h->addrs[i].family, h->addrs[i].addr, addr,
					     sizeof(addr)) ?: "?");
	if (!h->nr_addrs)
		fprintf(fp, " no addresses");
	iso_time(h->ok ? h->resolved_at : 0, when, sizeof(when));
	fprintf(fp, "; resolved %s", when);
	if (h->error[0])
		fprintf(fp, "; last lookup failed: %s", h->error);
	fputc('\n', fp);
}

static void print_status(FILE *fp, const struct status *s, const struct resolver *r)
{
	char when[32];
	size_t i;

	iso_time(s->last_apply, when, sizeof(when));
	fprintf(fp, "pid %d\n", (int)getpid());
	fprintf(fp, "origin %u: %zu classes, %zu rules\n", s->origin, s->nr_classes, s->nr_rules);
	fprintf(fp, "last apply %s%s, generation %llu\n", when,
		!s->last_apply ? "" : s->changed ? " (changed)" : " (no change)",
		(unsigned long long)s->generation);
	fprintf(fp, "last error: %s\n", *s->error ? s->error : "none");
	if (*s->kept)
		fprintf(fp, "classes kept: %s\n", s->kept);
	if (*s->unsaved)
		fprintf(fp, "classes not saved: %s\n", s->unsaved);
	for (i = 0; i < r->nr_hosts; i++)
		print_host(fp, &r->hosts[i]);
}

/*
 * No room for a second copy: the old file's room takes the new text, so
 * that a full disk leaves the status current rather than stale (a reader
 * may then see part of each, which a stale file would not tell either).
 */
static int status_overwrite(const char *path, const struct status *s, const struct resolver *r)
{
	FILE *fp = fopen(path, "r+e");
	int ret = 0;

	if (!fp)
		return -errno;
	print_status(fp, s, r);
	if (fflush(fp) || ftruncate(fileno(fp), ftell(fp)))
		ret = -errno;
	if (fclose(fp) && !ret)
		ret = -errno;
	return ret;
}

int status_write(const char *path, const struct status *s, const struct resolver *r)
{
	char tmp[4096];
	FILE *fp;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fp = fopen(tmp, "we");
	if (!fp)
		return -errno;
	print_status(fp, s, r);
	if (fclose(fp))
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	if (ret == -ENOSPC || ret == -EDQUOT)
		ret = status_overwrite(path, s, r);
	return ret;
}

/* nfsfaird --status: the file, its pid line saying whether it still runs. */
int status_print(const char *path)
{
	char line[1024];
	FILE *fp;
	int pid;

	fp = fopen(path, "re");
	if (!fp) {
		fprintf(stderr, "nfsfaird: %s: %s (is nfsfaird running?)\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "pid %d", &pid) == 1) {
			printf("pid %d, %s\n", pid, kill(pid, 0) && errno == ESRCH ?
			       "not running: the status of its last run" : "running");
			continue;
		}
		fputs(line, stdout);
	}
	fclose(fp);
	return 0;
}
