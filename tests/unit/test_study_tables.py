"""The seven studies as data (no ns-3): their typed profiles, their declared claim tables
(every metric and expansion exists, ids unique, profiles valid, and the same claims, decided
by the same profiles, as the code before the tables gave) and their imports (no study
imports another; what they share lives in aqmlab/studies/setups/ and the shared modules)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from aqmlab.studies import STUDIES, load_study
from aqmlab.studies.claims import KINDS, NO_DATA, NOT_TESTED, TABLES, DeclaredTable
from aqmlab.studies.common import context
from aqmlab.studies.params import PROFILE_NAMES, Params, Profiles

STUDIES_DIR = Path(__file__).resolve().parents[2] / "aqmlab" / "studies"
#: What a study may import from aqmlab.studies: the shared modules and the set-ups.
SHARED = {"arms", "claims", "common", "distances", "params", "plots", "style", "setups"}

#: Every claim id the pre-table code (commit 87ac189) produced per study and profile, in
#: order; "?" marks the ones that profile could not decide ("not tested in this profile").
OLD_IDS = {
    ("tail_drop_tuning", "tiny"): """
        ?C-80-little-effect ?C-drops-vs-qlen-98 ?C-qlen-vs-qlen-98 ?C-98-short-small-q
        ?C-98-long-big-q ?C-98-240-slower ?C-110-big-q-worse ?C-load-degrades ?C-load-below-80
        ?C-uncongested-500ms ?C-best-120 ?C-B4-98-30-median ?C-B4-98-30-drops ?C-B4-98-30-i1
        ?C-B4-98-120-median ?C-B4-98-120-drops ?C-B4-98-120-i1 ?W-dt-cross-time
        ?W-dt-cross-level ?W-dt-close ?W-dt111-short
    """,
    ("tail_drop_tuning", "quick"): """
        ?C-80-little-effect C-drops-vs-qlen-90 C-qlen-vs-qlen-90 C-drops-vs-qlen-98
        C-qlen-vs-qlen-98 C-98-short-small-q C-98-long-big-q C-98-240-slower
        ?C-110-big-q-worse ?C-load-degrades ?C-load-below-80 ?C-uncongested-500ms ?C-best-120
        ?C-B4-90-30-median ?C-B4-90-30-drops ?C-B4-90-30-i1 ?C-B4-90-120-median
        ?C-B4-90-120-drops ?C-B4-90-120-i1 ?C-B4-90-240-median ?C-B4-90-240-drops
        ?C-B4-90-240-i1 ?C-B4-98-30-median ?C-B4-98-30-drops ?C-B4-98-30-i1
        ?C-B4-98-120-median ?C-B4-98-120-drops ?C-B4-98-120-i1 ?C-B4-98-240-median
        ?C-B4-98-240-drops ?C-B4-98-240-i1 ?W-dt-cross-time ?W-dt-cross-level ?W-dt-close
        ?W-dt111-short
    """,
    ("tail_drop_tuning", "full"): """
        C-80-little-effect C-drops-vs-qlen-90 C-qlen-vs-qlen-90 C-drops-vs-qlen-98
        C-qlen-vs-qlen-98 C-drops-vs-qlen-110 C-qlen-vs-qlen-110 C-98-short-small-q
        C-98-long-big-q C-98-240-slower C-110-big-q-worse C-load-degrades C-load-below-80
        C-uncongested-500ms C-best-120 C-B4-50-60-median C-B4-50-60-drops C-B4-50-60-i1
        C-B4-50-120-median C-B4-50-120-drops C-B4-50-120-i1 C-B4-70-60-median C-B4-70-60-drops
        C-B4-70-60-i1 C-B4-70-120-median C-B4-70-120-drops C-B4-70-120-i1 C-B4-80-15-median
        C-B4-80-15-drops C-B4-80-15-i1 C-B4-80-30-median C-B4-80-30-drops C-B4-80-30-i1
        C-B4-80-60-median C-B4-80-60-drops C-B4-80-60-i1 C-B4-80-120-median C-B4-80-120-drops
        C-B4-80-120-i1 C-B4-80-240-median C-B4-80-240-drops C-B4-80-240-i1 C-B4-90-15-median
        C-B4-90-15-drops C-B4-90-15-i1 C-B4-90-30-median C-B4-90-30-drops C-B4-90-30-i1
        C-B4-90-60-median C-B4-90-60-drops C-B4-90-60-i1 C-B4-90-120-median C-B4-90-120-drops
        C-B4-90-120-i1 C-B4-90-190-median C-B4-90-190-drops C-B4-90-190-i1 C-B4-90-240-median
        C-B4-90-240-drops C-B4-90-240-i1 C-B4-98-15-median C-B4-98-15-drops C-B4-98-15-i1
        C-B4-98-30-median C-B4-98-30-drops C-B4-98-30-i1 C-B4-98-60-median C-B4-98-60-drops
        C-B4-98-60-i1 C-B4-98-120-median C-B4-98-120-drops C-B4-98-120-i1 C-B4-98-190-median
        C-B4-98-190-drops C-B4-98-190-i1 C-B4-98-240-median C-B4-98-240-drops C-B4-98-240-i1
        C-B4-110-15-median C-B4-110-15-drops C-B4-110-15-i1 C-B4-110-30-median
        C-B4-110-30-drops C-B4-110-30-i1 C-B4-110-60-median C-B4-110-60-drops C-B4-110-60-i1
        C-B4-110-120-median C-B4-110-120-drops C-B4-110-120-i1 C-B4-110-190-median
        C-B4-110-190-drops C-B4-110-190-i1 C-B4-110-240-median C-B4-110-240-drops
        C-B4-110-240-i1 W-dt-cross-time W-dt-cross-level W-dt-close W-dt111-short
    """,
    ("red_parameter_search", "tiny"): """
        ?R-drops-thresholds ?R-qlen-thresholds ?R-min5-poor ?R-30-90-short ?R-60-180-long
        ?R-110-no-help ?R-50-no-room ?R-red-vs-td-80 ?R-red-vs-td-98 ?R-red-vs-td-110
        ?R-maxp-hurts ?R-qlen-similar ?R-util-costs-rt ?R-retx-classes ?R-retx-ratio
        ?R-retx-shift ?R-burst-smoothing ?R-B6-98-5-15-median ?R-B6-98-5-15-drops
        ?R-B6-98-60-180-median ?R-B6-98-60-180-drops
    """,
    ("red_parameter_search", "quick"): """
        R-drops-thresholds R-qlen-thresholds R-min5-poor ?R-30-90-short R-60-180-long
        ?R-110-no-help ?R-50-no-room ?R-red-vs-td-80 ?R-red-vs-td-98 ?R-red-vs-td-110
        ?R-maxp-hurts ?R-qlen-similar ?R-util-costs-rt R-retx-classes ?R-retx-ratio
        R-retx-shift ?R-burst-smoothing ?R-B6-98-5-15-median ?R-B6-98-5-15-drops
        ?R-B6-98-30-90-median ?R-B6-98-30-90-drops ?R-B6-98-60-180-median
        ?R-B6-98-60-180-drops
    """,
    ("red_parameter_search", "full"): """
        R-drops-thresholds R-qlen-thresholds R-min5-poor R-30-90-short R-60-180-long
        R-110-no-help R-50-no-room R-red-vs-td-80 R-red-vs-td-98 R-red-vs-td-110 R-maxp-hurts
        R-qlen-similar R-util-costs-rt R-retx-classes R-retx-ratio R-retx-shift
        R-burst-smoothing R-B6-50-5-15-median R-B6-50-5-15-drops R-B6-50-15-45-median
        R-B6-50-15-45-drops R-B6-50-30-90-median R-B6-50-30-90-drops R-B6-50-60-180-median
        R-B6-50-60-180-drops R-B6-50-120-360-median R-B6-50-120-360-drops R-B6-70-5-15-median
        R-B6-70-5-15-drops R-B6-70-15-45-median R-B6-70-15-45-drops R-B6-70-30-90-median
        R-B6-70-30-90-drops R-B6-70-60-180-median R-B6-70-60-180-drops R-B6-70-120-360-median
        R-B6-70-120-360-drops R-B6-80-5-15-median R-B6-80-5-15-drops R-B6-80-15-45-median
        R-B6-80-15-45-drops R-B6-80-30-90-median R-B6-80-30-90-drops R-B6-80-60-180-median
        R-B6-80-60-180-drops R-B6-80-120-360-median R-B6-80-120-360-drops R-B6-90-5-15-median
        R-B6-90-5-15-drops R-B6-90-15-45-median R-B6-90-15-45-drops R-B6-90-30-90-median
        R-B6-90-30-90-drops R-B6-90-60-180-median R-B6-90-60-180-drops R-B6-90-120-360-median
        R-B6-90-120-360-drops R-B6-98-5-15-median R-B6-98-5-15-drops R-B6-98-15-45-median
        R-B6-98-15-45-drops R-B6-98-30-90-median R-B6-98-30-90-drops R-B6-98-60-180-median
        R-B6-98-60-180-drops R-B6-98-120-360-median R-B6-98-120-360-drops R-B6-110-5-15-median
        R-B6-110-5-15-drops R-B6-110-15-45-median R-B6-110-15-45-drops R-B6-110-30-90-median
        R-B6-110-30-90-drops R-B6-110-60-180-median R-B6-110-60-180-drops
        R-B6-110-120-360-median R-B6-110-120-360-drops
    """,
    ("ecn_sack_web", "tiny"): """
        ?W-workload-1pkt ?W-workload-10pkt ?W-workload-large ?W-workload-large-bytes
        ?W-workload-requests ?W-ared-cross ?W-ared5-plateau ?W-dt-vs-ared5-105
        ?W-ecn-vs-ared-80 ?W-ecn-more-105 ?W-util-dt-highest ?W-loss-dt-lowest
        ?W-queue-ared60-vs-5 ?W-sack-ecn-same ?W-sack-dt-reno-better ?W-large-sack-dt
        ?W-large-ecn-poor ?W-best-80 ?W-best-105 ?W-best-50 ?W-sack-no-better ?W-red-vs-ared
        ?W-dt-vs-ecn60-same ?W-one-vs-two-way
    """,
    ("ecn_sack_web", "quick"): """
        W-workload-1pkt W-workload-10pkt W-workload-large W-workload-large-bytes
        W-workload-requests ?W-ared-cross ?W-ared5-plateau ?W-dt-vs-ared5-105
        ?W-ecn-vs-ared-80 ?W-ecn-more-105 W-util-dt-highest W-loss-dt-lowest
        W-queue-ared60-vs-5 W-sack-ecn-same ?W-sack-dt-reno-better ?W-large-sack-dt
        ?W-large-ecn-poor ?W-best-80 ?W-best-105 ?W-best-50 ?W-sack-no-better ?W-red-vs-ared
        ?W-dt-vs-ecn60-same ?W-one-vs-two-way
    """,
    ("ecn_sack_web", "full"): """
        W-workload-1pkt W-workload-10pkt W-workload-large W-workload-large-bytes
        W-workload-requests W-ared-cross W-ared5-plateau W-dt-vs-ared5-105 W-ecn-vs-ared-80
        W-ecn-more-105 W-util-dt-highest W-loss-dt-lowest W-queue-ared60-vs-5 W-sack-ecn-same
        W-sack-dt-reno-better W-large-sack-dt W-large-ecn-poor W-best-80 W-best-105 W-best-50
        W-sack-no-better W-red-vs-ared W-dt-vs-ecn60-same W-one-vs-two-way
    """,
    ("ecn_bulk", "tiny"): """
        ?P-zero-drop-ql ?P-baseline-time ?P-baseline-eff ?P-eff-ql16 ?P-eff-same-ql16
        ?P-dt-small-ql ?P-red-beats-dt-small-ql ?P-drops-order-q64 ?P-drops-dt-q64
        ?P-drops-red-q64 ?P-drops-ecn-q64 ?P-ecn-vs-red-drops ?P-spread-order ?P-spread-ecn
        ?P-eff-same-q64 ?P-lockout ?P-partial-c1-drops ?P-partial-c1-earlier
        ?P-partial-min-goodput ?P-ecn-fewest-drops ?P-ecn-64-vs-128 ?P-ecn-q32-tiny
        ?P-10-clients-dt ?P-long-rtt-fewer-drops ?P-long-rtt-eff
    """,
    ("ecn_bulk", "quick"): """
        P-zero-drop-ql P-baseline-time P-baseline-eff P-eff-ql16 P-eff-same-ql16 P-dt-small-ql
        P-red-beats-dt-small-ql P-drops-order-q64 P-drops-dt-q64 P-drops-red-q64
        P-drops-ecn-q64 P-ecn-vs-red-drops P-spread-order P-spread-ecn P-eff-same-q64
        P-lockout P-partial-c1-drops P-partial-c1-earlier P-partial-min-goodput
        P-ecn-fewest-drops P-ecn-64-vs-128 P-ecn-q32-tiny P-10-clients-dt
        P-long-rtt-fewer-drops P-long-rtt-eff
    """,
    ("ecn_bulk", "full"): """
        P-zero-drop-ql P-baseline-time P-baseline-eff P-eff-ql16 P-eff-same-ql16 P-dt-small-ql
        P-red-beats-dt-small-ql P-drops-order-q64 P-drops-dt-q64 P-drops-red-q64
        P-drops-ecn-q64 P-ecn-vs-red-drops P-spread-order P-spread-ecn P-eff-same-q64
        P-lockout P-partial-c1-drops P-partial-c1-earlier P-partial-min-goodput
        P-ecn-fewest-drops P-ecn-64-vs-128 P-ecn-q32-tiny P-10-clients-dt
        P-long-rtt-fewer-drops P-long-rtt-eff
    """,
    ("many_flows_regimes", "tiny"): """
        ?Q-sync-formula ?Q-loss-quadratic ?Q-hyperbola-100 ?Q-hyperbola-200 ?Q-hyperbola-300
        ?Q-hyperbola-400 ?Q-hyperbola-500 ?Q-throughput ?Q-goodput-linear
        ?Q-regime-large-swings ?Q-regime-large-fair ?Q-regime-small-shutoff
        ?Q-regime-small-active ?Q-regime-medium-fair ?Q-rand-stable ?Q-rand-less-fair
        ?Q-rand-loss-higher ?Q-rand-throughput ?Q-red-large-bounded ?Q-red-large-fair
        ?Q-red-small-osc ?Q-red-medium-maxth ?Q-red-comparable ?Q-sack-goodput ?Q-rtt-dt
        ?Q-rtt-red ?Q-fairness-red
    """,
    ("many_flows_regimes", "quick"): """
        Q-sync-formula Q-loss-quadratic Q-hyperbola-100 ?Q-hyperbola-200 Q-hyperbola-300
        ?Q-hyperbola-400 Q-hyperbola-500 Q-throughput Q-goodput-linear Q-regime-large-swings
        Q-regime-large-fair Q-regime-small-shutoff Q-regime-small-active Q-regime-medium-fair
        Q-rand-stable Q-rand-less-fair Q-rand-loss-higher Q-rand-throughput
        Q-red-large-bounded Q-red-large-fair Q-red-small-osc Q-red-medium-maxth
        Q-red-comparable Q-sack-goodput Q-rtt-dt Q-rtt-red ?Q-fairness-red
    """,
    ("many_flows_regimes", "full"): """
        Q-sync-formula Q-loss-quadratic Q-hyperbola-100 Q-hyperbola-200 Q-hyperbola-300
        Q-hyperbola-400 Q-hyperbola-500 Q-throughput Q-goodput-linear Q-regime-large-swings
        Q-regime-large-fair Q-regime-small-shutoff Q-regime-small-active Q-regime-medium-fair
        Q-rand-stable Q-rand-less-fair Q-rand-loss-higher Q-rand-throughput
        Q-red-large-bounded Q-red-large-fair Q-red-small-osc Q-red-medium-maxth
        Q-red-comparable Q-sack-goodput Q-rtt-dt Q-rtt-red Q-fairness-red
    """,
    ("multiple_bottlenecks", "tiny"): """
        ?V-queue-dt-r1-vs-r0 ?V-queue-dt-ratio ?V-queue-ared-band ?V-queue-ared-band-min
        ?V-queue-dt-75 ?V-drops-peak-ared ?V-drops-peak-ared-marks ?V-drops-peak-dt
        ?V-drops-ared-higher ?V-drops-rise ?V-rt-75 ?V-rt-60 ?V-rt-75-ratio
    """,
    ("multiple_bottlenecks", "quick"): """
        V-queue-dt-r1-vs-r0 ?V-queue-dt-ratio V-queue-ared-band ?V-queue-ared-band-min
        ?V-queue-dt-75 V-drops-peak-ared V-drops-peak-ared-marks V-drops-peak-dt
        ?V-drops-ared-higher V-drops-rise ?V-rt-75 ?V-rt-60 ?V-rt-75-ratio
    """,
    ("multiple_bottlenecks", "full"): """
        V-queue-dt-r1-vs-r0 V-queue-dt-ratio V-queue-ared-band V-queue-ared-band-min
        V-queue-dt-75 V-drops-peak-ared V-drops-peak-ared-marks V-drops-peak-dt
        V-drops-ared-higher V-drops-rise V-rt-75 V-rt-60 V-rt-75-ratio
        V-queue-dt-r1-vs-r0@byte V-queue-dt-ratio@byte V-queue-ared-band@byte
        V-queue-ared-band-min@byte V-queue-dt-75@byte V-drops-peak-ared@byte
        V-drops-peak-ared-marks@byte V-drops-peak-dt@byte V-drops-ared-higher@byte
        V-drops-rise@byte V-rt-75@byte V-rt-60@byte V-rt-75-ratio@byte
        V-queue-dt-r1-vs-r0@x7.5 V-queue-dt-ratio@x7.5 V-queue-ared-band@x7.5
        V-queue-ared-band-min@x7.5 V-queue-dt-75@x7.5 V-drops-peak-ared@x7.5
        V-drops-peak-ared-marks@x7.5 V-drops-peak-dt@x7.5 V-drops-ared-higher@x7.5
        V-drops-rise@x7.5 V-rt-75@x7.5 V-rt-60@x7.5 V-rt-75-ratio@x7.5
        V-queue-dt-r1-vs-r0@x7.5-byte V-queue-dt-ratio@x7.5-byte V-queue-ared-band@x7.5-byte
        V-queue-ared-band-min@x7.5-byte V-queue-dt-75@x7.5-byte V-drops-peak-ared@x7.5-byte
        V-drops-peak-ared-marks@x7.5-byte V-drops-peak-dt@x7.5-byte
        V-drops-ared-higher@x7.5-byte V-drops-rise@x7.5-byte V-rt-75@x7.5-byte
        V-rt-60@x7.5-byte V-rt-75-ratio@x7.5-byte
    """,
    ("ns2_vs_ns3", "tiny"): """
        ?X-web-ks ?X-web-loss ?X-web-utilisation ?X-web-queue ?X-web-timeouts
        ?X-qiu-loss ?X-qiu-utilisation ?X-qiu-queue ?X-qiu-timeouts ?X-qiu-goodput
        ?X-qiu-jain ?X-qiur-loss ?X-qiur-utilisation ?X-qiur-queue ?X-qiur-timeouts
        ?X-qiur-goodput ?X-qiur-jain ?X-pent-loss ?X-pent-utilisation ?X-pent-queue ?X-pent-timeouts
        ?X-pent-goodput ?X-lot-loss ?X-lot-utilisation ?X-lot-queue ?X-lot-timeouts
        ?X-lot-goodput ?X-lot-jain ?X-web-cpu ?X-qiu-cpu
    """,
    ("ns2_vs_ns3", "quick"): """
        X-web-ks X-web-loss X-web-utilisation X-web-queue X-web-timeouts
        X-qiu-loss X-qiu-utilisation X-qiu-queue X-qiu-timeouts X-qiu-goodput
        X-qiu-jain X-qiur-loss X-qiur-utilisation X-qiur-queue X-qiur-timeouts
        X-qiur-goodput X-qiur-jain X-pent-loss X-pent-utilisation X-pent-queue X-pent-timeouts
        X-pent-goodput X-lot-loss X-lot-utilisation X-lot-queue X-lot-timeouts
        X-lot-goodput X-lot-jain X-web-cpu X-qiu-cpu
    """,
    ("ns2_vs_ns3", "full"): """
        X-web-ks X-web-loss X-web-utilisation X-web-queue X-web-timeouts
        X-qiu-loss X-qiu-utilisation X-qiu-queue X-qiu-timeouts X-qiu-goodput
        X-qiu-jain X-qiur-loss X-qiur-utilisation X-qiur-queue X-qiur-timeouts
        X-qiur-goodput X-qiur-jain X-pent-loss X-pent-utilisation X-pent-queue X-pent-timeouts
        X-pent-goodput X-lot-loss X-lot-utilisation X-lot-queue X-lot-timeouts
        X-lot-goodput X-lot-jain X-web-cpu X-qiu-cpu
    """,
    ("beyond_the_papers", "tiny"): """
        ?B-web-aqm-vs-dt ?B-web-tcp-small-effect ?B-web-dt-util ?B-web-dt-loss ?B-web-bbr-loss
        ?B-bulk-ecn-drops-red ?B-bulk-ecn-drops-codel ?B-bulk-ecn-no-goodput-gain
        ?B-bulk-ecn-fairer ?B-rtt-cubic-red ?B-rtt-cubic-fq_codel ?B-rtt-bbr-fq_codel
        ?B-many-sync-reno ?B-many-sync-cubic
    """,
    ("beyond_the_papers", "quick"): """
        B-web-aqm-vs-dt B-web-tcp-small-effect B-web-dt-util B-web-dt-loss B-web-bbr-loss
        B-bulk-ecn-drops-red B-bulk-ecn-drops-codel B-bulk-ecn-no-goodput-gain
        B-bulk-ecn-fairer B-rtt-cubic-red B-rtt-cubic-fq_codel B-rtt-bbr-fq_codel
        B-many-sync-reno B-many-sync-cubic
    """,
    ("beyond_the_papers", "full"): """
        B-web-aqm-vs-dt B-web-tcp-small-effect B-web-dt-util B-web-dt-loss B-web-bbr-loss
        B-bulk-ecn-drops-red B-bulk-ecn-drops-codel B-bulk-ecn-no-goodput-gain
        B-bulk-ecn-fairer B-rtt-cubic-red B-rtt-cubic-fq_codel B-rtt-bbr-fq_codel
        B-many-sync-reno B-many-sync-cubic
    """,
}


@pytest.mark.parametrize("name", list(STUDIES))
def test_every_study_declares_three_typed_frozen_profiles(name):
    mod = load_study(name)
    assert isinstance(mod.PROFILES, Profiles) and list(mod.PROFILES) == list(PROFILE_NAMES)
    for prof in PROFILE_NAMES:
        p = mod.profile(prof)
        assert isinstance(p, Params) and p.profile == prof and p.study == mod.STUDY
        assert p.seeds and all(isinstance(s, int) for s in p.seeds)
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.seeds = (2,)
    assert callable(mod.run) and callable(mod.claims) and mod.FIGURES


@pytest.mark.parametrize("name", list(STUDIES))
def test_an_unknown_or_mistyped_override_fails_naming_the_parameter(name):
    mod = load_study(name)
    allowed = ", ".join(mod.profile("quick").values)
    with pytest.raises(KeyError, match=f"has no parameter 'bogus'; parameters: {allowed}"):
        mod.profile("quick", bogus=1)
    with pytest.raises(TypeError, match="seeds = 'one' is invalid: expected a list of int"):
        mod.profile("quick", seeds="one")
    assert mod.profile("quick", seeds=[4, 5]).seeds == (4, 5)


@pytest.mark.parametrize("name", list(STUDIES))
def test_the_declared_table_is_well_formed(name):
    """Read again from its file: every metric and expansion named exists, ids are unique,
    kinds and profiles valid (the reader checks all this and would raise)."""
    mod = load_study(name)
    table = DeclaredTable.load(TABLES / f"{mod.STUDY}.toml", mod.METRICS)
    specs = table.specs()
    ids = [c.id for c in specs]
    assert len(ids) == len(set(ids))
    for c in specs:
        assert c.metric in mod.METRICS.metrics, c.id
        assert c.kind in KINDS and set(c.profiles) <= set(PROFILE_NAMES) and c.profiles, c.id
        assert c.text and c.paper is not None, c.id
    assert {c.metric for c in specs} == set(mod.METRICS.metrics)


def test_every_claim_table_file_belongs_to_a_study():
    studies = {load_study(n).STUDY for n in STUDIES}
    assert {p.stem for p in TABLES.glob("*.toml")} == studies


@pytest.mark.parametrize("prof", PROFILE_NAMES)
@pytest.mark.parametrize("name", list(STUDIES))
def test_the_tables_give_the_claims_the_code_gave_before(name, prof, tmp_path):
    """With no run stored, each profile's table lists the claims of the pre-table code in
    its order, and decides the same ones (the others read "not tested in this profile")."""
    mod = load_study(name)
    p = mod.profile(prof)
    with context(store=tmp_path, plan_only=True, progress=False) as ctx:
        data = mod.run(p, ctx)
    table = mod.claims(data, p)
    expected = OLD_IDS[(name, prof)].split()
    assert [c.id for c in table] == [e.lstrip("?") for e in expected]
    assert [c.reproduced for c in table] == [NOT_TESTED if e.startswith("?") else NO_DATA
                                             for e in expected]


def _imports(path: Path) -> set[str]:
    """The aqmlab.studies modules a file imports (``from aqmlab.studies import x`` counts
    as importing ``x``), relative to aqmlab.studies."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + (
                [f"{node.module}.{a.name}" for a in node.names]
                if node.module in ("aqmlab.studies", "aqmlab.studies.setups") else [])
        out |= {n.removeprefix("aqmlab.studies.") for n in names
                if n.startswith("aqmlab.studies.")}
    return out


def test_no_study_imports_another():
    """A study imports only the shared modules and the set-ups; a set-up or a shared module
    never imports a study."""
    studies = set(STUDIES.values())
    assert studies <= {p.stem for p in STUDIES_DIR.glob("*.py")}
    files = [*STUDIES_DIR.glob("*.py"), *(STUDIES_DIR / "setups").glob("*.py")]
    assert len(files) > len(studies)
    for path in files:
        imported = {m.split(".")[0] for m in _imports(path)}
        bad = imported & studies
        assert not bad, f"{path.relative_to(STUDIES_DIR)} imports the study {sorted(bad)}"
        if path.stem in studies:
            assert imported <= SHARED, f"{path.stem} imports {sorted(imported - SHARED)}"


def test_the_import_check_sees_a_study_importing_another(tmp_path):
    """The parser catches both spellings of importing a study."""
    f = tmp_path / "x.py"
    f.write_text("from aqmlab.studies import ecn_bulk, plots\n"
                 "import aqmlab.studies.many_flows as m\n"
                 "from aqmlab.studies.setups.weigle import BASELINE\n")
    assert _imports(f) == {"ecn_bulk", "plots", "many_flows", "setups.weigle"}
