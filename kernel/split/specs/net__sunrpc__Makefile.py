m.line('sunrpc-$(CONFIG_SUNRPC_FAIR) += svc_fair.o svc_fair_client.o svc_fair_table.o', 'family', n=2, alt='''@{ dispatch
sunrpc-$(CONFIG_SUNRPC_FAIR) += svc_fair.o svc_fair_client.o svc_fair_table.o
@|
sunrpc-$(CONFIG_SUNRPC_FAIR) += svc_fair_table.o
@}''')
m.line('sunrpc-$(CONFIG_SUNRPC_FAIR_KUNIT_TEST)', 'kunit')
m.hunks('table')
