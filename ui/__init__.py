"""Small Streamlit components. Each owns its session-state keys; none holds a formula.

Importing the package, before any of the engine's models is built, turns off
pydantic's plugin look-up for this process, as the CLI does (``engine.cli.PLUGINS_OFF``): the look-up reads the entry
points of every installed distribution (0.1–0.2 s of a cold start's first page) for plugins the engine does not
use. Set ``PYDANTIC_DISABLE_PLUGINS`` (empty: look them up) to decide otherwise."""
import os

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
