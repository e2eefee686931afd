m.hunks('family')
