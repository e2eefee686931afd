m.line('config SUNRPC_FAIR_KUNIT_TEST', 'kunit', n=11)
m.line('\t  compiled lookup against a naive reference, per-host clients and', 'overflow', n=2,
       alt='''	  compiled lookup against a naive reference, per-host clients,
	  and the order in which a pool dispatches clients.''')
m.line('config SUNRPC_FAIR_KUNIT_BENCH', 'bench', n=11)
