# net/sunrpc/svc_fair_kunit.c: the core's cases come with kunit, each
# other case with the feature whose code it needs (the latest one), a
# helper with the first feature that uses it. Lines of a core case that
# check what a later feature adds (hits, gauges, counters, peers, the
# trie's size) come with that feature.

m.whole('kunit')

# Cases that test core code only but are not on the core's short list
# (round_robin, control_first, weights, no_burst, single_queue_turns,
# time_mixed_and_switch, time_arrival): the latest feature whose code
# they need is a core one, so they are core. Set MORE to a feature added
# for them to move them, and their helper take(), out of the core.
MORE = 'kunit'


def case(name, expr):
    """A case: its function (with the comment above) and its KUNIT_CASE."""
    if expr == 'kunit':
        return
    m.block(f'static void svc_fair_test_{name}(struct kunit *test)', expr)
    m.line(f'\tKUNIT_CASE(svc_fair_test_{name}),', expr)


def after(start, text, expr, n=1):
    """The line with text (not unique) first after the one with start, and n-1 more."""
    a = m.find(text, m.find(start))
    m._add(a, a + n - 1, expr)


# Includes, with what uses them
m.line('#include <linux/kthread.h>', 'bench')
m.line('#include <linux/sort.h>', 'bench')
m.line('#include <net/genetlink.h>', 'stats')
m.line('#include <uapi/linux/nfsfair_netlink.h>', 'clientid')

# The lookup against the reference: in the core, the rules in order; the
# trie's size bound with trie
m.line('KUNIT_EXPECT_LE(test, t->ft_nr_nodes, 2 * param->nr_rules);', 'trie')

# Rules of the fixture's table: the rule's origin comes with edits,
# ids_per_host with clientid: svc_fair_rule_new(prefix, class,
# per_host_len) in the core, (..., u8 origin) from edits, (..., u32
# ids_per_host, u8 origin) from clientid.
m.line('static struct svc_fair_rule *fixture_rule_of(', 'clientid', n=3, alt='''\
static struct svc_fair_rule *fixture_rule(struct kunit *test, struct fair_fixture *fx,
					  const char *prefix, const char *class,
					  u8 per_host_len)''')
m.line('\t\t\t      per_host_len, ids_per_host, 0);', 'clientid', alt='''\
@{ edits
			      per_host_len, 0);
@|
			      per_host_len);
@}''')
m.block('static struct svc_fair_rule *fixture_rule(', 'clientid')

# Counters: a client's and a class's dispatches
m.block('static u64 client_dispatches(', 'stats')
m.block('static u64 class_dispatches(', 'stats')

# classify: the core's, less the gauges, the peers counts and the hits
m.line('KUNIT_EXPECT_EQ(test, atomic_read(&a->xpt_fair->cl_stats.connections), 2);', 'stats')
m.line('KUNIT_EXPECT_EQ(test, atomic_read(&a->xpt_fair->cl_stats.peers), 2);', 'peers', n=2)
m.line('KUNIT_EXPECT_EQ(test, atomic_read(&c->xpt_fair->cl_stats.peers), 2);', 'peers')
m.line('KUNIT_EXPECT_EQ(test, atomic64_read(&rules[1]->fr_hits), 2);', 'dump')
m.line('KUNIT_EXPECT_EQ(test, atomic_read(&b->xpt_fair->cl_stats.peers), 1);', 'peers')

# The cap on per-host clients and the overflow clients
case('host_cap', 'overflow')
case('overflow_prefixes', 'overflow')

# Dispatch order
if MORE != 'kunit':
    m.block('static struct svc_xprt *take(struct kunit *test', MORE)
for name in ('round_robin', 'control_first', 'weights', 'no_burst'):
    case(name, MORE)
m.line('KUNIT_EXPECT_EQ(test, client_dispatches(x[0]->xpt_fair), 4);', 'stats')

# Thread-time: the model's limit lifting comes with limit
m.line('\tstruct svc_fair_class\t*lift;', 'limit', n=2)
m.line('\t\tif (s->lift && rel >= s->lift_at) {', 'limit', n=4)
case('time_mixed_and_switch', MORE)
case('time_interactive', 'hold')	# the heavy host kept from the last thread
case('time_arrival', MORE)
case('time_limit', 'limit')
case('time_limit_no_debt', 'limit')

# Live edits
case('class_change_keeps_bindings', 'edits')	# class-set, -new, -del: no rebind
_rb = 'static void svc_fair_test_rebind(struct kunit *test)'
after(_rb, 'KUNIT_EXPECT_EQ(test, atomic_read(&old->cl_stats.connections), 3);', 'stats', n=4)
after(_rb, 'KUNIT_EXPECT_EQ(test, atomic_read(&old->cl_stats.peers), 1);', 'peers')
after(_rb, 'KUNIT_EXPECT_EQ(test, atomic_read(&movers->fc_stats.peers), 1);', 'peers')
m.line('KUNIT_EXPECT_EQ(test, client_dispatches(old), 2);', 'stats', n=2)
after(_rb, 'KUNIT_EXPECT_EQ(test, atomic_read(&movers->fc_stats.connections), 4);', 'stats', n=3)
m.line('KUNIT_EXPECT_EQ(test, atomic_read(&movers->fc_stats.peers), 1);', 'peers', nth=2)
case('rebind_class_and_flush', 'edits')	# class_del
after('static void svc_fair_test_rebind_class_and_flush(',
      'KUNIT_EXPECT_EQ(test, fx->serv->sv_fair->sf_hosts, 0);', 'overflow')
case('single_queue_turns', MORE)

# Per-client rules
m.block('static void identify(struct svc_xprt *x, u64 id)', 'clientid')
case('per_client', 'clientid')
case('ids_per_host', 'clientid')

case('rule_keeps_class', 'edits')	# class_del
# refused_commit: the core's; class_del comes with edits
m.line('KUNIT_EXPECT_EQ(test, svc_fair_class_del(fx->fn, "movers", NULL), -EBUSY);', 'edits')

# Class limits
m.line('KUNIT_DEFINE_ACTION_WRAPPER(serv_destroy_action,', 'limit', n=2)
case('limit_other_service', 'limit')
case('limit', 'limit')
case('class_get_pools', 'stats')	# pool nests in class-get's reply
case('limit_close_first', 'limit')
case('thread_keeps_client', 'limit')	# fc_threads, fc_threads_max

# The benchmark suite, and the blank line after it
_bench_if = m.find('#if IS_ENABLED(CONFIG_SUNRPC_FAIR_KUNIT_BENCH)')
_bench_endif = m.find('#endif /* CONFIG_SUNRPC_FAIR_KUNIT_BENCH */')
m._add(_bench_if, _bench_endif + 1, 'bench')

# The lookup against a naive first-match scan tests the trie: with it.
m.line(' * KUnit tests for SUNRPC fair dispatch: the compiled rule lookup against', 'trie', n=3,
       alt=''' * KUnit tests for SUNRPC fair dispatch: peers and per-host clients, and
 * the order in which a pool dispatches its clients' transports.''')
m.line('#include <linux/prandom.h>', 'trie')
_l0 = m.find('/* Lookup against the reference */')
_l1 = m.close(m.find('static void svc_fair_test_lookup(struct kunit *test)'))
m._add(_l0, _l1 + 1, 'trie')
m.line('static struct kunit_case svc_fair_lookup_cases[] = {', 'trie', n=9)
m.line('kunit_test_suites(&svc_fair_lookup_suite, &svc_fair_dispatch_suite);', 'trie',
       alt='kunit_test_suite(svc_fair_dispatch_suite);')
