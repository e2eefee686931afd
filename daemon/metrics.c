// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics file: whether the last load of the configuration worked,
 * when the daemon last tried to apply it, whether that worked, when one
 * last did, and whether the kernel had the nfsfair family, for the node
 * exporter's textfile collector (and the alerts of
 * prometheus/nfsfair-rules.yml). Rewritten whole after every load and
 * every apply, never half (nfsfair_textfile_write()).
 */
#include <stdio.h>

#include "daemon.h"

/* NAME{namespace="NS"} VALUE, the namespace escaped as nfsfair-ctl does. */
static void sample(FILE *fp, const char *name, const char *help, const char *ns,
		   long long value)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n%s{namespace=\"", name, help, name, name);
	nfsfair_om_label_value(fp, ns);
	fprintf(fp, "\"} %lld\n", value);
}

static void print_metrics(FILE *fp, const void *arg)
{
	const struct metrics *m = arg;

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
	return nfsfair_textfile_write(path, print_metrics, m);
}
