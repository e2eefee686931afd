/* SPDX-License-Identifier: GPL-2.0 */
/* nfsfair-ctl: the command table's types, and what the verbs share. */
#ifndef CTL_H
#define CTL_H

#include "../lib/nfsfair.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum ctl_opt {
	OPT_SOURCE	= 1 << 0,
	OPT_TARGET	= 1 << 1,
	OPT_ORIGIN	= 1 << 2,
	OPT_NUMERIC	= 1 << 3,
	OPT_VERBOSE	= 1 << 4,
	OPT_EXACT	= 1 << 5,
	OPT_LINE	= 1 << 6,
	OPT_JSON	= 1 << 7,
	OPT_WEIGHT	= 1 << 8,
	OPT_WAIT	= 1 << 9,
	OPT_COUNT	= 1 << 10,
	OPT_TEST	= 1 << 11,
	OPT_NOFLUSH	= 1 << 12,
	OPT_NETNS	= 1 << 13,
	OPT_OPENMETRICS	= 1 << 14,
	OPT_OUTPUT	= 1 << 15,
	OPT_LIMIT	= 1 << 16,
	OPT_POOLS	= 1 << 17,
	OPT_IDS_PER_HOST = 1 << 18,
};

/* Exit statuses */
#define CTL_OK		0
#define CTL_FAIL	1
#define CTL_USAGE	2
#define CTL_HELP	3	/* ctl_parse(): --help printed; main() exits 0 */

struct ctl;

struct ctl_cmd {
	char letter;		/* -A; 0 for a word verb */
	const char *name;	/* --append, or the word: "stats" */
	const char *synopsis;
	unsigned int required;
	unsigned int one_of;	/* at least one of these */
	unsigned int allowed;
	int args_min, args_max;	/* positional arguments */
	bool no_kernel;		/* runs without opening the netlink socket */
	bool class_arg;		/* its argument is a class name, checked by ctl_parse() */
	bool class_any;		/* an existing class's: any name a kernel took */
	int (*run)(struct ctl *c);
	const char *help;
};

struct ctl {
	const struct ctl_cmd *cmd;
	unsigned int opts;
	const char *source;
	const char *target_text;
	struct nfsfair_target target;
	uint32_t ids_per_host;	/* --ids-per-host, put in target once -j is known */
	uint8_t origin;
	uint32_t weight;
	uint32_t limit;
	unsigned int wait;
	unsigned int count;
	const char *netns;
	const char *output;	/* --output FILE */
	int argc;		/* positionals, after a word verb */
	char **argv;
	struct nfsfair_nl *nl;
};

/* nfsfair-ctl.c */
extern const char *ctl_prog;
const char *ctl_verb(const struct ctl *c);
int ctl_usage_error(const struct ctl *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ctl_nl(struct ctl *c);
int ctl_parse(struct ctl *c, int argc, char **argv);

/* common.c */
enum ctl_set { SET_RULE, SET_CLASS, SET_TABLE };
int ctl_kernel_error(struct ctl *c, int err, enum ctl_set set);
int ctl_resolve(const char *source, struct nfsfair_prefix **out, int *n, bool quiet);
int ctl_position(struct ctl *c, const char *s, uint32_t *pos);
bool ctl_net_admin(void);

struct ctl_rules {
	struct nfsfair_rule *v;
	int n;
};
int ctl_rules_dump(struct ctl *c, struct ctl_rules *rules);

struct ctl_classes {
	struct nfsfair_class *v;
	int n;
};
int ctl_classes_dump(struct ctl *c, struct ctl_classes *classes);
const struct nfsfair_class *ctl_class_find(const struct ctl_classes *cl, const char *name);
void ctl_print_limit(uint32_t limit, const char *fmt, const char *none_fmt);

/* restore-plan.c */
struct ctl_step {
	uint8_t origin;
	bool fill;		/* the file's rules of the origin; false: none */
};

/* Each origin is emptied at most once and filled at most once. */
#define CTL_STEPS_MAX	512
int ctl_restore_plan(const uint8_t *file, int nfile, const uint8_t *table, int ntable,
		     bool noflush, struct ctl_step *steps);

/* openmetrics.c */
struct ctl_metrics {
	const char *netns;			/* the namespace label: "" for our own */
	const struct nfsfair_class *classes;	/* with their pools, if read */
	int nclasses;
	const struct nfsfair_rule *rules;
	int nrules;
	const struct nfsfair_client *clients;	/* client-id clients only, with pools */
	int nclients;
};
void ctl_openmetrics_print(FILE *fp, const struct ctl_metrics *m);

/* stats-pools.c */
int ctl_pools_screen(const char *only, unsigned int wait, const struct nfsfair_client *now,
		     int nnow, const struct nfsfair_client *then, int nthen);

/* The verbs, by family */
int cmd_append(struct ctl *c);
int cmd_insert(struct ctl *c);
int cmd_replace(struct ctl *c);
int cmd_delete(struct ctl *c);
int cmd_check(struct ctl *c);
int cmd_flush(struct ctl *c);
int cmd_zero(struct ctl *c);
int cmd_list(struct ctl *c);
int cmd_list_rules(struct ctl *c);
int cmd_class_new(struct ctl *c);
int cmd_class_set(struct ctl *c);
int cmd_class_del(struct ctl *c);
int cmd_classes(struct ctl *c);
int cmd_stats(struct ctl *c);
int cmd_explain(struct ctl *c);
int cmd_monitor(struct ctl *c);
int cmd_save(struct ctl *c);
int cmd_restore(struct ctl *c);

#endif /* CTL_H */
