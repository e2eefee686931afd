m.hunks('table')
m.line('\terr = svc_fair_netlink_init();', 'family', n=3)
# 7.3 unwinds through out8, 6.12 (no sunrpc family) through out7
for _i, _l in enumerate(list(m.lines)):
    if _l == '\tsvc_fair_table_exit();' and m.lines[_i - 1] in ('out8:', 'out7:') and m.lines[_i + 1] != '':
        m._add(_i - 1, _i, 'family')
m.line('\tsvc_fair_netlink_exit();', 'family')
