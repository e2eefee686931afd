m.hunks('nfsdid')
