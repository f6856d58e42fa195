"""A language model's shape, normalised, and the Hugging Face ``config.json`` reader.

``TransformerConfig`` is the one model of a language model's shape (the CLI's file, the dashboard's
"from HF config" form): decoder-only (GPT, Llama…), encoder-only (BERT: ``head="mlm"``, no causal
mask) or encoder–decoder (T5, BART: an ``encoder`` stack, then the decoder blocks with cross-attention).
``read_hf_config`` maps a family's own keys onto it (``engine.llm.families``): every key is either read,
known to change neither parameters nor FLOP (dropout, eps, token ids, rotary settings…), read by nothing
transformers builds (listed in ``unused_keys``), or refused by name — unless ``lenient``, which lists the
keys it left out in ``ignored_keys``.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError, json_type, parse_input
from ..json_text import parse_json_text
from ..method1.architecture import Architecture, InputSpec
from ..method1.layers import Activation, Dense, Embedding, LayerNorm, Size
from ..method1.mobilebert import BottleneckBlock, MobileBertEmbeddings, NormKind
from ..method1.training import TrainingSetup
from ..method1.transformer.migration import block_from_flat, key_of_parts
from ..method1.transformer import (
    BlockActivation,
    ContactHead,
    DecoderInput,
    HyperHead,
    LMHead,
    PerLayerEmbeddings,
    Pooler,
    PositionEmbedding,
    RelativePositionBias,
    RelativePositionTable,
    RMSNorm,
    SpareTokenTable,
    TokenTypeEmbedding,
    TransformerBlock,
)

MAX_TRANSFORMER_LAYERS = 10_000
MAX_CONFIG_BYTES = 1_000_000

LayerCount = Annotated[int, Field(ge=1, le=MAX_TRANSFORMER_LAYERS)]


class LayerGroup(BaseModel):
    """``layers`` blocks that differ from the model's main block (DeepSeek's first dense layers, the
    full-attention layers between sliding-window ones); they come first, unless ``at`` places them: the
    0-based positions of its blocks among all the layers (a hybrid's attention layers between its state-space
    ones)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    layers: LayerCount
    block: TransformerBlock
    at: tuple[Annotated[int, Field(ge=0, lt=MAX_TRANSFORMER_LAYERS)], ...] | None = Field(
        None, description="Where this group's blocks sit (0-based layer numbers; None: first).")

    @model_validator(mode="after")
    def _placed(self):
        if self.at is not None and (len(self.at) != self.layers or len(set(self.at)) != self.layers):
            raise InputError("at", f"expected {self.layers} different layer numbers, one per block of the group")
        return self


class EncoderStack(BaseModel):
    """The encoder of an encoder–decoder model: its own position table, embedding norm, relative position
    bias table, ``layers`` non-causal blocks and final norm; the token table is shared with the decoder."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    layers: LayerCount
    block: TransformerBlock
    learned_positions: Size | None = None
    embedding_norm: bool = False
    relative_buckets: Size | None = None
    final_norm: bool = True
    relative_bias_tables: Size | None = Field(None, description="Relative bias tables in the stack's first layer "
                                                                "where not one (LongT5's transient-global: 2).")
    first_layers: tuple[LayerGroup, ...] = Field((), description="Blocks unlike ``block`` (dense layers between "
                                                                 "mixture-of-experts ones): first, or on the layers "
                                                                 "``at`` names.")

    @model_validator(mode="after")
    def _groups_fit(self):
        _check_groups(self.first_layers, self.layers, "encoder.first_layers", "encoder's")
        return self


def _check_groups(groups, layers: int, field: str, whose: str) -> None:
    """A stack's groups fit its ``layers``: no more layers than it has, their ``at`` numbers distinct and below it."""
    if sum(g.layers for g in groups) > layers:
        raise InputError(field, f"more layers in the groups than the {whose} {layers}")
    placed = [i for g in groups for i in g.at or ()]
    if len(set(placed)) != len(placed) or any(i >= layers for i in placed):
        raise InputError(field, f"the groups' layer numbers (at) must differ and be below {layers}")


def _in_order(layers: int, block: TransformerBlock, groups) -> list[TransformerBlock]:
    """A stack's ``layers`` blocks in order: each group's block on its layers ``at``, the groups without ``at``
    first, ``block`` on the rest."""
    first = [(g.layers, g.block) for g in groups if g.at is None]
    first.append((layers - sum(g.layers for g in groups), block))
    free = iter([b for count, b in first for _ in range(count)])
    placed = {i: g.block for g in groups for i in g.at or ()}
    return [placed[i] if i in placed else next(free) for i in range(layers)]


def _norm_layer(block: TransformerBlock):
    """The final norm, of the kind the blocks use."""
    if block.norms.kind == "layernorm":
        return LayerNorm(affine=block.norms.affine, bias=block.norms.bias)
    return RMSNorm(affine=block.norms.affine)


def _disentangled(block: TransformerBlock):
    return getattr(block.mixer, "disentangled", None)


def _streams(block: TransformerBlock) -> int | None:
    return block.hyper.streams if block.hyper is not None else None


def _heads(block: TransformerBlock) -> int:
    """H of the block's attention (1 for the mixers without attention heads)."""
    return block.mixer.heads if block.mixer.kind in ("attention", "latent", "compressed", "lightning") else 1


def _activation(block: TransformerBlock) -> str:
    """The feed-forward's activation (a head reusing it: BERT's, ELECTRA's)."""
    return block.feed_forward.activation if block.feed_forward else "gelu"


def _parts(data: object) -> object:
    """A config's blocks in parts: the family readers write each block's fields by their flat names
    (``engine.method1.transformer.migration``)."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    for owner in (data, data.get("encoder")):
        if not isinstance(owner, dict):
            continue
        if owner is not data:
            owner = data["encoder"] = dict(owner)
        owner["block"] = block_from_flat(owner["block"]) if isinstance(owner.get("block"), dict) else owner.get(
            "block")
        if isinstance(owner.get("first_layers"), (list, tuple)):
            owner["first_layers"] = [dict(g, block=block_from_flat(g["block"]))
                                     if isinstance(g, dict) and isinstance(g.get("block"), dict) else g
                                     for g in owner["first_layers"]]
    if isinstance(data.get("mobilebert"), dict):
        data["mobilebert"] = dict(data["mobilebert"])
    return data


class PerLayerInputs(BaseModel):
    """Gemma 4's per-layer embeddings (``PerLayerEmbeddings``): a table of ``vocab_size`` rows of layers × ``size``,
    and the projection of the token embeddings to the same width."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    vocab_size: Size
    size: Size


class MobileBertLayout(BaseModel):
    """MobileBERT's own parts (``engine.method1.mobilebert``): a token table of width E, its trigram projection to d
    (``MobileBertEmbeddings``, with the model's learned positions and token types and a norm of kind ``norm``), and
    ``block``, the bottleneck block every layer runs (in place of the model's transformer block, which then only
    names the heads, head size, feed-forward size and activation). A tied masked-LM head multiplies by the E-wide token
    table and d − E rows of its own (V·(d − E) parameters)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    token_width: Size = Field(description="E: the token table's width (embedding_size).")
    trigram: bool = True
    norm: NormKind = "no_norm"
    block: BottleneckBlock


class TransformerConfig(BaseModel):
    """A language model: token embedding (V×d), optional learned position and token-type tables and
    embedding norm, ``layers`` blocks (``first_layers`` groups first or where ``at`` puts them, then ``block``),
    a final norm (pre-norm models) and the head: LM (tied or not), masked-LM (BERT's transform + tied decoder), ELECTRA's
    discriminator (d→d, activation, d→1), or none (the bare ``…Model``), with BERT's pooler. ``encoder``:
    an encoder–decoder model."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    model_type: str = Field("", max_length=100)
    architecture_name: str = Field("", max_length=200, description="The transformers class counted.")
    layers: LayerCount
    d_model: Size
    vocab_size: Size
    context_length: Size | None = Field(None, description="Positions the model was built for (default T).")
    learned_positions: Size | None = Field(None, description="Rows of a learned position table (None: "
                                                             "rotary, ALiBi or none, which have no parameters).")
    token_types: Size | None = Field(None, description="Rows of BERT's token-type table.")
    rotary_table: Size | None = Field(None, description="Rows of RoFormer's sinusoidal table, head-size wide (d/H): a "
                                                        "parameter that never trains, read by the rotary positions.")
    embedding_norm: bool = Field(False, description="A LayerNorm on the embeddings (BERT, BLOOM, BART).")
    relative_buckets: Size | None = Field(None, description="T5's relative attention bias buckets.")
    relative_bias_each_layer: bool = Field(False, description="Every layer's self-attention has a relative bias "
                                                              "table of its own (UMT5), not only each stack's first.")
    tied_embeddings: bool = Field(True, description="The LM head reuses the token embedding's weights.")
    embedding_size: Size | None = Field(None, description="The token table's width where it is narrower than "
                                                          "d_model (OPT-350m): projected in (E→d) and out (d→E), "
                                                          "no biases; the LM head reads E.")
    stack_token_tables: bool = Field(False, description="Encoder–decoder: each stack embeds with a token table "
                                                        "of its own, beside the shared one (untied BART).")
    decoder_token_table: bool = Field(False, description="Encoder–decoder: the decoder embeds with a token table of "
                                                         "its own, the encoder with the first, and there is no shared "
                                                         "one (T5Gemma); a tied LM head reads the decoder's.")
    tables_width: Size | None = Field(None, description="E: the width of every embedding table and the "
                                                        "embedding norm where it is not d (ELECTRA): a biased "
                                                        "projection E→d follows them; a masked-LM head maps d→E.")
    tables_projection_first: bool = Field(False, description="With tables_width: the projection E→d has no bias and "
                                                             "comes before the embedding norm, which is d wide "
                                                             "(DeBERTa's embed_proj).")
    relative_table: Size | None = Field(None, description="Rows (2S) of DeBERTa's relative-position table, d wide, "
                                                          "shared by the layers' disentangled attention.")
    relative_table_norm: bool = Field(False, description="A LayerNorm over that table (DeBERTa-v2's norm_rel_ebd; its "
                                                         "parameters exist even without a table).")
    altup_streams: Size | None = Field(None, description="N: Gemma 3n's AltUp streams: N − 1 projections d→d of the "
                                                          "embeddings into the other streams, N − 1 back before the "
                                                          "final norm (every block's altup_inputs is N).")
    per_layer_inputs: PerLayerInputs | None = Field(None, description="Gemma 4's per-layer embeddings (every block's "
                                                                      "per_layer_input_size is their size).")
    head: Literal["lm", "mlm", "discriminator", "none"] = "lm"
    head_bias: bool = False
    head_vocab_size: Size | None = Field(None, description="O: rows of an untied LM head where fewer than the "
                                                           "token table's V (Apertus 1.5's output_vocab_size: "
                                                           "the head pruned to the text tokens): d→O.")
    head_dense_bias: bool = Field(True, description="The masked-LM head's dense layer has a bias (ModernBERT's "
                                                    "classifier_bias: none).")
    head_activation: BlockActivation | None = Field(None, description="The masked-LM head's activation (None: the "
                                                                      "blocks').")
    head_width: Size | None = Field(None, description="O: the masked-LM head's width where it is its own (RemBERT's "
                                                      "output_embedding_size): dense d→O, LayerNorm of O, an untied "
                                                      "decoder O→V (no other head reads it).")
    decoder_bias: bool = Field(True, description="The masked-LM decoder has a bias (ModernBERT's decoder_bias).")
    pooler: bool = False
    contact_head: bool = Field(False, description="ESM's contact-prediction head: a regression over the layers × H "
                                                  "attention maps (layers·H + 1 parameters), held and not run by the "
                                                  "forward pass.")
    final_norm: bool | None = Field(None, description="None: pre-norm models end with one, post-norm don't.")
    block: TransformerBlock
    mobilebert: MobileBertLayout | None = Field(None, description="MobileBERT's embeddings and bottleneck blocks, in "
                                                                  "place of the blocks of ``block``.")
    first_layers: tuple[LayerGroup, ...] = ()
    shared_groups: Size | None = Field(None, description="G: ALBERT's shared layers — the weights are G groups of "
                                                         "``group_blocks`` blocks; layer i runs group ⌊i / (layers/G)⌋'s "
                                                         "blocks in order; each block's weights counted once, its FLOP "
                                                         "at every use.")
    group_blocks: Size = Field(1, description="Blocks per shared group (ALBERT's inner_group_num).")
    encoder: EncoderStack | None = None
    ignored_keys: tuple[str, ...] = Field((), description="Config keys transformers reads and this reader does "
                                                          "not, left out (lenient reading only).")
    unused_keys: tuple[str, ...] = Field((), description="Config keys no transformers code of the family reads "
                                                         "(inert: accepted, listed).")
    notes: tuple[str, ...] = Field((), description="How the file was read where it is not plain (a model_type read "
                                                   "as the family its architectures class belongs to).")

    @model_validator(mode="before")
    @classmethod
    def _blocks_in_parts(cls, data):
        return _parts(data)

    @model_validator(mode="after")
    def _consistent(self):
        for name, block in self.named_blocks():
            heads, size = getattr(block.mixer, "heads", 1), getattr(block.mixer, "head_size", 1)
            if size is None and self.d_model % heads:
                raise InputError(f"{name}.mixer.heads", f"{heads} heads do not divide d_model {self.d_model} "
                                                        "(give the head size)")
        _check_groups(self.first_layers, self.layers, "first_layers", "model's")
        if self.encoder and self.head == "mlm":
            raise InputError("head", "a masked-LM head sits on an encoder-only model")
        if self.tables_width and (self.embedding_size or self.encoder):
            raise InputError("tables_width", "narrow embedding tables are modelled for encoder-only models "
                                             "without embedding_size")
        if self.shared_groups is not None and (self.shared_groups > self.layers or self.first_layers or self.encoder):
            raise InputError("shared_groups", f"{self.shared_groups} shared groups: at most the {self.layers} layers "
                                              "(a group no layer runs is not modelled), in an encoder-only model "
                                              "without first_layers")
        if self.group_blocks > 1 and self.shared_groups is None:
            raise InputError("group_blocks", "blocks per group need shared_groups")
        if self.rotary_table and (self.encoder or getattr(self.block.mixer, "head_size", None) is not None):
            raise InputError("rotary_table", "a head-size-wide sinusoidal table is modelled for encoder-only models "
                                             "of head size d/H")
        if self.head_width and self.tied_embeddings:
            raise InputError("head_width", "a masked-LM head of a width of its own has an untied decoder (a tied one "
                                           "is the token table's width)")
        if self.head_vocab_size is not None and (self.head != "lm" or self.tied_embeddings or self.embedding_size
                                                 or self.tables_width or self.head_vocab_size > self.vocab_size):
            raise InputError("head_vocab_size", f"an LM head of its own {self.head_vocab_size} rows is modelled "
                                                f"untied, d wide, at most the {self.vocab_size} rows of the table")
        if self.contact_head and (self.encoder or self.shared_groups is not None):
            raise InputError("contact_head", "ESM's contact-prediction head is modelled for encoder-only models "
                                             "without shared groups")
        if self.mobilebert is not None and (
                self.encoder or self.first_layers or self.shared_groups is not None or self.tables_width
                or self.embedding_size or self.rotary_table or self.relative_table or self.relative_buckets
                or self.learned_positions is None or self.token_types is None or self.head not in ("mlm", "none")
                or (self.head == "mlm" and self.mobilebert.token_width > self.d_model)):
            raise InputError("mobilebert", "MobileBERT's layout is modelled as an encoder-only model of its own "
                                           "tables (learned positions, token types), blocks and masked-LM head or "
                                           "none, its token table at most d wide under a masked-LM head")
        if self.tables_projection_first and not self.tables_width:
            raise InputError("tables_projection_first", "needs tables_width (tables narrower than d_model)")
        spans = {_disentangled(b).span for _, b in self.named_blocks() if _disentangled(b) is not None}
        if spans and (len(spans) > 1 or self.relative_table != 2 * spans.pop() or self.encoder):
            raise InputError("relative_table", "disentangled attention reads a relative table of 2S rows "
                                               "(S: the blocks' span, the same in every block), encoder-only")
        if self.relative_table and not any(_disentangled(b) for _, b in self.named_blocks()):
            raise InputError("relative_table", "a relative table needs blocks with disentangled attention")
        sizes = {b.per_layer_input_size for _, b in self.named_blocks()}
        if self.per_layer_inputs is not None and (sizes != {self.per_layer_inputs.size} or self.encoder
                                                  or self.shared_groups is not None):
            raise InputError("per_layer_inputs", "per-layer embeddings feed every block of a decoder-only model: "
                                                 "each block's per_layer_input_size must be their size")
        if any(b.kv_shared for _, b in self.named_blocks()):
            if self.encoder or self.shared_groups is not None:
                raise InputError("block.mixer.kv_source", "keys and values shared across layers are modelled in "
                                                          "decoder-only models")
            blocks = self.decoder_blocks()
            for i, b in enumerate(blocks):
                source_at = b.mixer.kv_source if b.kv_shared else None
                source = blocks[source_at] if source_at is not None and source_at < i else None
                if source_at is not None and (source is None or source.kv_shared
                                              or getattr(source.mixer, "head_size", None) != b.mixer.head_size):
                    raise InputError("block.mixer.kv_source", f"layer {i} reads the keys and values of layer "
                                                              f"{source_at}, which must be an earlier layer making its "
                                                              "own, of the same head size")
        if len({_streams(b) for _, b in self.named_blocks()}) > 1 or (
                _streams(self.block) and (self.encoder or self.shared_groups is not None)):
            raise InputError("block.hyper.streams", "hyper-connections run through every block of a decoder-only "
                                                    "model: the same streams in each block")
        streams = {b.altup_inputs for _, b in self.named_blocks()}
        if streams != {self.altup_streams} or (self.altup_streams and (self.encoder or self.shared_groups)):
            raise InputError("altup_streams", "AltUp's streams run through every block of a decoder-only model: each "
                                              "block's altup_inputs must be altup_streams")
        if self.per_layer_inputs is None and sizes != {None}:
            raise InputError("block.per_layer_input_size", "blocks with per-layer inputs need per_layer_inputs")
        if self.stack_token_tables and not self.encoder:
            raise InputError("stack_token_tables", "only an encoder-decoder model has stacks with tables of their own")
        if self.decoder_token_table and (not self.encoder or self.stack_token_tables):
            raise InputError("decoder_token_table", "a decoder table of its own belongs to an encoder-decoder model "
                                                    "without stack_token_tables")
        return self

    def named_blocks(self):
        yield "block", self.block
        for i, group in enumerate(self.first_layers):
            yield f"first_layers[{i}].block", group.block
        if self.encoder:
            yield "encoder.block", self.encoder.block
            for i, group in enumerate(self.encoder.first_layers):
                yield f"encoder.first_layers[{i}].block", group.block

    @property
    def total_layers(self) -> int:
        """Blocks run per sequence (ALBERT: layers × blocks per group)."""
        return self.layers * self.group_blocks + (self.encoder.layers if self.encoder else 0)

    @property
    def vocabulary_params(self) -> int:
        """Token embedding, learned position and token-type tables and an untied output matrix (RemBERT's: V × O, its
        decoupled output embedding): Kaplan's "embedding" parameters."""
        matrices = (2 if self.head == "lm" and not self.tied_embeddings else 1) + 2 * self.stack_token_tables \
            + self.decoder_token_table
        rows = (self.learned_positions or 0) + (self.token_types or 0)
        rotary = (self.rotary_table or 0) * (self.d_model // _heads(self.block))
        ple = self.per_layer_inputs  # Gemma 4's per-layer table: V_p rows of layers·P
        per_layer = ple.vocab_size * self.layers * ple.size if ple is not None else 0
        if self.head == "mlm":  # RemBERT's output embedding
            per_layer += self.vocab_size * (self.head_width or 0)
        if self.head_vocab_size is not None:  # Apertus 1.5's pruned head: O rows, not V
            per_layer -= (self.vocab_size - self.head_vocab_size) * self.d_model
        if self.encoder:
            rows += self.encoder.learned_positions or 0
        if self.mobilebert is not None:  # the E-wide token table; a tied head's d − E rows of its own
            width = self.mobilebert.token_width
            own = self.vocab_size * (self.d_model - width) if self.head == "mlm" else 0
            untied = self.vocab_size * width if self.head == "mlm" and not self.tied_embeddings else 0
            return self.vocab_size * width + own + untied + rows * self.d_model
        if self.tables_width:
            return (matrices * self.vocab_size + rows) * self.tables_width + per_layer + rotary
        return (matrices * self.vocab_size * (self.embedding_size or self.d_model) + rows * self.d_model + per_layer
                + rotary)

    def _stack_start(self, positions, token_types, norm, buckets, heads, depth=1, tables=None) -> list:
        layers = []
        if positions:
            layers.append(PositionEmbedding(max_positions=positions))
        if token_types:
            layers.append(TokenTypeEmbedding(types=token_types))
        if norm:  # a LayerNorm with β where the blocks' norms have one (ModernBERT's have none)
            layers.append(LayerNorm(bias=self.block.norms.bias))
        if buckets:
            tables = tables or (depth if self.relative_bias_each_layer else 1)
            layers.append(RelativePositionBias(buckets=buckets, heads=heads, tables=tables))
        return layers

    def decoder_blocks(self, memory: int | None = None) -> list[TransformerBlock]:
        """The decoder's blocks in order (cross-attending ``memory`` encoder positions, if any)."""
        if self.shared_groups is not None:  # AlbertTransformer: group ⌊i / (L/G)⌋ for layer i (transformers' float)
            shared = self.block.model_copy(update={"shared_weights": True})
            seen: set[tuple[int, int]] = set()
            blocks = []
            for i in range(self.layers):
                group = int(i / (self.layers / self.shared_groups))
                for j in range(self.group_blocks):
                    blocks.append(shared if (group, j) in seen else self.block)
                    seen.add((group, j))
            return blocks
        blocks = _in_order(self.layers, self.block, self.first_layers)
        if memory:
            blocks = [block.model_copy(update={"cross_attention_length": memory}) for block in blocks]
        return blocks

    def architecture(self, seq_len: int, decoder_seq_len: int | None = None) -> Architecture:
        """This model's layers for sequences of ``seq_len`` tokens (encoder–decoder: ``seq_len`` encoder and
        ``decoder_seq_len``, default ``seq_len``, decoder tokens): the engine's detailed count."""
        mobile = self.mobilebert
        if mobile is not None:  # MobileBERT: its own embeddings and bottleneck blocks, then the head below
            layers: list = [Embedding(vocab_size=self.vocab_size, dim=mobile.token_width),
                            MobileBertEmbeddings(d_model=self.d_model, trigram=mobile.trigram,
                                                 max_positions=self.learned_positions, types=self.token_types,
                                                 norm=mobile.norm)]
            layers += [mobile.block] * self.layers
            return Architecture(input=InputSpec(shape=[1], sequence_length=seq_len),
                                layers=layers + self._head_layers())
        layers = [Embedding(vocab_size=self.vocab_size,
                            dim=self.embedding_size or self.tables_width or self.d_model)]
        if self.embedding_size:  # OPT's project_in
            layers.append(Dense(units=self.d_model, bias=False))
        memory = None
        if self.encoder:
            enc = self.encoder
            if self.stack_token_tables:  # the first table is the encoder's own; this one is `shared`
                layers.append(SpareTokenTable(vocab_size=self.vocab_size))
            layers += self._stack_start(enc.learned_positions, None, enc.embedding_norm, enc.relative_buckets,
                                        _heads(enc.block), enc.layers, enc.relative_bias_tables)
            layers += _in_order(enc.layers, enc.block, enc.first_layers)
            if enc.final_norm:
                layers.append(_norm_layer(enc.block))
            layers.append(DecoderInput(length=decoder_seq_len or seq_len,
                                       vocab_size=self.vocab_size if self.stack_token_tables
                                       or self.decoder_token_table else None))
            memory = seq_len
        projection_first = self.tables_width and self.tables_projection_first
        layers += self._stack_start(self.learned_positions, self.token_types,
                                    self.embedding_norm and not projection_first, self.relative_buckets,
                                    _heads(self.block), self.layers)
        if projection_first:  # DeBERTa's embed_proj E→d (no bias), then the norm
            layers.append(Dense(units=self.d_model, bias=False))
            if self.embedding_norm:
                layers.append(LayerNorm(bias=self.block.norms.bias))
        elif self.tables_width:  # ELECTRA's embeddings_project E→d
            layers.append(Dense(units=self.d_model))
        if self.rotary_table:  # RoFormer's embed_positions
            layers.append(PositionEmbedding(max_positions=self.rotary_table, width=self.d_model // _heads(self.block),
                                            frozen=True))
        if self.relative_table or self.relative_table_norm:
            layers.append(RelativePositionTable(rows=self.relative_table, norm=self.relative_table_norm))
        altup = [Dense(units=self.d_model, bias=False, name=f"AltUp projection into stream {i + 1}")
                 for i in range(1, self.altup_streams or 1)]
        layers += altup
        if self.per_layer_inputs is not None:
            layers.append(PerLayerEmbeddings(vocab_size=self.per_layer_inputs.vocab_size, blocks=self.layers,
                                             size=self.per_layer_inputs.size))
        layers += self.decoder_blocks(memory)
        layers += [d.model_copy(update={"name": f"AltUp projection out of stream {i + 2}"})
                   for i, d in enumerate(altup)]  # back from the other streams; the streams' mean is no matmul
        if _streams(self.block):  # DeepSeek-V4: the streams collapsed into one before the final norm
            layers.append(HyperHead(streams=_streams(self.block)))
        final_norm = self.final_norm if self.final_norm is not None else self.block.norms.position != "post"
        if final_norm:
            layers.append(_norm_layer(self.block))
        if self.contact_head:  # EsmModel's contact_head: held, run only by predict_contacts
            layers.append(ContactHead(maps=self.layers * _heads(self.block)))
        if self.embedding_size:  # OPT's project_out
            layers.append(Dense(units=self.embedding_size, bias=False))
        return Architecture(input=InputSpec(shape=[1], sequence_length=seq_len), layers=layers + self._head_layers())

    def _head_layers(self) -> list:
        """The head on the last hidden states, and the pooler."""
        layers = []
        if self.head == "lm":
            layers.append(LMHead(vocab_size=self.head_vocab_size or self.vocab_size, tied=self.tied_embeddings,
                                 bias=self.head_bias))
        elif self.head == "mlm":  # BertLMPredictionHead: dense d→d (→E), activation, LayerNorm, decoder (+ bias)
            layers += [Dense(units=self.head_width or self.tables_width or self.d_model, bias=self.head_dense_bias),
                       Activation(function=self.head_activation or _activation(self.block)),
                       LayerNorm(bias=self.block.norms.bias),
                       LMHead(vocab_size=self.vocab_size, tied=self.tied_embeddings, bias=self.decoder_bias,
                              own_rows=(self.d_model - self.mobilebert.token_width or None)
                              if self.mobilebert is not None and self.tied_embeddings else None)]
        elif self.head == "discriminator":  # ElectraDiscriminatorPredictions: a real/replaced logit per position
            layers += [Dense(units=self.d_model), Activation(function=_activation(self.block)), Dense(units=1)]
        if self.pooler:
            layers.append(Pooler())
        return layers

    def sequence_length(self, seq_len: int | None = None, decoder_seq_len: int | None = None) -> int:
        """T for training: ``seq_len``, or else the context length; within the learned position tables."""
        seq_len = seq_len or self.context_length
        if seq_len is None:
            raise InputError("seq_len", "the config gives no context length (n_positions, "
                                        "max_position_embeddings); give the training sequence length")
        encoder_positions = self.encoder.learned_positions if self.encoder else (self.learned_positions
                                                                                 or self.rotary_table)
        if encoder_positions and seq_len > encoder_positions:
            raise InputError("seq_len", f"{seq_len} is longer than the model's {encoder_positions} "
                                        "learned positions")
        if decoder_seq_len is not None and not self.encoder:
            raise InputError("decoder_seq_len", "only an encoder-decoder model has a separate decoder length")
        if self.encoder and self.learned_positions and (decoder_seq_len or seq_len) > self.learned_positions:
            raise InputError("decoder_seq_len", f"{decoder_seq_len or seq_len} is longer than the decoder's "
                                                f"{self.learned_positions} learned positions")
        return seq_len

    def scenario_data(self, tokens: float, seq_len: int | None = None, name: str = "",
                      decoder_seq_len: int | None = None) -> dict:
        """A method-1 scenario's JSON data: these layers, trained on ``tokens`` in sequences of T =
        ``sequence_length``, i.e. tokens / T examples (encoder–decoder: T encoder tokens per example)."""
        seq_len = self.sequence_length(seq_len, decoder_seq_len)
        arch = self.architecture(seq_len, decoder_seq_len)
        training = parse_input(TrainingSetup, {"examples": tokens / seq_len}, source="training")
        return {"name": name, **arch.model_dump(mode="json"), "training": training.model_dump(mode="json")}


def validate_transformer_config(data: object, source: str = "config",
                                key_of: dict[str, str] | None = None) -> TransformerConfig:
    """Validate normalised fields; an error names the field, or the config key it came from (``key_of``)."""
    if not isinstance(data, dict):
        raise InputError(source, f"expected a JSON object {{ … }}, got {json_type(data)}")
    return parse_input(TransformerConfig, _parts(data), source=source, key_of=key_of)


def read_hf_config(data: object, source: str = "config", lenient: bool = False) -> TransformerConfig:
    """A Hugging Face ``config.json`` (decoded) → ``TransformerConfig``; ``InputError`` naming the key.
    Keys nothing in transformers reads for the family are listed in ``unused_keys``; ``lenient``: keys
    transformers reads and the reader does not are listed in ``ignored_keys`` instead of refused."""
    from .families import read_family

    if not isinstance(data, dict):
        raise InputError(source, f"expected a JSON object {{ … }}, got {json_type(data)}")
    fields, key_of = read_family(data, source, lenient)
    flat = {"block": fields.get("block"),
            "encoder.block": (fields.get("encoder") or {}).get("block") if isinstance(fields.get("encoder"), dict)
            else None}
    return validate_transformer_config(fields, source, key_of_parts(key_of, {k: v for k, v in flat.items()
                                                                            if isinstance(v, dict)}))


def load_hf_config_text(text: str | bytes, source: str = "config", lenient: bool = False) -> TransformerConfig:
    """JSON text (a file, an upload) → ``TransformerConfig``."""
    return read_hf_config(parse_json_text(text, source, MAX_CONFIG_BYTES), source, lenient)
