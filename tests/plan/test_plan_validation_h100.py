"""Published H100 runs (NVIDIA NeMo / Megatron Bridge performance tables), apart from calibration: the dense
FP8 runs through the kernel model, joined to the A100 validation set; mixture-of-experts and context-parallel
runs outside its scope, reported with their error."""
from __future__ import annotations

import statistics

import pytest

from engine.plan.validation import table
from engine.plan.kernel_model import ETA_NETWORK, H100, kernel_step
from engine.plan.validation_h100 import BRIDGE_2602, BRIDGE_260201, MOE_MODEL, NEMO_2407, OUTSIDE, h100_table

# (GPUs, global batch, sequence, tokens/s/GPU) as the tables print them
PUBLISHED = {"Llama 2 7B": (8, 128, 4096, 16847), "Llama 2 70B": (64, 128, 4096, 1707),
             "GPT-3 175B": (128, 256, 2048, 726), "Llama 3 8B": (8, 128, 8192, 12036),
             "Llama 3 70B": (64, 128, 8192, 1533), "GPT-OSS 120B": (64, 1280, 4096, 5993),
             "Qwen3 30B-A3B": (16, 1024, 4096, 9058), "Qwen3 235B-A22B": (256, 8192, 4096, 1611),
             # the rest of NeMo 24.07's pre-training table (every row of it is in the set)
             "GPT-3 5B": (64, 2048, 2048, 22521), "GPT-3 20B": (64, 256, 2048, 5851),
             "GPT-3 175B, 512": (512, 2048, 2048, 782), "Llama 2 13B": (16, 128, 4096, 8646),
             "Nemotron 8B": (64, 256, 4096, 12701), "Nemotron 22B": (64, 256, 4096, 4256),
             "Nemotron-4 340B": (128, 32, 4096, 322)}


def test_published_step_times_are_the_tables_throughputs():
    for run in OUTSIDE:
        gpus, batch, seq, rate = next(v for k, v in sorted(PUBLISHED.items(), key=lambda kv: -len(kv[0]))
                                      if run.label.startswith(k + " ") or run.label.startswith(k + ","))
        assert (run.gpus, run.global_batch, run.seq, run.tokens_per_s_per_gpu) == (gpus, batch, seq, rate)
        assert run.published_s == pytest.approx(batch * seq / (rate * gpus))
    assert {r.source for r in OUTSIDE} == {NEMO_2407, BRIDGE_2602, BRIDGE_260201}
    # Llama 2 7B: 128 × 4,096 tokens at 16,847 tokens/s on each of 8 GPUs = 3.89 s
    assert OUTSIDE[0].published_s == pytest.approx(3.890, abs=0.001)


def test_dense_fp8_h100_runs_meet_the_target_with_the_a100_validation_set():
    rows = h100_table()
    dense = [r for r in rows if r.step_model == "kernel model" and "context parallel" not in r.case]
    assert len(dense) == 10  # every row of NeMo 24.07's pre-training table without context parallelism
    # measured here (Llama 2 7B, 70B, GPT-3 175B on 128, GPT-3 5B, 20B, 175B on 512, Llama 2 13B, Nemotron 8B,
    # 22B, 340B): before the data-parallel ring used one NIC per node member, FP8 its measured rate and the
    # interleaved schedule's sends overlapped compute, the first three were −10.7%, +10.6%, −3.5% and GPT-3 20B
    # (pure data parallel over 8 nodes) +50.9%; Llama 2 70B was +13.1% and Nemotron 22B −1.0% with the sends
    # exposed (0.57 s and 0.43 s of them); before the casts into FP8 were timed: −5.1%, +1.1%, −5.2%, −16.5%,
    # −0.1%, −1.3%, −9.3%, −5.0%, −12.1%, +5.1%
    assert [100 * r.error for r in dense] == pytest.approx(
        [-0.3, 5.0, -2.2, -11.7, 4.2, 1.8, -5.5, -0.4, -9.4, 8.1], abs=0.3)
    assert [100 * r.previous_error for r in dense] == pytest.approx(
        [-42.6, 8.2, -13.9, -33.3, 15.8, -9.6, -30.3, -21.3, -33.9, 8.1], abs=0.3)
    errors = [abs(r.error) for r in dense] + [abs(r.error) for r in table("validation")]
    # 18 runs: median 3.8%, worst −11.7% (GPT-3 5B; 4.4% and −16.5% without the casts)
    assert statistics.median(errors) <= 0.05, errors
    assert max(errors) == pytest.approx(0.117, abs=0.003) and max(errors) <= 0.12


def test_context_parallel_runs_are_planned_with_a_cp_degree():
    from engine.plan.validation_h100 import kernel_with_cp, plan_for

    rows = {r.case: r for r in h100_table()}
    cp = [r for c, r in rows.items() if "context parallel" in c]
    assert len(cp) == 2 and all(r.step_model == "kernel model" for r in cp)  # through the plan's layout (cp 2)
    # measured here: Llama 3 8B (CP 2) −3.1% (−7.5% before FP8 ran at its measured rate), Llama 3 70B (t 4,
    # p 4, v 5, CP 2) +8.1% (+6.9% before, +10.7% with FP8's rate and its sends exposed); with the casts into FP8
    # +0.5% and +11.5%; the constant-efficiency
    # model, which splits the compute c ways and counts no key/value exchange: −49.1%, −25.0%
    assert [100 * r.error for r in cp] == pytest.approx([0.5, 11.5], abs=0.3)
    assert [100 * r.previous_error for r in cp] == pytest.approx([-49.1, -25.0], abs=0.3)
    for run in (r for r in OUTSIDE if r.cp > 1):
        plan = plan_for(run)
        assert plan.layout.cp == 2 and plan.layout.chips == run.gpus  # d = GPUs / (t·p·c)
        assert plan.step.step_s == pytest.approx(kernel_with_cp(run), rel=1e-9)  # the kernel model called directly
    dense = [abs(r.error) for r in rows.values() if r.step_model == "kernel model"]
    dense += [abs(r.error) for r in table("validation")]
    # the 20 dense runs meet the target: median 3.8%, worst 11.7% (4.4% and 16.5% without the casts into FP8)
    assert len(dense) == 20 and statistics.median(dense) <= 0.05 and max(dense) <= 0.12
    assert statistics.median(dense) == pytest.approx(0.038, abs=0.003)
    # with the three mixtures of experts (23 runs): median 3.9% (5.0% without the casts), worst 28.1% (GPT-OSS
    # 120B, BF16: no cast) — outside 12% (16 runs before NeMo's table was taken whole: median 5.4%)
    everything = dense + [abs(r.error) for r in rows.values() if r.step_model == MOE_MODEL]
    assert len(everything) == 23 and statistics.median(everything) <= 0.05
    assert statistics.median(everything) == pytest.approx(0.0387, abs=0.0005)
    assert max(everything) == pytest.approx(0.281, abs=0.003)


def test_the_ring_exchange_is_exposed_only_where_attention_cannot_hide_it():
    # 2 ranks, one layer (h 1,024, 8 heads), s 4,096: each rank sends its K and V chunk once forward
    # (2 × 2,048 × 1,024 × 2 bytes) and K, V, dK, dV backward (twice that); over a 1 MB/s link
    # (× η_net) the attention time is negligible beside it
    args = dict(layers=1, h=1024, a=8, s=4096, vocab=0, params=1e6, t=1, p=1, d=1, b=1, global_batch=1,
                recompute="none", chips_per_node=8)
    slow = kernel_step(H100, cp=2, intra_gb_s=1e-3, **args)
    kv_bytes = 2 * 2048 * 1024 * 2
    assert slow.cp_comm_s == pytest.approx(3 * kv_bytes / (1e6 * ETA_NETWORK), rel=1e-3)
    assert slow.chips == 2
    assert kernel_step(H100, cp=2, intra_gb_s=450, **args).cp_comm_s == 0  # NVLink: hidden under attention


def test_moe_runs_through_the_expert_kernel_model_with_their_errors():
    rows = [r for r in h100_table() if "MoE" in r.case]
    assert len(rows) == 3 and all(r.step_model == MOE_MODEL for r in rows)
    # measured here: GPT-OSS 120B −28.1% (−27.8% before its data-parallel gradients used each node's NICs in
    # parallel), Qwen3 30B-A3B −23.3% (−27.2% before its casts into FP8 were timed, −22.4% with the sends between
    # its two stages exposed, −24.1% before FP8 ran at its measured rate), Qwen3 235B-A22B −1.1% (−3.9% without
    # the casts; +11.6% while its
    # expert-parallel group was taken as 32 ranks spaced t = 2 apart, 4 per node instead of Megatron-Core's 8
    # consecutive ones; the constant-efficiency model: −63.0%, −78.1%, and no layout for experts folded over
    # tensor-parallel ranks); reported, not tuned
    assert [100 * r.error for r in rows] == pytest.approx([-28.1, -23.3, -1.1], abs=0.3)
    assert [r.previous_error and 100 * r.previous_error for r in rows] == pytest.approx([-63.0, -78.1, None],
                                                                                        abs=0.3)


def test_expert_all_to_all_and_per_expert_gemms_by_formula():
    from engine.plan.kernel_model import gemm_s
    from engine.plan.kernel_moe import all_to_all_s, moe_step_s, window_keys

    # all-to-all by formula: 2 ranks (ep 2), 1 block, b·s = 1,024 tokens, k 2, h 512: dispatch + combine
    # forward and their two backward, each 1,024 × 2 × 512 × 2 bytes × 1/2, over NVLink (450 GB/s × η_net)
    args = dict(layers=1, h=512, heads=8, kv_heads=8, head_dim=64, s=1024, vocab=0, dense_params=1e6,
                expert_params=1e6, experts=4, top_k=2, f=1024, p=1, d=2, ep=2, b=1, global_batch=2)
    parts = moe_step_s(H100, **args)
    assert parts["all_to_all_s"] == pytest.approx(4 * 1024 * 2 * 512 * 2 / 2 / (450e9 * ETA_NETWORK))
    assert parts["step_s"] == pytest.approx(sum(v for k, v in parts.items() if k != "step_s"))
    # 16 ranks, 8 per node: 7/16 of the bytes on NVLink, 8/16 between nodes (50 GB/s) — the slower counts
    assert all_to_all_s(1e9, 16, 1, 450, 50, 8) == pytest.approx(8 / 16 * 1e9 / (50e9 * ETA_NETWORK))
    # attention split t = 2 ways does not spread the expert group: Megatron-Core's expert ranks are ordered
    # tp-cp-ep-dp-pp with tp = the expert tensor-parallel size (1), so ep 16 is 16 consecutive ranks, 8 per
    # node: each of the 4 all-to-alls moves b·s/t = 512 tokens × k 2 × h 512 × 2 bytes, 8/16 of it between
    # nodes (ranks spaced 2 apart would put 12/16 there)
    folded = moe_step_s(H100, **dict(args, t=2, ep=16, d=16, experts=16, global_batch=16))
    assert folded["all_to_all_s"] == pytest.approx(4 * 512 * 2 * 512 * 2 * 8 / 16 / (50e9 * ETA_NETWORK))
    # each local expert is its own GEMM: 2 local experts of 1,024 tokens (4,096 × 2 × 2 / 4 × ... balanced)
    one = gemm_s(H100, 1024, 2048, 512) + gemm_s(H100, 1024, 512, 1024)
    bigger = moe_step_s(H100, **dict(args, f=2048))["gemm_s"] - parts["gemm_s"]
    assert bigger > 0 and one > 0
    # a 128-position window reads ⌈128/128⌉ + 1 = 2 tiles of 128 keys; a window wider than s reads s
    assert window_keys(4096, 128) == 256 and window_keys(1024, 4096) == 1024 and window_keys(4096, 0) == 4096



def test_expert_casts_into_fp8_by_formula():
    """FP8 (q = 1 byte) in the expert model: forward, QKV's input leaves the norm in FP8 and is transposed
    (2 − 1/t per element of h) and the projection's (H·d_h), the experts' FC1 (h) and FC2 (f) inputs are
    cast-transposed (2 + 2 = 4); backward, every output gradient (QKV (H + 2·H_kv)·d_h, projection h, FC1 2f
    gated, FC2 h) 4; the rank's weights once a step (4 bytes each): the 1e6 dense ones and half the 1e6 experts'."""
    from dataclasses import replace

    from engine.plan.kernel_moe import moe_step_s

    args = dict(layers=1, h=512, heads=8, kv_heads=8, head_dim=64, s=1024, vocab=0, dense_params=1e6,
                expert_params=1e6, experts=4, top_k=2, f=1024, p=1, d=2, ep=2, b=1, global_batch=2)
    plain = moe_step_s(H100, gemm_chip=H100, **args)
    fp8 = moe_step_s(H100, gemm_chip=replace(H100, quantized_bytes=1.0), **args)
    tokens, routed = 1024, 1024 * 2  # b·s per rank, and k = 2 routed copies of each (t = 1)
    forward = tokens * ((2 - 1) * 512 + 4 * 512) + routed * 4 * (512 + 1024)
    backward = tokens * 4 * (3 * 512 + 512) + routed * 4 * (2 * 1024 + 512)
    expected = (forward + backward + 4 * (1e6 + 1e6 / 2)) / (0.85 * 3350e9)  # one micro-batch
    assert fp8["memory_bound_s"] - plain["memory_bound_s"] == pytest.approx(expected, rel=1e-9)
    assert fp8["gemm_s"] == pytest.approx(plain["gemm_s"])


def test_moe_plans_take_the_kernel_model_and_say_so():
    from engine.plan.validation_h100 import plan_for, plan_model_of

    gpt_oss = next(r for r in OUTSIDE if r.label.startswith("GPT-OSS"))
    plan = plan_for(gpt_oss)
    assert plan.step.model == "kernel model" and plan.kernel is not None
    assert plan.step.ep_comm_s == pytest.approx(plan.kernel.ep_comm_s) and plan.step.ep_comm_s > 0
    assert plan.step.step_s == pytest.approx(plan.kernel.step_s)
    assert any("experts" in n for n in plan.step.notes)
    # the plan (the config's 18 sliding-window blocks, no recomputation) against the published 13.67 s
    assert (plan_model_of(gpt_oss).window, plan_model_of(gpt_oss).windowed_blocks) == (128, 18)
    assert 100 * (plan.step.step_s / gpt_oss.published_s - 1) == pytest.approx(-28.9, abs=0.3)


def test_an_all_to_all_bound_qwen3_run_apart_from_validation():
    """Megatron Bridge's notes (skills/nemo-mbridge-perf-moe-dispatcher-selection): Qwen3 30B-A3B in BF16 on
    16 H100, t 1, p 1, e 16, global batch 1,024, the all-to-all dispatcher, no overlap, permutation fusion off:
    45.65 s per step (41.36 s in the CUDA-graph A/B of skills/nemo-mbridge-perf-cuda-graphs). A check the
    docs quote, used by no figure: the model gives 41.08 s, 22.0 s of it the all-to-all (8 of 16 peers in
    the other node, 50 GB/s × η_net)."""
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel_moe import moe_step_s
    from engine.plan.validation_h100 import plan_model_of

    m = plan_model_of(next(r for r in OUTSIDE if r.label.startswith("Qwen3 30B")))
    link = interconnect_for("nvidia-h100-sxm")
    parts = moe_step_s(H100, layers=m.blocks, h=m.d_model, heads=m.heads, kv_heads=m.kv_heads,
                       head_dim=m.attention_width // m.heads, s=4096, vocab=m.vocab, dense_params=m.dense_params,
                       expert_params=m.expert_params, experts=m.experts, top_k=m.active_experts, f=m.ff_size, p=1,
                       d=16, ep=16, b=1, global_batch=1024, t=1, intra_gb_s=link.intra_gb_s,
                       inter_gb_s=link.inter_gb_s, chips_per_node=link.chips_per_node, gated=m.gated)
    # 64 micro-batches × 48 blocks × 4 all-to-alls of 4,096 tokens × k 8 × h 2,048 × 2 bytes, 8/16 between nodes
    assert parts["all_to_all_s"] == pytest.approx(64 * 48 * 4 * 4096 * 8 * 2048 * 2 * 8 / 16 / (50e9 * ETA_NETWORK))
    assert parts["step_s"] == pytest.approx(41.08, abs=0.01)
    assert [round(100 * (parts["step_s"] / measured - 1), 1) for measured in (45.65, 41.36)] == [-10.0, -0.7]


def test_other_releases_of_the_moe_runs():
    """The archive's other releases of the three mixtures of experts (a check, in docs/plan.md, used by no
    figure): published step = global batch × sequence ÷ (tokens/s/GPU × GPUs), as the table prints them."""
    from engine.plan.validation_h100 import OTHER_RELEASES, other_releases_table

    printed = [(1280, 5824), (1280, 5810), (1280, 5984), (512, 5630), (1024, 8826), (1024, 8960), (1024, 8901),
               (1024, 5113), (512, 5275), (8192, 1712), (8192, 1686), (8192, 1633), (2048, 1575)]
    assert [(r.global_batch, r.tokens_per_s_per_gpu) for r in OTHER_RELEASES] == printed
    for run, (batch, rate) in zip(OTHER_RELEASES, printed):
        assert run.published_s == pytest.approx(batch * 4096 / (rate * run.gpus))
    rows = other_releases_table()
    # measured here: GPT-OSS at micro-batch 1 is 28–30% fast in every release (the releases agree within 3%);
    # at micro-batch 4 (25.11) 17% fast; Qwen3 30B-A3B with e 16 over two nodes 24–25% fast (27–29% before the
    # casts into FP8 were timed); the p 2, e 8
    # layout measured 77% apart in two releases a month apart (9,058 and 5,113 tokens/s/GPU)
    assert [round(100 * r.error, 1) for r in rows] == pytest.approx(
        [-30.2, -30.3, -28.2, -17.6, -25.0, -23.9, -24.4, -56.7, -56.0, 5.1, 3.5, 0.2, -2.3], abs=0.3)
    # the e 16 rows run HybridEP as their recipe sets it (a token crosses to the other node once): with NCCL's
    # all-to-all (one copy per remote expert) they were +26.8%, +28.7%, +27.9% — 4 copies instead of ~1
    e16 = [r for r in OTHER_RELEASES if r.ep == 16]
    assert len(e16) == 3 and all(r.dispatcher == "flex" for r in e16)
    assert all(r.dispatcher == "alltoall" for r in OTHER_RELEASES if r.ep != 16)
    assert 9058 / 5113 == pytest.approx(1.77, abs=0.01)


def test_the_plan_note_states_the_moe_errors_measured():
    """The note a plan of a mixture of experts carries quotes the errors of the published runs above and in the
    archive's other releases (the extremes of both tables)."""
    from engine.plan.run_plan import kernel_note
    from engine.plan.validation_h100 import OTHER_RELEASES, other_releases_table, plan_model_of

    rows = [r for r in h100_table() if "MoE" in r.case] + list(other_releases_table())
    def span(name):
        errors = [100 * r.error for r in rows if r.case.startswith(name)]
        return round(min(errors)), round(max(errors))
    assert span("GPT-OSS") == (-30, -18) and span("Qwen3 30B") == (-57, -23)
    assert max(abs(v) for v in span("Qwen3 235B")) < 6
    note = kernel_note(plan_model_of(OTHER_RELEASES[0]))
    assert "18–30% fast for GPT-OSS 120B, 23–57% fast for Qwen3 30B-A3B" in note
    assert "within 6% for Qwen3 235B-A22B" in note


def test_long_sequence_runs_are_a_check_with_their_errors():
    """NeMo's long-sequence table (Llama 2 7B on H100, 4K to 1M positions, context parallelism up to 32): its
    model TFLOP/s are turned back into a step with NeMo's Llama 2 FLOP formula, the one NeMo's 24.07 table
    follows (776 TFLOP/s at 16,847 tokens/s), written out here."""
    from engine.plan.validation_h100 import LONG_SEQUENCE, kernel_with_cp, long_sequence_table, plan_for

    per_token = 32 * 4096 ** 2 * (12 + 12 + 18 * 11008 / 4096 + 12 * 4096 / 4096 + 6 * 32000 / (32 * 4096))
    assert 776e12 / 16847 == pytest.approx(per_token, rel=1e-3)
    printed = [(4, 4, 1024, 768), (8, 8, 512, 730), (16, 16, 256, 660), (32, 32, 128, 610), (64, 64, 64, 574),
               (128, 128, 32, 555), (256, 256, 16, 549), (512, 512, 8, 549), (1024, 1024, 4, 536)]
    for run, (k, gpus, batch, tflops) in zip(LONG_SEQUENCE, printed, strict=True):
        s = 1024 * k
        flop = batch * s * 32 * 4096 ** 2 * (12 + 12 + 18 * 11008 / 4096 + 12 * s / 4096 + 6 * 32000 / (32 * 4096))
        assert (run.seq, run.gpus, run.global_batch) == (s, gpus, batch)
        assert run.published_s == pytest.approx(flop / (tflops * 1e12 * gpus))
        assert run.gpus == run.t * run.p * run.cp * (run.gpus // (run.t * run.p * run.cp))
    rows = long_sequence_table()
    # measured here: −3.5% at 4K (−8.0% before the casts into FP8 were timed), then slower and slower: the
    # attention core is timed as matrix products with
    # their s × s score bytes (1.5–2.9× the fused kernel measured on an H200); at its measured fused rate these
    # runs come out a uniform 22–30% fast and the NeMo 24.07 rows 14% (median) — reported, not adopted
    assert [round(100 * r.error, 1) for r in rows] == pytest.approx(
        [-3.5, 7.4, 20.6, 27.8, 40.6, 43.1, 46.0, 50.8, 47.5], abs=0.3)
    for run in (LONG_SEQUENCE[3], LONG_SEQUENCE[-1]):  # the plan's layout with cp gives the same step
        plan = plan_for(run)
        assert plan.layout.cp == run.cp and plan.step.step_s == pytest.approx(kernel_with_cp(run), rel=1e-9)


def test_a_long_context_plan_says_how_far_the_check_found_it():
    from engine.plan.run_plan import LONG_CONTEXT, kernel_note
    from engine.plan.validation_h100 import LONG_SEQUENCE, long_sequence_table, plan_model_of

    errors = {r.seq: 100 * e.error for r, e in zip(LONG_SEQUENCE, long_sequence_table())}
    assert round(errors[16384]) == 21 and round(errors[524288]) == 51 and max(errors.values()) < 51
    long_note = kernel_note(plan_model_of(LONG_SEQUENCE[2]))
    assert LONG_SEQUENCE[2].seq == LONG_CONTEXT
    assert "overestimates the step by 21% at 16K positions to 51% at 512K" in long_note
    assert "long context" not in kernel_note(plan_model_of(LONG_SEQUENCE[1]))  # 8K: within the validated range


def test_per_node_dispatch_sends_a_token_once_to_each_other_node_it_needs():
    from math import comb

    from engine.plan.kernel_moe import all_to_all_s, remote_nodes_per_token

    # 128 experts over 16 ranks in two nodes of 8 (64 experts a node), top 8: the other node is missed only if all
    # 8 picks fall on this node's 64
    assert remote_nodes_per_token(128, 8, 16, 8) == pytest.approx(1 - comb(64, 8) / comb(128, 8))
    # 32 ranks in four nodes: three other nodes of 32 experts each
    assert remote_nodes_per_token(128, 8, 32, 8) == pytest.approx(3 * (1 - comb(96, 8) / comb(128, 8)))
    assert remote_nodes_per_token(128, 8, 8, 8) == 0  # one node: nothing crosses
    # NCCL's all-to-all sends the 8/16 of the copies bound for the other node; DeepEP/HybridEP 1/8 × 0.997 of them
    nbytes = 4096 * 8 * 2048 * 2
    a2a = all_to_all_s(nbytes, 16, 1, 450, 50, 8)
    per_node = all_to_all_s(nbytes, 16, 1, 450, 50, 8, (128, 8))
    assert a2a == pytest.approx(8 / 16 * nbytes / (50e9 * ETA_NETWORK))
    assert per_node == pytest.approx(nbytes / 8 * (1 - comb(64, 8) / comb(128, 8)) / (50e9 * ETA_NETWORK))


def test_the_validation_set_summary_is_the_a100_and_h100_runs():
    from engine.plan.validation_h100 import validation_set_summary

    s = validation_set_summary()
    errors = [abs(r.error) for r in table("validation")] + [abs(r.error) for r in h100_table()]
    assert s["runs"] == len(errors) == 23
    assert s["median"] == pytest.approx(statistics.median(errors)) and s["median"] <= 0.05
    assert s["worst"] == pytest.approx(-0.281, abs=0.003)  # GPT-OSS 120B
