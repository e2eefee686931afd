// SPDX-License-Identifier: GPL-2.0
/*
 * Known counters through stats --openmetrics' printer, without a kernel:
 * tests/unit/openmetrics.sh compares the output with what it expects and
 * gives it to promtool. Names and the namespace need escaping; a class
 * with a limit, a class and a client ID split over pools. Thread-time to
 * the nanosecond, and one class without it (as no kernel sends it: the
 * sample is left out). With "old", no thread-time anywhere, as from a
 * kernel that does not count it.
 */
#include <stdio.h>
#include <string.h>

#include "../../cli/ctl.h"

static struct nfsfair_rule rule(uint32_t pos, const char *prefix, const char *target,
				uint8_t origin, uint64_t hits)
{
	char err[NFSFAIR_ERR_LEN];
	struct nfsfair_rule r = { .position = pos, .origin = origin, .hits = hits };

	if (nfsfair_prefix_parse(prefix, &r.prefix, err) < 0 ||
	    nfsfair_target_parse(target, &r.target, err) < 0)
		fprintf(stderr, "%s\n", err);
	return r;
}

int main(int argc, char **argv)
{
	struct nfsfair_pool movers_pools[] = {
		{ .id = 0, .dispatches = 12000, .thread_ns = 60000000123 },
		{ .id = 1, .dispatches = 345, .thread_ns = 1500000000 },
	};
	struct nfsfair_pool client_pools[] = { { .id = 3, .dispatches = 99, .thread_ns = 2500000 } };
	struct nfsfair_class classes[] = {
		{ .name = "movers", .dispatches = 12345, .connections = 3, .peers = 2,
		  .queued = 1, .qtime_total_us = 1500000, .qtime_max_us = 2500, .threads = 2,
		  .limit = 4, .limit_skips = 17, .limit_time_us = 2000001, .threads_max = 4,
		  .thread_ns = 61500000123, .pools = movers_pools, .npools = 2 },
		{ .name = "q\"uo\\te" },
		{ .name = "line\nbreak", .qtime_total_us = 7, .thread_ns = NFSFAIR_UNKNOWN },
		{ .name = "caf\xc3\xa9", .dispatches = 1, .thread_ns = 999999999 },
	};
	struct nfsfair_rule rules[] = {
		rule(1, "127.0.0.2", "movers", 0, 7),
		rule(2, "127.0.0.0/8", "per-host", 0, 4),
		rule(3, "2001:db8::/32", "per-client/64", 7, UINT64_MAX),
	};
	struct nfsfair_client clients[] = {
		{ .kind = NFSFAIR_CLIENT_KIND_CLIENT_ID, .client_id = 0x6b0f2c1a00000003,
		  .owner_len = 19, .connections = 2, .dispatches = 99, .peers = 1,
		  .thread_ns = 2500000, .pools = client_pools, .npools = 1 },
	};
	struct ctl_metrics m = {
		.netns = "lab \"b\"\\2",
		.classes = classes, .nclasses = 4,
		.rules = rules, .nrules = 3,
		.clients = clients, .nclients = 1,
	};
	size_t i;

	if (argc > 1 && !strcmp(argv[1], "old")) {
		for (i = 0; i < ARRAY_SIZE(classes); i++)
			classes[i].thread_ns = NFSFAIR_UNKNOWN;
		for (i = 0; i < ARRAY_SIZE(movers_pools); i++)
			movers_pools[i].thread_ns = NFSFAIR_UNKNOWN;
		clients[0].thread_ns = NFSFAIR_UNKNOWN;
		client_pools[0].thread_ns = NFSFAIR_UNKNOWN;
	}

	memcpy(clients[0].owner, "Linux \"host\"\x01\xff tail", 19);
	ctl_openmetrics_print(stdout, &m);
	return ferror(stdout) ? 1 : 0;
}
