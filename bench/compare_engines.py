"""One scenario on both engines: the summary rows side by side, with each engine's CPU
seconds (ns-3: ``run_cpu_s`` of the simulation loop in aqmlab's worker; ns-2: user +
system CPU of the whole ``ns`` process, Tcl set-up included) and their ratio.

    .venv/bin/python bench/compare_engines.py examples/qiu_t1_dumbbell.toml \
        --set topology.senders=300 --set traffic[0].flows=300

Run it from a small working directory (the ns-3 loader scans the cwd). ``--set`` takes
dotted scenario paths (values parsed as TOML, else as strings); ``--engines ns2`` runs one.
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib

import pandas as pd

ROWS = ["end_s", "utilisation", "goodput_mbps", "throughput_mbps", "loss_rate",
        "mark_rate", "avg_qlen_pkts", "max_qlen_pkts", "drops", "marks", "timeouts",
        "retransmitted_packets", "fast_recoveries", "jain_fairness", "responses",
        "responses_completed", "median_response_time_s", "share_responses_with_loss",
        "run_cpu_s"]


def value(text: str):
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def simulate(engine: str, scenario):
    """(summary row, CPU seconds, wall seconds) of one engine's run."""
    t0 = time.perf_counter()
    import aqmlab

    res = aqmlab.run(scenario.replace(**{"run.engine": engine}))
    wall = time.perf_counter() - t0
    s = res.summary.iloc[0]
    return s, float(s.run_cpu_s), wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", help="scenario file (.toml or .json)")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="override a dotted scenario field (repeatable)")
    ap.add_argument("--engines", default="ns3,ns2", help="comma-separated: ns3, ns2")
    args = ap.parse_args()
    from aqmlab.errors import ScenarioError
    from aqmlab.scenario import Scenario

    sc = Scenario.load(args.scenario)
    if args.set:
        sc = sc.replace(**{k: value(v) for k, v in (s.split("=", 1) for s in args.set)})
    print(f"# {sc.name} {sc.key}  " + "  ".join(args.set), flush=True)
    cols, cpu = {}, {}
    for engine in args.engines.split(","):
        try:
            s, cpu[engine], wall = simulate(engine, sc)
        except ScenarioError as err:
            print(f"# {engine} refuses the scenario: {err}")
            continue
        cols[engine] = s.reindex(ROWS)
        print(f"# {engine}: {cpu[engine]:.2f} CPU s, {wall:.1f} s wall", flush=True)
    table = pd.DataFrame(cols)
    if {"ns3", "ns2"} <= cpu.keys():
        ratio = pd.to_numeric(table["ns3"], errors="coerce") / \
            pd.to_numeric(table["ns2"], errors="coerce")
        table["ns3/ns2"] = ratio.round(3)
    with pd.option_context("display.width", 160, "display.float_format", "{:.5g}".format):
        print(table.to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
