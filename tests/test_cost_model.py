"""lib.core.costmodel's device side (issue 24): a CUDA graph priced from eager's recordings alone.

Eager's kernels, launched one at a time onto a GPU that idles between them, record a longer busy
time than the same kernels replayed back to back: the fit reads eager's busy time as √(B × step)
(stretched_busy), so B is the graph's time, and a graph's kernels are priced as eager's."""

import math

import numpy as np
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
    compiled = FAMILY.step_terms(MLPTraining().resolve({"mode": "compile"}), "cuda", flops=1.0, bytes_moved=1.0, rows=8)
    assert C.launched(eager) and C.launched(compiled)
    for graphed in ("cuda_graph", "compile_reduce_overhead"):  # replayed back to back: nothing stretched
        terms = FAMILY.step_terms(MLPTraining().resolve({"mode": graphed}), "cuda", flops=1.0, bytes_moved=1.0, rows=8)
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


# -- a synchronisation priced by the regime (issue 38) -----------------------------------------------

ROUND_TRIP = 2e-5


def _model(coef: dict[str, float]) -> C.CostModel:
    """A model with these prices (the rest zero) and no residuals: its form alone."""
    prices = {n: 0.0 for n in (*C.ISSUE, *C.WORK, C.SYNC)} | coef
    return C.CostModel("cuda", prices, 8.0, (), np.zeros((0, 0)), np.zeros(0), np.ones(0), 0)


def _step(ops: float, kernels: float, **more: float) -> dict[str, float]:
    return {"fixed": 1.0, "ops": ops, "kernels": kernels, **more}


def test_a_sync_adds_only_a_round_trip_when_the_cpu_sets_the_pace():
    # issuing takes 1 ms, the GPU's work 0.3 ms: when item() asks, the GPU has almost nothing queued
    model = _model({"ops": 1e-5, "kernels": 3e-6, C.SYNC: ROUND_TRIP})
    plain, synced = _step(100, 100), _step(100, 100, syncs=1.0)
    assert model.form(synced) - model.form(plain) == pytest.approx(ROUND_TRIP)
    assert model.form(synced) / model.form(plain) < 1.03  # measured: x0.88-1.06 of plain eager at depth 6
    assert C.sync_cost(model, synced) == pytest.approx(ROUND_TRIP)


def test_a_sync_waits_for_what_the_gpu_still_has_queued():
    # the GPU's work (2 ms) outlasts the issuing (0.1 ms): the step is the GPU's work and one round trip,
    # not the two summed (the CPU issued while the GPU ran)
    model = _model({"ops": 1e-6, "kernels": 2e-5, C.SYNC: ROUND_TRIP})
    a, b = model.parts(_step(100, 100))
    assert model.form(_step(100, 100, syncs=1.0)) == pytest.approx(max(a, b) + ROUND_TRIP, rel=1e-3)
    # an idle GPU (nothing queued): the sync costs the round trip
    idle = _model({"fixed": 1e-4, C.SYNC: ROUND_TRIP})
    assert idle.form({"fixed": 1.0, "syncs": 2.0}) == pytest.approx(1e-4 + 2 * ROUND_TRIP)


def test_a_pageable_copy_overlaps_nothing_once_it_syncs():
    model = _model({"ops": 1e-5, "kernels": 3e-6, "staged_bytes": 1e-9, "copy_bytes": 5e-11, C.SYNC: ROUND_TRIP})
    copy = {"copies": 2.0, "copy_bytes": 1e6, "staged_bytes": 1e6}
    pinned = model.form(_step(100, 100, **{"copies": 2.0, "copy_bytes": 1e6}))
    pageable = model.form(_step(100, 100, **copy, syncs=1.0))
    assert pinned == pytest.approx(1e-3, rel=1e-3)  # the pinned copy's transfer hides behind the issuing
    assert pageable == pytest.approx(1e-3 + 1e-3 + 5e-5 + ROUND_TRIP, rel=1e-3)  # staging, transfer, round trip


def test_the_fit_finds_the_round_trip_from_steps_that_sync():
    # launch-bound and GPU-bound steps with item() every step: each is max(A, B) + a round trip
    obs = []
    for kernels in (20.0, 60.0, 200.0):
        for flops in (1e6, 1e10, 1e11, 1e12):
            terms = {"fixed": 1.0, "ops": kernels, "kernels": kernels, "flops": flops, "bytes": 0.0}
            a, b = 1e-5 + PER_OP * kernels, PER_KERNEL * kernels + FLOP * flops
            obs.append(C.Observation(("eager",), terms, max(a, b) * 1.02, where=(math.log(kernels),)))
            obs.append(
                C.Observation(
                    ("item",), {**terms, "syncs": 1.0}, max(a, b) * 1.02 + ROUND_TRIP, where=(math.log(kernels),)
                )
            )
    model = C.fit(obs, "cuda")
    assert model.coef[C.SYNC] == pytest.approx(ROUND_TRIP, rel=0.35)


def test_the_correction_reads_only_the_steps_of_its_own_group():
    # one family's steps ran 1.5 x slower than another's of the same terms: one form cannot fit both, and
    # each family's residuals correct its own predictions only; a family never recorded gets none
    def steps(group: str, slow: float) -> list[C.Observation]:
        return [
            C.Observation(
                ("eager",),
                {"fixed": 1.0, "ops": k, "kernels": k},
                (1e-5 + PER_OP * k) * slow,
                where=(math.log(k),),
                group=group,
            )
            for k in (10.0, 20.0, 40.0, 80.0, 160.0)
        ]

    model = C.fit(steps("mlp", 1.5) + steps("cnn", 1.0), "cuda")
    where = (math.log(40.0),)
    assert model.correction(("eager",), where, "mlp") > 0.05
    assert model.correction(("eager",), where, "cnn") < -0.05
    assert model.correction(("eager",), where, "transformer") == 0.0
