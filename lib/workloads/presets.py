"""Each seed experiment by name: the workload and settings that rebuild it, and what the seed reported.

`reported_cpu_s` / `reported_gpu_s` are the seed's own numbers (DESIGN.md section 1), covering
`reported_calls` calls of our step: e.g. 10 000 full-batch epochs of the Boston-like MLP are
10 000 calls of the mlp step, one DataLoader epoch is one call of the dataloader step. So
"ours" comparable to the seed is median_s * reported_calls. `quick` holds cut-down settings
for a CPU-only smoke run (scripts/seed_experiments.py --quick).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from lib.core.point import Frozen
from lib.core.workload import SettingError, Settings


@dataclass(frozen=True)
class Preset:
    name: str
    seed: str  # which seed file: "000", "001", "003", "004"
    workload: str  # CLI name of the workload
    settings: Frozen  # given as a dict: kept immutable, as the preset is
    description: str  # one line
    reported_cpu_s: float | None  # the seed's CPU time, for `reported_calls` calls (None: not reported)
    reported_gpu_s: float | None
    reported_calls: int  # calls of our step that the reported times cover
    reported_what: str  # what the reported times are, in words
    epochs: int | None = None  # epochs (or runs) the seed trained
    expected: str | None = None  # direction on a GPU machine: "gpu_slower", "gpu_faster", "even"
    quick: Frozen = field(default_factory=Frozen)  # settings cut for a quick CPU run
    slow: bool = False  # minutes per call: left out of a plain seed_experiments run

    def __post_init__(self) -> None:
        for name in ("settings", "quick"):
            value: Mapping = getattr(self, name)
            object.__setattr__(self, name, value if isinstance(value, Frozen) else Frozen(value))

    @property
    def reported_ratio(self) -> float | None:
        """The seed's GPU time over its CPU time (below 1: the GPU was faster)."""
        if self.reported_cpu_s and self.reported_gpu_s:
            return self.reported_gpu_s / self.reported_cpu_s
        return None

    def workload_obj(self):
        from lib.workloads import get_workload

        return get_workload(self.workload)

    def params(self, quick: bool = False) -> Settings:
        """The resolved settings (with the quick cut applied when asked)."""
        given = {**self.settings, **(self.quick if quick else {})}
        return self.workload_obj().resolve(given)


SEED_MLP_MNIST = "400,200,100"

PRESETS_LIST: tuple[Preset, ...] = (
    Preset(
        "boston_like",
        "000",
        "mlp",
        {
            "data": "synthetic",
            "input_features": 13,
            "outputs": 1,
            "task": "regression",
            "hidden_layers": "16,32,16",
            "dataset_size": 379,
            "batch_size": 379,
            "optimizer": "adam",
            "lr": 0.01,
        },
        "13-16-32-16-1 MLP, full batch of Boston housing's 379 training rows, Adam lr 0.01, 10 000 epochs "
        "(Boston was removed from scikit-learn 1.2: synthetic rows of its shape; data=diabetes is the bundled stand-in)",
        12.0,
        29.1,
        10_000,
        "10 000 epochs in total",
        epochs=10_000,
        expected="gpu_slower",
    ),
    Preset(
        "iris",
        "000",
        "mlp",
        {
            "data": "iris",
            "hidden_layers": "64,32,16",
            "dataset_size": 112,
            "batch_size": 112,
            "optimizer": "adam",
            "lr": 0.01,
        },
        "4-64-32-16-3 MLP on Iris, full batch of 112 training rows, Adam lr 0.01, 1 000 epochs",
        0.89,
        2.51,
        1_000,
        "1 000 epochs in total",
        epochs=1_000,
        expected="gpu_slower",
    ),
    Preset(
        "mnist_minibatch",
        "000",
        "dataloader",
        {
            "source": "images",
            "data": "mnist",
            "normalize": False,
            "model": "mlp",
            "optimizer": "adam",
            "lr": 0.001,
            "batch_size": 100,
            "dataset_size": 60_000,
            "num_workers": 0,
        },
        "784-400-200-100-10 MLP on MNIST through a DataLoader (ToTensor), batch 100, Adam lr 0.001, 15 epochs; "
        "the seed's CPU run trained nothing (its optimizer held the GPU model's parameters)",
        125.6,
        116.5,
        15,
        "15 epochs in total",
        epochs=15,
        expected="even",
        quick={"dataset_size": 3_000},
    ),
    Preset(
        "mnist_fullbatch",
        "000",
        "mlp",
        {
            "data": "mnist",
            "hidden_layers": SEED_MLP_MNIST,
            "dataset_size": 52_500,
            "batch_size": 52_500,
            "optimizer": "adam",
            "lr": 0.01,
        },
        "784-400-200-100-10 MLP on MNIST, full batch of 52 500 rows, Adam lr 0.01, 100 epochs",
        34.2,
        7.35,
        100,
        "100 epochs in total",
        epochs=100,
        expected="gpu_faster",
        quick={"dataset_size": 2_625, "batch_size": 2_625},
    ),
    Preset(
        "mnist_100rows",
        "000",
        "mlp",
        {
            "data": "mnist",
            "hidden_layers": SEED_MLP_MNIST,
            "dataset_size": 75,
            "batch_size": 75,
            "optimizer": "adam",
            "lr": 0.01,
        },
        "784-400-200-100-10 MLP on the first 100 MNIST rows (75 after train_test_split), full batch, 1 000 epochs "
        "(the seed printed no times for this run)",
        None,
        None,
        1_000,
        "not reported",
        epochs=1_000,
        expected=None,
    ),
    Preset(
        "linear_mnist_dataloader",
        "001",
        "dataloader",
        {
            "source": "images",
            "data": "mnist",
            "normalize": True,
            "model": "linear",
            "optimizer": "sgd",
            "lr": 0.005,
            "batch_size": 128,
            "dataset_size": 50_000,
            "num_workers": 0,
        },
        "Linear 784->10 on MNIST through a DataLoader (ToTensor + Normalize), batch 128, SGD lr 0.005; "
        "time per epoch (the seed's epoch also ran 20 000 validation and test rows)",
        14.5,
        14.5,
        1,
        "per epoch",
        epochs=30,
        expected="even",
        quick={"dataset_size": 2_500},
    ),
    Preset(
        "big_matmul",
        "003",
        "matmul",
        {"size": 15_360, "dtype": "fp32", "sync": True, "transfer": False},
        "15 360 x 15 360 fp32 matrix multiply, synchronised (GPU: 0.55 s on the first call, 0.46 s after)",
        296.9,
        0.46,
        1,
        "one call (CPU: its only call; GPU: warm)",
        epochs=None,
        expected="gpu_faster",
        quick={"size": 1_536},
    ),
    Preset(
        "jacobian_val100",
        "004",
        "jacobian",
        {"val": 100, "method": "loop", "hidden": 20, "outputs": 400},
        "autograd.functional.jacobian (a loop of 40 000 backward passes) of the 1-20-20-400 tanh net over 100 inputs",
        11.1,
        19.5,
        1,
        "one call",
        epochs=None,
        expected="gpu_slower",
        quick={"val": 20},
    ),
    Preset(
        "jacobian_val1000",
        "004",
        "jacobian",
        {"val": 1000, "method": "loop", "hidden": 20, "outputs": 400},
        "the same Jacobian over 1 000 inputs (400 000 backward passes): minutes per call",
        524.0,
        192.0,
        1,
        "one call",
        epochs=None,
        expected="gpu_faster",
        quick={"val": 40},
        slow=True,
    ),
)

PRESETS: dict[str, Preset] = {p.name: p for p in PRESETS_LIST}


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise SettingError(f"unknown preset '{name}' (known: {', '.join(PRESETS)})") from None


def loss_curve(preset: Preset | str, device: str, epochs: int, quick: bool = False) -> list[float]:
    """Per-epoch training loss of a training preset (mlp or dataloader) on `device`, from the
    seeded initial weights: two devices given the same preset start and learn alike."""
    preset = get_preset(preset) if isinstance(preset, str) else preset
    if preset.workload == "mlp":
        from lib.workloads.mlp import loss_curve as curve
    elif preset.workload == "dataloader":
        from lib.workloads.dataloader import loss_curve as curve
    else:
        raise SettingError(f"{preset.name} ({preset.workload}) trains nothing: it has no loss curve")
    return curve(preset.params(quick=quick), device, epochs)
