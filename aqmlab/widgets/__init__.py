"""Interactive widgets for notebooks: :func:`explore`, the AQM/TCP explorer, and
:func:`compare`, its figure and summary table for runs made with :func:`aqmlab.run`.

>>> import aqmlab
>>> aqmlab.explore(queue="red", flows=20)      # doctest: +SKIP
"""

from aqmlab.widgets.explorer import Explorer, RunRecord, explore
from aqmlab.widgets.plots import compare

__all__ = ["Explorer", "RunRecord", "compare", "explore"]
