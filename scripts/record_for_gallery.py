"""Record this machine for the class gallery: one command, about a minute, one result pack.

    python3 scripts/record_for_gallery.py                       # CPU, plus CUDA when present
    python3 scripts/record_for_gallery.py --course ML101 --app-url https://your-app.example

Measures the gallery's sweep (lib.recorded.gallery.sweep: the mlp training step over batch size at
the Training page's defaults, the points of the shipped H200 pack), writes the pack, and prints
where to upload it. Needs torch only (run it from a copy of this project), not Streamlit.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.recorded.gallery.sweep import BUDGET_S, GALLERY_SWEEP, gallery_devices, record_gallery_pack  # noqa: E402

DEFAULT_APP_URL = "http://localhost:8501"


def upload_link(app_url: str, course: str | None = None) -> str:
    """The gallery page of the app, filtered to the course when one is given."""
    return f"{app_url.rstrip('/')}/gallery" + (f"?course={course.strip().upper()}" if course else "")


def main(argv: list[str] | None = None) -> int:
    from lib.__main__ import TerminalProgress
    from lib.core.results import save_pack

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="my_machine.json", help="where to write the pack (default my_machine.json)")
    parser.add_argument(
        "--devices", default=None, help="comma-separated, e.g. cpu (default: cpu, and cuda:0 if present)"
    )
    parser.add_argument("--budget", type=float, default=BUDGET_S, help=f"seconds per point (default {BUDGET_S:g})")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's own)")
    parser.add_argument("--course", default=None, help="your class's course code, for the upload link")
    parser.add_argument(
        "--app-url",
        default=os.environ.get("GPUWIN_APP_URL", DEFAULT_APP_URL),
        help="the app's address (default $GPUWIN_APP_URL or http://localhost:8501)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    devices = args.devices.split(",") if args.devices else gallery_devices()
    if "cuda:0" not in devices and not args.devices:
        print("No CUDA GPU here: recording the CPU only (the gallery shows it as a CPU-only machine).")
    print(f"Recording the gallery sweep: {GALLERY_SWEEP.describe()}; on {', '.join(devices)}.", flush=True)
    pack = record_gallery_pack(
        devices, budget_s=args.budget, num_threads=args.threads, progress=None if args.quiet else TerminalProgress()
    )
    path = save_pack(pack, args.out)
    statuses = {}
    for row in pack["rows"]:
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
    print(
        f"wrote {path.resolve()} ({len(pack['rows'])} rows: "
        + ", ".join(f"{n} {s}" for s, n in statuses.items())
        + f"), machine: {pack['machine']['label']}"
    )
    print(f"Upload it on the app's Gallery page: {upload_link(args.app_url, args.course)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
