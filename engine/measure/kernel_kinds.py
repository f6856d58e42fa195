"""What a GPU event is, from its category and its name: the three readings the breakdowns use.

- ``step_class`` — a profiled step's breakdown, TraceLens's rule (``TraceLens/TreePerf/gpu_event_analyser.py``):
  ``gpu_memcpy`` and ROCm 7.1's rocclr copy kernels are memory copies; a kernel or memset whose name holds
  ``nccl``, ``rccl`` or ``cross_device_reduce`` (any case) is communication; every other kernel and memset is
  computation.
- ``hta_class`` — the whole trace, HTA 0.5.0's rule (``hta/utils/utils.py``): communication ``^nccl.*Kernel``;
  memory ``^Memcpy|^Memset|^dma``; computation what matches none of ``^nccl.*Kernel``, ``.*Memcpy``, ``^Memset``,
  ``.*Sync``; the rest "other" (non-compute).
- ``compute_family`` — within computation, what kind of arithmetic a kernel runs, from its name (used where no
  operator launched it): matrix product, attention, convolution, normalisation, element-wise/other.
"""
from __future__ import annotations

import functools
import re

COMPUTE, COMMUNICATION, MEMCPY = "computation", "communication", "memcpy"

_COMM = re.compile(r"nccl|rccl|cross_device_reduce", re.IGNORECASE)
_ROCM_COPY = re.compile(r"^(MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)"
                        r"|__amd_rocclr_copyBuffer(Rect)?(Aligned)?)(\.kd)?$")


def step_class(kind: int, name: str) -> str:
    """TraceLens's class of a GPU event (``kind``: 0 kernel, 1 memcpy, 2 memset)."""
    if kind == 1 or (kind == 0 and _ROCM_COPY.match(name)):
        return MEMCPY
    if _found(name, _COMM):
        return COMMUNICATION
    return COMPUTE


def _words(pattern: re.Pattern) -> tuple[str, ...]:
    """The literal words of a case-insensitive pattern that is only ``word|word|…``, lower-cased."""
    words = tuple(pattern.pattern.lower().split("|"))
    assert all(re.fullmatch(r"\w+", w) for w in words), pattern.pattern
    return words


def _found(name: str, pattern: re.Pattern) -> bool:
    """``pattern.search(name)`` for a case-insensitive ``word|word|…`` pattern: on ASCII text a substring test of
    the lower-cased name (what the pattern matches there, several times faster on long kernel names); the
    pattern itself on any other text (Unicode case rules)."""
    if name.isascii():
        low = name.lower()
        return any(w in low for w in _WORDS[pattern])
    return pattern.search(name) is not None


_HTA_COMM = re.compile(r"^nccl.*Kernel")
_HTA_MEMORY = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
_HTA_NOT_COMPUTE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")


@functools.lru_cache(maxsize=8192)
def hta_class(name: str) -> str:
    """HTA's kernel type: COMMUNICATION, MEMORY, COMPUTATION or OTHER."""
    if _HTA_COMM.match(name):
        return "COMMUNICATION"
    if _HTA_MEMORY.match(name):
        return "MEMORY"
    if not _HTA_NOT_COMPUTE.match(name):
        return "COMPUTATION"
    return "OTHER"


FAMILIES = ("matrix products", "attention", "convolution", "normalisation", "element-wise & other")
_FAMILY_PATTERNS = (
    ("attention", re.compile(r"flash|fmha|attn|attention|sdpa", re.IGNORECASE)),
    ("convolution", re.compile(r"conv|fprop|dgrad|wgrad|winograd|implicit_gemm|miopen", re.IGNORECASE)),
    ("matrix products", re.compile(r"gemm|xmma|cutlass|Cijk|nvjet|cublas|hipblas|wmma|mfma|_mm_|matmul",
                                   re.IGNORECASE)),
    ("normalisation", re.compile(r"norm", re.IGNORECASE)),
)


_WORDS = {p: _words(p) for p in (_COMM, *(p for _, p in _FAMILY_PATTERNS))}


@functools.lru_cache(maxsize=8192)
def compute_family(name: str) -> str:
    """The kind of arithmetic a computation kernel runs, read from its name (the first family whose pattern
    matches: attention, convolution, matrix products, normalisation; else element-wise & other)."""
    for family, pattern in _FAMILY_PATTERNS:
        if _found(name, pattern):
            return family
    return "element-wise & other"


def looks_like_matrix_product(name: str) -> bool:
    """A kernel whose name says it multiplies matrices (a GEMM, attention or convolution library kernel)."""
    return compute_family(name) in ("matrix products", "attention", "convolution")
