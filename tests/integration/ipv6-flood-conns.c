// SPDX-License-Identifier: GPL-2.0
/*
 * ipv6-flood-conns: the flood of tests/integration/ipv6-flood.sh. Opens
 * COUNT TCP connections to nfsd, the i-th bound to PREFIX + i + 1 (the
 * addresses are already on lo), sends one NFSv3 GETATTR of the hold
 * hook's handle, held 0 us, on each and reads its reply, so nfsd has
 * accepted, read and classified every one. (A handle, not a NULL call:
 * 7.3's nfsd closes temporary connections past 64 that never presented
 * one, and the hold handle stands in for a real one.)
 * Then it keeps them open, idle, and prints one line:
 *
 *   open COUNT connected C first-replies R failed F seconds S
 *
 * SIGUSR1 makes the flood busy: every connection keeps one GETATTR of
 * the hold hook's handle (held HOLD_US) outstanding. SIGUSR2 prints
 *
 *   busy replies R served S of COUNT closed X errors E at T
 *
 * (S: connections with at least one busy reply; T: CLOCK_MONOTONIC,
 * seconds). SIGTERM prints that line once more and closes the flood the
 * orderly way: a FIN on every connection, which TCP sends again until
 * it is acknowledged, then reads until nfsd closes its end, for at most
 * CLOSE_S seconds, and prints
 *
 *   end closed-by-nfsd C of OPEN reset R in S
 *
 * (OPEN: connections open at SIGTERM; C: those nfsd closed, R of them by
 * a reset, its close dropping a request it had not read). An exit with
 * the connections open would abort those with replies unread, and a
 * reset is never sent again: one lost (lo drops what overflows its
 * backlog) leaves nfsd the connection, idle, until it ages out minutes
 * later. The exit status is 0 when no connection failed, closed before
 * SIGTERM or got an RPC-level error, 1 otherwise; the end line says
 * whether nfsd closed them all. One thread, one epoll loop, signals
 * through a signalfd. Built inside the guest by the suite.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NFS_PROGRAM	100003
#define NFS_V3		3
#define BUF_SIZE	512	/* NULL and stale-handle GETATTR replies are ~40 bytes */

enum state { C_CONNECTING, C_FIRST_SENT, C_IDLE, C_BUSY, C_CLOSING, C_DEAD };

struct conn {
	int fd;
	enum state state;
	uint32_t served;	/* busy replies */
	size_t have;
	uint8_t buf[BUF_SIZE];
};

static struct conn *conns;
static unsigned int count, batch = 128, hold_us = 5000, close_s = 120, in_flight, next_open;
static unsigned int first_replies, failed, closed, errors, closing, nfsd_closed, nfsd_reset;
static unsigned long long busy_replies;
static struct in6_addr prefix, server;
static unsigned short port = 2049;
static int epfd;
static bool busy;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
	return p + 4;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/* One NFSv3 call, record mark included: GETATTR of the hold handle, held @us. */
static size_t encode_call(uint8_t *buf, uint32_t xid, uint32_t us)
{
	static const uint8_t magic[8] = { 'N', 'F', 'S', 'F', 'A', 'I', 'R', 0x01 };
	uint8_t *p = buf + 4;

	p = put32(p, xid);
	p = put32(p, 0);		/* CALL */
	p = put32(p, 2);		/* RPC version */
	p = put32(p, NFS_PROGRAM);
	p = put32(p, NFS_V3);
	p = put32(p, 1);		/* GETATTR */
	/* AUTH_SYS uid 0 gid 0, machine "flood", as nfsfair-load sends */
	p = put32(p, 1);
	p = put32(p, 4 + 4 + 8 + 4 + 4 + 4);
	p = put32(p, 0);
	p = put32(p, 5);
	memcpy(p, "flood\0\0\0", 8);
	p += 8;
	p = put32(p, 0);
	p = put32(p, 0);
	p = put32(p, 0);
	p = put32(p, 0);		/* verifier AUTH_NONE */
	p = put32(p, 0);
	p = put32(p, 16);
	memcpy(p, magic, 8);
	put32(p + 8, us);
	put32(p + 12, 0);
	p += 16;
	put32(buf, 0x80000000u | (uint32_t)(p - buf - 4));
	return p - buf;
}

static void conn_fail(struct conn *c, unsigned int *counter)
{
	if (c->state == C_DEAD)
		return;
	if (c->state == C_CONNECTING || c->state == C_FIRST_SENT)
		in_flight--;
	c->state = C_DEAD;
	(*counter)++;
	if (c->fd >= 0) {
		epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
}

/* Calls are a hundred bytes on an idle socket: a short write is a failure. */
/* The first call holds no time, a busy one HOLD_US. */
static void conn_send(struct conn *c, bool busy_call)
{
	uint8_t call[128];
	size_t len = encode_call(call, (uint32_t)(c - conns), busy_call ? hold_us : 0);

	if (send(c->fd, call, len, MSG_NOSIGNAL) != (ssize_t)len)
		conn_fail(c, &failed);
}

static void conn_open(unsigned int i)
{
	struct conn *c = &conns[i];
	struct sockaddr_in6 src = { .sin6_family = AF_INET6, .sin6_addr = prefix };
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6, .sin6_addr = server,
				    .sin6_port = htons(port) };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.u32 = i };
	uint32_t low = get32(&src.sin6_addr.s6_addr[12]) + i + 1;

	put32(&src.sin6_addr.s6_addr[12], low);
	in_flight++;
	c->state = C_CONNECTING;
	c->fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&src, sizeof(src)) ||
	    (connect(c->fd, (struct sockaddr *)&dst, sizeof(dst)) && errno != EINPROGRESS) ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev)) {
		char a[INET6_ADDRSTRLEN];

		fprintf(stderr, "ipv6-flood-conns: %s: %s\n",
			inet_ntop(AF_INET6, &src.sin6_addr, a, sizeof(a)), strerror(errno));
		conn_fail(c, &failed);
	}
}

static void open_more(void)
{
	while (next_open < count && in_flight < batch)
		conn_open(next_open++);
}

/* A whole reply record: count it and, when busy, send the next call. */
static void conn_reply(struct conn *c, const uint8_t *rec, size_t len)
{
	/* xid, REPLY, MSG_ACCEPTED, verifier AUTH_NONE 0, accept_stat SUCCESS */
	if (len < 24 || get32(rec + 4) != 1 || get32(rec + 8) != 0 || get32(rec + 20) != 0) {
		if (!errors++) {
			size_t i;

			fprintf(stderr, "ipv6-flood-conns: bad reply:");
			for (i = 0; i + 4 <= len && i < 64; i += 4)
				fprintf(stderr, " %08x", get32(rec + i));
			fprintf(stderr, "\n");
		}
		return;
	}
	if (c->state == C_FIRST_SENT) {
		first_replies++;
		in_flight--;
		c->state = C_IDLE;
		if (busy) {
			c->state = C_BUSY;
			conn_send(c, true);
		}
		return;
	}
	if (c->state == C_BUSY) {
		busy_replies++;
		c->served++;
		if (busy)
			conn_send(c, true);
		else
			c->state = C_IDLE;
	}
}

/* A closing connection: replies still coming are dropped; nfsd's close ends it. */
static void conn_drain(struct conn *c)
{
	ssize_t n;

	do
		n = recv(c->fd, c->buf, sizeof(c->buf), 0);
	while (n > 0);
	if (n < 0 && errno == EAGAIN)
		return;
	nfsd_closed++;
	if (n < 0)
		nfsd_reset++;
	closing--;
	c->state = C_DEAD;
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
}

static void conn_event(struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = c - conns };
	ssize_t n;
	int err = 0;
	socklen_t len = sizeof(err);

	if (c->state == C_DEAD)
		return;
	if (c->state == C_CONNECTING) {
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
			conn_fail(c, &failed);
			return;
		}
		epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
		c->state = C_FIRST_SENT;
		conn_send(c, false);
		return;
	}
	if (c->state == C_CLOSING) {
		conn_drain(c);
		return;
	}
	for (;;) {
		n = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			conn_fail(c, c->state == C_FIRST_SENT ? &failed : &closed);
			return;
		}
		if (n < 0)
			return;
		c->have += n;
		while (c->have >= 4) {
			uint32_t rlen = get32(c->buf) & 0x7fffffffu;

			if (rlen > sizeof(c->buf) - 4) {
				errors++;
				conn_fail(c, &closed);
				return;
			}
			if (c->have < 4 + rlen)
				break;
			conn_reply(c, c->buf + 4, rlen);
			if (c->state == C_DEAD)
				return;
			c->have -= 4 + rlen;
			memmove(c->buf, c->buf + 4 + rlen, c->have);
		}
	}
}

static void print_busy(void)
{
	unsigned int i, served = 0;

	for (i = 0; i < count; i++)
		served += conns[i].served > 0;
	printf("busy replies %llu served %u of %u closed %u errors %u at %.3f\n",
	       busy_replies, served, count, closed, errors, now_s());
	fflush(stdout);
}

static void go_busy(void)
{
	unsigned int i;

	busy = true;
	for (i = 0; i < count; i++) {
		if (conns[i].state != C_IDLE)
			continue;
		conns[i].state = C_BUSY;
		conn_send(&conns[i], true);
	}
}

/* SIGTERM: a FIN on every open connection; nfsd's close ends each. */
static void close_all(void)
{
	unsigned int i;

	busy = false;
	next_open = count;
	for (i = 0; i < count; i++) {
		struct conn *c = &conns[i];

		if (c->state == C_DEAD)
			continue;
		if (c->state == C_CONNECTING || c->state == C_FIRST_SENT)
			in_flight--;
		c->state = C_CLOSING;
		closing++;
		shutdown(c->fd, SHUT_WR);
	}
}

static void usage(void)
{
	fprintf(stderr, "Usage: ipv6-flood-conns PREFIX COUNT SERVER [PORT [HOLD_US [BATCH [CLOSE_S]]]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct epoll_event evs[64];
	struct rlimit rl;
	sigset_t sigs;
	double start, end_at = 0;
	bool reported = false;
	int sfd, n, i;

	if (argc < 4 || argc > 8 || inet_pton(AF_INET6, argv[1], &prefix) != 1 ||
	    inet_pton(AF_INET6, argv[3], &server) != 1)
		usage();
	count = strtoul(argv[2], NULL, 0);
	if (argc > 4)
		port = strtoul(argv[4], NULL, 0);
	if (argc > 5)
		hold_us = strtoul(argv[5], NULL, 0);
	if (argc > 6)
		batch = strtoul(argv[6], NULL, 0);
	if (argc > 7)
		close_s = strtoul(argv[7], NULL, 0);
	if (!count || !batch)
		usage();

	/* one descriptor per connection, beyond the default 1024 */
	rl.rlim_cur = rl.rlim_max = count + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("ipv6-flood-conns: setrlimit");
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGUSR2);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	conns = calloc(count, sizeof(*conns));
	if (sfd < 0 || epfd < 0 || !conns) {
		perror("ipv6-flood-conns");
		return 1;
	}
	epoll_ctl(epfd, EPOLL_CTL_ADD, sfd,
		  &(struct epoll_event){ .events = EPOLLIN, .data.u32 = UINT32_MAX });

	start = now_s();
	open_more();
	for (;;) {
		if (!reported && next_open == count && !in_flight) {
			printf("open %u connected %u first-replies %u failed %u seconds %.1f\n",
			       count, count - failed, first_replies, failed, now_s() - start);
			fflush(stdout);
			reported = true;
		}
		if (end_at && (!closing || now_s() > end_at)) {
			printf("end closed-by-nfsd %u of %u reset %u in %.1f\n", nfsd_closed,
			       nfsd_closed + closing, nfsd_reset, now_s() - (end_at - close_s));
			fflush(stdout);
			return failed || closed || errors;
		}
		n = epoll_wait(epfd, evs, 64, end_at ? 200 : -1);
		if (n < 0 && errno != EINTR) {
			perror("ipv6-flood-conns: epoll_wait");
			return 1;
		}
		for (i = 0; i < n; i++) {
			struct signalfd_siginfo si;

			if (evs[i].data.u32 != UINT32_MAX) {
				conn_event(&conns[evs[i].data.u32], evs[i].events);
				continue;
			}
			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGUSR1)
					go_busy();
				else if (si.ssi_signo == SIGUSR2)
					print_busy();
				else if (!end_at) {
					print_busy();
					close_all();
					end_at = now_s() + close_s;
				}
			}
		}
		open_more();
	}
}
