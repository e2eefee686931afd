m.whole('family')
def R(a, b, expr, alt=None):
    m._add(a - 1, b - 1, expr, alt)
R(14, 16, 'clientid', ['  one turn), or makes each peer address, masked to per-host-len bits,', '  its own client.'])
R(13, 13, 'clientid', ['  puts the connection in a named class (all of the class\'s peers share'])
R(36, 40, 'limit')
R(41, 58, 'clientid')
R(59, 84, 'peers')
R(73, 79, 'overflow')
R(80, 84, 'clientid')
R(96, 96, 'clientid', '''@{ overflow
          default, per-host and overflow are not class names.
@|
          default and per-host are not class names.
@}''')
R(115, 142, 'stats')
R(143, 146, 'peers')
R(147, 155, 'stats')
R(156, 179, 'limit')
R(180, 186, 'stats')
R(187, 221, 'stats')
R(266, 271, 'edits')
R(278, 304, 'clientid')
R(305, 403, 'peers')
R(319, 319, 'overflow', ['        doc: The masked address, for kind per-host.'])
R(324, 324, 'overflow', ['        doc: The masked address, for kind per-host.'])
R(366, 379, 'clientid')
R(412, 413, 'limit')
R(428, 431, 'clientid')
R(441, 450, 'edits')
R(456, 456, 'limit', ['        doc: A class, with name and weight.'])
R(462, 462, 'edits', ['        doc: A rule, in order.'])
R(466, 481, 'edits')
R(473, 473, 'limit', ['          attributes: [ name, weight ]'])
R(481, 481, 'limit', ['          attributes: [ name, weight ]'])
R(492, 492, 'stats', ['      doc: Get one class, or dump all.'])
R(503, 508, 'stats')
R(509, 509, 'peers')
R(510, 510, 'stats')
R(511, 514, 'limit')
R(515, 515, 'stats')
R(517, 517, 'stats')
R(519, 560, 'edits')
R(527, 528, 'clientid', ['            [ addr4, addr6, prefix-len, class, per-host-len, origin ]'])
R(537, 538, 'clientid', ['            [ position, addr4, addr6, prefix-len, class, per-host-len, origin ]'])
R(569, 570, 'clientid', '''@{ edits
            [ position, addr4, addr6, prefix-len, class, per-host-len, origin, hits ]
@|
            [ position, addr4, addr6, prefix-len, class, per-host-len, hits ]
@}''')
R(571, 586, 'peers')
R(584, 586, 'clientid', ['            [ kind, class, addr4, addr6, prefix-len, connections, dispatches, queued, peers,',
                          '              peer-addr4, peer-addr6, peer-connections, threads, pool, thread-ns, cost-ns ]'])
R(590, 593, 'edits', ['        Replace, all or nothing, the classes named and the rules. Classes',
                       '        named are created or given the weight sent; the rules sent',
                       '        replace the table\'s, in order.'])
R(598, 598, 'edits', ['          attributes: [ generation, class, rule ]'])
R(606, 611, 'stats')
R(612, 623, 'edits')

R(111, 114, 'dump')
R(225, 231, 'dump')
R(272, 277, 'dump')
R(482, 489, 'edits')
R(490, 518, 'dump')
R(561, 570, 'dump')
