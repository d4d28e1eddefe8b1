"""The Gallery page's forms: the course filter bound to ?course=, adding a machine, and the
instructor's forms (create a course code, hide an entry with the course's admin code).

Each action runs in its button's on_click callback, before the page script, so the listing below
it already shows the change, and the outcome is kept in session state until it is shown next to
its button. Every refusal from the store (GalleryError), and a database error under it, becomes a message.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from lib.recorded.gallery.entry import MAX_NAME_CHARS, GalleryError, normalize_course
from lib.recorded.gallery.store import Gallery
from lib.recorded.uploads import one_line, plain
from ui.gallery import FAILED, browser_token, client_address, logged, session_token

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "record_your_machine.ipynb"
NS = "gallery"
HIDE, SHOW = "Hide", "Show (approves a waiting one)"


class Kind(enum.Enum):
    """How an outcome is shown: its Streamlit element and icon."""

    SUCCESS = ("success", ":material/check:")
    ERROR = ("error", ":material/block:")


class NewCourse(NamedTuple):
    """A course just created: its code, and the admin code shown only now."""

    code: str
    admin: str


@dataclass(frozen=True)
class Said:
    """The outcome of a form's last action, kept in session state until it is shown once."""

    kind: Kind
    text: str
    course: NewCourse | None = None


def _say(form: str, said: Said) -> None:
    st.session_state[f"{NS}.said.{form}"] = said


def _refusal(err: Exception) -> str:
    """What a visitor reads when the store refuses, or when the database fails under it (that it
    failed, never its host, port or file: those go to the server's log)."""
    if isinstance(err, GalleryError):
        return plain(str(err), limit=500)
    if isinstance(err, SQLAlchemyError):
        logged(err, "the gallery's database failed under a visitor's action")
        return FAILED
    # anything else a strange file made the store raise: the page keeps serving and says so
    logged(err, "the gallery could not add a file")
    return "That file could not be added: the gallery met something it did not expect. Nothing was changed."


def _who() -> dict[str, str]:
    return {"session": session_token(), "client": client_address(), "browser": browser_token()}


def _said(form: str) -> Said | None:
    """The outcome of the form's last action, shown once."""
    said = st.session_state.pop(f"{NS}.said.{form}", None)
    if said:
        element, icon = said.kind.value
        getattr(st, element)(said.text, icon=icon)
    return said


def course_filter(gallery: Gallery) -> tuple[str | None, str | None]:
    """The course code box, first filled from ?course= and mirrored back into the URL.
    Returns (course, note): '' for every machine, a known code, or None (stop: the note says why)."""
    key = f"{NS}.course"
    if key not in st.session_state:
        st.session_state[key] = str(st.query_params.get("course") or "")[:40]
    raw = st.text_input(
        "Course code",
        key=key,
        placeholder="empty: every machine",
        help="Your instructor's code for your class. The link with ?course=CODE opens the gallery "
        "showing only that class (and the shipped GPUs).",
    )
    try:
        course = normalize_course(raw)
    except GalleryError as err:
        return None, f"{raw!r} is not a course code: {err}"
    if course and not gallery.course_exists(course):
        return None, (
            f"There is no course {course} in this gallery: check the code, or ask your instructor for the "
            "link. (Empty the box to see every machine.)"
        )
    if course:
        st.query_params["course"] = course
    elif "course" in st.query_params:
        del st.query_params["course"]
    return course, None


def record_instructions(course: str, base_url: str) -> None:
    course_arg = f" --course {course}" if course else ""
    st.markdown(
        "**1. Record your machine** (about a minute). On a free notebook GPU (Colab, Kaggle): open this "
        "notebook there, pick a GPU runtime (Colab: Runtime → Change runtime type → T4 GPU), run every "
        "cell; it downloads `my_machine.json`."
    )
    if NOTEBOOK.is_file():
        st.download_button(
            "record_your_machine.ipynb",
            NOTEBOOK.read_bytes(),
            file_name=NOTEBOOK.name,
            mime="application/x-ipynb+json",
            icon=":material/download:",
            on_click="ignore",
        )
    st.markdown("On a laptop or any machine with Python 3.10+ and torch, from a copy of this project:")
    st.code(f"python3 scripts/record_for_gallery.py --app-url {base_url}{course_arg}", language="bash")
    st.markdown("**2. Upload the pack here** and give it a display name.")


def _add(gallery: Gallery, course: str, where: str) -> None:
    upload = st.session_state.get(f"{NS}.file")
    if upload is None:
        _say(
            "add", Said(Kind.ERROR, "Choose your result pack first (the .json file the notebook or the script wrote).")
        )
        return
    try:
        entry = gallery.add(
            upload.name, upload.getvalue(), name=st.session_state.get(f"{NS}.name", ""), course=course, **_who()
        )
    except Exception as err:  # a refusal, the database, or a file that surprised the store: a message
        _say("add", Said(Kind.ERROR, _refusal(err)))
    else:
        added = f"Added **{plain(entry.name)}** ({plain(entry.hardware)}) as entry #{entry.id} to {where}."
        if entry.held:
            who = "your instructor approves it" if course else "the site's administrator approves it"
            added += f" Many machines were added in the last hour, so it is kept but shown only once {who}."
        _say("add", Said(Kind.SUCCESS, added))


def add_form(gallery: Gallery, course: str, base_url: str) -> None:
    where = f"course **{plain(course)}**" if course else "the public gallery (no course)"
    record_instructions(course, base_url)
    st.file_uploader(
        "Your result pack (.json)",
        type=["json"],
        key=f"{NS}.file",
        help=f"At most {gallery.limits.max_pack_bytes / 1e6:g} MB; read as data only, never run.",
    )
    st.text_input(
        "Display name",
        key=f"{NS}.name",
        max_chars=MAX_NAME_CHARS,
        placeholder="a nickname, e.g. Ada's laptop (no real name needed)",
    )
    st.caption(
        f"It will be added to {where}, with your display name, the machine's CPU/GPU names, torch "
        "version and date from the pack. Nothing else about you is stored."
    )
    st.button(
        "Add to the gallery", icon=":material/add:", key=f"{NS}.add", on_click=_add, args=(gallery, course, where)
    )
    _said("add")


def _create(gallery: Gallery) -> None:
    try:
        code, admin = gallery.create_course(st.session_state.get(f"{NS}.new_course"), **_who())
    except (GalleryError, SQLAlchemyError) as err:
        _say("create", Said(Kind.ERROR, _refusal(err)))
    else:
        _say(
            "create",
            Said(
                Kind.SUCCESS,
                f"Course **{code}** created. Share the link below with your students. Keep the "
                "admin code: it is shown only now (the gallery stores only a hash of it) and hides "
                "entries of this course.",
                NewCourse(code, admin),
            ),
        )


def _create_course(gallery: Gallery, base_url: str) -> None:
    st.text_input(
        "Course code you want (optional)", key=f"{NS}.new_course", placeholder="e.g. ML101-2026; empty: one is made up"
    )
    st.button("Create the course", key=f"{NS}.create", icon=":material/school:", on_click=_create, args=(gallery,))
    said = _said("create")
    if said and said.course:
        code = said.course.code
        st.code(f"{base_url}/gallery?course={code}\nadmin code: {said.course.admin}", language="text")
        st.page_link(
            "pages/gallery.py",
            label=f"Open course {code}",
            query_params={"course": code},
            icon=":material/open_in_new:",
        )


def _unlocked(course: str) -> str | None:
    """The admin code this session opened the course with (kept in its server-side state only)."""
    return st.session_state.get(f"{NS}.admin_ok.{course}")


def _unlock(gallery: Gallery, course: str) -> None:
    code = st.session_state.get(f"{NS}.admin_code") or ""
    try:
        gallery.check_admin(course, code, **_who())
    except (GalleryError, SQLAlchemyError) as err:
        _say("hide", Said(Kind.ERROR, _refusal(err)))
    else:
        st.session_state[f"{NS}.admin_ok.{course}"] = code
    st.session_state[f"{NS}.admin_code"] = ""


def _hide(gallery: Gallery, course: str) -> None:
    state = st.session_state
    picks = list(state.get(f"{NS}.hide_pick") or [])
    hide = state.get(f"{NS}.hide_action") == HIDE
    try:
        done = gallery.hide_entries(picks, course, _unlocked(course) or "", hidden=hide, **_who())
    except (GalleryError, SQLAlchemyError) as err:
        _say("hide", Said(Kind.ERROR, _refusal(err)))
    else:
        numbers = ", ".join(f"#{i}" for i in picks)
        _say("hide", Said(Kind.SUCCESS, f"{done} of {len(picks)} entries ({numbers}) {'hidden' if hide else 'shown'}."))
        state[f"{NS}.hide_pick"] = []


def _delete_hidden(gallery: Gallery, course: str, waiting: bool = False) -> None:
    try:
        done = gallery.delete_hidden(course, _unlocked(course) or "", waiting=waiting, **_who())
    except (GalleryError, SQLAlchemyError) as err:
        _say("hide", Said(Kind.ERROR, _refusal(err)))
    else:
        which = "waiting" if waiting else "hidden"
        _say("hide", Said(Kind.SUCCESS, f"{done} {which} {'entry' if done == 1 else 'entries'} deleted for good."))


def _state(entry) -> str:
    return " (hidden)" if entry.hidden else " (waiting for approval)" if entry.held else ""


def _hide_entries(gallery: Gallery, course: str) -> None:
    """The admin code first; only a session that gave it sees the entries, hidden and waiting ones
    included. Showing a waiting entry approves it."""
    where = f"course {course}" if course else "the gallery"
    if not _unlocked(course):
        st.text_input(f"Admin code of {where}", type="password", key=f"{NS}.admin_code")
        st.button("Open", key=f"{NS}.unlock", on_click=_unlock, args=(gallery, course))
        _said("hide")
        return
    every = gallery.entries(course=course, include_hidden=True, limit=500)
    if every:
        by_id = {e.id: e for e in every}
        st.multiselect(
            "Entries (newest first)",
            list(by_id),
            key=f"{NS}.hide_pick",
            format_func=lambda i: one_line(f"#{i} {by_id[i].name} · {by_id[i].hardware}" + _state(by_id[i])),
        )
        st.radio("Action", [HIDE, SHOW], horizontal=True, key=f"{NS}.hide_action")
        st.button("Apply", key=f"{NS}.hide_apply", on_click=_hide, args=(gallery, course))
        for waiting, many in ((True, sum(e.held for e in every)), (False, sum(e.hidden for e in every))):
            if many:
                which = "waiting" if waiting else "hidden"
                st.button(
                    f"Delete the {many} {which} {'entry' if many == 1 else 'entries'} for good",
                    key=f"{NS}.delete_{which}",
                    on_click=_delete_hidden,
                    args=(gallery, course, waiting),
                    icon=":material/delete:",
                )
    else:
        st.caption("No entries to hide yet.")
    _said("hide")


def instructor_forms(gallery: Gallery, course: str, base_url: str) -> None:
    st.header("For instructors")
    with st.expander("Create a course code for your class"):
        _create_course(gallery, base_url)
    # The public gallery's form is the site administrator's: shown only on a link that asks for it
    # (?admin=1), and, like a course's, it lists nothing before the code is given.
    if course or (gallery.site_admin_code and st.query_params.get("admin") == "1"):
        with st.expander(f"Hide or approve entries of {'course ' + course if course else 'the public gallery'}"):
            _hide_entries(gallery, course)
    else:
        st.caption("Open your course's link (?course=CODE) to hide entries of it with the course's admin code.")
