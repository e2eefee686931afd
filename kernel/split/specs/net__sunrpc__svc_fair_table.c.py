m.whole('table')
# match: the identity and per-client rules
m.line(' * @ident: who the upper layer says the peer is, or NULL', 'clientid')
m.line('\t\t    const struct svc_fair_ident *ident, struct svc_fair_key *key)', 'clientid',
       alt='\t\t    struct svc_fair_key *key)')
m.line('\t\t\t/* A client ID\'s too: its overflow client', 'clientid')
m.line('\t\t\tif (rule->fr_per_client && ident) {', 'clientid', n=5)
m.line('\t"default", "per-host", "per-client", "overflow",', 'clientid', alt='''@{ overflow
	"default", "per-host", "overflow",
@|
	"default", "per-host",
@}''')
# rules: ids-per-host and origin
m.line(' * @ids_per_host: for a per-client rule', 'clientid', n=3)
m.line(' * @origin: owner tag', 'edits')
m.line('\t\t\t\t\tu8 per_host_len, u32 ids_per_host, u8 origin)', 'clientid', alt='''@{ edits
					u8 per_host_len, u8 origin)
@|
					u8 per_host_len)
@}''')
m.line('\trule->fr_per_client = !class && ids_per_host;', 'clientid', n=2)
m.line('\trule->fr_origin = origin;', 'edits')
m.block('bool svc_fair_rule_equal(', 'edits')
m.line(' * svc_fair_changed - count a change and announce it', 'edits',
       alt=' * svc_fair_changed - count a change (fn_lock held)')
m.line('\tif (fn->fn_net)', 'edits', n=2)
m.line('\t/* A class\'s limit may be walking the list', 'limit', n=2)
m.line(' * @net: the namespace, whose "changes" group hears', 'edits', n=2, alt=''' * @net: the namespace; NULL for a table of a KUnit case's own''')
m.block('static void svc_fair_servs_follow(', 'dispatch')
m.line('\tsvc_fair_servs_follow(fn);', 'dispatch')
m.line('\t * No lookup needs the wait: a transport bound', 'dispatch', n=3)
m.block('void svc_fair_serv_register(', 'dispatch')
m.block('void svc_fair_serv_unregister(', 'dispatch')
# the trie
m.line(' * rules, and the compiled lookup consulted when a connection is accepted.', 'trie',
       alt=' * rules, and the lookup consulted when a connection is accepted.')
m.line(' * Every change builds a new, immutable table: the ordered rules plus a', 'trie', n=6,
       alt=''' * Every change builds a new, immutable table, published with RCU: the
 * rules in order, the first that matches an address wins.''')
m.block('static unsigned int svc_fair_bit(', 'trie')
m.block('static s32 svc_fair_node_new(', 'trie')
m.block('static void svc_fair_trie_insert(', 'trie')
_b = m.find('struct svc_fair_table *svc_fair_table_build(struct svc_fair_rule **rules, u32 nr_rules)')
m._add(_b + 1, m.close(_b + 1) - 1, 'trie', '''{
	struct svc_fair_table *t;

	t = kvzalloc(struct_size(t, ft_rules, nr_rules), GFP_KERNEL);
	if (!t)
		return NULL;
	t->ft_nr_rules = nr_rules;
	memcpy(t->ft_rules, rules, nr_rules * sizeof(*rules));
	return t;''')
m.line('\tkvfree(t->ft_nodes);', 'trie')
_l = m.find('u32 svc_fair_table_lookup(const struct svc_fair_table *t, int family, const u8 *addr)')
m._add(_l + 1, m.close(_l + 1) - 1, 'trie', '''{
	const struct svc_fair_prefix *p;
	u32 i;

	for (i = 0; i < t->ft_nr_rules; i++) {
		p = &t->ft_rules[i]->fr_prefix;
		if (p->family == family && svc_fair_common(p->addr, addr, p->len) == p->len)
			return i;
	}
	return SVC_FAIR_NO_RULE;''')
m.line('\t\tatomic64_inc(&rule->fr_hits);', 'dump')
m.block('int svc_fair_class_del(', 'edits')
m.line('\t       (a->fr_class || (a->fr_per_host_len == b->fr_per_host_len &&', 'clientid', n=3,
       alt='\t       (a->fr_class || a->fr_per_host_len == b->fr_per_host_len);')
