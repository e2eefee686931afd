// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink conversation with the nfsfair family, written once: socket,
 * family resolution, send, ack, extack and receive. A command builds a
 * message and gives a callback per reply; a refusal leaves the kernel's
 * extack message and the attribute it points at for the caller to print.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "nfsfair.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* More than any attribute set of the family has. */
#define NL_MAXATTR 32

struct nfsfair_nl {
	struct nl_sock *sk;
	int family;
	char extack[NFSFAIR_ERR_LEN];
	int bad_attr;		/* top-level attribute the kernel pointed at, or -1 */
	int bad_nested;		/* and inside it, for nests, or -1 */
	int bad_index;		/* how many attributes of bad_attr's type came before */
	struct nlattr *cur;	/* in a callback: the reply's attributes, for multi-attr */
	int cur_len;
};

struct nl_run {
	struct nfsfair_nl *nl;
	struct nl_msg *req;
	int maxattr;
	nfsfair_nl_cb cb;
	void *arg;
	int err;
	bool done;
	bool intr;	/* the table changed between the parts of a dump */
};

int nfsfair_netns_enter(const char *name, char *err)
{
	static const char *const dirs[] = { "/run/netns", "/var/run/netns" };
	char path[256];
	unsigned int i;
	int fd = -1, ret;

	if (strchr(name, '/')) {
		snprintf(err, NFSFAIR_ERR_LEN, "'%s': a namespace name has no '/'", name);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		ret = -errno;
		snprintf(err, NFSFAIR_ERR_LEN, "network namespace '%s': %s", name, strerror(errno));
		return ret;
	}
	ret = setns(fd, CLONE_NEWNET) ? -errno : 0;
	if (ret)
		snprintf(err, NFSFAIR_ERR_LEN, "network namespace '%s': %s", name, strerror(-ret));
	close(fd);
	return ret;
}

int nfsfair_nl_open(struct nfsfair_nl **nlp, char *err)
{
	struct nfsfair_nl *nl;
	int one = 1, ret;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		ret = -ENOMEM;
		goto free_nl;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		snprintf(err, NFSFAIR_ERR_LEN, "netlink: %s", nl_geterror(ret));
		ret = -EIO;
		goto free_sock;
	}
	/* Ask for the kernel's reasons, and not our own request echoed back. */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, NFSFAIR_FAMILY_NAME);
	if (nl->family < 0) {
		snprintf(err, NFSFAIR_ERR_LEN,
			 "this kernel has no '%s' netlink family: it lacks the nfsfair series (nfsfair-dkms puts it on Debian's kernel)",
			 NFSFAIR_FAMILY_NAME);
		ret = -ENOENT;
		goto free_sock;
	}
	*nlp = nl;
	return 0;

free_sock:
	nl_socket_free(nl->sk);
free_nl:
	free(nl);
	return ret;
}

void nfsfair_nl_close(struct nfsfair_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

/*
 * A request for CMD, room for a few attributes; nfsfair_nl_msg_big() for
 * a whole table (131072 rules of about 32 bytes fit in 8 MiB).
 */
static struct nl_msg *msg_put(struct nfsfair_nl *nl, struct nl_msg *msg, uint8_t cmd, bool dump)
{
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, NFSFAIR_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *nfsfair_nl_msg_big(struct nfsfair_nl *nl, uint8_t cmd)
{
	return msg_put(nl, nlmsg_alloc_size(NFSFAIR_NL_MSG_MAX), cmd, false);
}

struct nl_msg *nfsfair_nl_msg(struct nfsfair_nl *nl, uint8_t cmd, bool dump)
{
	return msg_put(nl, nlmsg_alloc(), cmd, dump);
}

/* Which of our attributes sits at byte OFF of the request we sent. */
static void locate_attr(struct nfsfair_nl *nl, struct nl_msg *req, uint32_t off)
{
	struct nlmsghdr *nlh = nlmsg_hdr(req);
	struct nlattr *a, *n;
	int rem, nrem;
	uint32_t start;

	int seen[NL_MAXATTR + 1] = { 0 };

	nlmsg_for_each_attr(a, nlh, GENL_HDRLEN, rem) {
		start = (char *)a - (char *)nlh;
		if (off < start || off >= start + a->nla_len) {
			if (nla_type(a) <= NL_MAXATTR)
				seen[nla_type(a)]++;
			continue;
		}
		nl->bad_attr = nla_type(a);
		nl->bad_index = nla_type(a) <= NL_MAXATTR ? seen[nla_type(a)] : 0;
		if (off == start || !(a->nla_type & NLA_F_NESTED) ||
		    nla_len(a) < (int)sizeof(struct nlattr))
			return;
		nla_for_each_nested(n, a, nrem) {
			start = (char *)n - (char *)nlh;
			if (off >= start && off < start + n->nla_len)
				nl->bad_nested = nla_type(n);
		}
		return;
	}
}

static void parse_extack(struct nl_run *run, struct nlmsghdr *nlh, struct nlmsgerr *e)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	unsigned int ack_len = sizeof(*nlh) + sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		ack_len += e->msg.nlmsg_len - sizeof(*nlh);
	if (nlh->nlmsg_len <= ack_len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + ack_len),
		      nlh->nlmsg_len - ack_len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(run->nl->extack, sizeof(run->nl->extack), "%.*s",
			 nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	else if (tb[NLMSGERR_ATTR_MISS_TYPE])
		snprintf(run->nl->extack, sizeof(run->nl->extack), "missing attribute %u",
			 nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]));
	if (tb[NLMSGERR_ATTR_OFFS] && run->req)
		locate_attr(run->nl, run->req, nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
}

static int on_error(struct sockaddr_nl *sa, struct nlmsgerr *e, void *arg)
{
	struct nl_run *run = arg;
	struct nlmsghdr *nlh = (struct nlmsghdr *)e - 1;

	(void)sa;
	run->err = e->error;
	run->done = true;
	if (e->error && (nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		parse_extack(run, nlh, e);
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct nl_run *run = arg;

	(void)msg;
	run->done = true;
	return NL_STOP;
}

/* The end of a dump, which carries the dump's error if it failed midway. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nl_run *run = arg;
	int err;

	if (nlmsg_datalen(nlh) >= (int)sizeof(err)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0 && !run->err)
			run->err = err;
	}
	run->done = true;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[NL_MAXATTR + 1];
	struct nl_run *run = arg;
	int ret;

	if (!run->cb)
		return NL_OK;
	memset(tb, 0, sizeof(tb));
	ret = genlmsg_parse(nlmsg_hdr(msg), 0, tb, run->maxattr, NULL);
	if (ret < 0) {
		run->err = -EPROTO;
		return NL_STOP;
	}
	run->nl->cur = genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0);
	run->nl->cur_len = genlmsg_attrlen(nlmsg_data(nlmsg_hdr(msg)), 0);
	ret = run->cb(tb, run->arg);
	run->nl->cur = NULL;
	run->nl->cur_len = 0;
	if (ret < 0)
		run->err = ret;
	else if (ret > 0)
		run->done = true;
	return ret ? NL_STOP : NL_OK;
}

/* Marked by the kernel (genl_dump_check_consistent); read on to the end. */
static int on_dump_intr(struct nl_msg *msg, void *arg)
{
	struct nl_run *run = arg;

	(void)msg;
	run->intr = true;
	return NL_OK;
}

static struct nl_cb *run_cb(struct nl_run *run)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);

	if (!cb)
		return NULL;
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, run);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, run);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, run);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, run);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, on_dump_intr, run);
	return cb;
}

/*
 * The kernel refuses a request longer than the socket's send buffer: raise
 * it for a big table (SO_SNDBUFFORCE, as root may; else as far as wmem_max).
 */
static void grow_sndbuf(struct nfsfair_nl *nl, uint32_t len)
{
	int fd = nl_socket_get_fd(nl->sk), size = 2 * len + 4096;

	if (len < 65536)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

/*
 * Send MSG (consumed) and receive until the ack or the end of the dump,
 * calling CB for each reply. Returns 0, or the kernel's -errno with its
 * message in nfsfair_nl_extack().
 */
int nfsfair_nl_run(struct nfsfair_nl *nl, struct nl_msg *msg, int maxattr,
		   nfsfair_nl_cb cb, void *arg)
{
	struct nl_run run = {
		.nl = nl, .req = msg, .maxattr = maxattr, .cb = cb, .arg = arg,
	};
	struct nl_cb *nlcb;
	int ret;

	nl->extack[0] = '\0';
	nl->bad_attr = -1;
	nl->bad_nested = -1;
	nl->bad_index = 0;
	if (maxattr > NL_MAXATTR) {
		ret = -EINVAL;
		goto free_msg;
	}
	nlcb = run_cb(&run);
	if (!nlcb) {
		ret = -ENOMEM;
		goto free_msg;
	}
	grow_sndbuf(nl, nlmsg_hdr(msg)->nlmsg_len);
	ret = nl_send_auto(nl->sk, msg);
	if (ret < 0) {
		ret = -EIO;
		goto free_cb;
	}
	while (!run.done) {
		ret = nl_recvmsgs(nl->sk, nlcb);
		if (ret < 0 && !run.done) {
			run.err = run.err ? run.err : -EIO;
			break;
		}
		if (run.err)
			break;
	}
	ret = run.err;
	/* Parts of two tables do not go together: the caller reads again. */
	if (!ret && run.intr) {
		ret = -EAGAIN;
		snprintf(nl->extack, sizeof(nl->extack), "the table changed while it was read");
	}
free_cb:
	nl_cb_put(nlcb);
free_msg:
	nlmsg_free(msg);
	return ret;
}

int nfsfair_nl_subscribe(struct nfsfair_nl *nl, const char *group)
{
	int grp = genl_ctrl_resolve_grp(nl->sk, NFSFAIR_FAMILY_NAME, group);

	if (grp < 0)
		return -ENOENT;
	nl_socket_disable_seq_check(nl->sk);
	return nl_socket_add_membership(nl->sk, grp) < 0 ? -EIO : 0;
}

/* Notifications carry no sequence number of ours. */
static int no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/* Receive notifications until CB returns nonzero (> 0: stop, < 0: error). */
int nfsfair_nl_listen(struct nfsfair_nl *nl, int maxattr, nfsfair_nl_cb cb, void *arg)
{
	struct nl_run run = { .nl = nl, .maxattr = maxattr, .cb = cb, .arg = arg };
	struct nl_cb *nlcb;
	int ret = 0;

	if (maxattr > NL_MAXATTR)
		return -EINVAL;
	nlcb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!nlcb)
		return -ENOMEM;
	nl_cb_set(nlcb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &run);
	while (!run.err && !run.done) {
		ret = nl_recvmsgs(nl->sk, nlcb);
		if (ret < 0 && !run.err && !run.done) {
			run.err = -EIO;
			break;
		}
	}
	nl_cb_put(nlcb);
	return run.err < 0 ? run.err : 0;
}

const char *nfsfair_nl_extack(const struct nfsfair_nl *nl)
{
	return nl->extack;
}

/*
 * The request attribute the last refusal pointed at, or -1; *nested: the
 * attribute inside it; *index: its place among attributes of its type.
 */
int nfsfair_nl_bad_attr(const struct nfsfair_nl *nl, int *nested, int *index)
{
	if (nested)
		*nested = nl->bad_nested;
	if (index)
		*index = nl->bad_index;
	return nl->bad_attr;
}

/* The family's integers are "uint": 4 or 8 bytes, as the value needs. */
uint64_t nfsfair_nla_uint(const struct nlattr *a)
{
	if (!a)
		return 0;
	if (nla_len(a) == sizeof(uint32_t))
		return nla_get_u32((struct nlattr *)a);
	if (nla_len(a) == sizeof(uint64_t))
		return nla_get_u64((struct nlattr *)a);
	return 0;
}

int nfsfair_nla_put_prefix(struct nl_msg *msg, int attr4, int attr6, int attr_len,
			   const struct nfsfair_prefix *p)
{
	if (p->family == AF_INET) {
		if (nla_put(msg, attr4, 4, p->addr) < 0)
			return -EMSGSIZE;
	} else if (nla_put(msg, attr6, 16, p->addr) < 0) {
		return -EMSGSIZE;
	}
	return nla_put_u32(msg, attr_len, p->len) < 0 ? -EMSGSIZE : 0;
}

/*
 * A rule's match and target (and origin), in the rule attribute set. A
 * per-client rule's ids-per-host goes only when it is not the default,
 * which the kernel takes for none: a kernel from before ids-per-host
 * refuses the attribute, and still takes every rule that does not use it.
 */
int nfsfair_nla_put_rule(struct nl_msg *msg, const struct nfsfair_rule *r, bool origin)
{
	uint32_t ids = nfsfair_target_ids_per_host(&r->target);
	uint8_t phl;

	if (nfsfair_nla_put_prefix(msg, NFSFAIR_A_RULE_ADDR4, NFSFAIR_A_RULE_ADDR6,
				   NFSFAIR_A_RULE_PREFIX_LEN, &r->prefix) < 0)
		return -EMSGSIZE;
	if (r->target.kind == NFSFAIR_TARGET_CLASS) {
		if (nla_put_string(msg, NFSFAIR_A_RULE_CLASS, r->target.class) < 0)
			return -EMSGSIZE;
	} else {
		phl = nfsfair_target_per_host_len(&r->target, r->prefix.family);
		if (nla_put_u32(msg, NFSFAIR_A_RULE_PER_HOST_LEN, phl) < 0)
			return -EMSGSIZE;
		if (r->target.kind == NFSFAIR_TARGET_PER_CLIENT &&
		    nla_put_flag(msg, NFSFAIR_A_RULE_PER_CLIENT) < 0)
			return -EMSGSIZE;
		if (ids && ids != NFSFAIR_IDS_PER_HOST_DEFAULT &&
		    nla_put_u32(msg, NFSFAIR_A_RULE_IDS_PER_HOST, ids) < 0)
			return -EMSGSIZE;
	}
	if (origin && nla_put_u32(msg, NFSFAIR_A_RULE_ORIGIN, r->origin) < 0)
		return -EMSGSIZE;
	return 0;
}

int nfsfair_nla_get_rule(struct nlattr **tb, struct nfsfair_rule *r)
{
	memset(r, 0, sizeof(*r));
	if (tb[NFSFAIR_A_RULE_ADDR4] && nla_len(tb[NFSFAIR_A_RULE_ADDR4]) == 4) {
		r->prefix.family = AF_INET;
		memcpy(r->prefix.addr, nla_data(tb[NFSFAIR_A_RULE_ADDR4]), 4);
	} else if (tb[NFSFAIR_A_RULE_ADDR6] && nla_len(tb[NFSFAIR_A_RULE_ADDR6]) == 16) {
		r->prefix.family = AF_INET6;
		memcpy(r->prefix.addr, nla_data(tb[NFSFAIR_A_RULE_ADDR6]), 16);
	} else {
		return -EPROTO;
	}
	if (tb[NFSFAIR_A_RULE_PREFIX_LEN])
		r->prefix.len = nfsfair_nla_uint(tb[NFSFAIR_A_RULE_PREFIX_LEN]);
	if (tb[NFSFAIR_A_RULE_CLASS]) {
		r->target.kind = NFSFAIR_TARGET_CLASS;
		snprintf(r->target.class, sizeof(r->target.class), "%s",
			 nla_get_string(tb[NFSFAIR_A_RULE_CLASS]));
	} else {
		r->target.kind = tb[NFSFAIR_A_RULE_PER_CLIENT] ? NFSFAIR_TARGET_PER_CLIENT :
							       NFSFAIR_TARGET_PER_HOST;
		if (tb[NFSFAIR_A_RULE_PER_HOST_LEN])
			r->target.per_host_len = nfsfair_nla_uint(tb[NFSFAIR_A_RULE_PER_HOST_LEN]);
		if (r->target.kind == NFSFAIR_TARGET_PER_CLIENT)
			r->target.ids_per_host = nfsfair_nla_uint(tb[NFSFAIR_A_RULE_IDS_PER_HOST]);
	}
	if (tb[NFSFAIR_A_RULE_POSITION])
		r->position = nfsfair_nla_uint(tb[NFSFAIR_A_RULE_POSITION]);
	if (tb[NFSFAIR_A_RULE_ORIGIN])
		r->origin = nfsfair_nla_uint(tb[NFSFAIR_A_RULE_ORIGIN]);
	r->hits = nfsfair_nla_uint(tb[NFSFAIR_A_RULE_HITS]);
	return 0;
}

/*
 * In a callback: @fn on each attribute of @type in the reply at hand, in
 * order. For multi-attr nests, of which the parsed tb[] keeps the last.
 */
int nfsfair_nl_each(const struct nfsfair_nl *nl, int type,
		    int (*fn)(const struct nlattr *a, void *arg), void *arg)
{
	struct nlattr *a;
	int rem, ret;

	if (!nl->cur)
		return 0;
	nla_for_each_attr(a, nl->cur, nl->cur_len, rem) {
		if (nla_type(a) != type)
			continue;
		ret = fn(a, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A class's name and weight, and its limit when @limit_too: a kernel
 * without limits refuses the attribute, so it is sent only when it says
 * something (a limit, or clearing one).
 */
int nfsfair_nla_put_class(struct nl_msg *msg, const char *name, uint32_t weight, uint32_t limit,
			  bool limit_too)
{
	if (nla_put_string(msg, NFSFAIR_A_CLASS_NAME, name) < 0 ||
	    nla_put_u32(msg, NFSFAIR_A_CLASS_WEIGHT, weight) < 0 ||
	    (limit_too && nla_put_u32(msg, NFSFAIR_A_CLASS_LIMIT, limit) < 0))
		return -EMSGSIZE;
	return 0;
}
