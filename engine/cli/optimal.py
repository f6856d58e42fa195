"""``optimal C | --flop C --rule {tokens-per-param,hoffmann-approach3,besiroglu-2024} [--inference-tokens D]``:
the compute-optimal parameters and tokens for a FLOP budget."""
from __future__ import annotations

from .files import one_of
from .transformer import parse_count
from ..plan.optimal import FITS, RULES, compute_optimal, inference_aware
from ..plan.thresholds import compare


def _optimal(args) -> dict:
    flop = parse_count(one_of(args.budget, args.flop, "flop", "give the budget: optimal 1e24 (or --flop 1e24)"),
                       "flop")
    out = compute_optimal(flop, args.rule).as_dict()
    if args.inference_tokens is not None:
        served = parse_count(args.inference_tokens, "inference_tokens")
        fit = FITS.get(args.rule, FITS["besiroglu-2024"])
        ia = inference_aware(flop, served, fit)
        out["inference_aware"] = {"fit": fit.key, "inference_tokens": served, "params": ia.params,
                                  "tokens": ia.tokens, "loss": ia.loss, "training_flop": ia.training_flop,
                                  "inference_flop": ia.inference_flop, "total_flop": ia.total_flop,
                                  "compute_optimal_total_flop": ia.chinchilla_total_flop,
                                  "source": "Sardana et al. 2023, 'Beyond Chinchilla-Optimal' — "
                                            "https://arxiv.org/abs/2401.00448"}
    out["thresholds"] = [{"key": s.threshold.key, "ratio": s.ratio, "sentence": s.sentence("This budget")}
                         for s in compare(out["flop"])]
    return out


def register(sub) -> None:
    p = sub.add_parser("optimal", help="compute-optimal model size and tokens for a FLOP budget")
    p.add_argument("budget", nargs="?", default=None, metavar="C",
                   help="training budget C in FLOP: 5.76e23, 1e24 (as --flop)")
    p.add_argument("--flop", default=None, help="training budget C in FLOP: 5.76e23, 1e24")
    p.add_argument("--rule", choices=RULES, default="tokens-per-param",
                   help="20 tokens per parameter, Hoffmann et al. 2022's approach-3 fit, or Besiroglu et al. "
                        "2024's refit")
    p.add_argument("--inference-tokens", dest="inference_tokens", default=None,
                   help="tokens expected to be served: also the size that minimises training + inference "
                        "(Sardana et al. 2023; the rule's fit, Besiroglu's for tokens-per-param)")
    p.set_defaults(run=_optimal)
