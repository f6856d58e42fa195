"""The coverage sweep: every text model type of the pinned transformers' ``CONFIG_MAPPING``, counted both ways.

For each type with a language-model class (``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES``, then masked-LM, then
sequence-to-sequence LM; multimodal types — a vision, audio or text sub-config — left out): the config class's
defaults with at most ``LAYERS`` layers, written as transformers writes it (``to_dict()`` and
``save_pretrained()``), read by the engine strictly. Where the engine counts it, transformers builds the same
file's class on the meta device (``tests/llm/hf_reference.py``) and parameters and forward FLOP of ``SEQ``
tokens must be equal; where it refuses, the refusal names a key (``config.<key>: …``). Any other outcome — a
wrong number, a refusal without a key, a crash — is a failure (``tests/llm/test_coverage_sweep.py``).

``python -m tests.llm.coverage`` writes the table into docs/llm.md (between the ``coverage`` markers) and the
count into README.md; the test checks both are current.
"""
from __future__ import annotations

import json
import re
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC, README = ROOT / "docs" / "llm.md", ROOT / "README.md"
START, END = "<!-- coverage:start (python -m tests.llm.coverage) -->", "<!-- coverage:end -->"
README_LINE = re.compile(r"(?P<exact>\d+) of (?P<total>\d+) text model types of transformers [\d.]+ count exactly")
LAYERS = 4
SEQ = 8
LAYER_KEYS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers", "decoder_layers",
              "num_decoder_layers")
MAPPINGS = ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
            "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES")
NOT_TEXT = ("vision", "audio", "text", "speech", "vq", "acoustic", "semantic", "projector")
"""A sub-config whose name holds one of these makes a type multimodal (not a text model)."""


@dataclass(frozen=True)
class Row:
    model_type: str
    cls: str
    outcome: str  # "exact" or "refused"
    why: str = ""
    params: int | None = None
    flop: int | None = None


def text_model_types() -> dict[str, str]:
    """model_type → the language-model class counted: of the type's causal-LM, masked-LM and seq2seq-LM classes
    (in that order), the first the engine's family counts, else the first."""
    from transformers import CONFIG_MAPPING
    from transformers.models.auto import modeling_auto

    from engine.llm.families import FAMILIES

    candidates: dict[str, list[str]] = {}
    for mapping in MAPPINGS:
        for model_type, cls in getattr(modeling_auto, mapping).items():
            if model_type == "encoder-decoder" or isinstance(cls, (list, tuple)):
                continue
            subs = getattr(CONFIG_MAPPING[model_type], "sub_configs", {}) or {}
            if any(word in name for name in subs for word in NOT_TEXT):
                continue
            candidates.setdefault(model_type, []).append(cls)
    out = {}
    for model_type, classes in sorted(candidates.items()):
        counted = FAMILIES[model_type].classes if model_type in FAMILIES else {}
        out[model_type] = next((c for c in classes if c in counted), classes[0])
    return out


def small_overrides(model_type: str) -> dict:
    """The keyword arguments that make the config class's defaults small: at most ``LAYERS`` layers (DeepSeek's
    first dense layers: 1; an unset ``num_experts_per_tok``: 2; an unset ``head_dim``: d/H and ``num_key_value_heads``: H, where the class's own
    default is None, which Ministral's, HunYuan's and Nemotron's attention cannot build; Zamba2's layer kinds: the
    last ``LAYERS`` of its default 54, one of them a shared-block layer; Zamba's: two shared-block layers of four
    (transformers cannot build one with tied embeddings); T5Gemma's two stacks: ``LAYERS`` layers each; LFM2-MoE's
    layer kinds (its default, null, does not build): convolutions and attention as LFM2's published pattern begins;
    Gemma 3n's layers reusing keys and values: half of the
    ``LAYERS`` (its default 15 needs more layers than that to build); DBRX's attn_config rope_theta
    and clip_qkv, without which DbrxAttention cannot run; BigBird-Pegasus' attention_type original_full, its
    block-sparse default being refused by name; HunYuan-MoE's num_experts 4, its default of one expert being refused
    by name; dots1's 4 routed and 1 shared expert, its defaults, null, being a model transformers cannot build;
    ESM's vocabulary of 33 tokens and padding token 1, ESM-2's, its defaults being null; Cohere Compass's
    rotary parameters for its full-attention layers, its default having no entry per layer type)."""
    from transformers import CONFIG_MAPPING

    config_cls = CONFIG_MAPPING[model_type]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        defaults = config_cls().to_dict()
    overrides = {k: min(defaults[k], LAYERS) for k in LAYER_KEYS
                 if isinstance(defaults.get(k), int) and not isinstance(defaults.get(k), bool)}
    if isinstance(defaults.get("first_k_dense_replace"), int):
        overrides["first_k_dense_replace"] = 1
    if "head_dim" in defaults and defaults["head_dim"] is None and isinstance(defaults.get("hidden_size"), int):
        # Ministral's, HunYuan's attention read head_dim as written: their own default (None) does not build
        overrides["head_dim"] = defaults["hidden_size"] // defaults["num_attention_heads"]
    if model_type == "dbrx":  # DbrxAttention reads attn_config.rope_theta (no default) and clamps to ±clip_qkv
        overrides["attn_config"] = defaults["attn_config"] | {"rope_theta": 10000.0, "clip_qkv": 8.0}
    if "num_key_value_heads" in defaults and defaults["num_key_value_heads"] is None:
        overrides["num_key_value_heads"] = defaults.get("num_attention_heads")  # Nemotron's: as head_dim
    if "num_experts_per_tok" in defaults and defaults["num_experts_per_tok"] is None:
        overrides["num_experts_per_tok"] = 2  # DeepSeek-V2's default None is a model transformers cannot run
    if isinstance(defaults.get("attention_types"), list) and isinstance(overrides.get("num_layers"), int):
        overrides["attention_types"] = [[["global", "local"], overrides["num_layers"] // 2]]  # GPT-Neo's pairs
    if model_type == "bigbird_pegasus":  # full attention: BigBird's block-sparse default is refused by name
        overrides["attention_type"] = "original_full"
    if model_type == "dots1":  # its default experts (null routed and shared experts) do not build
        overrides |= {"n_routed_experts": 4, "n_shared_experts": 1}
    if model_type == "esm":  # EsmConfig's vocabulary and padding token default to null: ESM-2's
        overrides |= {"vocab_size": 33, "pad_token_id": 1}
    if model_type == "hunyuan_v1_moe":  # 4 experts: its default of one (a router d→1) is refused by name
        overrides["num_experts"] = 4
    if model_type == "zamba2":  # its 54 layer kinds must match num_hidden_layers: the last LAYERS, one a shared block
        overrides["layers_block_type"] = defaults["layers_block_type"][-overrides["num_hidden_layers"]:]
    if model_type == "gemma3n_text":  # its default 15 layers reusing keys and values need more than LAYERS layers
        overrides["num_kv_shared_layers"] = overrides["num_hidden_layers"] // 2
    if model_type == "t5gemma":  # each stack's layers are a key of its own sub-config
        overrides |= {stack: {"num_hidden_layers": LAYERS} for stack in ("encoder", "decoder")}
    if model_type == "lfm2_moe":  # its default layer_types (null) does not build: LFM2's pattern, conv twice, attention
        overrides["layer_types"] = ["conv", "conv", "full_attention", "conv"][:overrides["num_hidden_layers"]]
    if model_type == "cohere_compass_text":  # its rotary embedding needs an entry per layer type; the default has none
        overrides["rope_parameters"] = {"full_attention": {"rope_type": "default", "rope_theta": 10000.0}}
    if model_type == "zamba":  # two shared-block layers in four: with one, transformers' tie pattern cannot build
        overrides |= {"attn_layer_period": 1, "attn_layer_offset": 0}
    for key in ("layer_types", "mlp_only_layers"):
        if isinstance(defaults.get(key), list) and defaults[key]:
            overrides[key] = None if key == "layer_types" else []
    return overrides


def small_config(model_type: str, cls: str):
    """The config class's defaults made small (``small_overrides``), with ``cls`` in ``architectures``."""
    from transformers import CONFIG_MAPPING

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = CONFIG_MAPPING[model_type](**small_overrides(model_type))
    config.architectures = [cls]
    return config


def written_both_ways(config) -> list[tuple[str, dict]]:
    with tempfile.TemporaryDirectory() as tmp:
        config.save_pretrained(tmp)
        saved = json.loads((Path(tmp) / "config.json").read_text())
    return [("to_dict", json.loads(json.dumps(config.to_dict()))), ("save_pretrained", saved)]


def sweep_type(model_type: str, cls: str) -> Row:
    """One row: exact (engine = transformers on both files) or refused (the engine's one line); anything else
    raises AssertionError."""
    from engine.errors import InputError
    from engine.llm.config import read_hf_config
    from engine.method1.architecture import evaluate
    from tests.llm.hf_reference import T5_TIED, counts, idle_expert_flop

    try:
        files = written_both_ways(small_config(model_type, cls))
    except Exception as exc:  # noqa: BLE001 — transformers' own default does not build: the engine sees the type
        files = [("minimal", {"model_type": model_type, "architectures": [cls]})]
        note = f" (transformers' default config does not build: {type(exc).__name__})"
    else:
        note = ""
    outcomes = []
    for how, data in files:
        try:
            model = read_hf_config(data)
        except InputError as exc:
            message = str(exc)
            assert re.match(r"config\.[^:]+: ", message), f"{model_type} ({how}): refusal names no key: {message}"
            outcomes.append(("refused", message + note))
            continue
        result = evaluate(model.architecture(SEQ), "matmul")
        untied_t5 = data["vocab_size"] * data["d_model"] \
            if model.model_type in T5_TIED and data.get("tie_word_embeddings") is False else 0
        expected = counts(data, SEQ)
        expected = (expected[0], expected[1] - idle_expert_flop(data, SEQ))  # Llama 4: the k routed experts
        got = (result.params - untied_t5, result.forward_flop)
        assert got == expected, f"{model_type} ({how}): engine {got} ≠ transformers {expected}"
        outcomes.append(("exact", "", got))
    kinds = {o[0] for o in outcomes}
    assert len(kinds) == 1, f"{model_type}: {outcomes}"
    if kinds == {"exact"}:
        return Row(model_type, cls, "exact", params=outcomes[0][2][0], flop=outcomes[0][2][1])
    return Row(model_type, cls, "refused", outcomes[0][1])


def sweep() -> list[Row]:
    return [sweep_type(t, cls) for t, cls in text_model_types().items()]


def _cell(text: str) -> str:
    """A refusal for the table: the list of supported families is left out (it is the table itself)."""
    text = re.sub(r" \(supported: [^)]*\)", "", text)
    return text.replace("|", "\\|").replace("\n", " ")


def table(rows: list[Row]) -> str:
    import transformers

    exact = [r for r in rows if r.outcome == "exact"]
    lines = [START, "",
             f"transformers {transformers.__version__}: **{len(exact)} of {len(rows)} text model types exact**, "
             f"{len(rows) - len(exact)} refused by name, none wrong. Each row: the config class's defaults with at "
             f"most {LAYERS} layers, written by `to_dict()` and by `save_pretrained()`, read strictly; exact = "
             f"parameters and forward FLOP of {SEQ} tokens equal transformers' model of that class on the meta "
             "device, for both files.", "",
             "| model_type | class | outcome | parameters / why refused |", "|---|---|---|---|"]
    for r in rows:
        detail = f"{r.params:,} parameters, {r.flop:,} FLOP" if r.outcome == "exact" else _cell(r.why)
        lines.append(f"| `{r.model_type}` | {r.cls} | {r.outcome} | {detail} |")
    lines += ["", END]
    return "\n".join(lines)


def readme_sentence(rows: list[Row]) -> str:
    import transformers

    exact = sum(r.outcome == "exact" for r in rows)
    return f"{exact} of {len(rows)} text model types of transformers {transformers.__version__} count exactly"


def current_doc_table() -> str | None:
    text = DOC.read_text()
    if START not in text:
        return None
    return text[text.index(START):text.index(END) + len(END)]


def write(rows: list[Row]) -> None:
    text = DOC.read_text()
    new = table(rows)
    if START in text:
        text = text[:text.index(START)] + new + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n## Coverage of transformers' text model types\n\n" + new + "\n"
    DOC.write_text(text)
    readme = README.read_text()
    readme = README_LINE.sub(readme_sentence(rows), readme)
    README.write_text(readme)


if __name__ == "__main__":
    rows = sweep()
    write(rows)
    print(readme_sentence(rows))
