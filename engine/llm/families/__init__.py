"""Each language-model family's ``config.json`` keys → ``TransformerConfig`` fields: one reader per ``model_type``,
written from the family's ``transformers`` modelling code (the class the config's ``architectures`` names, head
included), registered by ``@register`` in its lineage's module (``registry``). The lineage modules stand side by
side: each imports only the shared pieces (``parts``, ``keys``) and the registry, never another lineage.

Adding a family: its reader in its lineage's module (or a new module, imported and listed in ``LINEAGES`` here) under
``@register(model_type, classes)``; a type transformers reads with another family's code: ``register_alias``.
"""
from __future__ import annotations

from . import (  # each lineage registers its families when imported
    bart,
    bert,
    cohere,
    deepseek,
    deltanet,
    encoders,
    experts,
    falcon,
    gemma,
    glm,
    gpt,
    granite,
    latent,
    lfm,
    llama,
    mamba,
    minimax,
    olmo,
    phi,
    qwen,
    t5,
    zamba,
)
from .keys import KEYS_FILE, MAX_LAYERS, NEUTRAL_KEYS  # noqa: F401 (re-exported)
from .reading import (  # noqa: F401 (re-exported)
    WRAPPERS_FILE,
    family_of_class,
    multimodal_wrappers,
    read_family,
    wrappers_file,
)
from .registry import (  # noqa: F401
    FAMILIES,
    Family,
    register,
    register_alias,
    resolve_aliases,
)

LINEAGES = (gpt, llama, qwen, gemma, phi, falcon, olmo, cohere, granite, glm, experts, deepseek, latent, minimax, mamba,
            zamba, deltanet, lfm, bert, encoders, t5, bart)
"""The lineage modules (a module left out here registers nothing: ``tests/llm/test_registry.py`` finds it)."""

resolve_aliases()
