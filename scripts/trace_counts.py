"""Trace every Training family's step again into lib/workloads/traced_counts.json: the kernels per
step the web server prices without importing torch (tests/test_traced.py checks they are current).

    python scripts/trace_counts.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lib.workloads import FAMILIES
from lib.workloads.traced import write_counts

if __name__ == "__main__":
    for name, entries in write_counts(FAMILIES).items():
        print(name, {kind: f"{base:g} + {per:g} x depth" for kind, (base, per) in entries[0]["kernels"].items()})
