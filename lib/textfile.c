// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics files for the node exporter's textfile collector, written by
 * nfsfair-ctl (stats --openmetrics --output) and by nfsfaird: the same
 * escaping of label values, and the same atomic replace.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfsfair.h"

/*
 * \, " and newline escaped as the format says; other control bytes and
 * bytes past ASCII read \xNN, its backslash escaped, so a name in any
 * encoding leaves the file valid UTF-8, which the readers insist on for
 * the whole file.
 */
void nfsfair_om_label_value(FILE *fp, const char *val)
{
	const unsigned char *c;

	for (c = (const unsigned char *)val; *c; c++) {
		if (*c == '\\' || *c == '"')
			fprintf(fp, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", fp);
		else if (*c < 0x20 || *c >= 0x7f)
			fprintf(fp, "\\\\x%02x", *c);
		else
			fputc(*c, fp);
	}
}

/*
 * Written beside @path under a temporary name, then renamed over it, so a
 * reader (the node exporter) sees the old file or the new one, never half.
 * The temporary name does not end in ".prom", which the exporter's glob
 * would take. No fsync: the next run rewrites the file within seconds.
 */
int nfsfair_textfile_write(const char *path, void (*print)(FILE *fp, const void *arg),
			   const void *arg)
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
	/* mkstemp's 0600 (and a unit's UMask) would hide it from the exporter's user */
	if (!fchmod(fd, 0644))
		fp = fdopen(fd, "w");
	if (!fp) {
		err = errno;
		close(fd);
	} else {
		errno = 0;
		print(fp, arg);
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
