// SPDX-License-Identifier: GPL-2.0
/*
 * The names /etc/hosts lists. The C library finds such a name there
 * (files come first in nsswitch.conf) and it has no TTL: asking DNS for
 * one sent the name out, or waited on a resolver that does not answer,
 * for nothing. The file is read once, and again only when it changes: read
 * per name, 10,000 names would read it 10,000 times.
 */
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

void hosts_free(struct hosts_file *hf)
{
	size_t i;

	for (i = 0; i < hf->nr; i++)
		free(hf->names[i]);
	free(hf->names);
	hash_free(&hf->index);
	memset(hf, 0, sizeof(*hf));
}

static bool same_name(const void *key, size_t pos, const void *arg)
{
	const struct hosts_file *hf = arg;

	return !strcmp(key, hf->names[pos]);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The C library matches names in any case. */
static void lower(char *s)
{
	for (; *s; s++)
		*s = tolower((unsigned char)*s);
}

/* Every name of every line of @fp: what follows the address, to a '#'. */
static int hosts_read(struct hosts_file *hf, FILE *fp)
{
	static const char space[] = " \t\r\n";
	char *line = NULL, *save, *name;
	size_t cap = 0;
	uint64_t hash;
	int ret = 0;

	while (!ret && getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "#")] = '\0';
		if (!strtok_r(line, space, &save))
			continue;
		while ((name = strtok_r(NULL, space, &save))) {
			lower(name);
			hash = hash_bytes(name, strlen(name));
			if (hash_find(&hf->index, hash, name, same_name, hf) != SIZE_MAX)
				continue;
			if (array_grow(&hf->names, hf->nr, sizeof(*hf->names))) {
				ret = -ENOMEM;
				break;
			}
			hf->names[hf->nr] = strdup(name);
			if (!hf->names[hf->nr] || hash_add(&hf->index, hash, hf->nr)) {
				free(hf->names[hf->nr]);
				ret = -ENOMEM;
				break;
			}
			hf->nr++;
		}
	}
	free(line);
	return ret;
}

/**
 * hosts_has - whether /etc/hosts lists @name, read again if it changed
 * Return: true if it does; false if not, or if it cannot be read.
 */
bool hosts_has(struct hosts_file *hf, const char *name)
{
	char key[NI_MAXHOST];
	struct stat st;
	FILE *fp;

	if (stat(_PATH_HOSTS, &st))
		memset(&st, 0, sizeof(st));	/* no file: no names */
	if (!hf->read || !same_file(&st, &hf->st)) {
		hosts_free(hf);
		fp = fopen(_PATH_HOSTS, "re");
		if (fp && hosts_read(hf, fp))
			hosts_free(hf);		/* out of memory: DNS is asked, read again next */
		else
			hf->read = true;
		hf->st = st;
		if (fp)
			fclose(fp);
	}
	snprintf(key, sizeof(key), "%s", name);
	lower(key);
	return hash_find(&hf->index, hash_bytes(key, strlen(key)), key, same_name, hf) != SIZE_MAX;
}
