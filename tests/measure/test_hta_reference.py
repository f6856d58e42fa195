"""Against HTA 0.5.0 run here on the same files: the whole trace's idle, compute and non-compute time equal
``TraceAnalysis.get_temporal_breakdown()`` within 2 µs."""
from __future__ import annotations

import logging
import os

import pytest

from engine.measure.measurement import measure_trace

HTA_TRACES = ("trace_diff_control_control.json.gz", "trace_filter_sampled_rank-0.json.gz",
              "nccl_parser_config_nccl_data.json.gz", "amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz",
              "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz")


@pytest.mark.parametrize("name", HTA_TRACES)
def test_whole_trace_equals_hta(hta, traces_dir, tmp_path, name):
    os.symlink(traces_dir / name, tmp_path / name)
    logging.disable(logging.WARNING)
    try:
        theirs = hta(trace_dir=str(tmp_path)).get_temporal_breakdown(visualize=False).iloc[0]
    finally:
        logging.disable(logging.NOTSET)
    whole = measure_trace(traces_dir / name).whole_trace
    assert whole.idle_us == pytest.approx(theirs["idle_time(us)"], abs=2)
    assert whole.compute_us == pytest.approx(theirs["compute_time(us)"], abs=2)
    assert whole.non_compute_us == pytest.approx(theirs["non_compute_time(us)"], abs=2)
    assert whole.span_us == pytest.approx(theirs["kernel_time(us)"], abs=2)
