m.hunks('dispatch', [('svc_fair_wants_thread', 'limit'), ('not for a class held at its limit', 'limit')])
