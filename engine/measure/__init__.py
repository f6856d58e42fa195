"""Measuring a run: a PyTorch profiler trace read, its steps' time split, its operators' FLOP counted from their
shapes and joined to their kernels, the chip found, and HFU / MFU, a roofline and the bottlenecks derived.
See docs/measure.md."""
