"""Components: the widgets of one part of a page. Each owns its widget keys; cross-page state goes through
``ui/state.py``; what is shown is computed by a view (``ui/views/``)."""
