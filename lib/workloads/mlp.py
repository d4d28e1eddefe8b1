"""MLP training step (seeds 000 and 001): the same model, weights and data on every device.

One call of the step is one optimizer step on one batch; an epoch is ceil(dataset_size /
batch_size) steps (full batch when batch_size >= dataset_size).

Data (`data` setting): synthetic rows of any shape, a scikit-learn bundled table (iris,
diabetes -- the stand-in for Boston housing, removed from scikit-learn in 1.2 --, digits, wine,
breast_cancer), or MNIST / Fashion-MNIST when torchvision can reach them (otherwise synthetic
rows of the same shape, with the reason in step.extras.data_note). With a real data set,
input_features, outputs and task follow the data set; dataset_size subsamples or repeats rows.

`loss_curve(params, device, epochs)` trains from the seeded initial weights and returns the loss
per epoch, so two devices can be shown learning the same thing (seed 000's CPU run did not: its
optimizer held the other model's parameters; check() guards against exactly that).
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn

from lib.core.devices import is_cuda
from lib.core.workload import RUNTIME_BYTES, Extras, Setting, SettingError, Settings, SettingValue, Step, Workload
from lib.workloads import datasets, execution, mlp_terms, training
from lib.workloads.family import Axis, TrainingFamily
from lib.workloads.traced import family_terms

BYTES_PER_FLOAT = 4
HEAP_TENSOR_BYTES = 32 * 2**20  # glibc's largest mmap threshold: smaller blocks come from (and stay in) its heap
HEAP_COPIES = 4  # weight-sized copies glibc's heap may add at a point's peak (3 measured at most)


def hidden_widths(params: Mapping[str, Any]) -> list[int]:
    """Hidden layer widths: `hidden_layers` ("16,32,16") when given, else depth x hidden_width."""
    spec = str(params.get("hidden_layers", "") or "").strip()
    if spec:
        try:
            widths = [int(w) for w in spec.split(",") if w.strip()]
        except ValueError:
            raise SettingError(f"hidden_layers: expected widths like 16,32,16, got {spec!r}") from None
        if not widths or min(widths) < 1:
            raise SettingError(f"hidden_layers: widths must be positive integers, got {spec!r}")
        return widths
    return [int(params["hidden_width"])] * int(params["depth"])


def layer_sizes(params: Mapping[str, Any]) -> list[int]:
    return [int(params["input_features"]), *hidden_widths(params), int(params["outputs"])]


def build_model(params: Settings) -> nn.Sequential:
    """The MLP, initialised from `seed` on the CPU so every device starts from the same weights.

    With $GPUWIN_REUSE_INIT=1 (the recording script sets it) the last shape's initial weights are
    kept and copied for the next point of the same shape: a grid builds each shape once per batch
    size, and initialising a 16 x 8,192 x 8,192 model on the CPU takes seconds. Same weights either way."""
    import torch

    sizes = layer_sizes(params)
    key = (tuple(sizes), int(params["seed"]))
    kept = _LAST_INIT.get("last")
    if os.environ.get("GPUWIN_REUSE_INIT") == "1" and kept is not None and kept.key == key:
        return copy.deepcopy(kept.model)
    generator_state = torch.random.get_rng_state()
    torch.manual_seed(int(params["seed"]))
    model = relu_mlp(sizes)
    torch.random.set_rng_state(generator_state)
    if os.environ.get("GPUWIN_REUSE_INIT") == "1":
        _LAST_INIT["last"] = _Init(key, copy.deepcopy(model))
    return model


class _Init(NamedTuple):
    """The last shape's initial weights: its (sizes, seed) and the model as initialised."""

    key: tuple[tuple[int, ...], int]
    model: nn.Sequential


_LAST_INIT: dict[str, _Init] = {}  # one entry, "last": kept across points of one recording process


def relu_mlp(sizes: list[int]) -> nn.Sequential:
    """Linear layers of the given widths with ReLU between them (initialised from torch's RNG)."""
    from torch import nn

    layers: list[nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def synthetic_data(params: Settings) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of random features and a learnable target (a fixed random linear teacher)."""
    import torch

    gen = torch.Generator().manual_seed(int(params["seed"]) + 1)
    rows, features, outputs = int(params["dataset_size"]), int(params["input_features"]), int(params["outputs"])
    x = torch.randn(rows, features, generator=gen)
    teacher = torch.randn(features, max(outputs, 1), generator=gen) / math.sqrt(features)
    scores = x @ teacher
    if params["task"] == "classification":
        y = scores.argmax(dim=1) if outputs > 1 else (scores[:, 0] > 0).long()
    else:
        y = scores[:, :outputs]
    return x, y


def make_optimizer(model: nn.Module, params: Settings) -> torch.optim.Optimizer:
    """The optimizer the settings name, with the implementation the execution mode needs."""
    import torch

    impl = params["optimizer_impl"]
    kwargs: dict[str, float | bool] = {"lr": float(params["lr"])}  # the optimizer's own keyword arguments
    if impl == "foreach":
        kwargs["foreach"] = True
    elif impl == "fused":
        kwargs["fused"] = True
    elif impl == "for-loop":
        kwargs["foreach"] = False
    if params["optimizer"] == "adam":
        return torch.optim.Adam(model.parameters(), **kwargs, **execution.optimizer_options(params["mode"]))
    return torch.optim.SGD(model.parameters(), **kwargs)


class MLPTraining(Workload):
    name = "mlp"
    title = "MLP training step"
    description = (
        "One optimizer step (forward, backward, update) of a multilayer perceptron on one batch. "
        "Both devices train the same model from the same initial weights on the same data."
    )
    settings = (
        Setting("batch_size", 64, "rows per optimizer step (full batch when >= dataset_size)", 1, 1_048_576, log=True),
        Setting("hidden_width", 64, "units in each hidden layer", 1, 16_384, log=True),
        Setting("depth", 3, "number of hidden layers", 1, 32),
        Setting(
            "dataset_size",
            8192,
            "rows in one epoch (a real data set is subsampled or repeated to this many)",
            1,
            10_000_000,
            log=True,
        ),
        Setting(
            "data",
            "synthetic",
            "training data: synthetic rows of any shape; scikit-learn's bundled iris, diabetes (the stand-in for "
            "Boston housing, which scikit-learn removed in 1.2), digits, wine, breast_cancer; mnist / fashion_mnist "
            "through torchvision when reachable (else synthetic rows of the same shape, with a note). "
            "A real data set sets input_features, outputs and task",
            choices=datasets.DATA_CHOICES,
        ),
        Setting(
            "standardize",
            True,
            "scale real data to mean 0, std 1 (images: ToTensor + Normalize); the seeds fed raw values",
        ),
        Setting(
            "input_features", 32, "features per row (follows the data set unless data=synthetic)", 1, 65_536, log=True
        ),
        Setting(
            "outputs",
            10,
            "output units: classes, or targets for regression (follows the data set unless data=synthetic)",
            1,
            65_536,
            log=True,
        ),
        Setting("hidden_layers", "", "explicit hidden widths like 16,32,16 (overrides hidden_width and depth)"),
        Setting(
            "task",
            "classification",
            "loss: cross-entropy or mean squared error (follows the data set unless data=synthetic)",
            choices=("classification", "regression"),
        ),
        Setting("optimizer", "adam", "optimizer", choices=("adam", "sgd")),
        Setting(
            "optimizer_impl",
            "default",
            "optimizer kernels: PyTorch's default, one kernel per tensor (for-loop), grouped (foreach) or fused",
            choices=("default", "for-loop", "foreach", "fused"),
        ),
        Setting("mode", execution.DEFAULT, execution.setting_help(), choices=execution.VALUES),
        Setting("lr", 0.01, "learning rate", 1e-6, 10.0, log=True),
        Setting(
            "data_resident", True, "keep the whole dataset on the device (False: copy every batch from host memory)"
        ),
        Setting("pin_memory", False, "page-locked host memory and non_blocking copies (when data is copied per batch)"),
        Setting(
            "item_every_step",
            False,
            "call loss.item() after every step (forces a synchronise) instead of once per epoch",
        ),
        Setting("seed", 0, "random seed for weights and data", 0, 2**31 - 1),
    )

    def complete(self, params: dict[str, SettingValue]) -> None:
        """With a real data set, its shape overrides input_features, outputs and task (so rows and
        estimates show what really ran)."""
        info = datasets.data_info(params["data"])
        if info is not None:
            params.update(input_features=info.features, outputs=info.outputs, task=info.task)

    def validate(self, params: Mapping[str, Any]) -> None:
        hidden_widths(params)
        if params["task"] == "classification" and int(params["outputs"]) < 2:
            raise SettingError("outputs: classification needs at least 2 classes")
        if params["mode"] != execution.DEFAULT and params["optimizer_impl"] != "default":
            raise SettingError(
                f"optimizer_impl: mode {params['mode']} sets how the optimizer runs; leave "
                "optimizer_impl at default with it"
            )

    def refusal(self, settings: Settings, device: str) -> str | None:
        return execution.mode_refusal(settings["mode"], device)

    # -- estimates -----------------------------------------------------------------------------
    def parameter_count(self, params: Settings) -> int:
        sizes = layer_sizes(params)
        return sum(i * o + o for i, o in zip(sizes[:-1], sizes[1:]))

    def batch_rows(self, params: Settings) -> int:
        return min(int(params["batch_size"]), int(params["dataset_size"]))

    def steps_per_epoch(self, params: Settings) -> int:
        return math.ceil(int(params["dataset_size"]) / self.batch_rows(params))

    def flops(self, params: Settings) -> float:
        return mlp_terms.flops(
            params, layer_sizes(params), self.batch_rows(params)
        )  # its traced step's, as every family's

    def bytes_moved(self, params: Settings) -> float:
        # every operand of every kernel (its traced step's, as every family's), and the batch copied from host
        # memory when the data is not resident
        rows = self.batch_rows(params)
        copied = 0 if params["data_resident"] else mlp_terms.copied_bytes(params, rows)
        return mlp_terms.bytes_moved(params, layer_sizes(params), rows) + copied

    def peak_memory_bytes(self, params: Settings, device: str) -> float:
        """A bound on what one point adds to its process at its peak (measured against it:
        tests/test_memory_estimates.py, docs/memory_estimates.txt)."""
        sizes = layer_sizes(params)
        # weights and gradients; Adam adds its two moments and, in its multi-tensor (foreach) update,
        # one more weight-sized temporary (the square root of the second moment). On the host, tensors
        # under glibc's mmap threshold (32 MiB) come from its heap, which keeps freed temporaries: how
        # many differs from one fresh process to the next. Width 2,800 grew by 4 to 8 weight-sized copies
        # (0.35-0.61 GB, ~80 processes: docs/memory_estimates.txt), so 5 + 4 bounds the most, one to spare.
        states = 5 if params["optimizer"] == "adam" else 2
        largest = max(i * o for i, o in zip(sizes[:-1], sizes[1:])) * BYTES_PER_FLOAT
        if not is_cuda(device) and largest < HEAP_TENSOR_BYTES:
            states += HEAP_COPIES
        weights = self.parameter_count(params) * BYTES_PER_FLOAT * states
        activations = self.batch_rows(params) * sum(sizes) * BYTES_PER_FLOAT * 4
        dataset = int(params["dataset_size"]) * (sizes[0] + sizes[-1]) * BYTES_PER_FLOAT
        info = datasets.IMAGES.get(params.get("data", "synthetic"))
        cached = info.rows * (info.features + 8) if info else 0  # MNIST's uint8 images kept on the host
        # The dataset lives in host memory always, and on the device too when resident.
        return float(
            RUNTIME_BYTES
            + cached
            + weights
            + activations
            + dataset * (2 if is_cuda(device) and params["data_resident"] else 1)
        )

    # -- the step --------------------------------------------------------------------------------
    def build(self, params: Settings, device: str) -> Step:
        x_host, y_host, note = training_data(params)
        step = build_training_step(
            params, device, x_host, y_host, self.steps_per_epoch(params), self.batch_rows(params)
        )
        step.extras = replace(step.extras, data=str(params["data"]), data_note=note or None)
        return step


def training_data(params: Settings) -> tuple[torch.Tensor, torch.Tensor, str]:
    """(x, y, note) on the host for resolved params: the named data set, or synthetic rows.
    The note says what was used when it is not simply what was asked for."""
    if params["data"] == "synthetic":
        x, y = synthetic_data(params)
        return x, y, ""
    try:
        return datasets.mlp_rows(params)
    except datasets.DataUnavailable as err:
        x, y = synthetic_data(params)
        return x, y, datasets.unavailable_note(params["data"], err)


def loss_curve(params: Mapping[str, Any], device: str, epochs: int) -> list[float]:
    """The mean loss of each of `epochs` epochs on `device`, from the seeded initial weights."""
    return training.loss_curve(WORKLOAD, params, device, epochs)


def build_training_step(
    params: Settings,
    device: str,
    x_host: torch.Tensor,
    y_host: torch.Tensor,
    steps_per_epoch: int,
    rows: int,
    make_model: Callable[[Settings], nn.Module] | None = None,
) -> Step:
    """A training step over (x_host, y_host) for `device`, run in the settings' execution mode,
    with the seeds' habits as switches (data copied per batch, pinned memory, item() every step).
    make_model: the seeded model on the CPU (the MLP's by default; every Training family shares this step)."""
    import torch
    from torch import nn

    make_model = make_model or build_model
    dev = torch.device(device)
    model = make_model(params)
    checksum = float(sum(p.detach().abs().sum() for p in model.parameters()))
    model = model.to(dev)
    optimizer = make_optimizer(model, params)
    loss_fn = nn.CrossEntropyLoss() if params.get("task", "classification") == "classification" else nn.MSELoss()
    feed = BatchFeed(params, dev, x_host, y_host, steps_per_epoch, rows)
    train = execution.make_trainer(params["mode"], model, optimizer, loss_fn, feed.static_batch())
    losses = EpochLosses(steps_per_epoch, dev)

    def run() -> None:
        loss = train(*feed.batch(losses.step))
        losses.add(loss)
        if params["item_every_step"]:
            loss.item()  # the seeds' habit: a device-to-host copy and a synchronise every step

    resident = feed.resident_batch()
    phases: dict[str, Callable[[], object]] = {"compute": lambda: train(*resident)}
    if not params["data_resident"]:
        phases = {"transfer": lambda: feed.batch(0), **phases}

    def check() -> None:
        training.assert_holds_own_parameters(optimizer, model)
        # torch.device("cuda") != torch.device("cuda:0"): compare the type, and the index when given.
        assert all(p.device.type == dev.type and dev.index in (None, p.device.index) for p in model.parameters()), (
            f"model parameters are not all on {dev}"
        )
        eager = params.replace(mode=execution.DEFAULT)
        training.assert_learns(lambda: make_model(eager).to(dev), lambda m: make_optimizer(m, eager), loss_fn, resident)

    return Step(
        run=run,
        phases=phases,
        units={"steps_per_epoch": steps_per_epoch},
        check=check,
        extras=Extras(epoch_losses=losses.per_epoch, initial_weights_abs_sum=checksum),
    )


class BatchFeed:
    """The batches of an epoch, in order: slices of the data already on the device, or copies from
    host memory (pinned and non_blocking when asked) made inside the step, as a DataLoader would."""

    def __init__(
        self,
        params: Settings,
        dev: torch.device,
        x_host: torch.Tensor,
        y_host: torch.Tensor,
        steps_per_epoch: int,
        rows: int,
    ) -> None:
        self.dev, self.rows, self.steps = dev, rows, steps_per_epoch
        self.resident = bool(params["data_resident"])
        self.pinned = bool(params["pin_memory"]) and dev.type == "cuda" and not self.resident
        if self.resident:
            self.x, self.y = x_host.to(dev), y_host.to(dev)
        else:
            self.x = x_host.pin_memory() if self.pinned else x_host
            self.y = y_host.pin_memory() if self.pinned else y_host

    def batch(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        lo = (i % self.steps) * self.rows
        xb, yb = self.x[lo : lo + self.rows], self.y[lo : lo + self.rows]
        if not self.resident:
            xb, yb = xb.to(self.dev, non_blocking=self.pinned), yb.to(self.dev, non_blocking=self.pinned)
        return xb, yb

    def resident_batch(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The first batch on the device (for timing compute alone, and for checks)."""
        if self.resident:
            return self.batch(0)
        return self.x[: self.rows].to(self.dev), self.y[: self.rows].to(self.dev)

    def static_batch(self) -> tuple[torch.Tensor, torch.Tensor]:
        """A batch on the device that a CUDA graph may own as its input buffer: the data itself
        when one resident batch is the whole epoch (nothing to copy in), else a copy."""
        if self.resident and self.steps == 1:
            return self.batch(0)
        xb, yb = self.resident_batch()
        return xb.clone(), yb.clone()


class EpochLosses:
    """The mean loss of each epoch, summed on the device (one add per step, one read per epoch)."""

    def __init__(self, steps_per_epoch: int, dev: torch.device) -> None:
        import torch

        self.steps_per_epoch = steps_per_epoch
        self.step = 0
        self.running = torch.zeros((), device=dev)
        self.per_epoch: list[float] = []

    def add(self, loss: torch.Tensor) -> None:
        self.running.add_(loss)
        self.step += 1
        if self.step % self.steps_per_epoch == 0:
            self.per_epoch.append(self.running.item() / self.steps_per_epoch)
            self.running.zero_()


WORKLOAD = MLPTraining()
# kernels per step from its traced step (the width only sizes tensors: the same operators at every width)
STEP_TERMS, STRUCTURAL_KERNELS = family_terms(WORKLOAD, sizes=("hidden_width",), copied_bytes=mlp_terms.copied_bytes)

# The Training page's model family: its sliders (their steps and meanings), the two settings that key
# a recorded step, and the cost model's counted terms (traced: lib.workloads.traced; FLOPs and bytes: mlp_terms).
FAMILY = TrainingFamily(
    WORKLOAD,
    "MLP",
    axes={
        "batch_size": Axis(
            "batch size",
            tuple(2**i for i in range(17)),
            "Rows per optimizer step (one full-batch step when at least the dataset size).",
        ),
        "hidden_width": Axis("hidden width", tuple(2**i for i in range(2, 14)), "Units in each hidden layer."),
        "dataset_size": Axis(
            "dataset size", tuple(2**i for i in range(8, 21)), "Rows in one epoch: more rows, more steps per epoch."
        ),
        "depth": Axis("depth", (1, 2, 3, 4, 6, 8, 12, 16), "Hidden layers: each adds kernels to every step."),
    },
    width="hidden_width",
    depth="depth",
    step_terms=STEP_TERMS,
    structural_kernels=STRUCTURAL_KERNELS,
    recorded_sweeps={
        "batch_size": (1, 4, 16, 64, 256, 1024, 4096, 8192),
        "hidden_width": (8, 32, 128, 512, 2048, 8192),
        "dataset_size": (256, 1024, 8192, 65536, 262144),
        "depth": (1, 2, 3, 4, 8, 16),
    },
    timeline_batches=(1, 64, 4096, 65536),
    timeline_widths=(64, 1024),
)
