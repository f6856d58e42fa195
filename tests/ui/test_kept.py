"""``ui.kept.by_identity``: a result is kept per the identity of the objects it was made from and the value of its
plain keys; another object (even an equal one) is another result; a list is known by its items; the kept results
are bounded. And the trends page's kept fits are the fits made anew (``engine.trends.fit``)."""
from __future__ import annotations

import pandas as pd
import pytest

from ui.kept import by_identity


def counted():
    calls = []

    @by_identity(3)
    def f(frame, label=None):
        calls.append((id(frame), label))
        return len(calls)

    return f, calls


def test_the_same_object_and_key_are_made_once():
    f, calls = counted()
    frame = pd.DataFrame({"a": [1, 2]})
    assert f(frame, "x") == f(frame, "x") == 1
    assert f(frame, "y") == 2  # another plain key
    assert f(pd.DataFrame({"a": [1, 2]}), "x") == 3  # an equal frame is another object
    assert len(calls) == 3


def test_a_list_is_known_by_its_items():
    f, calls = counted()
    items = [object(), object()]
    assert f(list(items)) == f(list(items)) == 1  # a new list of the same items
    assert f([items[1], items[0]]) == 2
    assert len(calls) == 2


def test_kept_results_are_bounded_and_hold_their_objects():
    f, calls = counted()
    for i in range(5):
        f(pd.DataFrame({"a": [i]}))
    assert len(f.kept) == 3
    assert all(isinstance(args[0], pd.DataFrame) for args, _ in f.kept.values())  # held: no id reused


def test_an_exception_is_not_kept():
    calls = []

    @by_identity()
    def fails(label):
        calls.append(label)
        raise ValueError(label)

    for _ in range(2):
        with pytest.raises(ValueError):
            fails("x")
    assert calls == ["x", "x"]


def test_the_trends_pages_kept_fits_are_the_fits_made_anew():
    from engine.trends.fit import NAMED_WINDOWS, TrendQuery, fit_trend, select_runs
    from engine.trends.runs_dataset import load_training_runs, runs_table
    from ui.components import trends_data

    shipped = trends_data._table(load_training_runs())
    assert trends_data._table(load_training_runs()) is shipped  # the same runs read again: kept
    runs = trends_data._shipped_pool(shipped, "shipped")
    named = ("openai-2012-2018",)
    fits, notes = trends_data._fits(runs, named, (2010, 2027), "all", None)
    fresh = runs_table(load_training_runs())
    expected = fit_trend(trends_data.pooled_runs(fresh, None, "shipped"), NAMED_WINDOWS[named[0]])
    kept = fits[NAMED_WINDOWS[named[0]].label]
    assert kept.doubling_months == pytest.approx(expected.doubling_months, rel=1e-12)
    assert kept.n == expected.n
    assert trends_data._fits(runs, named, (2010, 2027), "all", None) == (fits, notes)
    pd.testing.assert_frame_equal(trends_data._shown(runs, None), select_runs(runs, TrendQuery()))
