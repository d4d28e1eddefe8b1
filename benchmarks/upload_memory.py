#!/usr/bin/env python3
"""Issue 40, items 1 and 2, replayed against a real `streamlit run serve.py`: the server's memory
(its process and every child, the measuring process included) while hostile visitors upload, and
60 s after their tabs closed.

    .venv/bin/python benchmarks/upload_memory.py --out docs/upload_memory.txt
    .venv/bin/python benchmarks/upload_memory.py --root /tmp/old_checkout      # the same against another checkout

Item 1: three visitors (browser contexts of Debian's chromium, Playwright) each give Your results'
upload widget 40 valid packs of 5,000 rows (about 4.9 MB each, each from its own machine, so none is a
duplicate), as the probe did. Item 2: a fourth uploads one 4.99 MB pack whose row has 581,750 keys;
its seconds until the page answers are printed. The server's resident memory (RSS of the server and
its children, summed) is sampled every 0.2 s: idle (after a first visit of Your results has let the
warm-up finish), the peak, and 60 s after every tab closed. Goals (issue 40): peak at most 2.7 GB,
and back within 0.2 GB of idle.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import tempfile
import threading
import time
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
import sys  # noqa: E402

sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from page_speed import CHART, CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, server, wait_idle  # noqa: E402

PEAK_GOAL_GB, BACK_GOAL_GB = 2.7, 0.2
INPUT = "[data-testid='stFileUploaderDropzoneInput']"


def make_packs(folder: Path, n: int, rows: int) -> list[Path]:
    """n valid packs of `rows` rows each, every one from its own (made-up) machine: rows of a shipped
    H200 pack, each pack's machine label and seed its own."""
    from lib.core.results import load_pack

    base = load_pack(ROOT / "lib/recorded/h200_training.json")  # sweeps of batch size: charted per machine
    paths = []
    for i in range(n):
        label = f"BENCHMARK upload box {i} (2026-11-28)"
        out = [
            {**base["rows"][j % len(base["rows"])], "seed": j // len(base["rows"]), "machine": label}
            for j in range(rows)
        ]
        pack = {"schema_version": 1, "machine": {**base["machine"], "label": label}, "rows": out}
        folder.mkdir(exist_ok=True)
        path = folder / f"pack{i:02d}.json"
        path.write_text(json.dumps(pack, indent=None))
        paths.append(path)
    return paths


def wide_pack(folder: Path, keys: int = 581_750) -> Path:
    """The probe's item 2: one row with `keys` keys of three characters each, under the widget's 5 MB."""
    chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+-./;<=>?@[]^_{|}~"
    names = (a + b + c for a in chars for b in chars for c in chars)
    row = {
        "workload": "mlp",
        "device": "cpu",
        "median_s": 0.001,
        "iqr_s": 0.0001,
        "repeats": 3,
        "status": "ok",
        "message": "",
    }
    for _, name in zip(range(keys), names):
        row[name] = 0
    path = folder / "wide.json"
    path.write_text(
        json.dumps(
            {"schema_version": 1, "machine": {"cpu_model": "x", "torch": "x", "date": "x"}, "rows": [row]},
            separators=(",", ":"),
        )
    )
    return path


def counts(text: str) -> tuple[int, int]:
    """(files the page says it uses, files it says it does not use) in a page's text."""
    used = next((line for line in text.splitlines() if line.startswith("Using:")), "")
    return used.count(" rows)"), text.count("Not used:")


class Sampler:
    """The RSS of a process and all its children, summed, every `every` seconds; the peak kept."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        self.proc, self.every, self.peak, self._stop = psutil.Process(pid), every, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def now(self) -> int:
        total = 0
        for p in [self.proc, *self.proc.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):  # a child that just ended
                total += p.memory_info().rss
        return total

    def split(self) -> str:
        """The server's own RSS and its children's, in words."""
        own = self.proc.memory_info().rss
        return f"server {gb(own)}, children {gb(self.now() - own)}"

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.now())
            time.sleep(self.every)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join()


def settle(sampler: Sampler, quiet_mb: float = 20, window_s: float = 15, at_most_s: float = 300) -> tuple[int, float]:
    """Wait until the warm-up has started the measuring process and the total has moved less than
    `quiet_mb` over `window_s`: (that total, seconds waited)."""
    start = time.perf_counter()
    history: list[int] = []
    while time.perf_counter() - start < at_most_s:
        history.append(sampler.now())
        recent = history[-int(window_s / 5) - 1 :]
        if sampler.proc.children() and len(recent) > window_s / 5 and max(recent) - min(recent) < quiet_mb * 1e6:
            break
        time.sleep(5)
    return history[-1], time.perf_counter() - start


def gb(n: float) -> str:
    return f"{n / 1e9:.2f} GB"


def run(root: Path, n_packs: int, rows: int, sessions: int, after_s: float) -> list[str]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="upload_memory_"))
    packs = make_packs(folder, n_packs, rows)
    wide = wide_pack(folder)
    [small] = make_packs(folder / "small", 1, 50)
    sizes = [p.stat().st_size for p in packs]
    lines = [
        f"packs: {n_packs} of {rows:,} rows, {min(sizes) / 1e6:.2f}-{max(sizes) / 1e6:.2f} MB each; "
        f"wide pack: 1 row of 581,750 keys (+7 fields), {wide.stat().st_size / 1e6:.2f} MB"
    ]
    env = {"GPUWIN_NO_PREFETCH": "1"}
    with server(env, script="serve.py", root=root) as (url, pid), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        sampler = Sampler(pid)
        # a first visitor: Home (imports, the shipped packs, the warm-up that starts the measuring process),
        # then Your results with one small pack (its charts' and tables' imports), so idle is a server that has
        # served each page once, as the probe's was
        first = browser.new_context()
        page = first.new_page()
        page.goto(url, timeout=TIMEOUT_MS)
        page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        wait_idle(page)
        page.goto(f"{url}/your_results", timeout=TIMEOUT_MS)
        page.wait_for_selector(INPUT, state="attached", timeout=TIMEOUT_MS)
        page.set_input_files(INPUT, files=[str(small)])
        page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        wait_idle(page)
        first.close()
        idle, settled_s = settle(sampler)
        sampler.peak = idle
        lines.append(
            f"idle (server + children, after a first visitor's Home and Your results with a 50-row pack, settled in {settled_s:.0f} s): "
            f"{gb(idle)} ({sampler.split()})"
        )

        # item 1: every visitor gives the widget all its packs at once, as a drag of 40 files does
        start = time.perf_counter()
        pages, statuses = [], []
        for _ in range(sessions):
            context = browser.new_context()
            tab = context.new_page()
            mine: list[int] = []
            statuses.append(mine)
            tab.on(
                "response",
                lambda r, mine=mine: mine.append(r.status)
                if "/_stcore/upload_file/" in r.url and r.request.method == "PUT"
                else None,
            )
            tab.goto(f"{url}/your_results", timeout=TIMEOUT_MS)
            tab.wait_for_selector(INPUT, state="attached", timeout=TIMEOUT_MS)
            pages.append(tab)
        for tab in pages:
            tab.set_input_files(INPUT, files=[str(p) for p in packs])
        while sum(map(len, statuses)) < sessions * n_packs:  # every upload answered: stored (204) or refused (413)
            pages[0].wait_for_timeout(500)
            if time.perf_counter() - start > TIMEOUT_MS / 1000:
                raise TimeoutError(f"{sum(map(len, statuses))} of {sessions * n_packs} uploads answered")
        for tab, mine in zip(pages, statuses):  # then every stored file used or refused on its page, and said so
            while sum(counts(tab.inner_text("body"))) < mine.count(204):
                tab.wait_for_timeout(1000)
                if time.perf_counter() - start > TIMEOUT_MS / 1000 * 3:
                    raise TimeoutError("the page never answered for every stored file")
            wait_idle(tab)
        uploaded_s = time.perf_counter() - start
        during = sampler.now()
        split_during = sampler.split()
        text = pages[0].inner_text("body")
        used, refused = counts(text)
        answered = [status for mine in statuses for status in mine]
        lines.append(
            f"item 1: {sessions} visitors x {n_packs} packs sent in {uploaded_s:.0f} s; the server stored "
            f"{', '.join(str(mine.count(204)) for mine in statuses)} and refused the other "
            f"{answered.count(413)} (413: over a visitor's file or byte cap); other answers: "
            f"{sorted(set(answered) - {204, 413}) or 'none'}"
        )
        lines.append(
            f"    the first page then: {used} files used, {refused} refused with a message; server + children "
            f"{gb(during)} ({split_during})"
        )
        reasons = sorted(
            {line.split(": not read: ", 1)[1].split(";")[0] for line in text.splitlines() if ": not read: " in line}
        )
        for reason in reasons:
            lines.append(f"    refused: ...{reason}")

        # item 2: the wide upload in a fourth tab
        context = browser.new_context()
        tab = context.new_page()
        tab.goto(f"{url}/your_results", timeout=TIMEOUT_MS)
        tab.wait_for_selector(INPUT, state="attached", timeout=TIMEOUT_MS)
        start = time.perf_counter()
        tab.set_input_files(INPUT, files=[str(wide)])
        try:
            tab.get_by_text("wide.json", exact=False).nth(1).wait_for(timeout=TIMEOUT_MS)  # the page's words on it
            wide_s = time.perf_counter() - start
            message = next(
                (
                    line
                    for line in tab.inner_text("body").splitlines()
                    if "wide.json" in line and line.strip() != "wide.json"
                ),
                "",
            )
            lines.append(f"item 2: the 581,750-key upload answered in {wide_s:.1f} s (upload included): {message}")
        except PlaywrightTimeout:
            lines.append(f"item 2: the 581,750-key upload: no answer within {TIMEOUT_MS / 1000:.0f} s")
        pages.append(tab)

        for tab in pages:
            tab.context.close()
        closed = time.perf_counter()
        time.sleep(after_s)
        held = sampler.now()
        split_held = sampler.split()
        peak = sampler.peak
        sampler.stop()
        browser.close()
    lines.append(
        f"peak (server + children, sampled every 0.2 s): {gb(peak)}   goal <= {PEAK_GOAL_GB} GB: "
        + ("met" if peak <= PEAK_GOAL_GB * 1e9 else f"missed by {gb(peak - PEAK_GOAL_GB * 1e9)}")
    )
    back = held - idle
    lines.append(
        f"{time.perf_counter() - closed:.0f} s after every tab closed: {gb(held)}, {back / 1e9:+.2f} GB "
        f"from idle ({split_held})   goal within {BACK_GOAL_GB} GB: "
        + ("met" if back <= BACK_GOAL_GB * 1e9 else f"missed by {gb(back - BACK_GOAL_GB * 1e9)}")
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose serve.py is run")
    parser.add_argument("--packs", type=int, default=40)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--after", type=float, default=60.0, help="seconds after the tabs close")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    head = [
        f"# benchmarks/upload_memory.py, {datetime.datetime.now():%Y-%m-%d %H:%M} on {platform.node()}: "
        f"{os.cpu_count()} CPUs, {psutil.virtual_memory().total / 1e9:.0f} GB, load average "
        f"{os.getloadavg()[0]:.1f} at start; checkout {args.root}"
    ]
    lines = head + run(args.root, args.packs, args.rows, args.sessions, args.after)
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
