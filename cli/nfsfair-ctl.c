// SPDX-License-Identifier: GPL-2.0
/*
 * nfsfair-ctl: iptables' grammar over the nfsfair table. One row per verb
 * in ctl_cmds[]; the options each verb needs and takes are checked here,
 * in one place, before anything talks to the kernel.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

const char *ctl_prog = "nfsfair-ctl";

#define RULE_SPEC	(OPT_SOURCE | OPT_TARGET)
/* What a rule is made of: -C and -D by spec compare all of it. */
#define RULE_OPTS	(RULE_SPEC | OPT_IDS_PER_HOST)
#define ANY		OPT_NETNS

static const struct ctl_cmd ctl_cmds[] = {
	{
		.letter = 'A', .name = "append",
		.synopsis = "-s SOURCE -j TARGET [--ids-per-host N] [--origin O]",
		.required = RULE_SPEC, .allowed = RULE_OPTS | OPT_ORIGIN | ANY,
		.run = cmd_append, .help = "Append a rule (one per address of a hostname)",
	},
	{
		.letter = 'I', .name = "insert",
		.synopsis = "[NUM] -s SOURCE -j TARGET [--ids-per-host N] [--origin O]",
		.required = RULE_SPEC, .allowed = RULE_OPTS | OPT_ORIGIN | ANY,
		.args_max = 1, .run = cmd_insert,
		.help = "Insert a rule at position NUM (default 1)",
	},
	{
		.letter = 'R', .name = "replace",
		.synopsis = "NUM -s SOURCE -j TARGET [--ids-per-host N] [--origin O]",
		.required = RULE_SPEC, .allowed = RULE_OPTS | OPT_ORIGIN | ANY,
		.args_min = 1, .args_max = 1, .run = cmd_replace,
		.help = "Replace the rule at position NUM",
	},
	{
		.letter = 'D', .name = "delete",
		.synopsis = "NUM | -D -s SOURCE -j TARGET [--ids-per-host N]",
		.allowed = RULE_OPTS | ANY, .args_max = 1, .run = cmd_delete,
		.help = "Delete the rule at NUM, or the first rule matching",
	},
	{
		.letter = 'C', .name = "check", .synopsis = "-s SOURCE -j TARGET [--ids-per-host N]",
		.required = RULE_SPEC, .allowed = RULE_OPTS | ANY, .run = cmd_check,
		.help = "Exit 0 if the rule is in the table, 1 if not",
	},
	{
		.letter = 'L', .name = "list",
		.synopsis = "[-n] [-v] [-x] [--line-numbers] [--json]",
		.allowed = OPT_NUMERIC | OPT_VERBOSE | OPT_EXACT | OPT_LINE | OPT_JSON | ANY,
		.run = cmd_list, .help = "List the rules in order",
	},
	{
		.letter = 'S', .name = "list-rules", .synopsis = "",
		.allowed = ANY, .run = cmd_list_rules,
		.help = "Print the rules as commands that can be fed back",
	},
	{
		.letter = 'F', .name = "flush", .synopsis = "[--origin O]",
		.allowed = OPT_ORIGIN | ANY, .run = cmd_flush,
		.help = "Delete every rule, or every rule of origin O",
	},
	{
		.letter = 'Z', .name = "zero", .synopsis = "",
		.allowed = ANY, .run = cmd_zero, .help = "Zero every class and rule counter",
	},
	{
		.letter = 'N', .name = "new-class", .synopsis = "NAME [--weight W] [--limit N]",
		.allowed = OPT_WEIGHT | OPT_LIMIT | ANY, .args_min = 1, .args_max = 1,
		.class_arg = true, .run = cmd_class_new,
		.help = "Create a class (weight 1 and no thread limit unless given)",
	},
	{
		.letter = 'E', .name = "set-class", .synopsis = "NAME [--weight W] [--limit N]",
		.one_of = OPT_WEIGHT | OPT_LIMIT, .allowed = OPT_WEIGHT | OPT_LIMIT | ANY,
		.args_min = 1, .args_max = 1, .class_arg = true, .run = cmd_class_set,
		.help = "Change a class's weight, its thread limit (--limit 0: none), or both",
	},
	{
		.letter = 'X', .name = "delete-class", .synopsis = "NAME",
		.allowed = ANY, .args_min = 1, .args_max = 1, .class_any = true,
		.run = cmd_class_del, .help = "Delete a class no rule names",
	},
	{
		.name = "classes", .synopsis = "[-v] [-x] [--json]",
		.allowed = OPT_VERBOSE | OPT_EXACT | OPT_JSON | ANY,
		.run = cmd_classes, .help = "List the classes, with counters under -v",
	},
	{
		.name = "stats",
		.synopsis = "[CLASS] [-w SECONDS] [--count N] [--pools] [--json] | "
			    "--openmetrics [--output FILE]",
		.allowed = OPT_WAIT | OPT_COUNT | OPT_POOLS | OPT_JSON | OPT_OPENMETRICS |
			   OPT_OUTPUT | ANY,
		.args_max = 1, .run = cmd_stats,
		.help = "Per-class rates over SECONDS (default 1), N times, or per thread pool; "
			"or the counters for Prometheus",
	},
	{
		.name = "explain", .synopsis = "ADDR|HOST [--json]",
		.allowed = OPT_JSON | ANY, .args_min = 1, .args_max = 1,
		.run = cmd_explain, .help = "Which rule and live client a peer gets",
	},
	{
		.name = "monitor", .synopsis = "[--count N] [--json]",
		.allowed = OPT_COUNT | OPT_JSON | ANY, .run = cmd_monitor,
		.help = "Print what every change to the table did",
	},
	{
		.name = "save", .synopsis = "",
		.allowed = ANY, .run = cmd_save,
		.help = "Print classes and rules in the restore format",
	},
	{
		.name = "restore", .synopsis = "[--test [--json]] [--noflush] [FILE]",
		.allowed = OPT_TEST | OPT_NOFLUSH | OPT_JSON | ANY, .args_max = 1,
		.run = cmd_restore,
		.help = "Load a save file, all of it or nothing; --test checks it and previews it",
	},
};

#define NCMDS ARRAY_SIZE(ctl_cmds)

static const struct {
	unsigned int opt;
	const char *text;
} opt_names[] = {
	{ OPT_SOURCE, "-s SOURCE" },	{ OPT_TARGET, "-j TARGET" },
	{ OPT_ORIGIN, "--origin" },	{ OPT_NUMERIC, "-n" },
	{ OPT_VERBOSE, "-v" },		{ OPT_EXACT, "-x" },
	{ OPT_LINE, "--line-numbers" },	{ OPT_JSON, "--json" },
	{ OPT_WEIGHT, "--weight" },	{ OPT_WAIT, "-w" },
	{ OPT_COUNT, "--count" },	{ OPT_TEST, "--test" },
	{ OPT_NOFLUSH, "--noflush" },	{ OPT_NETNS, "--netns" },
	{ OPT_OPENMETRICS, "--openmetrics" }, { OPT_OUTPUT, "--output" },
	{ OPT_LIMIT, "--limit" },	{ OPT_POOLS, "--pools" },
	{ OPT_IDS_PER_HOST, "--ids-per-host" },
};

/* Options a verb takes, but not together; and one that needs another. */
static const struct {
	unsigned int opt, other;
	bool needs;
} opt_pairs[] = {
	/* one sample of the counters: no interval, no screens, no JSON */
	{ OPT_OPENMETRICS, OPT_WAIT, false },	{ OPT_OPENMETRICS, OPT_COUNT, false },
	{ OPT_OPENMETRICS, OPT_JSON, false },	{ OPT_OUTPUT, OPT_OPENMETRICS, true },
	{ OPT_OPENMETRICS, OPT_POOLS, false },
};

enum { LONG_ORIGIN = 256, LONG_LINE, LONG_JSON, LONG_WEIGHT, LONG_COUNT, LONG_TEST,
	LONG_NOFLUSH, LONG_NETNS, LONG_OPENMETRICS, LONG_OUTPUT, LONG_LIMIT, LONG_POOLS,
	LONG_IDS_PER_HOST, LONG_HELP };

static const struct option long_opts[] = {
	{ "source", required_argument, NULL, 's' },
	{ "jump", required_argument, NULL, 'j' },
	{ "numeric", no_argument, NULL, 'n' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "exact", no_argument, NULL, 'x' },
	{ "wait", required_argument, NULL, 'w' },
	{ "origin", required_argument, NULL, LONG_ORIGIN },
	{ "line-numbers", no_argument, NULL, LONG_LINE },
	{ "json", no_argument, NULL, LONG_JSON },
	{ "weight", required_argument, NULL, LONG_WEIGHT },
	{ "count", required_argument, NULL, LONG_COUNT },
	{ "test", no_argument, NULL, LONG_TEST },
	{ "noflush", no_argument, NULL, LONG_NOFLUSH },
	{ "netns", required_argument, NULL, LONG_NETNS },
	{ "openmetrics", no_argument, NULL, LONG_OPENMETRICS },
	{ "output", required_argument, NULL, LONG_OUTPUT },
	{ "limit", required_argument, NULL, LONG_LIMIT },
	{ "pools", no_argument, NULL, LONG_POOLS },
	{ "ids-per-host", required_argument, NULL, LONG_IDS_PER_HOST },
	{ "help", no_argument, NULL, LONG_HELP },
	/* the verbs' long names, as their letters */
	{ "append", no_argument, NULL, 'A' },
	{ "insert", no_argument, NULL, 'I' },
	{ "replace", no_argument, NULL, 'R' },
	{ "delete", no_argument, NULL, 'D' },
	{ "check", no_argument, NULL, 'C' },
	{ "list", no_argument, NULL, 'L' },
	{ "list-rules", no_argument, NULL, 'S' },
	{ "flush", no_argument, NULL, 'F' },
	{ "zero", no_argument, NULL, 'Z' },
	{ "new-class", no_argument, NULL, 'N' },
	{ "set-class", no_argument, NULL, 'E' },
	{ "delete-class", no_argument, NULL, 'X' },
	{ NULL, 0, NULL, 0 },
};

const char *ctl_verb(const struct ctl *c)
{
	static char buf[4];

	if (!c->cmd->letter)
		return c->cmd->name;
	snprintf(buf, sizeof(buf), "-%c", c->cmd->letter);
	return buf;
}

static void usage(FILE *fp)
{
	unsigned int i;

	fprintf(fp, "Usage: %s [--netns NAME] COMMAND [OPTIONS]\n\nCommands:\n", ctl_prog);
	for (i = 0; i < NCMDS; i++) {
		const struct ctl_cmd *d = &ctl_cmds[i];

		if (d->letter)
			fprintf(fp, "  -%c, --%s %s\n", d->letter, d->name, d->synopsis);
		else
			fprintf(fp, "  %s %s\n", d->name, d->synopsis);
		fprintf(fp, "\t%s\n", d->help);
	}
	fprintf(fp, "\nSOURCE: ADDR, ADDR/LEN (IPv4 or IPv6) or a hostname (all its addresses)\n"
		"TARGET: a class name, per-host[/N], or per-client[/N] (by NFSv4.1 client ID,\n"
		"        per-host/N until a connection is bound to a session)\n"
		"--ids-per-host N: with per-client, the most clients one address's client IDs\n"
		"        make (the address masked as for per-host), its per-host client among\n"
		"        them: 1 to %d, default %d; later IDs join the per-host client\n"
		"--json prints one JSON document (-j is the rule's target, as in iptables)\n",
		NFSFAIR_IDS_PER_HOST_MAX, NFSFAIR_IDS_PER_HOST_DEFAULT);
}

static int vreport(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", ctl_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return 0;
}

int ctl_usage_error(const struct ctl *c, const char *fmt, ...)
{
	va_list ap;

	(void)c;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return CTL_USAGE;
}

int ctl_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return CTL_FAIL;
}

int ctl_nl(struct ctl *c)
{
	char err[NFSFAIR_ERR_LEN];

	if (c->nl)
		return 0;
	if (nfsfair_nl_open(&c->nl, err) < 0)
		return ctl_error("%s", err);
	return 0;
}

/* Exact long options only: getopt_long would take "--line" for "--line-numbers". */
static int exact_long_options(int argc, char **argv)
{
	const struct option *o;
	size_t len;
	int i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) || !argv[i][2])
			continue;
		len = strcspn(argv[i] + 2, "=");
		for (o = long_opts; o->name; o++)
			if (strlen(o->name) == len && !strncmp(o->name, argv[i] + 2, len))
				break;
		if (!o->name) {
			fprintf(stderr, "%s: unknown option '%s'\n", ctl_prog, argv[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int set_cmd(struct ctl *c, const struct ctl_cmd *d)
{
	if (c->cmd && c->cmd != d) {
		fprintf(stderr, "%s: -%c and -%c cannot be combined\n", ctl_prog,
			c->cmd->letter, d->letter);
		return -EINVAL;
	}
	c->cmd = d;
	return 0;
}

static int number_arg(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	if (nfsfair_uint_parse(s, max, v) < 0 || *v < min) {
		fprintf(stderr, "%s: %s '%s': a number from %llu to %llu\n", ctl_prog, opt, s,
			(unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	return 0;
}

static int parse_opt(struct ctl *c, int opt)
{
	char err[NFSFAIR_ERR_LEN];
	uint64_t v;
	unsigned int i;

	switch (opt) {
	case 's':
		c->opts |= OPT_SOURCE;
		c->source = optarg;
		return 0;
	case 'j':
		c->opts |= OPT_TARGET;
		c->target_text = optarg;
		if (nfsfair_target_parse(optarg, &c->target, err) < 0) {
			fprintf(stderr, "%s: -j %s\n", ctl_prog, err);
			return -EINVAL;
		}
		return 0;
	case 'n':
		c->opts |= OPT_NUMERIC;
		return 0;
	case 'v':
		c->opts |= OPT_VERBOSE;
		return 0;
	case 'x':
		c->opts |= OPT_EXACT;
		return 0;
	case LONG_LINE:
		c->opts |= OPT_LINE;
		return 0;
	case LONG_JSON:
		c->opts |= OPT_JSON;
		return 0;
	case LONG_TEST:
		c->opts |= OPT_TEST;
		return 0;
	case LONG_NOFLUSH:
		c->opts |= OPT_NOFLUSH;
		return 0;
	case 'w':
		c->opts |= OPT_WAIT;
		if (number_arg("-w", optarg, 1, 3600, &v) < 0)
			return -EINVAL;
		c->wait = v;
		return 0;
	case LONG_ORIGIN:
		c->opts |= OPT_ORIGIN;
		if (number_arg("--origin", optarg, 0, 255, &v) < 0)
			return -EINVAL;
		c->origin = v;
		return 0;
	case LONG_WEIGHT:
		c->opts |= OPT_WEIGHT;
		if (number_arg("--weight", optarg, 1, NFSFAIR_WEIGHT_MAX, &v) < 0)
			return -EINVAL;
		c->weight = v;
		return 0;
	case LONG_LIMIT:
		c->opts |= OPT_LIMIT;
		if (number_arg("--limit", optarg, 0, NFSFAIR_LIMIT_MAX, &v) < 0)
			return -EINVAL;
		c->limit = v;
		return 0;
	case LONG_POOLS:
		c->opts |= OPT_POOLS;
		return 0;
	case LONG_IDS_PER_HOST:
		c->opts |= OPT_IDS_PER_HOST;
		if (number_arg("--ids-per-host", optarg, 1, NFSFAIR_IDS_PER_HOST_MAX, &v) < 0)
			return -EINVAL;
		c->ids_per_host = v;
		return 0;
	case LONG_COUNT:
		c->opts |= OPT_COUNT;
		if (number_arg("--count", optarg, 1, 1000000, &v) < 0)
			return -EINVAL;
		c->count = v;
		return 0;
	case LONG_NETNS:
		c->opts |= OPT_NETNS;
		c->netns = optarg;
		return 0;
	case LONG_OPENMETRICS:
		c->opts |= OPT_OPENMETRICS;
		return 0;
	case LONG_OUTPUT:
		c->opts |= OPT_OUTPUT;
		c->output = optarg;
		return 0;
	}
	for (i = 0; i < NCMDS; i++)
		if (ctl_cmds[i].letter && opt == ctl_cmds[i].letter)
			return set_cmd(c, &ctl_cmds[i]);
	return -EINVAL;
}

static const char *opt_text(unsigned int opt)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(opt_names) && opt_names[i].opt != opt; i++)
		;
	return i < ARRAY_SIZE(opt_names) ? opt_names[i].text : "?";
}

/* The one place a verb's options are checked against its row. */
static int check_opts(struct ctl *c)
{
	const struct ctl_cmd *d = c->cmd;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(opt_names); i++) {
		if ((c->opts & opt_names[i].opt) && !(d->allowed & opt_names[i].opt))
			return ctl_usage_error(c, "%s does not take %s", ctl_verb(c),
					       opt_names[i].text);
		if (!(c->opts & opt_names[i].opt) && (d->required & opt_names[i].opt))
			return ctl_usage_error(c, "%s needs %s", ctl_verb(c), opt_names[i].text);
	}
	if (d->one_of && !(c->opts & d->one_of)) {
		char any[64] = "";

		for (i = 0; i < ARRAY_SIZE(opt_names); i++)
			if (d->one_of & opt_names[i].opt)
				snprintf(any + strlen(any), sizeof(any) - strlen(any), "%s%s",
					 any[0] ? " or " : "", opt_names[i].text);
		return ctl_usage_error(c, "%s needs %s", ctl_verb(c), any);
	}
	for (i = 0; i < ARRAY_SIZE(opt_pairs); i++) {
		if (!(c->opts & opt_pairs[i].opt) ||
		    !(c->opts & opt_pairs[i].other) == !opt_pairs[i].needs)
			continue;
		return ctl_usage_error(c, "%s %s %s %s", ctl_verb(c), opt_text(opt_pairs[i].opt),
				       opt_pairs[i].needs ? "needs" : "does not take",
				       opt_text(opt_pairs[i].other));
	}
	if (c->argc < d->args_min)
		return ctl_usage_error(c, "%s needs %s", ctl_verb(c), d->synopsis);
	if (c->argc > d->args_max)
		return ctl_usage_error(c, "%s: unexpected argument '%s'", ctl_verb(c),
				       c->argv[d->args_max]);
	return 0;
}

/*
 * -X NAME: a class made before today's name rule (an older kernel took
 * any bytes) can only be deleted by its name; whether it exists is the
 * kernel's to say. No kernel took more than NFSFAIR_NAME_LEN bytes.
 */
static int class_any_check(const struct ctl *c, const char *name)
{
	size_t len = strlen(name);
	char q[80];

	if (len && len <= NFSFAIR_NAME_LEN)
		return CTL_OK;
	output_fmt_owner((const uint8_t *)name, len, q, sizeof(q));
	return ctl_usage_error(c, "%s '%s': a class name is 1 to %d bytes", ctl_verb(c), q,
			       NFSFAIR_NAME_LEN);
}

/*
 * --ids-per-host belongs to a per-client target, and goes into it here,
 * after every option: -j's parse starts its target afresh.
 */
static int ids_per_host_set(struct ctl *c)
{
	if (!(c->opts & OPT_IDS_PER_HOST))
		return CTL_OK;
	if (!(c->opts & OPT_TARGET))
		return ctl_usage_error(c, "%s --ids-per-host %u needs -j per-client[/N]",
				       ctl_verb(c), c->ids_per_host);
	if (c->target.kind != NFSFAIR_TARGET_PER_CLIENT)
		return ctl_usage_error(c, "%s --ids-per-host %u needs -j per-client[/N], not -j %s",
				       ctl_verb(c), c->ids_per_host, c->target_text);
	c->target.ids_per_host = c->ids_per_host;
	return CTL_OK;
}

static const struct ctl_cmd *find_word(const char *w)
{
	unsigned int i;

	for (i = 0; i < NCMDS; i++)
		if (!ctl_cmds[i].letter && !strcmp(ctl_cmds[i].name, w))
			return &ctl_cmds[i];
	return NULL;
}

/**
 * ctl_parse - the command line into @c, checked against the verb's row
 * @c: zeroed but for its defaults (wait, count)
 *
 * Prints what is wrong and returns CTL_USAGE, prints the usage and returns
 * CTL_HELP for --help, or returns CTL_OK. Never exits, never opens netlink
 * or enters a namespace: that is for main(), and the fuzzer calls this.
 */
int ctl_parse(struct ctl *c, int argc, char **argv)
{
	char err[NFSFAIR_ERR_LEN];
	int opt;

	if (exact_long_options(argc, argv) < 0)
		return CTL_USAGE;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":AIRDCLSFZNEXs:j:nvxw:", long_opts, NULL)) != -1) {
		if (opt == LONG_HELP) {
			usage(stdout);
			return CTL_HELP;
		}
		if (opt == '?') {
			fprintf(stderr, "%s: unknown option '%s'; try --help\n", ctl_prog,
				argv[optind - 1]);
			return CTL_USAGE;
		}
		if (opt == ':') {
			fprintf(stderr, "%s: %s needs a value\n", ctl_prog, argv[optind - 1]);
			return CTL_USAGE;
		}
		if (parse_opt(c, opt) < 0)
			return CTL_USAGE;
	}
	c->argc = argc - optind;
	c->argv = argv + optind;
	if (!c->cmd) {
		if (!c->argc) {
			fprintf(stderr, "%s: no command; try --help\n", ctl_prog);
			return CTL_USAGE;
		}
		c->cmd = find_word(c->argv[0]);
		if (!c->cmd) {
			fprintf(stderr, "%s: unknown command '%s'; try --help\n", ctl_prog,
				c->argv[0]);
			return CTL_USAGE;
		}
		c->argc--;
		c->argv++;
	}
	if (check_opts(c) || ids_per_host_set(c))
		return CTL_USAGE;
	/* -N, -E NAME: a name the kernel would refuse, or save could not write */
	if (c->cmd->class_arg && nfsfair_class_name_check(c->argv[0], err) < 0)
		return ctl_usage_error(c, "%s %s", ctl_verb(c), err);
	if (c->cmd->class_any)
		return class_any_check(c, c->argv[0]);
	return CTL_OK;
}

int main(int argc, char **argv)
{
	char err[NFSFAIR_ERR_LEN];
	struct ctl c = { .wait = 1, .count = 1 };
	int ret;

	ret = ctl_parse(&c, argc, argv);
	if (ret)
		return ret == CTL_HELP ? CTL_OK : ret;
	if (c.netns && nfsfair_netns_enter(c.netns, err) < 0)
		return ctl_error("%s", err);
	output_init(c.opts & OPT_JSON, stdout);
	ret = c.cmd->run(&c);
	nfsfair_nl_close(c.nl);
	return ret;
}
