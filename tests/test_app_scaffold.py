"""ui.scaffold, the parts every lesson page lays out around its charts, in a small app of its own (AppTest)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui.scaffold import RECORD_KEY


def scaffold_app():
    import streamlit as st

    from lib.recorded.sources import GpuSource
    from ui import scaffold

    source = GpuSource("recorded", "h200", "NVIDIA H200, 2026-11-21", pack_paths=("h200.json",))
    scaffold.source_caption(source, 2)
    scaffold.notice(None)
    scaffold.notice("The recorded results have no sweep with these settings.")
    rows = [
        {
            "series": "cpu (live, this server)",
            "size": 64,
            "median_s": 1e-3,
            "iqr_s": 0.0,
            "status": "ok",
            "message": "",
            "device": "cpu",
            "workload": "matmul",
            "repeats": 5,
        },
        {
            "series": "cpu (live, this server)",
            "size": 8192,
            "median_s": None,
            "iqr_s": None,
            "status": "skipped",
            "message": "too much work",
            "device": "cpu",
            "workload": "matmul",
            "repeats": 0,
        },
    ]
    scaffold.point_notes(rows, lambda r: f"{r['series']}, size {r['size']}")
    scaffold.point_notes(rows[:1], lambda r: "")
    scaffold.results_on_screen(
        rows,
        ("series", "size", "median_s", "not_a_column"),
        rows,
        None,
        (),
        file_stem="test",
        key="t.results",
        more=lambda: st.caption("added by the page"),
    )
    scaffold.record_view(["python -m lib sweep a", "python -m lib sweep b"], "Then the app shows them.")
    st.session_state.setdefault("t.over", "batch_size")
    scaffold.sweep_offers("t", [("Show the sweep over dataset size", {"over": "dataset_size", "pin_memory": True})])
    scaffold.sweep_offers("t", [])
    st.markdown(f"over={st.session_state['t.over']}, pin={st.session_state.get('t.pin_memory')}")


def test_scaffold_lays_out_the_shared_parts():
    at = AppTest.from_function(scaffold_app, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.caption[0].value == (
        "CPU: measured live on this server with 2 threads. GPU: recorded on NVIDIA H200, 2026-11-21."
    )
    assert [i.value for i in at.info] == ["The recorded results have no sweep with these settings."]
    titles = [e.label for e in at.expander]
    assert titles == ["Notes on 1 point", "Results on screen", "Record this view on a GPU machine"]
    markdown = [m.value for m in at.markdown]
    assert "- cpu (live, this server), size 8192: not run — too much work" in markdown
    # 'Results on screen' is lazy: nothing inside it runs until a visitor opens it
    assert (
        not at.dataframe and not at.get("download_button") and "added by the page" not in [c.value for c in at.caption]
    )
    at.session_state["t.results"] = True
    at.run()
    assert list(at.dataframe[0].value.columns) == ["series", "size", "median_s"]
    assert len(at.get("download_button")) == 2 and "added by the page" in [c.value for c in at.caption]
    # so is 'Record this view': a code block loads the frontend's syntax highlighter
    assert not at.code and "Then the app shows them." not in [c.value for c in at.caption]
    at.session_state[RECORD_KEY] = True
    at.run()
    assert [c.value for c in at.code] == ["python -m lib sweep a", "python -m lib sweep b"]
    assert "Then the app shows them." in [c.value for c in at.caption]
    assert "Recorded sweeps this page can show:" in markdown and "over=batch_size, pin=None" in markdown
    at.button(key="t.use.0").click().run()
    assert "over=dataset_size, pin=True" in [m.value for m in at.markdown]


def answer_first_app():
    import altair as alt
    import pandas as pd
    import streamlit as st

    from ui import scaffold

    top = scaffold.answer_first("A lesson")
    st.slider("A control below the answer", 1, 10, 3, key="t.n")
    top.answer.markdown("An early answer, replaced.")
    top.answer.markdown(f"The answer at n = {st.session_state['t.n']}.")
    chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_line().encode(x="x", y="y")
    scaffold.chart_or_why(top.chart, chart.properties(height=scaffold.chart_height(480)), "never shown")
    scaffold.chart_or_why(st, None, "Nothing was timed, so there is no curve to draw.")
    with scaffold.why("the long words"):
        st.markdown("Why it is so.")
    with scaffold.why("Why not?"):
        st.markdown("Because.")
    st.caption(
        f"embedded={scaffold.embedded()} heights={scaffold.chart_height(480)},"
        f"{scaffold.chart_height(480, first=False)},{scaffold.chart_height(200)}"
    )


def test_answer_first_puts_the_answer_and_the_chart_above_the_controls():
    at = AppTest.from_function(answer_first_app, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "A lesson"

    # one answer (a later one replaces an earlier one), drawn before the slider though written after it
    def walk(node):
        children = getattr(node, "children", None)
        if children:
            for child in children.values():
                yield from walk(child)
        else:
            yield node

    kinds = [e.type for e in walk(at.main)]
    chart = next(k for k in kinds if "vega_lite_chart" in k)
    assert kinds.index("markdown") < kinds.index(chart) < kinds.index("slider"), kinds
    assert [m.value for m in at.markdown][:2] == [
        "The answer at n = 3.",
        ":material/info: Nothing was timed, so there is no curve to draw.",
    ]
    assert "An early answer, replaced." not in [m.value for m in at.markdown]
    assert [e.label for e in at.expander] == ["Why? the long words", "Why not?"]
    assert not any(e.proto.expanded for e in at.expander)
    assert at.caption[0].value == "embedded=False heights=340,480,200"
    at.slider(key="t.n").set_value(7).run()
    assert at.markdown[0].value == "The answer at n = 7."


def why_app():
    import streamlit as st

    from ui import scaffold

    with scaffold.why("What is inside") as opened:
        if opened:
            st.markdown("The long words.")
    with scaffold.why("What a chart outside quotes", drawn=True) as opened:
        if opened:
            st.markdown("Always sent.")


def test_a_why_section_sends_its_words_only_once_opened_unless_drawn():
    from ui.scaffold import WHY_KEY

    at = AppTest.from_function(why_app, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.label for e in at.expander] == ["Why? What is inside", "Why? What a chart outside quotes"]
    assert [m.value for m in at.markdown] == ["Always sent."]  # the lazy one's words are not sent while closed
    at.session_state[WHY_KEY + "Why? What is inside"] = True  # a visitor opens it: the page reruns
    at.run()
    assert [m.value for m in at.markdown] == ["The long words.", "Always sent."]
    assert [e.label for e in at.expander] == ["Why? What is inside", "Why? What a chart outside quotes"]
