#!/usr/bin/env bash
# Install everything the test suite needs, then run it. Extra arguments go to pytest.
#   bash tests/run.sh                 # the whole suite
#   bash tests/run.sh tests/unit -x   # a part of it
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
python3 -m pytest "$@"
