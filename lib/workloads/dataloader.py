"""Data pipeline (seeds 000 and 001): a DataLoader over PIL images vs tensors already on the device.

One call of the step is one epoch: `dataset_size` rows in batches of `batch_size`, each batch
trained on with SGD (or Adam). With `source=images` every row goes through what torchvision's
MNIST does per item -- a PIL image, ToTensor, Normalize -- in the main process or in
`num_workers` worker processes, then is copied to the device. With `source=tensors` the same
numbers were converted once and already live on the device; an epoch only indexes them.

Phases (each timed on its own): 'loading' walks the epoch's batches and copies them to the
device without training; 'compute' trains on the same number of batches already on the
device. Seed 001 found the CPU and the GPU equally fast (14.5 s per epoch): 'loading' is
why.

Data (`data`): 'synthetic' keeps uint8 28x28 images in memory exactly as torchvision's MNIST
does and decodes them per item the same way (offline, learnable: each class has its own
pattern); 'fakedata' is torchvision.datasets.FakeData, which also draws every image from a
random generator and converts it on access (more work per item than MNIST); 'mnist' and
'fashion_mnist' are the real data when torchvision can reach them, else 'synthetic' with a note.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, Dataset

from lib.core.devices import is_cuda
from lib.core.workload import RUNTIME_BYTES, Extras, Setting, SettingError, Settings, Step, Workload
from lib.workloads import datasets, training
from lib.workloads.mlp import relu_mlp

IMAGE_SHAPE = (1, 28, 28)
FEATURES = 28 * 28
CLASSES = 10
MLP_HIDDEN = (400, 200, 100)  # seed 000's 784-400-200-100-10
BYTES_PER_FLOAT = 4


class PixelImages:
    """uint8 images [n, 28, 28] served like torchvision's MNIST: PIL image -> transform, per item.
    A map-style dataset (DataLoader needs only __len__ and __getitem__), without torch's Dataset as
    its base so that declaring the workload imports no torch."""

    def __init__(self, images: torch.Tensor, targets: torch.Tensor, transform: Any):
        self.images = images
        self.targets = targets
        self.transform = transform

    def __len__(self) -> int:
        return int(self.images.shape[0])

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        from PIL import Image

        img = Image.fromarray(self.images[index].numpy())  # mode "L", as MNIST
        return self.transform(img), int(self.targets[index])


def synthetic_images(rows: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """MNIST-shaped uint8 images whose class can be learnt: a per-class pattern plus noise."""
    import torch

    gen = torch.Generator().manual_seed(seed + 7)
    patterns = torch.rand(CLASSES, 28, 28, generator=gen) * 160
    labels = torch.randint(0, CLASSES, (rows,), generator=gen)
    noise = torch.randn(rows, 28, 28, generator=gen) * 40
    images = (patterns[labels] + noise).clamp_(0, 255).to(torch.uint8)
    return images, labels


def make_transform(data: str, normalize: bool):
    from torchvision import transforms

    steps = [transforms.ToTensor()]
    if normalize:
        mean, std = datasets.IMAGE_NORMALIZE.get(data, datasets.IMAGE_NORMALIZE["mnist"])
        steps.append(transforms.Normalize((mean,), (std,)))
    return transforms.Compose(steps)


def image_dataset(params: Settings) -> tuple[Dataset, torch.Tensor, torch.Tensor, str]:
    """(dataset of PIL items, the same rows as float tensors [n, 784], labels [n], note)."""
    import torch

    data, rows, seed = params["data"], int(params["dataset_size"]), int(params["seed"])
    normalize = bool(params["normalize"])
    transform = make_transform(data, normalize)
    note = ""
    if data == "fakedata":
        from torchvision.datasets import FakeData

        ds = FakeData(size=rows, image_size=IMAGE_SHAPE, num_classes=CLASSES, transform=transform, random_offset=seed)
        items = [ds[i] for i in range(rows)]  # FakeData makes each image on access: materialise once
        x = torch.stack([img for img, _ in items]).reshape(rows, FEATURES)
        y = torch.tensor([label for _, label in items], dtype=torch.int64)
        return ds, x, y, note
    images = labels = None
    if data in datasets.IMAGES:
        try:
            all_images, all_labels = datasets.load_images(data)
            images, labels = datasets.fit_rows(all_images, all_labels, rows, seed)
            note = datasets.fit_note(data, rows, all_images.shape[0])
        except datasets.DataUnavailable as err:
            note = datasets.unavailable_note(data, err)
    if images is None:
        images, labels = synthetic_images(rows, seed)
    x = datasets.images_to_rows(images, data if data in datasets.IMAGES else "mnist", normalize)
    return PixelImages(images, labels, transform), x, labels, note


def build_model(params: Settings) -> nn.Module:
    """Linear 784->10 (seed 001) or the 784-400-200-100-10 MLP (seed 000), seeded on the CPU."""
    import torch
    from torch import nn

    state = torch.random.get_rng_state()
    torch.manual_seed(int(params["seed"]))
    if params["model"] == "linear":
        model: nn.Module = nn.Linear(FEATURES, CLASSES)
    else:
        model = relu_mlp([FEATURES, *MLP_HIDDEN, CLASSES])
    torch.random.set_rng_state(state)
    return model


def make_optimizer(model: nn.Module, params: Settings) -> torch.optim.Optimizer:
    import torch

    if params["optimizer"] == "adam":
        return torch.optim.Adam(model.parameters(), lr=float(params["lr"]))
    return torch.optim.SGD(model.parameters(), lr=float(params["lr"]))


def layer_pairs(params: Settings) -> list[tuple[int, int]]:
    sizes = [FEATURES, CLASSES] if params["model"] == "linear" else [FEATURES, *MLP_HIDDEN, CLASSES]
    return list(zip(sizes[:-1], sizes[1:]))


def shutdown_workers(loader: DataLoader) -> None:
    """Stop a DataLoader's (persistent) worker processes now rather than at garbage collection."""
    iterator = getattr(loader, "_iterator", None)
    if iterator is not None and hasattr(iterator, "_shutdown_workers"):
        iterator._shutdown_workers()
    if hasattr(loader, "_iterator"):
        loader._iterator = None


class DataLoading(Workload):
    name = "dataloader"
    call = "epoch"  # one call of the step is one epoch: its flops and refusals are per epoch
    title = "Data pipeline: DataLoader over images vs tensors on the device"
    description = (
        "One epoch of training a small model, fed either by a DataLoader that turns every row into a PIL "
        "image, then ToTensor and Normalize (the seeds' pipeline), or by the same numbers preloaded as "
        "tensors on the device. Shows when the input pipeline, not the device, sets the pace."
    )
    settings = (
        Setting(
            "source",
            "images",
            "images: DataLoader over PIL images (ToTensor + Normalize per item); tensors: the same data preloaded on the device",
            choices=("images", "tensors"),
        ),
        Setting("batch_size", 128, "rows per optimizer step", 1, 65_536, log=True),
        Setting("dataset_size", 2048, "rows in one epoch (one call of the step)", 1, 1_000_000, log=True),
        Setting("num_workers", 0, "DataLoader worker processes decoding images (0: in the main process)", 0, 32),
        Setting(
            "pin_memory",
            False,
            "DataLoader copies batches into page-locked memory; copies to the GPU are then non_blocking (no effect on the CPU)",
        ),
        Setting(
            "persistent_workers",
            True,
            "keep worker processes between epochs (False: start them again every epoch, PyTorch's default)",
        ),
        Setting(
            "data",
            "synthetic",
            "images: synthetic (MNIST-like, offline), fakedata (torchvision FakeData), mnist / fashion_mnist when torchvision can reach them (else synthetic, with a note)",
            choices=("synthetic", "fakedata", "mnist", "fashion_mnist"),
        ),
        Setting("normalize", True, "transforms.Normalize after ToTensor (seed 001 did; seed 000 used ToTensor only)"),
        Setting(
            "model",
            "linear",
            "linear: Linear 784->10 (seed 001); mlp: 784-400-200-100-10 (seed 000)",
            choices=("linear", "mlp"),
        ),
        Setting("optimizer", "sgd", "optimizer", choices=("sgd", "adam")),
        Setting("lr", 0.005, "learning rate", 1e-6, 10.0, log=True),
        Setting("shuffle", True, "reshuffle the rows every epoch"),
        Setting("seed", 0, "random seed for weights and data", 0, 2**31 - 1),
    )

    def validate(self, params: Mapping[str, Any]) -> None:
        if params["data"] == "fakedata" and int(params["dataset_size"]) > 200_000:
            raise SettingError("dataset_size: fakedata makes every image on access; keep it at 200000 rows or fewer")

    # -- estimates -----------------------------------------------------------------------------
    def batches_per_epoch(self, params: Settings) -> int:
        return math.ceil(int(params["dataset_size"]) / int(params["batch_size"]))

    def flops(self, params: Settings) -> float:
        macs = sum(a * b for a, b in layer_pairs(params))
        return 6.0 * macs * int(params["dataset_size"])  # forward 2, backward 4 per multiply-add

    def bytes_moved(self, params: Settings) -> float:
        rows = int(params["dataset_size"])
        weights = sum(a * b + b for a, b in layer_pairs(params)) * BYTES_PER_FLOAT * 4
        data = rows * (FEATURES * BYTES_PER_FLOAT + 8)  # every row read once (copied to the device for images)
        return float(data + weights * self.batches_per_epoch(params))

    def peak_memory_bytes(self, params: Settings, device: str) -> float:
        rows = int(params["dataset_size"])
        rows_bytes = rows * (FEATURES * BYTES_PER_FLOAT + 8)
        params_bytes = sum(a * b + b for a, b in layer_pairs(params)) * BYTES_PER_FLOAT * 4
        batch = int(params["batch_size"]) * sum(a + b for a, b in layer_pairs(params)) * BYTES_PER_FLOAT * 4
        if is_cuda(device):
            # On the GPU: the preloaded rows (the tensors source and the compute phase), model, one batch.
            return float(rows_bytes + params_bytes + batch)
        # On the host: uint8 images, the float rows, the rows again while converting, workers' batches.
        prefetch = max(1, int(params["num_workers"])) * 2 * int(params["batch_size"]) * FEATURES * BYTES_PER_FLOAT
        return float(RUNTIME_BYTES + rows * FEATURES + 2 * rows_bytes + params_bytes + batch + prefetch)

    # -- the step --------------------------------------------------------------------------------
    def build(self, params: Settings, device: str) -> Step:
        import torch
        from torch import nn

        dev = torch.device(device)
        dataset, x_host, y_host, note = image_dataset(params)
        feed = EpochBatches(params, dev, dataset, x_host, y_host, self.batches_per_epoch(params))
        model = build_model(params).to(dev)
        optimizer = make_optimizer(model, params)
        loss_fn = nn.CrossEntropyLoss()
        epoch_losses: list[float] = []

        def train_batch(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            return loss.detach()

        def run_epoch() -> None:
            total = None
            for xb, yb in feed():
                loss = train_batch(xb, yb)
                total = loss if total is None else total + loss
            epoch_losses.append(total.item() / feed.n_batches)  # one synchronise per epoch

        def loading() -> None:
            for _xb, _yb in feed():
                pass

        def compute() -> None:
            for xb, yb in feed.resident:
                train_batch(xb, yb)

        def check() -> None:
            # The two sources hold the same numbers: the per-item PIL pipeline == the preload.
            for i in range(min(int(params["dataset_size"]), 4)):
                img, label = dataset[i]
                assert int(label) == int(y_host[i]), f"row {i}: label {label} != {int(y_host[i])}"
                assert torch.allclose(img.reshape(-1), x_host[i], atol=1e-5), (
                    f"row {i}: image pipeline != preloaded tensor"
                )
            training.assert_holds_own_parameters(optimizer, model)
            training.assert_learns(
                lambda: build_model(params).to(dev), lambda m: make_optimizer(m, params), loss_fn, feed.resident[0]
            )

        remarks = setting_remarks(params, dev.type == "cuda")
        extras = Extras(note=remarks or None, data_note=note or None, epoch_losses=epoch_losses)
        return Step(
            run=run_epoch,
            phases={"loading": loading, "compute": compute},
            units={"batches_per_epoch": feed.n_batches},
            check=check,
            extras=extras,
            close=lambda: shutdown_workers(feed.loader),
        )


def setting_remarks(params: Settings, cuda: bool) -> str:
    """Settings that change nothing at this point, said so (they are kept in the row as asked)."""
    remarks = []
    if params["pin_memory"] and not cuda:
        remarks.append("pinned memory only matters for copies to a GPU; it is off on the CPU")
    if params["source"] == "tensors" and int(params["num_workers"]) > 0:
        remarks.append("workers only matter for the DataLoader over images; tensors are indexed on the device")
    return "; ".join(remarks)


class EpochBatches:
    """The batches of one epoch, from the DataLoader over images or from tensors already on the
    device (both hold the same numbers), and the same batches resident on the device."""

    def __init__(
        self,
        params: Settings,
        dev: torch.device,
        dataset: Dataset,
        x_host: torch.Tensor,
        y_host: torch.Tensor,
        n_batches: int,
    ) -> None:
        import torch
        from torch.utils.data import DataLoader

        self.dev, self.n_batches = dev, n_batches
        self.pin = bool(params["pin_memory"]) and dev.type == "cuda"
        self.rows, self.batch_size = int(params["dataset_size"]), int(params["batch_size"])
        self.images, self.shuffle = params["source"] == "images", bool(params["shuffle"])
        self.x, self.y = x_host.to(dev), y_host.to(dev)
        workers = int(params["num_workers"])
        self.loader = DataLoader(
            dataset,
            batch_size=self.batch_size,
            shuffle=self.shuffle,
            num_workers=workers,
            pin_memory=self.pin,
            persistent_workers=workers > 0 and bool(params["persistent_workers"]),
            generator=torch.Generator().manual_seed(int(params["seed"])),
        )
        self.order = torch.Generator().manual_seed(int(params["seed"]) + 1)
        self.resident = [self._slice(i) for i in range(n_batches)]

    def _slice(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        lo, hi = i * self.batch_size, (i + 1) * self.batch_size
        return self.x[lo:hi], self.y[lo:hi]

    def __call__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        import torch

        if self.images:
            for xb, yb in self.loader:
                yield (
                    xb.reshape(xb.shape[0], -1).to(self.dev, non_blocking=self.pin),
                    yb.to(self.dev, non_blocking=self.pin),
                )
        elif self.shuffle:
            perm = torch.randperm(self.rows, generator=self.order).to(self.dev, non_blocking=self.dev.type == "cuda")
            for i in range(self.n_batches):
                idx = perm[i * self.batch_size : (i + 1) * self.batch_size]
                yield self.x[idx], self.y[idx]
        else:
            yield from (self._slice(i) for i in range(self.n_batches))


WORKLOAD = DataLoading()


def loss_curve(params: Mapping[str, Any], device: str, epochs: int) -> list[float]:
    """The mean loss of each of `epochs` epochs on `device`, from the seeded initial weights."""
    return training.loss_curve(WORKLOAD, params, device, epochs)
