"""Collectives between chips and what of them stays exposed, at η_net × a link's bandwidth (GB/s per chip and
direction, ``interconnects.json``).

- Ranks in Megatron's order (tensor, context, data, pipeline outermost): a group spanning ≤ the chips of a node
  talks over NVLink, else over the scale-out link (``group_gb_s``).
- A data-parallel reduction over n ranks spaced t apart (``dp_gb_s``): NVLink when the group fits in a node;
  else NCCL splits the operation over NVLink and runs one ring per NIC, so the node's g = min(n, N/t) members
  send through g NICs at once (NVIDIA/nccl issue 601): g × the scale-out link, at most NVLink.
- Ring all-reduce 2(n−1)/n × bytes / bandwidth (Patarasuk & Yuan 2009); a gather or a scatter half that.
- All-to-all over ep ranks (``all_to_all_s``): the in-node share on NVLink, the rest on the scale-out link, the
  slower of the two; DeepEP/HybridEP send a token once per other node it needs.
- Overlap: AsyncTP's gathers and scatters each under the product it feeds or comes from
  (``tp_overlap_exposed_s``), the interleaved pipeline's sends under the next chunk (``pipeline_sends_s``),
  ZeRO 3's gathers prefetched under compute (``zero3_exposed_s``), context parallelism's K/V ring under attention
  (``ring_exposed_s``).
"""
from __future__ import annotations

import math

GB = 1e9


def group_gb_s(span: int, intra_gb_s: float, inter_gb_s: float, chips_per_node: int) -> float:
    """A group of ``span`` consecutive ranks: NVLink within a node, else the scale-out link."""
    return intra_gb_s if span <= chips_per_node else inter_gb_s


def dp_gb_s(t: int, n_dp: int, intra_gb_s: float, inter_gb_s: float, chips_per_node: int) -> float:
    """Bandwidth per rank of a data-parallel reduction over n_dp ranks spaced t apart (the module's rule)."""
    if t * n_dp <= chips_per_node:
        return intra_gb_s
    return min(intra_gb_s, inter_gb_s * max(1, min(n_dp, chips_per_node // t)))


def all_reduce_s(nbytes: float, n: int, gb_s: float, eta: float) -> float:
    """Ring all-reduce of ``nbytes`` over n ranks: 2(n−1)/n × bytes / (η_net × link)."""
    return 2 * (n - 1) / n * nbytes / (gb_s * GB * eta) if n > 1 else 0.0


def remote_nodes_per_token(experts: int, top_k: int, ep: int, in_node: int) -> float:
    """Expected number of other nodes a token's top-k experts (uniform, distinct) fall on: each of the
    ⌈ep/in_node⌉ − 1 other nodes holds E·in_node/ep experts and is hit unless all k picks miss it,
    1 − C(E − E_node, k)/C(E, k)."""
    nodes = math.ceil(ep / in_node)
    on_node = experts * in_node // ep
    miss = math.comb(experts - on_node, top_k) / math.comb(experts, top_k) if experts - on_node >= top_k else 0.0
    return (nodes - 1) * (1 - miss)


def all_to_all_s(nbytes: float, ep: int, stride: int, intra_gb_s: float, inter_gb_s: float, chips_per_node: int,
                 eta: float, per_node: tuple[int, int] | None = None) -> float:
    """One all-to-all of ``nbytes`` per rank over ep ranks spaced ``stride`` apart: the in-node share on NVLink, the
    rest on the scale-out link, whichever takes longer. ``per_node`` = (E, k): DeepEP's and HybridEP's dispatchers
    send a token once to each other node it needs and fan it out there over NVLink (DeepEP's normal kernels;
    Hybrid-EP's RDMA buffer holds tokens × (nodes − 1) × hidden, DeepEP docs/Hybrid-EP_Implementation.md §4.2):
    the scale-out bytes are ``nbytes``/k × the expected other nodes per token (``remote_nodes_per_token``)."""
    if ep <= 1:
        return 0.0
    in_node = max(1, min(ep, chips_per_node // stride))
    near = (in_node - 1) / ep * nbytes / (intra_gb_s * GB * eta)
    far_bytes = (ep - in_node) / ep * nbytes
    if per_node is not None:
        experts, top_k = per_node
        far_bytes = nbytes / top_k * remote_nodes_per_token(experts, top_k, ep, in_node)
    return max(near, far_bytes / (inter_gb_s * GB * eta))


def pipeline_sends_s(send_s: float, v: int, m: int, fwd_stage: float, bwd_stage: float, overlap: bool) -> float:
    """The pipeline's activation and gradient sends, one each per micro-batch and model chunk (2·v·m of
    ``send_s``). With the interleaved schedule (v > 1) Megatron overlaps each with the next chunk's forward or
    backward (``--overlap-p2p-communication``, on by default there and forced off without interleaving:
    megatron/training/arguments.py); only what outlasts that chunk's compute (``fwd_stage``/v, ``bwd_stage``/v
    per micro-batch) is exposed."""
    if not (overlap and v > 1):
        return 2 * v * m * send_s
    return v * m * (max(0.0, send_s - fwd_stage / v) + max(0.0, send_s - bwd_stage / v))


def zero3_exposed_s(gather_s: float, scatter_s: float, fwd_stage: float, bwd_stage: float, blocks: float,
                    gather_in_backward: bool = True) -> float:
    """ZeRO 3 per micro-batch: a gather of the weights in the forward (G), another in the backward, and a
    reduce-scatter of the gradients (S: G in the reduction's dtype), each layer's prefetched under the previous
    layer's compute (DeepSpeed's overlap_comm, FSDP's forward/backward prefetch): exposed max(0, G − T_fwd) +
    max(0, G + S − T_bwd) + (G + S)/L, the first gather and the last scatter (Rajbhandari et al. 2020, §7.2.2: 1.5×
    an all-reduce's bytes). FSDP's SHARD_GRAD_OP (``gather_in_backward`` False): no gather in the backward."""
    back = (gather_s if gather_in_backward else 0.0) + scatter_s
    return max(0.0, gather_s - fwd_stage) + max(0.0, back - bwd_stage) + (gather_s + scatter_s) / max(blocks, 1)


def tp_overlap_exposed_s(collective_s: float, product_s: float, t: int) -> float:
    """A tensor-parallel gather (or scatter) of ``collective_s`` decomposed with its product (``product_s``) into t
    chunks, as AsyncTP does (PyTorch's micro-pipelined TP, ``fused_all_gather_matmul`` and
    ``fused_matmul_reduce_scatter``; Wang et al. 2022, "Overlap communication with dependent computation via
    decomposition"): the local chunk's product needs no transfer, each of the other t − 1 chunks' transfer runs under
    a chunk's product, so the pair takes g/t + max(g·(t − 1)/t, c) and max(0, c − g·(t − 1)/t) is exposed."""
    return max(0.0, collective_s - product_s * (t - 1) / t) if t > 1 else 0.0


def ring_exposed_s(kv_s: float, attention_s: float) -> float:
    """Context parallelism's ring per block: cp − 1 steps pass each rank's K and V chunk in the forward (``kv_s``)
    and K, V, dK, dV in the backward (2×), each under the attention it overlaps with; the excess is exposed."""
    return max(0.0, kv_s - attention_s) + max(0.0, 2 * kv_s - 2 * attention_s)
