"""The Data pipeline page's one-sentence answer, above its chart: with a DataLoader over images, does
the device matter.

    pipeline_answer(on)    one sentence, above the chart (issue 37)
    pipeline_notes(on)     where its numbers come from, under the chart
"""

from __future__ import annotations

from lib.core.fmt import fmt_s, pct
from lib.core.rows import is_ok
from lib.core.same import same_rows
from lib.lessons.common import voice
from lib.lessons.data_pipeline.screen import Screen as PipelineScreen


def pipeline_answer(on: PipelineScreen) -> str:
    """With the DataLoader over images (the seeds' case): both devices of one machine when the screen
    has them, else how much of this server's epoch the loading alone takes (what no device can save).
    One short sentence (issue 37); pipeline_notes says the rest under the chart."""
    at = on.view.at
    cpu, gpu = on.pair("images")
    if is_ok(cpu) and is_ok(gpu):
        c, g = float(cpu["median_s"]), float(gpu["median_s"])
        if same_rows(cpu, gpu):  # the one rule, each row's own spread
            return (f"With images fed by a DataLoader, at {at} **the device does not matter**: one epoch takes "
                    f"{fmt_s(c)} on the CPU, {fmt_s(g)} on the GPU.")
        lead = voice.lead_words(voice.versus(voice.CPU, c, voice.GPU, g), "epoch")
        return f"With images fed by a DataLoader, at {at} {lead}: {fmt_s(c)} on the CPU, {fmt_s(g)} on the GPU."
    row = on.at_point("images")
    loading = row.get("phase_loading_s") if is_ok(row) else None
    if isinstance(loading, (int, float)) and loading > 0:
        epoch = float(row["median_s"])
        saved = max(0.0, 1 - min(loading, epoch) / epoch)
        return (f"With images fed by a DataLoader, at {at} loading alone takes {fmt_s(loading)} of this server's "
                f"{fmt_s(epoch)} epoch: no device could save more than {pct(saved)}.")
    return f"Nothing was measured at {at} with images fed by a DataLoader; the notes below say why."


def pipeline_notes(on: PipelineScreen) -> str:
    """What the answer leaves for under the chart: where its two times come from, or why loading bounds
    what a device could save. Empty when there is nothing to add."""
    cpu, gpu = on.pair("images")
    if is_ok(cpu) and is_ok(gpu):
        return "Both times above are one epoch on the same machine: its CPU and its GPU."
    row = on.at_point("images")
    if is_ok(row) and isinstance(row.get("phase_loading_s"), (int, float)) and row["phase_loading_s"] > 0:
        return ("Loading the images is the same work whichever device trains: a device that trained in no time at "
                "all would save only the rest of the epoch.")
    return ""
