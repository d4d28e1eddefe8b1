"""lib.core.costmodel's device side (issue 24): a CUDA graph priced from eager's recordings alone.

Eager's kernels, launched one at a time onto a GPU that idles between them, record a longer busy
time than the same kernels replayed back to back: the fit reads eager's busy time as √(B × step)
(stretched_busy), so B is the graph's time, and a graph's kernels are priced as eager's."""

import math

import pytest

from lib.core import costmodel as C
from lib.workloads.mlp import FAMILY, MLPTraining

PER_KERNEL, PER_OP, PYTHON, FLOP = 3e-6, 2e-5, 5e-4, 1 / 5e13  # the made-up GPU's truth


def _eager(kernels: float, flops: float) -> C.Observation:
    """An eager step on the made-up GPU: launch-bound or GPU-bound, its busy time stretched as recorded."""
    b = PER_KERNEL * kernels + FLOP * flops
    a = 1e-5 + PYTHON + PER_OP * kernels
    seconds = max(a, b) * 1.05
    terms = {"fixed": 1.0, "python_step": 1.0, "ops": kernels, "kernels": kernels, "flops": flops, "bytes": 0.0}
    busy = math.sqrt(b * max(seconds, b))  # as the recordings show it (not read from the model under test)
    return C.Observation(("eager",), terms, seconds, busy, (math.log(kernels),))


def _graph_terms(kernels: float, flops: float) -> dict[str, float]:
    return {"fixed": 1.0, "replays": 1.0, "kernels": kernels, "flops": flops, "bytes": 0.0}


def test_a_launched_steps_busy_time_is_stretched_and_a_gpu_bound_ones_is_not():
    assert C.stretched_busy(1e-4, 1e-3) == pytest.approx(math.sqrt(1e-4 * 1e-3))  # the GPU idles 90 %
    assert C.stretched_busy(2e-3, 1e-3) == pytest.approx(2e-3)  # GPU-bound: what the kernels take
    assert C.stretched_busy(1e-3, 1e-3) == pytest.approx(1e-3)
    eager = FAMILY.step_terms(MLPTraining().resolve({"mode": "eager"}), "cuda", flops=1.0, bytes_moved=1.0, rows=8)
    compiled = FAMILY.step_terms(MLPTraining().resolve({"mode": "compile"}), "cuda", flops=1.0, bytes_moved=1.0,
                                    rows=8)
    assert C.launched(eager) and C.launched(compiled)
    for graphed in ("cuda_graph", "compile_reduce_overhead"):  # replayed back to back: nothing stretched
        terms = FAMILY.step_terms(MLPTraining().resolve({"mode": graphed}), "cuda", flops=1.0, bytes_moved=1.0,
                                     rows=8)
        assert not C.launched(terms) and terms["kernels"] > 0 and "ops" not in terms
    cpu = FAMILY.step_terms(MLPTraining().resolve({}), "cpu", flops=1.0, bytes_moved=1.0, rows=8)
    assert not C.launched(cpu)  # the CPU runs each operation where it is issued


def test_a_graph_is_priced_from_eagers_recordings_alone():
    # only eager recorded, from tiny launch-bound steps to GPU-bound ones; the graph's device time is
    # the same kernels back to back: B, not eager's recorded (stretched) busy time
    obs = [_eager(k, f) for k in (24.0, 36.0, 60.0, 90.0) for f in (1e6, 1e8, 1e10, 1e11, 1e12)]
    model = C.fit(obs, "cuda")
    assert model.coef["kernels"] == pytest.approx(PER_KERNEL, rel=0.25)
    for kernels, flops in ((61.0, 1e6), (151.0, 1e6), (61.0, 1e11)):
        truth = PER_KERNEL * kernels + FLOP * flops
        _, b = model.parts(_graph_terms(kernels, flops))
        assert b == pytest.approx(truth, rel=0.25)


def test_the_capturable_optimizer_adds_four_kernels_per_layer_as_profiled():
    # the recorded profiles: a graph runs 17, 25 and 61 kernels more than eager at depth 1, 3 and 12; the
    # traced capturable optimizer one fewer at each (a constant the profiles' calibration adds back)
    for depth, extra in ((1, 16), (3, 24), (12, 60)):
        settings = MLPTraining().resolve({"depth": depth})
        graph = FAMILY.structural_kernels({**settings, "mode": "cuda_graph"})
        assert graph - FAMILY.structural_kernels(settings) == extra
