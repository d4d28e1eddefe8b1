#!/usr/bin/env python3
"""Set-up and entry points, so a fresh machine with only Python 3.10+ needs one command each.

    python3 dev.py app     # create .venv, install requirements, start the app
    python3 dev.py test    # create .venv, install test requirements (and chromium, postgresql if root), run pytest

Installs are skipped when the requirement files have not changed since the last install.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
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
        done = subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=False,
                              env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if shutil.which("chromium"):
            return
        why = f"'apt-get install chromium' failed (exit status {done.returncode}); see its output above"
    print(f"chromium is NOT installed: {why}. The browser tests (tests/test_browser*.py) will be skipped, "
          "or fail where GPUWIN_REQUIRE_BROWSER=1.", file=sys.stderr, flush=True)


def ensure_postgresql() -> None:
    """The gallery's PostgreSQL test starts a throwaway server from Debian's postgresql binaries;
    install them when we are root and they are absent."""
    import glob

    if glob.glob("/usr/lib/postgresql/*/bin/initdb") or not shutil.which("apt-get") or os.geteuid() != 0:
        return
    print("installing postgresql for the gallery's database test ...", flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(["apt-get", "install", "-y", "-qq", "postgresql"], check=False,
                   env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


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
        return subprocess.call([str(PY), "-m", "pytest", *rest])
    print(__doc__)
    return 0 if command == "help" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
