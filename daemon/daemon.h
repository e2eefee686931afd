/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nfsfaird's phases after the configuration: resolving members, building
 * the table the configuration asks for, and applying it to the kernel.
 */
#ifndef NFSFAIRD_DAEMON_H
#define NFSFAIRD_DAEMON_H

#include <sys/stat.h>
#include <time.h>

#include "config.h"
#include "hash.h"

/* hosts.c: the names /etc/hosts lists */

struct hosts_file {
	char **names;			/* in lower case */
	size_t nr;
	struct hash_index index;	/* of names */
	struct stat st;			/* of the file read; zeroes: there was none */
	bool read;
};

bool hosts_has(struct hosts_file *hf, const char *name);
void hosts_free(struct hosts_file *hf);

/* resolve.c: hostnames to addresses, keeping the last good answer */

struct res_host {
	char *name;
	struct nfsfair_prefix *addrs;	/* /32 and /128, sorted */
	size_t nr_addrs;
	bool ok;			/* has ever resolved */
	time_t resolved_at;		/* last success */
	unsigned int ttl;		/* DNS records' shortest TTL; 0: none, or in /etc/hosts */
	unsigned int failures;		/* lookups failed in a row */
	time_t due;			/* CLOCK_MONOTONIC seconds of the next lookup */
	char error[NFSFAIR_ERR_LEN];	/* last failure, "" when the last try worked */
};

struct resolver {
	struct res_host *hosts;
	size_t nr_hosts;
	struct hash_index index;	/* of hosts, by name */
	unsigned int refresh;		/* most seconds between lookups of a name */
	struct hosts_file hosts_file;	/* names with no TTL to ask DNS for */
};

/*
 * nfsfaird's exit status when the kernel has no nfsfair family at start:
 * nfsfaird.service's RestartPreventExitStatus, so it is not retried.
 */
#define NFSFAIRD_EXIT_NO_FAMILY	3

/* Fewest seconds between lookups of a name, whatever its records' TTL. */
#define RES_MIN_INTERVAL	10

enum res_mode {
	RES_STRICT,	/* loading a configuration: a name that does not exist is an error */
	RES_REFRESH,	/* re-resolving: any failure keeps the last good answer */
};

void resolver_free(struct resolver *r);
int resolve_member(struct resolver *r, struct cfg *cfg, const struct cfg_member *m,
		   enum res_mode mode, const struct nfsfair_prefix **addrs, size_t *nr);
void resolver_counts(const struct resolver *r, size_t *ok, size_t *failing);
time_t resolver_due(const struct resolver *r);
time_t resolver_now(void);
void resolver_prune(struct resolver *r, const struct cfg *cfg);
time_t resolver_oldest(const struct resolver *r);

/* table.c: the state a configuration asks of the kernel */

struct want_class {
	char name[NFSFAIR_NAME_LEN + 1];
	uint32_t weight;
	uint32_t limit;
};

struct want {
	uint8_t origin;
	struct want_class *classes;
	size_t nr_classes;
	struct nfsfair_rule *rules;
	size_t nr_rules;
};

void want_free(struct want *w);
int want_build(struct want *w, struct cfg *cfg, struct resolver *r, enum res_mode mode);
void want_print(const struct want *w, FILE *fp);

/* owned.c: the classes nfsfaird created, remembered in a file */

struct owned {
	char (*names)[NFSFAIR_NAME_LEN + 1];
	size_t nr;
	bool dirty;		/* changed since loaded or saved */
};

void owned_free(struct owned *o);
bool owned_has(const struct owned *o, const char *name);
int owned_add(struct owned *o, const char *name);
void owned_del(struct owned *o, const char *name);
int owned_load(struct owned *o, const char *path);
int owned_save(struct owned *o, const char *path);

/* apply.c: one atomic replace, and only when something differs */

struct apply_result {
	bool changed;			/* a replace was sent and accepted */
	unsigned int deleted;		/* classes of ours the file dropped, deleted */
	uint64_t generation;		/* the table's, afterwards */
	char kept[512];			/* classes the file dropped but kept, and why */
	bool family;			/* the kernel has the nfsfair family: the socket opened */
	char err[NFSFAIR_ERR_LEN];
};

int apply_want(const struct want *w, struct owned *o, const char *kept,
	       struct apply_result *res);
void apply_kept(struct apply_result *res, const char *before, const char *name, const char *why);

/* status.c: the file behind nfsfaird --status */

struct status {
	uint8_t origin;
	size_t nr_classes, nr_rules;
	uint64_t generation;
	time_t last_apply;		/* 0: never */
	bool changed;			/* by the last apply */
	const char *error;		/* of the last load or apply, "" if none */
	const char *kept;		/* classes dropped from the file but kept */
	const char *unsaved;		/* why the classes it made are not saved, or "" */
};

void iso_time(time_t t, char *buf, size_t len);
int status_write(const char *path, const struct status *s, const struct resolver *r);
int status_print(const char *path);

/* metrics.c: the node exporter's textfile of the last load and apply */

struct metrics {
	const char *netns;		/* the namespace label: "" for our own */
	bool loaded;			/* the last load of the configuration worked */
	time_t last_apply;		/* of the last try; 0: none, its series are left out */
	bool success;			/* of that try */
	time_t last_success;		/* 0: none since the start */
	int family;			/* the kernel's nfsfair family: 1, 0 none, -1 not known yet */
};

int metrics_write(const char *path, const struct metrics *m);

/* check.c: nfsfaird --check's report, with the preview of live clients */

int check_report(const struct want *w, const char *config, bool json);

/* notify.c: the systemd notify protocol, without libsystemd */

void notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* NFSFAIRD_DAEMON_H */
