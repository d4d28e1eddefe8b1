"""What each page computes from result rows: views, curves, sentences. No Streamlit, no Altair.

One package per page, each readable top to bottom (its view, then its words); `common` holds what
every page shares:

    common/         voice (every crossover and "A vs B" sentence), explain (where a step's time
                    went), onscreen (sources and notes around a chart), live (the live policy),
                    answers (a page's one-sentence answer above its chart)
    home/  training/  data_pipeline/  timing/  jacobian/  seed_cases/  multi_gpu/
    your_results/  gallery/

Every number a sentence states is read from the rows passed in, so each is unit-tested without a
browser. May import lib.core, lib.workloads and lib.recorded; never charts, ui or pages.
"""
