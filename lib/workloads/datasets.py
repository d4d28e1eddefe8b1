"""Where the training data comes from: synthetic rows, scikit-learn's bundled tables, MNIST.

Timing does not depend on the values, only on the shapes, so every data set here has an offline
stand-in of the same shape. The real thing is used when it is on disk or can be downloaded; when
it cannot, callers get same-shaped synthetic data and a note saying so (shown on the page and
stored in the result row as `data_note`).

- scikit-learn's bundled tables ship inside the package: iris, diabetes, digits, wine,
  breast_cancer. `diabetes` stands in for Boston housing (seed 000), whose loader
  `load_boston` was removed in scikit-learn 1.2.
- MNIST and Fashion-MNIST come through torchvision, downloaded once into the cache folder
  ($GPUWIN_DATA_DIR, default ~/.cache/gpuwin/data) with a short network timeout. Set
  GPUWIN_OFFLINE=1 to skip the download attempt altogether.
"""

from __future__ import annotations

import math
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch

    from lib.core.workload import Settings

# Per network operation, and for the whole download attempt (name look-ups are not covered by
# socket timeouts, so the attempt runs in a thread that is abandoned at the deadline).
DOWNLOAD_TIMEOUT_S = float(os.environ.get("GPUWIN_DOWNLOAD_TIMEOUT_S", "5"))
DOWNLOAD_DEADLINE_S = float(os.environ.get("GPUWIN_DOWNLOAD_DEADLINE_S", "30"))


@dataclass(frozen=True)
class DataInfo:
    """The shape of a data set: what an MLP on it must take in and put out."""

    name: str
    title: str
    features: int
    outputs: int  # classes, or regression targets
    task: str  # "classification" or "regression"
    rows: int  # rows in the real data set


TABLES: dict[str, DataInfo] = {
    "iris": DataInfo("iris", "Iris: 150 flowers, 4 measurements, 3 species", 4, 3, "classification", 150),
    "diabetes": DataInfo(
        "diabetes",
        "Diabetes: 442 patients, 10 features, 1 target (regression; the stand-in for Boston housing, "
        "whose load_boston was removed in scikit-learn 1.2)",
        10,
        1,
        "regression",
        442,
    ),
    "digits": DataInfo("digits", "Digits: 1,797 8x8 images, 64 pixels, 10 classes", 64, 10, "classification", 1797),
    "wine": DataInfo("wine", "Wine: 178 wines, 13 measurements, 3 cultivars", 13, 3, "classification", 178),
    "breast_cancer": DataInfo(
        "breast_cancer", "Breast cancer: 569 tumours, 30 features, 2 classes", 30, 2, "classification", 569
    ),
}

IMAGES: dict[str, DataInfo] = {
    "mnist": DataInfo(
        "mnist", "MNIST: 60,000 handwritten digits, 28x28 pixels, 10 classes", 784, 10, "classification", 60_000
    ),
    "fashion_mnist": DataInfo(
        "fashion_mnist",
        "Fashion-MNIST: 60,000 clothing images, 28x28 pixels, 10 classes",
        784,
        10,
        "classification",
        60_000,
    ),
}

# Mean and standard deviation of the training pixels (after scaling to 0..1), as the seeds'
# transforms.Normalize((0.1307,), (0.3081,)) uses for MNIST.
IMAGE_NORMALIZE = {"mnist": (0.1307, 0.3081), "fashion_mnist": (0.2860, 0.3530)}

DATA_CHOICES = ("synthetic", *TABLES, *IMAGES)


class DataUnavailable(RuntimeError):
    """A data set that needs a download could not be had; the message says why."""


def data_info(name: str) -> DataInfo | None:
    """The shape of a named data set, or None for 'synthetic' (any shape)."""
    return TABLES.get(name) or IMAGES.get(name)


def cache_dir() -> Path:
    return Path(os.environ.get("GPUWIN_DATA_DIR") or Path.home() / ".cache" / "gpuwin" / "data")


def offline() -> bool:
    return os.environ.get("GPUWIN_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


# -- scikit-learn tables --------------------------------------------------------------------------

_TABLE_CACHE: dict[tuple[str, bool], tuple[torch.Tensor, torch.Tensor]] = {}


def load_table(name: str, standardize: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """A bundled scikit-learn table as (x float32 [rows, features], y).

    y is int64 class labels for classification, float32 [rows, 1] for regression. With
    `standardize`, features (and a regression target) are shifted and scaled to mean 0 and
    standard deviation 1 -- the seeds fed raw values, which trains worse but times the same.
    """
    import torch

    key = (name, bool(standardize))
    if key not in _TABLE_CACHE:
        if name not in TABLES:
            raise KeyError(f"unknown table '{name}' (known: {', '.join(TABLES)})")
        import sklearn.datasets as skdata

        bunch = getattr(skdata, f"load_{name}")()
        x = torch.tensor(bunch.data, dtype=torch.float32)
        info = TABLES[name]
        if info.task == "classification":
            y = torch.tensor(bunch.target, dtype=torch.int64)
        else:
            y = torch.tensor(bunch.target, dtype=torch.float32).reshape(-1, 1)
        if standardize:
            x = (x - x.mean(0)) / x.std(0).clamp_min(1e-8)
            if info.task == "regression":
                y = (y - y.mean(0)) / y.std(0).clamp_min(1e-8)
        _TABLE_CACHE[key] = (x.contiguous(), y.contiguous())
    return _TABLE_CACHE[key]


# -- torchvision images ---------------------------------------------------------------------------

_IMAGE_CACHE: dict[str, tuple[torch.Tensor, torch.Tensor] | DataUnavailable] = {}
_IMAGE_LOCK = threading.Lock()


def load_images(name: str) -> tuple[torch.Tensor, torch.Tensor]:
    """MNIST-style training images as (uint8 [60000, 28, 28], int64 labels).

    Reads the cache folder first, downloads only when missing (with a short timeout). The
    outcome, failure included, is remembered for the life of the process, so a sweep does
    not retry the network at every point. Raises DataUnavailable with the reason.
    """
    if name not in IMAGES:
        raise KeyError(f"unknown image data set '{name}' (known: {', '.join(IMAGES)})")
    with _IMAGE_LOCK:
        cached = _IMAGE_CACHE.get(name)
        if cached is None:
            try:
                cached = _fetch_images(name)
            except DataUnavailable as err:
                cached = err
            _IMAGE_CACHE[name] = cached
    if isinstance(cached, DataUnavailable):
        raise cached
    return cached


def _fetch_images(name: str) -> tuple[torch.Tensor, torch.Tensor]:
    import torch

    try:
        from torchvision import datasets
    except ImportError as err:  # pragma: no cover - torchvision is a requirement
        raise DataUnavailable(f"torchvision is not installed ({err})") from None
    cls = datasets.MNIST if name == "mnist" else datasets.FashionMNIST
    root = cache_dir()
    try:
        ds = cls(str(root), train=True, download=False)
    except RuntimeError:
        if offline():
            raise DataUnavailable(f"{name} is not in {root} and GPUWIN_OFFLINE is set") from None
        ds = _download(cls, root, name)
    return ds.data.contiguous(), ds.targets.to(torch.int64).contiguous()


def _download(cls: Any, root: Path, name: str) -> Any:
    outcome: list[Any] = []  # what the download thread ended with: the data set, or the exception it raised

    def attempt() -> None:
        try:
            root.mkdir(parents=True, exist_ok=True)
            outcome.append(cls(str(root), train=True, download=True))
        except Exception as err:
            outcome.append(err)

    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(DOWNLOAD_TIMEOUT_S)
    try:
        worker = threading.Thread(target=attempt, name=f"download-{name}", daemon=True)
        worker.start()
        worker.join(DOWNLOAD_DEADLINE_S)
    finally:
        socket.setdefaulttimeout(previous)
    ended = outcome[0] if outcome else None
    if ended is not None and not isinstance(ended, Exception):
        return ended
    err = ended
    if err is None:
        raise DataUnavailable(f"{name} could not be downloaded within {DOWNLOAD_DEADLINE_S:g} s")
    lines = str(err).strip().splitlines()
    reason = " ".join(line.strip() for line in lines[:3])[:240] or type(err).__name__
    raise DataUnavailable(f"{name} could not be downloaded ({reason})")


def images_to_rows(images: torch.Tensor, name: str, standardize: bool = True) -> torch.Tensor:
    """uint8 images -> float32 rows [n, 784], exactly what ToTensor() (and Normalize) give per image."""
    import torch

    x = images.reshape(images.shape[0], -1).to(torch.float32).div(255)
    if standardize:
        mean, std = IMAGE_NORMALIZE.get(name, IMAGE_NORMALIZE["mnist"])
        x = x.sub(mean).div(std)
    return x


# -- fitting a data set to the asked-for number of rows ---------------------------------------------


def fit_rows(x: torch.Tensor, y: torch.Tensor, rows: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`rows` rows of (x, y): a seeded random subset when there are more, repeated when fewer."""
    import torch

    have = x.shape[0]
    if rows == have:
        return x, y
    if rows < have:
        pick = torch.randperm(have, generator=torch.Generator().manual_seed(seed))[:rows]
        pick, _ = pick.sort()
        return x[pick].contiguous(), y[pick].contiguous()
    repeats = math.ceil(rows / have)
    index = torch.arange(have).repeat(repeats)[:rows]
    return x[index].contiguous(), y[index].contiguous()


def fit_note(name: str, rows: int, have: int) -> str:
    """What fit_rows did to the `have` rows of `name` to make `rows` ('' when nothing)."""
    if rows == have:
        return ""
    if rows < have:
        return f"{rows} of the {have} rows of {name} (a seeded random subset)"
    return f"the {have} rows of {name} repeated to {rows} rows"


def mlp_rows(params: Settings) -> tuple[torch.Tensor, torch.Tensor, str]:
    """(x, y, note) of the named data set fitted to params['dataset_size'] rows.

    Raises DataUnavailable when the data set needs a download that failed; callers then use
    synthetic data of the same shape with `unavailable_note(name, err)` as the note."""
    name = params["data"]
    rows = int(params["dataset_size"])
    seed = int(params["seed"])
    standardize = bool(params.get("standardize", True))
    if name in TABLES:
        x, y = load_table(name, standardize)
        have = x.shape[0]
        x, y = fit_rows(x, y, rows, seed)
    elif name in IMAGES:
        images, labels = load_images(name)
        have = images.shape[0]
        images, y = fit_rows(images, labels, rows, seed)  # pick rows first: convert only those
        x = images_to_rows(images, name, standardize)
    else:
        raise KeyError(name)
    return x, y, fit_note(name, rows, have)


def unavailable_note(name: str, err: BaseException) -> str:
    info = data_info(name)
    shape = f"{info.features} features, {info.outputs} classes" if info else "the same shape"
    return (
        f"{err}; using synthetic data of the same shape ({shape}) instead. "
        "Timing depends on the shapes, not the pixel values."
    )
