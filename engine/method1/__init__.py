"""Method 1: training compute from the architecture (layers, kinds, shapes, training setup)."""
