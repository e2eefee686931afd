// SPDX-License-Identifier: GPL-2.0
/* The index of hash.h: linear probing, kept at most half full. */
#include <errno.h>
#include <string.h>

#include "hash.h"

/* FNV-1a, then a murmur3 finalizer so the low bits the mask keeps are mixed. */
uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/**
 * hash_find - the position of the item with key @key, or SIZE_MAX
 * @same: compares @key with the item at a position whose hash matches
 */
size_t hash_find(const struct hash_index *h, uint64_t hash, const void *key, hash_same_fn same,
		 const void *arg)
{
	size_t i;

	if (!h->size)
		return SIZE_MAX;
	for (i = hash & (h->size - 1); h->slots[i].pos != SIZE_MAX; i = (i + 1) & (h->size - 1))
		if (h->slots[i].hash == hash && same(key, h->slots[i].pos, arg))
			return h->slots[i].pos;
	return SIZE_MAX;
}

static void put(struct hash_slot *slots, size_t size, uint64_t hash, size_t pos)
{
	size_t i;

	for (i = hash & (size - 1); slots[i].pos != SIZE_MAX; i = (i + 1) & (size - 1))
		;
	slots[i].hash = hash;
	slots[i].pos = pos;
}

/* Room for @n items in all, so that adding up to that many cannot fail. */
int hash_reserve(struct hash_index *h, size_t n)
{
	struct hash_slot *slots;
	size_t size, i;

	for (size = h->size ? h->size : 64; 2 * n > size; size *= 2)
		;
	if (size == h->size)
		return 0;
	slots = malloc(size * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		slots[i].pos = SIZE_MAX;
	for (i = 0; i < h->size; i++)
		if (h->slots[i].pos != SIZE_MAX)
			put(slots, size, h->slots[i].hash, h->slots[i].pos);
	free(h->slots);
	h->slots = slots;
	h->size = size;
	return 0;
}

/* Index the item at @pos; the caller has made sure its key is not there yet. */
int hash_add(struct hash_index *h, uint64_t hash, size_t pos)
{
	if (hash_reserve(h, h->used + 1))
		return -ENOMEM;
	put(h->slots, h->size, hash, pos);
	h->used++;
	return 0;
}

void hash_free(struct hash_index *h)
{
	if (!h)
		return;
	free(h->slots);
	memset(h, 0, sizeof(*h));
}
