"""Transformer layer kinds: the block, RMSNorm, a learned position table and the LM head.

Symbols (Kaplan 2020; PaLM App. B): L positions in a sequence, d = d_model (the input width),
H query heads, H_kv key/value heads, Q head size, F feed-forward size, E experts, k active experts
per token, V vocabulary, M positions of an encoder memory (cross-attention).

Counting, ``matmul`` convention (what ``FlopCounterMode`` counts): the projections are ``Dense``
layers run at every position; QKᵀ and AV are H·L²·Q multiply-accumulates each. A causal mask does
not change that count: the masked scores are computed and discarded, as ``FlopCounterMode`` and
PaLM's 12·L·H·Q·T count them. ``causal_count="half"`` counts only the unmasked query–key pairs
instead (what kernels that skip masked blocks do): the L(L+1)/2 of the causal triangle, which is what
Kaplan's 2·n_layer·n_ctx·d_attn amounts to, or, with a sliding window of W positions (Mistral),
W(W+1)/2 + (L − W)·W.
"""
from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.method1.backward import DEFAULT_LORA_TARGETS, Grad, LoRA, parts_grad, product_grad
from engine.method1.conventions import ACTIVATION_FLOP, BACKWARD_EXTRA_FACTOR
from engine.errors import InputError
from engine.method1.ops import dense_cost, layer_norm_cost, prod, rms_norm_cost
from engine.method1 import compressed_attention, lightning, state_space
from engine.method1 import transformer_parts as parts_of
from engine.method1.layers import Flow, LayerBase, LayerCost, ShapeError, Size, sequence_dims
from engine.method1.transformer_parts import unmasked_pairs  # noqa: F401 (re-exported)

BlockActivation = Literal["relu", "gelu", "silu", "sigmoid", "tanh", "relu2", "xielu"]


class RMSNorm(LayerBase):
    """x / √(mean(x²) + ε) · γ over the last axis (Zhang & Sennrich 2019): params d with the gain γ."""

    type: Literal["rms_norm"] = "rms_norm"
    affine: bool = True
    kind_label: ClassVar[str] = "RMS norm"
    formula: ClassVar[str] = r"0 \quad (\text{full: } 4 \text{ per element})"

    def item_cost(self, item):
        return (item, *rms_norm_cost(prod(item), item[-1], self.affine))


class HyperHead(LayerBase):
    """DeepSeek-V4's end of the hyper-connections (``DeepseekV4HyperHead``): the N residual streams of d collapsed
    into one by weights from the flattened streams, N·d → N (a gainless RMSNorm first, a bias N and a scale):
    params N·N·d + N + 1, L·N·d·N MACs (full: the norm, scale, bias and sigmoid of the N weights, the collapse)."""

    type: Literal["hyper_head"] = "hyper_head"
    streams: Size
    kind_label: ClassVar[str] = "Hyper-connection head"
    formula: ClassVar[str] = r"2 L N^2 d"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        n = self.streams
        norm = rms_norm_cost(n * d, n * d, False).extra_flop
        extra = length * (norm + n * (2 + ACTIVATION_FLOP["sigmoid"] + 1) + (2 * n - 1) * d)
        return LayerCost(Flow((d,), length), n * n * d + n + 1, length * n * d * n, extra)


class PositionEmbedding(LayerBase):
    """A learned table of P positions × d (GPT-2's ``wpe``), added to the token embeddings:
    params P·d, no multiply-accumulates (full: one add per element)."""

    type: Literal["position_embedding"] = "position_embedding"
    max_positions: Size
    width: Size | None = Field(None, description="The table's width where it is not d: RoFormer's sinusoidal table, "
                                                 "head-size wide, which the rotary positions read (not added).")
    frozen: bool = Field(False, description="The table never trains (transformers' requires_grad false): no "
                                            "gradient, no trainable parameters.")
    kind_label: ClassVar[str] = "Position embedding"
    formula: ClassVar[str] = r"0 \quad (P \cdot d \text{ parameters; full: } L \cdot d \text{ adds})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        if length > self.max_positions:
            raise ShapeError(f"sequence length {length} is longer than the {self.max_positions} learned positions")
        if self.width is not None:  # read by the rotary positions: no add
            return LayerCost(Flow((d,), length), self.max_positions * self.width, 0, 0)
        return LayerCost(Flow((d,), length), self.max_positions * d, 0, length * d)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """A frozen table asks for no gradient (a table's own is a scatter-add, no multiply-accumulates)."""
        if self.frozen:
            return Grad(0, 0, grad_in, 0)
        return super().backward(flow, cost, grad_in, trainable, memory_grad)


class LMHead(LayerBase):
    """Logits over the vocabulary at every position: d → V, 2·d·V per position.

    ``tied``: the weights are the token embedding's (its V·d parameters are counted there), so
    the head adds no weight parameters, but its FLOP are counted all the same."""

    type: Literal["lm_head"] = "lm_head"
    vocab_size: Size
    tied: bool = False
    bias: bool = False
    own_rows: Size | None = Field(None, description="A tied head whose d rows are the token table's E and d − E of its "
                                                    "own (MobileBERT): (d − E)·V parameters.")
    table_frozen: bool = Field(False, description="A tied head whose token table is frozen (fine-tuning the last "
                                                  "blocks): no weight gradient; its own bias still trains.")
    kind_label: ClassVar[str] = "LM head"
    formula: ClassVar[str] = r"2 \cdot d \cdot V \text{ per position}"

    def item_cost(self, item):
        out = (self.vocab_size,)
        params, macs, extra = dense_cost(self._vector(item), self.vocab_size, self.bias)
        if self.tied:
            params = (self.vocab_size if self.bias else 0) + (self.own_rows or 0) * self.vocab_size
        return out, params, macs, extra

    @model_validator(mode="after")
    def _table(self):
        if self.table_frozen and (not self.tied or self.own_rows):
            raise InputError("table_frozen", "belongs to a head tied to the token table, without rows of its own")
        return self

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """A tied head has weights all the same (the embedding's table): trained when the head is, unless the table
        is frozen (then only its bias trains: no weight gradient, V parameters)."""
        if self.table_frozen:  # the input gradient where needed; the bias's gradient is a sum (full: extra)
            out = grad_in or (trainable and cost.params > 0)
            return Grad(cost.macs * int(grad_in), BACKWARD_EXTRA_FACTOR * cost.extra_flop if out else 0, out,
                        cost.params if trainable else 0)
        return product_grad(cost.macs, cost.extra_flop, cost.params, grad_in, trainable, has_weights=True)


class TransformerBlock(LayerBase):
    """One transformer layer over a sequence [L, d]: attention, then a feed-forward network.

    Attention: q (d→H·Q), k and v (d→H_kv·Q each; H_kv = H multi-head, 1 multi-query, between:
    grouped-query), QKᵀ and AV (H·L²·Q MACs each), output (H·Q→d). Feed-forward: up d→F and down
    F→d; ``gated`` (SwiGLU, GeGLU) adds a gate d→F, act(gate)·up; ``activation`` xielu (xIELU, Apertus) has two
    learned scalars per MLP (α_p, α_n). Mixture of experts: a router d→E
    (no bias unless ``router_bias``) and E expert feed-forwards, k of which run per token;
    ``active_params`` counts k. ``shared_ff_size`` F_s: a shared expert every token runs (DeepSeek,
    Qwen2-MoE), with a sigmoid gate d→1 when ``shared_expert_gate`` (Qwen2-MoE). ``zero_experts`` Z (LongCat-Flash's
    zero-computation experts): the router scores E + Z experts (d→E+Z) and picks k of them; transformers sends a pick
    of a zero expert to the real expert ⌊(i − E)·E/Z⌋ with weight 0 and adds x·Σ(those picks' weights), so every
    token still runs k real experts (forward and backward), whatever the routing; the identity path is element-wise.

    Multi-head latent attention (DeepSeek-V2/V3, ``kv_lora_rank`` c set): queries d→H·(Q+R) directly
    or through a rank-``q_lora_rank`` bottleneck (d→c_q, norm, c_q→H·(Q+R)); keys and values from one
    latent d→c+R (R = ``rope_head_size``, a rotary key shared by the heads), norm, c→H·(Q+V)
    (V = ``value_head_size``); QKᵀ over Q+R per head, AV over V, output H·V→d. ``indexer_heads`` H_I
    (DeepSeek-V3.2's sparse attention, as transformers' ``DeepseekV32Indexer`` runs it): a lightning indexer of
    H_I heads of ``indexer_head_size`` D_I scores every query–key pair to pick the keys attention keeps — queries
    c_q→H_I·D_I from the query latent, one key d→D_I (LayerNorm), head weights d→H_I, ReLU(q·k) summed over the heads
    by those weights (H_I·D_I + H_I MACs per pair). It runs without gradient: no backward, its weights never train.
    ``latent_scales`` (LongCat-Flash): the queries and the normed key latent multiplied by constants (element-wise).

    ``causal`` (decoder-only, the GPT/LLaMA block) vs not (encoder, BERT): the same count unless
    ``causal_count="half"``; ``attention_window`` W (sliding-window attention, Mistral) narrows what the
    mask keeps, and so counts only with ``causal_count="half"``. ``cross_attention_length`` M: a decoder block of an
    encoder-decoder model, with cross-attention over an encoder memory of M positions of width d (the encoder's own
    cost is counted in its own layers). ``parallel``: attention and feed-forward read the same input
    (GPT-J, GPT-NeoX, PaLM), with one ``shared_norm`` (GPT-J, PaLM) or a norm each.

    Norms: ``norm`` kind, with γ (``norm_affine``) and, for LayerNorm, β (``norm_bias``); placed before
    each sub-layer (``pre``), after its residual add (``post``, BERT) or on its output before the add
    (``output``, OLMo 2); ``sandwich_norms`` adds a norm on each sub-layer's output to the pre-norms
    (Gemma 2/3). ``qk_norm``: a norm of the queries and keys, per head (``head``: γ of Q, Qwen3, Gemma 3)
    or over the whole projection (``width``: γ of H·Q and H_kv·Q, OLMo 2), or one norm of its own per head
    (``each_head``: γ of H·Q and H_kv·Q, no β; StableLM, Cohere). ``attention_sinks``: one
    learned logit per head (GPT-OSS), H parameters and no multiply-accumulates.

    ``disentangled`` (DeBERTa): position terms beside QKᵀ, from a relative-position table the layers share
    (``DisentangledAttention``, ``RelativePositionTable``); ``input_convolution`` (DeBERTa-v2's first layer): a
    convolution over the block's input added to its output (``InputConvolution``); ``key_bias`` false: q and v
    biases only (DeBERTa v1).

    ``ssm_beside``: Falcon-H1's Mamba-2 mixer beside the attention, reading the same normed input, its output
    added with the attention's (``mup_multipliers``: its µP scalings, element-wise, counted in ``full`` only).

    Gemma 4: ``kv_source`` (a layer reusing the keys and values of an earlier layer: no k/v projections or key norm;
    in training its QKᵀ and AV pass gradients into them, as that layer's input needs one), ``values_from_keys`` (no
    v projection), ``value_norm`` (no parameters), ``per_layer_input_size`` P (gate d→P, projection P→d, a norm;
    the inputs from ``PerLayerEmbeddings``) and ``expert_branch_norms`` (the experts beside a dense MLP of
    ``shared_ff_size``, each branch normed, a router with scales). Gemma 3n: ``altup_inputs`` N (AltUp's predict and
    correct around the layer) and ``laurel_rank`` r (LAuReL beside attention).

    ``mixer="mamba"``: Mamba's selective-scan mixer instead of attention (``engine.method1.state_space``:
    in/out projections, causal depthwise convolution, x/Δ projections, the scan), and ``feed_forward``
    false for Mamba's blocks, which have none. ``mixer="mamba2"``: Mamba-2's mixer (grouped heads, the chunked
    scan, a gated RMS norm; ``state_space.mamba2``). ``mixer="gated_deltanet"``: Gated DeltaNet's linear
    attention (Qwen3-Next; the chunked gated delta rule; ``state_space.gated_deltanet``; ``ssm_decay="channel"``:
    Kimi Delta Attention, ``state_space.kimi_delta``). ``mixer="short_conv"``:
    LFM2's gated short convolution (in projection d→3d, B·x, a causal depthwise convolution of width
    ``ssm_conv_kernel``, C·(conv), out projection; ``state_space.short_conv``). ``attention_output_gate``:
    the q projection also makes a gate, sigmoid(gate)·output before the output projection; ``head_gate``: a gate
    projection d→H of its own, one sigmoid per head scaling that head's output (LFM3). ``mixer="lightning"``:
    MiniMax's lightning attention, linear attention in blocks of ``lightning_block_size``
    (``engine.method1.lightning``). ``mixer="compressed"``: DeepSeek-V4's attention (queries through ``q_lora_rank``,
    one key/value head that is also the values, sinks, the grouped output projection of ``output_groups`` ×
    ``output_rank``; ``compress_rate`` m appends ⌊L/m⌋ pooled keys, with ``indexer_heads`` the lightning indexer of
    compressed sparse attention), and ``hyper_connections`` N streams around each sub-layer
    (``engine.method1.compressed_attention``). ``mixer="none"``: a feed-forward layer alone (Nemotron-H's MLP and MoE layers).
    ``residual_scales``: each sub-layer's residual add is α·residual + β·output (MiniMax; the ``full`` convention
    counts the two products, 2·L·d per sub-layer).

    ``attention_experts`` (JetMoE's mixture of attention heads): the q and output projections are the block's E
    experts, k per token (d→H_kv·Q and H_kv·Q→d each: the same multiply-accumulates as H = k·H_kv heads' q and
    output projections), behind a router d→E; ``expert_output_bias``: one bias d on the experts' combined output.

    Full convention extras, in the row where they happen: bias adds; 1/√Q scaling and softmax per
    score (scores row); activation and gating product (gate or up row); norms; residual adds (output
    and down rows); router softmax and the weighted sum of the k expert outputs. Not counted:
    dropout, rotary or ALiBi position terms, masking, top-k selection.
    """

    type: Literal["transformer_block"] = "transformer_block"
    heads: Size = Field(description="H query heads.")
    kv_heads: Size | None = Field(None, description="H_kv key/value heads (default H; 1 = multi-query).")
    head_size: Size | None = Field(None, description="Q (default d_model / H).")
    ff_size: Size | None = Field(None, description="F (default 4·d_model); per expert with experts.")
    gated: bool = Field(False, description="Gated feed-forward (SwiGLU/GeGLU): gate, up, down matrices.")
    activation: BlockActivation = "gelu"
    causal: bool = Field(True, description="Causal self-attention (decoder); false for an encoder block.")
    causal_count: Literal["full", "half"] = Field(
        "full", description="full: all L² scores, as FlopCounterMode; half: only the unmasked ones, "
                            "L(L+1)/2 (within the window, if any).")
    attention_window: Size | None = Field(
        None, description="W: sliding-window attention, each query sees the last W positions, itself "
                          "included (Mistral's sliding_window); counted with causal_count 'half'.")
    cross_attention_length: Size | None = Field(None, description="M encoder positions for cross-attention.")
    idle_cross_attention: Size | None = Field(None, description="C: the block holds a cross-attention over an encoder "
                                                                "memory of width C that it does not run (Whisper's and "
                                                                "TrOCR's decoders as causal LMs, without an encoder): "
                                                                "q and output d→d, k and v C→d, its norm; parameters, no "
                                                                "FLOP.")
    local_radius: Size | None = Field(None, description="r: LongT5's local attention: the positions in blocks of "
                                                        "b = r + 1, each query scoring the 3·b keys of its block "
                                                        "and the two beside it (non-causal only).")
    global_block_size: Size | None = Field(None, description="G: LongT5's transient-global attention: with "
                                                             "local_radius, each query also scores ⌊L/G⌋ block "
                                                             "sums of the input (normed: d parameters).")
    norm: Literal["layernorm", "rmsnorm"] = "layernorm"
    norm_position: Literal["pre", "post", "output"] = "pre"
    norm_affine: bool = Field(True, description="The norms have a learned gain γ (OLMo's have none).")
    norm_bias: bool = Field(True, description="LayerNorm's β (MPT's norms have none).")
    sandwich_norms: bool = Field(False, description="A norm on each sub-layer's output too (Gemma 2/3).")
    qk_norm: Literal["none", "head", "width", "each_head"] = "none"
    parallel: bool = False
    shared_norm: bool = False
    qkv_bias: bool = True
    key_bias: bool = Field(True, description="With qkv_bias: the key projection's bias too (DeBERTa v1 has q and v "
                                             "biases only).")
    out_bias: bool = True
    ff_bias: bool = True
    down_bias: Literal["same", "bias", "none"] = Field(
        "same", description="The feed-forward's down projection bias: as the up and gate's (same: ff_bias), or its own "
                            "(GTE: a bias on the down projection only).")
    attention_sinks: bool = Field(False, description="A learned sink logit per head (GPT-OSS).")
    kv_lora_rank: Size | None = Field(None, description="c: latent attention's key/value rank (DeepSeek).")
    q_lora_rank: Size | None = Field(None, description="c_q: latent attention's query rank (None: direct).")
    rope_head_size: Size | None = Field(None, description="R: latent attention's rotary part per head.")
    value_head_size: Size | None = Field(None, description="V: latent attention's value size per head.")
    indexer_heads: Size | None = Field(None, description="H_I: DeepSeek sparse attention's lightning-indexer heads "
                                                         "(None: no indexer).")
    indexer_head_size: Size | None = Field(None, description="D_I: the lightning indexer's head size.")
    experts: Size = Field(1, description="E feed-forward experts (1 = dense).")
    active_experts: Size = Field(1, description="k experts per token.")
    router_bias: bool = False
    shared_ff_size: Size | None = Field(None, description="F_s: a shared expert every token runs.")
    shared_expert_gate: bool = Field(False, description="A sigmoid gate d→1 on the shared expert (Qwen2-MoE).")
    zero_experts: Size | None = Field(None, description="Z zero-computation (identity) experts the router also scores "
                                                        "(LongCat-Flash): router d→E+Z; a token's picks of them are "
                                                        "computed as transformers computes them, by a real expert with "
                                                        "weight 0, so k experts still run per token.")
    latent_scales: bool = Field(False, description="Latent attention's LoRA scalings (LongCat-Flash): the queries and "
                                                   "the normed key latent multiplied by a constant (full convention "
                                                   "only).")
    mixer: Literal["attention", "mamba", "mamba2", "gated_deltanet", "short_conv", "lightning", "compressed",
                   "none"] = Field(
        "attention", description="The sequence mixer: attention, Mamba's or Mamba-2's scan, Gated DeltaNet's linear "
                                 "attention (ssm_* sizes), LFM2's gated short convolution (ssm_conv_kernel), "
                                 "MiniMax's lightning attention (lightning_block_size), DeepSeek-V4's attention "
                                 "(compressed: compress_rate, q_lora_rank, output_groups), or none (a feed-forward "
                                 "layer of its own, Nemotron-H).")
    compress_rate: Size | None = Field(None, description="m: DeepSeek-V4's compressor, one key every m positions "
                                                         "appended to the L keys (None: a sliding layer, none); with "
                                                         "indexer_heads, compressed sparse attention (two overlapping "
                                                         "series, the lightning indexer).")
    output_groups: Size | None = Field(None, description="g: DeepSeek-V4's grouped output projection, g blocks of "
                                                         "H·Q/g → output_rank, then g·output_rank → d.")
    output_rank: Size | None = Field(None, description="r_o: each output group's rank.")
    hyper_connections: Size | None = Field(None, description="N: DeepSeek-V4's manifold-constrained "
                                                             "hyper-connections, N residual streams of d mixed "
                                                             "around each sub-layer (weights N·d → (2+N)·N, comb × "
                                                             "streams N²·d per position).")
    hyper_independent: bool = Field(False, description="HY-V4's independent hyper-connections: weights N·d → 2·N "
                                                       "(pre and post, no comb matrix, no Sinkhorn); the streams "
                                                       "added back as they are (no comb × streams).")
    hyper_sinkhorn_iterations: int = Field(20, ge=0, le=1000, description="Sinkhorn rounds of the hyper-connections' "
                                                                         "comb matrix (full convention only).")
    lightning_block_size: Size | None = Field(None, description="B: the block length of lightning attention.")
    residual_scales: bool = Field(False, description="Residual adds α·residual + β·output (MiniMax): 2 products per "
                                                     "element more in the full convention.")
    feed_forward: bool = Field(True, description="A feed-forward sub-layer after the mixer (Mamba's blocks have none).")
    ssm_inner_size: Size | None = Field(None, description="I: Mamba's inner width (expand·d).")
    ssm_state_size: Size | None = Field(None, description="N: Mamba's state size per channel.")
    ssm_conv_kernel: Size | None = Field(None, description="K: the width of Mamba's causal depthwise convolution.")
    ssm_dt_rank: Size | None = Field(None, description="R: the rank of Mamba's time-step projection.")
    ssm_bias: bool = Field(False, description="Biases on Mamba's in and out projections.")
    ssm_conv_bias: bool = Field(True, description="A bias on Mamba's convolution.")
    ssm_norms: bool = Field(False, description="RMS norms with a gain on Mamba's Δ, B and C after the x projection "
                                               "(Jamba): R + 2N parameters, no multiply-accumulates.")
    ssm_heads: Size | None = Field(None, description="H: Mamba-2's heads (head size I/H); Gated DeltaNet's value "
                                                      "heads.")
    ssm_groups: Size | None = Field(None, description="G: Mamba-2's groups sharing B and C (and its norm's groups); "
                                                       "Gated DeltaNet's query/key heads (key size ssm_state_size).")
    ssm_chunk_size: Size | None = Field(None, description="Q: the chunk length of Mamba-2's or Gated DeltaNet's scan.")
    ssm_decay: Literal["head", "channel"] = Field(
        "head", description="Gated DeltaNet's decay: one per head (Qwen3-Next), or one per key channel with "
                            "low-rank forget and output gates (Kimi Delta Attention, Kimi Linear).")
    attention_output_gate: bool = Field(False, description="The q projection also makes a gate (2·H·Q wide): "
                                                           "sigmoid(gate) scales the attention's output before the "
                                                           "output projection (Qwen3-Next).")
    head_gate: bool = Field(False, description="A sigmoid gate per head, d→H from the attention's input, scales "
                                               "each head's output before the output projection (LFM3).")
    rope_key_norm: bool = Field(False, description="Latent attention's shared rotary key normed (Dots 3: an RMSNorm "
                                                   "with γ of R).")
    latent_rescale: bool = Field(False, description="Latent attention's normed query and key latents multiplied by "
                                                    "constants (Dots 3: √(d/c_q), √(d/c)): c_q + c products a "
                                                    "position, full convention only.")
    latent_gate: bool = Field(False, description="Latent attention's output gate (HY-V4): its own projection "
                                                 "d→H·V of the attention's input; sigmoid(gate) scales the output "
                                                 "element-wise before the output projection.")
    gate_function: Literal["sigmoid", "softplus"] = Field(
        "sigmoid", description="What the attention's output gate (attention_output_gate, head_gate) applies to its "
                               "logits: sigmoid, or softplus (Laguna); element-wise, full convention only.")
    ssm_gated_norm: bool = Field(True, description="Mamba-2's gated RMS norm (I parameters); false: the scan's output "
                                                   "× SiLU(z) alone (Falcon-H1's mamba_rms_norm false).")
    ssm_out_bias: Literal["same", "bias", "none"] = Field(
        "same", description="The Mamba-2 out projection's bias: as the in projection's (same: ssm_bias), or its own "
                            "(Falcon-H1's projectors_bias).")
    ssm_beside: bool = Field(False, description="Falcon-H1: Mamba-2's mixer (the ssm_* sizes) runs beside the "
                                                "attention on the same normed input; both outputs are added into "
                                                "the stream.")
    mup_multipliers: bool = Field(False, description="Falcon-H1's µP multipliers inside the block: element-wise "
                                                     "scalings (full convention only).")
    attention_experts: bool = Field(False, description="JetMoE's mixture of attention heads: the q and output "
                                                       "projections are the block's E experts (d→H_kv·Q and H_kv·Q→d "
                                                       "each, k per token: H = k·H_kv query heads over the H_kv "
                                                       "key/value heads) behind a router d→E of their own; one bias d "
                                                       "on the combined output.")
    expert_output_bias: bool = Field(False, description="One bias d on the experts' combined output (JetMoE).")
    attention_norm: bool = Field(True, description="Pre-norm: a norm before attention (ModernBERT's first layer "
                                                   "has none; it reads the embeddings' norm).")
    shared_weights: bool = Field(False, description="The weights of an earlier block of the same shape, run again "
                                                    "(ALBERT's shared layers): no parameters of its own; its FLOP, "
                                                    "and in training its weight gradients, are counted here.")
    lora: LoRA | None = Field(None, description="LoRA adapters of rank r on the ``targets`` projections (q, k, v, "
                                                "o, gate, up, down, experts; default q, v); those weights frozen.")
    shared_block: SharedBlockUse | None = Field(None, description="Zamba2: a use of the shared attention block on "
                                                                  "[x, embeddings] before the mixer.")
    disentangled: DisentangledAttention | None = Field(None, description="DeBERTa: position terms (c2p, p2c) beside "
                                                                         "the content scores QKᵀ.")
    input_convolution: InputConvolution | None = Field(None, description="DeBERTa-v2: a convolution over the block's "
                                                                         "input added to its output (the first layer).")
    kv_source: int | None = Field(None, ge=0, lt=10_000, description="Gemma 4's KV sharing: the 0-based layer whose "
                                                                    "keys and values this layer reads (no k/v "
                                                                    "projections or key norm of its own; QKᵀ and AV "
                                                                    "run as usual).")
    values_from_keys: bool = Field(False, description="The values are the key projection's output (Gemma 4's "
                                                      "attention_k_eq_v): no v projection.")
    value_norm: bool = Field(False, description="A norm without gain of the values (Gemma 4): no parameters.")
    value_size: Size | None = Field(None, description="V: the value size per head where it differs from Q (MiMo-V2): "
                                                      "v projection d→H_kv·V, AV over V, output H·V→d.")
    sub_norms: bool = Field(False, description="BitNet: a norm of the attention's output (H·Q) before the output "
                                               "projection and of act(gate)·up (F) before the down projection.")
    differential: bool = Field(False, description="DiffLlama's differential attention: the scores and the values "
                                                  "computed twice (two attention calls over the same queries and "
                                                  "keys, each value half repeated), four learned vectors λ of Q.")
    per_layer_input_size: Size | None = Field(None, description="P: Gemma 4's per-layer input after the feed-forward: "
                                                                "gate d→P, act(gate)·(this layer's P-wide input), "
                                                                "projection P→d, a norm, added into x.")
    altup_inputs: Size | None = Field(None, description="N: Gemma 3n's AltUp streams: a router d→N (with a norm, d) "
                                                         "run to predict and to correct, prediction coefficients "
                                                         "N→N², the prediction (d×N by N×N per token), correction "
                                                         "coefficients N→N and an output scale (d).")
    laurel_rank: Size | None = Field(None, description="r: Gemma 3n's LAuReL beside attention: d→r→d on the "
                                                       "attention's normed input, a norm, added to the residual.")
    expert_branch_norms: bool = Field(False, description="Gemma 4's experts: beside a dense gated MLP of shared_ff_size "
                                                         "(no gate), each branch normed on its own (the experts' input "
                                                         "and each branch's output: 3d), a router reading x through a "
                                                         "norm without gain, a scale (d) and a scale per expert (E).")
    kind_label: ClassVar[str] = "Transformer block"
    formula: ClassVar[str] = (r"2 L d (H + 2 H_{kv}) Q + 4 H L^2 Q + 2 L H Q d + 2 k L \, n_{ff} \, d F "
                              r"+ 2 L d E \quad (n_{ff} = 2, \text{ gated } 3)")

    @model_validator(mode="after")
    def _consistent(self):
        h_kv = self.kv_heads or self.heads
        if self.heads % h_kv:
            raise InputError("kv_heads", f"kv_heads {h_kv} must divide heads {self.heads} (each key/value "
                                              "head serves a whole group of query heads)")
        if self.active_experts > self.experts:
            raise InputError("active_experts", f"active_experts {self.active_experts} is more than "
                                                    f"experts {self.experts}")
        if self.causal_count == "half" and not self.causal:
            raise InputError("causal_count", "causal_count 'half' needs causal attention")
        if self.attention_window and not self.causal:
            raise InputError("attention_window", "a sliding window is modelled for causal attention only")
        if self.local_radius is not None and (self.causal or self.kv_lora_rank is not None or self.mixer != "attention"):
            raise InputError("local_radius", "local (block) attention is modelled for non-causal multi-head attention")
        if self.global_block_size is not None and self.local_radius is None:
            raise InputError("global_block_size", "transient-global attention needs local_radius")
        if self.idle_cross_attention and (self.cross_attention_length or self.mixer != "attention" or self.parallel
                                          or self.kv_lora_rank is not None or self.lora is not None):
            raise InputError("idle_cross_attention", "a cross-attention held and not run is modelled in sequential "
                                                     "self-attention blocks without a running cross-attention or LoRA")
        if self.shared_norm and not self.parallel:
            raise InputError("shared_norm", "shared_norm needs parallel attention and feed-forward")
        if self.parallel and (self.norm_position != "pre" or self.cross_attention_length or self.sandwich_norms):
            raise InputError("parallel", "parallel blocks are pre-norm decoder-only blocks "
                                              "(no post-norm, no cross-attention)")
        if self.value_size is not None and (self.mixer != "attention" or self.kv_lora_rank is not None
                                            or self.values_from_keys or self.attention_experts or self.differential
                                            or self.sub_norms or self.kv_shared or self.value_norm
                                            or self.local_radius is not None or self.disentangled is not None
                                            or self.attention_output_gate or self.cross_attention_length
                                            or self.shared_block is not None or self.lora is not None):
            raise InputError("value_size", "a value size of its own is modelled on plain self-attention")
        if (self.sub_norms or self.differential) and (self.mixer != "attention" or self.kv_lora_rank is not None
                                                      or self.experts > 1 or self.attention_experts):
            raise InputError("sub_norms" if self.sub_norms else "differential",
                             "modelled on plain self-attention with a dense feed-forward")
        compressed = self.mixer == "compressed"
        if compressed and (self.q_lora_rank is None or self.output_groups is None or self.output_rank is None
                           or (self.kv_heads or 1) != 1 or self.kv_lora_rank is not None or self.parallel
                           or self.norm_position != "pre" or self.cross_attention_length or self.qk_norm != "none"
                           or self.causal_count == "half" or not self.causal or self.sandwich_norms
                           or self.shared_block is not None or self.shared_weights or self.attention_experts
                           or self.rope_head_size is not None or self.value_head_size is not None):
            raise InputError("mixer", "DeepSeek-V4's attention needs q_lora_rank, output_groups and output_rank, one "
                                      "key/value head, in pre-norm sequential causal blocks counting every pair")
        if not compressed and (self.compress_rate is not None or self.output_groups is not None
                               or self.output_rank is not None):
            raise InputError("compress_rate", "compress_rate, output_groups and output_rank belong to DeepSeek-V4's "
                                              "attention (mixer 'compressed')")
        if compressed and (self.heads * (self.head_size or 0)) % self.output_groups:
            raise InputError("output_groups", f"{self.output_groups} output groups do not divide the heads' width")
        if compressed and self.lora is not None:
            raise InputError("lora", "LoRA on DeepSeek-V4's attention is not modelled; fine-tune the last blocks or "
                                     "in full instead")
        if self.hyper_independent and (self.hyper_connections is None or self.kv_lora_rank is None):
            raise InputError("hyper_independent", "independent hyper-connections are modelled in HY-V4's blocks "
                                                  "(latent attention with hyper_connections)")
        if (self.rope_key_norm or self.latent_rescale) and self.kv_lora_rank is None:
            raise InputError("rope_key_norm", "the rotary key's norm and the latents' scales belong to latent "
                                              "attention (set kv_lora_rank)")
        if self.latent_gate and self.kv_lora_rank is None:
            raise InputError("latent_gate", "the gate d→H·V belongs to latent attention (set kv_lora_rank)")
        if self.hyper_connections is not None and not compressed and not self.hyper_independent:
            raise InputError("hyper_connections", "hyper-connections are modelled in DeepSeek-V4's blocks "
                                                  "(mixer 'compressed')")
        if compressed and self.indexer_heads is not None:
            if self.indexer_head_size is None or not self.compress_rate:
                raise InputError("indexer_heads", "DeepSeek-V4's indexer needs indexer_head_size and a compress_rate")
        elif (self.indexer_heads is None) != (self.indexer_head_size is None) or self.indexer_heads is not None and (
                self.kv_lora_rank is not None and not self.q_lora_rank):
            raise InputError("indexer_heads", "the lightning indexer needs indexer_heads and indexer_head_size, "
                                              "on latent attention with a q_lora_rank (or plain attention: "
                                              "MiniMax-M3's block indexer)")
        elif self.indexer_heads is not None and self.kv_lora_rank is None and (
                self.mixer != "attention" or self.cross_attention_length or self.attention_experts
                or self.differential or self.local_radius is not None or self.disentangled is not None):
            raise InputError("indexer_heads", "MiniMax-M3's block indexer is modelled on plain self-attention")
        if self.kv_lora_rank is not None:
            if self.rope_head_size is None or self.value_head_size is None:
                raise InputError("kv_lora_rank", "latent attention needs rope_head_size and value_head_size")
            if self.cross_attention_length or self.qk_norm != "none":
                raise InputError("kv_lora_rank", "latent attention is modelled for self-attention without qk_norm")
        elif (self.q_lora_rank is not None and not compressed) or self.rope_head_size is not None \
                or self.value_head_size is not None:
            raise InputError("kv_lora_rank", "q_lora_rank, rope_head_size and value_head_size belong to "
                                             "latent attention (set kv_lora_rank)")
        if self.experts == 1 and (self.shared_ff_size or self.router_bias or self.shared_expert_gate
                                  or self.zero_experts):
            raise InputError("experts", "shared experts, zero experts and router biases need experts > 1")
        if self.zero_experts and (self.attention_experts or self.expert_branch_norms):
            raise InputError("zero_experts", "zero experts are modelled beside a plain mixture of experts")
        if self.latent_scales and self.kv_lora_rank is None:
            raise InputError("latent_scales", "the LoRA scalings belong to latent attention (set kv_lora_rank)")
        if self.mixer == "mamba":
            if None in (self.ssm_inner_size, self.ssm_state_size, self.ssm_conv_kernel, self.ssm_dt_rank):
                raise InputError("ssm_inner_size", "a Mamba mixer needs ssm_inner_size, ssm_state_size, "
                                                   "ssm_conv_kernel and ssm_dt_rank")
            if self.parallel or self.cross_attention_length or self.norm_position != "pre":
                raise InputError("mixer", "a Mamba mixer is modelled in pre-norm sequential blocks")
        elif self.ssm_norms:
            raise InputError("ssm_norms", "the Δ, B and C norms belong to a Mamba mixer (mixer 'mamba')")
        if self.mixer == "none" and (not self.feed_forward or self.parallel or self.norm_position != "pre"):
            raise InputError("mixer", "a block without a mixer is a pre-norm feed-forward layer (feed_forward true)")
        if self.ssm_beside and (self.mixer != "attention" or self.kv_lora_rank is not None or self.parallel
                                or self.cross_attention_length or self.norm_position != "pre"
                                or self.shared_block is not None or self.local_radius is not None):
            raise InputError("ssm_beside", "a Mamba-2 mixer beside attention is modelled in pre-norm sequential "
                                           "decoder blocks with plain (not latent or local) self-attention")
        if self.mup_multipliers and not self.ssm_beside:
            raise InputError("mup_multipliers", "the µP multipliers are Falcon-H1's (ssm_beside)")
        if self.mixer in ("mamba2", "gated_deltanet") or self.ssm_beside:
            if None in (self.ssm_inner_size, self.ssm_state_size, self.ssm_conv_kernel, self.ssm_heads,
                        self.ssm_groups, self.ssm_chunk_size):
                kind = "Gated DeltaNet" if self.mixer == "gated_deltanet" else "Mamba-2"
                raise InputError("ssm_inner_size", f"a {kind} mixer needs ssm_inner_size, ssm_state_size, "
                                                   "ssm_conv_kernel, ssm_heads, ssm_groups and ssm_chunk_size")
            if self.ssm_inner_size % self.ssm_heads or self.ssm_heads % self.ssm_groups:
                raise InputError("ssm_heads", f"ssm_heads {self.ssm_heads} must divide ssm_inner_size "
                                              f"{self.ssm_inner_size}, and ssm_groups {self.ssm_groups} the heads")
            if self.parallel or self.cross_attention_length or self.norm_position != "pre":
                raise InputError("mixer", "a Mamba-2 or Gated DeltaNet mixer is modelled in pre-norm sequential "
                                          "blocks")
        if self.mixer == "short_conv":
            if self.ssm_conv_kernel is None:
                raise InputError("ssm_conv_kernel", "a short-convolution mixer (LFM2) needs ssm_conv_kernel")
            if self.parallel or self.cross_attention_length or self.norm_position != "pre":
                raise InputError("mixer", "a short-convolution mixer is modelled in pre-norm sequential blocks")
        if self.ssm_decay == "channel" and (self.mixer != "gated_deltanet" or self.ssm_groups != self.ssm_heads
                                            or self.ssm_inner_size != self.ssm_heads * self.ssm_state_size):
            raise InputError("ssm_decay", "a per-channel decay (Kimi Delta Attention) is a Gated DeltaNet mixer "
                                          "with as many key heads as value heads, of one head size "
                                          "(ssm_inner_size = ssm_heads × ssm_state_size)")
        if self.attention_output_gate and (self.mixer != "attention" or self.kv_lora_rank is not None
                                           or self.local_radius is not None or self.cross_attention_length):
            raise InputError("attention_output_gate", "an output gate is modelled on self-attention (not latent or "
                                                      "local attention)")
        if self.head_gate and (self.mixer != "attention" or self.attention_output_gate or self.latent_gate
                               or self.local_radius is not None or self.cross_attention_length
                               or self.attention_experts or self.differential):
            raise InputError("head_gate", "a gate per head is modelled on plain or latent self-attention (not local "
                                          "or expert attention, nor beside an output gate)")
        if self.gate_function != "sigmoid" and not (self.head_gate or self.attention_output_gate):
            raise InputError("gate_function", "belongs to an output gate (head_gate or attention_output_gate)")
        if self.down_bias != "same" and (self.experts > 1 or self.shared_ff_size is not None or not self.feed_forward
                                           or self.expert_branch_norms or self.per_layer_input_size is not None):
            raise InputError("down_bias", "a down-projection bias of its own is modelled on a dense feed-forward")
        if (self.mixer == "lightning") != (self.lightning_block_size is not None):
            raise InputError("lightning_block_size", "a lightning mixer needs lightning_block_size, and only it")
        if self.mixer == "lightning" and (self.parallel or self.cross_attention_length or self.norm_position != "pre"
                                          or self.shared_block is not None or self.qk_norm != "none"
                                          or self.attention_window is not None):
            raise InputError("mixer", "a lightning mixer is modelled in pre-norm sequential blocks without windows or "
                                      "QK norms")
        if self.ssm_decay == "channel" and self.lora is not None:
            raise InputError("lora", "LoRA on a layer of Kimi Delta Attention (Kimi Linear) is not modelled; "
                                     "fine-tune the last blocks or all of it instead")
        if self.mixer == "lightning" and self.lora is not None:
            raise InputError("lora", "LoRA on a layer of lightning attention (MiniMax) is not modelled; fine-tune the "
                                     "last blocks or in full instead")
        if self.residual_scales and (self.parallel or self.norm_position != "pre" or self.sandwich_norms):
            raise InputError("residual_scales", "scaled residuals are modelled in pre-norm sequential blocks")
        if self.attention_experts and (self.experts == 1 or self.heads != self.active_experts * h_kv
                                       or self.mixer != "attention" or self.kv_lora_rank is not None
                                       or self.local_radius is not None or self.cross_attention_length
                                       or self.attention_output_gate or self.parallel or self.qk_norm != "none"
                                       or self.disentangled is not None or self.shared_weights):
            raise InputError("attention_experts", "a mixture of attention heads (JetMoE) needs experts > 1 and "
                                                  "heads = active_experts × kv_heads, in plain sequential "
                                                  "self-attention")
        if (self.attention_experts or self.expert_output_bias) and self.lora is not None:
            raise InputError("lora", "LoRA on JetMoE's expert projections is not modelled; fine-tune the last "
                                     "blocks or in full instead")
        if self.expert_output_bias and self.experts == 1:
            raise InputError("expert_output_bias", "an expert output bias needs experts > 1")
        if self.shared_expert_gate and not self.shared_ff_size:
            raise InputError("shared_expert_gate", "a shared-expert gate needs shared_ff_size")
        if not self.attention_norm and (self.norm_position != "pre" or self.parallel or self.mixer != "attention"):
            raise InputError("attention_norm", "a block without an attention norm is modelled pre-norm, sequential")
        if self.shared_block is not None and (self.mixer not in ("mamba", "mamba2") or self.shared_weights):
            raise InputError("shared_block", "a shared attention block is modelled before a Mamba or Mamba-2 mixer, "
                                             "in a block without shared weights of its own")
        if self.shared_block is not None and self.lora is not None:
            raise InputError("lora", "LoRA on a layer that runs Zamba's shared attention block is not modelled "
                                     "(adapters on shared weights); fine-tune the last blocks or in full instead")
        if self.shared_weights and self.lora is not None:
            raise InputError("lora", "adapters on shared weights (ALBERT's shared layers) are not modelled")
        if (self.disentangled is not None or self.input_convolution is not None) and (
                self.causal or self.mixer != "attention" or self.parallel or self.norm_position != "post"
                or self.kv_lora_rank is not None or self.local_radius is not None or self.cross_attention_length
                or self.experts > 1 or self.qk_norm != "none" or self.shared_weights or self.sandwich_norms):
            raise InputError("disentangled", "DeBERTa's position terms and input convolution are modelled in "
                                             "post-norm, non-causal multi-head attention blocks")
        if (self.disentangled is not None or self.input_convolution is not None or not self.key_bias) \
                and self.lora is not None:
            raise InputError("lora", "LoRA on DeBERTa's blocks is not modelled (its q and k projections also run over "
                                     "the shared relative-position table); fine-tune in full instead")
        if (self.kv_shared or self.values_from_keys) and (self.kv_lora_rank is not None or self.mixer != "attention"
                                                          or self.cross_attention_length or self.local_radius
                                                          or self.disentangled is not None):
            raise InputError("kv_source", "shared or key-derived values are modelled for plain self-attention")
        if self.kv_shared and self.lora is not None and set(self.lora_targets) & {"k", "v"}:
            target = next(t for t in self.lora_targets if t in ("k", "v"))
            raise InputError("lora.targets", f"'{target}': a layer that reuses an earlier layer's keys and values has "
                                             "no k or v projection to adapt")
        if self.values_from_keys and self.lora is not None and "v" in self.lora_targets:
            raise InputError("lora.targets", "'v': the values are the key projection's output: no v projection to "
                                             "adapt")
        if self.expert_branch_norms and (self.experts == 1 or not self.shared_ff_size or self.shared_expert_gate
                                         or not self.gated or self.router_bias):
            raise InputError("expert_branch_norms", "Gemma 4's experts need experts > 1 beside a gated dense MLP "
                                                    "(shared_ff_size), without a shared-expert gate or router bias")
        if (self.altup_inputs or self.laurel_rank) and (self.mixer != "attention" or self.parallel
                                                         or self.norm_position != "pre" or self.lora is not None):
            raise InputError("altup_inputs", "AltUp and LAuReL are modelled in pre-norm sequential attention blocks "
                                             "trained in full")
        if self.per_layer_input_size and (self.mixer != "attention" or self.parallel or self.norm_position != "pre"):
            raise InputError("per_layer_input_size", "per-layer inputs are modelled in pre-norm sequential attention "
                                                     "blocks")
        if self.lora is not None:
            for target in self.lora_targets:
                reason = lora_target_refusal(self, target)
                if reason:
                    raise InputError("lora.targets", f"'{target}': {reason}")
        return self

    @property
    def kv_shared(self) -> bool:
        """Whether this layer reads an earlier layer's keys and values (``kv_source``)."""
        return self.kv_source is not None

    @property
    def adapted(self) -> bool:
        return self.lora is not None

    @property
    def lora_targets(self) -> tuple[str, ...]:
        """The projections LoRA adapts (none without ``lora``)."""
        if self.lora is None:
            return ()
        return self.lora.targets if self.lora.targets is not None else DEFAULT_LORA_TARGETS

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        """(H, H_kv, Q) for d_model d."""
        if self.head_size is None and d % self.heads:
            raise ShapeError(f"head size d/H = {d}/{self.heads} is not an integer; set head_size")
        return self.heads, self.kv_heads or self.heads, self.head_size or d // self.heads

    def cost(self, flow: Flow) -> LayerCost:
        """The parts in order, wired as a data flow: the block's input ``x`` (the residual stream), a sub-layer's
        input ``h`` (its norm's output, or ``x`` itself post-norm), its output added back into ``x``."""
        d, length = sequence_dims(flow)
        half = self.causal_count == "half"
        pre = self.norm_position == "pre"
        into_stream = not self.sandwich_norms and self.norm_position != "output"  # the last row adds into x
        read = "h" if pre else "x"
        if self.mixer == "none":
            attention = []
        elif self.mixer == "mamba":
            attention = state_space.mamba(self, d, length, read)
        elif self.mixer == "mamba2":
            attention = state_space.mamba2(self, d, length, read)
        elif self.mixer == "lightning":
            attention = lightning.lightning(self, d, length, read)
        elif self.mixer == "gated_deltanet":
            attention = state_space.gated_deltanet(self, d, length, read)
        elif self.mixer == "short_conv":
            attention = state_space.short_conv(self, d, length, read)
        elif self.mixer == "compressed":
            attention = compressed_attention.compressed_attention(self, d, length, read)
        else:
            attention = parts_of.attention(self, "attention", d, length, length, half,
                                           self.attention_window if half else None, read, "x")
            if self.ssm_beside:  # Falcon-H1: the same normed input; its out projection adds into x too
                attention += state_space.mamba2(self, d, length, read)
                if self.mup_multipliers:
                    attention.insert(0, state_space.falcon_h1_multipliers(self, d, length, read))
        if self.parallel:  # both read the same normed x; the feed-forward's last row adds both into x
            attention[-1] = attention[-1]._replace(dst=("o",), also=())
            h_ff = "h" if self.shared_norm else "h2"
            feed_forward = [p._replace(src=tuple(h_ff if s == "h" else s for s in p.src))
                            for p in parts_of.feed_forward(self, d, length)]
            feed_forward[-1] = feed_forward[-1]._replace(also=feed_forward[-1].also + ("o",))
            norms = [parts_of.norm(self, "shared", d, length)] if self.shared_norm else \
                [parts_of.norm(self, "attention", d, length),
                 parts_of.norm(self, "feed-forward", d, length, dst="h2")]
            parts = norms[:1] + attention + norms[1:] + feed_forward
        else:
            sub_layers = [(self.mixer, attention)] if attention else []
            if self.cross_attention_length:
                sub_layers.append(("cross-attention",
                                   parts_of.attention(self, "cross-attention", d, length,
                                                      self.cross_attention_length, False, None, read, "m")))
            if self.feed_forward:
                sub_layers.append(("feed-forward", parts_of.feed_forward(self, d, length, read)))
            parts = []
            for label, rows in sub_layers:
                if self.residual_scales:  # α·residual + β·output
                    rows[-1] = rows[-1]._replace(extra_flop=rows[-1].extra_flop + 2 * length * d)
                if not into_stream:  # a norm on the sub-layer's output comes before the residual add
                    rows[-1] = rows[-1]._replace(dst=("o",), also=tuple(a for a in rows[-1].also if a != "x"))
                if self.hyper_connections:  # the N streams: weights, the norm of their collapse, the sub-layer
                    # (its output "o"), comb × the streams + post × o into x
                    weights, mix = compressed_attention.hyper_rows(self, label, d, length)
                    rows = [p._replace(dst=tuple("o" if t == "x" else t for t in p.dst),
                                       also=tuple(a for a in p.also if a != "x")) for p in rows]
                    parts += [weights, parts_of.norm(self, label, d, length, src="x", dst="h")._replace(
                        src=("x", "hc"))] + rows + [mix]
                    continue
                if pre and label == "attention" and not self.attention_norm:  # it reads the block's input
                    parts += [p._replace(src=tuple("x" if s == "h" else s for s in p.src)) for p in rows]
                elif pre:
                    parts += [parts_of.norm(self, label, d, length)] + rows
                elif self.norm_position == "post":  # the norm of the sum, in place
                    parts += rows + [parts_of.norm(self, label, d, length, src="x", dst="x")]
                else:  # output: norm(o) added into x
                    parts += rows + [parts_of.norm(self, label, d, length, src="o", dst="x", also=("x",))]
                if self.sandwich_norms:
                    parts.append(parts_of.norm(self, f"{label} output", d, length, src="o", dst="x", also=("x",)))
                if label == "attention" and self.laurel_rank:  # beside attention, on its normed input
                    parts += parts_of.laurel(self, d, length)
            if self.idle_cross_attention:  # held, not run: parameters only, outside the data flow
                parts.append(parts_of.idle_cross_attention(self, d))
            if self.altup_inputs:
                predict, correct = parts_of.altup(self, d, length)
                parts = predict + parts + correct
            if self.per_layer_input_size:
                parts += parts_of.per_layer_input(self, d, length)
        if self.input_convolution is not None:
            if d % self.input_convolution.groups:
                raise ShapeError(f"the input convolution's {self.input_convolution.groups} groups do not divide d = {d}")
            conv, conv_norm = parts_of.input_convolution(self, d, length)
            parts = [conv] + parts + [conv_norm]
        parts = parts_of.adapted(self, parts, d, length)
        if self.shared_block is not None:  # the mixer's norm reads x + t (the shared block's output)
            parts[0] = parts[0]._replace(src=("x", "t"), extra_flop=parts[0].extra_flop + length * d)
            parts = parts_of.shared_block(self.shared_block, d, length) + parts
        if self.shared_weights:  # counted where the weights first appear
            parts = [p._replace(params=0, active_params=None if p.active_params is None else 0) for p in parts]
        params = sum(p.params for p in parts)
        moe = self.experts > 1
        active = sum(p.params if p.active_params is None else p.active_params for p in parts) if moe else None
        return LayerCost(Flow((d,), length), params, sum(p.macs for p in parts),
                         sum(p.extra_flop for p in parts), active, tuple(parts))


    # ------------------------------------------------------------ LoRA and the backward pass


    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The parts' data flow (``engine.method1.backward.parts_grad``). Shared weights: the weight gradients of
        this use are computed (and accumulated into the shared weights), the weights themselves are trained
        where they are counted (Zamba2's shared block too: its adapters and projection are each use's own)."""
        shared_block = self.shared_block is not None and self.shared_block.block.shared_weights
        if self.disentangled is not None:  # the relative table ("r") trains with the blocks reading it
            return parts_grad(cost.parts, grad_in, trainable, memory_grad, {"r": trainable})
        # the keys and values of layer kv_source need a gradient when its input does: as this layer's input in full
        # training, with adapters on every layer from a source after the first, and training the last blocks from
        # the source on (engine.method1.finetune refuses the other cases)
        seeds = {"k": grad_in, "v": grad_in} if self.kv_shared else None
        if not self.shared_weights and not shared_block:
            return parts_grad(cost.parts, grad_in, trainable, memory_grad, seeds)
        unshared = {"shared_weights": False}
        if shared_block:
            unshared["shared_block"] = self.shared_block.model_copy(
                update={"block": self.shared_block.block.model_copy(update={"shared_weights": False})})
        own = self.model_copy(update=unshared).cost(flow)
        grad = parts_grad(own.parts, grad_in, trainable, memory_grad)
        rows = tuple((m, e, t if counted.params else 0) for (m, e, t), counted in zip(grad.parts, cost.parts))
        return grad._replace(trainable_params=sum(t for *_, t in rows), parts=rows)


class SharedBlockUse(BaseModel):
    """One use of Zamba2's shared attention block (``transformer_parts.shared_block``): ``block`` the shared
    attention + gated MLP (its ``shared_weights``: an earlier use holds them), ``adapter_rank`` r of this use's
    adapters beside the MLP's gate/up (d→r→2F) and, with ``attention_adapters``, beside q, k and v (2d→r→2d)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    block: TransformerBlock
    adapter_rank: Size | None = Field(None, description="r: this use's adapters (None: none).")
    attention_adapters: bool = Field(False, description="Adapters beside q, k and v too.")
    idle_adapters: int = Field(0, ge=0, le=10_000, description="Adapter sets of other uses this copy holds and never "
                                                             "runs (transformers' untied Zamba2 blocks).")

    @model_validator(mode="after")
    def _modelled(self):
        b = self.block
        if b.mixer != "attention" or not b.gated or b.experts > 1 or b.parallel or b.norm_position != "pre" \
                or b.kv_lora_rank is not None or b.cross_attention_length or b.shared_block is not None \
                or b.lora is not None or b.local_radius is not None or b.qk_norm != "none" or b.sandwich_norms:
            raise InputError("shared_block.block", "the shared block is modelled as pre-norm attention with a "
                                                   "dense gated MLP")
        if (self.attention_adapters or self.idle_adapters) and not self.adapter_rank:
            raise InputError("shared_block.adapter_rank", "attention or idle adapters need adapter_rank")
        return self


class DisentangledAttention(BaseModel):
    """DeBERTa's disentangled attention (He et al. 2021; transformers' ``DisentangledSelfAttention``): beside the
    content scores QKᵀ, position terms from a table of 2S relative-position embeddings of width d (counted once,
    ``RelativePositionTable``; the layers share it). Per layer the 2S' rows it reads (S' = min(L, S) with ``clip``,
    DeBERTa v1; S' = S, v2) are projected d→H·Q into position keys (c2p: content-to-position, H·L·2S'·Q MACs
    against the queries) and position queries (p2c: position-to-content, H·L·2S'·Q MACs against the keys); the
    scores are then gathered by relative distance (no multiply-accumulates). ``shared_projections`` (v2's
    share_att_key): the table goes through the layer's own q and k projections (both, whatever the terms; no
    parameters of their own). v1's c2p projection has no bias (``position_key_bias``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    span: Size = Field(description="S: relative distances each way (the table has 2S rows).")
    clip: bool = Field(False, description="v1: only the 2·min(L, S) middle rows are read.")
    terms: tuple[Literal["c2p", "p2c"], ...] = Field((), description="The position terms computed.")
    shared_projections: bool = Field(False, description="v2's share_att_key: the table through the layer's q and k.")
    position_key_bias: bool = Field(True, description="c2p's own projection has a bias (v1: none).")

    def rows(self, length: int) -> int:
        """2S': the table rows one layer reads at L positions."""
        return 2 * (min(length, self.span) if self.clip else self.span)


class InputConvolution(BaseModel):
    """DeBERTa-v2's ``ConvLayer`` (``conv_kernel_size`` K > 0): a 1-D convolution d→d over the first layer's input,
    K taps, G groups, biased, same length (K odd), activated and added to the layer's output, then a LayerNorm:
    params d·(d/G)·K + d + 2d, L·d·(d/G)·K MACs."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kernel: Size = Field(description="K, odd.")
    groups: Size = Field(1, description="G, dividing d.")
    activation: BlockActivation = "tanh"

    @model_validator(mode="after")
    def _same_length(self):
        if self.kernel % 2 == 0:
            raise InputError("input_convolution.kernel", f"{self.kernel} is even: the output is one position short of "
                                                         "the residual it is added to (transformers fails)")
        return self


TransformerBlock.model_rebuild()


class TokenTypeEmbedding(LayerBase):
    """BERT's segment table: ``types`` rows × d, looked up and added at every position (params types·d,
    no multiply-accumulates; full: one add per element)."""

    type: Literal["token_type_embedding"] = "token_type_embedding"
    types: Size
    kind_label: ClassVar[str] = "Token-type embedding"
    formula: ClassVar[str] = r"0 \quad (\text{types} \cdot d \text{ parameters; full: } L \cdot d \text{ adds})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        return LayerCost(Flow((d,), length), self.types * d, 0, length * d)


class RelativePositionBias(LayerBase):
    """T5's relative attention bias: a table of ``buckets`` × H scalars added to the attention scores of
    a stack (computed in its first layer, shared by the others; UMT5: ``tables``, one per layer): params
    tables·buckets·H, no multiply-accumulates."""

    type: Literal["relative_position_bias"] = "relative_position_bias"
    buckets: Size
    heads: Size
    tables: Size = Field(1, description="Tables of their own: 1 (T5, shared by the stack's layers) or one per "
                                        "layer (UMT5).")
    kind_label: ClassVar[str] = "Relative position bias"
    formula: ClassVar[str] = r"0 \quad (\text{tables} \cdot \text{buckets} \cdot H \text{ parameters})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        return LayerCost(Flow((d,), length), self.tables * self.buckets * self.heads, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The table is added to attention scores, not to the flow: training it gives the scores a gradient
        (no multiply-accumulates) but asks nothing more of the layers' inputs."""
        return Grad(0, 0, grad_in, cost.params if trainable else 0)


class DecoderInput(LayerBase):
    """Where an encoder–decoder model's decoder starts: the encoder's output is kept as the memory its
    cross-attention reads, and the flow becomes the decoder's own ``length`` tokens, embedded with the
    shared table (``vocab_size`` None: no parameters) or a table of its own (V·d)."""

    type: Literal["decoder_input"] = "decoder_input"
    starts_decoder: ClassVar[bool] = True
    length: Size
    vocab_size: Size | None = None
    kind_label: ClassVar[str] = "Decoder input"
    formula: ClassVar[str] = r"0 \quad (\text{a table lookup})"

    def cost(self, flow: Flow) -> LayerCost:
        d, _ = sequence_dims(flow)
        return LayerCost(Flow((d,), self.length), (self.vocab_size or 0) * d, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The decoder's tokens are new data: they need a gradient only when their table trains (the shared
        table's trainability is this layer's, as a fine-tune sets it); the encoder's gradient stays with the
        memory that cross-attention reads."""
        return Grad(0, 0, trainable, cost.params if trainable else 0)


class SpareTokenTable(LayerBase):
    """A token table the model holds and this path does not read (untied BART's ``shared``, when each stack
    embeds with a table of its own): params V·d, no arithmetic; the flow passes unchanged."""

    type: Literal["spare_token_table"] = "spare_token_table"
    vocab_size: Size
    kind_label: ClassVar[str] = "Spare token table"
    formula: ClassVar[str] = r"0 \quad (V \cdot d \text{ parameters, not read})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        return LayerCost(Flow((d,), length), self.vocab_size * d, 0, 0)


class ContactHead(LayerBase):
    """ESM's contact-prediction head: a logistic regression (``maps`` → 1, with a bias) over the attention maps of
    every layer and head (maps = layers × H). EsmModel holds it and only ``predict_contacts`` runs it, not the forward
    pass: maps + 1 parameters, no arithmetic, no gradient; the flow passes unchanged."""

    type: Literal["contact_head"] = "contact_head"
    maps: Size = Field(description="The attention maps it reads: layers × heads.")
    kind_label: ClassVar[str] = "Contact-prediction head (not run)"
    formula: ClassVar[str] = r"0 \quad (\text{maps} + 1 \text{ parameters, not run})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        return LayerCost(Flow((d,), length), self.maps + 1, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """Not in the forward graph: no gradient, and nothing asked of the flow (its parameters still count as
        trainable when the layer trains, as transformers' requires_grad does)."""
        return Grad(0, 0, grad_in, cost.params if trainable else 0)


class Pooler(LayerBase):
    """BERT's pooler: a dense d→d layer with tanh on the first position only (params d² + d, 2·d²)."""

    type: Literal["pooler"] = "pooler"
    kind_label: ClassVar[str] = "Pooler (first token)"
    formula: ClassVar[str] = r"2 \cdot d^2"

    def cost(self, flow: Flow) -> LayerCost:
        d, _ = sequence_dims(flow)
        params, macs, bias_adds = dense_cost(d, d, True)
        return LayerCost(Flow((d,), None), params, macs, bias_adds + ACTIVATION_FLOP["tanh"] * d)


class RelativePositionTable(LayerBase):
    """DeBERTa's relative-position embeddings: ``rows`` (2S) vectors of width d that every layer's disentangled
    attention reads (``TransformerBlock.disentangled``), with a LayerNorm over them when ``norm`` (v2's
    norm_rel_ebd; its 2d parameters exist even without a table, ``rows`` None). Params rows·d (+ 2d), no
    multiply-accumulates; the flow passes unchanged."""

    type: Literal["relative_position_table"] = "relative_position_table"
    rows: Size | None = Field(None, description="2S rows (None: the norm alone).")
    norm: bool = Field(False, description="A LayerNorm over the rows.")
    kind_label: ClassVar[str] = "Relative position table"
    formula: ClassVar[str] = r"0 \quad (2S \cdot d \text{ parameters})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        rows = self.rows or 0
        params, _, extra = layer_norm_cost(rows * d, d, True) if self.norm else (0, 0, 0)
        return LayerCost(Flow((d,), length), rows * d + params, 0, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The rows feed the blocks' position projections, not the flow (their gradients are counted there)."""
        return Grad(0, BACKWARD_EXTRA_FACTOR * cost.extra_flop if trainable else 0, grad_in,
                    cost.params if trainable else 0)


class PerLayerEmbeddings(LayerBase):
    """Gemma 4's per-layer embeddings (PLE), made once after the token embedding for the N blocks that read them
    (``TransformerBlock.per_layer_input_size`` P): a table of V_p rows of N·P (looked up, × √P), and the token
    embeddings projected d→N·P (no bias; × d^-½), normed per layer (an RMS norm of P with a gain), added to the
    looked-up rows and × 2^-½. Params V_p·N·P + d·N·P + P; forward L·d·N·P MACs; the flow passes unchanged."""

    type: Literal["per_layer_embeddings"] = "per_layer_embeddings"
    vocab_size: Size = Field(description="V_p: the table's rows.")
    blocks: Size = Field(description="N: the blocks that read a slice each.")
    size: Size = Field(description="P: each block's slice.")
    kind_label: ClassVar[str] = "Per-layer embeddings (Gemma 4)"
    formula: ClassVar[str] = r"2 L d N P"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        width = self.blocks * self.size
        norm = rms_norm_cost(self.size, self.size, True)
        # full: the table's and the projection's scalings, the norm per slice, the add and its scaling
        extra = length * (4 * width + self.blocks * norm[2])
        return LayerCost(Flow((d,), length), (self.vocab_size + d) * width + norm[0], length * d * width, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The projection's weight gradient when trained, its input gradient (into the token embeddings) when they
        need one; the flow passes on unchanged."""
        grad = product_grad(cost.macs, cost.extra_flop, cost.params, grad_in, trainable)
        return grad._replace(out=grad_in)


TRANSFORMER_KINDS: tuple[type[LayerBase], ...] = (TransformerBlock, RMSNorm, HyperHead, PositionEmbedding, LMHead,
                                                  TokenTypeEmbedding, RelativePositionBias, DecoderInput, Pooler,
                                                  SpareTokenTable, RelativePositionTable, PerLayerEmbeddings,
                                                  ContactHead)
"""Registered in ``engine.method1.kinds``."""


ATTENTION_TARGETS = ("q", "k", "v", "o")
FEED_FORWARD_TARGETS = ("gate", "up", "down", "experts")


def lora_target_refusal(block: TransformerBlock, target: str) -> str:
    """Why LoRA target ``target`` names no projection of ``block`` ('' when it names one). A target is a
    projection's role (``transformer_parts.adapted``): q the query projection, k and v the key and value
    projections, qkv the three as one fused projection (GPT-2's c_attn: one adapter), o the attention's output
    projection (self- and cross-attention), gate/up/down the dense or
    shared feed-forward, experts every routed expert's. Latent attention (``kv_lora_rank``) adapts o (o_proj,
    H·V→d) and q where the queries are projected directly (q_proj, d→H·(Q+R)); its queries through the
    ``q_lora_rank`` bottleneck (q_a_proj, q_b_proj) and its keys and values (one latent, kv_a_proj_with_mqa and
    kv_b_proj, makes both) are no q, k or v projection, and PEFT's q_proj/k_proj/v_proj match none of them."""
    moe = block.experts > 1
    if target == "qkv":
        if block.mixer != "attention":
            return f"this block's mixer ({block.mixer}) has no attention projections"
        if block.kv_lora_rank is not None:
            return ("latent attention has no fused q/k/v projection (its queries and its key-value latent are "
                    "projections of their own); adapt q, o or the feed-forward")
        if block.kv_source is not None or block.values_from_keys:
            return "this layer has no value projection of its own (shared or key-derived values): no fused q/k/v"
        if block.cross_attention_length or block.local_radius is not None or block.disentangled is not None:
            return ("the fused q/k/v adapter is modelled on plain self-attention (a block with cross-attention or "
                    "local attention: adapt q, k and v)")
        return ""
    if target in ATTENTION_TARGETS:
        if block.mixer != "attention":
            return (f"this block's mixer ({block.mixer}) has no attention projections (its own projections are not "
                    "LoRA targets here)")
        if block.kv_lora_rank is not None and target in ("k", "v"):
            return ("latent attention has no key or value projection of its own: one latent (kv_a_proj_with_mqa "
                    "d→c+R, then kv_b_proj c→H·(Q+V)) makes the keys and the values together; adapt q, o or the "
                    "feed-forward")
        if block.kv_lora_rank is not None and target == "q" and block.q_lora_rank:
            return ("the queries go through the q_lora_rank bottleneck (q_a_proj d→c_q, q_b_proj c_q→H·(Q+R)), not "
                    "one q projection; adapt o or the feed-forward")
        return ""
    if not block.feed_forward:
        return "this block has no feed-forward"
    if target == "experts":
        return "" if moe else "needs a mixture-of-experts block (experts > 1)"
    if moe and not block.shared_ff_size:
        return "the feed-forward is routed experts only (no shared expert): use 'experts'"
    if target == "gate" and not block.gated:
        return "needs a gated feed-forward (gated: true)"
    return ""
