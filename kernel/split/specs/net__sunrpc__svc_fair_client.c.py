m.whole('dispatch')
# header
m.line(' * a per-host address, an NFSv4.1 client ID under a per-client rule, or', 'clientid', n=4,
       alt=''' * a per-host address, or the default client. When the table changes,
 * the transport moves to the client it belongs to now when it is next
 * dispatched (svc_fair_rebind).''')
m.line(' *  - sf_lock (per service, BH-safe) protects the client table, sf_hosts,', 'clientid', n=2,
       alt='''@{ overflow
 *  - sf_lock (per service, BH-safe) protects the client table, sf_hosts
 *    and sf_overflows. A client's refcount is raised only under it, so a client
@|
 *  - sf_lock (per service, BH-safe) protects the client table. A
 *    client's refcount is raised only under it, so a client
@}''')
m.line(' *  - cl_peers_lock (per client, BH-safe)', 'peers')
m.line(' *  - xpt_fair_ident is replaced with xchg', 'clientid', n=2)
# keys
m.line('\telse if (key->kind == SVC_FAIR_PER_HOST || key->kind == SVC_FAIR_OVERFLOW)', 'overflow',
       alt='\telse if (key->kind == SVC_FAIR_PER_HOST)')
m.line('\telse if (key->kind == SVC_FAIR_CLIENT_ID)', 'clientid', n=2)
m.line('\tcase SVC_FAIR_OVERFLOW:', 'overflow')
m.line('\tcase SVC_FAIR_CLIENT_ID:', 'clientid', n=2)
m.block('static bool svc_fair_key_capped(', 'overflow')
m.block('static bool svc_fair_key_prefixed(', 'overflow')
m.block('static u32 svc_fair_key_overflow(', 'overflow')
m.span(' * How many client-ID clients a peer address', '};', 'clientid')
m.block('static struct svc_fair_id_host *svc_fair_id_host_find(', 'clientid')
m.block('static bool svc_fair_id_admit(', 'clientid')
m.block('static void svc_fair_id_release(', 'clientid')
# serv
m.line('\thash_init(sf->sf_id_hosts);', 'clientid')
m.line('\tsf->sf_serv = serv;', 'limit')
m.block('static struct svc_fair_client *svc_fair_client_find_locked(', 'clientid')
_f = m.find('static struct svc_fair_client *svc_fair_client_find(')
_l = m.find('\t\tif (svc_fair_key_equal(&cl->cl_key, key) && !cl->cl_evicted &&', _f)
m._add(_l, _l + 1, 'clientid', ['\t\tif (svc_fair_key_equal(&cl->cl_key, key) &&',
                                '\t\t    refcount_inc_not_zero(&cl->cl_ref))'])
m.block('static bool svc_fair_id_evict(', 'clientid')
m.line('\tspin_lock_init(&cl->cl_peers_lock);', 'peers', n=2)
m.line('\t\tINIT_LIST_HEAD(&cl->cl_queues[i].q_parked_list);', 'limit | hold')
# client_get
m.line(' * into a new client; an existing client leaves it to the caller. A new', 'clientid', n=5,
       alt=' * into a new client; an existing client leaves it to the caller.')
m.line('\t\t\t\t\t\t   struct svc_fair_key *key,', 'clientid', n=2,
       alt='\t\t\t\t\t\t   struct svc_fair_key *key)')
m.line('\tstruct svc_fair_id_host *spare = NULL;', 'clientid')
m.line('\tif (key->kind == SVC_FAIR_CLIENT_ID && svc_fair_id_evict(sf, key, hash)) {', 'clientid', n=5)
_g = m.find('static struct svc_fair_client *svc_fair_client_get(')
_s = m.find('\t\tspare = kzalloc(sizeof(*spare), GFP_KERNEL);', _g)
m._add(_s - 1, _s, 'clientid')
m.line('\tif (!cl && key->kind == SVC_FAIR_CLIENT_ID && !svc_fair_id_admit(sf, key, &spare)) {', 'clientid', n=6)
_o = m.find('\tif (!cl && svc_fair_key_capped(key) && sf->sf_hosts >= SVC_FAIR_MAX_HOSTS) {')
m._add(_o, _o + 5, 'overflow')
m._add(_o + 1, _o + 2, 'clientid')
m.line('\t\tif (cl->cl_key.kind == SVC_FAIR_CLIENT_ID && ident) {', 'clientid', n=4)
_c = m.find('\t\tif (svc_fair_key_capped(&cl->cl_key))', _g)
m._add(_c, _c + 3, 'overflow')
m.line('\tkfree(spare);', 'clientid')
# counters
for f in ('void svc_fair_queue_totals(', 'void svc_fair_client_totals(', 'static void svc_fair_class_fold(',
          'struct svc_fair_client *svc_fair_class_client(', 'void svc_fair_class_totals('):
    m.block(f, 'stats')
# put
_p = m.find('void svc_fair_client_put(struct svc_fair_client *cl)')
_c = m.find('\tif (svc_fair_key_capped(&cl->cl_key))', _p)
m._add(_c, _c + 3, 'overflow')
m.line('\tif (cl->cl_key.kind == SVC_FAIR_CLIENT_ID && !cl->cl_evicted)', 'clientid', n=2)
m.line('\t/* Under sf_lock: a class dump sees the client or its fold, once. */', 'stats', n=2)
# peers
m.span('/* A peer address of a client, and how many', '};', 'peers')
for f in ('static void svc_fair_peers_add(', 'static struct svc_fair_peer *svc_fair_peer_find(',
          'static u32 svc_fair_peer_hash(', 'unsigned int svc_fair_client_peer_conns(',
          'static void svc_fair_peer_count('):
    m.block(f, 'peers')
m.block('const char *svc_fair_client_class_name(', 'trace')
m.block('unsigned int svc_fair_client_trace(', 'trace')
m.line('\tif (kind == SVC_FAIR_PER_HOST || kind == SVC_FAIR_OVERFLOW ||', 'clientid', n=2,
       alt='''@{ overflow
	if (kind == SVC_FAIR_PER_HOST || kind == SVC_FAIR_OVERFLOW)
@|
	if (kind == SVC_FAIR_PER_HOST)
@}''')
m.line('\t\tp = &cl->cl_key.host;\t/* a client ID\'s: the peer\'s */', 'clientid', alt='\t\tp = &cl->cl_key.host;')
_t = m.find('unsigned int svc_fair_client_trace(')
_i = m.find('\t\t*id = cl->cl_key.id;', _t)
m._add(_i - 1, _i, 'clientid')
m.line('\tsvc_fair_peer_count(cl, xprt, true);', 'peers')
m.line('\tsvc_fair_peer_count(cl, xprt, false);', 'peers')
# lookup
_k = m.find('static struct svc_fair_client *svc_fair_lookup(')
m._add(_k + 3, _k + 3, 'clientid')
m._add(_k + 4, _k + 4, 'clientid')
m._add(_k + 7, _k + 7, 'clientid')
m._add(_k + 10, _k + 18, 'clientid')
m.line('\t\t\t    known ? &ident : NULL, &key))', 'clientid', alt='\t\t\t    &key))')
m.line('\tcl = svc_fair_client_get(sf, &key, known ? &ident : NULL);', 'clientid', alt='\tcl = svc_fair_client_get(sf, &key);')
# rebind
m.line('\tif (likely(xprt->xpt_fair_gen == generation &&', 'clientid', n=5,
       alt='\tif (likely(xprt->xpt_fair_gen == generation))\n\t\treturn;')
m.line('\tif (nomem) {', 'clientid', n=5,
       alt='\t/* Stay where it is, and try again at the next dispatch. */\n\tif (nomem)\n\t\treturn;')
m.line('\t/* No reader is left: the transport is being freed. */', 'clientid', n=3)
m.block('static void svc_fair_ident_swap(', 'clientid')
m.block('void svc_fair_identify(', 'clientid')
m.block('void svc_fair_forget(', 'clientid')
m.line('#include <trace/events/sunrpc.h>', 'trace')
m.line('\t/* Before the old client can go with this transport\'s reference. */', 'trace', n=2)
for _f in ('static void svc_fair_client_join(', 'static void svc_fair_client_leave('):
    _j = m.find(_f)
    m._add(_j + 2, _j + 3, 'stats')
    _i = m.find('\tatomic_', _j)
    m._add(_i, _i + 2, 'stats')
m.block('static void svc_fair_sample_start(', 'stats')
for _i, _l in enumerate(list(m.lines)):
    if _l.strip() == 'svc_fair_sample_start(xprt);':
        m._add(_i, _i, 'stats')
m.line('#include <linux/random.h>', 'stats')
m.line('\treturn key->kind == SVC_FAIR_PER_HOST || key->kind == SVC_FAIR_CLIENT_ID;', 'clientid',
       alt='\treturn key->kind == SVC_FAIR_PER_HOST;')
m.line('/* Per-host and client-ID clients are many; they share one cap. */', 'clientid',
       alt='/* Per-host clients are many; they share one cap. */')
_r = m.find('void svc_fair_rebind(struct svc_xprt *xprt)')
_x = m.find('\tif (!old) {', _r)
m._add(_x, _x + 3, 'stats', ['\tif (!old)', '\t\tINIT_LIST_HEAD(&xprt->xpt_fair_ready);'])
m.line('\tt->cost_ns = max(t->cost_ns, READ_ONCE(q->q_cost_ns));', 'peers')
