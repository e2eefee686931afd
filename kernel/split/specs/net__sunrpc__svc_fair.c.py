m.whole('dispatch')
m.line(' *    however long it was idle or parked at its class\'s limit.', 'limit',
       alt=' *    however long it was idle.')
m.line(' *  - No call can be preempted, so a light client', 'hold', n=6)
m.line(' *    reference count or a counter that every pool shares; only a class', 'limit', n=2,
       alt=' *    reference count or a counter that every pool shares.')
m.line('#include <linux/sunrpc/xprt.h>', 'limit')
m.line('\tpool->sp_fair_last = NULL;', 'hold', n=3)
m.line('\tINIT_LIST_HEAD(&pool->sp_fair_parked);', 'limit')
m.line('\tINIT_LIST_HEAD(&pool->sp_fair_held);', 'hold')
m.line(' * client with work. Clients parked at their class', 'limit', n=3, alt=' * client with work.')
m.block('static int svc_fair_queue_account(', 'stats')
for f in ('static void svc_fair_class_threads_max(', 'static bool svc_fair_class_reserve(', 'static void svc_fair_limit_begin(',
          'static void svc_fair_limit_end(', 'u64 svc_fair_class_limit_ns(', 'void svc_fair_class_limit_restart(',
          'static void svc_fair_park(', 'static void svc_fair_unpark(', 'static bool svc_fair_bc_waiting(',
          'static void svc_fair_serv_resume(', 'static void svc_fair_class_resume(',
          'static void svc_fair_class_release(', 'bool svc_fair_wants_thread('):
    if m.has(f):
        m.block(f, 'limit')
for f in ('static bool svc_fair_hogs(', 'static void svc_fair_hold(', 'static void svc_fair_unhold('):
    m.block(f, 'hold')
m.block('static void svc_fair_class_qtime(', 'stats')
# queue_add
m.line('\tbool is_ctl = (READ_ONCE(xprt->xpt_flags) & ctl) || svc_fair_bc_waiting(xprt);', 'limit',
       alt='\tbool is_ctl = READ_ONCE(xprt->xpt_flags) & ctl;')
m.line('\tWRITE_ONCE(q->q_queued, q->q_queued + 1);', 'stats')
m.line('\t/* A client with work is in the tree already, parked or held. */', 'limit', n=7,
       alt='''	/* A client with work is in the tree already. */
	if (!idle)
		return;''')
# admit
m.line(' * Sort the transports enqueued since the last look, oldest first, and', 'hold', n=2,
       alt=' * Sort the transports enqueued since the last look, oldest first:\n * sp_fair_lock held.')
m.line('\tif (unlikely(!list_empty(&pool->sp_fair_held)))', 'hold', n=2)
# the pick
m.line('\tint\tthreads;\t/* the pool\'s threads serving the client now */', 'limit', n=2)
# tree_next
m.line(' * The client with work that was charged least, with a thread to spare:', 'limit', n=5,
       alt=' * The client with work that was charged least: sp_fair_lock held.')
m.line('\t\t\t\t\t\t struct svc_fair_pick *pick, u64 now)', 'hold',
       alt='\t\t\t\t\t\t struct svc_fair_pick *pick)')
_a = m.find('static struct svc_fair_queue *svc_fair_tree_next(')
m._add(m.find('\tstruct svc_fair_class *class;', _a), m.find('\tstruct svc_fair_class *class;', _a), 'limit')
_h = m.find('\t\tif (svc_fair_hogs(pool, q, cl, now)) {', _a)
m._add(_h, _h + 3, 'hold')
_c = m.find('\t\tclass = svc_fair_client_class(cl);', _a)
_e = m.find('\t\t\tsvc_fair_unpark(pool, q, class);', _c) + 2
m._add(_c, _e, 'limit', ['\t\treturn q;'])
# charge
_h = m.find('\tif (pool->sp_fair_last != cl) {')
m._add(_h - 1, _h + 4, 'hold')
# pop
m.line('\tq = svc_fair_tree_next(pool, pick, now);', 'hold', alt='\tq = svc_fair_tree_next(pool, pick);')
m.line('\tpick->threads = svc_fair_queue_account(q, pick->qtime, xprt->xpt_fair_qweight);', 'stats',
       alt='''@{ limit
	pick->threads = atomic_inc_return(&q->q_threads);
@|
	atomic_inc(&q->q_threads);
@}''')
# take
_t = m.find('static struct svc_xprt *svc_fair_tree_take(')
m._add(m.find('\tstruct svc_fair_class *class;', _t), m.find('\tstruct svc_fair_class *class;', _t), 'stats | limit')
_c = m.find('\tclass = svc_fair_client_class(cl);', _t)
m._add(_c, _c, 'stats | limit')
m.line('\tif (class && pick.qtime)', 'stats', n=2)
m.line('\tif (class && !pick.limited)', 'limit', n=2)
m.line('\trqstp->rq_fair_limited = pick.limited;', 'limit')
# settle
m.line('\tatomic64_add(cost, &q->q_thread_ns);', 'stats')
# done_at
m.line('\tbool free, held;', 'hold', alt='\tbool free;')
m.line('\theld = READ_ONCE(q->q_parked) == SVC_FAIR_PARKED_HELD;', 'hold')
m.line('\tif (rqstp->rq_fair_limited) {', 'limit', n=4)
_d = m.find('\t * Held from the last thread, its client has one thread fewer now:')
m._add(_d - 2, m.find('\t}', _d), 'hold')
# drain
m.line('\t\tWRITE_ONCE(q->q_queued, q->q_queued - 1);', 'stats')
_p = m.find('void svc_fair_pool_drain(')
m._add(m.find('\tstruct svc_fair_class *class;', _p), m.find('\tstruct svc_fair_class *class;', _p), 'limit')
_q = m.find('\tstruct svc_fair_queue *q, *qn;', _p)
m._add(_q, _q, 'limit', ['\tstruct svc_fair_queue *q;'])
_u = m.find('\tsvc_fair_unhold(pool);', _p)
m._add(_u, _u, 'hold')
_l = m.find('\tlist_for_each_entry_safe(q, qn, &pool->sp_fair_parked, q_parked_list) {', _p)
m._add(_l, m.find('\t}', _l + 11), 'limit')
m.line('#include <trace/events/sunrpc.h>', 'trace')
m.line('\tif (unlikely(trace_svc_fair_dequeue_enabled())) {', 'trace', n=3,
       alt='\tif (!(++xprt->xpt_fair_enqueues & mask)) {')
m.line('\ttrace_svc_fair_dequeue(xprt, cl, pick.qtime, pick.charge);', 'trace')
# sampled queue times: stats
m.line(' *    enqueued twice and is not freed while queued. Its xpt_fair_qtime', 'stats', n=4,
       alt=' *    enqueued twice and is not freed while queued.')
m.line('\tpool->sp_fair_qtime_mask = SVC_FAIR_QTIME_SAMPLE - 1;', 'stats')
m.block('static void svc_fair_stamp(', 'stats')
m.line('\tsvc_fair_stamp(pool, xprt);', 'stats', n=2)
m.line('\ts64\tqtime;\t\t/* the sampled wait, else 0 */', 'stats')
m.line('\tpick->qtime = 0;', 'stats', n=4)
m.line('\ttrace_svc_fair_dequeue(xprt, cl, pick.qtime, pick.charge);', 'stats',
       alt='\ttrace_svc_fair_dequeue(xprt, cl, pick.charge);')
m.line('\tpick->threads = svc_fair_queue_account(q, pick->qtime, xprt->xpt_fair_qweight);', 'limit',
       alt='\tsvc_fair_queue_account(q, pick->qtime, xprt->xpt_fair_qweight);')
