"""Every registered workload has the shape pages, sweeps and packs rely on."""

import pytest

from lib.core.results import RESERVED
from lib.core.sweep import run_sweep
from lib.core.timing import cpu_threads
from lib.core.workload import SettingError
from lib.workloads import REGISTERED, WORKLOADS, get_workload

OURS = ("mlp", "dataloader", "jacobian", "matmul", "stream")
SMALL = {
    "mlp": {"hidden_width": 8, "dataset_size": 128, "data": "iris", "pin_memory": True},
    "dataloader": {"dataset_size": 64, "batch_size": 32, "pin_memory": True},
    "jacobian": {"val": 2},
    "matmul": {"size": 32, "dtype": "tf32", "sync": False, "transfer": True},
    "stream": {"size": 1000},
}


def test_registry_is_a_tuple_keyed_by_cli_name():
    assert isinstance(REGISTERED, tuple)
    assert set(OURS) <= set(WORKLOADS)
    assert all(WORKLOADS[w.name] is w for w in REGISTERED)
    with pytest.raises(SettingError, match="known"):
        get_workload("nope")


@pytest.mark.parametrize("name", OURS)
def test_settings_have_defaults_in_range_and_help(name):
    workload = get_workload(name)
    defaults = workload.resolve({})
    for s in workload.settings:
        assert s.help, s.name
        assert s.parse(s.default) == defaults[s.name]
    assert workload.flops(defaults) > 0 and workload.bytes_moved(defaults) > 0
    assert workload.peak_memory_bytes(defaults, "cpu") > 0 and workload.peak_memory_bytes(defaults, "cuda:0") > 0


@pytest.mark.parametrize("name", OURS)
def test_scalar_extras_and_units_are_reserved_row_fields(name):
    """A column that is neither a setting nor reserved would count as a setting, and rows of one
    sweep (or CPU and GPU rows of one point) would no longer group together."""
    workload = get_workload(name)
    with cpu_threads(1):
        step = workload.build(workload.resolve(SMALL[name]), "cpu")
    try:
        setting_names = {s.name for s in workload.settings}
        for key, value in {**step.extras.fields(), **step.units}.items():
            if isinstance(value, (int, float, str, bool)):
                assert key in RESERVED or key in setting_names, f"{name}: '{key}' would land in rows as a setting"
    finally:
        if step.close:
            step.close()


def test_a_sweep_keeps_its_rows_comparable():
    with cpu_threads(1):
        points = run_sweep(
            get_workload("jacobian"), "val", [1, 2], {"method": "vmap_jacfwd"}, ["cpu"], point_budget_s=0.02
        )

    fixed = {tuple(sorted((k, v) for k, v in p.settings.items() if k != "val")) for p in points}
    assert len(fixed) == 1


def test_one_reading_of_a_switch_for_settings_and_url_widgets():
    from lib.core.workload import parse_bool

    assert [parse_bool(v) for v in (True, "on", " TRUE ", "1", "yes", False, "off", "0", "no")] == [True] * 5 + [
        False
    ] * 4
    with pytest.raises(ValueError):
        parse_bool("maybe")
