m.whole('family')
m.line(' * table bumps the namespace\'s generation and is announced on the', 'edits', n=2,
       alt=' * table bumps the namespace\'s generation. Dumps carry the generation in cb->seq and')
m.line('#include <kunit/visibility.h>', 'stats')
# parsing a rule
m.line('\t\t\t    u8 origin, struct svc_fair_rule **rulep,', 'edits', alt='\t\t\t    struct svc_fair_rule **rulep,')
m.line('\tstruct nlattr *pcattr = tb[NFSFAIR_A_RULE_PER_CLIENT];', 'clientid', n=2)
m.line('\tu32 ids = 0;', 'clientid')
m.line('\tif (pcattr && !hattr) {', 'clientid', n=11)
m.line('\t*rulep = svc_fair_rule_new(&prefix, class, per_host_len, ids, origin);', 'clientid', alt='''@{ edits
	*rulep = svc_fair_rule_new(&prefix, class, per_host_len, origin);
@|
	*rulep = svc_fair_rule_new(&prefix, class, per_host_len);
@}''')
# one at a time
_a = m.find('/* Rules: editing. Each builds the whole new list, then commits it. */')
_b = m.find('/* Rules: dump */')
m._add(_a, _b - 1, 'edits')
m.line('\t    (r->fr_per_client && (nla_put_flag(skb, NFSFAIR_A_RULE_PER_CLIENT) ||', 'clientid', n=3)
m.line('\t    nla_put_uint(skb, NFSFAIR_A_RULE_ORIGIN, r->fr_origin) ||', 'edits')
# pools
_p = m.find('/* The most one pool\'s nest takes: every counter a 64-bit one. */')
_q = m.find('VISIBLE_IF_KUNIT int svc_fair_nl_put_class(')
m._add(_p, _q - 1, 'stats')
m._add(_q, _q + 1, 'stats', ['static int svc_fair_nl_put_class(struct sk_buff *skb, struct svc_fair_net *fn,',
                              '\t\t\t\t struct svc_fair_class *c)'])
m._add(_q + 3, _q + 5, 'stats')
m.line('\t    nla_put_uint(skb, NFSFAIR_A_CLASS_DISPATCHES, t.dispatches) ||', 'stats', n=9)
m.line('\t    nla_put_uint(skb, NFSFAIR_A_CLASS_PEERS, atomic_read(&c->fc_stats.peers)) ||', 'peers')
m.line('\t    nla_put_uint(skb, NFSFAIR_A_CLASS_LIMIT, READ_ONCE(c->fc_limit)) ||', 'limit', n=5)
m.line('\t    nla_put_uint(skb, NFSFAIR_A_CLASS_THREAD_NS, t.thread_ns))', 'stats',
       alt='\t    nla_put_uint(skb, NFSFAIR_A_CLASS_RULES, c->fc_rules))')
m.line('\t    nla_put_uint(skb, NFSFAIR_A_CLASS_RULES, c->fc_rules) ||', 'stats')
m.line('\treturn svc_fair_nl_put_class_pools(skb, fn, c);', 'stats', alt='\treturn 0;')
m.block('int nfsfair_nl_class_new_doit(', 'edits')
m.block('int nfsfair_nl_class_set_doit(', 'edits')
m.line('\tmsg = genlmsg_new(svc_fair_nl_pools_size(fn), GFP_KERNEL);', 'stats', alt='\tmsg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);')
# clients
_c = m.find('/* Clients */')
_t = m.find('/* The table */')
m._add(_c, _t - 1, 'peers')
m.line('static_assert(NFSFAIR_CLIENT_KIND_OVERFLOW', 'overflow')
m.line('static_assert(NFSFAIR_CLIENT_KIND_CLIENT_ID', 'clientid')
m.line('\t    ((key->kind == SVC_FAIR_PER_HOST ||', 'overflow', n=2, alt='\t    (key->kind == SVC_FAIR_PER_HOST &&')
m.line('\t    (key->kind == SVC_FAIR_CLIENT_ID &&', 'clientid', n=3)
# the table
_r = m.find('static int svc_fair_nl_replace_classes(')
_w = m.find('static void svc_fair_nl_replace_weights(')
for _start in (_r, _w):
    _x = m.find('\tstruct nlattr *tb[NFSFAIR_A_CLASS_LIMIT + 1];', _start)
    m._add(_x, _x, 'limit', ['\tstruct nlattr *tb[NFSFAIR_A_CLASS_WEIGHT + 1];'])
_x = m.find('\t\terr = nla_parse_nested(tb, NFSFAIR_A_CLASS_LIMIT, nest,', _r)
m._add(_x, _x, 'limit', ['\t\terr = nla_parse_nested(tb, NFSFAIR_A_CLASS_WEIGHT, nest,'])
_x = m.find('\t\t    nla_parse_nested(tb, NFSFAIR_A_CLASS_LIMIT, nest,', _w)
m._add(_x, _x, 'limit', ['\t\t    nla_parse_nested(tb, NFSFAIR_A_CLASS_WEIGHT, nest,'])
m.line('/* Set the weights and limits sent; after the commit', 'limit',
       alt='/* Set the weights sent; after the commit: nothing half-applies. */')
m.line('\t\tWRITE_ONCE(class->fc_limit, tb[NFSFAIR_A_CLASS_LIMIT] ?', 'limit', n=2)
_z = m.find('int nfsfair_nl_table_replace_doit(')
m.line(' * nfsfair_nl_table_replace_doit - replace classes and one origin\'s rules', 'edits',
       alt=' * nfsfair_nl_table_replace_doit - replace classes and rules')
def Z(text, expr, n=1, alt=None):
    x = m.find(text, _z)
    m._add(x, x + n - 1, expr, alt)
Z('\tconst struct svc_fair_table *t;', 'edits')
Z('\tu32 nr_old, nr = 0, nr_new, i, first, made = 0;', 'edits', alt=['\tu32 nr_new, i, made = 0;'])
Z('\tu8 origin;', 'edits')
Z('\tif (GENL_REQ_ATTR_CHECK(info, NFSFAIR_A_TABLE_ORIGIN))', 'edits', n=3)
Z('\tt = svc_fair_table_locked(fn);', 'edits', n=2)
Z('\tv = kvmalloc_array(nr_old + nr_new, sizeof(*v), GFP_KERNEL);', 'edits',
  alt=['\tv = kvmalloc_array(nr_new, sizeof(*v), GFP_KERNEL);'])
Z('\t/* Other origins\' rules in order; ours go where our first one was. */', 'edits', n=12)
Z('\t\t\terr = svc_fair_nl_rule(fn, tb, nest, &pending, origin,', 'edits', n=2,
  alt=['\t\t\terr = svc_fair_nl_rule(fn, tb, nest, &pending, &v[made],', '\t\t\t\t\t       info->extack);'])
Z('\terr = svc_fair_table_commit(fn, v, nr + nr_new, info->extack);', 'edits',
  alt=['\terr = svc_fair_table_commit(fn, v, nr_new, info->extack);'])
Z('\t\tsvc_fair_rule_free(v[first + i]);', 'edits', alt=['\t\tsvc_fair_rule_free(v[i]);'])
m.block('int nfsfair_nl_counters_zero_doit(', 'stats')
m.line('\t\tatomic64_set(&class->fc_limit_skips, 0);', 'limit', n=5)
m.block('void svc_fair_notify(', 'edits')
# reading back
m.span('struct svc_fair_dump_ctx {', '};', 'dump')
_d = m.find('/* Rules: dump */')
m._add(_d, m.find('/* Classes */') - 1, 'dump')
m.line('/* Classes */', 'dump | edits', n=2)
_q = m.find('VISIBLE_IF_KUNIT int svc_fair_nl_put_class(')
m._add(_q, m.close(_q) + 1, 'dump')
m.block('static const char *svc_fair_nl_name(', 'dump | edits')
m.block('static struct svc_fair_class *svc_fair_nl_class(', 'dump | edits')
m.block('int nfsfair_nl_class_del_doit(', 'edits')
m.block('int nfsfair_nl_class_get_doit(', 'dump')
m.block('int nfsfair_nl_class_get_dumpit(', 'dump')
# once
_o = m.find('/* Requests: what the policies leave unchecked */')
m._add(_o, m.close(m.find('static int svc_fair_nl_no_attrs(')) + 1, 'once')
for _i, _l in enumerate(list(m.lines)):
    if _l.strip().startswith('err = svc_fair_nl_request_once(') and 'ctx->pos' not in _l:
        _n = 4 if _l.rstrip().endswith('|') else 3
        m._add(_i, _i + _n - 1, 'once')
    elif 'svc_fair_nl_no_attrs(cb->nlh, cb->extack))' in _l or 'if (svc_fair_nl_no_attrs(info->nlhdr, info->extack))' in _l:
        m._add(_i, _i + 1, 'once')
    elif _l.strip() == 'err = svc_fair_nl_once(nla_data(nest), nla_len(nest), 0, info->extack);':
        m._add(_i - 1, _i, 'once')
m.line('\terr = ctx->pos ? 0 : svc_fair_nl_request_once(cb->nlh, 0, cb->extack);', 'once', n=2,
       alt='\terr = svc_fair_nl_peer_filter(genl_info_dump(cb), &filter);')
# class-new and class-set before limits
for _f in ('int nfsfair_nl_class_new_doit(', 'int nfsfair_nl_class_set_doit('):
    _s = m.find(_f)
    _x = m.find('\tstruct nlattr *lattr = info->attrs[NFSFAIR_A_CLASS_LIMIT];', _s)
    m._add(_x, _x, 'limit')
_s = m.find('int nfsfair_nl_class_new_doit(')
_x = m.find('\tif (err) {', _s)
m._add(_x, _x + 7, 'limit', ['\tif (err)', '\t\tNL_SET_BAD_ATTR(info->extack, info->attrs[NFSFAIR_A_CLASS_NAME]);',
                              '\telse', '\t\tsvc_fair_changed(fn);'])
_s = m.find('int nfsfair_nl_class_set_doit(')
m.line(' * nfsfair_nl_class_set_doit - change a class\'s weight or limit', 'limit',
       alt=' * nfsfair_nl_class_set_doit - change a class\'s weight')
_x = m.find('\tif (!wattr && !lattr) {', _s)
m._add(_x, _x + 3, 'limit', ['\tif (GENL_REQ_ATTR_CHECK(info, NFSFAIR_A_CLASS_WEIGHT))', '\t\treturn -EINVAL;'])
_x = m.find('\t\t/* A higher limit lets parked queues back at the next done. */', _s)
m._add(_x, _x + 2, 'limit')
