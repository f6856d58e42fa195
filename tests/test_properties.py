"""Random and hostile specs: the only outcomes are a result or a clear ``InputError``."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.method1.kinds import KIND_BY_TYPE
from engine.scenario import load_scenario_text

sizes = st.one_of(st.integers(-3, 40), st.floats(allow_nan=True, allow_infinity=True), st.just("7"),
                  st.lists(st.integers(0, 9), max_size=4), st.none(), st.booleans())
layer = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(sorted(KIND_BY_TYPE)), st.text(max_size=5))},
    optional={k: sizes for k in ("units", "filters", "kernel_size", "stride", "padding", "dilation", "groups",
                                 "heads", "key_size", "value_size", "vocab_size", "dim", "output_padding")}
    | {"function": st.sampled_from(["relu", "gelu", "softmax", "nope"]), "bias": st.booleans(),
       "return_sequences": st.booleans(), "bidirectional": st.booleans()},
)
scenario = st.fixed_dictionaries({
    "input": st.fixed_dictionaries({"shape": st.lists(st.integers(-1, 30), min_size=0, max_size=5)},
                                   optional={"sequence_length": st.one_of(st.none(), st.integers(-1, 12))}),
    "layers": st.lists(layer, max_size=6),
}, optional={"training": st.fixed_dictionaries({}, optional={"epochs": sizes, "examples": sizes,
                                                            "batch_size": sizes, "batches_per_epoch": sizes}),
             "convention": st.sampled_from(["matmul", "full", "neither"])})


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_random_specs_give_a_result_or_a_clear_error(spec):
    try:
        est = load_scenario_text(json.dumps(spec)).method1()
    except InputError as exc:
        message = str(exc)
        assert ": " in message and "\n" not in message and exc.field
        return
    assert est.forward_flop >= 0 and est.params >= 0
    for row in est.architecture.rows:
        assert all(isinstance(d, int) and d >= 1 for d in row.output_shape)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
def test_garbage_text_is_a_clear_error(text):
    try:
        load_scenario_text(text)
    except InputError as exc:
        assert "\n" not in str(exc)
