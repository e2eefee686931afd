// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics file: whether the last load of the configuration worked,
 * when the daemon last tried to apply it, whether that worked, when one
 * last did, and whether the kernel had the nfsfair family, for the node
 * exporter's textfile collector (and the alerts of
 * prometheus/nfsfair-rules.yml). Rewritten whole after every load and
 * every apply: a new file beside it (its name not ending in ".prom", which
 * the exporter would read), renamed over it, so the exporter reads the
 * old file or the new one, never part of one.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

/* NAME{namespace="NS"} VALUE, the namespace escaped as cli/openmetrics.c does. */
static void sample(FILE *fp, const char *name, const char *help, const char *ns,
		   long long value)
{
	const unsigned char *c;

	fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n%s{namespace=\"", name, help, name, name);
	for (c = (const unsigned char *)ns; *c; c++) {
		if (*c == '\\' || *c == '"')
			fprintf(fp, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", fp);
		else if (*c < 0x20 || *c >= 0x7f)
			fprintf(fp, "\\\\x%02x", *c);
		else
			fputc(*c, fp);
	}
	fprintf(fp, "\"} %lld\n", value);
}

static void print_metrics(FILE *fp, const struct metrics *m)
{
	sample(fp, "nfsfaird_config_load_success",
	       "Whether the last load of the configuration (at start or on SIGHUP) had no error: 0, the previous one stays in force, or at start nothing was applied.",
	       m->netns, m->loaded);
	if (m->last_apply) {
		sample(fp, "nfsfaird_last_apply_timestamp_seconds",
		       "When nfsfaird last tried to apply its table to the kernel, seconds since the epoch.",
		       m->netns, (long long)m->last_apply);
		sample(fp, "nfsfaird_last_apply_success",
		       "Whether that try worked (1) or not (0; it is tried again every 5 s).",
		       m->netns, m->success);
		sample(fp, "nfsfaird_last_success_timestamp_seconds",
		       "When an apply last worked since nfsfaird started, seconds since the epoch; 0: none yet.",
		       m->netns, (long long)m->last_success);
	}
	if (m->family >= 0)
		sample(fp, "nfsfaird_kernel_family",
		       "Whether the running kernel had the nfsfair netlink family at the last apply (0: a kernel without the series, such as one nfsfair-dkms has not built for).",
		       m->netns, m->family);
	fputs("# EOF\n", fp);
}

int metrics_write(const char *path, const struct metrics *m)
{
	FILE *fp = NULL;
	char *tmp;
	int fd, err = 0;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		free(tmp);
		return -err;
	}
	/* mkstemp's 0600 (and the unit's UMask) would hide it from the exporter's user */
	if (!fchmod(fd, 0644))
		fp = fdopen(fd, "w");
	if (!fp) {
		err = errno;
		close(fd);
	} else {
		errno = 0;
		print_metrics(fp, m);
		if (fflush(fp) || ferror(fp))
			err = errno ? errno : EIO;
		if (fclose(fp) && !err)
			err = errno;
	}
	if (!err && rename(tmp, path))
		err = errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return -err;
}
