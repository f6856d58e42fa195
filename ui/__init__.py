"""Small Streamlit components. Each owns its session-state keys; none holds a formula."""
