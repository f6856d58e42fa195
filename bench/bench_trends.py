"""Import and fit of a ~2,000-row Epoch AI CSV (issue 5: "well under a second").

    .venv/bin/python -m bench.bench_trends

Reads ``../shared/data/epoch/epoch_all_ai_models_slim.csv`` (2,228 rows) where present, and always a
generated 2,000-row file in Epoch's current format (40 columns, abstracts and notes of realistic
length, ~half the rows without a FLOP figure, like Epoch's). Prints medians of repeated runs.
"""
from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

from bench.common import median_seconds
from engine.trends.epoch_csv import read_epoch_csv
from engine.trends.placement import place_estimate
from engine.trends.runs_dataset import load_training_runs
from engine.trends.fit import NAMED_WINDOWS, TrendQuery, fit_trend

SHARED_SLIM = Path(__file__).resolve().parents[2] / "shared" / "data" / "epoch" / "epoch_all_ai_models_slim.csv"

EPOCH_HEADER = [
    "Model", "Organization", "Publication date", "Domain", "Parameters", "Parameters notes", "Training compute (FLOP)",
    "Training compute notes", "Training dataset", "Training dataset size (datapoints)", "Dataset size notes",
    "Confidence", "Link", "Reference", "Citations", "Authors", "Abstract", "Organization categorization",
    "Country (of organization)", "Notability criteria", "Notability criteria notes", "Epochs", "Training time (hours)",
    "Training time notes", "Training hardware", "Hardware quantity", "Hardware utilization",
    "Training compute cost (2023 USD)", "Compute cost notes", "Training power draw (W)", "Base model",
    "Finetune compute (FLOP)", "Finetune compute notes", "Batch size", "Batch size notes", "Model accessibility",
    "Training code accessibility", "Inference code accessibility", "Accessibility notes", "Frontier model",
]


def generated_epoch_csv(rows: int = 2_000, seed: int = 5) -> bytes:
    """``rows`` synthetic models in Epoch's layout: compute grows ~4×/year from 2010, with noise."""
    rng = random.Random(seed)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(EPOCH_HEADER)
    words = "model training compute transformer dataset tokens parameters benchmark results scaling".split()
    for i in range(rows):
        year = rng.uniform(1990, 2025)
        flop = 10 ** (17 + 0.6 * (year - 2010) + rng.gauss(0, 1)) if rng.random() < 0.5 else None
        date = f"{int(year)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        row = {h: "" for h in EPOCH_HEADER}
        row.update({
            "Model": f"Model {i}", "Organization": f"Lab {i % 97}", "Publication date": date,
            "Domain": rng.choice(["Language", "Vision", "Games", "Multimodal,Language,Vision"]),
            "Parameters": f"{10 ** rng.uniform(3, 12):.6e}",
            "Training compute (FLOP)": "" if flop is None else repr(flop),
            "Training compute notes": " ".join(rng.choices(words, k=60)),
            "Abstract": " ".join(rng.choices(words, k=250)), "Authors": ", ".join(f"A. Author{j}" for j in range(12)),
            "Link": f"https://arxiv.org/abs/{rng.randint(1000, 2500)}.{rng.randint(10000, 99999)}",
            "Confidence": rng.choice(["Confident", "Likely", "Speculative"]),
        })
        writer.writerow([row[h] for h in EPOCH_HEADER])
    return out.getvalue().encode("utf-8")


def import_and_fit(source) -> None:
    runs = read_epoch_csv(source).runs
    fit_trend(runs, NAMED_WINDOWS["deep-learning"])
    fit_trend(runs, NAMED_WINDOWS["large-scale"])
    fit_trend(runs, TrendQuery(domain="Language", frontier="top_k", top_k=3))


def main() -> dict:
    out: dict = {}
    data = generated_epoch_csv()
    imported = read_epoch_csv(data)
    out["generated_rows"] = imported.rows_read
    out["generated_runs_with_flop"] = len(imported.runs)
    out["generated_bytes"] = len(data)
    out["generated_import_ms"] = 1e3 * median_seconds(lambda: read_epoch_csv(data), repeat=15)
    out["generated_import_and_3_fits_ms"] = 1e3 * median_seconds(lambda: import_and_fit(data), repeat=15)
    runs = imported.runs
    out["fit_only_ms"] = 1e3 * median_seconds(lambda: fit_trend(runs, NAMED_WINDOWS["deep-learning"]), repeat=25)
    out["placement_ms"] = 1e3 * median_seconds(lambda: place_estimate(runs, 1e24, "2023-06"), repeat=25)
    if SHARED_SLIM.is_file():
        slim = SHARED_SLIM.read_bytes()
        out["epoch_all_models_slim_rows"] = read_epoch_csv(slim).rows_read
        out["epoch_all_models_slim_import_and_3_fits_ms"] = 1e3 * median_seconds(lambda: import_and_fit(slim),
                                                                                  repeat=15)
    else:
        out["epoch_all_models_slim"] = "../shared not present"
    out["shipped_dataset_load_ms"] = 1e3 * median_seconds(load_training_runs, repeat=15)
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
