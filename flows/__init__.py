"""Prefect 3 flows over the library functions in biokg.ingest (see flows/build.py)."""
