"""Trace the Training families' steps again into lib/workloads/traced_counts.json (the kernels per step),
lib/workloads/traced_work.json (FLOPs, bytes, forward bytes and parameters at every setting the Training page
reaches) and lib/workloads/mlp_counts.json (the MLP's FLOPs and bytes as forms in its sizes, for any setting):
what the web server prices and draws without importing torch (tests/test_traced.py and tests/test_counted.py
check they are current).

    python scripts/trace_counts.py            # every family (a quarter of an hour on a 2-core box)
    python scripts/trace_counts.py resmlp     # only the families named (a family added or changed); the
                                              # others' entries stay as shipped
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lib.workloads import FAMILIES
from lib.workloads.counted import write_work
from lib.workloads.mlp_fit import write_forms
from lib.workloads.traced import write_counts

if __name__ == "__main__":
    named = sys.argv[1:] or None
    unknown = set(named or ()) - {f.name for f in FAMILIES}
    if unknown:
        sys.exit(f"no Training family {', '.join(sorted(unknown))} (known: {', '.join(f.name for f in FAMILIES)})")
    started = time.perf_counter()
    for name, entries in write_counts(FAMILIES, named).items():
        print(name, {kind: f"{base:g} + {per:g} x depth" for kind, (base, per) in entries[0].lines.items()})
    for name, settings in write_work(FAMILIES, named).items():
        print(f"{name}: FLOPs, bytes, forward bytes and parameters at {settings} page settings")
    if named is None or "mlp" in named:
        print(f"mlp: FLOPs and bytes as forms in its sizes for {len(write_forms())} optimizers and losses")
    print(f"traced in {time.perf_counter() - started:.0f} s")
