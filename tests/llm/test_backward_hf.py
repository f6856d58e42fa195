"""Fine-tuning language models against Hugging Face ``transformers``: the model built from its config on the
meta device (``tests/llm/hf_reference.py``), a real ``loss.backward()`` under ``FlopCounterMode``
(``tests/method1/backward_reference.py``), and this engine's ``transformer`` estimate with the same choice:
full training, the last N blocks (+ final norm and head; embeddings and a tied head's weights frozen, its own bias
trained), LoRA adapters (built here as ``nn.Linear`` pairs, or by ``peft`` itself) on chosen projections. Backward
FLOP and trainable parameters, exactly.

GPT-2's q, k and v come from one fused projection (``c_attn``): adapters on some of them make the whole
fused output need a gradient, so PyTorch computes all three gradients in the first block (docs/training.md);
its LoRA cases here adapt all of q, k, v or none of them.
"""
from __future__ import annotations

import pytest

from engine.llm.config import read_hf_config
from engine.llm.estimate import TransformerRun, estimate_transformer

pytest.importorskip("transformers")
from tests.llm.hf_reference import build, meta_inputs, without_attention  # noqa: E402
from tests.method1.backward_reference import forward_backward, set_trainable  # noqa: E402

SEQ = 12

GPT2 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 3,
        "n_positions": 32, "vocab_size": 100}
BERT = {"architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": 64, "num_attention_heads": 4,
        "num_hidden_layers": 3, "intermediate_size": 96, "vocab_size": 100, "max_position_embeddings": 32,
        "type_vocab_size": 2}
LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 96,
         "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
         "max_position_embeddings": 64, "tie_word_embeddings": False}
MIXTRAL = {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 64,
           "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
           "vocab_size": 100, "max_position_embeddings": 64, "num_local_experts": 4, "num_experts_per_tok": 2}
QWEN3_MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 64,
             "intermediate_size": 96, "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2,
             "num_hidden_layers": 3, "mlp_only_layers": [1], "num_attention_heads": 4, "num_key_value_heads": 2,
             "vocab_size": 100, "max_position_embeddings": 64}
"""Experts, a dense layer, experts: the last blocks (and an adapter's place) in transformers' order, not the dense
layer first."""
PHI3 = {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 64, "intermediate_size": 96,
        "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
        "max_position_embeddings": 64, "tie_word_embeddings": False, "pad_token_id": 0, "bos_token_id": 1,
        "eos_token_id": 1}
"""Phi-3: q, k and v in one ``qkv_proj``, the gate and the up projections in one ``gate_up_proj`` (d → 2F)."""
CONFIGS = {"gpt2": GPT2, "bert": BERT, "llama": LLAMA, "mixtral": MIXTRAL, "qwen3_moe": QWEN3_MOE, "phi3": PHI3}


def _lora(torch, base, n_in, n_out, rank):
    """``base`` frozen, B·A added; ``base`` may be nn.Linear or GPT-2's Conv1D."""
    nn = torch.nn

    class Adapted(nn.Module):
        def __init__(self):
            super().__init__()
            self.base = base
            set_trainable(base, False)
            self.a, self.b = nn.Linear(n_in, rank, bias=False), nn.Linear(rank, n_out, bias=False)

        @property
        def weight(self):  # T5's feed-forward reads its output projection's dtype here
            return self.base.weight

        def forward(self, x):
            return self.base(x) + self.b(self.a(x))

    return Adapted()


def _fused_qkv_lora(torch, base, d, rank, targets):
    """GPT-2's c_attn (d → 3d: q, k, v) frozen, adapters added into the targeted thirds."""
    nn = torch.nn

    class Adapted(nn.Module):
        def __init__(self):
            super().__init__()
            self.base = base
            set_trainable(base, False)
            self.pairs = nn.ModuleDict({t: nn.Sequential(nn.Linear(d, rank, bias=False), nn.Linear(rank, d, bias=False))
                                        for t in targets})

        def forward(self, x):
            thirds = [self.pairs[t](x) if t in self.pairs else torch.zeros(*x.shape[:-1], d, device=x.device)
                      for t in ("q", "k", "v")]
            return self.base(x) + torch.cat(thirds, -1)

    return Adapted()


def _blocks(model, family):
    return {"gpt2": lambda: model.transformer.h, "bert": lambda: model.bert.encoder.layer,
            "llama": lambda: model.model.layers, "mixtral": lambda: model.model.layers,
            "qwen3_moe": lambda: model.model.layers, "phi3": lambda: model.model.layers}[family]()


def _projections(block, family):
    """{target: (parent module, attribute, n_in, n_out)} of one block."""
    if family == "qwen3_moe":  # attention, and the dense layers' MLP (the experts are stacked tensors)
        a, m = block.self_attn, block.mlp
        own = {"q": (a, "q_proj"), "k": (a, "k_proj"), "v": (a, "v_proj"), "o": (a, "o_proj")}
        return own | ({"down": (m, "down_proj")} if hasattr(m, "down_proj") else {})
    if family == "mixtral":  # the experts are stacked tensors, not nn.Linear: attention only
        a = block.self_attn
        return {"q": (a, "q_proj"), "k": (a, "k_proj"), "v": (a, "v_proj"), "o": (a, "o_proj")}
    if family == "llama":
        a, m = block.self_attn, block.mlp
        return {"q": (a, "q_proj"), "k": (a, "k_proj"), "v": (a, "v_proj"), "o": (a, "o_proj"),
                "gate": (m, "gate_proj"), "up": (m, "up_proj"), "down": (m, "down_proj")}
    if family == "bert":
        s = block.attention.self
        return {"q": (s, "query"), "k": (s, "key"), "v": (s, "value"), "o": (block.attention.output, "dense"),
                "up": (block.intermediate, "dense"), "down": (block.output, "dense")}
    return {"o": (block.attn, "c_proj"), "up": (block.mlp, "c_fc"), "down": (block.mlp, "c_proj")}


def _shape(module):
    if hasattr(module, "in_features"):
        return module.in_features, module.out_features
    return module.weight.shape[0], module.weight.shape[1]  # Conv1D: weight [n_in, n_out]


def _adapt(torch, family, blocks, rank, targets):
    """LoRA adapters (nn.Linear pairs on the meta device) on the targeted projections of every block."""
    for block in blocks:
        for target in targets:
            if family == "gpt2" and target in "qkv" or target not in _projections(block, family):
                continue
            parent, name = _projections(block, family)[target]
            base = getattr(parent, name)
            setattr(parent, name, _lora(torch, base, *_shape(base), rank))
        if family == "gpt2" and set(targets) & {"q", "k", "v"}:
            attn = block.attn
            attn.c_attn = _fused_qkv_lora(torch, attn.c_attn, attn.embed_dim, rank, [t for t in targets if t in "qkv"])


def _reference(torch, family, mode, n=None, rank=None, targets=()):
    """(backward FLOP, trainable parameters) of the transformers model trained as ``mode`` says."""
    model = build(CONFIGS[family])
    set_trainable(model, mode == "full")
    blocks = _blocks(model, family)
    if mode == "last":
        for block in list(blocks)[-n:]:
            set_trainable(block, True)
        if family == "gpt2":
            set_trainable(model.transformer.ln_f, True)  # the head is the (frozen) token table
        elif family == "bert":  # the decoder's weight is the (frozen) token table; its bias is its own and trains
            set_trainable(model.cls.predictions.transform, True)
            model.cls.predictions.bias.requires_grad_(True)
        else:
            set_trainable(model.model.norm, True)
            set_trainable(model.lm_head, True)
    if mode == "lora":
        with torch.device("meta"):
            _adapt(torch, family, blocks, rank, targets)
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    kwargs = {}
    if family != "bert":  # a decoder's mask: given, so that transformers does not probe for packed sequences
        kwargs = {"attention_mask": torch.ones(1, SEQ, dtype=torch.long, device="meta"), "use_cache": False}
    _, backward = forward_backward(torch, model, ids, kwargs=kwargs)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return backward, trainable


def _engine(family, **run):
    estimate = estimate_transformer(read_hf_config(CONFIGS[family]),
                                    TransformerRun(tokens=1e6, seq_len=SEQ, **run))
    return estimate.architecture.backward_flop, estimate.architecture.trainable_params, estimate


@pytest.mark.parametrize("family", list(CONFIGS))
def test_full_training(torch, family):
    backward, trainable = _reference(torch, family, "full")
    ours, ours_trainable, estimate = _engine(family)
    assert ours == backward
    # full: every parameter trains (a tied head counted once, with the table)
    assert ours_trainable == trainable == estimate.params


@pytest.mark.parametrize("family", list(CONFIGS))
@pytest.mark.parametrize("n", [1, 2])
def test_last_blocks(torch, family, n):
    backward, trainable = _reference(torch, family, "last", n=n)
    ours, ours_trainable, estimate = _engine(family, trainable_last=n)
    assert (ours, ours_trainable) == (backward, trainable)
    assert estimate.training.backward == "exact" and estimate.training.note


LORA_CASES = [("llama", ("q", "v")), ("llama", ("q", "k", "v", "o", "gate", "up", "down")), ("llama", ("k", "down")),
              ("bert", ("q", "v")), ("bert", ("k", "o", "up")), ("gpt2", ("q", "k", "v")), ("gpt2", ("o", "down")),
              ("gpt2", ("q", "k", "v", "o", "up", "down")), ("mixtral", ("q", "v")), ("mixtral", ("k", "o")),
              ("qwen3_moe", ("down",)), ("qwen3_moe", ("q", "down"))]


@pytest.mark.parametrize("family,targets", LORA_CASES)
@pytest.mark.parametrize("rank", [1, 8])
def test_lora(torch, family, targets, rank):
    backward, trainable = _reference(torch, family, "lora", rank=rank, targets=targets)
    ours, ours_trainable, estimate = _engine(family, lora_rank=rank, lora_targets=targets)
    assert (ours, ours_trainable) == (backward, trainable)
    assert estimate.training.trainable_params == trainable


@pytest.mark.parametrize("rank", [1, 8])
def test_gpt2_lora_on_c_attn_is_peft(torch, rank):
    """PEFT's only LoRA target for GPT-2, ``c_attn`` (the fused q/k/v projection d → 3d): one adapter per block, A
    d→r and B r→3d, r·4d parameters (not three adapters of r·2d): the engine's target ``qkv`` gives PEFT's own
    trainable parameters, forward and backward FLOP (FlopCounterMode over ``get_peft_model``'s model)."""
    import peft  # requirements-dev.txt installs it: a missing peft is a failure, not a skip
    model = build(GPT2)
    with torch.device("meta"):
        model = peft.get_peft_model(model, peft.LoraConfig(r=rank, target_modules=["c_attn"], lora_dropout=0.0))
    trainable, total = model.get_nb_trainable_parameters()
    assert trainable == GPT2["n_layer"] * rank * 4 * GPT2["n_embd"]  # r·(d + 3d) per block
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    forward, backward = forward_backward(torch, model, ids, kwargs={
        "attention_mask": torch.ones(1, SEQ, dtype=torch.long, device="meta"), "use_cache": False})
    ours, ours_trainable, estimate = _engine("gpt2", lora_rank=rank, lora_targets=("qkv",))
    assert (ours, ours_trainable, estimate.architecture.forward_flop, estimate.params) == (
        backward, trainable, forward, total)


@pytest.mark.parametrize("modules,targets", [(["gate_up_proj"], ("gate_up",)),
                                             (["qkv_proj", "gate_up_proj"], ("qkv", "gate_up")),
                                             (["qkv_proj", "o_proj", "gate_up_proj", "down_proj"],
                                              ("qkv", "o", "gate_up", "down"))])
@pytest.mark.parametrize("rank", [1, 8])
def test_phi3_lora_on_gate_up_proj_is_peft(torch, modules, targets, rank):
    """Phi-3's MLP computes its gate and up projections as one ``gate_up_proj`` (d → 2F): PEFT puts one adapter on
    it, A d→r and B r→2F, r·(d + 2F) parameters and one A per token (not two adapters of r·(d + F)): the engine's
    target ``gate_up`` gives PEFT's own trainable parameters, forward and backward FLOP (FlopCounterMode over
    ``get_peft_model``'s model); with ``qkv_proj`` too, its target ``qkv``."""
    import peft
    model = build(PHI3)
    with torch.device("meta"):
        model = peft.get_peft_model(model, peft.LoraConfig(r=rank, target_modules=modules, lora_dropout=0.0))
    trainable, total = model.get_nb_trainable_parameters()
    d, f, kv = PHI3["hidden_size"], PHI3["intermediate_size"], PHI3["num_key_value_heads"]
    widths = {"gate_up_proj": (d, 2 * f), "qkv_proj": (d, d + 2 * kv * d // PHI3["num_attention_heads"]),
              "o_proj": (d, d), "down_proj": (f, d)}
    assert trainable == PHI3["num_hidden_layers"] * sum(rank * sum(widths[m]) for m in modules)
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    forward, backward = forward_backward(torch, model, ids, kwargs={
        "attention_mask": torch.ones(1, SEQ, dtype=torch.long, device="meta"), "use_cache": False})
    ours, ours_trainable, estimate = _engine("phi3", lora_rank=rank, lora_targets=targets)
    assert (ours, ours_trainable, estimate.architecture.forward_flop, estimate.params) == (
        backward, trainable, forward, total)


def test_gate_up_is_one_adapter_where_gate_and_up_are_two(torch):
    """The fused adapter and two adapters differ by one A (d → r) per token and one r·d of parameters: the same
    model with targets gate and up (two adapters, as PEFT puts them on Llama's gate_proj and up_proj) trains
    r·d parameters more and computes 2·r·d FLOP more per token forward."""
    rank = 8
    _, fused, fused_estimate = _engine("phi3", lora_rank=rank, lora_targets=("gate_up",))
    _, two, two_estimate = _engine("phi3", lora_rank=rank, lora_targets=("gate", "up"))
    blocks, d = PHI3["num_hidden_layers"], PHI3["hidden_size"]
    assert two - fused == blocks * rank * d
    assert two_estimate.architecture.forward_flop - fused_estimate.architecture.forward_flop == 2 * blocks * SEQ * rank * d


@pytest.mark.parametrize("targets,field,words", [(("gate_up", "gate"), "targets", "gate_up is one adapter"),
                                                 (("gate_up", "up"), "targets", "gate_up is one adapter")])
def test_gate_up_with_gate_or_up_is_refused(targets, field, words):
    from engine.errors import InputError
    with pytest.raises(InputError) as err:
        _engine("phi3", lora_rank=8, lora_targets=targets)
    assert err.value.field.endswith(field) and words in str(err.value)


def test_gate_up_needs_a_gated_feed_forward():
    """GPT-2's MLP has no gate (c_fc, GELU, c_proj): no gate/up pair to fuse."""
    from engine.errors import InputError
    with pytest.raises(InputError) as err:
        _engine("gpt2", lora_rank=8, lora_targets=("gate_up",))
    assert "gate_up" in str(err.value) and "gated dense or shared feed-forward" in str(err.value)


def test_bert_last_blocks_train_the_masked_lm_bias(torch):
    """Fine-tuning BERT's last block with its embeddings frozen: the masked-LM decoder's weight is the token table
    (frozen with it), its bias ``cls.predictions.bias`` (V) is a parameter of its own and trains (it was counted
    frozen: 30,522 parameters short for bert-base). Trained: the block (q, k, v, o: d² + d each; up and down:
    2·d·F + F + d; two LayerNorms: 4d), the head's transform (d² + d and a LayerNorm, 2d) and the bias V."""
    d, f, v = BERT["hidden_size"], BERT["intermediate_size"], BERT["vocab_size"]
    block = 4 * (d * d + d) + 2 * d * f + f + d + 2 * 2 * d
    _, trainable = _reference(torch, "bert", "last", n=1)
    _, ours_trainable, _ = _engine("bert", trainable_last=1)
    assert ours_trainable == trainable == block + d * d + d + 2 * d + v


def test_gpt2_fused_qkv_with_some_targets_computes_every_gradient(torch):
    """The stated special case: adapters on q and v only, in GPT-2's fused c_attn. PyTorch computes the key's
    gradient too in the first block (its input, the frozen embeddings, needs none): one H·L²·Q product more,
    2·H·L²·Q FLOP, than the engine's count of what is needed."""
    backward, trainable = _reference(torch, "gpt2", "lora", rank=8, targets=("q", "v"))
    ours, ours_trainable, _ = _engine("gpt2", lora_rank=8, lora_targets=("q", "v"))
    assert ours_trainable == trainable
    assert backward - ours == 2 * SEQ * SEQ * GPT2["n_embd"]  # H·Q = d


# ---------------------------------------------------------------- every block shape the readers know, trained in full

from tests.llm.test_families_hf import VARIANTS  # noqa: E402

# bidirectional encoders: no mask given (transformers probes a given one with .item(), refused on the meta device)
ENCODERS = {"bert", "roberta", "xlm-roberta", "camembert", "distilbert", "mpnet", "electra"}
ENCODERS |= {"data2vec-text", "roberta-prelayernorm", "xlm-roberta-xl", "megatron-bert", "ernie", "albert",
             "modernbert", "modernbert-decoder", "deberta", "deberta-v2", "roformer", "nomic_bert", "eurobert", "bert-generation",
             "esm", "rembert", "gte", "jina_embeddings_v3", "mobilebert"}
NO_MASK = ENCODERS | {"mamba2", "bamba", "granitemoehybrid", "nemotron_h", "zamba2", "zamba", "jamba", "falcon_h1",
                      "minimax", "qwen3_next", "qwen3_5_text",
                      "qwen3_5_moe_text", "lfm2", "lfm2_moe", "lfm3", "kimi_linear", "olmo_hybrid"}  # state-space: recurrent masks are probed


def _full_reference(torch, config: dict, seq: int) -> tuple[int, int]:
    model = build(config)
    set_trainable(model, True)
    ids = torch.zeros(1, seq, dtype=torch.long, device="meta")
    kwargs = {}
    if model.config.is_encoder_decoder:
        kwargs["decoder_input_ids"] = torch.zeros(1, seq, dtype=torch.long, device="meta")
    elif config["model_type"] not in NO_MASK and not config["architectures"][0].endswith("EncoderModel"):
        # a decoder's mask, given, so that transformers does not probe for packed sequences (an encoder's
        # bidirectional mask would be probed instead)
        kwargs["attention_mask"] = torch.ones(1, seq, dtype=torch.long, device="meta")
    if "use_cache" in model.forward.__code__.co_varnames or without_attention(model.config):
        kwargs["use_cache"] = False
    kwargs |= meta_inputs(model, seq)  # XLM, Flaubert, FSMT
    return forward_backward(torch, model, ids, kwargs=kwargs)


CPU_BACKWARD = frozenset({"diffllama"})
"""Families whose backward cannot run on the meta device (DiffLlama's λ, a 0-dim tensor, is copied to the CPU by
autograd): counted on small CPU weights instead (``test_full_training_on_cpu_weights``)."""


@pytest.mark.parametrize("name", [n for n in VARIANTS if VARIANTS[n]["model_type"] not in CPU_BACKWARD])
def test_full_training_of_every_variant(torch, name):
    """Full training, every weight trains: forward and backward equal transformers' to the integer (MoE through
    the batched experts, latent attention, parallel and sandwich blocks, encoder–decoder cross-attention)."""
    config = VARIANTS[name]
    forward, backward = _full_reference(torch, config, SEQ)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, backward="exact"))
    assert (estimate.architecture.forward_flop, estimate.architecture.backward_flop) == (forward, backward)


@pytest.mark.parametrize("name", [n for n in VARIANTS if VARIANTS[n]["model_type"] in CPU_BACKWARD])
def test_full_training_on_cpu_weights(torch, name):
    """As ``test_full_training_of_every_variant``, the model built with real (small) CPU weights."""
    import transformers

    config = dict(VARIANTS[name])
    cls, model_type = config.pop("architectures")[0], config.pop("model_type")
    model = getattr(transformers, cls)._from_config(transformers.AutoConfig.for_model(model_type, **config),
                                                    attn_implementation="eager").eval()
    set_trainable(model, True)
    ids = torch.zeros(1, SEQ, dtype=torch.long)
    forward, backward = forward_backward(torch, model, ids, kwargs={
        "attention_mask": torch.ones(1, SEQ, dtype=torch.long), "use_cache": False})
    estimate = estimate_transformer(read_hf_config(VARIANTS[name]),
                                    TransformerRun(tokens=1e6, seq_len=SEQ, backward="exact"))
    assert (estimate.architecture.forward_flop, estimate.architecture.backward_flop) == (forward, backward)


# ---------------------------------------------------------------- an encoder–decoder: cross-attention's memory

T5 = VARIANTS["t5 bare, gated-silu, unequal stacks"]  # 3 encoder and 2 decoder blocks, gated feed-forward


def _t5_projections(block):
    """{target: [(parent, attribute)]} of a T5 block: q, k, v, o in self- and (decoder) cross-attention."""
    out: dict = {}
    attentions = [block.layer[0].SelfAttention] + ([block.layer[1].EncDecAttention] if len(block.layer) == 3 else [])
    for attention in attentions:
        for t in "qkvo":
            out.setdefault(t, []).append((attention, t))
    ff = block.layer[-1].DenseReluDense
    out.update({"gate": [(ff, "wi_0")], "up": [(ff, "wi_1")], "down": [(ff, "wo")]})
    return out


def _t5_reference(torch, mode, n=None, rank=None, targets=()):
    model = build(T5)
    set_trainable(model, False)
    if mode == "last":
        for block in list(model.decoder.block)[-n:]:
            set_trainable(block, True)
        set_trainable(model.decoder.final_layer_norm, True)
    if mode == "lora":
        with torch.device("meta"):
            for block in list(model.encoder.block) + list(model.decoder.block):
                for target in targets:
                    for parent, name in _t5_projections(block)[target]:
                        base = getattr(parent, name)
                        setattr(parent, name, _lora(torch, base, *_shape(base), rank))
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    decoder_ids = torch.zeros(1, 5, dtype=torch.long, device="meta")
    _, backward = forward_backward(torch, model, ids, kwargs={"decoder_input_ids": decoder_ids, "use_cache": False})
    return backward, sum(p.numel() for p in model.parameters() if p.requires_grad)


@pytest.mark.parametrize("mode,run", [
    ("last", {"trainable_last": 1}), ("last", {"trainable_last": 2}),
    ("lora", {"lora_rank": 4, "lora_targets": ("q", "v")}),
    ("lora", {"lora_rank": 2, "lora_targets": ("k", "o", "gate", "down")}),
])
def test_t5_fine_tunes(torch, mode, run):
    """Decoder blocks read the encoder's output (the memory) in cross-attention: with LoRA in the encoder the
    memory needs a gradient, so the cross-attention's k/v projections pass one back; with the last decoder
    blocks only, it needs none."""
    n = run.get("trainable_last")
    backward, trainable = _t5_reference(torch, mode, n=n, rank=run.get("lora_rank"),
                                        targets=run.get("lora_targets", ()))
    estimate = estimate_transformer(read_hf_config(T5), TransformerRun(tokens=1e6, seq_len=SEQ, decoder_seq_len=5,
                                                                       **run))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)


# ---------------------------------------------------------------- Qwen3-Next: the chunked gated delta rule over several chunks

QWEN3_NEXT_LINEAR = VARIANTS["qwen3_next no experts, all linear, tied"]  # 2 Gated DeltaNet layers, dense MLPs


@pytest.mark.parametrize("seq", [64, 65, 130])
def test_qwen3_next_chunks_forward_and_backward(torch, seq):
    """Chunks of Q = 64 (65 positions: padded to 128, two chunks; 130: three): forward and full-training backward
    equal transformers' on meta. The backward is not 2× the forward: per Gated DeltaNet layer, the two triangular
    solves' gradients need the products ∂T = −(T⁻ᵀ∂X)·Xᵀ, 2·H·L_p·Q·(d_v + d_k) FLOP, while the first chunk's two
    reads of the zero state need no gradient for it (−2·2·Q·H·d_k·d_v) and the last chunk's state update none at
    all (−2·2·Q·H·d_k·d_v)."""
    config = QWEN3_NEXT_LINEAR
    forward, backward = _full_reference(torch, config, seq)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=seq, backward="exact"))
    assert (estimate.architecture.forward_flop, estimate.architecture.backward_flop) == (forward, backward)
    h, dk, dv, q = config["linear_num_value_heads"], config["linear_key_head_dim"], config["linear_value_head_dim"], 64
    padded = -(-seq // q) * q
    per_layer = 2 * h * padded * q * (dv + dk) - 8 * q * h * dk * dv
    assert backward - 2 * forward == config["num_hidden_layers"] * per_layer


def _qwen3_next_fine_tune(torch, config: dict, seq: int, last: int | None = None, targets=(), rank: int = 4):
    """transformers' model with the last blocks (+ final norm and an untied head) trained, or LoRA adapters on the
    targeted projections of attention (q, v, o), dense MLPs and shared experts (gate, up, down): backward FLOP and
    trainable parameters."""
    from tests.method1.backward_reference import lora_linear

    model = build(config)
    set_trainable(model, False)
    if last:
        for block in list(model.model.layers)[-last:]:
            set_trainable(block, True)
        set_trainable(model.model.norm, True)
        if not config.get("tie_word_embeddings"):
            set_trainable(model.lm_head, True)
    with torch.device("meta"):
        for layer in model.model.layers:
            owners = [getattr(layer, "self_attn", None)] if set(targets) & {"q", "v", "o"} else []
            if set(targets) & {"gate", "up", "down"}:
                owners += [getattr(layer.mlp, "shared_expert", layer.mlp)]
            for owner in filter(None, owners):
                for t in targets:
                    if hasattr(owner, f"{t}_proj"):
                        setattr(owner, f"{t}_proj", lora_linear(torch, getattr(owner, f"{t}_proj"), rank))
    ids = torch.zeros(1, seq, dtype=torch.long, device="meta")
    _, backward = forward_backward(torch, model, ids, kwargs={"use_cache": False})
    return backward, sum(p.numel() for p in model.parameters() if p.requires_grad)


@pytest.mark.parametrize("seq", [12, 70])
@pytest.mark.parametrize("run", [{"trainable_last": 1}, {"trainable_last": 2}, {"lora_targets": ("q", "v")},
                                 {"lora_targets": ("o", "gate", "up", "down")}])
@pytest.mark.parametrize("name", ["qwen3_next every 2nd layer attention, a dense layer",
                                  "qwen3_next no experts, all linear, tied",
                                  "qwen3_5_text every 2nd layer attention, published keys",
                                  "qwen3_5_moe_text every 2nd layer attention, published keys"])
def test_qwen3_next_fine_tunes(torch, name, run, seq):
    """Qwen3-Next and Qwen3.5 (dense, MoE; split in projections): the last blocks, or LoRA (rank 4) on attention or
    feed-forward projections, the Gated DeltaNet layers frozen
    between them (their input gradients flow through the chunked rule and its solves): backward FLOP and trainable
    parameters equal transformers'."""
    config = VARIANTS[name]
    lora = {"lora_rank": 4} if "lora_targets" in run else {}
    if config is QWEN3_NEXT_LINEAR and set(run.get("lora_targets", ())) & {"q", "v", "o"}:
        # Gated DeltaNet layers only: no q/v/o projection (transformers: 0 adapters there), so the first
        # attention target is refused rather than counted as 0
        from engine.errors import InputError

        first = next(t for t in run["lora_targets"] if t in {"q", "v", "o"})
        with pytest.raises(InputError, match=f"^targets: '{first}': no block of this model has an? "):
            estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=seq, **run, **lora))
        assert _qwen3_next_fine_tune(torch, config, seq, None, (first,))[1] == 0  # what transformers adapts: nothing
        return
    backward, trainable = _qwen3_next_fine_tune(torch, config, seq, run.get("trainable_last"),
                                                run.get("lora_targets", ()))
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=seq, **run, **lora))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)
# ---------------------------------------------------------------- Gemma 4: layers reusing earlier keys and values

GEMMA4 = {"architectures": ["Gemma4ForCausalLM"], "model_type": "gemma4_text", "hidden_size": 64,
          "intermediate_size": 96, "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2,
          "head_dim": 16, "global_head_dim": 24, "vocab_size": 100, "vocab_size_per_layer_input": 90,
          "hidden_size_per_layer_input": 8, "sliding_window": 8, "layer_types": ["sliding_attention", "full_attention"] * 3,
          "num_kv_shared_layers": 2, "attention_k_eq_v": True, "num_global_key_value_heads": 1,
          "tie_word_embeddings": False, "max_position_embeddings": 64}
"""Layers 4 and 5 reuse the keys and values of layers 2 (sliding) and 3 (full; its values are its keys)."""

GEMMA4_UNIFIED = {k: v for k, v in GEMMA4.items() if not k.endswith("per_layer_input")} | {
    "architectures": ["Gemma4UnifiedForCausalLM"], "model_type": "gemma4_unified_text"}
"""The same layers in Gemma 4 unified's text class (no per-layer embeddings)."""


def _gemma4_reference(torch, config, mode, n=None, rank=None, targets=()):
    model = build(config)
    set_trainable(model, mode == "full")
    blocks = list(model.model.layers)
    if mode == "last":
        for block in blocks[-n:]:
            set_trainable(block, True)
        set_trainable(model.model.norm, True)
        set_trainable(model.lm_head, True)
    if mode == "lora":
        with torch.device("meta"):
            for block in blocks:
                a, m = block.self_attn, block.mlp
                found = {"q": (a, "q_proj"), "k": (a, "k_proj"), "v": (a, "v_proj"), "o": (a, "o_proj"),
                         "gate": (m, "gate_proj"), "up": (m, "up_proj"), "down": (m, "down_proj")}
                for target in targets:
                    parent, name = found[target]
                    base = getattr(parent, name, None)
                    if base is not None:  # a layer reusing keys and values has no k/v; values from keys, no v
                        setattr(parent, name, _lora(torch, base, *_shape(base), rank))
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    kwargs = {"attention_mask": torch.ones(1, SEQ, dtype=torch.long, device="meta"), "use_cache": False}
    _, backward = forward_backward(torch, model, ids, kwargs=kwargs)
    return backward, sum(p.numel() for p in model.parameters() if p.requires_grad)


@pytest.mark.parametrize("mode,run", [
    ("last", {"trainable_last": 4}), ("last", {"trainable_last": 5}),
    ("lora", {"lora_rank": 4, "lora_targets": ("q", "v")}),
    ("lora", {"lora_rank": 2, "lora_targets": ("k", "o", "gate", "down")}),
])
@pytest.mark.parametrize("config", [GEMMA4, GEMMA4_UNIFIED], ids=["gemma4", "gemma4_unified"])
def test_gemma4_fine_tunes_with_shared_keys_and_values(torch, mode, run, config):
    """The layers reusing keys and values pass gradients back into them (QKᵀ and AV): exactly as transformers when
    their source layers train (the last 4 or 5 blocks) or when the input of those layers needs a gradient (LoRA)."""
    backward, trainable = _gemma4_reference(torch, config, mode, n=run.get("trainable_last"),
                                            rank=run.get("lora_rank"), targets=run.get("lora_targets", ()))
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, **run))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)


@pytest.mark.parametrize("run,key", [({"trainable_last": 2}, "blocks"),
                                     ({"lora_rank": 4, "lora_targets": ("q", "v")}, "mode")])
def test_gemma4_fine_tuning_with_a_frozen_key_value_source_is_refused(run, key):
    """Training layers 4–5 only leaves their sources (2, 3) frozen: their keys need no gradient, which the block
    cannot tell; under LoRA a source at layer 0 (its input, the frozen embeddings, needs none) likewise."""
    from engine.errors import InputError

    config = GEMMA4
    if key == "mode":  # 2 layers, the second reusing the first's keys and values
        config = GEMMA4 | {"num_hidden_layers": 2, "layer_types": ["full_attention"] * 2, "num_kv_shared_layers": 1}
    with pytest.raises(InputError, match=key):
        estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, **run))


@pytest.mark.parametrize("run", [{"trainable_last": 1}, {"lora_rank": 4}])
def test_gemma3n_fine_tuning_part_of_it_is_refused(run):
    """AltUp's streams carry every layer's output through the next layer's prediction and correction products: what
    a partly frozen Gemma 3n computes in its backward pass is not modelled, and is refused by name."""
    from engine.errors import InputError
    from tests.llm.decoder_variants import DECODER_VARIANTS

    config = next(v for v in DECODER_VARIANTS.values() if v["model_type"] == "gemma3n_text")
    with pytest.raises(InputError, match="fine-tune: fine-tuning part of a Gemma 3n model"):
        estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, **run))


# ---------------------------------------------------------------- LFM2: fine-tuning across the short convolutions

LFM2_MLP_NAMES = {"gate": "w1", "up": "w3", "down": "w2"}
"""Lfm2MLP's (and Lfm3MLP's) projections under the engine's LoRA targets."""


def _lfm2_fine_tune(torch, config: dict, seq: int, last: int | None = None, targets=(), rank: int = 4):
    """transformers' LFM2 with the last blocks (+ the final norm, ``embedding_norm``, and an untied head) trained, or
    LoRA adapters on attention's q, v and output (``out_proj``) and on the dense MLPs' w1, w3, w2 (gate, up, down):
    backward FLOP and trainable parameters."""
    from tests.method1.backward_reference import lora_linear

    model = build(config)
    set_trainable(model, False)
    if last:
        for block in list(model.model.layers)[-last:]:
            set_trainable(block, True)
        set_trainable(model.model.embedding_norm, True)
        if config.get("tie_word_embeddings") is False or config.get("tie_embedding") is False:
            set_trainable(model.lm_head, True)
    with torch.device("meta"):
        for layer in model.model.layers:
            attention = getattr(layer, "self_attn", None)
            for t in targets:
                if t in ("q", "v", "o") and attention is not None:
                    name = f"{t}_proj" if t != "o" else "out_proj" if hasattr(attention, "out_proj") else "o_proj"
                    setattr(attention, name, lora_linear(torch, getattr(attention, name), rank))
                mlp = layer.feed_forward
                if t in LFM2_MLP_NAMES and hasattr(mlp, "w1"):
                    name = LFM2_MLP_NAMES[t]
                    setattr(mlp, name, lora_linear(torch, getattr(mlp, name), rank))
    ids = torch.zeros(1, seq, dtype=torch.long, device="meta")
    _, backward = forward_backward(torch, model, ids, kwargs={"use_cache": False})
    return backward, sum(p.numel() for p in model.parameters() if p.requires_grad)


@pytest.mark.parametrize("run", [{"trainable_last": 1}, {"trainable_last": 3}, {"lora_targets": ("q", "v")},
                                 {"lora_targets": ("o", "gate", "up", "down")}])
@pytest.mark.parametrize("name", ["lfm2 listed kinds, width adjusted, published keys",
                                  "lfm2 all convolutions, kernel 2, untied",
                                  "lfm2_moe dense layers then experts, published keys",
                                  "lfm3 default kinds, head size 128, gate and sandwich norms, published keys",
                                  "lfm3 convolutions and sliding attention, untied, heads not dividing d"])
def test_lfm2_fine_tunes(torch, name, run):
    """LFM2, LFM2-MoE and LFM3 (its o_proj; the gate per head frozen): the last blocks, or LoRA (rank 4) on attention or dense-MLP projections, the short
    convolutions frozen between them (their input gradients flow through the gates and the convolution): backward
    FLOP and trainable parameters equal transformers'."""
    config = VARIANTS[name]
    lora = {"lora_rank": 4} if "lora_targets" in run else {}
    if lora and config.get("layer_types") and not any("attention" in kind for kind in config["layer_types"]):
        # no attention layer: an attention target would adapt nothing (transformers: 0 adapters there), refused
        from engine.errors import InputError

        first = run["lora_targets"][0]
        with pytest.raises(InputError, match=f"^targets: '{first}': no block of this model has an? "):
            estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, **run, **lora))
        return
    backward, trainable = _lfm2_fine_tune(torch, config, SEQ, run.get("trainable_last"), run.get("lora_targets", ()))
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, **run, **lora))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)


# ---------------------------------------------------------------- Kimi Linear: Kimi Delta Attention over several chunks

KIMI_LINEAR_KDA = {"model_type": "kimi_linear", "architectures": ["KimiLinearForCausalLM"], "hidden_size": 32,
                   "vocab_size": 50, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "intermediate_size": 40,
                   "num_hidden_layers": 2, "layer_types": ["linear_attention"] * 2, "mlp_layer_types": ["dense"] * 2,
                   "linear_num_heads": 2, "linear_head_dim": 8, "linear_conv_kernel_dim": 4}
"""2 Kimi Delta Attention layers with dense MLPs."""


@pytest.mark.parametrize("seq", [64, 65, 130])
def test_kimi_linear_chunks_forward_and_backward(torch, seq):
    """Chunks of Q = 64 (65 positions: padded to 128, two chunks; 130: three): forward and full-training backward
    equal transformers' on meta. Forward, per layer: the projections, the convolution, and of the delta rule only
    the products FlopCounterMode sees — the UT products T·(β v), T·(β k e^g) (2·H·L_p·Q·D MACs), the reads of the
    state (2·H·L_p·D²), its updates (H·L_p·D²) and the chunk attention × the new values (H·L_p·Q·D); the
    per-channel decayed scores and the substitution are element-wise. Backward: 2× the forward, less the first
    chunk's two reads of the zero state (no gradient for it) and the last chunk's discarded update
    (−2·2·Q·H·D² each)."""
    config = KIMI_LINEAR_KDA
    forward, backward = _full_reference(torch, config, seq)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=seq, backward="exact"))
    assert (estimate.architecture.forward_flop, estimate.architecture.backward_flop) == (forward, backward)
    d, v, f, h, dd, k, q = 32, 50, 40, 2, 8, 4, 64
    padded = -(-seq // q) * q
    i = h * dd
    projections = seq * (d * 3 * i + d * dd + dd * i + d * h + d * dd + dd * i + i * d)
    kda = projections + 3 * i * k * (seq + k - 1) + h * padded * (2 * q * dd + 3 * dd * dd + q * dd)
    mlp = 3 * seq * d * f
    assert forward == 2 * (2 * (kda + mlp) + seq * d * v)
    assert backward - 2 * forward == 2 * -8 * q * h * dd * dd


@pytest.mark.parametrize("seq", [12, 70])
@pytest.mark.parametrize("last", [1, 2, 3])
@pytest.mark.parametrize("name", ["kimi_linear published layout keys, listed 1-based kinds, a dense first layer",
                                  "kimi_linear listed kinds and feed-forwards, no shared expert, tie ignored"])
def test_kimi_linear_fine_tunes_the_last_blocks(torch, name, last, seq):
    """Kimi Linear, the last 1–3 blocks trained (+ final norm and head), the blocks before frozen: the input
    gradients of the trained blocks flow through Kimi Delta Attention's chunked rule (the first chunk's reads of the
    zero state and the UT products included) and latent attention; backward FLOP and trainable parameters equal
    transformers'."""
    config = VARIANTS[name]
    untied = config | {"tie_word_embeddings": False}  # the same model (the class ties nothing): the helper trains the head
    backward, trainable = _qwen3_next_fine_tune(torch, untied, seq, last)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=seq, trainable_last=last))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)


@pytest.mark.parametrize("seq", [65, 130])
def test_olmo_hybrid_chunks_forward_and_backward(torch, seq):
    """OLMo Hybrid's Gated DeltaNet (q, k, v and the gate projected apart) over two and three chunks of 64, with OLMo
    2's attention layers: forward and full-training backward equal transformers' on meta."""
    config = VARIANTS["olmo_hybrid model, grouped linear heads, biases"]
    forward, backward = _full_reference(torch, config, seq)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=seq, backward="exact"))
    assert (estimate.architecture.forward_flop, estimate.architecture.backward_flop) == (forward, backward)


# ---------------------------------------------------------------- DeepSeek-V4: the last blocks trained

V4_TUNED = {name: VARIANTS[name] | extra for name, extra in (
    ("deepseek-v4 (sliding, compressed sparse and heavily compressed layers; indexer, streams)", {}),
    ("deepseek-v4 legacy compress_ratios and compress_rate_csa (heavily compressed 128: no entry), tied",
     {"tie_word_embeddings": False}))}


@pytest.mark.parametrize("last", [1, 2, 3])
@pytest.mark.parametrize("name", V4_TUNED)
def test_deepseek_v4_fine_tunes_the_last_blocks(torch, name, last):
    """The last blocks of DeepSeek-V4 trained with what follows them (the hyper-connection head, the norm, the LM
    head), the earlier blocks and the token table frozen: the first trained block's hyper-connection weights and
    comb × streams need no gradient for their input, its compressors' and indexer's as in full training. Backward
    FLOP equal transformers'; trainable parameters too, less the indexers' (their output is an index: they never
    get a gradient, the engine does not count them as trained)."""
    config = V4_TUNED[name]
    model = build(config)
    set_trainable(model, False)
    for module in [*model.model.layers[-last:], model.model.hc_head, model.model.norm, model.lm_head]:
        set_trainable(module, True)
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    _, backward = forward_backward(torch, model, ids, kwargs={
        "attention_mask": torch.ones(1, SEQ, dtype=torch.long, device="meta"), "use_cache": False})
    indexers = sum(p.numel() for n, p in model.named_parameters() if p.requires_grad and ".indexer." in n)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad) - indexers
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ,
                                                                           trainable_last=last))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)


def test_deepseek_v4_refuses_lora_by_name():
    from engine.errors import InputError

    config = V4_TUNED[next(iter(V4_TUNED))]
    with pytest.raises(InputError) as info:
        estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, lora_rank=4))
    assert str(info.value).startswith("fine-tune: LoRA on a model with DeepSeek-V4's attention")


# ---------------------------------------------------------------- LongCat-Flash: two blocks per layer

def _longcat_sub_layers(model) -> list[list]:
    """LongCat's sub-layers in order, as the engine's blocks: (input norm 0, attention 0, post-attention norm 0, MLP 0
    and the shortcut experts), then (input norm 1, attention 1, post-attention norm 1, MLP 1), layer by layer."""
    out = []
    for layer in getattr(model, "model", model).layers:
        out.append([layer.input_layernorm[0], layer.self_attn[0], layer.post_attention_layernorm[0], layer.mlps[0],
                    layer.mlp])
        out.append([layer.input_layernorm[1], layer.self_attn[1], layer.post_attention_layernorm[1], layer.mlps[1]])
    return out


@pytest.mark.parametrize("name", [n for n in VARIANTS if VARIANTS[n]["model_type"] == "longcat_flash"][:2])
@pytest.mark.parametrize("last", [1, 2, 3])
def test_longcat_flash_fine_tunes_the_last_sub_layers(torch, name, last):
    """The engine's blocks are LongCat's sub-layers (two a layer): training the last N of them (+ the final norm and
    head) equals transformers with those modules trained — N = 2 is the last LongCat layer, the shortcut experts
    included; N odd trains the second half of a layer — backward FLOP and trainable parameters."""
    config = VARIANTS[name]
    model = build(config)
    set_trainable(model, False)
    for sub_layer in _longcat_sub_layers(model)[-last:]:
        for module in sub_layer:
            set_trainable(module, True)
    set_trainable(getattr(model, "model", model).norm, True)
    if hasattr(model, "lm_head"):
        set_trainable(model.lm_head, True)
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    _, backward = forward_backward(torch, model, ids, kwargs={
        "attention_mask": torch.ones(1, SEQ, dtype=torch.long, device="meta"), "use_cache": False})
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ,
                                                                           trainable_last=last))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)


@pytest.mark.parametrize("name", [n for n in VARIANTS if VARIANTS[n]["model_type"] == "longcat_flash"][:2])
@pytest.mark.parametrize("targets", [("o",), ("o", "gate", "up", "down")])
def test_longcat_flash_lora(torch, name, targets):
    """LoRA (rank 4) on both sub-layers' o_proj (H·V→d) and dense MLPs (mlps[0], the engine's shared expert of the
    first block, and mlps[1]): backward FLOP and trainable parameters equal transformers' with those adapters."""
    from tests.method1.backward_reference import lora_linear

    config = VARIANTS[name]
    model = build(config)
    set_trainable(model, False)
    with torch.device("meta"):
        for layer in getattr(model, "model", model).layers:
            for i in (0, 1):
                for t in targets:
                    parent = layer.self_attn[i] if t == "o" else layer.mlps[i]
                    setattr(parent, f"{t}_proj", lora_linear(torch, getattr(parent, f"{t}_proj"), 4))
    _lora_equals_transformers(torch, model, config, targets)


@pytest.mark.parametrize("target", ["q", "k", "v"])
def test_longcat_flash_lora_refusals_name_the_target(target):
    """LongCat's queries always go through q_a_proj and q_b_proj, its keys and values through one latent: q, k and v
    name no projection there, one line each."""
    from engine.errors import InputError

    config = VARIANTS["longcat-flash (two sub-layers a layer, shortcut experts, zero experts)"]
    with pytest.raises(InputError, match=f"^targets: '{target}': "):
        estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, lora_rank=4,
                                                                    lora_targets=(target,)))


# ---------------------------------------------------------------- LoRA on multi-head latent attention

MLA_LORA_CASES = [("deepseek v2 direct queries, two dense layers", ("q", "o")),
                  ("deepseek v2 direct queries, two dense layers", ("o", "gate", "up", "down")),
                  ("deepseek v3 no shared experts", ("o",)),
                  ("deepseek v2 low-rank queries, one dense layer", ("o", "down")),
                  ("youtu model, direct queries, biases", ("q",)), ("minicpm3 (latent attention, scalings)", ("o", "up")),
                  ("deepseek-v3.2 (latent attention, lightning indexer, experts)", ("o", "gate")),
                  ("hy_v4 defaults of its kinds", ("o",)),
                  ("hy_v4 biases, two shared experts, all full indexers, tied", ("o", "down"))]


@pytest.mark.parametrize("name,targets", MLA_LORA_CASES)
def test_latent_attention_lora(torch, name, targets):
    """LoRA (rank 4) on latent attention's o_proj (H·V→d) and, where the queries are projected directly, its q_proj
    (d→H·(Q+R)); on the dense MLPs' and shared experts' gate/up/down (a MoE layer without shared experts has none: its
    experts are fused tensors). Everything else frozen, as PEFT leaves it: backward FLOP and trainable parameters
    equal transformers'."""
    from tests.method1.backward_reference import lora_linear

    config = VARIANTS[name]
    model = build(config)
    set_trainable(model, False)
    with torch.device("meta"):
        for layer in getattr(model, "model", model).layers:
            for t in targets:
                if t in ("q", "o"):
                    parent = layer.self_attn
                else:
                    parent = layer.mlp if hasattr(layer.mlp, f"{t}_proj") else getattr(layer.mlp, "shared_experts",
                                                                                        None)
                if parent is not None:
                    setattr(parent, f"{t}_proj", lora_linear(torch, getattr(parent, f"{t}_proj"), 4))
    _lora_equals_transformers(torch, model, config, targets)


@pytest.mark.parametrize("name,target,reason", [
    ("deepseek v3 no shared experts", "q", "the queries go through the q_lora_rank bottleneck"),
    ("deepseek v2 direct queries, two dense layers", "v", "latent attention has no key or value projection"),
    ("youtu (latent attention, Llama MLP)", "k", "latent attention has no key or value projection")])
def test_latent_attention_lora_refusals_name_the_target(name, target, reason):
    """transformers' latent attention has no k_proj or v_proj (kv_a_proj_with_mqa and kv_b_proj make both), nor a
    q_proj where the queries go through q_a_proj and q_b_proj: one line naming the target."""
    from engine.errors import InputError

    with pytest.raises(InputError, match=f"^targets: '{target}': {reason}"):
        estimate_transformer(read_hf_config(VARIANTS[name]), TransformerRun(tokens=1e6, seq_len=SEQ, lora_rank=4,
                                                                            lora_targets=(target,)))


# ---------------------------------------------------------------- MiniMax-M3 and Cohere Compass: part of the model

def _attention_fine_tune(torch, config: dict, last: int | None = None, targets=(), rank: int = 4):
    """transformers' model with the last blocks (+ the final norm and an untied head) trained, or LoRA adapters on
    the attention's ``{t}_proj``: backward FLOP, trainable parameters, and the parameters of the tuned blocks that
    never receive a gradient (MiniMax-M3's indexers: their output is block indices)."""
    from tests.method1.backward_reference import lora_linear

    model = build(config)
    set_trainable(model, False)
    inner = model.model if hasattr(model, "model") else model
    idle = 0
    if last:
        for block in list(inner.layers)[-last:]:
            set_trainable(block, True)
            indexer = getattr(block.self_attn, "indexer", None)
            idle += sum(p.numel() for p in indexer.parameters()) if indexer is not None else 0
        set_trainable(inner.norm, True)
        head = getattr(model, "lm_head", None)
        if head is not None and head.weight is not inner.embed_tokens.weight:
            set_trainable(head, True)
    with torch.device("meta"):
        for layer in inner.layers:
            for t in targets:
                setattr(layer.self_attn, f"{t}_proj", lora_linear(torch, getattr(layer.self_attn, f"{t}_proj"), rank))
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    _, backward = forward_backward(torch, model, ids, kwargs={"use_cache": False})
    return backward, sum(p.numel() for p in model.parameters() if p.requires_grad), idle


@pytest.mark.parametrize("run", [{"trainable_last": 1}, {"trainable_last": 2}, {"lora_targets": ("q", "v")},
                                 {"lora_targets": ("k", "o")}])
@pytest.mark.parametrize("name", [n for n in VARIANTS if VARIANTS[n]["model_type"] in ("minimax_m3_vl_text",
                                                                                       "cohere_compass_text")])
def test_minimax_m3_and_cohere_compass_fine_tune(torch, name, run):
    """The last 1 or 2 blocks, or LoRA (rank 4) on attention: backward FLOP equal transformers'. Trainable
    parameters too, except MiniMax-M3's indexer weights in the tuned blocks: transformers leaves them requires_grad,
    but no gradient ever reaches them (the indexer's output is block indices), so the engine, as for DeepSeek's
    indexer, does not count them as trained."""
    config = VARIANTS[name]
    lora = {"lora_rank": 4} if "lora_targets" in run else {}
    backward, trainable, idle = _attention_fine_tune(torch, config, run.get("trainable_last"),
                                                     run.get("lora_targets", ()))
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, **run, **lora))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward,
                                                                                               trainable - idle)


def _lora_equals_transformers(torch, model, config, targets) -> None:
    """The adapted model's backward FLOP (FlopCounterMode, meta) and trainable parameters equal the estimate's for
    LoRA of rank 4 on ``targets``."""
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    _, backward = forward_backward(torch, model, ids, kwargs={
        "attention_mask": torch.ones(1, SEQ, dtype=torch.long, device="meta"), "use_cache": False})
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, lora_rank=4,
                                                                           lora_targets=targets))
    assert trainable > 0
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)
