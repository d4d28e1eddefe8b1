"""The Training page's controls that come in sets: the model trained with its choices, one slider per axis of
the family, and the Pitfalls expander (a switch per habit, and the live CPU's threads). Each bound to the URL
(ui.url_settings) under the keys the page's links have always used."""

from __future__ import annotations

import streamlit as st

from lib.lessons.training import live, view
from lib.lessons.training.scene import MODEL_LABELS
from lib.workloads.family import TrainingFamily
from ui import scaffold
from ui.url_settings import UrlSettings

PITFALLS_KEY = "training.pitfalls"  # the Pitfalls expander's open state (tests open it)
PITFALLS_TITLE = "Pitfalls: the habits of the seed experiments, one switch each"
ONE_THREAD = (
    "This server has 2 cores or fewer: the CPU is measured with 1 thread, so the web server keeps a core "
    "(two busy threads sharing it with the server stall and make the CPU look many times slower)."
)


def model_choice(url: UrlSettings) -> TrainingFamily:
    """The family trained, with its choices picked (torchvision's network, a sequence length): each is
    recorded apart. The MLP alone when the page has one family."""
    if len(view.FAMILIES) <= 1:
        return view.MLP_FAMILY
    family = view.BY_NAME[
        url.radio("model", "Model trained", list(view.BY_NAME), view.MLP.name, format_func=MODEL_LABELS.get)
    ]
    return family.pick(
        **{
            k: url.radio(
                c.url, c.label.capitalize(), list(c.options), family.default(k), format_func=c.show, help=c.sentence
            )
            for k, c in family.choices.items()
        }
    )


def axis_sliders(url: UrlSettings, family: TrainingFamily, over: str) -> dict[str, int]:
    """One slider per axis of the family, two columns; the swept one says it is the point explained."""
    left, right = st.columns(2)
    values = {}
    for i, (key, axis) in enumerate(family.axes.items()):
        shown = axis.label.capitalize() + (" (the point explained below)" if key == over else "")
        values[key] = url.select_slider(
            key,
            shown,
            list(axis.steps),
            family.default(key),
            help=axis.sentence,
            container=left if i % 2 == 0 else right,
        )
    return values


def pitfalls(url: UrlSettings, family: TrainingFamily) -> tuple[dict[str, bool], int]:
    """The switches of the Pitfalls expander and the live CPU's threads. Lazy: its switches are out of sight
    until opened, and drawing them cost a new visitor's browser before the chart."""
    with scaffold.lazy_expander(PITFALLS_TITLE, PITFALLS_KEY) as shown:
        values = {
            key: url.toggle(key, label, family.default(key), help=sentence, drawn=shown)
            for key, (label, sentence) in view.PITFALLS.items()
        }
        if len(live.THREAD_CHOICES) > 1:
            return values, url.select_slider(
                "threads",
                "CPU threads for the live measurement",
                list(live.THREAD_CHOICES),
                live.DEFAULT_THREADS,
                drawn=shown,
                help="Up to one fewer than this server's cores: the web server needs one.",
            )
        if shown:
            st.caption(ONE_THREAD)
        return values, live.DEFAULT_THREADS
