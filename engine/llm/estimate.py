"""A language model's training compute: the detailed count (this engine's layers) and the quick
formulas, side by side, with the parameter counts they rest on."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..method1.architecture import Architecture, ArchitectureResult, evaluate
from ..method1.backward import DEFAULT_LORA_TARGETS, LoraTarget
from ..method1.estimate import EXACT_NOTE
from ..method1.finetune import FineTune, fine_tuned
from ..method1.conventions import Convention
from ..errors import InputError, parse_input
from .config import TransformerConfig, validate_transformer_config
from ..method1.layers import Size
from .formulas import FormulaResult, ModelShape, formula_results
from ..method1.training import DEFAULT_BACKWARD_RATIO, TrainingResult, TrainingSetup, training_compute
from ..results import Result, to_json

MAX_TOKENS = 1e18


class TransformerRun(BaseModel):
    """The training run: D tokens in sequences of T (default: the model's context length)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tokens: Annotated[float, Field(ge=1, le=MAX_TOKENS, allow_inf_nan=False)]  # 1e-320: "examples: must be > 0"
    seq_len: Size | None = None
    decoder_seq_len: Size | None = Field(None, description="Encoder–decoder models: decoder tokens per "
                                                           "sequence (default seq_len).")
    convention: Convention = "matmul"
    causal_count: Literal["full", "half"] | None = Field(
        None, description="full: every score of QKᵀ and AV, as FlopCounterMode and PaLM count; half: only "
                          "the pairs a causal mask keeps, L(L+1)/2 or fewer with a sliding window; none: as the "
                          "config's block says (full by default).")
    backward_ratio: float = DEFAULT_BACKWARD_RATIO
    backward: Literal["ratio", "exact"] = Field(
        "ratio", description="ratio: backward = r × forward; exact: counted layer by layer (used whenever "
                             "weights are frozen: --trainable-last, --lora-rank).")
    trainable_last: Annotated[int, Field(ge=1, le=10**6)] | None = Field(
        None, description="Fine-tune the last N blocks (and the final norm and head); embeddings frozen.")
    lora_rank: Annotated[int, Field(ge=1, le=10**6)] | None = Field(None, description="LoRA adapters of rank r.")
    lora_targets: tuple[LoraTarget, ...] = DEFAULT_LORA_TARGETS

    @property
    def fine_tune(self) -> FineTune:
        if self.trainable_last is not None and self.lora_rank is not None:
            from ..errors import InputError

            raise InputError("fine-tune", "choose one of trainable_last (the last N blocks) and lora_rank (LoRA)")
        if self.trainable_last is not None:
            return parse_input(FineTune, {"mode": "last", "blocks": self.trainable_last})
        if self.lora_rank is not None:  # a target given twice (qkv with q) is one line naming the targets
            return parse_input(FineTune, {"mode": "lora", "rank": self.lora_rank, "targets": self.lora_targets,
                                          "lora_dense": False})
        return FineTune()


@dataclass(frozen=True, slots=True)
class TransformerEstimate(Result):
    """Parameters (total, non-embedding, active), the detailed count and every formula.

    Its JSON view (``as_dict``) is flat: the config's, the run's and the count's figures side by side."""

    config: TransformerConfig
    run: TransformerRun
    seq_len: int
    architecture: ArchitectureResult
    training: TrainingResult
    non_embedding_params: int
    active_non_embedding_params: int
    formulas: list[FormulaResult]

    @property
    def params(self) -> int:
        return self.architecture.params

    @property
    def training_flop(self) -> float:
        return self.training.training_flop

    def forward_flop_by_part(self) -> dict[str, int]:
        """Forward FLOP per sequence summed over the blocks by sub-layer (attention scores, feed-forward…)."""
        totals: dict[str, int] = {}
        for row in self.architecture.rows:
            key = row.part or row.type
            totals[key] = totals.get(key, 0) + row.forward_flop
        return totals

    def as_dict(self, layers: bool = False) -> dict:
        arch = self.architecture
        out = {
            "model_type": self.config.model_type, "architecture": self.config.architecture_name,
            "ignored_keys": list(self.config.ignored_keys),
            "unused_keys": list(self.config.unused_keys), "notes": list(self.config.notes), "convention": arch.convention,
            "causal_count": self.config.block.causal_count, "tokens": self.run.tokens, "seq_len": self.seq_len,
            "decoder_seq_len": (self.run.decoder_seq_len or self.seq_len) if self.config.encoder else None,
            "sequences": self.training.total_examples,
            "params": arch.params, "non_embedding_params": self.non_embedding_params,
            "embedding_params": self.config.vocabulary_params,
            "active_params": arch.active_params, "active_non_embedding_params": self.active_non_embedding_params,
            "forward_flop_per_sequence": arch.forward_flop,
            "forward_flop_per_token": arch.forward_flop / self.seq_len,
            "backward_flop_per_sequence": self.training.backward_flop_per_example,
            "exact_backward_flop_per_sequence": arch.backward_flop,
            "backward": self.training.backward, "backward_note": self.training.note,
            "passes": self.training.passes,
            "fine_tune": self.run.fine_tune.model_dump(mode="json", exclude_defaults=True) | {
                "mode": self.run.fine_tune.mode},
            "trainable_params": arch.trainable_params,
            "training_flop": self.training.training_flop, "pfs_days": self.training.pfs_days,
            "formulas": {f.key: f.training_flop for f in self.formulas},
            "formula_details": to_json(self.formulas),
            "forward_flop_by_part": self.forward_flop_by_part(),
        }
        if layers:
            out["layers"] = to_json(arch.rows)
        return out


def with_causal_count(config: TransformerConfig, causal_count: str) -> TransformerConfig:
    """The same model with every causal block's attention counted ``causal_count`` (encoders keep theirs)."""
    def block(b):
        if b.mixer.kind == "compressed" and causal_count == "half":
            raise InputError("causal_count", "DeepSeek-V4's attention is counted over every pair (its window and "
                                             "indexer only mask): 'half' is not modelled")
        data = b.model_dump()
        if getattr(b.mixer, "causal", False):
            data["mixer"] = data["mixer"] | {"causal_count": causal_count}
        return data

    data = config.model_dump()
    data["block"] = block(config.block)
    data["first_layers"] = [g.model_dump() | {"block": block(g.block)} for g in config.first_layers]
    return validate_transformer_config(data, "config")


def estimate_transformer(config: TransformerConfig, run: TransformerRun) -> TransformerEstimate:
    """Detailed count: the config's layers (``evaluate``) × (1 + r) × D/T sequences (``engine.method1.training``);
    formulas from the same parameter counts. Encoder–decoder models: T encoder and ``decoder_seq_len``
    decoder tokens per sequence, D counted in encoder tokens."""
    seq_len = config.sequence_length(run.seq_len, run.decoder_seq_len)
    if run.causal_count not in (None, config.block.causal_count):
        config = with_causal_count(config, run.causal_count)
    block = config.block
    tune = run.fine_tune
    shared_blocks = any(b.shared_block is not None for _, b in config.named_blocks())
    if tune.mode != "full" and (config.shared_groups is not None or shared_blocks):
        raise InputError("fine-tune",
                         "fine-tuning part of a model whose layers share weights (ALBERT, Zamba's shared attention "
                         "blocks) is not modelled; train it in full")
    deberta = config.relative_table or config.relative_table_norm or any(
        getattr(b.mixer, "disentangled", None) is not None or b.input_convolution is not None
        for _, b in config.named_blocks())
    if tune.mode != "full" and deberta:
        raise InputError("fine-tune", "fine-tuning part of a DeBERTa model (its relative-position table is read by "
                                      "every layer, its q and k also project that table) is not modelled; train it "
                                      "in full")
    if tune.mode == "lora" and any(getattr(b.mixer, "decay", None) == "channel" for _, b in config.named_blocks()):
        raise InputError("fine-tune", "LoRA on a model with Kimi Delta Attention (Kimi Linear: PEFT's q/k/v/o names "
                                      "also match its layers' q_proj, k_proj, v_proj and o_proj) is not modelled; "
                                      "fine-tune the last blocks or all of it instead")
    if tune.mode == "lora" and any(b.mixer.kind == "lightning" for _, b in config.named_blocks()):
        raise InputError("fine-tune", "LoRA on a model with lightning attention (MiniMax: its layers' projections are "
                                      "qkv_proj, output_gate and out_proj) is not modelled; fine-tune the last blocks "
                                      "or in full instead")
    if tune.mode == "lora" and any(b.mixer.kind == "compressed" for _, b in config.named_blocks()):
        raise InputError("fine-tune", "LoRA on a model with DeepSeek-V4's attention (its projections are q_a_proj, "
                                      "q_b_proj, kv_proj, o_a_proj, o_b_proj and the compressors') is not modelled; "
                                      "fine-tune the last blocks or in full instead")
    if tune.mode != "full" and config.mobilebert is not None:
        raise InputError("fine-tune", "fine-tuning part of a MobileBERT model (its bottleneck blocks are a layer kind "
                                      "of their own, without LoRA targets) is not modelled; train it in full")
    if tune.mode != "full" and config.altup_streams:
        raise InputError("fine-tune", "fine-tuning part of a Gemma 3n model (AltUp's streams carry every layer's "
                                      "output to the next through the prediction and correction products) is not "
                                      "modelled; train it in full")
    architecture = config.architecture(seq_len, run.decoder_seq_len)
    if tune.mode != "full":
        layers = fine_tuned([layer.model_dump(mode="json") for layer in architecture.layers], tune)
        # a block that refuses its fine-tuning (LoRA on DeBERTa's blocks…) says so in one line
        architecture = parse_input(Architecture, {"input": architecture.input.model_dump(), "layers": layers})
    arch = evaluate(architecture, run.convention)
    setup = parse_input(TrainingSetup, {"examples": run.tokens / seq_len, "backward_ratio": run.backward_ratio})
    if run.backward == "exact" or arch.frozen:
        training = training_compute(arch.forward_flop, setup, arch.params, backward_flop=arch.backward_flop,
                                    recompute_flop=arch.recompute_flop, trainable_params=arch.trainable_params,
                                    note="" if run.backward == "exact" else EXACT_NOTE)
    else:
        training = training_compute(arch.forward_flop, setup)
    vocab = config.vocabulary_params
    heads, kv_heads, head_size = block.attention_sizes(config.d_model)
    shape = ModelShape(
        non_embedding_params=arch.active_params - vocab, all_params=arch.active_params,
        layers=config.total_layers, d_model=config.d_model, heads=heads, head_size=head_size, kv_heads=kv_heads,
        ff_size=block.ff_size or 4 * config.d_model, gated=block.gated, experts=block.experts,
        vocab_size=config.vocab_size, seq_len=seq_len, tokens=run.tokens, attention_window=block.attention_window,
        encoder_decoder=config.encoder is not None)
    return TransformerEstimate(config, run, seq_len, arch, training, arch.params - vocab,
                               arch.active_params - vocab, formula_results(shape, training.training_flop))
