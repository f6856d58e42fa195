"""The pieces every part's rows are made of: a projection as a row of the block's data flow (``linear``), a row
run by experts (``scaled``), and the query–key pairs a causal mask keeps (``unmasked_pairs``)."""
from __future__ import annotations

from ..layers import Part
from ..ops import dense_cost

NO_GRAD = "indexer input (no gradient)"
"""What an indexer reads: the block's h and query latent, detached (``torch.no_grad``)."""


def unmasked_pairs(length: int, window: int | None = None) -> int:
    """Query–key pairs a causal mask keeps: query i sees keys max(0, i − W + 1) … i, i.e. min(i + 1, W) of
    them; Σ = L(L+1)/2 without a window (or W ≥ L), W(W+1)/2 + (L − W)·W with one."""
    if window is None or window >= length:
        return length * (length + 1) // 2
    return window * (window + 1) // 2 + (length - window) * window


def linear(name: str, n_in: int, n_out: int, bias: bool, positions: int, extra_flop: int = 0, *,
           src: tuple[str, ...] = ("h",), dst: tuple[str, ...] = ("x",), also: tuple[str, ...] = (),
           role: str = "") -> Part:
    """A projection N→M at each of ``positions``, costed as the ``Dense`` kind costs it; ``src``, ``dst``,
    ``also`` and ``role`` place it in the block's data flow (``engine.method1.backward.parts_grad``)."""
    params, macs, bias_adds = dense_cost(n_in, n_out, bias)
    return Part(name, params, positions * macs, positions * bias_adds + extra_flop, None, "linear", src, dst, also,
                False, 0, role, (n_in, n_out, positions))


def scaled(part: Part, copies: int, active: int) -> Part:
    """``copies`` experts of which ``active`` run: params × E, active params × k."""
    return part._replace(params=copies * part.params, active_params=active * part.params,
                         role=f"experts {part.role}")
