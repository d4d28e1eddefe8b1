"""The models and data of the ddp workload: built the same way in the parent (for estimates and
the single-process build()) and in every torchrun worker, so all ranks start from the same weights.

    params = DDPSettings.of(settings)    the workload's settings as these functions read them
    build_model(params)                  an MLP (lib.workloads.mlp) or a 10-layer CNN, seeded
    synthetic_batch(params, rank, dev)   random inputs and labels, one batch per rank
    make_optimizer(model, params)        SGD with momentum 0.9

The data are random tensors already on the device (CIFAR-10-shaped 3x32x32 images for the CNN):
the input pipeline is not part of this lesson.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn

from lib.workloads import mlp

BYTES_PER_FLOAT = 4
IMAGE_SHAPE = (3, 32, 32)


@dataclass(frozen=True)
class DDPSettings:
    """One point's settings as the models, the estimates and every torchrun process read them (a
    worker gets them as JSON: as_json and of are that edge)."""

    model: str
    batch_size: int
    gpus: int
    backend: str
    steps: int
    hidden_width: int
    depth: int
    input_features: int
    width: int
    classes: int
    lr: float
    seed: int

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> DDPSettings:
        """From the workload's resolved Settings or their JSON; KeyError names a missing one."""
        return cls(
            model=str(settings["model"]),
            batch_size=int(settings["batch_size"]),
            gpus=int(settings["gpus"]),
            backend=str(settings["backend"]),
            steps=int(settings["steps"]),
            hidden_width=int(settings["hidden_width"]),
            depth=int(settings["depth"]),
            input_features=int(settings["input_features"]),
            width=int(settings["width"]),
            classes=int(settings["classes"]),
            lr=float(settings["lr"]),
            seed=int(settings["seed"]),
        )

    def as_json(self) -> dict[str, str | int | float]:
        return asdict(self)


def mlp_params(params: DDPSettings) -> dict[str, str | int]:
    """The settings lib.workloads.mlp's shape functions read, from ours (theirs allow fewer classes than
    ours, so they are not resolved as an mlp point)."""
    return {
        "input_features": params.input_features,
        "hidden_layers": "",
        "hidden_width": params.hidden_width,
        "depth": params.depth,
        "outputs": params.classes,
        "seed": params.seed,
    }


def cnn_stages(params: DDPSettings) -> list[tuple[int, int, int]]:
    """(in_channels, out_channels, resolution) of every 3x3 convolution: three stages of three
    convolutions at 32, 16 and 8 pixels (width, 2 x width, 4 x width channels), each stage ending
    in a 2x2 max-pool; with the final linear layer, a 10-layer CNN like seed 002's."""
    width = params.width
    convs, cin = [], IMAGE_SHAPE[0]
    for stage, cout in enumerate((width, 2 * width, 4 * width)):
        for _ in range(3):
            convs.append((cin, cout, IMAGE_SHAPE[1] >> stage))
            cin = cout
    return convs


def build_cnn(params: DDPSettings) -> nn.Sequential:
    import torch
    from torch import nn

    generator_state = torch.random.get_rng_state()
    torch.manual_seed(params.seed)
    layers: list[nn.Module] = []
    convs = cnn_stages(params)
    for i, (cin, cout, _) in enumerate(convs):
        layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True)]
        if i % 3 == 2:
            layers.append(nn.MaxPool2d(2))
    final_channels, final_side = convs[-1][1], IMAGE_SHAPE[1] >> 3
    layers += [nn.Flatten(), nn.Linear(final_channels * final_side * final_side, params.classes)]
    model = nn.Sequential(*layers)
    torch.random.set_rng_state(generator_state)
    return model


def build_model(params: DDPSettings) -> nn.Module:
    """The model, initialised from `seed` on the CPU: every process starts from the same weights."""
    if params.model == "cnn":
        return build_cnn(params)
    return mlp.build_model(mlp_params(params))


def synthetic_batch(params: DDPSettings, rank: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """One batch of random inputs and labels for process `rank` (each rank gets its own data)."""
    import torch

    gen = torch.Generator().manual_seed(params.seed + 1 + rank)
    rows = params.batch_size
    shape = IMAGE_SHAPE if params.model == "cnn" else (params.input_features,)
    x = torch.randn(rows, *shape, generator=gen)
    y = torch.randint(0, params.classes, (rows,), generator=gen)
    return x.to(device), y.to(device)


def make_optimizer(model: nn.Module, params: DDPSettings) -> torch.optim.Optimizer:
    import torch

    return torch.optim.SGD(model.parameters(), lr=params.lr, momentum=0.9)
