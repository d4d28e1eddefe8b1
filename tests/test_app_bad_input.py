"""Someone else's text, a bad pack and a database outage on the pages (issue 26, probe findings 4,
5, 6 and 7), through AppTest: what a link, an uploaded file or a gallery entry says is shown as
text (no link, image, style or formula; a long value truncated), a pack that would have crashed
the session gets a message naming its field, and every CSV download keeps formulas inert."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from app_support import open_page
from gallery_support import H100_PACK

from lib.recorded.uploads import WORD_JOINER

HOSTILE = {
    "link": "[Your session expired - log in here](https://evil.example/login)",
    "image": "![img](https://evil.example/pixel.png)",
    "style": ":red[**evil.example says hi**]",
    "formula": "$\\frac{evil.example}{2}$",
    "autolink": "see https://evil.example/x and www.evil.example and a@evil.example",
    "html": "<img src=https://evil.example/p.png onerror=alert(1)>",
}
# What markdown would act on, where a hostile string left it unescaped
MARKUP = {
    "a link or image": re.compile(r"(?<!\\)\]\("),
    "a directive": re.compile(r"(?<!\\):[a-z]+(?<!\\)\["),
    "LaTeX": re.compile(r"(?<!\\)\$"),
    "HTML": re.compile(r"(?<!\\)<"),
    "an autolink": re.compile(rf"(?i)\b(?:https?\\?:(?!{WORD_JOINER})|www(?!{WORD_JOINER})\\?\.|@(?!{WORD_JOINER}))"),
}


def shown(at) -> list[str]:
    """Every text element that renders markdown, as the page sent it to the browser."""
    out = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        out += [str(e.value) for e in getattr(at, kind)]
    return out


def assert_inert(at, marker: str = "evil") -> int:
    """No element that carries the hostile text lets markdown act on it; returns how many carry it."""
    assert not at.exception, [e.value for e in at.exception]
    carrying = [t for t in shown(at) if marker in t]
    for text in carrying:
        for what, pattern in MARKUP.items():
            assert not pattern.search(text), f"{what} in {text!r}"
    return len(carrying)


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_link_value_is_echoed_as_plain_text(case):
    at = open_page("pages/gallery.py", {"sort": HOSTILE[case]})
    assert assert_inert(at) == 1
    note = next(str(w.value) for w in at.warning if "adjusted" in str(w.value))
    assert "evil" in note and "is not one of" in note


@pytest.mark.slow
def test_the_probes_link_on_the_jacobian_page_is_text(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    at = open_page("pages/jacobian.py", {"val": HOSTILE["link"]})
    assert assert_inert(at) == 1


def test_a_long_link_value_is_not_echoed_in_full():
    at = open_page("pages/gallery.py", {"sort": "A" * 100_000})
    note = next(str(w.value) for w in at.warning if "adjusted" in str(w.value))
    assert len(note) < 500 and "100,000 characters long" in note
    assert at.selectbox(key="gallery.sort").value == "crossover"


def hostile_pack() -> dict:
    """The shipped H100 pack (TEST FIXTURE copy) whose names and swept setting carry every hostile string."""
    pack = json.loads(H100_PACK.read_text())
    name = " ".join(HOSTILE.values())[:190]
    pack["machine"].update(label=name, gpus=[HOSTILE["image"] + " " + HOSTILE["autolink"]], cpu_model=HOSTILE["style"])
    key = "evil_" + HOSTILE["formula"]
    for row in pack["rows"]:
        row.update(
            {
                key: row["batch_size"],
                "swept": key,
                "machine": name,
                "message": '=HYPERLINK("https://evil.example","x")',
                "variant": "+cmd|' /C calc'!A0",
            }
        )
        del row["batch_size"]
    return pack


def test_names_and_settings_from_an_upload_are_text_on_every_page_and_csv_cells_are_inert(
    tmp_path, monkeypatch, downloads
):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    at = open_page("pages/your_results.py")
    at.file_uploader[0].set_value([("evil.json", json.dumps(hostile_pack()).encode(), "application/json")])
    at.run()
    assert assert_inert(at) >= 3  # the answer, the chart's words, the 'Using:' line
    cells = [c for line in csv.reader(io.StringIO(downloads["your_results.csv"].decode(), newline="")) for c in line]
    assert '\'=HYPERLINK("https://evil.example","x")' in cells and "'+cmd|' /C calc'!A0" in cells
    assert not [c for c in cells if c[:1] in ("=", "+", "@")]
    at.switch_page("pages/training.py").run()  # the upload's GPU is now a source of every page
    assert assert_inert(at) >= 1


def test_a_pack_with_a_number_for_its_gpus_is_named_and_the_session_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    pack = json.loads(H100_PACK.read_text())
    pack["machine"]["gpus"] = 5
    at = open_page("pages/your_results.py")
    at.file_uploader[0].set_value([("five.json", json.dumps(pack).encode(), "application/json")])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "five.json: machine.gpus: must be a list" in at.error[0].value.replace("\\", "")
    at.switch_page("pages/home.py").run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_same_file_on_the_gallerys_add_button_is_a_message():
    pack = json.loads(H100_PACK.read_text())
    pack["machine"]["gpus"] = 5
    at = open_page("pages/gallery.py")
    at.file_uploader(key="gallery.file").set_value([("five.json", json.dumps(pack).encode(), "application/json")])
    at.text_input(key="gallery.name").set_value("five")
    at.button(key="gallery.add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "machine.gpus: must be a list" in at.error[0].value.replace("\\", "")


def test_a_link_to_a_gallery_entry_that_is_not_a_number_is_a_note():
    at = open_page("pages/your_results.py", {"gallery": "²"})
    assert not at.exception, [e.value for e in at.exception]
    assert "names no gallery entry" in " ".join(str(w.value) for w in at.warning)
