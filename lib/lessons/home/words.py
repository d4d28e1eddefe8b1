"""Home's own words: what it says without recorded results, where to explore its answer, and its "Why?"."""

from __future__ import annotations

NO_RESULTS = "This copy of the app has no GPU results yet, so there is no GPU curve to answer with here."
NO_RESULTS_NOTE = (
    "No recorded GPU results shipped yet. The Training page measures the CPU live on this server; a pack "
    "recorded on a GPU machine adds the GPU side (the Your results page says how to record one)."
)
# the link under Home's chart to the same view, where every setting moves and this server's CPU is measured live;
# short enough for one line of a phone's page link
EXPLORE = "Explore it on the Training page"

# Home's "Why?". Both devices pay per-operator overhead (Python, autograd, PyTorch's dispatch): the
# Training page shows the CPU's. What only the GPU pays is a launch over the bus per kernel and the wait
# for it to finish; the recorded packs hold no CPU profile, so no number is quoted here.
WHY = (
    "Because a GPU does not run your step: it runs the small pieces of work your step is made of (kernels), "
    "each launched from Python on the CPU. Both devices pay the same per-operator cost on the CPU (Python, "
    "autograd, PyTorch's dispatch); the GPU pays more on top of it: launching every kernel over the bus to the "
    "GPU, and waiting for the GPU to finish (synchronisation) whenever the CPU needs a result. The CPU runs each "
    "operator itself, so it launches nothing across a bus and has no device to wait for. For a small model every "
    "kernel finishes almost at once, and the GPU's step is mostly that extra cost (launch-bound); even kernels "
    "queued back to back each take a few microseconds however little they do (kernel latency). Give each kernel "
    "enough work and the GPU's memory bandwidth, then its arithmetic, take over: there it is many times faster. "
    "This app measures where that happens, and the Training page says which of the four holds each step."
)
