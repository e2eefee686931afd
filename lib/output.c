// SPDX-License-Identifier: GPL-2.0
/*
 * One print path for text and JSON, after iproute2's json_print: each
 * value is printed once, with its JSON key and its text format, so the
 * two outputs cannot drift apart.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nfsfair.h"

#define OUTPUT_DEPTH 16

static struct {
	bool json;
	FILE *fp;
	int depth;
	bool first[OUTPUT_DEPTH];
} out = { .fp = NULL };

void output_init(bool json, FILE *fp)
{
	out.json = json;
	out.fp = fp;
	out.depth = 0;
	out.first[0] = true;
}

bool output_is_json(void)
{
	return out.json;
}

void output_done(void)
{
	if (out.json)
		fputc('\n', out.fp);
	fflush(out.fp);
}

static void json_str(const char *s)
{
	const unsigned char *c;

	fputc('"', out.fp);
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out.fp, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(out.fp, "\\u%04x", *c);
		else
			fputc(*c, out.fp);
	}
	fputc('"', out.fp);
}

/* The comma and key before a value, inside the current object or array. */
static void json_key(const char *key)
{
	if (!out.first[out.depth])
		fputc(',', out.fp);
	out.first[out.depth] = false;
	if (key) {
		json_str(key);
		fputc(':', out.fp);
	}
}

static void json_open(const char *key, char c)
{
	json_key(key);
	fputc(c, out.fp);
	if (out.depth < OUTPUT_DEPTH - 1)
		out.depth++;
	out.first[out.depth] = true;
}

void open_json_object(const char *key)
{
	if (out.json)
		json_open(key, '{');
}

void close_json_object(void)
{
	if (out.json) {
		fputc('}', out.fp);
		out.depth--;
	}
}

void open_json_array(const char *key)
{
	if (out.json)
		json_open(key, '[');
}

void close_json_array(void)
{
	if (out.json) {
		fputc(']', out.fp);
		out.depth--;
	}
}

void print_string(enum output_type t, const char *key, const char *fmt, const char *val)
{
	if (out.json && (t & PRINT_JSON)) {
		json_key(key);
		json_str(val);
	} else if (!out.json && (t & PRINT_FP)) {
		fprintf(out.fp, fmt ? fmt : "%s", val);
	}
}

void print_uint(enum output_type t, const char *key, const char *fmt, uint64_t val)
{
	if (out.json && (t & PRINT_JSON)) {
		json_key(key);
		fprintf(out.fp, "%" PRIu64, val);
	} else if (!out.json && (t & PRINT_FP)) {
		fprintf(out.fp, fmt ? fmt : "%" PRIu64, val);
	}
}

void print_float(enum output_type t, const char *key, const char *fmt, double val)
{
	if (out.json && (t & PRINT_JSON)) {
		json_key(key);
		if (isfinite(val))
			fprintf(out.fp, "%.6g", val);
		else
			fputs("null", out.fp);
	} else if (!out.json && (t & PRINT_FP)) {
		fprintf(out.fp, fmt ? fmt : "%g", val);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt, bool val)
{
	if (out.json && (t & PRINT_JSON)) {
		json_key(key);
		fputs(val ? "true" : "false", out.fp);
	} else if (!out.json && (t & PRINT_FP)) {
		fprintf(out.fp, fmt ? fmt : "%s", val ? "yes" : "no");
	}
}

/* JSON null, or TEXT in the text output (a "-" where a value is absent). */
void print_null(enum output_type t, const char *key, const char *fmt, const char *text)
{
	if (out.json && (t & PRINT_JSON)) {
		json_key(key);
		fputs("null", out.fp);
	} else if (!out.json && (t & PRINT_FP)) {
		fprintf(out.fp, fmt ? fmt : "%s", text);
	}
}

void print_nl(void)
{
	if (!out.json)
		fputc('\n', out.fp);
}

/* iptables' counters: exact with -x, else K, M, G past 99999. */
void output_fmt_count(uint64_t v, bool exact, char *buf, size_t size)
{
	static const char units[] = "KMGTP";
	int u = -1;

	if (!exact) {
		while (v > 99999 && u < (int)sizeof(units) - 2) {
			v = (v + 500) / 1000;
			u++;
		}
	}
	if (u < 0)
		snprintf(buf, size, "%" PRIu64, v);
	else
		snprintf(buf, size, "%" PRIu64 "%c", v, units[u]);
}

/*
 * A time in three significant digits and the unit that keeps it under
 * 1000: "850ns", "12.3us", "1.25ms", "480ms", "2.00s"; seconds past 999
 * whole. Rounded first, so 999.96us reads 1.00ms, not 1000us. Integers
 * only: nfsfaird links this file without libm.
 */
void output_fmt_ns(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = { { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { NULL, 0 } };
	uint64_t q, r, p;
	size_t u;
	int d;

	if (ns < 1000) {
		snprintf(buf, size, "%" PRIu64 "ns", ns);
		return;
	}
	for (u = 0; units[u].name; u++) {
		/* d decimals: the value in units of q ns, rounded, is r */
		for (d = 2, p = 100; d >= 0; d--, p /= 10) {
			q = units[u].ns / p;
			r = ns / q + (ns % q >= q / 2);
			if (r >= 1000 && (units[u + 1].name || d))
				continue;
			if (d)
				snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64 "%s", r / p, d, r % p,
					 units[u].name);
			else
				snprintf(buf, size, "%" PRIu64 "%s", r, units[u].name);
			return;
		}
	}
}

/*
 * An NFSv4.1 owner string is opaque bytes: printable ASCII stays, every
 * other byte, '"' and '\' read \xNN, so the text is one safe line and
 * decodes back unambiguously.
 */
void output_fmt_owner(const uint8_t *owner, size_t len, char *buf, size_t size)
{
	size_t i, o = 0;
	bool plain;

	for (i = 0; i < len; i++) {
		plain = owner[i] >= 0x20 && owner[i] < 0x7f && owner[i] != '"' && owner[i] != '\\';
		if (o + (plain ? 1 : 4) >= size)
			break;
		if (plain)
			buf[o++] = owner[i];
		else
			o += snprintf(buf + o, size - o, "\\x%02x", owner[i]);
	}
	if (size)
		buf[o] = '\0';
}
