#!/usr/bin/env bash
# Install everything the test suite needs into a brand-new virtual environment, then run the
# suite there. Extra arguments go to pytest.
#   bash tests/run.sh                   # the suite without its longest checks (marker "slow")
#   ALL_TESTS=1 bash tests/run.sh       # all of it (what CI runs)
#   bash tests/run.sh tests/unit -x     # a part of it
#
# The virtual environment is made afresh in a temporary folder and removed afterwards, so
# nothing left on the machine can hide a missing install step; pip resolves the newest versions
# pyproject.toml allows. Set TEST_VENV=/some/folder to keep (and reuse) it between runs.
#
# Browser tests drive Debian's chromium (never a downloaded browser); cache tests start a real
# redis-server, the slow-client test nginx. When these are missing and this runs as root with apt, they are installed;
# otherwise those tests are skipped with a reason (CI sets REQUIRE_ALL=1, which turns such a
# skip into a failure).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

needed=()
command -v chromium >/dev/null 2>&1 || needed+=(chromium)
command -v redis-server >/dev/null 2>&1 || needed+=(redis-server)
# the slow-client test runs the shipped nginx configuration with a self-signed certificate
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || needed+=(nginx)
command -v openssl >/dev/null 2>&1 || needed+=(openssl)
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || needed+=(python3-venv)
if [ ${#needed[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages: ${needed[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${needed[@]}" >/dev/null
  else
    echo "note: ${needed[*]} not installed (needs root and apt); their tests will be skipped" >&2
  fi
fi

if [ -n "${TEST_VENV:-}" ]; then
  venv=$TEST_VENV
else
  venv=$(mktemp -d "${TMPDIR:-/tmp}/lazy-rich-test-venv.XXXXXX")
  trap 'rm -rf "$venv"' EXIT
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
echo "installing the project and its test tools into $venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade -e ".[test]"
echo "installed in $((SECONDS - started)) s; running the tests"

# One BLAS thread per process: the matrices are small, and two test processes share two cores.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# The longest checks (marker "slow") run with ALL_TESTS=1, as CI does (REQUIRE_ALL=1); a "-m"
# among the arguments replaces this choice.
selection=(-m "not slow")
if [ "${ALL_TESTS:-${REQUIRE_ALL:-0}}" = "1" ]; then
  selection=()
fi
# Two processes share the tests (pytest-xdist; one per core); the ten slowest are listed last.
# Tests marked "alone" compare latencies with a quiet baseline, or hold a recovery to a deadline:
# they run afterwards, by themselves (another test's load would fall on one of their phases and
# not the other, or starve the recovery).
# (A "-m" among the arguments chooses alone, in one run.)
if [ ${#selection[@]} -eq 0 ]; then
  shared=(-m "not alone") alone=(-m "alone")
else
  shared=(-m "not slow and not alone") alone=(-m "alone and not slow")
fi
for argument in "$@"; do
  if [ "$argument" = "-m" ]; then shared=() alone=(); fi
done
status=0
"$venv/bin/python" -m pytest -n "${TEST_PROCESSES:-auto}" --dist worksteal --durations=10 \
  "${shared[@]}" "$@" || status=$?
alone_status=5
if [ ${#alone[@]} -gt 0 ]; then
  alone_status=0
  "$venv/bin/python" -m pytest "${alone[@]}" "$@" || alone_status=$?
fi
# (5: no test selected — in one of the two runs, that is no failure)
if [ $status -eq 5 ] && [ $alone_status -eq 0 ]; then status=0; fi
if [ $alone_status -ne 0 ] && [ $alone_status -ne 5 ] && [ $status -eq 0 ]; then
  status=$alone_status
fi
echo "tests/run.sh took $((SECONDS - started)) s in all"
exit $status
