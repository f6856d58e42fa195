"""Views: pure functions from a scenario and the engine's results to what a page shows — table rows,
metric tuples (label, value with its unit, tooltip), LaTeX. No Streamlit import: tested with plain pytest."""
