"""What `python -m lib predict MODEL --input SHAPE` trains: MODEL and SHAPE read once, into a workload and
its settings, or a one-line PredictError.

    spec = model_spec("cnn", None, {"channels": "32"})                # a Training family
    spec = model_spec("torchvision:resnet18", (3, 64, 64), {})        # a torchvision network
    spec = model_spec("path/to/net.py:make_net", (3, 32, 32), {})     # a function returning an nn.Module
    spec = own_model(make_net, (3, 32, 32))                           # the same, in-process (a notebook)

A model of one's own is a lib.workloads.model_training.ModelTraining built at run time: the same training
step as the Training page's families (forward, cross-entropy, backward, Adam, the same modes and switches)
on random float32 samples of SHAPE; its classes are read from the model's output on the meta device.
FLOPs and bytes are counted by PyTorch (lib.workloads.counted), kernels from its traced step
(lib.workloads.traced), as for every family.
"""

from __future__ import annotations

import enum
import functools
import importlib.util
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lib.core.workload import SettingError, Settings, Workload
from lib.workloads import FAMILIES, vision
from lib.workloads.family import Axis, TrainingFamily
from lib.workloads.model_training import ModelTraining, batch_setting, common_settings
from lib.workloads.traced import family_terms

TORCHVISION = "torchvision:"
OWN_DATASET = 4096  # samples in one epoch of a model of one's own (--dataset-size)
MAX_SAMPLE = 1 << 26  # elements in one sample: past this a batch of 256 would not fit any machine


class PredictError(ValueError):
    """MODEL, SHAPE or a setting that cannot be predicted; the message is one line, for the command line."""


class Kind(enum.Enum):
    FAMILY = "a Training family"
    TORCHVISION = "a torchvision network"
    FILE = "a function in a file"
    CALLABLE = "a function"


@dataclass(frozen=True)
class ModelSpec:
    """What is predicted: the workload and its settings (all but the batch size, which is swept), and the
    family record whose recordings may answer it (None: a model of one's own)."""

    kind: Kind
    text: str  # as given: 'cnn', 'torchvision:resnet18', 'net.py:make_net'
    label: str  # as sentences name it: 'CNN', 'ResNet-18', 'make_net (net.py)'
    family: TrainingFamily  # the record its terms come from (its own, for a model of one's own)
    settings: Mapping[str, Any] = field(default_factory=dict)  # given values, batch_size left out
    own: bool = False  # no recording of it anywhere: predicted from every recorded family

    @property
    def workload(self) -> Workload:
        return self.family.workload

    def at(self, batch_size: int) -> Settings:
        return self.workload.resolve({**self.settings, "batch_size": batch_size})

    @property
    def input_shape(self) -> tuple[int, ...]:
        work = self.workload
        if isinstance(work, ModelTraining):
            return tuple(work.sample_shape(work.resolve(self.settings)))
        return (int(work.resolve(self.settings)["input_features"]),)  # the MLP: one row of features

    @property
    def sample_words(self) -> str:
        """'samples of 3x32x32', 'sequences of 64 tokens', 'rows of 32 features'."""
        shape = self.input_shape
        if getattr(self.workload, "sample_dtype", "float32") == "int64":
            return f"sequences of {shape_text(shape)} tokens"
        if not isinstance(self.workload, ModelTraining):
            return f"rows of {shape_text(shape)} features"
        return f"samples of {shape_text(shape)}"


def parse_shape(text: str) -> tuple[int, ...]:
    """'3x224x224' -> (3, 224, 224): one sample's shape, each size a whole number of at least 1."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        raise PredictError(
            f"--input {text!r}: expected one sample's shape as sizes joined by x, e.g. 3x224x224 or 128x512"
        ) from None
    if not shape or any(n < 1 for n in shape):
        raise PredictError(f"--input {text!r}: every size must be at least 1")
    if math.prod(shape) > MAX_SAMPLE:
        raise PredictError(f"--input {text!r}: one sample of {math.prod(shape):,} values is too large to predict")
    return shape


def shape_text(shape: Sequence[int]) -> str:
    return "x".join(str(n) for n in shape)


# -- a model of one's own -----------------------------------------------------------------------------


class OwnTraining(ModelTraining):
    """One training step of a model a function builds, on random float32 samples of a given shape."""

    name = "own_model"
    title = "your model's training step"
    description = "One optimizer step (forward, cross-entropy, backward, Adam) of your own model on random samples."
    settings = (batch_setting(maximum=1 << 20), *common_settings(dataset_size=OWN_DATASET))

    def __init__(self, factory: Callable[[], Any], shape: tuple[int, ...]) -> None:
        self.factory, self.shape = factory, tuple(shape)

    def model_factory(self, params: Mapping[str, Any]) -> functools.partial:
        return functools.partial(self.factory)  # keyed by the function itself (lib.workloads.counted)

    def sample_shape(self, params: Mapping[str, Any]) -> tuple[int, ...]:
        return self.shape


def own_model(
    factory: Callable[[], Any],
    shape: Sequence[int],
    *,
    label: str | None = None,
    text: str | None = None,
    kind: Kind = Kind.CALLABLE,
    settings: Mapping[str, Any] | None = None,
) -> ModelSpec:
    """A model a function builds (no arguments), trained on float32 samples of `shape`: checked on the meta
    device (it builds, takes a batch of that shape, and gives (batch, classes) logits)."""
    if not callable(factory):
        raise PredictError(f"{text or factory!r} is not a function")
    name = label or getattr(factory, "__name__", "your model")
    classes = _classes(factory, tuple(shape), getattr(factory, "__name__", name))
    work = OwnTraining(factory, tuple(shape))
    steps, kernels = family_terms(work, depth=None)
    family = TrainingFamily(
        work,
        name,
        axes={"batch_size": Axis("batch size", (1, 4, 16, 64, 256), "")},
        # nothing is recorded of it, so nothing is keyed by a width: the batch stands in
        width="batch_size",
        depth=None,
        step_terms=steps,
        structural_kernels=kernels,
    )
    given = {"classes": classes, **(settings or {})}
    _check(work, given)
    return ModelSpec(kind, text or name, name, family, given, own=True)


def _classes(factory: Callable[[], Any], shape: tuple[int, ...], name: str) -> int:
    """The classes the model's logits give, from one forward pass of a batch of 2 on the meta device."""
    import torch
    from torch import nn

    try:
        with torch.device("meta"):
            model = factory()
    except Exception as err:  # the user's own code: whatever it raises is said in one line
        raise PredictError(f"{name}() failed on the meta device: {_first_line(err)}") from None
    if not isinstance(model, nn.Module):
        raise PredictError(f"{name}() returned {type(model).__name__}, not a torch.nn.Module")
    try:
        out = model(torch.zeros((2, *shape), device="meta"))
    except Exception as err:
        raise PredictError(
            f"{name} does not take samples of shape {shape_text(shape)} (a batch of them: "
            f"{shape_text((2, *shape))}): {_first_line(err)}"
        ) from None
    if not isinstance(out, torch.Tensor) or out.dim() != 2 or out.shape[0] != 2 or out.shape[1] < 2:
        got = shape_text(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise PredictError(
            f"{name} gives {got} for a batch of 2; predict trains it with cross-entropy, so it must "
            "give (batch, classes) logits with at least 2 classes"
        )
    return int(out.shape[1])


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def load_factory(text: str) -> Callable[[], Any]:
    """'path/to/file.py:factory' -> the function, the file imported by its path (its folder on sys.path
    while it loads, so it may import its neighbours)."""
    path_text, _, name = text.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise PredictError(f"{text}: no file {path_text}" + (" (a folder)" if path.is_dir() else ""))
    if not name.isidentifier():
        raise PredictError(f"{text}: name a function after the colon, e.g. {path_text}:make_model")
    spec = importlib.util.spec_from_file_location(f"_predicted_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise PredictError(f"{text}: {path_text} cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the user's own file: what it raises, in one line
        raise PredictError(f"{text}: importing {path_text} failed: {_first_line(err)}") from None
    finally:
        sys.path.remove(str(path.resolve().parent))
    factory = getattr(module, name, None)
    if factory is None:
        known = sorted(
            k
            for k, v in vars(module).items()
            if callable(v) and not k.startswith("_") and getattr(v, "__module__", None) == module.__name__
        )
        raise PredictError(
            f"{text}: {path_text} has no function {name}" + (f" (it defines {', '.join(known)})" if known else "")
        )
    return factory


# -- MODEL, read ---------------------------------------------------------------------------------------

BY_NAME = {f.name: f for f in FAMILIES}


def model_spec(
    model: str, shape: tuple[int, ...] | None, sets: Mapping[str, str] | None = None, dataset_size: int | None = None
) -> ModelSpec:
    """MODEL as the command line gives it: a family name, 'torchvision:NAME' or 'file.py:function'."""
    sets = {**(sets or {}), **({"dataset_size": dataset_size} if dataset_size else {})}
    if model.startswith(TORCHVISION):
        return _torchvision(model, model[len(TORCHVISION) :], shape, sets)
    if model in BY_NAME:
        return _family(model, BY_NAME[model], shape, sets)
    if ":" in model:
        if shape is None:
            raise PredictError(f"{model}: give one sample's shape with --input, e.g. --input 3x32x32")
        return own_model(
            load_factory(model),
            shape,
            label=f"{model.rpartition(':')[2]} ({Path(model.rpartition(':')[0]).name})",
            text=model,
            kind=Kind.FILE,
            settings=sets,
        )
    raise PredictError(
        f"unknown model {model!r}: give a family ({', '.join(BY_NAME)}), torchvision:NAME, or path/to/file.py:function"
    )


def _family(text: str, family: TrainingFamily, shape: tuple[int, ...] | None, sets: Mapping[str, Any]) -> ModelSpec:
    """A Training family; --input sets its sample's shape where one of its settings does (the MLP's
    features, the Transformer's sequence length) and must be its own otherwise (the CNN's images)."""
    given = dict(sets)
    own = _INPUT.get(family.name)
    if shape is not None and own is not None and len(shape) == 1:
        given[own] = shape[0]
    elif shape is not None:
        spec = ModelSpec(Kind.FAMILY, text, family.label, family, given)
        if tuple(shape) != spec.input_shape:
            what = _INPUT_WORDS.get(family.name) or f"{shape_text(spec.input_shape)} (its own)"
            raise PredictError(
                f"--input {shape_text(shape)}: a {family.label} sample is {what}; leave --input out for its own"
            )
    _check(family.workload, given)
    return ModelSpec(Kind.FAMILY, text, family.label, family, given)


_INPUT = {"mlp": "input_features", "transformer": "seq_len"}  # the setting a one-number --input sets
_INPUT_WORDS = {
    "mlp": "one number, its features per row (e.g. --input 32)",
    "transformer": "one number, its tokens per sequence (e.g. --input 64)",
}


def _torchvision(text: str, name: str, shape: tuple[int, ...] | None, sets: Mapping[str, Any]) -> ModelSpec:
    """One of the Training page's torchvision networks (a family choice), or any other torchvision
    classification network by name, as a model of one's own; images 3 x S x S (--input), weights=None."""
    given = dict(sets)
    if shape is not None:
        if len(shape) != 3 or shape[0] != 3 or shape[1] != shape[2]:
            raise PredictError(
                f"--input {shape_text(shape)}: torchvision networks take RGB images, 3xSxS (e.g. 3x224x224)"
            )
        given["image_size"] = shape[1]
    if name in vision.NETWORKS:
        given["model"] = name
        _check(vision.WORKLOAD, given)
        return ModelSpec(Kind.TORCHVISION, text, vision.NETWORKS[name], vision.FAMILY, given)
    import torchvision

    known = torchvision.models.list_models(module=torchvision.models)
    if name not in known:
        raise PredictError(
            f"unknown torchvision network {name!r} (e.g. {', '.join(vision.NETWORKS)}; any of "
            "torchvision.models.list_models() that classifies images)"
        )
    size = int(given.pop("image_size", 224))
    classes = int(given.pop("classes", 10))
    factory = functools.partial(torchvision.models.get_model, name, weights=None, num_classes=classes)
    return own_model(factory, (3, size, size), label=name, text=text, kind=Kind.TORCHVISION, settings=given)


def _check(workload: Workload, given: Mapping[str, Any]) -> None:
    """Every setting known and in range (at the workload's default batch), said in one line."""
    try:
        workload.resolve(dict(given))
    except SettingError as err:
        raise PredictError(f"--set {err}") from None
