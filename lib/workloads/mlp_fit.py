"""Fitting the MLP's FLOPs and bytes forms (lib.workloads.mlp_terms) to its traced steps: offline, where torch
runs (scripts/trace_counts.py writes mlp_terms.COUNTS_FILE; tests/test_traced.py checks it is current).

A form is pinned by FIT_SAMPLES traces of small MLPs of uneven sizes, more than its coefficients, so a
coefficient the traces do not pin, or a count that is no linear form in mlp_terms.FEATURES, stops the fit.
"""

from __future__ import annotations

import json
import random

from lib.core.workload import SettingValue
from lib.workloads import mlp_terms
from lib.workloads.mlp import WORKLOAD, layer_sizes
from lib.workloads.traced import trace_step

FIT_SAMPLES = 16  # traces per form: more than the features


def fit_samples(form: tuple[str, str, str]) -> list[dict[str, SettingValue]]:
    """FIT_SAMPLES small MLPs of one form, of uneven sizes so no two features move together (the same on every run)."""
    rng = random.Random(mlp_terms.form_key(dict(zip(mlp_terms.FORM_KEYS, form))))
    out = []
    for _ in range(FIT_SAMPLES):
        widths = [rng.choice((3, 4, 5, 8, 12, 16, 33)) for _ in range(rng.randint(1, 4))]
        rows = rng.choice((1, 2, 3, 4, 8, 16))
        out.append(
            {
                **dict(zip(mlp_terms.FORM_KEYS, form)),
                "hidden_layers": ",".join(map(str, widths)),
                "input_features": rng.choice((2, 5, 7, 32)),
                "outputs": rng.choice((2, 3, 10)),
                "batch_size": rows,
                "dataset_size": rows,
            }
        )
    return out


def fit_form(form: tuple[str, str, str]) -> dict[str, list[int]]:
    """The coefficients of FLOPs and bytes for one form, fitted to traces of its samples: whole numbers (bytes
    come in whole elements), checked to give every traced sample exactly."""
    import numpy as np

    settings = [WORKLOAD.resolve(s) for s in fit_samples(form)]
    steps = [trace_step(WORKLOAD, s) for s in settings]
    x = np.array([mlp_terms.features(layer_sizes(s), WORKLOAD.batch_rows(s)) for s in settings], dtype=float)
    if np.linalg.matrix_rank(x) < len(mlp_terms.FEATURES):
        raise ValueError(f"{form}: the samples do not pin every coefficient")
    out = {}
    for what, counted in (("flops", [t.flops_matmul for t in steps]), ("bytes", [t.bytes for t in steps])):
        coefficients = [round(float(c)) for c in np.linalg.lstsq(x, np.array(counted), rcond=None)[0]]
        if list(x @ np.array(coefficients, dtype=float)) != counted:
            raise ValueError(f"{form}: the {what} of its traces are no linear form in {mlp_terms.FEATURES}")
        out[what] = coefficients
    return out


def write_forms() -> dict[str, dict[str, list[int]]]:
    """Fit every form and write mlp_terms.COUNTS_FILE, one form a line (a change to the step reads as the forms
    it changed)."""
    forms = {mlp_terms.form_key(dict(zip(mlp_terms.FORM_KEYS, f))): fit_form(f) for f in mlp_terms.FORMS}
    mlp_terms.COUNTS_FILE.write_text(
        "{\n"
        + f' "features": {json.dumps(mlp_terms.FEATURES)},\n "forms": {{\n'
        + ",\n".join(f"  {json.dumps(key)}: {json.dumps(form)}" for key, form in forms.items())
        + "\n }\n}\n"
    )
    mlp_terms.forms.cache_clear()
    return forms
