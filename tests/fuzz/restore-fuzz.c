// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the restore-file parser: any bytes, as a file,
 * through what `nfsfair-ctl restore --test` does before it asks anything
 * of the kernel (read_file(): every line parsed, classes given twice
 * refused; test_warnings(): shadowed rules and unused classes). cmd-save.c
 * is included for its static functions; nothing here opens netlink.
 *
 * Beyond not crashing, every line that parses must read back the same
 * through the save format: format(parse(line)) parses to an equal item,
 * which is what makes save | restore a round trip.
 */
#include "../../cli/cmd-save.c"

static void round_trip(const struct nfsfair_line *l)
{
	char text[NFSFAIR_RULE_STRLEN + 8], err[NFSFAIR_ERR_LEN];
	struct nfsfair_line back;

	if (l->kind == NFSFAIR_LINE_CLASS) {
		snprintf(text, sizeof(text), "-N %s --weight %u", l->class, l->weight);
	} else {
		strcpy(text, "-A ");
		if (nfsfair_rule_format(&l->rule, text + 3, sizeof(text) - 3) < 0)
			abort();
	}
	if (nfsfair_line_parse(text, &back, err) < 0 || back.kind != l->kind)
		abort();
	if (l->kind == NFSFAIR_LINE_CLASS ?
	    strcmp(back.class, l->class) || back.weight != l->weight :
	    !nfsfair_rule_equal(&back.rule, &l->rule) || back.rule.origin != l->rule.origin)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct restore rs = { .file = "fuzz.save" };
	FILE *fp;
	int i;

	if (!size)
		return 0;
	fp = fmemopen((void *)data, size, "r");
	if (!fp)
		return 0;
	if (!read_file(&rs, fp)) {
		for (i = 0; i < rs.n; i++)
			round_trip(&rs.v[i].l);
		test_warnings(&rs);
	}
	fclose(fp);
	free(rs.v);
	return 0;
}
