"""The layer builder's first number waits for no package it does not need: pandas (≈ 0.3–0.6 s of a cold start's
CPU, most of it pyarrow) is imported where a table is made, after the totals are on screen, and pydantic's plugin
look-up (the entry points of every installed distribution) is off in the dashboard's process. Each check runs in a
fresh process, as a server's first page run is, and looks at ``sys.modules`` when the totals are drawn."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

PROBE = """
import json, sys
from streamlit.testing.v1 import AppTest
import ui.components.method1_results as results

before = 'pandas' in sys.modules
seen = {}
drawn = results.totals

def totals(*args, **kwargs):
    seen['pandas_at_totals'] = 'pandas' in sys.modules
    return drawn(*args, **kwargs)

results.totals = totals
at = AppTest.from_file('app.py', default_timeout=600).run()
metric = next(m.value for m in at.metric if m.label == 'Training compute')
import pydantic.plugin._loader as loader
print(json.dumps({'before': before, **seen, 'pandas_at_end': 'pandas' in sys.modules, 'metric': metric,
                  'exceptions': len(at.exception), 'plugins_looked_up': loader._plugins is not None}))
"""


def test_the_totals_are_drawn_before_pandas_is_imported():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True,
                         timeout=600)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["before"] is False  # nothing imported it before the page (streamlit, the test's own imports)
    assert seen["exceptions"] == 0 and seen["metric"]
    assert seen["pandas_at_totals"] is False
    assert seen["pandas_at_end"] is True  # the layer table, drawn after the totals, still makes its frame
    assert seen["plugins_looked_up"] is False
