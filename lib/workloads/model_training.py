"""What the Training page's model families beyond the MLP share (lib.workloads.cnn, .transformer, .vision):
one optimizer step of a classifier on synthetic samples made on the fly (no download), run by the MLP's
training step (lib.workloads.mlp.build_training_step: the same execution modes and the same switches:
data resident or copied per batch, pinned memory, item() every step).

A family's workload says only what its model is: `model_factory(params)`, a callable that builds the
model, and the shape and dtype of one sample. FLOPs, bytes and parameters are counted from its traced
step (lib.workloads.counted, by lib.workloads.traced), never written by hand; the Training page's
settings are shipped counted, so a server drawing recorded views loads no torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn

from lib.core.devices import is_cuda
from lib.core.workload import RUNTIME_BYTES, Setting, SettingError, Settings, Step, Workload
from lib.workloads import counted, execution, mlp

HEAP_TENSOR_BYTES = mlp.HEAP_TENSOR_BYTES  # tensors under glibc's mmap threshold stay in its heap when freed
ADAM_STATES = 5  # weights, gradients, Adam's two moments and its foreach update's temporary (as the MLP's)


def batch_setting(maximum: int = 65_536) -> Setting:
    return Setting(
        "batch_size", 64, "samples per optimizer step (full batch when >= dataset_size)", 1, maximum, log=True
    )


def common_settings(dataset_size: int = 4096) -> tuple[Setting, ...]:
    """The settings every family's step takes: its data, optimizer, execution mode and the page's switches."""
    return (
        Setting(
            "dataset_size", dataset_size, "samples in one epoch (synthetic, made on the fly)", 1, 1_000_000, log=True
        ),
        Setting("classes", 10, "output classes (cross-entropy loss)", 2, 10_000, log=True),
        Setting("optimizer", "adam", "optimizer", choices=("adam", "sgd")),
        Setting(
            "optimizer_impl",
            "default",
            "optimizer kernels: PyTorch's default, one kernel per tensor (for-loop), grouped (foreach) or fused",
            choices=("default", "for-loop", "foreach", "fused"),
        ),
        Setting("mode", execution.DEFAULT, execution.setting_help(), choices=execution.VALUES),
        Setting("lr", 1e-3, "learning rate", 1e-6, 10.0, log=True),
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


class ModelTraining(Workload):
    """One optimizer step of a classifier; subclasses say what the model and one sample are."""

    sample_dtype = "float32"  # 'int64' for token ids
    vocabulary = 0  # token ids are drawn below this (int64 samples)

    # -- what a subclass says ----------------------------------------------------------------------
    def model_factory(self, params: Mapping[str, Any]) -> Callable[[], nn.Module]:
        raise NotImplementedError

    def sample_shape(self, params: Mapping[str, Any]) -> tuple[int, ...]:
        raise NotImplementedError

    # -- settings ----------------------------------------------------------------------------------
    def validate(self, params: Mapping[str, Any]) -> None:
        if params["mode"] != execution.DEFAULT and params["optimizer_impl"] != "default":
            raise SettingError(
                f"optimizer_impl: mode {params['mode']} sets how the optimizer runs; leave "
                "optimizer_impl at default with it"
            )

    def refusal(self, settings: Settings, device: str) -> str | None:
        return execution.mode_refusal(settings["mode"], device)

    # -- estimates, counted ------------------------------------------------------------------------
    def counts(self, params: Mapping[str, Any]) -> counted.StepCounts:
        return counted.step_counts(self, params)

    def parameter_count(self, params: Settings) -> int:
        return self.counts(params).parameters

    def batch_rows(self, params: Settings) -> int:
        return min(int(params["batch_size"]), int(params["dataset_size"]))

    def steps_per_epoch(self, params: Settings) -> int:
        return math.ceil(int(params["dataset_size"]) / self.batch_rows(params))

    def flops(self, params: Settings) -> float:
        return self.counts(params).flops(self.batch_rows(params))

    def sample_bytes(self, params: Mapping[str, Any]) -> int:
        """One sample and its label (int64) as stored and copied."""
        size = 8 if self.sample_dtype == "int64" else 4
        return math.prod(self.sample_shape(params)) * size + 8

    def copied_bytes(self, params: Mapping[str, Any], rows: int) -> float:
        """Bytes of one batch copied from host memory (its samples and labels): the traced terms' copy."""
        return float(rows * self.sample_bytes(params))

    def bytes_moved(self, params: Settings) -> float:
        rows = self.batch_rows(params)
        copied = 0 if params["data_resident"] else rows * self.sample_bytes(params)
        return self.counts(params).bytes(rows) + copied

    def peak_memory_bytes(self, params: Settings, device: str) -> float:
        """A bound on what one point adds to its process at its peak, as the MLP's is made: the weights'
        states (and on the host the heap's kept copies of small ones), the forward's tensors twice (kept
        for the backward, and their gradients), and the dataset (on the device too when resident)."""
        counts = self.counts(params)
        states = ADAM_STATES if params["optimizer"] == "adam" else 2
        if not is_cuda(device) and counts.parameters * 4 < HEAP_TENSOR_BYTES:
            states += mlp.HEAP_COPIES
        dataset = int(params["dataset_size"]) * self.sample_bytes(params)
        return float(
            RUNTIME_BYTES
            + counts.parameters * 4 * states
            + 2 * counts.forward_bytes(self.batch_rows(params))
            + dataset * (2 if is_cuda(device) and params["data_resident"] else 1)
        )

    # -- the step ----------------------------------------------------------------------------------
    def make_model(self, params: Settings) -> nn.Module:
        """The model, initialised from `seed` on the CPU so every device starts from the same weights."""
        import torch

        state = torch.random.get_rng_state()
        torch.manual_seed(int(params["seed"]))
        try:
            return self.model_factory(params)()
        finally:
            torch.random.set_rng_state(state)

    def synthetic_data(self, params: Settings) -> tuple[torch.Tensor, torch.Tensor]:
        """Random samples (images, or token ids) and random labels: the step's time does not depend on
        what the samples show, and the learning check memorises one batch."""
        import torch

        gen = torch.Generator().manual_seed(int(params["seed"]) + 1)
        shape = (int(params["dataset_size"]), *self.sample_shape(params))
        if self.sample_dtype == "int64":
            x = torch.randint(0, self.vocabulary, shape, generator=gen)
        else:
            x = torch.randn(shape, generator=gen)
        return x, torch.randint(0, int(params["classes"]), shape[:1], generator=gen)

    def build(self, params: Settings, device: str) -> Step:
        x, y = self.synthetic_data(params)
        step = mlp.build_training_step(
            params, device, x, y, self.steps_per_epoch(params), self.batch_rows(params), make_model=self.make_model
        )
        step.extras = replace(step.extras, data="synthetic")
        return step
