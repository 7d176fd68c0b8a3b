"""Bad inputs, each refused before anything runs with one line naming the file or field.

Every case is a scenario file. Each is loaded in this process (a ScenarioError, never
another exception) and all are given to one ``aqmlab validate`` (a subprocess), which must
name every file on a line of its own, say what is wrong, and exit with status 2.
"""

from __future__ import annotations

import os
import re

import pytest

from aqmlab.errors import ScenarioError
from aqmlab.scenario import Scenario
from tests.chaos.conftest import ROOT, one_line_error, run_cli

#: A valid scenario that the value cases below break one field at a time.
BASE = {
    "name": 'name = "chaos"',
    "topology": '[topology]\nkind = "dumbbell"\nsenders = 2\n'
                'bottleneck = { rate = "10Mbps", delay = "20ms" }',
    "queue": '[topology.forward_queue]\nkind = "droptail"\nlimit = "100p"',
    "tcp": '[tcp]\nvariant = "reno"',
    "traffic": '[[traffic]]\nkind = "bulk"\nflows = 2',
    "run": '[run]\nduration = "10s"',
}


def scenario(**parts: str) -> str:
    """BASE with some parts replaced (a part set to "" is left out)."""
    return "\n".join(v for v in {**BASE, **parts}.values() if v) + "\n"


def topo(line: str, kind: str = "dumbbell") -> str:
    return f'[topology]\nkind = "{kind}"\n{line}'


def queue(body: str) -> str:
    return f"[topology.forward_queue]\n{body}"


def run(body: str) -> str:
    return f"[run]\n{body}"


def traffic(body: str) -> str:
    return f"[[traffic]]\n{body}"


# id -> (file name, content: text, or bytes for raw files, or None for no file), expected
#        words in the message (the field named, what is allowed)
CASES: dict[str, tuple[str, str | bytes | None, tuple[str, ...]]] = {
    # -- the file itself --------------------------------------------------------------------
    "empty file": ("empty.toml", "", ("is empty",)),
    "only a comment": ("comment.toml", "# nothing here\n\n", ("is empty",)),
    "empty json": ("empty.json", "  \n", ("is empty",)),
    "empty json object": ("obj.json", "{}", ("is empty",)),
    "json top-level list": ("list.json", "[1, 2, 3]", ("top level", "not a list")),
    "json top-level number": ("num.json", "42", ("top level", "not a number")),
    "json top-level null": ("null.json", "null", ("top level", "not null")),
    "invalid toml": ("bad.toml", "name = \n", ("invalid TOML",)),
    "invalid json": ("bad.json", '{"name": ', ("invalid JSON",)),
    "json nested too deeply": ("deep.json", "[" * 100000 + "]" * 100000, ("invalid JSON",)),
    "not utf-8": ("latin1.toml", b'name = "caf\xe9"\n', ("not UTF-8", "0xe9")),
    "utf-16": ("utf16.toml", 'name = "x"\n'.encode("utf-16"), ("not UTF-8",)),
    "binary garbage": ("garbage.toml", bytes(range(256)) * 4, ("not UTF-8",)),
    "a folder": ("folder.toml", None, ("is a folder",)),
    "missing file": ("missing.toml", None, ("no such file",)),
    "wrong suffix": ("scenario.yaml", 'name = "x"\n', ("must end in .toml or .json",)),
    "not a regular file": ("fifo.toml", None, ("not a regular file",)),
    "too large": ("huge.toml", None, ("MiB", "at most 16 MiB")),
    "path through a file": ("empty.toml/x.toml", None, ("not a folder",)),
    # -- structure --------------------------------------------------------------------------
    "unknown top-level key": ("k1.toml", scenario(name='tpology = 1'),
                              ("tpology", "unknown key", "did you mean 'topology'")),
    "topology is a string": ("k2.toml", 'topology = "dumbbell"\n', ("topology",)),
    "traffic is a number": ("k3.toml", "traffic = 5\n", ("traffic", "must be a list")),
    "no traffic groups": ("k4.toml", "traffic = []\n", ("traffic", "at least one group")),
    "unknown run key": ("k5.toml", scenario(run=run('duration = "10s"\nrepeat = 3')),
                        ("run.repeat", "unknown key")),
    # -- durations --------------------------------------------------------------------------
    "duration 1e12s": ("d1.toml", scenario(run=run('duration = "1e12s"')),
                       ("run.duration", "9.2e9 s", "64-bit nanoseconds")),
    "duration 1e9s": ("d2.toml", scenario(run=run('duration = "1e9s"')),
                      ("run.duration", "<= 1e+06 s", "events", "run.force = true")),
    "duration 2e6s": ("d3.toml", scenario(run=run('duration = "2e6s"')),
                      ("run.duration", "run.force = true")),
    "duration negative": ("d4.toml", scenario(run=run('duration = "-1s"')),
                          ("run.duration", ">= 0")),
    "duration zero": ("d5.toml", scenario(run=run('duration = "0s"')),
                      ("run.duration", "> 0")),
    "duration nan text": ("d6.toml", scenario(run=run('duration = "nan"')),
                          ("run.duration", "a duration")),
    "duration nan float": ("d7.toml", scenario(run=run("duration = nan")),
                           ("run.duration", "finite")),
    "duration inf float": ("d8.toml", scenario(run=run("duration = inf")),
                           ("run.duration", "finite")),
    "duration 1e400s": ("d9.toml", scenario(run=run('duration = "1e400s"')),
                        ("run.duration", "out of range")),
    "duration below 1 ns": ("d10.toml", scenario(run=run('duration = "0.1ns"')),
                            ("run.duration", "1ns")),
    "duration in parsecs": ("d11.toml", scenario(run=run('duration = "10 parsecs"')),
                            ("run.duration", "a duration")),
    "duration a huge integer": ("d12.toml", scenario(run=run("duration = " + "9" * 30)),
                                ("run.duration", "9.2e9 s")),
    "warmup beyond duration": ("d13.toml", scenario(run=run('duration = "10s"\nwarmup = "20s"')),
                               ("run.warmup", "< duration")),
    "delay 1e12s": ("d14.toml", scenario(topology=topo(
        'bottleneck = { rate = "10Mbps", delay = "1e12s" }')),
        ("topology.bottleneck.delay", "9.2e9 s")),
    "start beyond the clock": ("d15.toml", scenario(traffic=traffic(
        'kind = "bulk"\nflows = 1\nstart = "9e9s"\nstart_spread = "9e9s"')),
        ("traffic[0].start_spread", "9.2e9 s")),
    # -- run control ------------------------------------------------------------------------
    "seed zero": ("r1.toml", scenario(run=run("seed = 0")), ("run.seed", ">= 1")),
    "seed beyond 32 bits": ("r2.toml", scenario(run=run("seed = 1099511627776")),
                            ("run.seed", "<= 4294967295")),
    "seed as text": ("r3.toml", scenario(run=run('seed = "1"')), ("run.seed", "integer")),
    "run beyond 64 bits": ("r4.toml", scenario(run=run("run = " + "1" * 25)),
                           ("run.run", "64-bit")),
    "force not a boolean": ("r5.toml", scenario(run=run('force = "yes"')),
                            ("run.force", "true or false")),
    "stop after zero responses": ("r6.toml", scenario(run=run("stop_after_responses = 0")),
                                  ("run.stop_after_responses", ">= 1")),
    "sampling every microsecond": ("r7.toml", scenario(run=run(
        'duration = "1000s"\nsample_interval = "1us"')),
        ("run.sample_interval", "memory", "run.force = true")),
    # -- rates ------------------------------------------------------------------------------
    "rate 1e30Tbps": ("q1.toml", scenario(topology=topo(
        'bottleneck = { rate = "1e30Tbps", delay = "20ms" }')),
        ("topology.bottleneck.rate", "1000Tbps")),
    "rate zero": ("q2.toml", scenario(topology=topo(
        'bottleneck = { rate = "0Mbps", delay = "20ms" }')), ("topology.bottleneck.rate", "> 0")),
    "rate negative": ("q3.toml", scenario(topology=topo(
        'bottleneck = { rate = "-10Mbps", delay = "20ms" }')), ("topology.bottleneck.rate",)),
    "rate as a word": ("q4.toml", scenario(topology=topo(
        'bottleneck = { rate = "fast", delay = "20ms" }')),
        ("topology.bottleneck.rate", "such as '10Mbps'")),
    "rate fraction of a bit": ("q5.toml", scenario(topology=topo(
        'bottleneck = { rate = "1.5bps", delay = "20ms" }')),
        ("topology.bottleneck.rate", "whole number")),
    "rate nan": ("q6.toml", scenario(topology=topo(
        'bottleneck = { rate = nan, delay = "20ms" }')), ("topology.bottleneck.rate", "finite")),
    "rate 200Gbps": ("q7.toml", scenario(topology=topo(
        'bottleneck = { rate = "200Gbps", delay = "20ms" }')),
        ("topology.bottleneck.rate", "100Gbps", "run.force = true")),
    "rate_scale overflow": ("q8.toml", scenario(topology=topo(
        'rate_scale = 1e12\nbottleneck = { rate = "10Gbps", delay = "20ms" }')),
        ("topology.bottleneck.rate", "rate_scale")),
    "billions of events": ("q9.toml", scenario(
        topology=topo('bottleneck = { rate = "100Gbps", delay = "1ms" }\n'
                      'access = { rate = "100Gbps", delay = "1ms" }'),
        run=run('duration = "1e5s"')), ("run.duration", "events", "run.force = true")),
    # -- hosts and flows --------------------------------------------------------------------
    "zero senders": ("h1.toml", scenario(topology=topo("senders = 0")),
                     ("topology.senders", ">= 1")),
    "5000 senders": ("h2.toml", scenario(topology=topo("senders = 5000")),
                     ("topology.senders", "<= 1000")),
    "senders as a float": ("h3.toml", scenario(topology=topo("senders = 1.5")),
                           ("topology.senders", "integer")),
    "too many parking-lot hosts": ("h4.toml", scenario(
        topology=topo("routers = 20\ncross_senders = 200", "parking_lot"), queue=""),
        ("topology", "hosts and routers", "run.force = true")),
    "one router": ("h5.toml", scenario(topology=topo("routers = 1", "parking_lot"), queue=""),
                   ("topology.routers", ">= 2")),
    "a billion flows": ("f1.toml", scenario(traffic=traffic('kind = "bulk"\nflows = 1000000000')),
                        ("traffic[0].flows", "100,000", "run.force = true")),
    "zero flows": ("f2.toml", scenario(traffic=traffic('kind = "bulk"\nflows = 0')),
                   ("traffic[0].flows", ">= 1")),
    "negative flows": ("f3.toml", scenario(traffic=traffic('kind = "bulk"\nflows = -1')),
                       ("traffic[0].flows",)),
    "flows as a float": ("f4.toml", scenario(traffic=traffic('kind = "bulk"\nflows = 1.5')),
                         ("traffic[0].flows", "integer")),
    "unknown traffic kind": ("f5.toml", scenario(traffic=traffic('kind = "torrent"')),
                             ("traffic[0].kind", "known kinds")),
    "transfer of 1e30 bytes": ("f6.toml", scenario(traffic=traffic(
        'kind = "transfers"\ncount = 1\nsize = "1e30B"')), ("traffic[0].size", "1 PB")),
    "transfer of zero bytes": ("f7.toml", scenario(traffic=traffic(
        'kind = "transfers"\ncount = 1\nsize = "0B"')), ("traffic[0].size", "> 0")),
    "a million connections/s": ("f8.toml", scenario(traffic=traffic(
        'kind = "packmime"\nrate = 1e6')), ("traffic[0].rate", "connections", "run.force")),
    "web rate nan": ("f9.toml", scenario(traffic=traffic('kind = "packmime"\nrate = nan')),
                     ("traffic[0].rate", "finite")),
    "web rate negative": ("f10.toml", scenario(traffic=traffic('kind = "packmime"\nrate = -5')),
                          ("traffic[0].rate", "> 0")),
    "load without calibration": ("f11.toml", scenario(traffic=traffic(
        'kind = "packmime"\nload = 0.8')), ("traffic[0].calibration", "calibrate")),
    "web memory beyond 8 GiB": ("f12.toml", scenario(
        traffic=traffic('kind = "packmime"\nrate = 50000'), run=run('duration = "500s"')),
        ("traffic[0].rate", "memory", "GiB", "run.force = true")),
    "200,000 browsing users": ("f13.toml", scenario(traffic=traffic(
        'kind = "mah"\nusers = 200000')), ("traffic[0].users", "100,000")),
    "zero users": ("f14.toml", scenario(traffic=traffic('kind = "mah"\nusers = 0')),
                   ("traffic[0].users", ">= 1")),
    # -- queues -----------------------------------------------------------------------------
    "limit of 2 packets": ("l1.toml", scenario(queue=queue('kind = "droptail"\nlimit = "2p"')),
                           ("topology.forward_queue.limit", ">= 3 packets")),
    "limit 1e30 bytes": ("l2.toml", scenario(queue=queue('kind = "droptail"\nlimit = "1e30B"')),
                         ("topology.forward_queue.limit", "32-bit")),
    "limit 5e9 packets": ("l3.toml", scenario(queue=queue(
        'kind = "droptail"\nlimit = "5000000000p"')), ("topology.forward_queue.limit", "32-bit")),
    "limit 2e6 packets": ("l4.toml", scenario(queue=queue(
        'kind = "droptail"\nlimit = "2000000p"')),
        ("topology.forward_queue.limit", "1,000,000 packets", "run.force = true")),
    "limit in widgets": ("l5.toml", scenario(queue=queue('kind = "droptail"\nlimit = "100 widgets"')),
                         ("topology.forward_queue.limit", "a size")),
    "unknown queue kind": ("l6.toml", scenario(queue=queue('kind = "blue"')),
                           ("topology.forward_queue.kind", "known kinds")),
    "red min_th above max_th": ("l7.toml", scenario(queue=queue(
        'kind = "red"\nlimit = "100p"\nmin_th = 20\nmax_th = 10')),
        ("topology.forward_queue.min_th", "max_th")),
    "red max_p above 1": ("l8.toml", scenario(queue=queue(
        'kind = "red"\nlimit = "100p"\nmax_p = 2.0')), ("topology.forward_queue.max_p", "<= 1")),
    # -- tcp --------------------------------------------------------------------------------
    "unknown tcp variant": ("t1.toml", scenario(tcp='[tcp]\nvariant = "vegas"'),
                            ("tcp.variant",)),
    "mss too small": ("t2.toml", scenario(tcp='[tcp]\nmss = 50'), ("tcp.mss", ">= 100")),
    "window beyond 32 bits": ("t3.toml", scenario(tcp='[tcp]\nrcv_window = "5GB"'),
                              ("tcp.rcv_window", "32 bits")),
    "initial cwnd beyond 32 bits": ("t4.toml", scenario(tcp="[tcp]\ninitial_cwnd = 1099511627776"),
                                    ("tcp.initial_cwnd", "32 bits")),
    "send buffer 1e30 bytes": ("t5.toml", scenario(tcp='[tcp]\nsnd_buffer = "1e30B"'),
                               ("tcp.snd_buffer", "1 PB")),
    "dctcp without ecn": ("t6.toml", scenario(tcp='[tcp]\nvariant = "dctcp"'),
                          ("tcp", "ecn")),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Every case's file, by id."""
    d = tmp_path_factory.mktemp("bad-inputs")
    paths = {}
    for case, (name, content, _) in CASES.items():
        path = d / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        paths[case] = path
    paths["a folder"].mkdir()
    os.mkfifo(paths["not a regular file"])
    with open(paths["too large"], "wb") as f:  # sparse: 20 MiB that take no space
        f.truncate(20 * 2**20)
    return paths


@pytest.fixture(scope="module")
def validated(files):
    """One `aqmlab validate` over every file: the stderr line of each file, the status."""
    out = run_cli("validate", *map(str, files.values()))
    lines = {}
    for case, path in files.items():
        hits = [ln for ln in out.stderr.splitlines() if ln.startswith(f"{path}: ")]
        lines[case] = hits
    return out, lines


def test_validate_fails_and_names_every_file(validated):
    out, _ = validated
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stdout == ""  # no case is valid
    assert f"{len(CASES)} of {len(CASES)} files are invalid" in out.stderr


def test_there_are_at_least_60_cases():
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_refused_with_one_clear_line(files, validated, case):
    """The file is named on exactly one line that says what is wrong (the field, what is
    allowed); loading it raises ScenarioError, never another exception."""
    _name, _content, needles = CASES[case]
    path = files[case]
    with pytest.raises(ScenarioError) as err:
        Scenario.load(path)
    for needle in needles:
        assert needle in str(err.value), (needle, str(err.value))
    hits = validated[1][case]
    assert len(hits) == 1, validated[0].stderr
    for needle in needles:
        assert needle in hits[0]


def test_valid_and_invalid_files_together(tmp_path):
    """A good file is reported ok, a bad one named; the status says one was bad."""
    good = ROOT / "examples" / "qiu_t1_dumbbell.toml"
    bad = tmp_path / "bad.toml"
    bad.write_text(scenario(run=run('duration = "1e12s"')))
    out = run_cli("validate", str(good), str(bad))
    assert out.returncode == 2
    assert re.search(rf"^{re.escape(str(good))}: ok \(", out.stdout, re.M)
    assert "events" in out.stdout  # the cost estimate of a valid file
    assert f"{bad}: run.duration" in out.stderr and "1 of 2 files" in out.stderr


@pytest.mark.parametrize("change", [
    'duration = "1e12s"', 'flows = 1000000000', 'rate = "1e30Tbps"'])
def test_run_refuses_the_issues_cases_before_simulating(tmp_path, change):
    """`aqmlab run` of each of issue 32's cases fails in one line and starts nothing (the
    CLI harness fails if a simulation is started)."""
    parts = {"flows = 1000000000": {"traffic": traffic(f'kind = "bulk"\n{change}')},
             'duration = "1e12s"': {"run": run(change)},
             'rate = "1e30Tbps"': {"topology": topo(f'bottleneck = {{ {change}, delay = "1ms" }}')}}
    path = tmp_path / "bad.toml"
    path.write_text(scenario(**parts[change]))
    out = run_cli("run", str(path), "--out", str(tmp_path / "out"))
    one_line_error(out, "is invalid")
    assert not (tmp_path / "out").exists()


def test_force_lets_the_deliberate_giant_run_through():
    """run.force skips the soft limits (not the hard ones) and stays out of the hash."""
    giant = scenario(run=run('duration = "1e9s"\nforce = true'))
    sc = Scenario.from_toml(giant)
    assert sc.run.force and sc.run.duration_s == 1e9
    plain = Scenario.from_toml(scenario(run=run('duration = "1e9s"'))
                               .replace("1e9s", "1e5s")).replace(**{"run.duration": "1e9s",
                                                                     "run.force": True})
    assert plain.hash == sc.hash  # force is not what is simulated
    assert "force = true" in sc.to_toml()
    assert "force" not in Scenario.from_toml(scenario()).to_toml()  # written only when true
    with pytest.raises(ScenarioError, match="9.2e9 s"):  # hard limits stay
        Scenario.from_toml(scenario(run=run('duration = "1e12s"\nforce = true')))
