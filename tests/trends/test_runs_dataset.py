"""The shipped ``training_runs.csv``: every row valid, published figures right, OpenAI's points present."""
from __future__ import annotations

import csv
import math

import pytest

from engine.errors import InputError
from engine.records.partial_dates import parse_partial_date
from engine.trends.runs_dataset import COLUMNS, DATASET_PATH, load_training_runs, parse_training_runs, runs_frame
from engine.trends.fit import NAMED_WINDOWS, fit_trend, select_runs

PFS_DAY = 8.64e19  # 1e15 FLOP/s × 86,400 s


@pytest.fixture(scope="module")
def runs():
    return load_training_runs()


@pytest.fixture(scope="module")
def by_name(runs):
    return {r.name: r for r in runs}


def test_every_row_is_valid_and_counted():
    # Read independently of the loader: each row's date parses, FLOP is positive and finite, source present.
    with DATASET_PATH.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == COLUMNS
        rows = list(reader)
    assert len(rows) >= 150
    for row in rows:
        parse_partial_date(row["publication_date"])
        flop = float(row["training_flop"])
        assert math.isfinite(flop) and flop > 0, row["name"]
        assert row["source"].startswith(("https://", "http://")), row["name"]
        assert row["name"].strip() and row["organization"].strip()
    assert len(load_training_runs()) == len(rows)


def test_names_are_unique_and_the_span_is_1950s_to_2025(runs):
    names = [r.name for r in runs]
    assert len(names) == len(set(names))
    years = [r.date.start.year for r in runs]
    assert min(years) < 1960 and max(years) >= 2025


def test_domains_cover_the_landmark_areas(runs):
    domains = {r.domain for r in runs}
    assert {"Language", "Vision", "Speech", "Games", "Multimodal"} <= domains


# Published figures, each with where it is published. 6ND rows: 6 × N × D from the paper's N and D.
PUBLISHED = [
    ("GPT-3 175B", 3.14e23, "Brown et al. 2020, Table D.1: 3.64e3 pfs-days = 3.14e23 FLOP"),
    ("Chinchilla", 5.76e23, "Hoffmann et al. 2022: 5.76e23 FLOPs, Gopher's budget"),
    ("PaLM 540B", 2.5272e24, "Chowdhery et al. 2022, App. B: 2.5272e24 model FLOPs"),
    ("Gopher (280B)", 6.31e23, "Rae et al. 2021: 6.31e23 FLOPs"),
    ("Llama 3.1 405B", 3.8e25, "Llama Team 2024, The Llama 3 Herd of Models: 3.8e25 FLOPs"),
    ("LaMDA 137B", 3.55e23, "Thoppilan et al. 2022: 56.5% × 123 TFLOPS × 1,024 chips × 57.7 days = 3.55e23"),
    ("OPT-175B", 4.30e23, "metaseq OPT logbook, final update: ~4.30e23 FLOPs"),
    ("ViT-H/14", 4262e18, "Dosovitskiy et al. 2020, Table 6: 4,262 exaFLOPs"),
    ("OpenAI Five", 770 * PFS_DAY, "Berner et al. 2019: 770 ± 50 pfs-days"),
    ("OpenAI Five Rerun", 150 * PFS_DAY, "Berner et al. 2019: 150 ± 5 pfs-days"),
    ("AlexNet", 470e15, "Amodei & Hernandez 2018 (AI and Compute), appendix: 470 PF"),
    ("ResNet-152", 0.117 * PFS_DAY, "AI and Compute, appendix: 0.117 pfs-days"),
    ("Transformer (big)", 0.089 * PFS_DAY, "AI and Compute, appendix: 0.089 pfs-days"),
    ("Seq2Seq (Sutskever et al.)", 7_300e15, "AI and Compute, appendix: 7,300 PF (as published)"),
    ("Neural Architecture Search (Zoph & Le)", 1.9e6 * 1e15, "AI and Compute, appendix: 1.9e6 PF"),
    ("DeepSeek-V3", 6 * 37e9 * 14.8e12, "DeepSeek-AI 2024: 37B activated parameters, 14.8T tokens"),
    ("LLaMA-65B", 6 * 65.2e9 * 1.4e12, "Touvron et al. 2023: 65.2B parameters, 1.4T tokens"),
    ("Llama 2 70B", 6 * 70e9 * 2e12, "Touvron et al. 2023b: 70B parameters, 2T tokens"),
    ("Inflection-2", 1e25, "Inflection AI, 2023: ~1e25 FLOPs"),
    ("ESM3 (98B)", 1.07e24, "EvolutionaryScale 2024: 1.07e24 FLOPs"),
]


@pytest.mark.parametrize("name,published,where", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_figures(by_name, name, published, where):
    assert by_name[name].training_flop == pytest.approx(published, rel=0.01), where


def test_estimates_are_marked(by_name):
    # GPT-4: undisclosed; SemiAnalysis's leak gives ~2.15e25 (25,000 A100 × 90–100 days × 32–36% MFU)
    gpt4 = by_name["GPT-4"]
    assert gpt4.training_flop == pytest.approx(2.15e25, rel=0.05) and gpt4.confidence == "speculative"
    for run in by_name.values():
        if run.flop_method == "third-party estimate":
            assert run.confidence == "speculative" and "Epoch" in run.note


# OpenAI's "AI and Compute" points (../shared/data/openai_ai_and_compute.csv) → names in the dataset
OPENAI_NAMES = {
    "AlexNet": "AlexNet", "Dropout": "Dropout (ImageNet)",
    "Visualizing and Understanding Conv Nets": "ZFNet (Visualizing and Understanding ConvNets)",
    "DQN": "DQN (Atari)", "Seq2Seq": "Seq2Seq (Sutskever et al.)", "GoogleNet": "GoogLeNet (Inception v1)",
    "VGG": "VGG-16/19", "DeepSpeech2": "DeepSpeech2 (English)",
    "ResNets (ResNet-151 [sic; ResNet-152])": "ResNet-152",
    "Neural Machine Translation (GNMT)": "GNMT (Google Neural Machine Translation)", "Xception": "Xception",
    "Neural Architecture Search": "Neural Architecture Search (Zoph & Le)",
    "TI7 Dota 1v1": "OpenAI TI7 Dota 1v1", "AlphaGo Zero": "AlphaGo Zero", "AlphaZero": "AlphaZero",
    "Attention is all you need (Transformer)": "Transformer (big)",
    "Adam Optimizer": "Adam optimizer (CIFAR-10 experiments)",
    "Learning to Align and Translate": "RNNsearch (Learning to Align and Translate)",
    "GANs": "Generative adversarial networks", "Word2Vec": "word2vec (skip-gram)",
    "Variational Auto Encoders": "Variational autoencoder",
    "Perceptron (Mark I)": "Perceptron Mark I", "TD-Gammon v2.1": "TD-Gammon", "RNN for Speech": "RNN for speech",
    "BiLSTM for Speech": "BiLSTM for speech",
}


def test_every_openai_point_is_in_the_dataset(shared_dir, by_name):
    with (shared_dir / "data" / "openai_ai_and_compute.csv").open(encoding="utf-8") as f:
        points = list(csv.DictReader(f))
    for point in points:
        run = by_name[OPENAI_NAMES[point["system"]]]
        # each system within OpenAI's stated 2–3× consistency of its published figure(s); AlphaGo Zero's
        # shared figure is a lower bound from the headline (300,000× AlexNet), ours an operation count
        assert 1 / 2.5 <= run.training_flop / float(point["flop"]) <= 2.5, point["system"]
        tag = {"modern (main chart)": "openai-2018", "appendix: modest compute": "openai-2018-appendix",
               "2019 addendum: first era": "openai-2019-addendum"}[point["series"]]
        assert tag in run.tags, point["system"]


def test_tags_count_openai_series(runs):
    assert sum("openai-2018" in r.tags for r in runs) == 15  # the main chart's 15 systems
    assert sum("openai-2018-appendix" in r.tags for r in runs) == 6
    names = {r.name for r in runs if "openai-2019-addendum" in r.tags}
    assert {"Perceptron Mark I", "NETtalk", "ALVINN", "TD-Gammon", "LeNet-5", "RNN for speech",
            "BiLSTM for speech"} <= names


def test_openai_main_chart_doubling_from_the_shipped_dataset(runs):
    # Amodei & Hernandez 2018, "AI and Compute": 3.4-month doubling 2012–2018 (accept 3.0–4.0)
    main_chart = [r for r in runs if "openai-2018" in r.tags]
    assert 3.0 <= fit_trend(main_chart).doubling_months <= 4.0
    # the same window over all shipped runs, record-setters only, agrees
    window = NAMED_WINDOWS["openai-2012-2018"]
    assert 3.0 <= fit_trend(runs, window).doubling_months <= 4.0
    assert "AlphaGo Zero" in set(select_runs(runs, window)["name"])


def test_a_bad_row_names_its_line():
    header = ",".join(COLUMNS)
    good = "X,Org,2020-05,Language,1e20,,,6ND,likely,,https://example.org/x,"
    assert len(parse_training_runs(f"{header}\n{good}\n")) == 1
    for bad, field in [
        ("X,Org,2020-13,Language,1e20,,,6ND,likely,,https://example.org/x,", "publication_date"),
        ("X,Org,2020,Language,-1,,,6ND,likely,,https://example.org/x,", "training_flop"),
        ("X,Org,2020,Language,inf,,,6ND,likely,,https://example.org/x,", "training_flop"),
        ("X,Org,2020,Language,1e20,,,6ND,likely,,,", "source"),
        ("X,Org,2020,Language,1e20,,,6ND,likely,,not a url,", "source"),
        ("X,Org,2020,Cooking,1e20,,,6ND,likely,,https://example.org/x,", "domain"),
        ("X,Org,2020,Language,1e20,,,guess,likely,,https://example.org/x,", "flop_method"),
    ]:
        with pytest.raises(InputError) as info:
            parse_training_runs(f"{header}\n{good}\n{bad}\n")
        assert "line 3" in str(info.value) and field in str(info.value)


def test_missing_column_is_named():
    with pytest.raises(InputError, match="missing column.*training_flop"):
        parse_training_runs("name,organization,publication_date\nX,Y,2020\n")


def test_runs_frame_is_sorted_with_decimal_years(runs):
    frame = runs_frame(runs)
    assert list(frame["decimal_year"]) == sorted(frame["decimal_year"])
    perceptron = frame[frame["name"] == "Perceptron Mark I"].iloc[0]
    assert perceptron["decimal_year"] == pytest.approx(1957 + 15.5 / 365)  # middle of January 1957
