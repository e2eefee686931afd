// SPDX-License-Identifier: GPL-2.0
/*
 * The run itself: one thread, one epoll loop over every connection of
 * every group. Each connection has DEPTH call slots; a slot is busy from
 * the moment its call is queued until the reply with its xid is read.
 *
 * Phases: connect every connection (for v4.1, also set up the client ID
 * and sessions, session.c), then warm up (backlogged groups keep all
 * slots busy, nothing is counted), then either measure for --duration,
 * or run --repeat bursts of the burst group, each started after a short
 * gap once the previous one has fully completed. A v4.1 run then waits
 * for its outstanding calls and destroys its sessions and client IDs.
 * SIGUSR1 ends a backlogged run's measured time early (see stop_asked).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

#define IN_BUF_SIZE	65536
#define MAX_EVENTS	64
#define BURST_GAP_NS	100000000ull	/* pause between two bursts */
#define ERRORS_SHOWN	10		/* RPC errors printed before going quiet */
#define NSEC		1000000000ull
#define TEARDOWN_NS	(10 * NSEC)	/* v4.1 teardown, beyond draining the holds */

/*
 * Set by SIGUSR1: a test that samples nfsd while the load runs gives a
 * long --duration and ends it once its samples are taken, so the load
 * outlasts them however slow the host. Honoured in the measured phase;
 * one that comes during the warm-up waits for it, so the report always
 * covers a measured time.
 */
static volatile sig_atomic_t stop_asked;

static void ask_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* load_hold_us - one call's hold: base_us, spread uniformly by --jitter. */
uint32_t load_hold_us(const struct options *o, uint32_t base_us, uint64_t *rng)
{
	double u, v;

	if (o->jitter_pct == 0)
		return base_us;
	u = (double)(rng_next(rng) >> 11) / (double)(1ull << 53);
	v = base_us * (1 + o->jitter_pct / 100 * (2 * u - 1));
	if (v <= 0)
		return 0;
	if (v >= UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)lround(v);
}

/* load_xid_base - the first xid connection number id sends. */
uint32_t load_xid_base(unsigned int id)
{
	return (uint32_t)(id + 1) << 24;
}

int format_addr(const struct sockaddr_storage *ss, bool with_port, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN];
	const void *a;
	unsigned int port;

	if (ss->ss_family == AF_INET6) {
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
		port = ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	} else {
		a = &((const struct sockaddr_in *)ss)->sin_addr;
		port = ntohs(((const struct sockaddr_in *)ss)->sin_port);
	}
	if (!inet_ntop(ss->ss_family, a, host, sizeof(host)))
		return -errno;
	if (!with_port)
		snprintf(buf, size, "%s", host);
	else if (ss->ss_family == AF_INET6)
		snprintf(buf, size, "[%s]:%u", host, port);
	else
		snprintf(buf, size, "%s:%u", host, port);
	return 0;
}

static bool measuring(const struct run *r)
{
	return r->phase == PH_MEASURE || r->phase == PH_BURST || r->phase == PH_GAP;
}

/* filling - whether this phase sends calls (to the groups it concerns). */
static bool filling(const struct run *r)
{
	return r->phase == PH_WARMUP || measuring(r);
}

/*
 * Per-group schedules (--start, --pause, --hold-switch) count from the
 * start of the measured time; a group with a --start sends nothing in
 * the warm-up. Burst runs have none (main.c refuses them).
 */
static bool sched_on(const struct run *r)
{
	return r->o->nsched && r->phase == PH_MEASURE;
}

/* group_quiet - whether group g may send no new call at now. */
static bool group_quiet(const struct run *r, const struct group *g, uint64_t now)
{
	const struct sched *s;
	uint64_t t;
	unsigned int i;

	if (!g->start && !g->paused)
		return false;
	if (r->phase == PH_WARMUP)
		return g->start != NULL;
	if (!sched_on(r))
		return false;
	t = now - r->measure_start;
	for (i = 0; i < r->o->nsched; i++) {
		s = &r->o->sched[i];
		if (s->g != g)
			continue;
		if (s->kind == SCHED_START && t < s->from_ns)
			return true;
		if (s->kind == SCHED_PAUSE && s->from_ns <= t && t < s->to_ns)
			return true;
	}
	return false;
}

/*
 * next_wake - when, after now, a quiet group may send again: the first
 * --start or --pause end still ahead (0: none).
 */
static uint64_t next_wake(const struct run *r, uint64_t now)
{
	const struct sched *s;
	uint64_t at, best = 0;
	unsigned int i;

	if (!sched_on(r))
		return 0;
	for (i = 0; i < r->o->nsched; i++) {
		s = &r->o->sched[i];
		if (s->kind == SCHED_START)
			at = r->measure_start + s->from_ns;
		else if (s->kind == SCHED_PAUSE)
			at = r->measure_start + s->to_ns;
		else
			continue;
		if (at > now && (!best || at < best))
			best = at;
	}
	return best;
}

/*
 * group_hold - the hold group g's next call asks: its HOLD list (or the
 * one its latest --hold-switch gave it), cycled call by call from the
 * list's first hold each time the list changes; --hold-us for a group
 * that gave none; spread by --jitter.
 */
static uint32_t group_hold(struct run *r, struct group *g, uint64_t now)
{
	const struct hold_list *l = g->hold.n ? &g->hold : NULL;
	const struct sched *s, *best = NULL;
	uint32_t base;
	uint64_t t;
	unsigned int i;

	if (sched_on(r)) {
		t = now - r->measure_start;
		for (i = 0; i < r->o->nsched; i++) {
			s = &r->o->sched[i];
			if (s->g == g && s->kind == SCHED_SWITCH && s->from_ns <= t &&
			    (!best || s->from_ns >= best->from_ns))
				best = s;
		}
		if (best)
			l = &best->hold;
	}
	if (l != g->cur) {
		g->cur = l;
		g->hold_next = 0;
	}
	if (!l) {
		base = r->o->hold_us;
	} else {
		base = l->us[g->hold_next];
		g->hold_next = (g->hold_next + 1) % l->n;
	}
	return load_hold_us(r->o, base, &r->rng);
}

const char *load_proc_name(enum load_proc proc)
{
	switch (proc) {
	case LOAD_PROC_NULL:	return "null";
	case LOAD_PROC_GETATTR:	return "getattr";
	case LOAD_PROC_V41:	return "v41";
	}
	return "?";
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->up = false;
}

/*
 * conn_fail - report a connection's failure (err: an errno, or 0 when
 * what says it all), close the connection and end the run.
 */
int conn_fail(struct run *r, struct conn *c, const char *what, int err)
{
	if (err)
		fprintf(stderr, "%s: %s: %s: %s\n", PROG_NAME, c->desc, what, strerror(err));
	else
		fprintf(stderr, "%s: %s: %s\n", PROG_NAME, c->desc, what);
	c->g->errors++;
	r->res->failed = true;
	if (r->phase != PH_TEARDOWN)
		r->measure_end = now_ns();
	run_done(r);
	conn_close(c);
	return err ? -err : -ECONNRESET;
}

static void rpc_error(struct run *r, struct conn *c, const char *fmt, ...)
{
	va_list ap;

	c->g->errors++;
	if (r->errors_shown < ERRORS_SHOWN) {
		fprintf(stderr, "%s: %s: ", PROG_NAME, c->desc);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	} else if (r->errors_shown == ERRORS_SHOWN) {
		fprintf(stderr, "%s: further RPC errors are counted, not shown\n", PROG_NAME);
	}
	r->errors_shown++;
}

static int conn_poll(struct run *r, struct conn *c, bool out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c };

	if (c->pollout == out)
		return 0;
	if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, c->fd, &ev))
		return conn_fail(r, c, "epoll_ctl", errno);
	c->pollout = out;
	return 0;
}

/* conn_flush - write what is queued; arm EPOLLOUT while some is left. */
static int conn_flush(struct run *r, struct conn *c)
{
	ssize_t n;

	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return conn_poll(r, c, true);
			return conn_fail(r, c, "send", errno);
		}
		c->out_off += n;
	}
	c->out_off = 0;
	c->out_len = 0;
	return conn_poll(r, c, false);
}

/*
 * conn_out_tail - where the next call to queue goes, once what is already
 * sent is dropped from the buffer; NULL if fewer than RPC_CALL_MAX bytes
 * are free there.
 */
uint8_t *conn_out_tail(struct conn *c)
{
	if (c->out_off) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if ((size_t)c->g->depth * RPC_CALL_MAX - c->out_len < RPC_CALL_MAX)
		return NULL;
	return c->out + c->out_len;
}

/* conn_queue - len bytes were written at conn_out_tail(): send them. */
int conn_queue(struct run *r, struct conn *c, size_t len)
{
	c->out_len += len;
	return conn_flush(r, c);
}

/* conn_fill - put calls in every slot this phase lets the connection use. */
static int conn_fill(struct run *r, struct conn *c)
{
	unsigned int want = 0, idx;
	uint32_t hold;
	struct slot *s;
	uint64_t now;
	uint8_t *p;

	if (!c->ready || !filling(r))
		return 0;
	now = now_ns();
	if (!c->g->burst) {
		if (!group_quiet(r, c->g, now))
			want = c->nfree;
	} else if (r->phase == PH_BURST) {
		want = c->nfree < c->quota ? c->nfree : c->quota;
	}
	if (!want)
		return 0;

	/* every slot's call fits: the buffer holds depth of them */
	conn_out_tail(c);
	while (want--) {
		idx = c->free[--c->nfree];
		s = &c->slots[idx];
		s->xid = c->xid_base + (s->gen++ << c->slot_shift | idx);
		s->busy = true;
		s->sent_ns = now;
		r->outstanding++;
		p = c->out + c->out_len;
		hold = group_hold(r, c->g, now);
		s->hold_us = hold;
		if (r->o->proc == LOAD_PROC_V41)
			c->out_len += session_encode_probe(c, idx, p, hold);
		else
			c->out_len += rpc_encode_call(p, s->xid, r->o->proc, hold);
		if (c->g->burst)
			c->quota--;
	}
	return conn_flush(r, c);
}

static void burst_begin(struct run *r, uint64_t now)
{
	unsigned int n = r->o->burst_n, i, j = 0, nburst = 0;
	struct conn *c;

	for (i = 0; i < r->nconns; i++)
		nburst += r->conns[i].g->burst;
	r->phase = PH_BURST;
	r->phase_end = 0;
	r->burst_left = n;
	r->burst_start = now;
	for (i = 0; i < r->nconns && r->phase == PH_BURST; i++) {
		c = &r->conns[i];
		if (!c->g->burst)
			continue;
		c->quota = n / nburst + (j++ < n % nburst);
		conn_fill(r, c);
	}
}

/* run_done - nothing more to do: run_loop returns. */
void run_done(struct run *r)
{
	r->phase = PH_DONE;
	r->phase_end = 0;
}

/*
 * run_end - the measurement is over. A v4.1 run that went well goes on
 * to tear down: once every outstanding call is answered, session.c
 * destroys each group's sessions and client ID, so that nfsd need not
 * keep them until their lease runs out.
 */
static void run_end(struct run *r, uint64_t now)
{
	uint64_t hold_max_ns;

	r->measure_end = now;
	if (r->o->proc != LOAD_PROC_V41 || r->res->failed) {
		run_done(r);
		return;
	}
	hold_max_ns = (uint64_t)(r->o->hold_max_us * (1 + r->o->jitter_pct / 100) * 1000);
	r->phase = PH_TEARDOWN;
	r->phase_end = now + TEARDOWN_NS + r->outstanding * hold_max_ns;
	if (!r->outstanding)
		session_teardown(r);
}

/* teardown_late - time ran out before the teardown was over. */
static void teardown_late(struct run *r)
{
	fprintf(stderr, "%s: the v4.1 teardown did not finish in time: nfsd keeps the client "
		"IDs until their lease runs out\n", PROG_NAME);
	run_done(r);
}

static void burst_end(struct run *r, uint64_t now)
{
	struct results *res = r->res;

	res->runs_ms[res->nruns++] = (double)(now - r->burst_start) / 1e6;
	if (res->nruns == r->o->repeat) {
		run_end(r, now);
	} else {
		r->phase = PH_GAP;
		r->phase_end = now + BURST_GAP_NS;
	}
}

/*
 * wake_groups - a quiet group's time to send may have come: fill every
 * connection (conn_fill leaves the still quiet ones alone) and set the
 * next such time.
 */
static void wake_groups(struct run *r, uint64_t now)
{
	unsigned int i;

	r->wake = next_wake(r, now);
	for (i = 0; i < r->nconns && r->phase == PH_MEASURE; i++)
		conn_fill(r, &r->conns[i]);
}

/* next_phase - the current phase's time is up. */
static void next_phase(struct run *r, uint64_t now)
{
	switch (r->phase) {
	case PH_WARMUP:
		r->measure_start = now;
		if (r->o->burst_n) {
			burst_begin(r, now);
		} else {
			r->phase = PH_MEASURE;
			r->phase_end = now + (uint64_t)(r->o->duration_s * NSEC);
			if (r->o->nsched)
				wake_groups(r, now);
		}
		break;
	case PH_GAP:
		burst_begin(r, now);
		break;
	case PH_TEARDOWN:
		teardown_late(r);
		break;
	default:
		run_end(r, now);
		break;
	}
}

/* all_connected - every connection is up: start the warm-up. */
static void all_connected(struct run *r, uint64_t now)
{
	unsigned int i;

	r->phase = PH_WARMUP;
	r->phase_end = now + (uint64_t)(r->o->warmup_s * NSEC);
	for (i = 0; i < r->nconns && r->phase != PH_DONE; i++)
		conn_fill(r, &r->conns[i]);
}

/*
 * conn_ready - the connection is set up (connected; for v4.1, bound to
 * its session): it may send calls. The warm-up starts with the last one.
 */
int conn_ready(struct run *r, struct conn *c)
{
	c->ready = true;
	if (--r->npending == 0)
		all_connected(r, now_ns());
	return 0;
}

/*
 * window_add - count a completion in its --window-ms window. Replies read
 * in the loop pass that ends the measurement, a little past its end,
 * count in the last window, as they count in ops.
 */
static void window_add(const struct run *r, struct group *g, uint64_t now)
{
	uint64_t i = (now - r->measure_start) / ((uint64_t)r->o->window_ms * 1000000);

	g->windows[i < r->o->nwindows ? i : r->o->nwindows - 1]++;
}

/*
 * window_thread - spread a completed call's hold over the windows it
 * overlaps, taking it to have ended when its reply came: the hold hook
 * replies as its sleep ends, so under time-travel this is when nfsd held
 * the thread (in real time, a little earlier). A part before the
 * measured time is not counted; one after the last window's end counts
 * in it, as completions do.
 */
static void window_thread(const struct run *r, struct group *g, uint64_t now, uint32_t hold_us)
{
	uint64_t w = (uint64_t)r->o->window_ms * 1000000, n = r->o->nwindows;
	uint64_t end = now - r->measure_start, beg, i, stop;

	beg = end > (uint64_t)hold_us * 1000 ? end - (uint64_t)hold_us * 1000 : 0;
	for (i = beg / w < n ? beg / w : n - 1; beg < end; i++) {
		stop = i + 1 == n || (i + 1) * w > end ? end : (i + 1) * w;
		g->win_thread_ns[i] += stop - beg;
		beg = stop;
	}
}

/* conn_reply - one whole reply record has arrived. */
static int conn_reply(struct run *r, struct conn *c, uint64_t now)
{
	struct group *g = c->g;
	struct rpc_reply rep;
	char why[64];
	unsigned int idx;
	struct slot *s;
	int err;

	if (rpc_decode_reply(c->rec, c->rec_len, &rep))
		return conn_fail(r, c, "reply record", EBADMSG);
	if (c->call_pending && rep.xid == c->call_xid)
		return session_call_reply(r, c, &rep);
	idx = (rep.xid - c->xid_base) & ((1u << c->slot_shift) - 1);
	s = idx < g->depth ? &c->slots[idx] : NULL;
	if (!s || !s->busy || s->xid != rep.xid) {
		rpc_error(r, c, "reply with unknown xid 0x%08x", rep.xid);
		return 0;
	}
	s->busy = false;
	c->free[c->nfree++] = idx;
	r->outstanding--;

	if (rep.status != RPC_REPLY_OK) {
		rpc_reply_describe(&rep, why, sizeof(why));
		rpc_error(r, c, "xid 0x%08x: %s", rep.xid, why);
	} else {
		/* v4.1: anything but the hold's NFS4ERR_STALE ends the run */
		if (r->o->proc == LOAD_PROC_V41) {
			err = session_probe_reply(r, c, idx, &rep);
			if (err)
				return err;
		}
		if (measuring(r)) {
			g->ops++;
			g->thread_us += s->hold_us;
			hist_add(g->lat, now - s->sent_ns);
			if (g->start && !g->first_ns && r->phase == PH_MEASURE &&
			    now - r->measure_start >= g->start->from_ns)
				g->first_ns = now;
			if (g->windows) {
				window_add(r, g, now);
				window_thread(r, g, now, s->hold_us);
			}
		}
	}
	if (g->burst && r->phase == PH_BURST && --r->burst_left == 0)
		burst_end(r, now);
	if (r->phase == PH_TEARDOWN && !r->outstanding)
		session_teardown(r);
	return 0;
}

/* conn_read - read what has arrived, join fragments, handle each record. */
static int conn_read(struct run *r, struct conn *c)
{
	size_t pos = 0, take;
	uint32_t hdr;
	uint64_t now;
	ssize_t n;
	void *p;
	int err;

	n = recv(c->fd, c->in + c->in_len, IN_BUF_SIZE - c->in_len, 0);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		return conn_fail(r, c, "recv", errno);
	}
	if (n == 0)
		return conn_fail(r, c, "the server closed the connection", 0);
	now = now_ns();
	c->in_len += n;

	for (;;) {
		if (!c->in_frag) {
			if (c->in_len - pos < 4)
				break;
			hdr = (uint32_t)c->in[pos] << 24 | (uint32_t)c->in[pos + 1] << 16 |
			      (uint32_t)c->in[pos + 2] << 8 | c->in[pos + 3];
			pos += 4;
			c->in_frag = true;
			c->frag_last = hdr >> 31;
			c->frag_left = hdr & 0x7fffffff;
			if (c->rec_len + c->frag_left > RPC_RECORD_MAX)
				return conn_fail(r, c, "reply record", EMSGSIZE);
			if (c->rec_len + c->frag_left > c->rec_cap) {
				p = realloc(c->rec, c->rec_len + c->frag_left);
				if (!p)
					return conn_fail(r, c, "reply record", ENOMEM);
				c->rec = p;
				c->rec_cap = c->rec_len + c->frag_left;
			}
		}
		take = c->in_len - pos < c->frag_left ? c->in_len - pos : c->frag_left;
		memcpy(c->rec + c->rec_len, c->in + pos, take);
		c->rec_len += take;
		c->frag_left -= take;
		pos += take;
		if (c->frag_left)
			break;
		c->in_frag = false;
		if (c->frag_last) {
			err = conn_reply(r, c, now);
			c->rec_len = 0;
			if (err || r->phase == PH_DONE)
				return err;
		}
	}
	memmove(c->in, c->in + pos, c->in_len - pos);
	c->in_len -= pos;
	return conn_fill(r, c);
}

static int conn_connected(struct run *r, struct conn *c)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof(int);
	char src[80], dst[80];
	int soerr = 0;

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
		soerr = errno;
	if (soerr)
		return conn_fail(r, c, "connect", soerr);
	len = sizeof(local);
	if (!getsockname(c->fd, (struct sockaddr *)&local, &len) &&
	    !format_addr(&local, true, src, sizeof(src)) &&
	    !format_addr(&r->o->server, true, dst, sizeof(dst)))
		snprintf(c->desc, sizeof(c->desc), "group %s: %s -> %s", c->g->name, src, dst);
	c->up = true;
	if (conn_poll(r, c, false))
		return -EIO;
	if (r->o->proc == LOAD_PROC_V41)
		return session_conn_up(r, c);
	return conn_ready(r, c);
}

static int conn_event(struct run *r, struct conn *c, uint32_t events)
{
	int err;

	if (c->fd < 0)
		return 0;
	if (!c->up)
		return conn_connected(r, c);
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		err = conn_read(r, c);
		if (err || c->fd < 0)
			return err;
	}
	if ((events & EPOLLOUT) && c->out_len)
		return conn_flush(r, c);
	return 0;
}

static int conn_init(struct run *r, struct conn *c, struct group *g, unsigned int id)
{
	char src[80], dst[80];
	unsigned int i;

	c->g = g;
	c->fd = -1;
	c->xid_base = load_xid_base(id);
	while ((1u << c->slot_shift) < g->depth)
		c->slot_shift++;
	c->slots = calloc(g->depth, sizeof(*c->slots));
	c->free = calloc(g->depth, sizeof(*c->free));
	c->out = malloc((size_t)g->depth * RPC_CALL_MAX);
	c->in = malloc(IN_BUF_SIZE);
	c->rec_cap = 4096;
	c->rec = malloc(c->rec_cap);
	if (!c->slots || !c->free || !c->out || !c->in || !c->rec)
		return -ENOMEM;
	for (i = 0; i < g->depth; i++)
		c->free[i] = g->depth - 1 - i;
	c->nfree = g->depth;
	format_addr(&g->src, false, src, sizeof(src));
	format_addr(&r->o->server, true, dst, sizeof(dst));
	snprintf(c->desc, sizeof(c->desc), "group %s: %s -> %s", g->name, src, dst);
	return 0;
}

static void conn_free(struct conn *c)
{
	conn_close(c);
	free(c->slots);
	free(c->free);
	free(c->out);
	free(c->in);
	free(c->rec);
}

/* conn_open - socket, bind to the group's source, start connecting. */
static int conn_open(struct run *r, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };
	int one = 1;

	c->fd = socket(r->o->server.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return conn_fail(r, c, "socket", errno);
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	if (bind(c->fd, (const struct sockaddr *)&c->g->src, c->g->src_len))
		return conn_fail(r, c, "bind", errno);
	if (connect(c->fd, (const struct sockaddr *)&r->o->server, r->o->server_len) &&
	    errno != EINPROGRESS)
		return conn_fail(r, c, "connect", errno);
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, c->fd, &ev))
		return conn_fail(r, c, "epoll_ctl", errno);
	c->pollout = true;
	return 0;
}

static void raise_nofile(unsigned int need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static int run_loop(struct run *r)
{
	struct epoll_event ev[MAX_EVENTS];
	uint64_t now, until;
	int i, n, ms;

	while (r->phase != PH_DONE) {
		now = now_ns();
		if (now >= r->deadline && r->phase == PH_TEARDOWN) {
			teardown_late(r);
			break;
		}
		if (now >= r->deadline) {
			r->res->timed_out = true;
			r->measure_end = now;
			break;
		}
		if (r->phase_end && now >= r->phase_end) {
			next_phase(r, now);
			continue;
		}
		if (stop_asked && r->phase == PH_MEASURE && now > r->measure_start) {
			run_end(r, now);
			continue;
		}
		if (r->wake && now >= r->wake && r->phase == PH_MEASURE) {
			wake_groups(r, now);
			continue;
		}
		until = r->phase_end && r->phase_end < r->deadline ? r->phase_end : r->deadline;
		if (r->wake && r->phase == PH_MEASURE && r->wake < until)
			until = r->wake;
		ms = (int)((until - now + 999999) / 1000000);
		n = epoll_wait(r->epfd, ev, MAX_EVENTS, ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: epoll_wait: %s\n", PROG_NAME, strerror(errno));
			return -errno;
		}
		for (i = 0; i < n && r->phase != PH_DONE; i++)
			conn_event(r, ev[i].data.ptr, ev[i].events);
	}
	return 0;
}

/*
 * load_run - open every group's connections and drive them to the end of
 * the run. Returns 0 when the run happened (res says whether it timed out
 * or lost a connection), a negative errno when it could not be set up.
 */
int load_run(const struct options *o, struct results *res)
{
	struct run r = { .o = o, .res = res, .epfd = -1, .phase = PH_CONNECT };
	struct sigaction sa = { .sa_handler = ask_stop };
	unsigned int gi, i, id = 0;
	int err = -ENOMEM;

	/* No SA_RESTART: the signal wakes epoll_wait, which sees EINTR. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);

	r.deadline = now_ns() + (uint64_t)(o->timeout_s * NSEC);
	r.rng = (uint64_t)time(NULL) << 20 ^ (uint64_t)getpid() ^ 0x9e3779b97f4a7c15ull;
	for (gi = 0; gi < o->ngroups; gi++)
		r.nconns += o->groups[gi].conns;
	res->runs_ms = calloc(o->repeat ? o->repeat : 1, sizeof(*res->runs_ms));
	r.conns = calloc(r.nconns, sizeof(*r.conns));
	if (!res->runs_ms || !r.conns)
		goto out;
	for (i = 0; i < r.nconns; i++)
		r.conns[i].fd = -1;
	for (gi = 0; gi < o->ngroups; gi++) {
		for (i = 0; i < o->groups[gi].conns; i++, id++) {
			err = conn_init(&r, &r.conns[id], &o->groups[gi], id);
			if (err)
				goto out;
		}
	}
	err = session_init(&r);
	if (err)
		goto out;
	raise_nofile(r.nconns + 32);
	r.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r.epfd < 0) {
		err = -errno;
		goto out;
	}
	r.npending = r.nconns;
	for (i = 0; i < r.nconns && r.phase != PH_DONE; i++)
		conn_open(&r, &r.conns[i]);
	err = run_loop(&r);
	res->start_ns = r.measure_start;
	if (r.measure_start && r.measure_end > r.measure_start)
		res->duration_s = (double)(r.measure_end - r.measure_start) / NSEC;
out:
	if (err == -ENOMEM)
		fprintf(stderr, "%s: out of memory\n", PROG_NAME);
	else if (err && !res->failed)
		fprintf(stderr, "%s: %s\n", PROG_NAME, strerror(-err));
	if (r.conns)
		for (i = 0; i < r.nconns; i++)
			conn_free(&r.conns[i]);
	free(r.conns);
	session_free(&r);
	if (r.epfd >= 0)
		close(r.epfd);
	return err;
}
