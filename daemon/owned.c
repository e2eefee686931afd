// SPDX-License-Identifier: GPL-2.0
/*
 * The classes nfsfaird created: the kernel keeps no owner on a class, so
 * the daemon remembers which ones did not exist until its table-replace
 * made them, in a file that outlives the process as the kernel's table
 * does (one name a line, rewritten whole and renamed into place). Only
 * these are ever deleted when the file stops naming them; a class that
 * was there first, made by hand or by another origin, never is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

void owned_free(struct owned *o)
{
	free(o->names);
	memset(o, 0, sizeof(*o));
}

bool owned_has(const struct owned *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		if (!strcmp(o->names[i], name))
			return true;
	return false;
}

int owned_add(struct owned *o, const char *name)
{
	char (*v)[NFSFAIR_NAME_LEN + 1];

	if (owned_has(o, name))
		return 0;
	v = realloc(o->names, (o->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	o->names = v;
	snprintf(v[o->nr++], sizeof(*v), "%s", name);
	o->dirty = true;
	return 0;
}

void owned_del(struct owned *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nr; i++) {
		if (strcmp(o->names[i], name))
			continue;
		memmove(o->names[i], o->names[i + 1], (o->nr - i - 1) * sizeof(*o->names));
		o->nr--;
		o->dirty = true;
		return;
	}
}

/* A missing file is an empty set: nothing created yet, or since boot. */
int owned_load(struct owned *o, const char *path)
{
	char line[128], err[NFSFAIR_ERR_LEN];
	FILE *fp;
	int ret = 0;

	fp = fopen(path, "re");
	if (!fp)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (*line && !nfsfair_class_name_check(line, err))
			ret = owned_add(o, line);
	}
	fclose(fp);
	o->dirty = false;
	return ret;
}

int owned_save(struct owned *o, const char *path)
{
	char tmp[4096];
	FILE *fp;
	size_t i;
	int ret = 0;

	if (!o->dirty)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fp = fopen(tmp, "we");
	if (!fp)
		return -errno;
	for (i = 0; i < o->nr; i++)
		fprintf(fp, "%s\n", o->names[i]);
	if (fflush(fp) || fsync(fileno(fp)))
		ret = -errno;
	if (fclose(fp) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	else
		o->dirty = false;
	return ret;
}
