"""The kit's clock, bound when the kit is imported.

A driver may patch `time.perf_counter`, `time.monotonic` or `time.sleep` (to freeze time
in its own tests, say, or by accident). The kit measures durations, enforces time limits
and backs off with the functions bound here, before any driver was imported, so no such
patch can move them.
"""

from __future__ import annotations

import time

__all__ = ["monotonic", "perf_counter", "sleep"]

perf_counter = time.perf_counter
monotonic = time.monotonic
sleep = time.sleep
