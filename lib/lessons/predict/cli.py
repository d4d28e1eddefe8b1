"""`python -m lib predict`: its options, its help, and the run. Light to import (the parser is built for every
command): the prediction's modules, and torch, load only when it runs."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from lib.core import args as args_

DESCRIPTION = """\
Predict one training step of a model on each recorded GPU (H100, H200) at several batch sizes, time it on this
machine's CPU, and say from which batch size the GPU wins and what holds its step back.

MODEL is one of:
  mlp, cnn, transformer     a family of the app's Training page (its own sample shape; --set its settings)
  torchvision:NAME          a torchvision network, weights=None (nothing is downloaded): resnet18,
                            mobilenet_v3_small and vit_tiny as the Training page trains them, or any other
                            image classifier of torchvision.models.list_models() (e.g. resnet50)
  path/to/file.py:factory   a function in that file that takes no arguments and returns a torch.nn.Module
                            whose output is (batch, classes) logits; trained with cross-entropy and Adam

SHAPE (--input) is one sample's shape, sizes joined by x: 3x224x224 (an RGB image), 128x512 (a sequence of
128 vectors of 512), 784 (a flat row). Samples are random float32 (a model that starts with nn.Embedding,
taking int64 token ids, is not supported from a file: the transformer family is). torchvision networks take
3xSxS; the mlp takes one number (features per row), the transformer one number (tokens per sequence); the cnn
its own 3x32x32. A family's --input may be left out.

Every number says what it is: 'recorded' and 'derived' (a recorded step of this very model), 'predicted'
with the error the cost model showed on steps it had not seen (its band, low - high), 'measured live here'.
The public app never runs code a visitor uploads: run this on your own machine.

examples:
  python -m lib predict cnn --over batch_size=1,16,256
  python -m lib predict torchvision:resnet18 --input 3x64x64 --no-live
  python -m lib predict my_net.py:make_model --input 3x32x32 --over batch_size=1,16,256 --json prediction.json
"""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "predict",
        help="predict a model's training step on the recorded GPUs against this CPU",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", metavar="MODEL", help="mlp, cnn, transformer, torchvision:NAME or path/to/file.py:factory")
    p.add_argument(
        "--input", metavar="SHAPE", help="one sample's shape, e.g. 3x224x224 or 128x512 (a family's own when left out)"
    )
    p.add_argument(
        "--over",
        action="append",
        type=args_.axis,
        metavar="batch_size=V1,V2,...",
        help="the batch sizes (default 1,4,16,64,256)",
    )
    p.add_argument(
        "--set",
        action="append",
        type=args_.key_value,
        metavar="KEY=VALUE",
        help="a setting of the step (repeatable): mode=cuda_graph, item_every_step=true, a family's channels=32 ...",
    )
    p.add_argument(
        "--dataset-size",
        type=args_.positive_whole,
        default=None,
        metavar="N",
        help="samples in one epoch (default: the family's, 4096 for a model of one's own)",
    )
    p.add_argument("--no-live", action="store_true", help="do not time this machine's CPU (no crossover then)")
    p.add_argument("--threads", type=args_.threads, default=None, help="CPU threads for the live timing")
    p.add_argument(
        "--cpu-budget",
        type=args_.positive_number,
        default=60.0,
        metavar="S",
        help="seconds for the whole live CPU timing; later batch sizes are skipped (default 60)",
    )
    p.add_argument("--json", dest="json_out", metavar="FILE", help="also write the prediction as JSON here")
    p.set_defaults(func=run_predict)
    return p


def run_predict(args: argparse.Namespace) -> int:
    from lib.core.terminal import TerminalProgress
    from lib.lessons.predict.answer import BATCHES, predict_spec
    from lib.lessons.predict.models import PredictError, model_spec, parse_shape

    problem = args_.output_problem(args.json_out) if args.json_out is not None else None
    if problem:  # asked before anything runs, as sweep's --out: a result that cannot be written is lost
        print(f"error: --json: {problem}", file=sys.stderr)
        return 2
    try:
        batches = _batches(args.over) if args.over else BATCHES
        shape = parse_shape(args.input) if args.input else None
        spec = model_spec(args.model, shape, dict(args.set or []), args.dataset_size)
        for b in batches:
            spec.at(b)  # every batch size in range before anything is timed
        result = predict_spec(
            spec,
            batches,
            live=not args.no_live,
            threads=args.threads,
            cpu_budget_s=args.cpu_budget,
            progress=None if args.no_live else TerminalProgress(),
        )
    except PredictError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print("\n".join(result.lines()))
    if args.json_out:
        from lib.core.files import write_file

        write_file(args.json_out, json.dumps(result.as_dict(), indent=1).encode())
        print(f"wrote {args.json_out}")
    return 0


def _batches(axes: list[tuple[str, list[str]]]) -> tuple[int, ...]:
    from lib.lessons.predict.models import PredictError

    (name, values), *more = axes
    if more or name != "batch_size":
        raise PredictError(
            "--over: predict sweeps the batch size only (--over batch_size=1,16,256); set the "
            "model's other settings with --set"
        )
    try:
        batches = tuple(int(v) for v in values)
    except ValueError:
        raise PredictError(f"--over batch_size: expected whole numbers, got {','.join(values)}") from None
    if any(b < 1 for b in batches):
        raise PredictError("--over batch_size: every batch size must be at least 1")
    return batches
