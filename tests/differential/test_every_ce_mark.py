"""The receiver echoes every CE-marked segment, a duplicate or a retransmission below an
earlier mark too (``tcp.ecn_ce_marks = "every"``), packet by packet.

Pentikousis' five 20-MiB downloads through aggressive RED+ECN at limit 16 (the
cross-simulator study's quick ``pentikousis`` aggr-ecn q16), the only seeds of 1-6 that
parted at 0.7.7. ns-2.35's sink (``TcpSink::ack``, tcp-sink.cc) decides each ACK's echo
alike: a CWR on the held or arriving packet clears ``ecn_unacked_``, then a CE mark on
either sets it, whatever the seqno. ns-3.44's ``TcpSocketBase::ForwardUp`` takes a CE mark
only on a segment beyond the last CE-marked one (``m_ecnCESeq``), and answers a segment
wholly below the receive point (``IsValidTcpSegment``) with a bare ACK before reading its
marks.

Seed 1, flow 0 (the first rule): segment 8006 was lost; the third duplicate ACK echoed at
305.686683 s, cwnd 6.768 -> 3.384, ssthresh 3, and the fast retransmission of 8006 left
with CWR. RED marked it at 305.688351 s on both engines. ns-2.35's ACK of it (8012 acked,
305.842416 s) echoed: not beyond ``recover_`` (segment 8011) so not answered, but an
echoing ACK opens no window (cwnd kept 3.384); the next ACK (8014, 305.857989 s) echoed
past ``recover_``: cwnd 1.692, ssthresh 2, and segment 8015 waited until 306.105936 s.
ns-3 ignored the mark (a segment beyond 8006 had been marked), its ACK did not echo, cwnd
opened to 3.679 and 3.951 and 8015-8016 left at 305.857989 s.

Seed 3, flow 3 (the second): after a timeout (12.514072 s) the go-back-N resent 320-321;
321 had arrived before and came again, marked (12.645975 s at the queue). ns-2.35's sink
answered the duplicate at once with an echoing duplicate ACK (12.798873 s at the server),
the first echo after the timeout: cwnd 3 -> 1.5, ssthresh 2 (``ecn_dupack``), segment 326
at 13.070179 s. ns-3's duplicate ACK did not echo, and 326-328 left at 12.962393 s.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.differential.packets import EngineTraces, data_counts, partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS

FLOWS = list(range(5))


def _q16(seed: int, duration: str):
    def scenario(engine: str, marks: str = "auto"):
        from aqmlab.studies.setups import pentikousis

        sc = pentikousis.base("20MiB").replace(
            **dict(pentikousis.scheme_arm("aggr-ecn", 16).changes))
        return sc.replace(**{"run.engine": engine, "run.seed": seed, "run.duration": duration,
                             "tcp.ecn_ce_marks": marks})
    return scenario


SEED1 = EngineTraces(_q16(1, "306.2s"), FLOWS)
SEED3 = EngineTraces(_q16(3, "13.6s"), FLOWS)


def _window(ev: pd.DataFrame, flow: int, t0: float, t1: float) -> pd.DataFrame:
    return ev[(ev.flow == flow) & (ev.t > t0) & (ev.t < t1)].reset_index(drop=True)


def _at(ev: pd.DataFrame, event: str, t: float) -> pd.DataFrame:
    return ev[(ev.event == event) & ((ev.t - t).abs() < 1e-5)]


def test_ns2s_sink_echoes_a_marked_retransmission_with_cwr():
    raw = SEED1.raw()
    f0 = raw[(raw.fid == 0) & (raw.t > 305.68) & (raw.t < 305.86)]
    retx = f0[(f0.op == "+") & (f0.ptype == "tcp") & (f0.seq == 8007) & (f0.a == 0)]
    assert list(retx.t.round(6)) == [305.686683]  # numbered from 1: segment 8006
    assert retx["flags"].iloc[0][3] == "A"  # CWR, which clears the sink's echo ...
    acks = f0[(f0.op == "r") & (f0.ptype == "ack") & (f0.b == 0) & (f0.t > 305.8)]
    assert list(acks.seq) == [8012, 8014]
    assert [f[0] for f in acks["flags"]] == ["C", "C"]  # ... unless it is CE-marked


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_echo_of_a_marked_retransmission_holds_and_then_cuts_the_window(engine):
    ev = _window(SEED1.events(engine), 0, 305.6, 306.2)
    retx = ev[ev.event == "retx"]
    assert list(retx.seg) == [8006] and retx.t.iloc[0] == pytest.approx(305.686683, abs=1e-5)
    assert retx.cwnd.iloc[0] == pytest.approx(3.384, abs=2e-3) and retx.ssthresh.iloc[0] == 3
    held = _at(ev, "ack", 305.842416)
    assert list(held.seg) == [8012]
    assert held.cwnd.iloc[0] == pytest.approx(3.384, abs=2e-3)  # an echo opens no window
    cut = _at(ev, "ack", 305.857989)
    assert list(cut.seg) == [8014]
    assert cut.cwnd.iloc[0] == pytest.approx(1.692, abs=2e-3) and cut.ssthresh.iloc[0] == 2
    sends = ev[(ev.event == "send") & (ev.t > 305.8)]
    assert list(sends.seg) == [8014, 8015]
    assert list(sends.t.round(6)) == [305.842416, 306.105936]


def test_ns3s_rule_ignores_the_mark_below_an_earlier_one():
    ev = _window(SEED1.events("ns3", "newer_only"), 0, 305.6, 306.2)
    opened = _at(ev, "ack", 305.842416)
    assert opened.cwnd.iloc[0] == pytest.approx(3.384 + 1 / 3.384, abs=2e-3)
    sends = ev[(ev.event == "send") & (ev.t > 305.85)]
    assert list(sends.seg[:2]) == [8015, 8016]
    assert list(sends.t[:2].round(6)) == [305.857989] * 2


def test_ns2s_sink_echoes_a_marked_duplicate():
    raw = SEED3.raw()
    f3 = raw[(raw.fid == 3) & (raw.t > 12.6) & (raw.t < 12.8)]
    dup = f3[(f3.op == "+") & (f3.ptype == "tcp") & (f3.a == 0) & (f3.seq == 322)]
    assert list(dup.t.round(6)) == [12.643139]  # segment 321, sent for the second time
    acks = f3[(f3.op == "r") & (f3.ptype == "ack") & (f3.b == 0) & (f3.t > 12.7)]
    assert list(acks.seq) == [323, 323]
    assert [f[0] for f in acks["flags"]] == ["-", "C"]  # the duplicate's ACK echoes


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_echo_of_a_marked_duplicate_cuts_the_window(engine):
    ev = _window(SEED3.events(engine), 3, 12.5, 13.1)
    timeout = ev[ev.event == "timeout"]
    assert list(timeout.seg) == [319] and timeout.t.iloc[0] == pytest.approx(12.514072, abs=1e-5)
    assert list(_at(ev, "ack", 12.798873).seg) == [323]  # the duplicate's ACK
    # ns-3's trace shows that ACK before aqmlab's cut: read the window at the next one
    after = _at(ev, "ack", 12.962393)
    assert after.cwnd.iloc[0] == pytest.approx(1.5, abs=2e-3) and after.ssthresh.iloc[0] == 2
    sends = ev[(ev.event == "send") & (ev.t > 12.8)]
    assert list(sends.seg) == [326] and sends.t.iloc[0] == pytest.approx(13.070179, abs=1e-5)


def test_ns3s_rule_answers_the_duplicate_without_an_echo():
    ev = _window(SEED3.events("ns3", "newer_only"), 3, 12.5, 13.1)
    sends = ev[(ev.event == "send") & (ev.t > 12.8)]
    assert list(sends.seg[:3]) == [326, 327, 328]
    assert list(sends.t[:3].round(6)) == [12.962393] * 3


@pytest.mark.parametrize("traces", [SEED1, SEED3], ids=["seed1", "seed3"])
def test_the_runs_send_the_same_packets(traces):
    ev2, ev3 = traces.events("ns2"), traces.events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert parted == [float("inf")] * len(FLOWS), parted
    assert data_counts(ev2, FLOWS) == data_counts(ev3, FLOWS)
