"""Building and choosing the socket-tables library (aqmlab/engines/ns3/socket_tables.py); whether
results stay identical is tests/sim/test_socket_tables.py; a failed compile, for every
interposed library, is tests/unit/test_interposer.py."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import pytest

from aqmlab.engines.ns3 import socket_tables


@pytest.fixture
def unloaded(monkeypatch, tmp_path):
    """This process as if the library were not loaded yet, with an empty cache."""
    monkeypatch.setattr(socket_tables, "LIBRARY", dataclasses.replace(socket_tables.LIBRARY))
    monkeypatch.setenv("AQMLAB_CACHE", str(tmp_path))
    return tmp_path


def test_switched_off_by_the_environment(unloaded, monkeypatch):
    monkeypatch.setenv("AQMLAB_SOCKET_TABLES", "0")
    assert socket_tables.load(unloaded, "3.44") is False
    assert not socket_tables.active()
    assert socket_tables.calls() == dict.fromkeys(socket_tables.FUNCTIONS, 0)
    assert not any(unloaded.iterdir())  # nothing compiled


@pytest.mark.skipif(shutil.which("g++") is None or shutil.which("nm") is None,
                    reason="needs g++ and nm")
def test_library_exports_only_the_interposed_members(unloaded):
    from aqmlab.engines.ns3.loader import wheel_prefix

    path = socket_tables.library_path(wheel_prefix(), "3.44")
    assert path is not None and path.is_relative_to(unloaded)
    assert socket_tables.library_path(wheel_prefix(), "3.44") == path  # cached
    names = subprocess.run(["nm", "-D", "--defined-only", "-C", str(path)], check=True,
                           capture_output=True, text=True).stdout
    for member in ("ns3::TcpL4Protocol::AddSocket", "ns3::TcpL4Protocol::RemoveSocket",
                   "ns3::Ipv4EndPointDemux::DeAllocate", "ns3::Ipv4EndPointDemux::Allocate(",
                   "ns3::Ipv4EndPointDemux::~Ipv4EndPointDemux", "aqmlab_socket_tables_reset",
                   "ns3::TcpTxBuffer::NextSeg", "ns3::Node::ChecksumEnabled",
                   "ns3::DataRate::DataRate("):
        assert member in names
    symbols = [line.split(" ", 2)[2] for line in names.splitlines() if line.count(" ") >= 2]
    # template code stays private to the library (an interposed member may take a std type)
    assert not [s for s in symbols if s.startswith(("std::", "void std::", "__gnu_cxx::"))]
