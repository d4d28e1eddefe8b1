"""CNN training step (seed 002): a 10-layer convolutional network on 32 x 32 RGB images, the Training
page's second model family.

Seed 002 trains "a 10-layer CNN" (its article names the depth, not the code) at batch sizes up to 2,048:
here three stages of `depth` 3 x 3 convolutions, each with batch norm and ReLU, at `channels`, 2 x and
4 x `channels` (2 x 2 average pooling between stages), global average pooling and one linear layer.
At depth 3 that is 9 convolutions and the linear layer: 10 layers (channels 64 is the common width of
such a network; the page starts narrower, so a small server's CPU can be measured live).

The images are random (made on the fly, nothing downloaded): a step's time does not depend on what
they show. FLOPs, bytes and parameters are counted by PyTorch from its traced step (lib.workloads.counted).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    from torch import nn

from lib.core.workload import Setting
from lib.workloads.family import Axis, Grid, TrainingFamily
from lib.workloads.model_training import ModelTraining, batch_setting, common_settings
from lib.workloads.traced import family_terms

IMAGE_SHAPE = (3, 32, 32)
STAGES = 3


def conv_net(channels: int, depth: int, classes: int) -> nn.Sequential:
    """The network (on the current default device; fake tensors when its step is traced)."""
    from torch import nn

    layers: list[nn.Module] = []
    cin = IMAGE_SHAPE[0]
    for stage in range(STAGES):
        cout = channels * 2**stage
        for _ in range(depth):
            layers += [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
            cin = cout
        if stage < STAGES - 1:
            layers.append(nn.AvgPool2d(2))
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


class CNNTraining(ModelTraining):
    name = "cnn"
    title = "CNN training step"
    description = (
        "One optimizer step (forward, backward, update) of a 10-layer CNN (seed 002) on a batch of 32 x 32 RGB "
        "images. Both devices train the same model from the same initial weights on the same data."
    )
    settings = (
        batch_setting(),
        Setting("channels", 16, "channels of the first stage (then 2x and 4x)", 1, 512, log=True),
        Setting("depth", 3, "convolutions per stage (3 stages): 3 gives seed 002's 10 layers", 1, 16),
        *common_settings(dataset_size=2048),
    )

    def model_factory(self, params: Mapping[str, Any]) -> Callable[[], nn.Module]:
        return functools.partial(conv_net, int(params["channels"]), int(params["depth"]), int(params["classes"]))

    def sample_shape(self, params: Mapping[str, Any]) -> tuple[int, ...]:
        return IMAGE_SHAPE


WORKLOAD = CNNTraining()
# kernels per step from its traced step: the channels and the classes only size tensors
STEP_TERMS, STRUCTURAL_KERNELS = family_terms(WORKLOAD, sizes=("channels", "classes"))

FAMILY = TrainingFamily(
    WORKLOAD,
    "CNN",
    axes={
        "batch_size": Axis(
            "batch size",
            tuple(2**i for i in range(13)),
            "Images per optimizer step (one full-batch step when at least the dataset size).",
        ),
        "channels": Axis(
            "channels",
            (4, 8, 16, 32, 64, 128),
            "Channels of the first stage of convolutions; the next two stages have 2 and 4 times as many.",
        ),
        "dataset_size": Axis(
            "dataset size", tuple(2**i for i in range(8, 15)), "Images in one epoch: more images, more steps per epoch."
        ),
        "depth": Axis(
            "depth", (1, 2, 3, 4, 6), "Convolutions in each of the 3 stages: each adds kernels to every step."
        ),
    },
    width="channels",
    depth="depth",
    step_terms=STEP_TERMS,
    structural_kernels=STRUCTURAL_KERNELS,
    grid=Grid(batches=(1, 8, 64, 512, 4096), widths=(16, 64), depths=(1, 3)),
)
