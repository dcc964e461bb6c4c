#!/usr/bin/env bash
# Install everything the test suite needs, then run it. Extra arguments go to pytest.
#   bash tests/run.sh                 # the whole suite
#   bash tests/run.sh tests/unit -x   # a part of it
#
# Browser tests drive Debian's chromium (never a downloaded browser); cache tests start a real
# redis-server. When these are missing and this runs as root with apt, they are installed;
# otherwise those tests are skipped with a reason (CI sets REQUIRE_ALL=1, which turns such a
# skip into a failure).
set -euo pipefail
cd "$(dirname "$0")/.."

needed=()
command -v chromium >/dev/null 2>&1 || needed+=(chromium chromium-driver)
command -v redis-server >/dev/null 2>&1 || needed+=(redis-server)
if [ ${#needed[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages: ${needed[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${needed[@]}" >/dev/null
  else
    echo "note: ${needed[*]} not installed (needs root and apt); their tests will be skipped" >&2
  fi
fi

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
python3 -m pytest "$@"
