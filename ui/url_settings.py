"""Widgets whose values live in the URL, so a copied link reopens the same view.

    url = UrlSettings("training")                      # namespace: widget keys are "training.<name>"
    batch = url.select_slider("batch_size", "Batch size", [1, 2, 4, ...], 64)
    resident = url.toggle("data_resident", "Data already on the device", True)
    url.show_notes()                                   # what was clamped or ignored from the link
    ...
    url.sync_url()                                     # write the current values back into the URL

On a widget's first run in a session its value comes from the query parameter of the same
name; a malformed or out-of-range value is clamped (numbers) or ignored (the rest) and a
visible note says what changed: never a traceback. After that the widget owns the value and
sync_url() mirrors it into the URL.

Why not Streamlit's own `bind="query-params"`: it drops invalid values silently and cannot
snap a number to the nearest step of a log-spaced slider, and the app must say what it did
with a link's settings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from lib.core.fmt import fmt_value
from lib.core.workload import parse_bool
from lib.recorded.uploads import plain
from ui.router import ensure_router

MAX_RAW_CHARS = 200  # longer than any value a widget takes: such a value is not read, nor echoed in full
NOTE_CHARS = 400


def _number(raw: str) -> float:
    value = float(str(raw).strip().replace(",", "").replace("_", ""))
    if not math.isfinite(value):
        raise ValueError(raw)
    return value


def nearest_choice(value: float, options: Sequence[float]) -> Any:
    """The option closest to value, in log space when every number is positive."""
    if value > 0 and all(o > 0 for o in options):
        return min(options, key=lambda o: abs(math.log(o) - math.log(value)))
    return min(options, key=lambda o: abs(o - value))


def serialize(value: Any) -> str:
    if isinstance(value, (list, tuple)):  # several choices (pills): comma-separated
        return ",".join(serialize(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class UrlSettings:
    """A page's URL-bound widgets. Keys are URL parameter names; widget keys get the namespace."""

    def __init__(self, namespace: str) -> None:
        ensure_router()
        self.namespace = namespace
        self.notes: list[str] = []
        self._bound: list[str] = []  # URL keys a widget bound this run, in order

    # -- plumbing ------------------------------------------------------------------------------
    def widget_key(self, key: str) -> str:
        return f"{self.namespace}.{key}"

    def _seed(
        self, key: str, default: Any, parse: Callable[[str], tuple[Any, str | None]], valid: Callable[[Any], bool]
    ) -> str:
        """Put the widget's starting value into session state; returns the widget key."""
        wkey = self.widget_key(key)
        if key not in self._bound:
            self._bound.append(key)
        if wkey in st.session_state and valid(st.session_state[wkey]):
            return wkey  # the widget already has a value in this session
        raw_values = st.query_params.get_all(key)
        value = default
        if raw_values:
            raw = raw_values[-1]
            if len(raw) > MAX_RAW_CHARS:
                value, note = (
                    default,
                    (f"{key} was {len(raw):,} characters long, longer than any value of it; using the default"),
                )
            else:
                value, note = parse(raw)
            if len(raw_values) > 1:
                note = (note + "; " if note else "") + f"{key} was given {len(raw_values)} times, the last one counts"
            if note:
                self.notes.append(note)
        st.session_state[wkey] = value
        return wkey

    def value(self, key: str) -> Any:
        return st.session_state[self.widget_key(key)]

    # -- widgets -------------------------------------------------------------------------------
    def select_slider(
        self,
        key: str,
        label: str,
        options: Sequence[Any],
        default: Any,
        *,
        help: str | None = None,
        format_func: Callable[[Any], str] = fmt_value,
        container: Any = None,
        drawn: bool = True,
    ) -> Any:
        """A slider over fixed (e.g. log-spaced) numbers; a link's value snaps to the nearest one.
        drawn=False: inside a closed lazy expander, its value without the widget (kept())."""
        options = list(options)

        def parse(raw: str) -> tuple[Any, str | None]:
            try:
                number = _number(raw)
            except ValueError:
                return default, f"{key}={raw!r} is not a number; using the default, {format_func(default)}"
            choice = nearest_choice(number, options)
            if choice == number:
                return choice, None
            if number < min(options) or number > max(options):
                return choice, (
                    f"{key}={raw} is outside this slider's range ({format_func(min(options))} to "
                    f"{format_func(max(options))}); using {format_func(choice)}"
                )
            return choice, f"{key}={raw} is not one of this slider's steps; using the nearest, {format_func(choice)}"

        wkey = self._seed(key, default, parse, lambda v: v in options)
        if not drawn:
            return self._kept(wkey)
        return (container or st).select_slider(label, options=options, key=wkey, help=help, format_func=format_func)

    def slider(
        self,
        key: str,
        label: str,
        min_value: int,
        max_value: int,
        default: int,
        *,
        step: int = 1,
        help: str | None = None,
        container: Any = None,
    ) -> int:
        """An integer slider; a link's value is rounded and clamped into range."""

        def parse(raw: str) -> tuple[Any, str | None]:
            try:
                number = _number(raw)
            except ValueError:
                return default, f"{key}={raw!r} is not a number; using the default, {default}"
            value = int(min(max(round(number), min_value), max_value))
            if value != number:
                return value, f"{key}={raw} is outside {min_value} to {max_value} or not whole; using {value}"
            return value, None

        wkey = self._seed(key, default, parse, lambda v: isinstance(v, int) and min_value <= v <= max_value)
        return (container or st).slider(label, min_value=min_value, max_value=max_value, step=step, key=wkey, help=help)

    def toggle(
        self, key: str, label: str, default: bool, *, help: str | None = None, container: Any = None, drawn: bool = True
    ) -> bool:
        """A switch; drawn=False: inside a closed lazy expander, its value without the widget (kept())."""

        def parse(raw: str) -> tuple[Any, str | None]:
            try:
                return parse_bool(raw), None
            except ValueError:
                return default, f"{key}={raw!r} is not true or false; using the default, {'on' if default else 'off'}"

        wkey = self._seed(key, default, parse, lambda v: isinstance(v, bool))
        if not drawn:
            return self._kept(wkey)
        return (container or st).toggle(label, key=wkey, help=help)

    def _choice_parse(self, key: str, options: Sequence[Any], default: Any, format_func: Callable[[Any], str]):
        by_text = {serialize(o): o for o in options}

        def parse(raw: str) -> tuple[Any, str | None]:
            if raw in by_text:
                return by_text[raw], None
            allowed = ", ".join(by_text)
            return default, f"{key}={raw!r} is not one of {allowed}; using the default, {format_func(default)}"

        return parse

    def _choice_key(self, key: str, options: list[Any], default: Any, format_func: Callable[[Any], str]) -> str:
        return self._seed(key, default, self._choice_parse(key, options, default, format_func), lambda v: v in options)

    def radio(
        self,
        key: str,
        label: str,
        options: Sequence[Any],
        default: Any,
        *,
        format_func: Callable[[Any], str] = str,
        help: str | None = None,
        horizontal: bool = True,
        container: Any = None,
        label_visibility: str = "visible",
    ) -> Any:
        options = list(options)
        wkey = self._choice_key(key, options, default, format_func)
        return (container or st).radio(
            label,
            options,
            key=wkey,
            format_func=format_func,
            help=help,
            horizontal=horizontal,
            label_visibility=label_visibility,
        )

    def held(self, key: str, options: Sequence[Any], default: Any, *, format_func: Callable[[Any], str] = str) -> Any:
        """A radio's value while its widget is not drawn (inside a closed lazy expander): read from the
        link or this session as radio() reads it, kept in the session, so the widget drawn later starts there."""
        return self._kept(self._choice_key(key, list(options), default, format_func))

    @staticmethod
    def _kept(wkey: str) -> Any:
        """The value of a widget not drawn in this run (in a closed lazy expander), kept for the run that draws
        it: set again, because a widget's value is dropped at the end of a run that did not draw it, and another
        page's link carries no query parameters, so the choice would fall back to the default there."""
        st.session_state[wkey] = st.session_state[wkey]
        return st.session_state[wkey]

    def selectbox(
        self,
        key: str,
        label: str,
        options: Sequence[Any],
        default: Any,
        *,
        format_func: Callable[[Any], str] = str,
        help: str | None = None,
        container: Any = None,
    ) -> Any:
        options = list(options)
        wkey = self._choice_key(key, options, default, format_func)
        return (container or st).selectbox(label, options, key=wkey, format_func=format_func, help=help)

    def pills(
        self,
        key: str,
        label: str,
        options: Sequence[Any],
        default: Sequence[Any],
        *,
        format_func: Callable[[Any], str] = str,
        help: str | None = None,
        container: Any = None,
    ) -> list[Any]:
        """Several of fixed options, each a pill to switch on or off; in the URL comma-separated
        ('loop,vmap_jacfwd'). Unknown items in a link are dropped with a note; a link naming none of
        the options gets the default. Pills, not a multiselect: the multiselect's dropdown code costs a
        new visitor's one-core browser about 0.6 s more before the page's chart (docs/browser_floor.txt)."""
        options = list(options)
        by_text = {serialize(o): o for o in options}
        allowed = ", ".join(by_text)

        def parse(raw: str) -> tuple[Any, str | None]:
            items = [t.strip() for t in str(raw).split(",") if t.strip()]
            chosen = list(dict.fromkeys(by_text[t] for t in items if t in by_text))
            unknown = [t for t in items if t not in by_text]
            if not chosen:
                shown = ", ".join(format_func(d) for d in default)
                what = f"{key}={raw!r} names none of {allowed}" if raw.strip() else f"{key} is empty"
                return list(default), f"{what}; using the default, {shown}"
            if unknown:
                names = ", ".join(repr(u) for u in unknown)
                return chosen, f"{key}: {names} {'is' if len(unknown) == 1 else 'are'} not one of {allowed}; left out"
            return chosen, None

        wkey = self._seed(key, list(default), parse, lambda v: isinstance(v, list) and all(o in options for o in v))
        return (container or st).pills(
            label, options, selection_mode="multi", key=wkey, format_func=format_func, help=help
        )

    # -- after the widgets -----------------------------------------------------------------------
    def show_notes(self, container: Any = None) -> None:
        """One visible note per link setting that was clamped or ignored. A note quotes what the link
        said, which anyone may have written: it goes through plain() (no link, image, style or
        formula; truncated), so it reads as text inside the app's own warning."""
        if self.notes:
            (container or st).warning(
                "Some settings in the link were adjusted:\n\n"
                + "\n".join(f"- {plain(n, NOTE_CHARS)}" for n in self.notes),
                icon=":material/link:",
            )

    def forget(self, keys: Sequence[str]) -> None:
        """Drop from the URL those of `keys` no widget bound this run: another model's sliders after the
        model changed (a link must hold only what the view it opens uses)."""
        for key in keys:
            if key not in self._bound and key in st.query_params:
                del st.query_params[key]

    def sync_url(self, keys: Sequence[str] | None = None) -> None:
        """Write the current values into the URL (all of them: a link must mean the same view
        even if a later version changes a default)."""
        for key in keys if keys is not None else self._bound:
            text = serialize(self.value(key))
            if st.query_params.get(key) != text or len(st.query_params.get_all(key)) > 1:
                st.query_params[key] = text
