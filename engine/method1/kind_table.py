"""Where each layer kind is defined: its ``type`` → (module, class), so that an input imports only the modules of the
kinds it names (``engine.deferred.TaggedUnion``), as vLLM's model registry imports a model's module when it is asked
for. ``engine.method1.kinds`` checks this table against the kinds it registers: a kind missing here, or an entry
naming no kind, is refused when the kinds are imported (``tests/method1/test_registry.py``)."""

KIND_TABLE: dict[str, tuple[str, str]] = {
    # layers
    "dense": (".layers", "Dense"),
    "conv1d": (".layers", "Conv1d"),
    "conv2d": (".layers", "Conv2d"),
    "conv3d": (".layers", "Conv3d"),
    "conv_transpose2d": (".layers", "ConvTranspose2d"),
    "embedding": (".layers", "Embedding"),
    "layer_norm": (".layers", "LayerNorm"),
    "batch_norm": (".layers", "BatchNorm"),
    "activation": (".layers", "Activation"),
    "max_pool2d": (".layers", "MaxPool2d"),
    "avg_pool2d": (".layers", "AvgPool2d"),
    "flatten": (".layers", "Flatten"),
    "dropout": (".layers", "Dropout"),
    # sequence_layers
    "rnn": (".sequence_layers", "RNN"),
    "gru": (".sequence_layers", "GRU"),
    "lstm": (".sequence_layers", "LSTM"),
    "self_attention": (".sequence_layers", "SelfAttention"),
    "multi_head_attention": (".sequence_layers", "MultiHeadAttention"),
    # vision
    "adaptive_avg_pool2d": (".vision", "AdaptiveAvgPool2d"),
    "upsample": (".vision", "Upsample"),
    "to_tokens": (".vision", "ToTokens"),
    "class_token": (".vision", "ClassToken"),
    "token_select": (".vision", "TokenSelect"),
    "channel_split": (".vision", "ChannelSplit"),
    "channel_shuffle": (".vision", "ChannelShuffle"),
    "layer_scale": (".vision", "LayerScale"),
    "stochastic_depth": (".vision", "StochasticDepth"),
    # windows
    "window_attention": (".windows", "WindowAttention"),
    "patch_merging": (".windows", "PatchMerging"),
    # transformer.block
    "transformer_block": (".transformer.block", "TransformerBlock"),
    # transformer.model_layers
    "rms_norm": (".transformer.model_layers", "RMSNorm"),
    "hyper_head": (".transformer.model_layers", "HyperHead"),
    "position_embedding": (".transformer.model_layers", "PositionEmbedding"),
    "lm_head": (".transformer.model_layers", "LMHead"),
    "token_type_embedding": (".transformer.model_layers", "TokenTypeEmbedding"),
    "relative_position_bias": (".transformer.model_layers", "RelativePositionBias"),
    "decoder_input": (".transformer.model_layers", "DecoderInput"),
    "pooler": (".transformer.model_layers", "Pooler"),
    "spare_token_table": (".transformer.model_layers", "SpareTokenTable"),
    "relative_position_table": (".transformer.model_layers", "RelativePositionTable"),
    "per_layer_embeddings": (".transformer.model_layers", "PerLayerEmbeddings"),
    "contact_head": (".transformer.model_layers", "ContactHead"),
    # counted
    "counted": (".counted", "Counted"),
    # mobilebert
    "bottleneck_block": (".mobilebert", "BottleneckBlock"),
    "mobilebert_embeddings": (".mobilebert", "MobileBertEmbeddings"),
    # media
    "group_norm": (".media", "GroupNorm"),
    "conditioning_dense": (".media", "ConditioningDense"),
    "attention_core": (".media", "AttentionCore"),
    "tokens_to_grid": (".media", "TokensToGrid"),
    "gated_unit": (".media", "GatedUnit"),
    "stream_dense": (".media", "StreamDense"),
    "sequence_slice": (".media", "SequenceSlice"),
    "text_tokens": (".media", "TextTokens"),
    "context_tokens": (".media", "ContextTokens"),
    "attention_pool": (".media", "AttentionPool"),
    "merge_tokens": (".media", "MergeTokens"),
    "learned_values": (".media", "LearnedValues"),
    # frames
    "frame_resample": (".frames", "FrameResample"),
    "frame_conv": (".frames", "FrameConv"),
    # blocks
    "residual": (".blocks", "Residual"),
    "branches": (".blocks", "Branches"),
    "repeat": (".blocks", "Repeat"),
    "each": (".blocks", "Each"),
    "unused": (".blocks", "Unused"),
}
"""``type`` → (the module, relative to ``engine.method1``, and the class that defines it)."""
