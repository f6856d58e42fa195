import gc
import sys

gc.disable()  # the imports make objects that live to the end: none of the ~60 collections they set off finds garbage
from .cli import main  # noqa: E402  (``main`` freezes what they made and turns the collector back on)

sys.exit(main())
