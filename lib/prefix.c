// SPDX-License-Identifier: GPL-2.0
/* Address prefixes: "ADDR" or "ADDR/LEN", IPv4 or IPv6, host bits clear. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "nfsfair.h"

unsigned int nfsfair_family_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

void nfsfair_addr_mask(int family, const uint8_t *addr, unsigned int len, uint8_t *out)
{
	unsigned int bytes = nfsfair_family_bits(family) / 8, i;

	memset(out, 0, 16);
	for (i = 0; i < bytes; i++) {
		if (len >= 8 * (i + 1))
			out[i] = addr[i];
		else if (len > 8 * i)
			out[i] = addr[i] & (uint8_t)(0xff << (8 - (len - 8 * i)));
	}
}

static int prefix_len_parse(const char *s, const char *len, unsigned int max,
			    unsigned int *out, char *err)
{
	uint64_t v;

	if (nfsfair_uint_parse(len, 255, &v) < 0) {
		snprintf(err, NFSFAIR_ERR_LEN, "'%s': '%s' is not a prefix length", s, len);
		return -EINVAL;
	}
	if (v > max) {
		snprintf(err, NFSFAIR_ERR_LEN, "'%s': prefix length %u is past /%u",
			 s, (unsigned int)v, max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

int nfsfair_prefix_parse(const char *s, struct nfsfair_prefix *p, char *err)
{
	char addr[INET6_ADDRSTRLEN + 1];
	uint8_t masked[16];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned int len;
	int ret;

	memset(p, 0, sizeof(*p));
	if (alen == 0 || alen >= sizeof(addr)) {
		snprintf(err, NFSFAIR_ERR_LEN, "'%s': not an IPv4 or IPv6 address", s);
		return -EINVAL;
	}
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, p->addr) == 1) {
		p->family = AF_INET;
	} else if (inet_pton(AF_INET6, addr, p->addr) == 1) {
		p->family = AF_INET6;
	} else {
		snprintf(err, NFSFAIR_ERR_LEN, "'%s': not an IPv4 or IPv6 address", s);
		return -EINVAL;
	}
	len = nfsfair_family_bits(p->family);
	if (slash) {
		ret = prefix_len_parse(s, slash + 1, len, &len, err);
		if (ret < 0)
			return ret;
	}
	p->len = len;
	nfsfair_addr_mask(p->family, p->addr, len, masked);
	if (memcmp(masked, p->addr, 16)) {
		snprintf(err, NFSFAIR_ERR_LEN, "'%s': host bits set past /%u", s, len);
		return -EINVAL;
	}
	return 0;
}

int nfsfair_addr_format(int family, const uint8_t *addr, char *buf, size_t size)
{
	if (!inet_ntop(family, addr, buf, size))
		return -errno;
	return 0;
}

/* Always with the length, so the text reads back the same. */
int nfsfair_prefix_format(const struct nfsfair_prefix *p, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	int ret;

	ret = nfsfair_addr_format(p->family, p->addr, a, sizeof(a));
	if (ret < 0)
		return ret;
	if ((size_t)snprintf(buf, size, "%s/%u", a, p->len) >= size)
		return -ENOSPC;
	return 0;
}

bool nfsfair_prefix_contains(const struct nfsfair_prefix *p, int family, const uint8_t *addr)
{
	uint8_t masked[16];

	if (p->family != family)
		return false;
	nfsfair_addr_mask(family, addr, p->len, masked);
	return !memcmp(masked, p->addr, 16);
}

bool nfsfair_prefix_equal(const struct nfsfair_prefix *a, const struct nfsfair_prefix *b)
{
	return a->family == b->family && a->len == b->len && !memcmp(a->addr, b->addr, 16);
}
