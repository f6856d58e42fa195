"""What published records are written in, read below every method: partial publication dates and the cells of
an Epoch AI row. ``method2`` (reported utilizations) and ``trends`` (the record of runs) both read them."""
