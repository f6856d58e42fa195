"""The dashboard's few style rules (our own CSS, never user text): the sticky results bar, formulas
that scroll instead of being cut off, labels that wrap instead of ending in '…', and a phone layout (the Plan
page's results before its inputs)."""
from __future__ import annotations

import streamlit as st

CSS = """
<style>
/* the results bar stays under the app's header while the page scrolls */
[data-testid="stLayoutWrapper"]:has(> .st-key-flop_summary), .st-key-flop_summary {
  position: sticky; top: 3.75rem; z-index: 990;
}
.st-key-flop_summary {
  background-color: rgb(255 255 255 / 0.97);
  border-bottom: 1px solid rgba(49, 51, 63, 0.15); padding: 0.35rem 0 0.2rem 0;
}
.st-key-flop_summary p { margin-bottom: 0; }
/* a field scrolled into view (a jump, a focus, Tab) stops below the app's header and the results bar */
[data-testid="stMain"] { scroll-padding-top: 6.5rem; }
/* formulas: scroll sideways on narrow screens instead of being cut off */
.stMarkdown .katex-display, [data-testid="stLatex"] .katex-display, [data-testid="stLatex"] {
  overflow-x: auto; overflow-y: hidden; max-width: 100%;
}
[data-testid="stCode"] pre, [data-testid="stCode"] code { white-space: pre-wrap !important; word-break: break-word; }
/* labels wrap rather than end in an ellipsis */
[data-testid="stCheckbox"] label p, [data-testid="stWidgetLabel"] p { white-space: normal; overflow: visible; text-overflow: clip; }
[data-baseweb="tag"] { max-width: none !important; }
/* chosen options wrap onto more lines instead of sliding out of the box */
[data-testid="stMultiSelectTagsContainer"] { overflow: visible !important; mask-image: none !important;
  -webkit-mask-image: none !important; flex-wrap: wrap; }
[data-testid="stMultiSelectTagsContainer"] > span[role="group"] { flex-wrap: wrap; }
[data-baseweb="tag"] span { overflow: visible !important; text-overflow: clip !important; max-width: none !important; }
@media (max-width: 640px) {
  [data-testid="stLayoutWrapper"]:has(> .st-key-flop_summary), .st-key-flop_summary { top: 3.5rem; }
  .st-key-flop_summary { font-size: 0.9rem; }
  [data-testid="stMain"] { scroll-padding-top: 8rem; }
  .katex-display > .katex { font-size: 1em; }
  /* the Plan page: its results before its inputs on a phone (the inputs stay first on a wide screen) */
  .st-key-plan_io > [data-testid="stLayoutWrapper"]:has(> .st-key-plan_results),
  .st-key-plan_io > .st-key-plan_results { order: -1; }
}
</style>
"""


def apply() -> None:
    st.html(CSS)
