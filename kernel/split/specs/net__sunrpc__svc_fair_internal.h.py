m.whole('table')
m.line('#define SVC_FAIR_MAX_HOSTS', 'overflow', n=4)
m.line('#define SVC_FAIR_OWNER_SIZE', 'clientid')
# thread-time constants: dispatch; the active window: hold
m.span('Fair in thread-time (svc_fair.c)', 'SVC_FAIR_REFUND_NS', 'dispatch')
m.line(' * Fair in thread-time (svc_fair.c): a client that was idle banks at most', 'hold', n=6,
       alt=''' * Fair in thread-time (svc_fair.c): a client that was idle banks at most
 * a quantum, which is also the guess for a call before any ended.
 */''')
m.line('#define SVC_FAIR_ACTIVE_NS', 'hold', n=2)
m.line('/* The clock fair dispatch charges', 'dispatch', n=6)
# gauges
m.span('struct svc_fair_stats - gauges', '};', 'stats')
m.line(' * @peers: distinct peer addresses', 'peers')
m.line(' * Both change at bind and unbind only', 'stats', n=2, alt=' * Both change at bind and unbind only.')
m.line('\tatomic_t\t\tpeers;', 'peers')
m.span('struct svc_fair_totals - dispatch counters', '};', 'stats')
m.line(' * @qtime_ns: sum of ready', 'stats', n=2)
m.line(' * @cost_ns: the costliest', 'peers')
m.line('\tu64\t\t\tqtime_ns;', 'stats', n=2)
m.line('\tu64\t\t\tcost_ns;', 'peers')
# class
m.line(' * @fc_limit: most threads', 'limit')
m.line(' * @fc_stats: gauges', 'stats')
m.line(' * @fc_threads: threads serving the class within', 'limit', n=8)
m.line(' * @fc_qtime_max_ns: longest wait', 'stats', n=5)
m.span(' * @fc_zero: the class', 'svc_fair_class_totals().', 'stats')
m.line('\tu32\t\t\tfc_limit;', 'limit')
m.line('\tstruct svc_fair_stats\tfc_stats;', 'stats')
m.line('\tatomic_t\t\tfc_threads;', 'limit', n=6)
m.line('\tatomic64_t\t\tfc_qtime_max_ns;', 'stats', n=5)
# rule
m.line(' * @fr_per_client: group by', 'clientid', n=3)
m.line(' * @fr_origin: who owns', 'edits')
m.line('\tbool\t\t\tfr_per_client;', 'clientid', n=2)
m.line('\tu8\t\t\tfr_origin;', 'edits')
# ident
m.span('struct svc_fair_ident - who an upper layer', '};', 'clientid')
# key and below: dispatch
m.line('\tstruct svc_fair_prefix\thost;\t\t/* PER_HOST, OVERFLOW; CLIENT_ID: its peer */', 'clientid',
       alt='\tstruct svc_fair_prefix\thost;\t\t/* SVC_FAIR_PER_HOST */')
m.line('\tu64\t\t\tid;\t\t/* SVC_FAIR_CLIENT_ID */', 'clientid', n=2)
m.span('/* Why a client with work is out', '};', 'limit | hold')
m.line('\tSVC_FAIR_PARKED_LIMIT,', 'limit')
m.line('\tSVC_FAIR_PARKED_HELD,', 'hold')
m.span('struct svc_fair_queue - a client', '};', 'dispatch')
m.line(' * @q_parked_list: entry', 'limit | hold')
m.line(' * @q_queued: transports on', 'stats', n=5)
m.line(' * @q_qtime_max_ns: the longest', 'stats')
m.line(' * @q_thread_ns: the thread-time of its calls', 'stats')
m.line(' * @q_parked: an enum', 'limit | hold')
m.line(' * Everything but @q_cost_ns and the atomics', 'stats', n=3,
       alt=' * Everything but @q_cost_ns and the atomics is under the pool\'s\n * sp_fair_lock.')
m.line('\tstruct list_head\tq_parked_list;', 'limit | hold')
m.line('\tu32\t\t\tq_queued;', 'stats', n=4)
m.line('\tatomic64_t\t\tq_thread_ns;', 'stats')
m.line('\tu8\t\t\tq_parked;', 'limit | hold')
m._add(m.find('struct svc_fair_client - one client of one service') - 1, m.find('};', m.find('SVC_FAIR_CL_FREED,')) + 1, 'dispatch')
m.line(' * @cl_stats: gauges', 'stats')
m.line('\tstruct svc_fair_stats\tcl_stats;', 'stats')
m.line(' * @cl_peers_lock: protects', 'peers', n=2)
m.line(' * @cl_evicted: a client-ID', 'clientid', n=4)
m.line('\tspinlock_t\t\tcl_peers_lock;', 'peers', n=2)
m.line('\tbool\t\t\tcl_evicted;', 'clientid', n=3)
m.span('struct svc_fair_serv - a service', '};', 'dispatch')
m.line(' * @sf_lock: protects the client table', 'clientid', alt='''@{ overflow
 * @sf_lock: protects the client table, @sf_hosts and @sf_overflows
@|
 * @sf_lock: protects the client table
@}''')
m.line(' * @sf_hosts: per-host and client-ID', 'overflow', n=2)
m.line(' * @sf_id_hosts: how many', 'clientid')
m.line(' * @sf_serv: the service, for a class', 'limit')
m.line('\tunsigned int\t\tsf_hosts;', 'overflow', n=2)
m.line('\tDECLARE_HASHTABLE(sf_id_hosts, 6);', 'clientid')
m.line('\tstruct svc_serv\t\t*sf_serv;', 'limit')
m.span('/* svc.c and svc_xprt.c, behind', 'struct list_head *list);', 'dispatch')
if m.has('bool svc_fair_wants_thread('):
    m.line('bool svc_fair_wants_thread(', 'limit')
# table declarations
m.line('\t\t\t\t\tu8 per_host_len, u32 ids_per_host, u8 origin);', 'clientid', alt='''@{ edits
					u8 per_host_len, u8 origin);
@|
					u8 per_host_len);
@}''')
m.line('bool svc_fair_rule_equal(', 'edits')
m.line('\t\t    const struct svc_fair_ident *ident, struct svc_fair_key *key);', 'clientid',
       alt='\t\t    struct svc_fair_key *key);')
m.line('void svc_fair_key_release(struct svc_fair_key *key);', 'dispatch')
m.span('/* Services of a namespace, for the client dump */', 'void svc_fair_serv_unregister(', 'dispatch')
m.span('/* svc_fair.c, for the class dump */', 'void svc_fair_class_limit_restart(', 'limit')
m.span('/* svc_fair_client.c, for the round */', 'bool svc_fair_client_idle(', 'dispatch')
m.span('/* Counters, for the dumps', '\t\t\t\t\t      struct svc_fair_class *class);', 'stats')
m.span('static inline struct svc_fair_class *svc_fair_client_class(', '}', 'dispatch')
m.line('unsigned int svc_fair_client_peer_conns(', 'peers', n=2)
m.line('/* svc_fair_netlink.c */', 'edits', n=3)
m.span('#if IS_ENABLED(CONFIG_KUNIT)', '#endif', 'stats')
m.line('void svc_fair_pool_init(struct svc_pool *pool);', 'dispatch', n=4)
m.line('int svc_fair_netlink_init(void);', 'family', n=2)
_a = m.find('/* A transport bound to a client is enqueued') - 1
m._add(_a, m.find('#else') - 1, 'dispatch')
for _t in ('svc_fair_pool_init', 'svc_fair_serv_destroy', 'svc_fair_unbind', 'svc_fair_thread_idle', 'svc_fair_xprt_bound'):
    m.block('static inline %s %s(' % ('bool' if 'bound' in _t else 'void', _t), 'dispatch', after='#else')
for _t in ('int svc_fair_netlink_init', 'void svc_fair_netlink_exit'):
    m.block('static inline ' + _t + '(', 'family', after='#else')

# the trie
m.span(' * A node of the compiled lookup', '};', 'trie')
m.line(' * struct svc_fair_table - the rules in order, and their compiled lookup', 'trie',
       alt=' * struct svc_fair_table - the rules in order')
m.line(' * @ft_nr_nodes: trie nodes in use', 'trie', n=3)
m.line('\tu32\t\t\tft_nr_nodes;', 'trie', n=3)
m.line(' * Immutable once published: every change compiles a new table.', 'trie',
       alt=' * Immutable once published: every change builds a new table.')
m.line('/* The compiled lookup, exposed for KUnit */', 'trie', alt='/* The lookup, exposed for KUnit */')
# hits
m.line(' * @fr_hits: connections classified by it', 'dump')
m.line('\tatomic64_t\t\tfr_hits;', 'dump')
# gauges: stats
m.line('#define SVC_FAIR_QTIME_SAMPLE', 'stats', n=2)
m.line('int svc_fair_class_del(struct svc_fair_net *fn, const char *name,', 'edits', n=2)
