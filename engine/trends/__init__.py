"""The historical record: runs dataset, Epoch CSV import, trend fits, placement, hardware trend."""
