"""Command-line interface: how packs are recorded on a GPU machine and figures reproduced.

python -m lib devices
python -m lib run WORKLOAD --set KEY=VALUE ... --devices cpu,cuda
python -m lib sweep WORKLOAD --over KEY=V1,V2,... --set KEY=VALUE ... --devices cpu,cuda --out PACK.json
python -m lib crossover PACK.json
python -m lib merge OUT.json IN.json ...
python -m lib predict MODEL --input SHAPE --over batch_size=1,16,256 [--json FILE] [--no-live]
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from lib import APP_VERSION
from lib.core import args as args_
from lib.core.devices import MachineObject
from lib.core.host_watch import MachineWatch
from lib.core.point import Point, rows_of
from lib.core.rows import is_ok
from lib.core.terminal import TerminalProgress, print_points


def _parse_sets(pairs: list[tuple[str, str]] | None) -> dict[str, str]:
    """--set pairs (checked by lib.core.args.key_value, none repeated) as a dict."""
    return dict(pairs or [])


def cmd_devices(args: argparse.Namespace) -> int:
    from lib.core.devices import available_devices, device_name, machine_fingerprint, memory_info

    for device in available_devices():
        free, total = memory_info(device)
        print(f"{device:8s} {device_name(device)}  ({free / 1e9:.1f} GB free of {total / 1e9:.1f} GB)")
    if len(available_devices()) == 1:
        print("CUDA is not available here: only the CPU can be timed (the app shows recorded GPU results).")
    if args.json:
        print(json.dumps(machine_fingerprint(), indent=1))
    return 0


def _workload(args: argparse.Namespace):
    from lib.workloads import get_workload

    return get_workload(args.workload)


def _devices(args: argparse.Namespace) -> list[str]:
    from lib.core.devices import resolve_devices

    return resolve_devices(args.devices)


def cmd_run(args: argparse.Namespace) -> int:
    # the settings are checked before torch loads (seconds): a typo is refused at once
    workload = _workload(args)
    settings = workload.resolve(_parse_sets(args.set))

    from lib.core.gate import recording_gate
    from lib.core.results import build_pack, save_pack
    from lib.core.rows import Status
    from lib.core.sweep import measure_point

    devices = _devices(args)
    # the one gate (lib.core.gate) with the limits given here
    measure = partial(
        measure_point,
        workload,
        gate=recording_gate(memory_cap_gb=args.memory_cap_gb, max_flops=dict(args.max_gflop or [])),
    )
    watch = MachineWatch.start(devices, _on_record)
    points: list[Point] = []
    try:  # a Ctrl-C keeps the devices measured so far
        for d in devices:
            points.append(measure(settings, d, budget_s=args.budget, num_threads=args.threads, check=not args.no_check))
        print_points(points, [k for k in _parse_sets(args.set)])
        if args.out:
            machine = watch.machine()
            save_pack(build_pack(points, machine), args.out)
            print(f"wrote {args.out}")
            watch.tell(machine)
    except KeyboardInterrupt:
        return _stopped(points, args.out, partial(watch.machine, None, False))
    return 0 if all(p.status in (Status.OK, Status.SKIPPED) for p in points) else 1


def cmd_sweep(args: argparse.Namespace) -> int:
    # the settings are checked before torch loads (seconds): a typo is refused at once
    workload = _workload(args)
    axes = args.over
    fixed = _parse_sets(args.set)
    args_.check_settings(workload, fixed, axes)

    from lib.core.crossover import analyse_rows
    from lib.core.results import build_pack, load_pack, pack_points, save_pack
    from lib.core.resume import Resume
    from lib.core.sweep import grid_points
    from lib.lessons.common.voice import crossover_sentence, device_side

    devices = _devices(args)
    names = [name for name, _ in axes]
    points = grid_points(workload, axes, fixed)
    resume = Resume(workload, points, devices, ",".join(names))
    earlier = load_pack(args.out) if args.resume and args.out and Path(args.out).exists() else None
    if earlier:  # every row it holds is kept, or the resume is refused
        resume.take(pack_points(earlier), Path(args.out).name)
    watch = MachineWatch.start(devices, _on_record)
    so_far: list[Point] = []
    earlier_machine = (earlier.get("machine") or {}) if earlier is not None else None
    machine_so_far = partial(watch.machine, earlier_machine, False)
    try:  # a Ctrl-C at any point up to the written pack keeps every row measured so far
        measured = _sweep_points(workload, points, names, devices, args, resume, so_far, machine_so_far)
        if len(measured) <= 200:
            print_points(measured, names)
        machine = watch.machine(earlier_machine)
        if args.out:
            save_pack(build_pack(measured, machine), args.out)
            print(f"wrote {args.out} ({len(measured)} rows)")
    except KeyboardInterrupt:
        return _stopped(resume.with_rest(so_far), args.out, machine_so_far)
    watch.tell(machine)
    if len(devices) > 1 and len(axes) == 1:
        print(
            crossover_sentence(
                analyse_rows(rows_of(measured), names[0]), names[0], device_side("cpu"), device_side(devices[1])
            ).plain()
        )
    return 0


def _on_record() -> list[MachineObject]:
    """The machines of the shipped packs (each source of a merged one): the best host figures of a kind are theirs."""
    from lib.recorded import load_recordings

    return [machine.to_json() for r in load_recordings()[0] for machine in r.file_pack.fingerprints]


def _stopped(points: list[Point], out: str | None, machine: Callable[[], dict]) -> int:
    """Ctrl-C: the points so far are written to --out (a second Ctrl-C cannot cut that write short) and
    one line says what was kept; exit 130, as a shell's own Ctrl-C."""
    from lib.core.results import build_pack, save_pack
    from lib.core.rows import Status

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.stderr.isatty():
        sys.stderr.write("\n")  # after the progress bar's line
    measured = sum(1 for p in points if p.status == Status.OK)
    if out and points:
        save_pack(build_pack(points, machine()), out)
        print(
            f"stopped: {_count(len(points), 'row')} ({measured} measured) kept in {out}; add --resume to go on",
            file=sys.stderr,
        )
    else:
        print(
            f"stopped: {_count(measured, 'row')} measured, none kept" + ("" if out else " (no --out given)"),
            file=sys.stderr,
        )
    return 130


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _sweep_points(
    workload, points, names: list[str], devices, args, resume, so_far: list[Point], machine_so_far: Callable[[], dict]
) -> list[Point]:
    """One setting (a sweep) or several (a grid, every combination), through lib.core.sweep's one
    loop. With --resume, points already in --out are kept and not measured again (a cut-off
    recording goes on where it stopped: lib.core.resume); the pack is saved every --save-every points.
    `so_far` holds every point as it comes, for a Ctrl-C to save.

    With --profile, every point is profiled after the last point is timed, never in between: once
    torch.profiler has traced CUDA, CUPTI stays attached to the process and slows every later launch
    (docs/profiler_after_effect.txt). The profiling pass is here rather than run_points' own so that
    a resumed grid also profiles the kept points that have no kernel count yet (a call cut off during
    the profiling pass)."""
    from lib.core.gate import recording_gate
    from lib.core.results import build_pack, save_pack
    from lib.core.rows import Status
    from lib.core.sweep import RunRequest, profile_point, run_points
    from lib.core.workload import Settings

    # one gate for the whole recording (lib.core.gate): the limits given here, the app's questions and words
    gate = recording_gate(
        memory_cap_gb=args.memory_cap_gb, budget_s=args.total_budget, max_flops=dict(args.max_gflop or [])
    )
    progress = None if args.quiet else TerminalProgress()

    def save_now(point: Point) -> None:
        so_far.append(point)
        if args.out and args.save_every and len(so_far) % args.save_every == 0:
            save_pack(build_pack(resume.with_rest(so_far), machine_so_far()), args.out)

    measured = run_points(
        RunRequest(
            workload,
            tuple(points),
            tuple(devices),
            with_phases=not args.no_phases,
            with_profile=False,
            swept=",".join(names),
            point_budget_s=args.budget,
            num_threads=args.threads,
            slow_call_s=args.slow_call_s,
            single_call_s=args.single_call_s,
            gate=gate,
            describe=lambda s: ", ".join(f"{n}={s[n]}" for n in names),
            progress=progress,
            on_point=save_now,
            kept=resume.point_for,
        )
    )
    so_far[:] = measured  # every point now; the profiling pass replaces them one by one
    # (index, settings, device) measured and not yet profiled: profiled after every timing
    to_profile: list[tuple[int, Settings, str]] = [
        (at, point, device)
        for at, (done, (point, device)) in enumerate(zip(measured, [(p, d) for p in points for d in devices]))
        if args.profile and isinstance(point, Settings) and done.status == Status.OK and done.counts.kernels is None
    ]
    for i, (at, point, device) in enumerate(to_profile, 1):
        measured[at] = so_far[at] = profile_point(measured[at], workload, point, device, args.threads)
        if args.out and args.save_every and i % args.save_every == 0:
            save_pack(build_pack(measured, machine_so_far()), args.out)
        if progress:
            progress(i / len(to_profile), f"profiled {i}/{len(to_profile)} points")
    if progress:
        progress(1.0, f"done: {len(measured)} points")
    return workload.summarise(measured)


def cmd_timeline(args: argparse.Namespace) -> int:
    workload = _workload(args)
    settings = workload.resolve(_parse_sets(args.set))  # checked before torch loads, as run's

    from lib.core.gate import recording_gate
    from lib.core.rows import Status
    from lib.core.step_timeline import timelines_file
    from lib.core.timeline import timeline_point

    devices = _devices(args)
    gate = recording_gate(memory_cap_gb=args.memory_cap_gb, max_flops=dict(args.max_gflop or []))
    watch = MachineWatch.start(devices, _on_record)  # a timeline's durations are timings too: its file keeps its load
    entries = [
        timeline_point(workload, settings, d, steps=args.steps, num_threads=args.threads, gate=gate) for d in devices
    ]
    for e in entries:
        figures = ", ".join(f"{k} {v:.4g}" for k, v in e.figures.as_json().items()) if e.figures else ""
        print(f"{e.device}: {e.status} {e.message} {figures}")
    if args.out:
        machine = watch.machine()
        save_json(timelines_file(entries, machine), args.out)
        print(f"wrote {args.out}")
        watch.tell(machine)
    return 0 if all(e.status == Status.OK for e in entries) else 1


def save_json(obj: dict, path: str) -> None:
    import gzip

    from lib.core.files import write_file

    data = json.dumps(obj, separators=(",", ":")).encode()
    write_file(path, gzip.compress(data, mtime=0) if path.endswith(".gz") else data)


def cmd_crossover(args: argparse.Namespace) -> int:
    from lib.core.crossover import analyse_rows, swept_problem
    from lib.core.fmt import fmt_about
    from lib.core.results import PackError, load_pack
    from lib.lessons.common.voice import crossover_sentence, device_side
    from lib.recorded import load_recordings

    pack = {**load_pack(args.pack), "path": args.pack}
    # the GPU's ceilings: measured rows of this pack, of --ceilings packs, or of the shipped recordings
    ceiling_packs = [
        pack,
        *({**load_pack(c), "path": c} for c in args.ceilings or ()),
        *(r.pack for r in load_recordings()[0]),
    ]
    groups: dict[tuple[str, str], list[tuple[int, dict]]] = {}
    for i, row in enumerate(pack["rows"]):
        groups.setdefault((row["workload"], row.get("swept") or args.setting or ""), []).append((i, row))
    for (_, swept), indexed in groups.items():  # every group checked before a line is printed
        problem = swept_problem(indexed, swept) if swept and "," not in swept else None
        if problem:
            raise PackError(f"{Path(args.pack).name}: {problem}")
    print(f"pack: {args.pack}  machine: {pack['machine'].get('label', '?')}")
    for (workload, swept), indexed in groups.items():
        rows = [row for _, row in indexed]
        if not swept:
            print(f"{workload}: rows do not say which setting was swept; pass --setting")
            continue
        if args.workload and workload != args.workload:
            continue
        if "," in swept:  # a grid (every combination): a crossover reads one setting at a time
            ok = sum(1 for r in rows if is_ok(r))
            print(
                f"{workload}: a grid over {swept.replace(',', ', ')} on {', '.join(sorted({r['device'] for r in rows}))}"
                f" ({len(rows)} rows, {ok} ok); no crossover printed: it reads a sweep over one setting"
            )
            continue
        analysis = analyse_rows(rows, swept)
        devices = sorted({r["device"] for r in rows})
        print(f"{workload} over {swept} ({', '.join(devices)}):")
        gpu = analysis.gpu_device or "gpu"
        print("  measured: " + crossover_sentence(analysis, swept, device_side("cpu"), device_side(gpu)).plain())
        for name, model in (("cpu", analysis.cpu_model), (analysis.gpu_device or "gpu", analysis.gpu_model)):
            if model is not None:
                print(
                    f"  cost model {name}: {model.overhead_s * 1e6:.1f} us fixed + work at "
                    f"{model.throughput / 1e9:.3g} GFLOP/s"
                )
        if analysis.gpu_model is not None:
            predicted = fmt_about(analysis.predicted_x) if analysis.predicted_x else "none"
            print(f"  cost models predict the crossover at {swept} ≈ {predicted}")
        _print_verdicts(rows, swept, ceiling_packs)
    return 0


def _print_verdicts(rows: list[dict], swept: str, packs: list[dict]) -> None:
    """What holds each step back, in the pages' words (lib.lessons.common.verdict: four regimes from
    the step's profile against its GPU's measured ceilings, and the one change that would move it)."""
    from lib.core.devices import is_cuda
    from lib.core.fmt import fmt_value
    from lib.lessons.common.verdict import verdict, verdict_words
    from lib.recorded.ceilings import ceilings_for

    ok = sorted((r for r in rows if is_ok(r)), key=lambda r: (r["device"], float(r[swept])))
    ceilings = {
        name: ceilings_for(name, packs)
        for name in {str(r.get("device_name") or r["device"]) for r in ok if is_cuda(r["device"])}
    }
    for name, found in sorted(ceilings.items()):  # the label names its machine and the rows it came from
        print(
            "  ceilings of "
            + (
                found.label()
                if found
                else f"{name}: not recorded (record a matmul and a "
                "stream sweep on it with this CLI and pass their packs with --ceilings)"
            )
        )
    said = [(r, verdict(r, ceilings.get(str(r.get("device_name") or r["device"])))) for r in ok]
    unsplit = sorted({r["device"] for r, v in said if v is None})
    if unsplit:
        print(
            f"  what holds a step back is not said on {', '.join(unsplit)}: its rows carry no profile "
            "(sweep with --profile to count kernels and busy time)"
        )
    for r, v in said:
        if v is not None:
            print("  " + verdict_words(v, f"{r['device']} at {swept} {fmt_value(r[swept])}").plain())


def cmd_merge(args: argparse.Namespace) -> int:
    from lib.lessons.multi_gpu.scaling import merge_files

    for line in merge_files(args.out, args.inputs):
        print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m lib", description="When does the GPU win? Measure PyTorch work on CPU and CUDA."
    )
    parser.add_argument("--version", action="version", version=APP_VERSION)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("devices", help="list the devices this machine can time")
    p.add_argument("--json", action="store_true", help="also print the machine fingerprint")
    p.set_defaults(func=cmd_devices)

    def timing_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("workload", help="workload name, e.g. mlp")
        p.add_argument(
            "--set", action="append", type=args_.key_value, metavar="KEY=VALUE", help="a setting (repeatable)"
        )
        p.add_argument("--devices", default="cpu", help="comma-separated: cpu, cuda, cuda:1 (default cpu)")
        p.add_argument(
            "--budget", type=args_.positive_number, default=1.0, help="seconds of timed repeats per point (default 1)"
        )
        p.add_argument(
            "--threads",
            type=args_.threads,
            default=None,
            help="CPU threads, at most this machine's cores (default: torch's own)",
        )
        p.add_argument(
            "--memory-cap-gb",
            type=args_.positive_number,
            default=None,
            help="refuse points estimated above this (default: $GPUWIN_MEMORY_CAP_GB or 2.7)",
        )
        p.add_argument(
            "--max-gflop",
            action="append",
            type=args_.work_cap,
            metavar="DEVICE=G",
            help="skip points above G GFLOP per step on cpu or cuda (repeatable)",
        )
        p.add_argument("--out", help="write a result pack (JSON) here")

    p = sub.add_parser("run", help="time one workload at given settings")
    timing_options(p)
    p.add_argument("--no-check", action="store_true", help="skip the check of the workload's result")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("sweep", help="sweep settings over values (several --over: every combination), write a pack")
    timing_options(p)
    p.add_argument(
        "--over",
        required=True,
        action="append",
        type=args_.axis,
        metavar="KEY=V1,V2,...",
        help="a setting to vary and its values; repeat it for a grid of every combination",
    )
    p.add_argument(
        "--total-budget",
        type=args_.positive_number,
        default=None,
        help="seconds for the whole sweep; later points are skipped",
    )
    p.add_argument("--resume", action="store_true", help="keep the points already in --out; measure only the rest")
    p.add_argument(
        "--save-every", type=args_.whole, default=0, metavar="N", help="write --out every N points (with --resume)"
    )
    p.add_argument("--no-phases", action="store_true", help="do not time the phases at every point")
    p.add_argument("--profile", action="store_true", help="count kernels and device-busy time at every point")
    p.add_argument(
        "--slow-call-s",
        type=args_.positive_number,
        default=None,
        help="a first call this slow: time one warm call only",
    )
    p.add_argument(
        "--single-call-s", type=args_.positive_number, default=None, help="a first call this slow is the result itself"
    )
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("timeline", help="record the timeline of a few warm steps (CPU thread and GPU stream)")
    timing_options(p)
    p.add_argument("--steps", type=args_.positive_whole, default=3, help="profiled steps (default 3)")
    p.set_defaults(func=cmd_timeline)

    p = sub.add_parser("crossover", help="print the crossover, cost models and what holds each step back")
    p.add_argument("pack", help="a result pack (JSON)")
    p.add_argument("--workload", help="only this workload")
    p.add_argument("--setting", help="the swept setting, if the rows do not say")
    p.add_argument(
        "--ceilings",
        action="append",
        metavar="PACK",
        help="a pack with the GPU's matmul and stream rows, its measured roofline (repeatable; "
        "the shipped recordings are always read)",
    )
    p.set_defaults(func=cmd_crossover)

    p = sub.add_parser("merge", help="merge packs (ddp: scaling efficiency across one machine's runs)")
    p.add_argument("out", help="the merged pack to write (JSON)")
    p.add_argument(
        "inputs",
        nargs="+",
        help="the packs to merge; rows keep their own machine and date (packs of several machines keep every machine)",
    )
    p.set_defaults(func=cmd_merge)

    from lib.lessons.predict.cli import add_parser

    add_parser(sub)  # predict: its options and words in lib.lessons.predict.cli
    return parser


def main(argv: list[str] | None = None) -> int:
    from lib.core.devices import DeviceUnavailable
    from lib.core.gate import default_memory_cap_gb
    from lib.core.results import PackError
    from lib.core.workload import SettingError

    parser = build_parser()
    args = parser.parse_args(argv)
    for option in ("set", "over", "max_gflop"):
        key = args_.repeated_key(getattr(args, option, None))
        if key is not None:  # the later value would silently replace the earlier one
            parser.error(f"--{option.replace('_', '-')} {key} is given twice; give it once")
    problem = args_.output_problem(args.out) if getattr(args, "out", None) is not None else None
    if problem:  # asked before measuring: a result that cannot be written is a result lost
        parser.error(f"--out: {problem}" if args.command != "merge" else problem)
    if getattr(args, "memory_cap_gb", None) is None and hasattr(args, "memory_cap_gb"):
        args.memory_cap_gb = default_memory_cap_gb()
    try:
        return args.func(args)
    except (DeviceUnavailable, SettingError, PackError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # where no rows are at stake (a sweep or run keeps its own)
        print("stopped (Ctrl-C); nothing was written", file=sys.stderr)
        return 130
    except OSError as err:  # a file that cannot be read or written: its name and why, not a traceback
        where = f"{err.filename}: " if err.filename else ""
        print(f"error: {where}{err.strerror or err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
