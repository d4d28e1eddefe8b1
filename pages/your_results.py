"""Your results: upload result packs recorded elsewhere, compare machines, download them merged.

Layout and words only. Reading the files (data only: JSON or CSV, size-capped, validated field by
field), labelling machines, merging and comparing live in lib.lessons.your_results.compare; the chart in lib.charts.machines.
A file that does not validate gets one message naming the file and the field; the others are used.
Answer first: the title, one sentence read from the first comparison, its chart; the uploader and
the switch below; the other comparisons, the machines and the download after them.
"""

from __future__ import annotations

import streamlit as st

from lib.core.fmt import plural
from lib.lessons.your_results.answer import machines_answer
from lib.lessons.your_results.compare import crossover_lines, describe_fixed, fastest_line, uncharted_rows
from lib.recorded.upload_budget import LIMITS
from lib.recorded.uploads import MAX_UPLOAD_BYTES, one_line, plain
from ui import scaffold
from ui.compare_view import MORE_CHARTS, ComparedView, compared_view
from ui.sources import load_recorded, remember_uploads
from ui.url_settings import UrlSettings

NS = "your_results"
RECORD_COMMANDS = """\
# on the machine to measure (it needs torch, pandas and scikit-learn, not Streamlit):
python3 scripts/record_packs.py --out mypacks        # the app's standard sweeps, CPU and CUDA: mypacks/*.json

# or one sweep of your own choosing:
python -m lib sweep mlp --over batch_size=1,16,256,4096 --set hidden_width=256 --devices cpu,cuda --out my.json"""



def draw(n: int, comp, title: str, slots: scaffold.AnswerFirst | None = None) -> None:
    """One comparison: its title, the chart, what was held fixed, and the words computed from it; the
    first one in the page's first-screen slots (`slots`), under the answer."""
    head, body = (slots.chart, slots.note) if slots else (st.container(), st.container())
    if slots:
        head.markdown(f"**{plain(title)}**")
    else:
        head.subheader(plain(title))
    # the spec is built once per process (ui.compare_view): a revisit only sends it
    head.vega_lite_chart(view.chart(n, scaffold.plot_height() if slots else None, 2 if scaffold.embedded() else 1),
                         width="stretch", key=f"{NS}.chart.{n}")
    body.caption(f"Held fixed: {plain(describe_fixed(comp.workload, comp.fixed), limit=600)}. "
                 f"{plural(len(comp.machines), 'machine')}, {plural(len(comp.curves), 'curve')}.")
    for line in crossover_lines(comp):
        body.markdown(f"- {line.markdown()}")
    fastest = fastest_line(comp)
    if fastest:
        body.markdown(fastest)


top = scaffold.answer_first("Your results")
url = UrlSettings(NS)
uploaded = st.file_uploader(
    "Result packs (.json, or .csv of their rows)", type=["json", "csv"], accept_multiple_files=True,
    key=f"{NS}.files", max_upload_size=max(1, MAX_UPLOAD_BYTES // (1024 * 1024)),
    help=f"Data only: JSON or CSV, at most {MAX_UPLOAD_BYTES // (1024 * 1024)} MB each, {LIMITS.session_files} files "
         f"and {LIMITS.session_rows:,} rows in all. Files are read, never run, and let go when you close the tab.",
)
shipped_packs, _ = load_recorded()  # a shipped pack that fails to load is reported in the sidebar
with_shipped = url.toggle(
    "shipped", f"Compare with the {plural(len(shipped_packs), 'pack')} shipped with the app", False,
    help="Packs recorded on real GPUs with this project's command line." if shipped_packs else
         "No packs are shipped with this copy of the app yet.",
)
url.show_notes()
url.sync_url()

with scaffold.why("How to record your own pack") as opened:
    if opened:
        st.code(RECORD_COMMANDS, language="bash")
        st.markdown(
            "Run it from a copy of this project on the machine you want to measure. The pack is a JSON file: the "
            "rows (median time, spread, repeats, status per point) and the machine's fingerprint (CPU, cores, threads, "
            "GPUs, driver, torch/CUDA/Python versions, date). Then either **upload it here** (drag the file onto the "
            "box above; it is held for your session only, never written to disk), or **ship it with your copy of the "
            "app** by putting it in `lib/recorded/`: the sidebar then offers it as the source of every page's GPU "
            "curves (when it holds GPU rows)."
        )
        st.caption("A CSV of the rows works too, but only the JSON pack carries the machine's fingerprint.")

# -- read, check, merge ------------------------------------------------------------------------------
from_gallery = []
if st.query_params.get("gallery"):  # machines picked on the Class gallery page (?gallery=12,shipped:h200_training)
    from ui.gallery import gallery_sources  # the database is opened only for such a link

    from_gallery, gallery_notes = gallery_sources(st.query_params.get("gallery"))
    for note in gallery_notes:
        st.warning(plain(note, limit=400), icon=":material/groups:")
# read, validated, merged and compared once per set of packs (a revisit is a lookup)
view = compared_view(uploaded or [], from_gallery, shipped_packs if with_shipped else (), widget_key=f"{NS}.files")
sources = view.sources

for src in sources:
    if src.error:
        st.error(f"Not used: {plain(src.error, limit=400)}", icon=":material/error:")
    elif src.note:
        st.info(plain(src.note, limit=400), icon=":material/content_copy:")
used = [s for s in sources if s.used]
remember_uploads([s.pack for s in used if not s.shipped], [s.name for s in used if not s.shipped])
if used:
    st.caption("Using: " + "; ".join(f"{plain(s.name)} ({plural(len(s.pack['rows']), 'row')})" for s in used))

combined = view.combined
if combined is None:
    top.answer.markdown("Nothing to compare yet: upload a result pack below"
                        + (", or switch on the shipped packs." if shipped_packs else "."))
    top.note.markdown("**How to record your own pack** says how to make one.")  # under the answer (issue 37)
    st.stop()

rows = combined.pack["rows"]

# -- one chart per workload and swept setting: the first on the first screen, a few more below, any other on request
drawn = view.drawn  # comparisons of several machines first
if not drawn:
    top.answer.markdown("None of these rows is a measured point of a sweep (a setting varied over several values), "
                        "so there is no curve to draw; the table and the download below still hold them.")
else:
    top.answer.markdown(machines_answer(drawn[0][1]))
    draw(*drawn[0], slots=top)
if drawn[1:]:
    st.header("More sweeps compared")
for n, comp, title in drawn[1:1 + MORE_CHARTS]:
    draw(n, comp, title)
if drawn[1 + MORE_CHARTS:]:
    rest = drawn[1 + MORE_CHARTS:]
    picked = st.selectbox(
        f"{plural(len(rest), 'more sweep')}: pick one to draw", range(len(rest)), index=None,
        format_func=lambda i: f"{one_line(rest[i][2])} ({plural(len(rest[i][1].machines), 'machine')})",
        key=f"{NS}.more", placeholder="choose a sweep", help="Every sweep is also in the download below.")
    if picked is not None:
        draw(*rest[picked])
if drawn:
    top.note.caption("Each point: the median time of one step (one call of the workload) over its timed repeats; "
                     "bars span the interquartile range. Colour says what a curve is (CPU blue or purple, GPU orange "
                     "then red), dash which machine. A crossover compares a machine's GPU with its own CPU, from its "
                     "measured points only.")

skipped = uncharted_rows(rows)
if skipped:
    st.caption("Not on the charts: " + "; ".join(f"{plural(k, 'row')} with {reason}" for reason, k in skipped.items())
               + ".")

# -- the machines -----------------------------------------------------------------------------------
st.header("The machines")
st.dataframe(view.machines, hide_index=True, width="stretch")
st.caption("From each pack's fingerprint, as recorded by the machine itself. 'threads in CPU rows' is what the "
           "CPU measurements really used; 'torch threads' is PyTorch's default there.")

# -- download ---------------------------------------------------------------------------------------
st.header("Download everything on this page")
left, right = st.columns(2)
# made when clicked, not on every run: a large merge is tens of MB the session would otherwise hold
left.download_button("Merged result pack (JSON)", view.deferred(ComparedView.download_json), file_name="your_results.json",
                     mime="application/json", icon=":material/download:", on_click="ignore")
right.download_button("Merged rows (CSV)", view.deferred(ComparedView.download_csv), file_name="your_results.csv",
                      mime="text/csv", icon=":material/table:", on_click="ignore")
st.caption(f"{plural(len(rows), 'row')} from {plural(len(combined.machines), 'machine')}; every row names its "
           "machine, and the JSON keeps every machine's fingerprint. Upload it here again to see this page.")
