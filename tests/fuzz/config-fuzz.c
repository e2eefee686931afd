// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for nfsfaird's YAML loader: any bytes, as a file, go
 * through parsing and the pre-resolution checks. Errors are expected;
 * crashes, leaks and sanitizer reports are not.
 *
 * Beyond not crashing, what a file that loads leaves must hold: every
 * class name is one the kernel takes, the name index finds each defined
 * class at its own place and an add-to's definition, the members are
 * within the limit and counted right, and an ids-per-host is in range and
 * only where the rule it goes to is per-client.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../daemon/config.h"

static void invariants(const struct cfg *cfg)
{
	char err[NFSFAIR_ERR_LEN];
	const struct cfg_class *def;
	size_t i, j, members = 0;

	for (i = 0; i < cfg->nr_classes; i++) {
		const struct cfg_class *c = &cfg->classes[i];

		if (nfsfair_class_name_check(c->name, err) || !c->nr_members)
			abort();
		def = cfg_class_find(cfg, c->name);
		if (c->defines ? def != c : !def || !def->defines || def > c)
			abort();
		if (c->ids_per_host > NFSFAIR_IDS_PER_HOST_MAX || (c->ids_per_host && !c->per_client))
			abort();
		for (j = 0; j < c->nr_members; j++) {
			const struct cfg_member *m = &c->members[j];

			if (m->ids_per_host > NFSFAIR_IDS_PER_HOST_MAX ||
			    (m->ids_per_host &&
			     !(m->per_host >= 0 ? m->per_client : def->per_client)))
				abort();
		}
		members += c->nr_members;
	}
	if (members != cfg->nr_members || members > CFG_MEMBERS_MAX)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static FILE *devnull;
	struct cfg cfg;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	cfg_init(&cfg, devnull);
	if (!cfg_load_buffer(&cfg, "fuzz.yaml", data, size)) {
		invariants(&cfg);
		cfg_check(&cfg);
	}
	cfg_free(&cfg);
	return 0;
}
