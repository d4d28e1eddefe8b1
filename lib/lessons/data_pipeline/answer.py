"""The Data pipeline page's one-sentence answer, above its chart: with a DataLoader over images, does
the device matter.

    pipeline_answer(on)    one sentence, above the chart
    pipeline_notes(on)     where its numbers come from, under the chart
"""

from __future__ import annotations

from lib.core.fmt import fmt_s, pct
from lib.core.point import Point
from lib.lessons.common import voice
from lib.lessons.data_pipeline.screen import Screen as PipelineScreen
from lib.lessons.data_pipeline.view import DeviceVerdict, device_verdict, noisy_words


def _pair(on: PipelineScreen) -> tuple[Point | None, Point | None]:
    """The CPU and GPU points of one machine over images at the point explained."""
    cpu, gpu = on.pair("images")
    return (cpu.point if cpu else None, gpu.point if gpu else None)


def _ok(point: Point | None) -> bool:
    return point is not None and point.ok


def _loading(point: Point | None) -> float | None:
    """The loading phase's seconds, None where the point holds none."""
    value = point.phases.get("loading") if point else None
    return value if isinstance(value, (int, float)) else None


def pipeline_answer(on: PipelineScreen) -> str:
    """With the DataLoader over images (the seeds' case): both devices of one machine when the screen
    has them, else how much of this server's epoch the loading alone takes (what no device can save).
    One short sentence; pipeline_notes says the rest under the chart."""
    at = on.view.at
    cpu, gpu = _pair(on)
    if _ok(cpu) and _ok(gpu):
        c, g = float(cpu.median_s), float(gpu.median_s)
        times = f"{fmt_s(c)} on the CPU, {fmt_s(g)} on the GPU"
        lead = voice.lead_words(voice.versus(voice.CPU, c, voice.GPU, g), "epoch")
        match device_verdict(cpu, gpu):
            case DeviceVerdict.SAME:
                return (
                    f"With images fed by a DataLoader, at {at} **the device does not matter**: one epoch takes {times}."
                )
            case DeviceVerdict.TOO_NOISY:  # a tie only on a noisy point is no evidence either way
                return (
                    f"With a DataLoader over images, at {at} the repeats are **too noisy to say whether the "
                    f"device matters** ({times})."
                )
            case DeviceVerdict.LOADING:  # the gap is the host's, not the device's: no device lead to claim
                return (
                    f"With a DataLoader over images, at {at} loading (host work for both) makes the gap: "
                    f"{fmt_s(float(_loading(cpu)))} of the CPU's epoch, {fmt_s(float(_loading(gpu)))} "
                    "of the GPU's."
                )
            case DeviceVerdict.NOT_COMPUTE:  # measured whole, so the lead stands; its cause is not the arithmetic
                return f"With a DataLoader over images, at {at} {lead} ({times}), not through faster compute."
        return f"With images fed by a DataLoader, at {at} {lead}: {times}."
    point = on.at_point("images")
    loading = _loading(point) if _ok(point) else None
    if loading is not None and loading > 0:
        epoch = float(point.median_s)
        saved = max(0.0, 1 - min(loading, epoch) / epoch)
        return (
            f"With images fed by a DataLoader, at {at} loading alone takes {fmt_s(loading)} of this server's "
            f"{fmt_s(epoch)} epoch: no device could save more than {pct(saved)}."
        )
    return f"Nothing was measured at {at} with images fed by a DataLoader; the notes below say why."


def pipeline_notes(on: PipelineScreen) -> str:
    """What the answer leaves for under the chart: where its two times come from, or why loading bounds
    what a device could save. Empty when there is nothing to add."""
    cpu, gpu = _pair(on)
    verdict = device_verdict(cpu, gpu) if _ok(cpu) and _ok(gpu) else None
    if verdict in (DeviceVerdict.LOADING, DeviceVerdict.NOT_COMPUTE):
        compute = [cpu.phases.get("compute"), gpu.phases.get("compute")]
        own = (
            f"; the device's own compute took {fmt_s(float(compute[0]))} on the CPU and {fmt_s(float(compute[1]))} "
            "on the GPU"
            if all(isinstance(t, (int, float)) for t in compute)
            else ""
        )
        why = (
            "Loading is the host's work in both runs, so a gap there is the host's from one run to the next, not "
            "the device's."
            if verdict is DeviceVerdict.LOADING
            else "Even a device that computed in no time could not save more than the slower one's compute, so "
            "the rest of the gap lies outside the device: in loading, or in work timed only as part of the whole "
            "epoch (the epoch and its phases are separate runs)."
            + (
                " With workers, training on the CPU shares the host's cores with their decoding, while the GPU "
                "trains beside them: how the two overlap is timed only in the whole epoch."
                if int(cpu.settings.get("num_workers") or 0)
                else ""
            )
        )
        return (
            f"The whole epochs: {fmt_s(float(cpu.median_s))} on the CPU, {fmt_s(float(gpu.median_s))} on the "
            f"GPU, one machine{own}. {why}"
        )
    if verdict is DeviceVerdict.TOO_NOISY:
        return f"Both times above are one epoch on the same machine, its CPU and its GPU: {noisy_words(cpu, gpu)}."
    if _ok(cpu) and _ok(gpu):
        return "Both times above are one epoch on the same machine: its CPU and its GPU."
    point = on.at_point("images")
    loading = _loading(point) if _ok(point) else None
    if loading is not None and loading > 0:
        return (
            "Loading the images is the same work whichever device trains: a device that trained in no time at "
            "all would save only the rest of the epoch."
        )
    return ""
