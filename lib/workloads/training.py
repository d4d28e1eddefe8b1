"""What the training workloads (mlp, dataloader) share: the check that a model really learns, and
the loss curve per epoch from the seeded initial weights."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn

from lib.core.devices import synchronize
from lib.core.workload import Workload, built_step

LEARN_STEPS = 20


def assert_learns(
    make_model: Callable[[], nn.Module],
    make_optimizer: Callable[[nn.Module], torch.optim.Optimizer],
    loss_fn: nn.Module,
    batch: tuple[torch.Tensor, torch.Tensor],
    steps: int = LEARN_STEPS,
) -> None:
    """A fresh model (the initial weights: a trained one may sit at its minimum) trained `steps`
    steps on one batch must end with a lower, finite loss."""
    import torch

    model = make_model()
    optimizer = make_optimizer(model)
    xb, yb = batch
    with torch.no_grad():
        before = loss_fn(model(xb), yb).item()
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss_fn(model(xb), yb).backward()
        optimizer.step()
    with torch.no_grad():
        after = loss_fn(model(xb), yb).item()
    assert math.isfinite(after), f"loss became {after}"
    assert after < before, f"{steps} steps on one batch did not lower the loss ({before:.4g} -> {after:.4g})"


def assert_holds_own_parameters(optimizer: torch.optim.Optimizer, model: nn.Module) -> None:
    """Seed 000's CPU run trained nothing: its optimizer held the other model's parameters."""
    held = [p for group in optimizer.param_groups for p in group["params"]]
    own = list(model.parameters())
    assert len(held) == len(own) and all(a is b for a, b in zip(held, own)), (
        "the optimizer does not hold this model's parameters (seed 000's bug)"
    )


def loss_curve(workload: Workload, given: Mapping[str, Any], device: str, epochs: int) -> list[float]:
    """Train `epochs` epochs on `device` from the seeded initial weights; the mean loss of each epoch.

    Every device starts from the same weights (built on the CPU from `seed`) and sees the same
    batches in the same order, so the curves of two devices agree up to floating-point rounding.
    The step's units say how many calls make an epoch (`steps_per_epoch`; one call otherwise)."""
    with built_step(workload, workload.resolve(given), device) as step:
        calls = int(step.units.get("steps_per_epoch", 1))
        for _ in range(int(epochs) * calls):
            step.run()
        synchronize(device)
        if step.extras.epoch_losses is None:
            raise ValueError(f"{workload.name}'s step keeps no loss per epoch")
        return [float(v) for v in step.extras.epoch_losses]
