"""aqmlab.workload: table rules, PackMime-HTTP and Mah/UNC distributions against the published
facts, and common random numbers. No ns-3; runs in a few seconds.

Tolerances are about 4-5 standard deviations of the statistic at the sample size used,
measured over 10-20 seeds (noted per test), so they hold for any seed; the heavy-tailed byte
shares and means get wider, stated bands.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from aqmlab.workload import (
    MAX_BYTES,
    Curve,
    EmpiricalRtt,
    MahWorkload,
    PackMimeRtt,
    PackMimeWorkload,
    PairRtt,
    arrival_weibull,
    expected_bytes_per_connection,
    expected_offered_load_bps,
    farima_acvf,
    gaussian_driver,
    logit2,
    mah_table,
    mean_request_bytes,
    mean_response_bytes,
    mean_run_length,
    packmime_curve,
    read_table,
    run_weibull,
    stream,
    validation_fraction,
)
from aqmlab.workload.farima import driver_multiplier
from aqmlab.workload.packmime import (
    _mean_state_bytes,
    arrival_noise_share,
    request_noise_share,
)

MSS = 1420
IID = PackMimeWorkload(lrd=False)


@pytest.fixture(scope="module")
def responses() -> tuple[np.ndarray, np.ndarray]:
    return IID.response_sizes(1_000_000, 100, seed=7)


@pytest.fixture(scope="module")
def requests() -> np.ndarray:
    return IID.request_sizes(1_000_000, 100, seed=7)


@pytest.fixture(scope="module")
def lrd_workload() -> pd.DataFrame:
    """The default (LRD) generator at 100 conn/s for 2500 s: ~250 k connections, the size of
    one seed-000 run."""
    return PackMimeWorkload().generate(100, 2500, seed=1)


# ---------------------------------------------------------------- package data and rules


def test_package_data_rows_as_documented():
    rows = {
        ("packmime", "response_validation_invcdf"): 100,
        ("packmime", "response_download_tail_invcdf"): 100,
        ("packmime", "request_body_invcdf"): 100,
        ("packmime", "request_tail_invcdf"): 100,
        ("packmime", "rtt_short_invcdf"): 22,
        ("packmime", "rtt_long_invcdf"): 14,
        ("packmime", "constants"): 78,
        ("packmime", "derived_rate_dependent_params"): 13,
        ("mah1997", "consecutive_docs_per_server"): 21,
        ("mah1997", "files_per_document"): 27,
        ("mah1997", "primary_request_size"): 305,
        ("mah1997", "secondary_request_size"): 286,
        ("mah1997", "primary_reply_size"): 1133,
        ("mah1997", "secondary_reply_size"): 1848,
        ("mah1997", "think_time"): 1649,
        ("christiansen2001", "pair_rtt_ms"): 49,
    }
    for (model, name), n in rows.items():
        t = read_table(model, name)
        assert len(next(iter(t.values()))) == n, (model, name)


def _ns2_linear_interpolate(x: np.ndarray, y: np.ndarray, q: float) -> float:
    """ns-2.35 FX::LinearInterpolate, literally (loop, slope of the last segment repeated)."""
    slope = np.append(np.diff(y) / np.diff(x), 0.0)
    slope[-1] = slope[-2]
    for i in range(len(x) - 2):
        if q < x[i + 1]:
            return y[i] + slope[i] * (q - x[i])
    return y[-1] + slope[-1] * (q - x[-1])


def test_curve_is_ns2_linear_interpolate_with_extension_both_ends():
    rng = np.random.default_rng(0)
    for name in ("request_tail_invcdf", "response_validation_invcdf", "rtt_long_invcdf"):
        c = packmime_curve(name)
        lo, hi = c.x[0], c.x[-1]
        span = hi - lo
        q = np.concatenate([rng.uniform(lo - span, hi + span, 300), c.x])
        want = [_ns2_linear_interpolate(c.x, c.y, v) for v in q]
        np.testing.assert_allclose(c(q), want, rtol=1e-12, atol=1e-12)
    c = Curve([0.0, 1.0, 3.0], [0.0, 2.0, 3.0])
    np.testing.assert_allclose(c([-1.0, 0.5, 2.0, 5.0]), [-2.0, 1.0, 2.5, 4.0])


def test_table_end_values_and_tails_from_model_md():
    body, tail = packmime_curve("request_body_invcdf"), packmime_curve("request_tail_invcdf")
    assert body(0.0) == pytest.approx(50.85, abs=0.01)  # "At q = 0 this gives 50.85 B"
    assert 2 ** tail(0.0) == pytest.approx(423.8, abs=0.3)  # log2 size 8.7267
    assert body(1.0) == pytest.approx(421.8, abs=0.05)
    assert tail.slopes[0] == pytest.approx(-0.6735, abs=1e-4)  # Pareto alpha 1.485
    v, d = packmime_curve("response_validation_invcdf"), packmime_curve(
        "response_download_tail_invcdf")
    assert v(0.0) == pytest.approx(4.47, abs=0.01) and v(1.0) == pytest.approx(272.2, abs=0.05)
    assert 2 ** d(0.0) == pytest.approx(274.8, abs=0.05)
    assert 1 / -d.slopes[0] == pytest.approx(1.231, abs=1e-3)  # download Pareto alpha
    # RTT minima (u = 0): 0.52 ms short/client, 0.495 ms long/server
    assert PackMimeRtt.quantile_ms("client", np.array(0.0)) == pytest.approx(0.52, abs=0.005)
    assert PackMimeRtt.quantile_ms("server", np.array(0.0)) == pytest.approx(0.495, abs=0.001)


def test_rate_dependent_parameters_match_derived_table():
    t = read_table("packmime", "derived_rate_dependent_params")
    assert logit2(0.0) == 0.5 and logit2(1.0) == pytest.approx(2 / 3)  # base 2, not e
    for i, r in enumerate(t["rate_conn_per_s"]):
        k, scale = arrival_weibull(r)
        w = run_weibull(r)
        got = {
            "arrival_weibull_shape": k,
            "arrival_weibull_scale_s": scale,
            "arrival_noise_var_fraction": arrival_noise_share(r),
            "arrival_farima_multiplier": driver_multiplier(0.33, arrival_noise_share(r)),
            "request_noise_var_fraction": request_noise_share(r),
            "request_farima_multiplier": driver_multiplier(0.31, request_noise_share(r)),
            "rtt_short_noise_var_fraction": PackMimeRtt.noise_share("client", r),
            "rtt_short_farima_multiplier": driver_multiplier(
                0.31, PackMimeRtt.noise_share("client", r)),
            "rtt_long_noise_var_fraction": PackMimeRtt.noise_share("server", r),
            "rtt_long_farima_multiplier": driver_multiplier(
                0.32, PackMimeRtt.noise_share("server", r)),
            "run_validation_weibull_shape": w["validation"][0],
            "run_download_weibull_shape": w["download"][0],
            "mean_run_length_validation": mean_run_length(*w["validation"]),
            "mean_run_length_download": mean_run_length(*w["download"]),
            "stationary_validation_fraction": validation_fraction(r),
        }
        for col, value in got.items():
            assert value == pytest.approx(t[col][i], rel=2e-5), (r, col)


# ---------------------------------------------------------------- PackMime marginals


def test_response_sizes_match_published_facts(responses):
    """Seed 000 (paper) and digest C.4 (10^7 ns-2.35 draws). 10^6 draws at 100 conn/s; sd over
    10 seeds: 6e-4 / 4e-4 / 2e-4 / 1e-4 for the fractions, 3 B for the median, 0.04 for the
    byte share (alpha = 1.23 tail, infinite variance)."""
    sz, validation = responses
    big = sz > 50_000
    m = {
        "P(<=1 pkt)": np.mean(sz <= MSS),
        "P(<=5 pkts)": np.mean(sz <= 5 * MSS),
        "P(<=10 pkts)": np.mean(sz <= 10 * MSS),
        "P(>50KB)": np.mean(big),
        "bytes share >50KB": sz[big].sum() / sz.sum(),
        "median": np.median(sz),
        "validation share": np.mean(validation),
    }
    # digest C.4
    assert m["P(<=1 pkt)"] == pytest.approx(0.572, abs=0.003)
    assert m["P(<=5 pkts)"] == pytest.approx(0.788, abs=0.002)
    assert m["P(<=10 pkts)"] == pytest.approx(0.894, abs=0.0015)
    assert m["P(>50KB)"] == pytest.approx(0.0158, abs=0.0006)
    assert m["median"] == pytest.approx(892, abs=15)
    assert m["validation share"] == pytest.approx(validation_fraction(100), abs=0.004)
    # the paper's wording: ~60 % in one packet, ~80 % <= 5, ~90 % <= 10, 1.4 % > 50 KB with
    # almost half of the bytes
    assert 0.55 <= m["P(<=1 pkt)"] <= 0.62
    assert 0.77 <= m["P(<=5 pkts)"] <= 0.82
    assert 0.88 <= m["P(<=10 pkts)"] <= 0.92
    assert 0.014 <= m["P(>50KB)"] <= 0.0165
    assert 0.35 <= m["bytes share >50KB"] <= 0.60
    assert sz.min() >= 1 and sz.max() <= MAX_BYTES
    assert sz.dtype == np.int64
    # state-conditional ranges: validation 4-272 B, downloads >= 274 B
    assert sz[validation].max() <= 273 and sz[~validation].min() >= 274


def test_request_sizes_match_published_facts(requests):
    """sd over 10 seeds of 10^6: 2e-4 for P(<1000), 0.9 B for the median."""
    rq = requests
    assert np.mean(rq < 1000) == pytest.approx(0.943, abs=0.002)  # digest C.4
    assert np.mean(rq <= MSS) == pytest.approx(0.969, abs=0.002)
    assert np.median(rq) == pytest.approx(421, abs=4)
    assert 0.90 <= np.mean(rq < 1000) <= 0.95  # paper: "almost 90 %" under 1 KB
    assert rq.min() >= 50 and rq.max() > 100_000  # Pareto tail, alpha ~1.48


def test_rtt_tables_match_digest():
    """Server side (type 1, long table) is the per-connection RTT by default; 4e5 draws, sd over
    10 seeds: 0.075 ms (median), 0.31 ms (mean), 0.25 ms (p90)."""
    rt = IID.rtts(400_000, 100, seed=7) * 1000
    assert np.median(rt) == pytest.approx(57.9, abs=0.4)
    assert rt.mean() == pytest.approx(81.0, abs=1.6)
    assert np.quantile(rt, 0.9) == pytest.approx(114.0, abs=1.3)
    assert PackMimeRtt("server").mean_s() * 1000 == pytest.approx(80.97, abs=0.1)
    client = PackMimeRtt("client").sample(400_000, 3) * 1000
    assert np.median(client) == pytest.approx(1.47, abs=0.02)
    assert client.mean() == pytest.approx(26.7, abs=1.5)
    assert PackMimeRtt("client").mean_s() * 1000 == pytest.approx(26.75, abs=0.05)
    both = PackMimeRtt("both").sample(400_000, 3) * 1000
    assert np.median(both) == pytest.approx(67.1, abs=0.8)
    capped = PackMimeRtt("server", max_s=3.5, scale=0.074 / 0.08097).sample(100_000, 3)
    assert capped.max() <= 3.5 and capped.mean() == pytest.approx(0.074, rel=0.03)


def test_exact_means_match_model_md():
    assert mean_request_bytes(None) == pytest.approx(584, abs=1)
    assert _mean_state_bytes(True, None) == pytest.approx(152.8, abs=0.1)
    assert _mean_state_bytes(False, None) == pytest.approx(11_865, rel=2e-3)
    assert mean_response_bytes(100, None) == pytest.approx(8640, rel=2e-3)
    # the default 2^31-1 cap removes the part of the tail ns-2's int cannot hold
    assert 11_300 < _mean_state_bytes(False, MAX_BYTES) < 11_600
    b = expected_bytes_per_connection(100)
    load = expected_offered_load_bps(100)
    assert load == pytest.approx(8 * 100 * (b["request_bytes"] + b["response_bytes"]))
    assert expected_offered_load_bps(100, include_requests=False) == pytest.approx(
        8 * 100 * b["response_bytes"])
    # digest A.5: ~9 KB of responses per connection -> ~7 Mb/s of payload at 100 conn/s
    assert 6.5e6 < load < 7.5e6


def test_weibull_interarrivals_give_the_requested_rate():
    """i.i.d.: sd of the mean gap over 2e5 draws is 0.3-0.5 %; with LRD (d = 0.33) 1.4 % at
    100 conn/s and 0.9 % at 1000."""
    for rate in (1, 10, 100, 1000):
        gaps = IID.interarrivals(200_000, rate, seed=3)
        assert gaps.mean() * rate == pytest.approx(1.0, abs=0.02), rate
        k, _ = arrival_weibull(rate)
        assert 0.5 < k < 1.0  # bursty: Weibull shape below 1 (exponential is 1)
    for rate in (100, 1000):
        gaps = PackMimeWorkload().interarrivals(200_000, rate, seed=3)
        assert gaps.mean() * rate == pytest.approx(1.0, abs=0.05), rate


def test_lrd_workload_keeps_marginals_and_rate(lrd_workload):
    df = lrd_workload
    assert len(df) / 2500 == pytest.approx(100, rel=0.05)
    assert df.start_s.is_monotonic_increasing and 0 < df.start_s.iloc[0]
    assert df.start_s.iloc[-1] < 2500
    assert np.mean(df.request_bytes < 1000) == pytest.approx(0.943, abs=0.01)
    assert np.mean(df.response_bytes <= MSS) == pytest.approx(0.572, abs=0.01)
    assert np.median(df.rtt_s) * 1000 == pytest.approx(57.9, abs=2.0)
    assert list(df.columns) == ["start_s", "request_bytes", "response_bytes", "validation",
                                "rtt_s"]
    assert df.request_bytes.dtype == np.int64 and df.response_bytes.dtype == np.int64
    assert df.attrs["rate"] == 100 and df.attrs["lrd"] is True


def test_farima_driver_autocorrelation():
    """rho_z(k) = a^2 (2 g(k) + g(k-1) + g(k+1)) at 1 conn/s (noise share 0.557); 2e5 values,
    sd over 10 seeds 0.006."""
    d, v = 0.33, arrival_noise_share(1.0)
    g, a = farima_acvf(d, 200), driver_multiplier(d, v)
    z = gaussian_driver(200_000, d=d, K=1000, noise_share=v, seed=stream(5), lrd=True)
    assert np.mean(z * z) == pytest.approx(1.0, abs=0.03)
    for k in (1, 10, 100):
        want = a * a * (2 * g[k] + g[k - 1] + g[k + 1])
        assert np.mean(z[:-k] * z[k:]) == pytest.approx(want, abs=0.03), k
    iid = gaussian_driver(200_000, d=d, K=1000, noise_share=v, seed=stream(5), lrd=False)
    assert abs(np.mean(iid[:-100] * iid[100:])) < 0.015


def test_server_delay_option():
    """ns-2.35 rule: median 5.87 ms, mean 21.95 ms, 10.9 % at the 0.1 s cap (MODEL.md)."""
    df = PackMimeWorkload(lrd=False, server_delay=True, rtt=None).generate(200, 1000, seed=2)
    sd = df.server_delay_s.to_numpy()
    assert "rtt_s" not in df
    assert np.median(sd) == pytest.approx(0.00587, rel=0.03)
    assert sd.mean() == pytest.approx(0.02195, rel=0.03)
    assert np.mean(sd == 0.1) == pytest.approx(0.109, abs=0.005)


# ---------------------------------------------------------------- common random numbers


def test_same_key_same_workload_other_key_other_workload():
    w = PackMimeWorkload()
    a, b = w.generate(50, 200, seed=4), w.generate(50, 200, seed=4)
    pd.testing.assert_frame_equal(a, b)
    for other in (w.generate(50, 200, seed=5), w.generate(50, 200, seed=4, run=1),
                  w.generate(50, 200, seed=4, instance=1)):
        n = min(len(a), len(other))
        assert not np.array_equal(a.response_bytes[:n], other.response_bytes[:n])
        assert not np.array_equal(a.request_bytes[:n], other.request_bytes[:n])


def test_longer_run_only_appends():
    w = PackMimeWorkload()
    short, long = w.generate(80, 100, seed=2), w.generate(80, 300, seed=2)
    pd.testing.assert_frame_equal(short, long.iloc[: len(short)], check_like=False)


def test_changing_the_rate_keeps_the_size_sequences():
    w = PackMimeWorkload()
    lo, hi = w.generate(60, 300, seed=9), w.generate(120, 300, seed=9)
    # the i-th download and the i-th validation draw are the same at every rate; only the
    # rate-dependent run lengths change how they interleave
    for state in (False, True):
        a = lo.response_bytes[lo.validation == state].to_numpy()
        b = hi.response_bytes[hi.validation == state].to_numpy()
        n = min(len(a), len(b))
        np.testing.assert_array_equal(a[:n], b[:n])
    # i.i.d. requests are identical connection by connection
    ri_lo = IID.request_sizes(5000, 60, seed=9)
    np.testing.assert_array_equal(ri_lo, IID.request_sizes(5000, 120, seed=9))
    # reference_rate freezes every rate-dependent shape: identical sizes and RTTs per connection
    ref = PackMimeWorkload(reference_rate=100)
    lo, hi = ref.generate(60, 300, seed=9), ref.generate(120, 300, seed=9)
    n = len(lo)
    for col in ("request_bytes", "response_bytes", "validation", "rtt_s"):
        np.testing.assert_array_equal(lo[col].to_numpy(), hi[col].to_numpy()[:n], err_msg=col)
    assert not np.array_equal(lo.start_s.to_numpy(), hi.start_s.to_numpy()[:n])


def test_streams_are_independent_of_each_other():
    base = PackMimeWorkload(lrd=True).generate(40, 200, seed=3)
    for other in (PackMimeWorkload(rtt="client"), PackMimeWorkload(server_delay=True),
                  PackMimeWorkload(rtt=EmpiricalRtt([0, 1], [0.01, 0.2]))):
        df = other.generate(40, 200, seed=3)
        for col in ("start_s", "request_bytes", "response_bytes"):
            np.testing.assert_array_equal(base[col].to_numpy(), df[col].to_numpy(), err_msg=col)
    # switching the dependence off changes neither responses (never FARIMA) nor their count
    iid = PackMimeWorkload(lrd=False)
    sz_lrd, _ = PackMimeWorkload(lrd=True).response_sizes(3000, 40, seed=3)
    np.testing.assert_array_equal(sz_lrd, iid.response_sizes(3000, 40, seed=3)[0])


def test_invalid_parameters_fail_clearly():
    with pytest.raises(ValueError, match="rate"):
        PackMimeWorkload().generate(0, 10)
    with pytest.raises(ValueError, match="duration"):
        PackMimeWorkload().generate(10, -1)
    with pytest.raises(ValueError, match="side"):
        PackMimeWorkload(rtt="middle")
    with pytest.raises(ValueError, match="seed"):
        stream(-1)


# ---------------------------------------------------------------- delays


def test_christiansen_pair_rtts():
    p = PairRtt()
    v = np.sort(p.rtt_ms.ravel())
    assert p.rtt_ms.shape == (7, 7)
    assert (v.min(), v.max(), np.median(v)) == (7, 147, 85)
    assert v.mean() == pytest.approx(78.8, abs=0.05)  # thesis: "approximately 79 ms"
    assert p.lookup(0, 5) == pytest.approx(0.147)  # goddard-speedy
    assert p.lookup(6, 5) == pytest.approx(0.007)  # yako-speedy
    s = p.sample(100_000, 1)
    assert set(np.unique(s * 1000).round().astype(int)) == set(v)
    assert s.mean() == pytest.approx(p.mean_s(), rel=0.01)


def test_empirical_rtt_from_quantiles():
    e = EmpiricalRtt([0.0, 0.5, 0.9, 1.0], [0.001, 0.054, 0.117, 3.5])
    np.testing.assert_allclose(e.quantile_s([0.0, 0.25, 0.5, 0.9, 0.95, 1.0]),
                               [0.001, 0.0275, 0.054, 0.117, 1.8085, 3.5])
    s = e.sample(200_000, 1)
    assert np.median(s) == pytest.approx(0.054, rel=0.01)
    assert s.mean() == pytest.approx(e.mean_s(), rel=0.02)
    with pytest.raises(ValueError):
        EmpiricalRtt([0.5, 0.2], [0.1, 0.2])


# ---------------------------------------------------------------- Mah / UNC


MAH_FACTS = {  # digest seed 001 §2.3 / mah1997 MODEL.md: (median, mean, mean tolerance)
    # sd of the mean over 10^6 draws: K 0.005, N 0.004, requests 0.3 B, primary replies
    # ~130 B (8 MB top segment), secondary ~16 B, think ~9 s (up to 24 h)
    "consecutive_docs_per_server": (2, 4.05, 0.03),
    "files_per_document": (2, 2.90, 0.03),
    "primary_request_size": (238, 395.5, 2.0),
    "secondary_request_size": (227, 334.5, 2.0),
    "primary_reply_size": (2095, 15_247, 700),
    "secondary_reply_size": (1986, 6_827, 100),
    "think_time": (15.3, 1287, 45),
}


def test_mah_tables_match_published_statistics():
    rng = np.random.default_rng(11)
    for name, (median, mean, tol) in MAH_FACTS.items():
        t = mah_table(name)
        x = t.sample(rng, 1_000_000)
        assert np.median(x) == pytest.approx(median, rel=0.01, abs=0.5), name
        assert x.mean() == pytest.approx(mean, abs=tol), name
        assert t.mean() == pytest.approx(mean, abs=0.01 * mean), name
        assert x.min() >= t.values[0] and x.max() <= t.values[-1], name
    think = mah_table("think_time")
    assert think.mean(cap=600) == pytest.approx(98.5, abs=0.5)  # digest: cap rule 98.5 s
    assert np.mean(think.sample(rng, 200_000) <= 600) == pytest.approx(0.905, abs=0.003)
    # integral tables reproduce the tabulated masses
    vals, p = mah_table("files_per_document").pmf()
    assert p.sum() == pytest.approx(1.0) and p[vals == 1][0] == pytest.approx(0.486, abs=1e-3)


@pytest.fixture(scope="module")
def scripts():
    return MahWorkload().generate(1000, 5400, seed=3)


def test_mah_scripts_are_consistent_csr(scripts):
    s = scripts
    a = s.arrays()
    assert a["user_first_page"][0] == 0 and a["user_first_page"][-1] == s.n_pages
    assert np.all(np.diff(a["user_first_page"]) >= 1)
    np.testing.assert_array_equal(a["page_object_offsets"][:-1], s.page_first_object)
    np.testing.assert_array_equal(np.diff(a["page_object_offsets"]), s.page_n_objects)
    assert a["page_object_offsets"][-1] == s.n_objects
    for u in (0, 17, 999):
        lo, hi = s.user_first_page[u], s.user_first_page[u + 1]
        assert np.all(s.page_user[lo:hi] == u)
        np.testing.assert_array_equal(s.page_index[lo:hi], np.arange(hi - lo))
        # the script outlasts the run: start + sum(think) reaches duration at the last page only
        t = s.user_start_s[u] + np.cumsum(s.page_think_s[lo:hi])
        assert t[-1] >= 5400 and (hi - lo == 1 or t[-2] < 5400)
    assert s.page_server.min() >= 0 and s.page_server.max() == 6
    assert s.page_n_objects.min() >= 1
    assert np.all(s.object_is_primary[s.page_first_object])
    assert s.object_is_primary.sum() == s.n_pages
    assert np.all((s.user_start_s >= 0) & (s.user_start_s < 1.0))
    assert s.pages.columns.tolist() == ["user", "page_index", "server", "n_objects", "think_s",
                                         "first_object", "new_server"]
    assert s.objects.columns.tolist() == ["page", "request_bytes", "reply_bytes", "is_primary",
                                           "reply_primary_table"]


def test_mah_scripts_keep_the_unc_quirks(scripts):
    s = scripts
    pg, ob = s.pages, s.objects
    assert pg.think_s.max() <= 600.0  # 10-minute cap
    # no think time when moving to the next server: last page of each visit
    next_new = np.roll(pg.new_server.to_numpy(), -1)
    last_of_user = np.zeros(len(pg), bool)
    last_of_user[s.user_first_page[1:] - 1] = True
    assert np.all(pg.think_s[next_new & ~last_of_user] == 0.0)
    assert np.mean(pg.think_s[~next_new] > 0) == 1.0
    # the first two replies of a page from the primary table, requests from the right tables
    pos = np.arange(s.n_objects) - np.repeat(s.page_first_object, s.page_n_objects)
    np.testing.assert_array_equal(ob.reply_primary_table, pos < 2)
    # second objects' replies are primary-like: P(> 100 KB) = 1.8 % (primary) vs 0.6 %
    # (secondary); ~1.3e5 second objects, binomial sd 4e-4
    assert np.mean(ob.reply_bytes[pos == 1] > 100_000) == pytest.approx(0.018, abs=0.003)
    assert np.mean(ob.reply_bytes[pos >= 2] > 100_000) == pytest.approx(0.006, abs=0.002)
    assert ob.request_bytes.min() >= 1 and ob.reply_bytes.min() >= 1


def test_mah_script_statistics(scripts):
    """~77 k pages and ~220 k objects from 1000 users over 90 min."""
    s = scripts
    pg, ob = s.pages, s.objects
    expect = MahWorkload().expected_page_stats()
    assert pg.n_objects.mean() == pytest.approx(2.90, abs=0.05)  # sd 0.015
    assert pg.n_objects.median() == 2
    prim, sec = ob[ob.is_primary], ob[~ob.is_primary]
    assert prim.request_bytes.mean() == pytest.approx(395.5, abs=4)  # sd 1.2 B
    assert sec.request_bytes.mean() == pytest.approx(334.5, abs=3)  # sd 0.7 B
    assert prim.request_bytes.median() == pytest.approx(238, abs=3)
    assert prim.reply_bytes.median() == pytest.approx(2095, rel=0.04)
    # effective think time per page (Wald: stopping at the horizon does not bias the pooled
    # mean); sd ~0.6 s
    assert pg.think_s.mean() == pytest.approx(expect["think_s"], abs=2.5)


def test_mah_pages_per_server_visit():
    """Long scripts (40 users x 2e5 s, ~27 k visits): dropping each user's last, possibly cut
    and length-biased, visit then costs < 0.1 page of bias; sd of the mean 0.03."""
    s = MahWorkload().generate(40, 200_000, seed=5)
    visit = np.cumsum(s.page_new_server)
    last = visit[s.user_first_page[1:] - 1]
    k = np.bincount(visit)[1:]
    k = np.delete(k, last - 1)
    assert k.mean() == pytest.approx(4.05, abs=0.15)
    assert np.median(k) == 2 and k.max() <= 37
    assert np.mean(k == 1) == pytest.approx(0.356, abs=0.015)


def test_mah_expected_page_stats_match_digest():
    """Digest §2.3: 28.2 KB of replies per page without the UNC bugs, 32.6 KB with bug 3;
    2.904 requests per page; capped think 98.5 s."""
    bugs = MahWorkload().expected_page_stats()
    clean = MahWorkload(primary_reply_quirk=False, no_think_on_switch=False).expected_page_stats()
    assert clean["reply_bytes"] == pytest.approx(28_200, rel=0.01)
    assert bugs["reply_bytes"] == pytest.approx(32_600, rel=0.01)
    assert bugs["objects"] == pytest.approx(2.904, abs=0.001)
    assert clean["think_s"] == pytest.approx(98.5, abs=0.3)
    assert bugs["think_s"] == pytest.approx(98.5 * (1 - 1 / 4.055), abs=0.3)


def test_mah_common_random_numbers(scripts):
    s = scripts
    # user i's script does not depend on how many users there are or where the run stops
    few = MahWorkload().generate(3, 2000, seed=3)
    for u in range(3):
        lo, hi = s.user_first_page[u], s.user_first_page[u + 1]
        flo, fhi = few.user_first_page[u], few.user_first_page[u + 1]
        assert fhi - flo <= hi - lo
        np.testing.assert_array_equal(few.page_server[flo:fhi], s.page_server[lo:lo + fhi - flo])
        np.testing.assert_array_equal(few.page_n_objects[flo:fhi],
                                      s.page_n_objects[lo:lo + fhi - flo])
    one = MahWorkload().generate(1, 5400, seed=3, first_user=17)
    lo, hi = s.user_first_page[17], s.user_first_page[18]
    np.testing.assert_array_equal(one.page_think_s, s.page_think_s[lo:hi])
    # the quirk flags reinterpret the same draws
    plain = MahWorkload(primary_reply_quirk=False).generate(1000, 5400, seed=3)
    np.testing.assert_array_equal(plain.object_request_bytes, s.object_request_bytes)
    pos2 = ~s.object_reply_primary_table
    np.testing.assert_array_equal(plain.object_reply_bytes[pos2], s.object_reply_bytes[pos2])


def test_mah_zipf_server_choice():
    s = MahWorkload(server_choice="zipf", n_servers=4).generate(300, 3000, seed=1)
    visits = s.page_server[s.page_new_server]
    freq = np.bincount(visits, minlength=4) / len(visits)
    want = (1 / np.arange(1, 5)) / np.sum(1 / np.arange(1, 5))
    np.testing.assert_allclose(freq, want, atol=0.02)


def test_workload_never_imports_ns3():
    code = (
        "import sys, aqmlab.workload as w\n"
        "w.PackMimeWorkload().generate(10, 5); w.MahWorkload().generate(2, 60)\n"
        "print(','.join(m for m in ('ns', 'cppyy', 'aqmlab.engines.ns3') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd="/tmp")
    assert out.stdout.strip() == ""


def test_mah_think_never_exceeds_cap_even_uncapped_table_tail():
    s = MahWorkload(no_think_on_switch=False).generate(200, 20_000, seed=8)
    assert s.page_think_s.max() <= 600.0
    assert math.isclose(s.page_think_s.max(), 600.0)  # the cap binds (~9.5 % of pages)
    assert np.mean(s.page_think_s == 600.0) == pytest.approx(0.095, abs=0.01)
