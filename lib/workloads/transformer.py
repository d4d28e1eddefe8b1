"""Transformer training step: a small encoder classifying token sequences, the Training page's third
model family.

Token ids (random, made on the fly) are embedded with a learned position, go through `layers`
pre-norm encoder layers of width `d_model` (`heads` attention heads, a feed-forward 4 x as wide, no
dropout: every device and mode computes the same function), are averaged over the sequence and
classified by one linear layer. The sequence length is a choice of the page (each length is a model
of its own, recorded apart), not a slider along a curve. FLOPs, bytes and parameters are counted by
PyTorch from its traced step (lib.workloads.counted): attention's share grows with the sequence length squared.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn

from lib.core.workload import Setting, SettingError
from lib.workloads.family import Axis, Choice, Grid, TrainingFamily
from lib.workloads.model_training import ModelTraining, batch_setting, common_settings
from lib.workloads.traced import family_terms

VOCABULARY = 1000
FEED_FORWARD = 4  # the feed-forward layer's width, in multiples of d_model


def encoder_classifier(d_model: int, layers: int, heads: int, seq_len: int, classes: int) -> nn.Module:
    """The network (on the current default device; fake tensors when its step is traced)."""
    import torch
    from torch import nn

    class EncoderClassifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCABULARY, d_model)
            self.position = nn.Parameter(torch.zeros(seq_len, d_model).normal_(std=0.02))
            layer = nn.TransformerEncoderLayer(
                d_model, heads, FEED_FORWARD * d_model, dropout=0.0, batch_first=True, norm_first=True
            )
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.head = nn.Linear(d_model, classes)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.head(self.encoder(self.embed(tokens) + self.position).mean(dim=1))

    return EncoderClassifier()


class TransformerTraining(ModelTraining):
    name = "transformer"
    title = "Transformer training step"
    description = (
        "One optimizer step (forward, backward, update) of a small Transformer encoder classifying token "
        "sequences. Both devices train the same model from the same initial weights on the same data."
    )
    sample_dtype = "int64"
    vocabulary = VOCABULARY
    settings = (
        batch_setting(),
        Setting(
            "d_model",
            64,
            "model width: each token's vector, and the attention and feed-forward layers' size",
            4,
            4096,
            log=True,
        ),
        Setting("layers", 2, "encoder layers", 1, 48),
        Setting("seq_len", 64, "tokens in each sequence", 1, 4096, log=True),
        Setting("heads", 4, "attention heads (d_model must be a multiple of them)", 1, 64),
        *common_settings(dataset_size=4096),
    )

    def validate(self, params: Mapping[str, Any]) -> None:
        super().validate(params)
        if int(params["d_model"]) % int(params["heads"]):
            raise SettingError(f"d_model: {params['d_model']} is not a multiple of heads ({params['heads']})")

    def model_factory(self, params: Mapping[str, Any]) -> Callable[[], nn.Module]:
        return functools.partial(
            encoder_classifier,
            int(params["d_model"]),
            int(params["layers"]),
            int(params["heads"]),
            int(params["seq_len"]),
            int(params["classes"]),
        )

    def sample_shape(self, params: Mapping[str, Any]) -> tuple[int, ...]:
        return (int(params["seq_len"]),)


WORKLOAD = TransformerTraining()
# kernels per step from its traced step: width, sequence length, heads and classes only size tensors
STEP_TERMS, STRUCTURAL_KERNELS = family_terms(
    WORKLOAD, depth="layers", sizes=("d_model", "seq_len", "heads", "classes")
)

FAMILY = TrainingFamily(
    WORKLOAD,
    "Transformer",
    axes={
        "batch_size": Axis(
            "batch size",
            tuple(2**i for i in range(13)),
            "Sequences per optimizer step (one full-batch step when at least the dataset size).",
        ),
        "d_model": Axis(
            "model width",
            (16, 32, 64, 128, 256, 512),
            "Each token's vector: the attention and feed-forward layers grow with it.",
        ),
        "dataset_size": Axis(
            "dataset size",
            tuple(2**i for i in range(8, 15)),
            "Sequences in one epoch: more sequences, more steps per epoch.",
        ),
        "layers": Axis("layers", (1, 2, 3, 4, 6), "Encoder layers: each adds kernels to every step."),
    },
    width="d_model",
    depth="layers",
    step_terms=STEP_TERMS,
    structural_kernels=STRUCTURAL_KERNELS,
    choices={
        "seq_len": Choice(
            "sequence length",
            (16, 32, 64, 128, 256),
            "Tokens in each sequence: attention's work grows with its square. Each length is a "
            "model of its own, recorded apart.",
            url="seq_len",
            words={n: f"{n} tokens" for n in (16, 32, 64, 128, 256)},
        )
    },
    grid=Grid(batches=(1, 8, 64, 512, 4096), widths=(64, 256), depths=(1, 4)),
)
