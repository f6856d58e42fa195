"""Shipped runs + an Epoch CSV: each run once, the source of each row kept."""
from __future__ import annotations

import pandas as pd

from engine.trends.combine import BOTH, EPOCH, SHIPPED, combine_runs


def frame(rows):
    return pd.DataFrame(rows, columns=["name", "organization", "publication_date", "decimal_year", "domain",
                                       "training_flop"])


def test_the_same_run_under_two_names_is_counted_once():
    shipped = frame([("GPT-3 175B", "OpenAI", "2020-05", 2020.4, "Language", 3.14e23),
                     ("AlexNet", "Toronto", "2012-09", 2012.7, "Vision", 4.7e17)])
    epoch = frame([("GPT-3 175B (davinci)", "OpenAI", "2020-05-28", 2020.41, "Language", 3.14e23),
                   ("AlexNet", "Toronto", "2012-09-30", 2012.75, "Vision", 4.7e17),
                   ("PaLM (540B)", "Google", "2022-04-04", 2022.26, "Language", 2.53e24)])
    both = combine_runs(shipped, epoch)
    assert len(both) == 2 + 3 - 2
    assert dict(zip(both["name"], both["origin"])) == {"GPT-3 175B": BOTH, "AlexNet": BOTH, "PaLM (540B)": EPOCH}
    assert both.loc[both["name"] == "GPT-3 175B", "epoch_name"].item() == "GPT-3 175B (davinci)"


def test_same_name_years_or_orders_of_magnitude_apart_are_different_runs():
    shipped = frame([("Transformer (big)", "Google", "2017-06", 2017.45, "Language", 2.3e19)])
    epoch = frame([("Transformer", "Google", "2017-06-12", 2017.45, "Language", 7.4e18),    # 3.1×: same run
                   ("Transformer", "Someone", "2021-01-01", 2021.0, "Language", 2.3e19),    # 3.5 years later
                   ("Transformer (big)", "Else", "2017-07-01", 2017.5, "Language", 2.3e21)])  # 100× the FLOP
    both = combine_runs(shipped, epoch)
    assert list(both["origin"]).count(BOTH) == 1 and list(both["origin"]).count(EPOCH) == 2
    assert list(both["origin"]).count(SHIPPED) == 0


def test_the_shipped_data_and_epochs_csv_share_famous_runs(shared_dir):
    from engine.trends.epoch_csv import read_epoch_csv
    from engine.trends.runs_dataset import load_training_runs, runs_frame, runs_table

    shipped = runs_table(load_training_runs())
    epoch = runs_frame(read_epoch_csv((shared_dir / "data/epoch/epoch_notable_ai_models.csv").read_bytes()).runs)
    both = combine_runs(shipped, epoch)
    def spelled(name: str) -> str:
        return "".join(ch for ch in name.lower() if ch.isalnum())

    for famous in ("alexnet", "gpt3175b", "alphagozero", "palm540b"):  # Epoch: 'PaLM (540B)', 'GPT-3 175B (davinci)'
        rows = both[[spelled(n).startswith(famous) for n in both["name"]]]
        assert len(rows) == 1, (famous, list(rows["name"]))
    duplicates = (both["origin"] == BOTH).sum()
    assert 40 <= duplicates <= len(shipped)
    assert len(both) == len(shipped) + len(epoch) - duplicates
