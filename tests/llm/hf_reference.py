"""The external reference for language models: Hugging Face ``transformers`` itself.

The model class the config's ``architectures`` names (head included) is built from the config on the
``meta`` device (no weights are allocated, so DeepSeek-V3 fits), with eager attention. Parameters are
Σ ``p.numel()`` over ``model.parameters()`` (a tied head shares the embedding's tensor and is counted
once); forward FLOP are ``torch.utils.flop_counter.FlopCounterMode`` over one forward pass of one
sequence of zeros.

Mixtures of experts: the default ("eager") experts loop asks which experts were hit (``nonzero``),
which the meta device cannot answer. The reference runs transformers' own ``batched_mm`` experts
implementation instead: every token is sent through exactly its k routed experts as a batched
matmul (S = L·k token–expert pairs), so ``FlopCounterMode`` counts exactly the k experts per token,
independently of where the router sends them (which the eager loop on real weights would count the
same way, token–expert pair by token–expert pair).
"""
from __future__ import annotations

import copy
import inspect
import json
import sys
import warnings

ALIASES = {"MPTForCausalLM": "MptForCausalLM", "RWForCausalLM": "FalconForCausalLM",
           "PhiMoEForCausalLM": "PhimoeForCausalLM", "MiniCPM5MoEForCausalLM": "MiniCPM5MoeForCausalLM"}
"""Class names written by the models' own remote code (or an older transformers: MiniCPM5MoeConfig renames its
own) → the transformers class of the same model."""

T5_TIED = frozenset({"t5", "mt5", "umt5", "longt5"})
"""Families whose config class forces ``tie_word_embeddings = True`` in transformers 5 (T5 v1.1, Flan-T5, mT5,
UMT5 and LongT5 checkpoints have a head of their own, ``"tie_word_embeddings": false``): transformers builds
them tied, the engine counts the published untied head, V·d parameters more (same FLOP)."""


def build(config: dict):
    """The ``transformers`` model named by ``config["architectures"][0]``, on the meta device."""
    import transformers

    data = copy.deepcopy(config)
    data = {k: v for k, v in data.items() if not k.startswith("_")}
    data = transformers.PreTrainedConfig._decode_special_floats(data)  # {"__float__": "Infinity"}, as from a file
    architectures = data.pop("architectures")
    model_type = data.pop("model_type")
    return build_from(transformers.AutoConfig.for_model(model_type, **data), architectures[0])


def build_from(hf_config, class_name: str):
    """The ``transformers`` class ``class_name`` built from a config object (copied), on the meta device."""
    import torch
    import transformers

    hf_config = copy.deepcopy(hf_config)
    hf_config._experts_implementation = "batched_mm"
    cls = getattr(transformers, ALIASES.get(class_name, class_name))
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = cls._from_config(hf_config, attn_implementation="eager")
    for module in model.modules():
        if getattr(module, "config", None) is not None and hasattr(module.config, "_experts_implementation"):
            module.config._experts_implementation = "batched_mm"
        if type(module).__name__ == "DbrxExperts":  # its loop asks which experts were hit: not on meta
            module.forward = _dbrx_experts_batched.__get__(module)
        if hasattr(module, "warn_if_padding_and_no_attention_mask"):  # it reads the ids' values (Megatron-BERT)
            module.warn_if_padding_and_no_attention_mask = lambda *args, **kwargs: None
        if type(module).__name__ in EXPERT_LOOPS:
            module.forward = EXPERT_LOOPS[type(module).__name__].__get__(module)
        if hasattr(sys.modules[type(module).__module__], "get_masks"):  # XLM, Flaubert
            _meta_length_masks(sys.modules[type(module).__module__])
    _meta_padding_masks()
    _meta_packed_sequences()
    return model.eval()


def _meta_length_masks(module) -> None:
    """XLM's and Flaubert's ``get_masks`` make the causal mask on the device of ``lengths``, which ``meta_inputs``
    keeps on the CPU: given a meta padding mask, the lengths are moved to meta (full length) so that the masks are
    made there. Installed once per module, by ``build``."""
    import torch

    original = module.get_masks
    if getattr(original, "meta_aware", False):
        return

    def get_masks(slen, lengths, causal, padding_mask=None):
        if padding_mask is not None and padding_mask.is_meta:
            lengths = torch.full(lengths.shape, slen, dtype=torch.long, device="meta")
        return original(slen, lengths, causal, padding_mask)

    get_masks.meta_aware = True
    module.get_masks = get_masks


def _switch_experts(self, hidden_states, selected_experts, routing_weights):
    """SwitchTransformersExperts on meta: each of the T tokens through one expert (top-1; no token past the expert
    capacity at these lengths), i.e. T rows through an expert's wi and wo (all experts have the same shape)."""
    self["expert_0"](hidden_states)
    return hidden_states * 0


def _nllb_experts(self, hidden_states, router_mask, router_probs):
    """NllbMoeExperts on meta: transformers 5.25 one-hot encodes the already one-hot top-1 mask, so its loop sends
    the token–expert pairs whose mask is 0 through expert_0 and those whose mask is 1 through expert_1: T·E rows in
    all, whatever the routing. The same T·E rows through one expert."""
    self["expert_0"](hidden_states.repeat(self.num_experts, 1))
    return hidden_states * 0


def _jetmoe_gating(self, hidden_states):
    """JetMoeTopKGating on meta: its expert sizes are read with ``.tolist()``, which the meta device cannot answer.
    The same router (logits, top k, softmax of the k) and gates; every token–expert pair grouped under the first
    expert, so that JetMoeParallelExperts sends the L·k rows through one expert's weights (the same products as any
    routing: checked against the real gating on CPU weights in ``tests/llm/test_families_hf.py``)."""
    import torch

    logits = self.layer(hidden_states).float()
    top_k_logits, _ = logits.topk(self.top_k, dim=1)
    top_k_gates = torch.softmax(top_k_logits, dim=1).type_as(hidden_states)
    rows = top_k_gates.numel()
    index_sorted_experts = torch.arange(rows, device=hidden_states.device)
    batch_index = index_sorted_experts.div(self.top_k, rounding_mode="trunc")
    return index_sorted_experts, batch_index, top_k_gates.flatten(), [rows] + [0] * (self.num_experts - 1), logits


EXPERT_LOOPS = {"SwitchTransformersExperts": _switch_experts, "NllbMoeExperts": _nllb_experts,
                "JetMoeTopKGating": _jetmoe_gating}
"""Expert loops that ask which experts were hit (``nonzero``), which the meta device cannot answer, and that have
no ``batched_mm`` implementation: replaced, on the reference's models, by the same rows through one expert
(FlopCounterMode's total is the same; checked against the real loop on CPU weights in
``tests/llm/test_seq2seq_families_hf.py``)."""


def _meta_padding_masks() -> None:
    """A model that makes its own all-ones padding mask (Megatron-BERT) has transformers ask whether it masks
    anything (``.all()``), which the meta device cannot answer; the references pass no mask, so a meta padding
    mask masks nothing. Installed once, by ``build``."""
    from transformers import masking_utils

    original = masking_utils._ignore_bidirectional_mask_sdpa
    if getattr(original, "meta_aware", False):
        return

    def ignore(padding_mask, *args, **kwargs):
        return original(None if padding_mask is not None and padding_mask.is_meta else padding_mask, *args, **kwargs)

    ignore.meta_aware = True
    masking_utils._ignore_bidirectional_mask_sdpa = ignore


def _dbrx_experts_batched(self, hidden_states, top_k_index, top_k_weights):
    """DBRX's experts as transformers' ``DbrxExperts.forward`` computes them, each (token, routed expert) pair
    once, as batched products instead of a loop over the experts hit: per pair x·w1ᵀ and x·v1ᵀ (d→F), and
    (act(·)·(·))·w2 (F→d), 6·d·F FLOP, as the loop's matmuls (tests/llm/test_dbrx_reference.py checks the two
    on CPU)."""
    import torch

    d, f, k = self.hidden_size, self.ffn_hidden_size, top_k_index.shape[-1]
    x = hidden_states.reshape(-1, d).repeat_interleave(k, dim=0).unsqueeze(1)  # [S, 1, d], S = tokens·k
    pick = top_k_index.reshape(-1)
    w1, v1, w2 = (getattr(self.mlp, name).view(self.num_experts, f, d)[pick] for name in ("w1", "v1", "w2"))
    h = self.mlp.activation_fn(torch.bmm(x, w1.transpose(1, 2))) * torch.bmm(x, v1.transpose(1, 2))
    y = torch.bmm(h, w2).view(-1, k, d) * top_k_weights.reshape(-1, k, 1)
    return y.sum(dim=1).view(hidden_states.shape[0], -1, d)


def without_attention(hf_config) -> bool:
    """A hybrid model built with no attention layer (Bamba's default ``attn_layer_indices``): transformers' cache
    then fails (``get_mask_sizes`` needs an attention layer), so the references run it without a cache, as
    training does (also where ``forward`` does not name ``use_cache``: Granite 4.0 H's); the packed-sequence check that then runs is
    answered "one sequence per row" on meta (``_meta_packed_sequences``)."""
    types = getattr(hf_config, "layer_types", None)
    hybrids = {"bamba", "granitemoehybrid", "nemotron_h", "jamba", "qwen3_next", "qwen3_5_text",
               "qwen3_5_moe_text", "lfm2", "lfm2_moe", "lfm3", "kimi_linear", "olmo_hybrid"}
    return hf_config.model_type in hybrids and bool(types) and "full_attention" not in types


def _meta_packed_sequences() -> None:
    """transformers' packed-sequence check (``find_packed_sequence_indices``, run when a model gets neither a mask
    nor a cache) reads position values the meta device lacks: on meta it answers "not packed", as the ids
    0…T−1 the references use are (engine/importers/torch_count.py does the same). Installed once, by ``build``."""
    from transformers import masking_utils

    original = masking_utils.find_packed_sequence_indices
    if getattr(original, "meta_aware", False):
        return

    def unpacked(position_ids, *args, **kwargs):
        return None if position_ids.is_meta else original(position_ids, *args, **kwargs)

    unpacked.meta_aware = True
    masking_utils.find_packed_sequence_indices = unpacked


def counts(config: dict, seq_len: int, decoder_seq_len: int | None = None) -> tuple[int, int]:
    """(parameters, forward FLOP of one sequence of ``seq_len`` tokens) as transformers builds the model.
    Encoder–decoder models: ``seq_len`` encoder tokens, ``decoder_seq_len`` (default ``seq_len``) decoder ones.
    Built and counted once per test process for each (config, lengths): several tests ask about the same
    published configs."""
    try:
        key = (json.dumps(config, sort_keys=True, allow_nan=True, default=repr), seq_len, decoder_seq_len)
    except TypeError:  # keys of mixed types: counted without the cache
        return model_counts(build(config), seq_len, decoder_seq_len)
    if key not in _COUNTED:
        _COUNTED[key] = model_counts(build(config), seq_len, decoder_seq_len)
    return _COUNTED[key]


_COUNTED: dict[tuple, tuple[int, int]] = {}


def model_counts(model, seq_len: int, decoder_seq_len: int | None = None) -> tuple[int, int]:
    """(Σ numel of the parameters, FlopCounterMode's forward FLOP of one sequence) of a model on meta."""
    import torch
    from tests.meta_memo import flop_counter

    from engine.importers.torch_count import _meta_masks

    params = sum(p.numel() for p in model.parameters())
    for p in model.parameters():  # a forward only: FlopCounterMode's module tracker would otherwise hook the
        p.requires_grad_(False)   # grad of parameters that Mamba's mixer passes on as inputs (no_grad: none)
    ids = torch.zeros(1, seq_len, dtype=torch.long, device="meta")
    kwargs = {"input_ids": ids}
    if model.config.is_encoder_decoder:
        kwargs["decoder_input_ids"] = torch.zeros(1, decoder_seq_len or seq_len, dtype=torch.long, device="meta")
    kwargs |= meta_inputs(model, seq_len, decoder_seq_len)
    if "use_cache" in inspect.signature(model.forward).parameters or without_attention(model.config):
        kwargs["use_cache"] = False  # a cache pads Mamba's convolution input to K positions when T < K
    # without a cache, transformers checks for packed sequences by reading positions, which the meta device
    # lacks: answered "one sequence per row" as the engine's count does (a packed mask changes no product)
    with torch.no_grad(), _meta_masks("meta", []), flop_counter() as counter:
        model(**kwargs)
    return params, counter.get_total_flops()


def meta_inputs(model, seq_len: int, decoder_seq_len: int | None = None) -> dict:
    """Inputs some models need on the meta device: XLM and Flaubert check ``lengths.max().item()`` whatever they are
    given, so the sentence length on the CPU (one sequence of ``seq_len`` tokens, no padding) and an all-ones mask on
    meta (their masks are made from it); FSMT asks whether its ids hold padding (``.any()``) unless given masks, so
    all-ones masks for both stacks. Other models: nothing."""
    import torch

    def ones(n: int):
        return torch.ones(1, n, dtype=torch.long, device="meta")

    if "lengths" in inspect.signature(model.forward).parameters:
        return {"lengths": torch.tensor([seq_len]), "attention_mask": ones(seq_len)}
    if model.config.model_type == "fsmt":
        return {"attention_mask": ones(seq_len), "decoder_attention_mask": ones(decoder_seq_len or seq_len)}
    return {}


def idle_expert_flop(config: dict, seq_len: int, decoder_seq_len: int | None = None) -> int:
    """The FLOP transformers' ``Llama4TextMoe`` spends on the E − k experts a token is not routed to (it runs
    every expert on every token, inputs scaled by the router's scores, zero off the top k), which the engine
    does not count (docs/llm.md): per MoE layer, (E − k)·T tokens through gate and up (d→F each) and down
    (F→d), 2·3·d·F FLOP each. NLLB-MoE: ``_nllb_idle_flop``. 0 for every other family."""
    if config.get("model_type") == "nllb-moe":
        return _nllb_idle_flop(config, seq_len, decoder_seq_len or seq_len)
    if config.get("model_type") != "llama4_text":
        return 0
    layers, step = config["num_hidden_layers"], config.get("interleave_moe_layer_step") or 1
    moe_layers = config.get("moe_layers")
    moe_layers = len(moe_layers) if moe_layers is not None else len(range(step - 1, layers, step))
    idle = config["num_local_experts"] - config["num_experts_per_tok"]
    return moe_layers * idle * seq_len * 6 * config["hidden_size"] * config["intermediate_size"]


def _nllb_idle_flop(config: dict, seq_len: int, decoder_seq_len: int) -> int:
    """NLLB-MoE: transformers 5.25 runs T·E token–expert rows per sparse layer (``_nllb_experts``), the engine the
    2·T of top-2 routing: (E − 2)·T rows through fc1 (d→F) and fc2 (F→d), 2·2·d·F FLOP each, in each stack's
    layers i with (i + 1) % step == 0."""
    experts, d = config.get("num_experts", 128), config.get("d_model", 1024)
    total = 0
    for layers, step, ff, tokens in ((config.get("encoder_layers", 12), config.get("encoder_sparse_step", 4),
                                      config.get("encoder_ffn_dim", 4096), seq_len),
                                     (config.get("decoder_layers", 12), config.get("decoder_sparse_step", 4),
                                      config.get("decoder_ffn_dim", 4096), decoder_seq_len)):
        sparse = sum(1 for i in range(layers) if step > 0 and (i + 1) % step == 0)
        total += sparse * (experts - 2) * tokens * 4 * d * ff
    return total
