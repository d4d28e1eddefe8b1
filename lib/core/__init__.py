"""The measuring core: a small library in the spirit of torch.utils.benchmark.

    workload.resolve({...}) -> Settings         settings parsed and checked once, where a request enters
    measure_point(workload, settings, device)   one point: build, time (timing.Timer), phases, a typed Point
    run_sweep(workload, over, values, ...)      one loop over points and devices, with hooks (run_points(RunRequest))
    analyse_rows(rows, setting)                 the crossover and each curve's fitted work line (crossover)
    build_pack / load_pack / merge_packs        the result pack: one schema everywhere (results)

Modules: devices (what can be timed, sync, memory, fingerprint), timing (the harness),
profiling (kernels per step), workload (Setting, Settings, Step, Workload), point (Point: one result,
typed; from_row/to_row at the file edge), rows (Status, Origin, is_ok),
sweep, crossover, results, fmt (numbers as people read them), measure_lock and gc_scope (one live
measurement at a time, cheap collections meanwhile), memo (what is built from the shipped packs,
built once per process), worker (the process live measurements run in, apart from the web server),
args (the command line's values, checked before anything is measured), load and host, host_timing,
host_verdict, host_watch (how busy a recording's machine was, and how fast its host against its kind's best).

Imports only torch and the standard library: never lib.workloads, lessons, charts, recorded or Streamlit.
"""
