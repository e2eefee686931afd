m.hunks('nfsd')
