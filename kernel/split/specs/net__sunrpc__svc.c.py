m.hunks('dispatch')
