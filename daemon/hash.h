/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index over items that live in the caller's array: open addressing
 * over (hash, position) pairs, so that finding a name or an address among
 * a configuration's 100,000 costs the same as among ten. The caller says
 * what equal means; growing rehashes nothing but the stored hashes.
 */
#ifndef NFSFAIRD_HASH_H
#define NFSFAIRD_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct hash_slot {
	uint64_t hash;
	size_t pos;		/* SIZE_MAX: empty */
};

struct hash_index {
	struct hash_slot *slots;
	size_t size;		/* a power of two, or 0 */
	size_t used;
};

/* Does the item at @pos of the caller's array have the key @key? */
typedef bool (*hash_same_fn)(const void *key, size_t pos, const void *arg);

uint64_t hash_bytes(const void *data, size_t len);
size_t hash_find(const struct hash_index *h, uint64_t hash, const void *key, hash_same_fn same,
		 const void *arg);
int hash_reserve(struct hash_index *h, size_t n);
int hash_add(struct hash_index *h, uint64_t hash, size_t pos);
void hash_free(struct hash_index *h);

/*
 * Room for item @n of *@v (@size bytes each) when *@v holds @n: doubles at
 * powers of two, so adding one item at a time costs O(1) amortized, where
 * realloc(n + 1) may copy the whole array each time.
 */
static inline int array_grow(void *v, size_t n, size_t size)
{
	void **p = v, *nv;

	if (n & (n - 1))
		return 0;	/* not a power of two (nor 0): room left */
	nv = realloc(*p, (n ? 2 * n : 1) * size);
	if (!nv)
		return -1;
	*p = nv;
	return 0;
}

#endif /* NFSFAIRD_HASH_H */
