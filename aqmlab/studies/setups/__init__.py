"""The papers' set-ups that several studies share, in one place: scenarios, arms and the
reductions of their runs. A study imports these (and ``aqmlab.studies.common``), never
another study (``tests/unit/test_study_tables.py`` checks it).

* :mod:`.christiansen` — Christiansen's lab network and Mah browsing users (tail_drop,
  red_search);
* :mod:`.weigle` — Weigle et al.'s two-way PackMime dumbbell and its arms (ecn_sack_web,
  tail_drop, beyond);
* :mod:`.pentikousis` — Pentikousis et al.'s bulk downloads through router B (ecn_bulk,
  beyond);
* :mod:`.qiu` — Qiu et al.'s T1 with many long-lived flows (many_flows, beyond).
"""
