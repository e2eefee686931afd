// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histograms for nfsfair-load: fixed memory however long the run,
 * quantiles within 0.4 % (see load.h).
 */
#include <math.h>

#include "load.h"

static unsigned int hist_index(uint64_t v)
{
	unsigned int shift;

	if (v < 2 * HIST_SUB)
		return v;
	shift = 63 - __builtin_clzll(v) - HIST_SUB_BITS;
	return shift * HIST_SUB + (unsigned int)(v >> shift);
}

/* The middle of the values bucket idx holds. */
static uint64_t hist_value(unsigned int idx)
{
	unsigned int shift;
	uint64_t sub;

	if (idx < 2 * HIST_SUB)
		return idx;
	shift = idx / HIST_SUB - 1;
	sub = idx % HIST_SUB + HIST_SUB;
	return (sub << shift) + ((1ull << shift) >> 1);
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->bucket[hist_index(ns)]++;
	h->count++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
}

/* hist_quantile - the smallest value with at least q of the samples at or below it. */
uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return hist_value(i);
	}
	return hist_value(HIST_BUCKETS - 1);
}
