"""A prediction for a model of one's own: `python -m lib predict`, and the same from Python (a notebook).

    from lib.lessons.predict import predict
    result = predict(make_net, (3, 32, 32), batches=(1, 16, 256), live=False)   # a function returning an nn.Module
    result = predict("torchvision:resnet18", (3, 64, 64))                       # or MODEL as the CLI takes it
    print("\\n".join(result.lines())); result.as_dict()

models: MODEL and SHAPE read into a workload (a Training family, a torchvision network, or a model of one's
own, lib.workloads.model_training's step); gpus: each recorded GPU's step for it with its band (the
Training page's point, or its cost model fitted to every family the GPU recorded); answer: the live CPU,
the crossover and the verdicts, typed, printed and written as JSON. No Streamlit: the pages never run a
visitor's code (the Training page says how to run this on one's own machine).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

# imported where they run: the command line builds its parser (lib.lessons.predict.cli) for every command
if TYPE_CHECKING:
    from lib.lessons.predict.answer import Prediction

BATCHES = (1, 4, 16, 64, 256)


def predict(
    model: str | Callable[[], Any],
    input_shape: Sequence[int] | str | None = None,
    batches: Sequence[int] = BATCHES,
    *,
    live: bool = True,
    settings: Mapping[str, Any] | None = None,
    threads: int | None = None,
) -> Prediction:
    """The prediction for `model`: a function returning an nn.Module (called with no arguments), or MODEL as the
    command line takes it ('cnn', 'torchvision:resnet18', 'net.py:make_net'); `input_shape`: one sample's shape."""
    from lib.lessons.predict.answer import predict_spec
    from lib.lessons.predict.models import PredictError, model_spec, own_model, parse_shape

    shape = parse_shape(input_shape) if isinstance(input_shape, str) else tuple(input_shape) if input_shape else None
    if callable(model):
        if shape is None:
            raise PredictError("give one sample's shape, e.g. input_shape=(3, 32, 32)")
        spec = own_model(model, shape, settings=settings)
    else:
        spec = model_spec(str(model), shape, dict(settings or {}))
    return predict_spec(spec, batches, live=live, threads=threads)


__all__ = ["BATCHES", "predict"]
