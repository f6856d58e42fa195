"""FLOPscope engine: training compute of deep learning models, in pure Python (no Streamlit)."""
from engine.errors import InputError

__all__ = ["InputError"]
