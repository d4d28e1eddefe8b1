#!/usr/bin/env python3
"""Set-up and entry points, so a fresh machine with only Python 3.10+ needs one command each.

    python3 dev.py app     # create .venv, install requirements, start the app
    python3 dev.py test    # create .venv, install test requirements (and chromium, postgresql if root), run pytest

Installs are skipped when the requirement files have not changed since the last install.

`dev.py test` runs pytest twice: first every test not marked `serial`, spread over the machine's cores by
pytest-xdist, one process per core (GPUWIN_TEST_WORKERS=N sets how many processes; 0 runs the whole
suite in one process, as plain `pytest` does); then the tests marked `serial`, which time real work live and assert on what they measured, one
at a time with nothing else running. Its last line adds up both parts.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv(requirement_file: str) -> None:
    if sys.version_info < (3, 10):  # noqa: UP036 - a clear message on an older python3
        sys.exit("Python 3.10 or newer is needed.")
    if not PY.exists():
        print(f"creating {VENV} ...", flush=True)
        venv.create(VENV, with_pip=True)
    files = [ROOT / requirement_file, ROOT / "requirements.txt"]
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()
    stamp = VENV / f".installed-{requirement_file}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    print(f"installing {requirement_file} (torch is large: a few minutes the first time) ...", flush=True)
    subprocess.run([str(PY), "-m", "pip", "install", "-q", "-r", str(ROOT / requirement_file)], check=True)
    stamp.write_text(digest)


def ensure_chromium() -> None:
    """The real-browser tests drive Debian's chromium; install it when we are root and it is absent.
    When it stays absent, say so plainly: those tests then skip (or fail, under GPUWIN_REQUIRE_BROWSER=1)."""
    if shutil.which("chromium"):
        return
    if not shutil.which("apt-get"):
        why = "this machine has no apt-get; install chromium with its package manager"
    elif os.geteuid() != 0:
        why = "installing it needs root: sudo apt-get install chromium"
    else:
        print("installing chromium for the browser tests ...", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        done = subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium"],
            check=False,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        if shutil.which("chromium"):
            return
        why = f"'apt-get install chromium' failed (exit status {done.returncode}); see its output above"
    print(
        f"chromium is NOT installed: {why}. The browser tests (tests/test_browser*.py) will be skipped, "
        "or fail where GPUWIN_REQUIRE_BROWSER=1.",
        file=sys.stderr,
        flush=True,
    )


def ensure_postgresql() -> None:
    """The gallery's PostgreSQL test starts a throwaway server from Debian's postgresql binaries;
    install them when we are root and they are absent."""
    import glob

    if glob.glob("/usr/lib/postgresql/*/bin/initdb") or not shutil.which("apt-get") or os.geteuid() != 0:
        return
    print("installing postgresql for the gallery's database test ...", flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "postgresql"],
        check=False,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )


def local_url(streamlit_args: list[str]) -> str:
    """Where `streamlit run ... <streamlit_args>` answers on this machine."""

    def option(name: str, default: str) -> str:
        for i, arg in enumerate(streamlit_args):
            if arg == name and i + 1 < len(streamlit_args):
                return streamlit_args[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
        return default

    address = option("--server.address", "127.0.0.1")
    base = option("--server.baseUrlPath", "").strip("/")
    host = "127.0.0.1" if address in ("", "0.0.0.0", "::") else address
    return f"http://{host}:{option('--server.port', '8501')}" + (f"/{base}" if base else "")


# arguments with which pytest runs no test (CI calls `dev.py test --version` for the set-up alone): one plain run
NO_TESTS = {"--version", "-V", "-h", "--help", "--co", "--collect-only", "--fixtures", "--markers"}
COUNTED = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def _min_s(seconds: float) -> str:
    """'10 min 0 s' (whole seconds first, so 599.6 s is not '9 min 60 s')."""
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs} s"


def run_tests(args: list[str]) -> int:
    """pytest in two parts: the tests that may share the machine across its cores, then the `serial` ones (live
    timings that a loaded box would skew) alone. The user's arguments go to both, after ours (a user's -n wins)."""
    pytest = [str(PY), "-m", "pytest"]
    # one process per core: a third on the 2-core box saved no time on a quiet fresh clone (11 min 17 s against
    # 11 min 22 s) and two of its three runs lost a timed test to the contention (docs/test_suite_time.md)
    workers = os.environ.get("GPUWIN_TEST_WORKERS") or str(os.cpu_count() or 1)
    if NO_TESTS & set(args) or workers == "0":
        return subprocess.call([*pytest, *args])
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gpuwin_tally_") as folder:
        tally = Path(folder) / "tally.jsonl"
        # bytecode kept (in the ignored __pycache__/): under PYTHONDONTWRITEBYTECODE each run's processes rewrite
        # the asserts of every test module anew, about 5 s of CPU each
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["GPUWIN_TEST_TALLY"] = str(tally)
        # loadscope: a module's tests in one process, its fixtures built once (tests/conftest.py says which are dealt
        # out test by test)
        codes = [subprocess.call([*pytest, "-n", workers, "--dist", "loadscope", "--part", "parallel", *args], env=env)]
        parallel_s = time.monotonic() - started
        stop_at_first = {"-x", "--exitfirst"} & set(args) or any(a.startswith("--maxfail") for a in args)
        if not (codes[0] in (2, 3, 4) or codes[0] == 1 and stop_at_first):  # interrupted, broken, or -x and failed
            print("\n-- the tests marked serial, one at a time with nothing else running --", flush=True)
            codes.append(subprocess.call([*pytest, "-p", "no:xdist", "--part", "serial", *args], env=env))
        parts = [json.loads(line) for line in tally.read_text().splitlines()] if tally.exists() else []
    total = {key: sum(part.get(key, 0) for part in parts) for key in COUNTED}
    took = time.monotonic() - started
    print(
        f"\ndev.py test: {_min_s(took)} in all ({_min_s(parallel_s)} for the parallel part on {workers} processes); "
        f"{total['xfailed']} xfailed, {total['xpassed']} xpassed, {total['error']} errors",
        flush=True,
    )
    print(
        f"total: {total['passed']} passed, {total['failed'] + total['error']} failed, {total['skipped']} skipped",
        flush=True,
    )
    return combined_status(codes)


def combined_status(codes: list[int]) -> int:
    """One exit status for the parts: pytest's own (1 failed, 2 interrupted, 3 internal error, 4 usage error) where
    one part has it, 5 (no test ran) only where no part ran any, else 0."""
    for code in (2, 3, 4, 1):
        if code in codes:
            return code
    return 5 if all(code == 5 for code in codes) else 0


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "help"
    rest = argv[1:]
    os.chdir(ROOT)
    if command == "app":
        ensure_venv("requirements.txt")
        # serve.py: streamlit_app.py behind the app's own "no such page" for paths Streamlit cannot route
        server = subprocess.Popen([str(PY), "-m", "streamlit", "run", "serve.py", *rest])
        # the first visit, made now: the app's warm-up starts before any visitor comes
        subprocess.Popen([str(PY), "scripts/warm_server.py", local_url(rest)])
        signal.signal(signal.SIGTERM, lambda *_: server.terminate())  # a host stopping dev.py stops the server
        try:
            return server.wait()
        except KeyboardInterrupt:
            server.terminate()
            return server.wait()
    if command == "test":
        ensure_venv("requirements-dev.txt")
        ensure_chromium()
        ensure_postgresql()
        return run_tests(rest)
    print(__doc__)
    return 0 if command == "help" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
