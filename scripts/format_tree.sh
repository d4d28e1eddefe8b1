#!/usr/bin/env bash
# Turn the formatter on for the whole tree, once, after every open branch is merged (formatting earlier would
# make each of them conflict on every line it touched). Formats with ruff.toml's [format] (all but pages/),
# sorts the imports again, checks that every page is still at most 100 lines, then makes .ci/run check the
# format from now on. Review `git diff --stat`, run the tests, commit.
#
#     scripts/format_tree.sh            # RUFF=/path/to/ruff to use another ruff than .venv's
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF="${RUFF:-.venv/bin/ruff}"

"$RUFF" format .
"$RUFF" check --fix --quiet .  # the import blocks, now that the formatter may have joined their lines
"$RUFF" format --check .

long=$(for page in pages/*.py; do n=$(wc -l <"$page"); if [ "$n" -gt 100 ]; then echo "$page: $n lines"; fi; done)
if [ -n "$long" ]; then
    echo "FORMAT FAILED: pages past 100 lines (tests/test_pages_thin.py):" >&2
    echo "$long" >&2
    exit 1
fi

check='.venv/bin/ruff format --check .  # the formatter, with ruff.toml'"'"'s [format]'
if ! grep -qF 'ruff format --check' .ci/run; then
    echo "$check" >>.ci/run
fi
git diff --shortstat
