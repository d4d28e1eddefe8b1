"""The app's pages: one registry for the router (streamlit_app.py) and the Home page's links.

A page is listed only when its file exists, so lessons can land one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class PageInfo:
    path: str  # relative to the repository root, as st.Page and st.page_link want it
    title: str
    icon: str
    blurb: str  # the one line the Home page shows next to the link
    default: bool = False

    @property
    def url_path(self) -> str:
        """The page's URL: st.Page derives it from the file name, as the pages/ directory mode does
        (ui.not_found reads it to tell the app's own paths from unknown ones)."""
        return "" if self.default else Path(self.path).stem

    def exists(self, root: Path = ROOT) -> bool:
        return (root / self.path).is_file()


PAGES: tuple[PageInfo, ...] = (
    PageInfo("pages/home.py", "Home", ":material/home:", "The question, and the one-chart answer.", default=True),
    PageInfo(
        "pages/training.py",
        "Training crossover",
        ":material/show_chart:",
        "Move batch size, width, dataset size and depth; see where the GPU overtakes the CPU, and why.",
    ),
    PageInfo(
        "pages/jacobian.py",
        "Jacobian",
        ":material/functions:",
        "A Python loop of backward passes vs vectorised Jacobians: when the algorithm beats the hardware.",
    ),
    PageInfo(
        "pages/timing_pitfalls.py",
        "Timing pitfalls",
        ":material/timer:",
        "Asynchronous CUDA, warm-up and transfers: how a naive timer lies about a big matmul.",
    ),
    PageInfo(
        "pages/data_pipeline.py",
        "Data pipeline",
        ":material/conveyor_belt:",
        "When image decoding and the DataLoader, not the device, set the pace.",
    ),
    PageInfo(
        "pages/seed_cases.py",
        "Seed case studies",
        ":material/science:",
        "The original experiments: what was reported beside what this app measures.",
    ),
    PageInfo(
        "pages/multi_gpu.py",
        "Multi-GPU",
        ":material/developer_board:",
        "One, two, four GPUs with DistributedDataParallel: where communication eats the gain.",
    ),
    PageInfo(
        "pages/your_results.py",
        "Your results",
        ":material/upload_file:",
        "Upload result packs recorded elsewhere, compare machines, download.",
    ),
    PageInfo(
        "pages/gallery.py",
        "Class gallery",
        ":material/groups:",
        "Every visitor's machine on one sweep, kept for the class: add yours, compare it with the H200.",
    ),
)


def existing_pages(root: Path = ROOT) -> list[PageInfo]:
    return [p for p in PAGES if p.exists(root)]


def lesson_pages(root: Path = ROOT) -> list[PageInfo]:
    return [p for p in existing_pages(root) if not p.default]
