/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nfsfaird's configuration: YAML files turned into classes and members,
 * every item keeping where it came from so that later phases (resolving,
 * building the table) still report errors as FILE:LINE:COLUMN.
 */
#ifndef NFSFAIRD_CONFIG_H
#define NFSFAIRD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/nfsfair.h"
#include "hash.h"

#define CFG_ORIGIN_DEFAULT	10
/* Read no file bigger: libyaml holds a whole document, some 35 times its size. */
#define CFG_FILE_MAX		(4 << 20)
/* Members in all files: each is one rule or more in the kernel's table. */
#define CFG_MEMBERS_MAX		NFSFAIR_MAX_RULES

struct cfg_mark {
	const char *file;	/* owned by struct cfg */
	unsigned int line;	/* 1-based */
	unsigned int column;	/* 1-based */
};

struct cfg_member {
	char *text;		/* hostname, address or prefix */
	int per_host;		/* -1: the class's target; else per-host/N */
	bool per_client;	/* with per_host: per-client/N instead */
	uint32_t ids_per_host;	/* 0: the class's, or the default */
	struct cfg_mark ids_mark;	/* of ids-per-host, when given */
	struct cfg_mark mark;
};

struct cfg_class {
	char name[NFSFAIR_NAME_LEN + 1];
	bool defines;		/* "name:" defines it; "add-to:" extends one */
	uint32_t weight;
	uint32_t limit;		/* most nfsd threads at once; 0: none */
	int per_host;		/* -1: a real class; else members are per-host/N */
	bool per_client;	/* with per_host: members are per-client/N */
	uint32_t ids_per_host;	/* with per_client: for its members; 0: the default */
	struct cfg_member *members;
	size_t nr_members;
	struct cfg_mark mark;
};

struct cfg {
	uint8_t origin;
	struct cfg_mark origin_mark;
	struct cfg_class *classes;
	size_t nr_classes;
	struct hash_index class_index;	/* of the classes that define, by name */
	size_t nr_kernel_classes;	/* defined and not per-host: the kernel's classes */
	size_t nr_members;	/* in all files */
	char **files;		/* every file read, for the marks */
	size_t nr_files;
	unsigned int errors;
	FILE *err;		/* where errors go; NULL: stderr */
};

void cfg_init(struct cfg *cfg, FILE *err);
void cfg_free(struct cfg *cfg);
int cfg_load_file(struct cfg *cfg, const char *path);
int cfg_load_buffer(struct cfg *cfg, const char *name, const unsigned char *data, size_t len);
int cfg_load_dir(struct cfg *cfg, const char *main_file, const char *dropin_dir);
int cfg_check(struct cfg *cfg);
void cfg_error(struct cfg *cfg, const struct cfg_mark *mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const struct cfg_class *cfg_class_find(const struct cfg *cfg, const char *name);
const char *cfg_per_word(bool per_client);

#endif /* NFSFAIRD_CONFIG_H */
