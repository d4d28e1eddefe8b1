"""torchvision models by name, trained one step at a time: the Training page's image networks.

    python -m lib run torchvision --set model=resnet18 --set image_size=64

Every network is built by torchvision with weights=None (random weights: nothing is downloaded) for
`classes` classes on random RGB images of `image_size` pixels a side:
- resnet18: torchvision.models.resnet18;
- mobilenet_v3_small: torchvision.models.mobilenet_v3_small, its classifier's dropout off (every device
  and mode computes the same function);
- vit_tiny: a Vision Transformer in DeiT-Tiny's sizes (12 layers, width 192, 3 heads, MLP 768, 16 x 16
  patches), built with torchvision.models.VisionTransformer; torchvision's own ViTs (vit_b_16 and up)
  are 7 to 50 times larger. Its image size must be a multiple of the patch.
Each network is a model of its own on the page (a choice, recorded apart); the image size is its slider.
FLOPs, bytes and parameters are counted by PyTorch from its traced step (lib.workloads.counted).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    from torch import nn

from lib.core.workload import Setting, SettingError
from lib.workloads.family import NO_DEPTH, Axis, Choice, Grid, TrainingFamily
from lib.workloads.model_training import ModelTraining, batch_setting, common_settings
from lib.workloads.traced import family_terms

VIT_TINY = {"patch_size": 16, "num_layers": 12, "num_heads": 3, "hidden_dim": 192, "mlp_dim": 768}
NETWORKS = {"resnet18": "ResNet-18", "mobilenet_v3_small": "MobileNet V3 small", "vit_tiny": "ViT-Tiny"}
IMAGE_SIZES = (32, 64, 96, 128, 160, 224)  # the page's slider: multiples of the ViT's 16-pixel patch


def network(name: str, image_size: int, classes: int) -> nn.Module:
    """The named network with random weights (on the current default device; fake tensors when its step is traced)."""
    import torchvision

    if name == "resnet18":
        return torchvision.models.resnet18(weights=None, num_classes=classes)
    if name == "mobilenet_v3_small":
        return torchvision.models.mobilenet_v3_small(weights=None, num_classes=classes, dropout=0.0)
    if name == "vit_tiny":
        return torchvision.models.VisionTransformer(image_size=image_size, num_classes=classes, **VIT_TINY)
    raise SettingError(f"model: unknown network {name!r} (known: {', '.join(NETWORKS)})")


class VisionTraining(ModelTraining):
    name = "torchvision"
    title = "torchvision model training step"
    description = (
        "One optimizer step (forward, backward, update) of a torchvision network (random weights, nothing "
        "downloaded) on a batch of random RGB images. Both devices train the same model from the same initial "
        "weights on the same data."
    )
    settings = (
        batch_setting(maximum=16_384),
        Setting(
            "model",
            "resnet18",
            "the network: " + ", ".join(f"{k} ({v})" for k, v in NETWORKS.items()),
            choices=tuple(NETWORKS),
        ),
        Setting("image_size", 64, "pixels on each side of the square RGB images", 16, 1024, log=True),
        *common_settings(dataset_size=1024),
    )

    def validate(self, params: Mapping[str, Any]) -> None:
        super().validate(params)
        size, patch = int(params["image_size"]), VIT_TINY["patch_size"]
        if params["model"] == "vit_tiny" and size % patch:
            raise SettingError(
                f"image_size: vit_tiny cuts images into {patch} x {patch} patches; {size} is not a multiple of {patch}"
            )
        if params["model"] == "resnet18" and size < 32:
            raise SettingError(f"image_size: resnet18 halves the image 5 times; use at least 32 pixels, not {size}")

    def model_factory(self, params: Mapping[str, Any]) -> Callable[[], nn.Module]:
        return functools.partial(network, str(params["model"]), int(params["image_size"]), int(params["classes"]))

    def sample_shape(self, params: Mapping[str, Any]) -> tuple[int, ...]:
        return (3, int(params["image_size"]), int(params["image_size"]))


WORKLOAD = VisionTraining()
# kernels per step from each network's traced step (no layers to repeat): the image size and classes only size tensors
STEP_TERMS, STRUCTURAL_KERNELS = family_terms(WORKLOAD, depth=None, sizes=("image_size", "classes"))

FAMILY = TrainingFamily(
    WORKLOAD,
    "torchvision model",
    axes={
        "batch_size": Axis(
            "batch size",
            tuple(2**i for i in range(11)),
            "Images per optimizer step (one full-batch step when at least the dataset size).",
        ),
        "image_size": Axis(
            "image size", IMAGE_SIZES, "Pixels on each side of the images: the work grows with their square."
        ),
        "dataset_size": Axis(
            "dataset size", tuple(2**i for i in range(8, 13)), "Images in one epoch: more images, more steps per epoch."
        ),
    },
    width="image_size",
    depth=None,
    step_terms=STEP_TERMS,
    structural_kernels=STRUCTURAL_KERNELS,
    choices={
        "model": Choice(
            "network",
            tuple(NETWORKS),
            "Which torchvision network is trained (random weights: "
            "nothing is downloaded). Each is a model of its own, recorded apart.",
            url="network",
            words=NETWORKS,
        )
    },
    grid=Grid(batches=(16, 64, 256), widths=(64, 224), depths=(NO_DEPTH,), picks=tuple({"model": n} for n in NETWORKS)),
)
