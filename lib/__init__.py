"""Measurement core and lesson logic of "When does the GPU win?", in floors (lowest first):

    lib.core        timing harness, sweeps, crossover, result packs   (torch, stdlib)
    lib.workloads   one module per workload                            (+ core)
    lib.recorded    the shipped result packs and their loader          (+ core, workloads)
                    recorded.gallery: the class gallery's store (+ SQLAlchemy, only there)
    lib.lessons     what each page computes from rows                  (+ the floors below)
    lib.charts      Altair chart builders                              (+ core, lessons, altair)

A module imports only from its own floor or lower. Nothing here imports Streamlit, and only
lib.charts imports Altair (a GPU box used only for recording has torch, pandas and scikit-learn).
`python -m lib` is the command line (lib/__main__.py).
"""

APP_VERSION = "0.2.0"
