"""The words of the execution modes and of the step timeline, read from hand-made points."""

from curve_points import live, step

from lib.core.point import Frozen
from lib.core.rows import Status
from lib.core.step_timeline import CpuBusy, Figures, GpuBusy, Timeline
from lib.lessons.training.step_point import Profile
from lib.lessons.training.timeline_words import timeline_sentence
from lib.lessons.training.words import compile_payback, graph_saving

EAGER = step(1.0e-3, profile=Profile(kernels=44))
GRAPH = step(0.175e-3)


def test_graph_saving_names_the_launches_and_the_ratio():
    text = graph_saving(EAGER, GRAPH)
    assert "175 µs" in text and "5.7" in text and "44 kernels one by one" in text
    assert ". The eager step" in text  # a sentence starts with a capital letter
    assert "825 µs a step" in text


def test_graph_saving_without_a_kernel_count_still_reads():
    text = graph_saving(step(1.0e-3), GRAPH)
    assert ". The graph launches all the step's kernels at once" in text


def test_graph_saving_needs_both_rows_ok():
    assert graph_saving(EAGER, live(64, status=Status.SKIPPED)) is None and graph_saving(None, GRAPH) is None


def test_compile_payback_counts_the_steps_to_earn_back_the_compile():
    compiled = step(0.8e-3, profile=Profile(cold_s=40.0008))
    assert "pays off after about 200,000 steps" in compile_payback(EAGER, compiled)
    slower = step(1.2e-3, profile=Profile(cold_s=30.0))
    assert "never pays off" in compile_payback(EAGER, slower)


def timeline(mode, gpu=None, cpu=None, operators=0.0):
    figures = Figures(step_us=2000.0, operators=operators, launches=0.0, syncs=0.0, gpu=gpu, cpu=cpu)
    return Timeline("mlp", Frozen({"mode": mode}), "cuda:0", figures=figures)


def test_the_eager_timeline_blames_the_launches():
    text = timeline_sentence(
        timeline(
            "eager", GpuBusy(kernels=44, busy_us=100.0, busy_fraction=0.05, idle_between_us=1900.0, launch_delay_us=9.4)
        ),
        "GPU",
    )
    assert "busy 5%" in text and "44 kernels" in text and "waiting for the CPU to launch" in text


def test_a_graphed_timeline_does_not_blame_the_cpu_launches():
    text = timeline_sentence(
        timeline(
            "cuda_graph",
            GpuBusy(kernels=68, busy_us=1280.0, busy_fraction=0.64, idle_between_us=68.2, launch_delay_us=130.0),
        ),
        "GPU",
    )
    assert "one CUDA graph" in text and "waiting for the CPU" not in text and "68.2 µs" in text


def test_a_cpu_timeline_speaks_of_operators():
    text = timeline_sentence(timeline("eager", cpu=CpuBusy(busy_us=1060.0, busy_fraction=0.53), operators=106), "CPU")
    assert "106 operators" in text and "53%" in text
    assert timeline_sentence(None, "CPU") is None
