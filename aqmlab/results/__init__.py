"""Tidy result tables of runs, and their Parquet + JSON storage."""
