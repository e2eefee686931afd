// SPDX-License-Identifier: GPL-2.0
/*
 * nfsfair-ctl save of a table an older kernel could hold, natively: the
 * real main() (built as nfsfair_ctl_main) with the two table dumps
 * replaced by ld --wrap, so no kernel is asked. A name restore could not
 * read back makes save fail naming it, with nothing on standard output;
 * a good table's lines parse back to the same classes and rules. And a
 * per-client rule's ids-per-host, as save, -S, -L and -C see it. TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <getopt.h>
#include <sys/socket.h>

#include "../../cli/ctl.h"

int nfsfair_ctl_main(int argc, char **argv);

static const char *const *table_classes;	/* NULL-terminated "name weight" */
static const char *const *table_rules;		/* NULL-terminated "-s P -j T ..." */
static int count, failures;

static void ok(int cond, const char *desc)
{
	count++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", count, desc);
	if (!cond)
		failures++;
}

int __wrap_ctl_classes_dump(struct ctl *c, struct ctl_classes *cl)
{
	int i;

	(void)c;
	for (cl->n = 0; table_classes[cl->n]; cl->n++)
		;
	cl->v = calloc(cl->n + 1, sizeof(*cl->v));
	for (i = 0; i < cl->n; i++) {
		cl->v[i].weight = 1;
		/* "raw:NAME": whatever bytes an older kernel took, weight 1 */
		if (!strncmp(table_classes[i], "raw:", 4))
			snprintf(cl->v[i].name, sizeof(cl->v[i].name), "%s", table_classes[i] + 4);
		else if (sscanf(table_classes[i], "%15[^ ] %u", cl->v[i].name,
				&cl->v[i].weight) != 2)
			abort();
	}
	return 0;
}

int __wrap_ctl_rules_dump(struct ctl *c, struct ctl_rules *rules)
{
	struct nfsfair_line l;
	char err[NFSFAIR_ERR_LEN], text[256];
	int i;

	(void)c;
	for (rules->n = 0; table_rules[rules->n]; rules->n++)
		;
	rules->v = calloc(rules->n + 1, sizeof(*rules->v));
	for (i = 0; i < rules->n; i++) {
		snprintf(text, sizeof(text), "-A %s", table_rules[i]);
		if (nfsfair_line_parse(text, &l, err) < 0) {
			/* an older kernel's class name: set it past the parser */
			char prefix[64], *name = strstr(text, " -j ") + 4;

			if (sscanf(text, "-A -s %63s", prefix) != 1 ||
			    nfsfair_prefix_parse(prefix, &l.rule.prefix, err) < 0)
				abort();
			l.rule.target.kind = NFSFAIR_TARGET_CLASS;
			snprintf(l.rule.target.class, sizeof(l.rule.target.class), "%s", name);
		}
		/* As the kernel dumps it: a per-client rule always carries ids-per-host. */
		if (l.rule.target.kind == NFSFAIR_TARGET_PER_CLIENT && !l.rule.target.ids_per_host)
			l.rule.target.ids_per_host = NFSFAIR_IDS_PER_HOST_DEFAULT;
		rules->v[i] = l.rule;
		rules->v[i].position = i + 1;
	}
	return 0;
}

/* nfsfair-ctl ARGV..., its standard output and error into @out and @err. */
static int run(char **argv, char *out, size_t osize, char *errs, size_t esize)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int argc, so, se, ret;
	size_t n;

	for (argc = 0; argv[argc]; argc++)
		;
	fflush(stdout);
	so = dup(1);
	se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	optind = 0;
	ret = nfsfair_ctl_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	rewind(fo);
	rewind(fe);
	n = fread(out, 1, osize - 1, fo);
	out[n] = '\0';
	n = fread(errs, 1, esize - 1, fe);
	errs[n] = '\0';
	fclose(fo);
	fclose(fe);
	return ret;
}

static int save(char *out, size_t osize, char *errs, size_t esize)
{
	char *argv[] = { "nfsfair-ctl", "save", NULL };

	return run(argv, out, osize, errs, esize);
}

/* Every line of @text parses, and formats back to itself. */
static int round_trips(const char *text)
{
	char buf[4096], err[NFSFAIR_ERR_LEN], again[256], *line, *save_ptr;
	struct nfsfair_line l;

	snprintf(buf, sizeof(buf), "%s", text);
	for (line = strtok_r(buf, "\n", &save_ptr); line; line = strtok_r(NULL, "\n", &save_ptr)) {
		if (nfsfair_line_parse(line, &l, err) < 0)
			return 0;
		strcpy(again, "-A ");
		if (l.kind == NFSFAIR_LINE_CLASS)
			snprintf(again, sizeof(again), "-N %s --weight %u", l.class, l.weight);
		else
			nfsfair_rule_format(&l.rule, again + 3, sizeof(again) - 3);
		if (strcmp(again, line))
			return 0;
	}
	return 1;
}

static void refused(const char *const *classes, const char *const *rules, const char *why,
		    const char *desc)
{
	char out[4096], errs[1024], want[1024];
	int ret;

	table_classes = classes;
	table_rules = rules;
	ret = save(out, sizeof(out), errs, sizeof(errs));
	snprintf(want, sizeof(want), "nfsfair-ctl: save: %s: nothing written\n", why);
	ok(ret == CTL_FAIL && !out[0] && !strcmp(errs, want), desc);
	if (ret != CTL_FAIL || out[0] || strcmp(errs, want)) {
		output_fmt_owner((uint8_t *)out, strlen(out), want, 256);
		output_fmt_owner((uint8_t *)errs, strlen(errs), want + 256, sizeof(want) - 256);
		printf("# exit %d, stdout '%s', stderr '%s'\n", ret, want, want + 256);
	}
}

#define RULE "a class name is letters, digits, '.', '_' and '-', starting with a letter or a digit"

/* nfsfair-ctl ARGV on the table @rules: exit @status, printing @want and @want_err. */
static void shows(const char *const *rules, char **argv, int status, const char *want,
		  const char *want_err, const char *desc)
{
	static const char *const no_classes[] = { NULL };
	char out[4096], errs[1024];
	int ret, good;

	table_classes = no_classes;
	table_rules = rules;
	ret = run(argv, out, sizeof(out), errs, sizeof(errs));
	good = ret == status && !strcmp(out, want) && !strcmp(errs, want_err);
	ok(good, desc);
	if (!good)
		printf("# exit %d, stdout '%s', stderr '%s'\n", ret, out, errs);
}

/*
 * ids-per-host: shown only when not the default, which the kernel's dump
 * carries like any other, so a table without it saves as it always did.
 */
static void test_ids_per_host(void)
{
	static const char *const rules[] = {
		"-s 127.0.0.0/8 -j per-client --ids-per-host 2", "-s 10.0.0.0/8 -j per-client/24",
		"-s 2001:db8::/32 -j per-client/64 --ids-per-host 4096 --origin 7",
		"-s 192.0.2.0/24 -j per-host", NULL,
	};
	static const char *const lines = "-A -s 127.0.0.0/8 -j per-client --ids-per-host 2\n"
		"-A -s 10.0.0.0/8 -j per-client/24\n"
		"-A -s 2001:db8::/32 -j per-client/64 --ids-per-host 4096 --origin 7\n"
		"-A -s 192.0.2.0/24 -j per-host\n";
	char *save_argv[] = { "nfsfair-ctl", "save", NULL };
	char *list_rules[] = { "nfsfair-ctl", "-S", NULL };
	char *list[] = { "nfsfair-ctl", "-L", NULL };
	char *json[] = { "nfsfair-ctl", "-L", "--json", NULL };
	char *check_default[] = { "nfsfair-ctl", "-C", "-s", "127.0.0.0/8", "-j", "per-client",
				  NULL };
	char *check_2[] = { "nfsfair-ctl", "-C", "-s", "127.0.0.0/8", "-j", "per-client",
			    "--ids-per-host", "2", NULL };
	char *check_4[] = { "nfsfair-ctl", "-C", "-s", "10.0.0.0/8", "--ids-per-host", "4", "-j",
			    "per-client/24", NULL };
	char out[4096], errs[1024];
	int good;

	shows(rules, save_argv, CTL_OK, lines, "",
	      "save: --ids-per-host 2 and 4096 written, the default 4 not");
	ok(round_trips(lines), "those lines parse back to themselves");
	shows(rules, list_rules, CTL_OK, lines, "", "-S: the same lines as save");
	shows(rules, list, CTL_OK,
	      "target           source\n"
	      "per-client       127.0.0.0/8  --ids-per-host 2\n"
	      "per-client/24    10.0.0.0/8\n"
	      "per-client/64    2001:db8::/32  --ids-per-host 4096\n"
	      "per-host         192.0.2.0/24\n", "",
	      "-L: --ids-per-host after the source when not the default");
	table_rules = rules;
	good = run(json, out, sizeof(out), errs, sizeof(errs)) == CTL_OK && !errs[0] &&
	       strstr(out, "\"source\":\"127.0.0.0/8\",\"ids-per-host\":2,") &&
	       strstr(out, "\"source\":\"10.0.0.0/8\",\"ids-per-host\":4,") &&
	       strstr(out, "\"source\":\"2001:db8::/32\",\"ids-per-host\":4096,") &&
	       strstr(out, "\"source\":\"192.0.2.0/24\",\"shadowed\":false}]");
	ok(good, "-L --json: ids-per-host on every per-client rule, the default too, on no other");
	if (!good)
		printf("# stdout '%s', stderr '%s'\n", out, errs);
	shows(rules, check_default, CTL_FAIL, "",
	      "nfsfair-ctl: no rule -s 127.0.0.0/8 -j per-client\n",
	      "-C per-client (the default 4) does not find the rule with --ids-per-host 2");
	shows(rules, check_2, CTL_OK, "", "", "-C per-client --ids-per-host 2 finds it");
	shows(rules, check_4, CTL_OK, "", "",
	      "-C --ids-per-host 4 finds the rule the kernel dumps with the default");
}

int main(void)
{
	static const char *const good_classes[] = { "movers 2", "web_1.a-b 1", "per-hostile 3",
						    NULL };
	static const char *const good_rules[] = {
		"-s 10.0.0.0/8 -j movers", "-s 2001:db8::/32 -j per-host/64 --origin 7",
		"-s 192.0.2.0/24 -j web_1.a-b", "-s 127.0.0.0/8 -j per-client", NULL,
	};
	static const char *const no_rules[] = { NULL };
	static const char *const space[] = { "movers 1", "raw:a b", NULL };
	static const char *const newline[] = { "raw:x\n-F", NULL };
	static const char *const keyword[] = { "raw:per-host", NULL };
	static const char *const bad_rule[] = { "-s 10.0.0.0/8 -j movers", "-s 10.1.0.0/16 -j default",
						NULL };
	char out[4096], errs[1024];
	int ret;

	table_classes = good_classes;
	table_rules = good_rules;
	ret = save(out, sizeof(out), errs, sizeof(errs));
	ok(ret == CTL_OK && !errs[0] &&
	   !strcmp(out, "-N movers --weight 2\n-N web_1.a-b --weight 1\n-N per-hostile --weight 3\n"
		   "-A -s 10.0.0.0/8 -j movers\n-A -s 2001:db8::/32 -j per-host/64 --origin 7\n"
		   "-A -s 192.0.2.0/24 -j web_1.a-b\n-A -s 127.0.0.0/8 -j per-client\n"),
	   "save of a good table: exit 0, classes then rules");
	if (ret != CTL_OK || errs[0])
		printf("# exit %d: %s", ret, errs);
	ok(round_trips(out), "every line save wrote parses back to itself");
	refused(space, no_rules, "class 'a b': " RULE,
		"class 'a b': save refuses, naming it; nothing on stdout");
	refused(newline, no_rules, "class 'x\\x0a-F': " RULE,
		"class 'x<newline>-F' cannot inject a line: refused, quoted as \\x0a");
	refused(keyword, no_rules, "class 'per-host' is a target, not a class name",
		"class 'per-host': refused, -j could not name it");
	refused(good_classes, bad_rule, "rule 2: class 'default' is a target, not a class name",
		"a rule naming class 'default': refused, naming the rule");
	test_ids_per_host();
	printf("1..%d\n", count);
	return failures ? 1 : 0;
}
