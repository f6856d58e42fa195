"""The kernel step-time model: a training step built from its kernels, cut by concern — ``calibration`` (the
efficiencies, one input), ``chip`` (what a chip gives the kernels), ``gemm`` (matrix products and memory-bound
work), ``block`` (one transformer block's and the head's work: attention, then a dense or an experts
feed-forward), ``comm`` (collectives and their overlap), ``frameworks`` (what a framework runs and overlaps)
and ``step`` (the one step function: a stage of blocks, the pipeline schedule, gradients and the optimizer).
Its formulas and its checks against published runs: docs/plan.md."""
