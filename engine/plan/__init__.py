"""Planning a training run: memory per chip, parallel layout and step time, the compute-optimal size,
lifetime compute and regulatory thresholds. Pure Python; the page ``pages/plan.py`` and the CLI
commands ``optimal``, ``memory`` and ``plan`` sit on it."""
