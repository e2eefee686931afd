// SPDX-License-Identifier: GPL-2.0
/*
 * nfsfaird: keeps the kernel's nfsfair table in step with YAML class
 * definitions. Loads the configuration, resolves its hostnames, applies
 * its origin's rules with one atomic replace, then re-resolves on a timer
 * and reloads on SIGHUP. A bad configuration changes nothing.
 */
#define _GNU_SOURCE	/* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

#define DEFAULT_CONFIG	"/etc/nfsfair/nfsfair.yaml"
#define DEFAULT_DROPINS	"/etc/nfsfair/conf.d"
#define DEFAULT_STATE	"/run/nfsfair"
/* Debian's prometheus-node-exporter reads *.prom there (its textfile collector). */
#define DEFAULT_METRICS_DIR	"/var/lib/prometheus/node-exporter"

struct daemon {
	const char *config;
	const char *dropins;
	unsigned int refresh;	/* seconds between re-resolving */
	const char *state_dir;
	const char *netns;	/* names the files in state_dir, if given */
	char owned_path[4096];	/* the classes we created, for this origin */
	char status_path[4096];
	bool state_warned;	/* said once that state_dir is not writable */
	const char *metrics_path;	/* the node exporter's textfile; NULL: none */
	bool metrics_warned;	/* said that it cannot be written, since the last write that worked */
	struct metrics metrics;
	struct owned owned;
	time_t applied_at;	/* of the last successful apply */
	bool changed;		/* by it */
	uint64_t generation;	/* after it */
	char kept[512];		/* classes the file dropped that were kept, and why */
	char unsaved[4096 + 64];	/* owned_path: why it is not saved */
	struct cfg cfg;
	struct resolver res;
	struct want want;
	bool have_want;
	char last_apply[64];
	char last_error[NFSFAIR_ERR_LEN];	/* of the last apply */
	char load_error[NFSFAIR_ERR_LEN];	/* of the last load, until one works */
};

static const char usage[] =
	"Usage: nfsfaird [OPTION]...\n"
	"Keep the kernel's nfsfair table in step with YAML class definitions.\n"
	"\n"
	"  -c, --config FILE     main file (default " DEFAULT_CONFIG ")\n"
	"  -d, --conf-dir DIR    drop-ins, *.yaml read in name order after FILE\n"
	"                        (default " DEFAULT_DROPINS ")\n"
	"      --check           validate, resolve, print the table it would apply and\n"
	"                        what it would move of the peers connected now, exit\n"
	"      --json            with --check: one JSON document\n"
	"      --once            apply once and exit\n"
	"  -f, --foreground      stay in the foreground (systemd runs it so)\n"
	"  -r, --refresh SECS    re-resolve a hostname when its DNS records expire, and\n"
	"                        at least every SECS seconds, 10 to 86400\n"
	"                        (default 300)\n"
	"  -n, --netns NAME      work on the table of network namespace NAME\n"
	"      --state-dir DIR   where the classes it created and its status are\n"
	"                        kept (default " DEFAULT_STATE ")\n"
	"      --metrics-file FILE\n"
	"                        after each load and apply, replace FILE with gauges\n"
	"                        for Prometheus's node exporter: the last apply, its\n"
	"                        success, the kernel's nfsfair family; \"\" for none\n"
	"                        (default " DEFAULT_METRICS_DIR "/\n"
	"                        nfsfaird.prom, with -n NAME nfsfaird.NAME.prom)\n"
	"      --status          print the running daemon's status: hostnames with\n"
	"                        their addresses and last resolution, the last\n"
	"                        apply and the table's generation\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 success, 1 configuration or kernel error, 2 usage.\n";

static void state_path(struct daemon *d, char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s%s%s", d->state_dir, name, d->netns ? "." : "",
		 d->netns ? d->netns : "");
}

/* Not being able to keep state costs ownership across restarts, not the table. */
static void state_error(struct daemon *d, const char *path, int err)
{
	if (d->state_warned)
		return;
	fprintf(stderr, "nfsfaird: %s: %s, ignoring\n", path, strerror(-err));
	d->state_warned = true;
}

static void status_line(struct daemon *d)
{
	size_t ok, failing;
	const char *error = d->load_error[0] ? d->load_error : d->last_error;
	struct status st = {
		.origin = d->want.origin, .nr_classes = d->want.nr_classes,
		.nr_rules = d->want.nr_rules, .generation = d->generation,
		.last_apply = d->applied_at, .changed = d->changed, .error = error,
		.kept = d->kept, .unsaved = d->owned.dirty ? d->unsaved : "",
	};
	time_t oldest = resolver_oldest(&d->res);
	char age[48] = "";
	int ret;

	resolver_counts(&d->res, &ok, &failing);
	if (oldest)
		snprintf(age, sizeof(age), ", oldest %lld s ago",
			 (long long)(time(NULL) - oldest));
	notify("STATUS=%zu classes, %zu rules, %zu/%zu hosts resolved%s, last apply %s%s%s",
	       d->want.nr_classes, d->want.nr_rules, ok, ok + failing, age,
	       d->last_apply[0] ? d->last_apply : "never",
	       *error ? ", last error: " : "", error);
	ret = status_write(d->status_path, &st, &d->res);
	if (ret)
		state_error(d, d->status_path, ret);
}

/*
 * The metrics file after a load or an apply. One that cannot be written
 * (no node exporter's directory here) is said once, until a write works.
 */
static void metrics_update(struct daemon *d)
{
	int ret;

	if (!d->metrics_path)
		return;
	ret = metrics_write(d->metrics_path, &d->metrics);
	if (!ret) {
		d->metrics_warned = false;
		return;
	}
	if (d->metrics_warned)
		return;
	fprintf(stderr, "nfsfaird: %s: %s, no metrics written there (--metrics-file)\n",
		d->metrics_path, strerror(-ret));
	d->metrics_warned = true;
}

/* The classes file is per origin: a new origin starts from what that one made. */
static void owned_open(struct daemon *d)
{
	char path[sizeof(d->owned_path)], name[32];
	int ret;

	snprintf(name, sizeof(name), "classes.%u", d->want.origin);
	state_path(d, path, sizeof(path), name);
	if (!strcmp(path, d->owned_path))
		return;
	snprintf(d->owned_path, sizeof(d->owned_path), "%s", path);
	owned_free(&d->owned);
	ret = owned_load(&d->owned, path);
	if (ret)
		fprintf(stderr, "nfsfaird: %s: %s, starting with no classes of ours\n", path,
			strerror(-ret));
}

/* Load, check and resolve into a new configuration; the old one stays on error. */
static int load(struct daemon *d, bool first)
{
	struct want want = {};
	struct cfg cfg;
	int ret;

	cfg_init(&cfg, stderr);
	ret = cfg_load_dir(&cfg, d->config, d->dropins);
	if (!ret)
		ret = cfg_check(&cfg);
	if (!ret)
		ret = want_build(&want, &cfg, &d->res, RES_STRICT);
	if (ret) {
		/* Every failure is reported above; out of memory is the one counted nowhere. */
		if (!cfg.errors)
			fprintf(stderr, "nfsfaird: %s: %s\n", d->config, strerror(-ret));
		fprintf(stderr, "nfsfaird: %s has %u error(s): %s\n", d->config,
			cfg.errors ? cfg.errors : 1,
			first ? "nothing applied" : "keeping the previous configuration");
		snprintf(d->load_error, sizeof(d->load_error), "%s: %u error(s)", d->config,
			 cfg.errors ? cfg.errors : 1);
		want_free(&want);
		cfg_free(&cfg);
		d->metrics.loaded = false;
		metrics_update(d);
		return -EINVAL;
	}
	if (!first) {
		cfg_free(&d->cfg);
		want_free(&d->want);
	}
	d->cfg = cfg;
	d->want = want;
	d->have_want = true;
	d->load_error[0] = '\0';
	resolver_prune(&d->res, &d->cfg);
	d->metrics.loaded = true;
	metrics_update(d);
	return 0;
}

static int apply(struct daemon *d)
{
	struct apply_result res;
	char when[32];
	time_t now = time(NULL);
	bool changed;
	int ret;

	owned_open(d);
	ret = apply_want(&d->want, &d->owned, d->kept, &res);
	changed = res.changed;
	if (d->owned.dirty) {
		int err = owned_save(&d->owned, d->owned_path);

		if (err) {
			state_error(d, d->owned_path, err);
			snprintf(d->unsaved, sizeof(d->unsaved), "%s: %s", d->owned_path,
				 strerror(-err));
		}
	}
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	d->metrics.last_apply = now;
	d->metrics.success = !ret;
	if (res.family)
		d->metrics.family = 1;
	else if (ret == -ENOENT)
		d->metrics.family = 0;
	if (!ret)
		d->metrics.last_success = now;
	metrics_update(d);
	if (ret) {
		/* Retried every 5 s: said again only when the reason changes. */
		if (strcmp(d->last_error, res.err))
			fprintf(stderr, "nfsfaird: applying the table failed: %s\n", res.err);
		snprintf(d->last_error, sizeof(d->last_error), "%s", res.err);
		return ret;
	}
	d->applied_at = now;
	d->changed = changed;
	d->generation = res.generation;
	snprintf(d->kept, sizeof(d->kept), "%s", res.kept);
	snprintf(d->last_apply, sizeof(d->last_apply), "%s (%s)", when,
		 changed ? "changed" : "no change");
	fprintf(stderr, "nfsfaird: %zu classes, %zu rules of origin %u: %s\n",
		d->want.nr_classes, d->want.nr_rules, d->want.origin,
		changed ? "applied" : "already in place, nothing written");
	d->last_error[0] = '\0';
	return 0;
}

/* Re-resolve every name; apply only if the answers changed the table. */
static void refresh(struct daemon *d)
{
	struct want want;

	if (want_build(&want, &d->cfg, &d->res, RES_REFRESH)) {
		want_free(&want);
		return;
	}
	want_free(&d->want);
	d->want = want;
	apply(d);
}

/*
 * Answer the signals pending on @fd: false for SIGTERM or SIGINT (stop),
 * one reload for any number of SIGHUPs. Before the first apply (@ready
 * false) a reload only reads the files again: that apply comes next.
 */
static bool signals(struct daemon *d, int fd, bool ready)
{
	struct signalfd_siginfo si;
	struct timespec ts;
	bool hup = false;

	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo != SIGHUP) {
			notify("STOPPING=1");
			return false;
		}
		hup = true;
	}
	if (!hup)
		return true;
	if (ready) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		notify("RELOADING=1\nMONOTONIC_USEC=%llu",
		       (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
	}
	fprintf(stderr, "nfsfaird: reloading %s\n", d->config);
	if (!load(d, false) && ready)
		apply(d);
	if (ready)
		notify("READY=1");
	return true;
}

/*
 * daemon(0, 1), but the signals of @mask sent to the parent, the pid the
 * caller knows, are passed on to the child: pending in a process that
 * exits they were lost (a SIGHUP during the first load gave no reload).
 * The child goes on once the parent has passed them and gone. A signal
 * that comes between its last look and its exit is still lost.
 */
static int detach(const sigset_t *mask)
{
	static const struct timespec now;
	int fds[2], sig;
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid) {
		while ((sig = sigtimedwait(mask, NULL, &now)) > 0)
			kill(pid, sig);
		_exit(0);	/* closes fds[1]: the child's read returns */
	}
	close(fds[1]);
	while (read(fds[0], &c, 1) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (setsid() < 0 || chdir("/"))
		return -1;
	return 0;
}

static int run(struct daemon *d, bool foreground)
{
	struct pollfd pfd = { .events = POLLIN };
	sigset_t mask;
	bool ready = false;
	time_t due;
	int timeout;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	pfd.fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (pfd.fd < 0) {
		perror("nfsfaird: signalfd");
		return 1;
	}
	if (!foreground && detach(&mask)) {
		perror("nfsfaird: daemon");
		return 1;
	}
	/* A SIGHUP since the start: the first apply is of the files as they are now. */
	if (!signals(d, pfd.fd, false))
		return 0;
	for (;;) {
		int ret = ready ? 0 : apply(d);

		/*
		 * A kernel without the family (asking for it loads sunrpc when
		 * that can help) stays without it: retrying is a loop.
		 */
		if (!ready && ret == -ENOENT) {
			notify("STATUS=this kernel has no nfsfair family");
			return NFSFAIRD_EXIT_NO_FAMILY;
		}
		if (!ready && !ret) {
			/* READY only once the kernel has the configured table. */
			notify("READY=1");
			ready = true;
		}
		status_line(d);
		/*
		 * Until an apply works, the first or a later one the kernel
		 * refused (a stale generation, a cap), retry it every 5 s.
		 */
		due = resolver_due(&d->res);
		timeout = due ? (int)(due - resolver_now()) : (int)d->refresh;
		if ((!ready || d->last_error[0]) && timeout > 5)
			timeout = 5;
		if (timeout < 1)
			timeout = 1;
		if (poll(&pfd, 1, timeout * 1000) < 0 && errno != EINTR)
			return 1;
		if (!(pfd.revents & POLLIN)) {
			/* A retry looks names up only when they are due. */
			if (ready && d->last_error[0] && (!due || due > resolver_now()))
				apply(d);
			else if (ready)
				refresh(d);
			continue;
		}
		if (!signals(d, pfd.fd, ready))
			return 0;
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "conf-dir", required_argument, NULL, 'd' },
		{ "check", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "once", no_argument, NULL, 'O' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "refresh", required_argument, NULL, 'r' },
		{ "netns", required_argument, NULL, 'n' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ "status", no_argument, NULL, 's' },
		{ "metrics-file", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct daemon d = {
		.config = DEFAULT_CONFIG, .dropins = DEFAULT_DROPINS, .refresh = 300,
		.state_dir = DEFAULT_STATE,
	};
	bool check = false, once = false, foreground = false, status = false, json = false;
	const char *metrics_file = NULL;
	char metrics_path[4096];
	char err[NFSFAIR_ERR_LEN], *end;
	const char *netns = NULL;
	sigset_t hup, old;
	unsigned long v;
	int c, ret;

	/*
	 * From the start, a SIGHUP is kept pending, not the end of the daemon
	 * (the first load's lookups may take seconds): run() answers it.
	 */
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	sigprocmask(SIG_BLOCK, &hup, &old);
	while ((c = getopt_long(argc, argv, "c:d:fr:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.config = optarg;
			break;
		case 'd':
			d.dropins = optarg;
			break;
		case 'C':
			check = true;
			break;
		case 'J':
			json = true;
			break;
		case 'O':
			once = true;
			break;
		case 'f':
			foreground = true;
			break;
		case 'r':
			v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || v < 10 || v > 86400) {
				fprintf(stderr, "nfsfaird: --refresh '%s': seconds from 10 to 86400\n",
					optarg);
				return 2;
			}
			d.refresh = v;
			break;
		case 'n':
			netns = optarg;
			break;
		case 'S':
			d.state_dir = optarg;
			break;
		case 's':
			status = true;
			break;
		case 'M':
			metrics_file = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nfsfaird: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (check + once + status > 1) {
		fprintf(stderr, "nfsfaird: --check, --once and --status do not go together\n");
		return 2;
	}
	if (json && !check) {
		fprintf(stderr, "nfsfaird: --json goes with --check\n");
		return 2;
	}
	d.netns = netns;
	state_path(&d, d.status_path, sizeof(d.status_path), "status");
	/* --check and --status write nothing. */
	if (!metrics_file) {
		snprintf(metrics_path, sizeof(metrics_path), "%s/nfsfaird%s%s.prom",
			 DEFAULT_METRICS_DIR, netns ? "." : "", netns ? netns : "");
		metrics_file = metrics_path;
	}
	if (!check && !status && *metrics_file)
		d.metrics_path = metrics_file;
	d.metrics.netns = netns ? netns : "";
	d.metrics.family = -1;
	if (check || once || status)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (status)
		return status_print(d.status_path);
	if (!check && mkdir(d.state_dir, 0755) && errno != EEXIST)
		state_error(&d, d.state_dir, -errno);
	if (netns && nfsfair_netns_enter(netns, err)) {
		fprintf(stderr, "nfsfaird: %s\n", err);
		return 1;
	}
	d.res.refresh = d.refresh;
	if (load(&d, true))
		return 1;
	if (check) {
		ret = check_report(&d.want, d.config, json);
	} else if (once) {
		ret = apply(&d) ? 1 : 0;
		status_line(&d);
	} else {
		ret = run(&d, foreground);
	}
	want_free(&d.want);
	cfg_free(&d.cfg);
	resolver_free(&d.res);
	owned_free(&d.owned);
	return ret;
}
