// SPDX-License-Identifier: GPL-2.0
/*
 * The table-replaces that give a save file's order back. table-replace
 * works on one origin: its new rules go where its first old rule was, or
 * at the end of the table if it had none, and other origins' rules keep
 * their order. So the origins the table already has in the file's order
 * are replaced in place; every origin after the first one out of order is
 * emptied (if the table has it) and then filled, which puts it at the end,
 * after the ones before it. An origin whose rules another origin's split
 * cannot be put back that way: cmd-save.c refuses such a file.
 */
#include "ctl.h"

static int step(struct ctl_step *steps, int n, uint8_t origin, bool fill)
{
	steps[n].origin = origin;
	steps[n].fill = fill;
	return n + 1;
}

/**
 * ctl_restore_plan - the replaces that leave the file's rules in its order
 * @file: the origins of the file's rules, in file order, each origin's together
 * @nfile: how many
 * @table: the origins of the kernel's rules, in order
 * @ntable: how many
 * @noflush: keep the origins the file has no rules of; else empty them
 * @steps: room for CTL_STEPS_MAX
 *
 * Return: the number of steps, each a table-replace of one origin.
 */
int ctl_restore_plan(const uint8_t *file, int nfile, const uint8_t *table, int ntable,
		     bool noflush, struct ctl_step *steps)
{
	int rank[256], order[256], norder = 0, n = 0, last = -1, i;
	bool in_file[256] = { false };

	/* An origin's place in the table, by its first rule; -1 if it has none. */
	for (i = 0; i < 256; i++)
		rank[i] = -1;
	for (i = 0; i < ntable; i++)
		if (rank[table[i]] < 0)
			rank[table[i]] = norder++;
	norder = 0;
	for (i = 0; i < nfile; i++) {
		if (in_file[file[i]])
			continue;
		in_file[file[i]] = true;
		order[norder++] = file[i];
	}
	for (i = 0; i < 256 && !noflush; i++)
		if (rank[i] >= 0 && !in_file[i])
			n = step(steps, n, i, false);
	for (i = 0; i < norder && rank[order[i]] > last; i++) {
		last = rank[order[i]];
		n = step(steps, n, order[i], true);
	}
	for (; i < norder; i++) {
		if (rank[order[i]] >= 0)
			n = step(steps, n, order[i], false);
		n = step(steps, n, order[i], true);
	}
	/* The file's classes go with a replace: an empty origin 0 if nothing else. */
	if (!n && !noflush)
		n = step(steps, n, 0, false);
	return n;
}
