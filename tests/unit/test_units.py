"""Unit parsing and formatting (aqmlab.units)."""

from __future__ import annotations

import math

import pytest

from aqmlab.errors import ScenarioError, UnknownKindError
from aqmlab.units import (
    check_float,
    check_int,
    check_keys,
    check_kind,
    format_rate,
    format_time,
    parse_bytes,
    parse_rate,
    parse_size,
    parse_time,
    prefixed,
)


@pytest.mark.parametrize(
    ("value", "bps"),
    [
        ("10Mbps", 10_000_000),
        ("1.5Mbps", 1_500_000),
        ("128kbps", 128_000),
        ("128Kbps", 128_000),
        ("1544000bps", 1_544_000),
        ("1Gbps", 1_000_000_000),
        ("10Mb/s", 10_000_000),
        ("10 Mbps", 10_000_000),
        ("1MBps", 8_000_000),
        ("0.1Mbps", 100_000),
        (2_000_000, 2_000_000),
        (1.5e6, 1_500_000),
    ],
)
def test_parse_rate_good(value: object, bps: int) -> None:
    got = parse_rate(value, "rate")
    assert got == bps
    assert isinstance(got, int)


@pytest.mark.parametrize(
    "value",
    [
        "0Mbps",
        "-1Mbps",
        "10",
        "10M",
        "10Mbit",
        "fast",
        "",
        0,
        -5,
        True,
        None,
        float("inf"),
        "1.5bps",
    ],
)
def test_parse_rate_bad(value: object) -> None:
    with pytest.raises(ScenarioError, match=r"^topology\.bottleneck\.rate = "):
        parse_rate(value, "topology.bottleneck.rate")


def test_parse_rate_zero_message() -> None:
    with pytest.raises(ScenarioError, match="rate must be > 0"):
        parse_rate("0bps", "link.rate")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("20ms", 0.02),
        ("0.5ms", 0.0005),
        ("1s", 1.0),
        ("100us", 1e-4),
        ("2min", 120.0),
        ("1ns", 1e-9),
        ("1h", 3600.0),
        ("0s", 0.0),
        (0, 0.0),
        (1.25, 1.25),
    ],
)
def test_parse_time_good(value: object, seconds: float) -> None:
    got = parse_time(value, "delay")
    assert isinstance(got, float)
    assert math.isclose(got, seconds, rel_tol=1e-12, abs_tol=0)


@pytest.mark.parametrize(
    "value", ["-1ms", -0.1, "20", "20 parsecs", "ms", None, False, float("nan")]
)
def test_parse_time_bad(value: object) -> None:
    with pytest.raises(ScenarioError, match=r"^run\.warmup = "):
        parse_time(value, "run.warmup")


def test_parse_time_negative_message() -> None:
    with pytest.raises(ScenarioError, match="delay must be >= 0"):
        parse_time("-5ms", "topology.access.delay")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("160p", (160, "p")),
        ("160pkts", (160, "p")),
        ("160 packets", (160, "p")),
        (160, (160, "p")),
        ("100KB", (100_000, "B")),
        ("100kB", (100_000, "B")),
        ("20MiB", (20_971_520, "B")),
        ("1500B", (1500, "B")),
        ("1KiB", (1024, "B")),
        ("2GB", (2_000_000_000, "B")),
        ("1.5KB", (1500, "B")),
    ],
)
def test_parse_size_good(value: object, expected: tuple[int, str]) -> None:
    assert parse_size(value, "limit") == expected


@pytest.mark.parametrize(
    "value", ["0p", "-3p", "1.5p", "10Mb", "10", "lots", 1.5, True, None, "0.5B"]
)
def test_parse_size_bad(value: object) -> None:
    with pytest.raises(ScenarioError, match=r"^q\.limit = "):
        parse_size(value, "q.limit")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1MB", 1_000_000), ("20MiB", 20_971_520), (1500, 1500), ("1500B", 1500), ("4KiB", 4096)],
)
def test_parse_bytes_good(value: object, expected: int) -> None:
    assert parse_bytes(value, "size") == expected


@pytest.mark.parametrize("value", ["100p", "10pkts", 0, "0B", "1Mbps", None])
def test_parse_bytes_bad(value: object) -> None:
    with pytest.raises(ScenarioError, match=r"^traffic\[0\]\.size = "):
        parse_bytes(value, "traffic[0].size")


def test_parse_bytes_rejects_packets_with_message() -> None:
    with pytest.raises(ScenarioError, match="in bytes"):
        parse_bytes("10p", "size")


@pytest.mark.parametrize(
    ("bps", "text"),
    [
        (10_000_000, "10Mbps"),
        (1_000_000_000, "1Gbps"),
        (128_000, "128kbps"),
        (1_544_000, "1544kbps"),
        (1_544_001, "1544001bps"),
        (1_500_000, "1500kbps"),
    ],
)
def test_format_rate(bps: int, text: str) -> None:
    assert format_rate(bps) == text
    assert parse_rate(text, "rate") == bps


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.02, "20ms"),
        (1.5, "1.5s"),
        (1e-4, "100us"),
        (0.0, "0s"),
        (120.0, "120s"),
        (0.0005, "500us"),
        (2e-9, "2ns"),
        (0.0125, "12.5ms"),
    ],
)
def test_format_time(seconds: float, text: str) -> None:
    assert format_time(seconds) == text
    assert math.isclose(parse_time(text, "t"), seconds, rel_tol=1e-12)


@pytest.mark.parametrize("seconds", [0.02, 0.1, 0.3, 1 / 3, 7e-5, 12.0])
def test_format_time_round_trip_is_stable(seconds: float) -> None:
    once = format_time(seconds)
    assert format_time(parse_time(once, "t")) == once


def test_check_helpers() -> None:
    assert check_int(3, "n", ge=1) == 3
    with pytest.raises(ScenarioError, match="n must be >= 1"):
        check_int(0, "n", ge=1)
    with pytest.raises(ScenarioError, match="n must be an integer"):
        check_int(True, "n")
    with pytest.raises(ScenarioError, match="n must be an integer"):
        check_int(2.0, "n")
    assert check_float(1, "x", gt=0) == 1.0
    with pytest.raises(ScenarioError, match="x must be > 0 and <= 1"):
        check_float(1.5, "x", gt=0, le=1)
    with pytest.raises(ScenarioError, match="finite number"):
        check_float("1", "x")


def test_check_kind_suggests_closest() -> None:
    with pytest.raises(
        UnknownKindError, match=r"known kinds: a, bulk, transfers.*did you mean 'bulk'"
    ):
        check_kind("blk", "kind", ["transfers", "bulk", "a"])


def test_check_keys_and_prefixed() -> None:
    with pytest.raises(ScenarioError, match=r"^outer\.inner\.bogus = 1 .*allowed keys: a, b"):
        with prefixed("outer"):
            check_keys({"a": 1, "bogus": 1}, ["a", "b"], prefix="inner")


def test_prefixed_keeps_error_class_and_hint() -> None:
    with pytest.raises(UnknownKindError) as info:
        with prefixed("topology.forward_queue"):
            check_kind("rde", "kind", ["red", "pie"])
    assert info.value.field == "topology.forward_queue.kind"
    assert "did you mean 'red'?" in str(info.value)
