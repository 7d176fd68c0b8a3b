"""Simulator engines behind one boundary; only these packages import or run a simulator."""
