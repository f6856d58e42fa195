"""Draw the generated test inputs again and write ``tests/data/generated_inputs.json.gz`` (the links and scenarios
the suite replays, ``tests/generated_inputs.py``), with the hash of ``tests/scenario_strategy.py`` they come from.
Run it after changing the strategy (``tests/test_generated_inputs.py`` says when):

    python -m tools.draw_generated_inputs
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.generated_inputs import REPLAY_FILE, write_replay_file  # noqa: E402

if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()  # --help writes nothing
    counts = write_replay_file()
    print(f"{REPLAY_FILE.relative_to(ROOT)}: " + ", ".join(f"{n:,} {kind}" for kind, n in counts.items()))
