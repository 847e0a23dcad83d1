#!/usr/bin/env bash
# The Python suites: the svc SDK's tests (sdks/python/tests) and the compatibility suite of clients nobody here wrote
# (test/python: the Langfuse Python SDK, the OpenTelemetry exporter), against the real service started from this
# repository. Their dependencies live in a virtualenv under the project (.venv), made or brought up to date here when
# the requirement files changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
stamp="$venv/.svc-requirements"
want=$(cat sdks/python/pyproject.toml test/python/requirements.txt 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "test-python: installing the Python test dependencies into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -e 'sdks/python[dev]' -r test/python/requirements.txt
  echo "$want" >"$stamp"
fi

"$venv/bin/python" -m mypy --strict sdks/python/src
PYTHONPATH=test/python exec "$venv/bin/python" -m pytest -p svc_service -q sdks/python/tests test/python "$@"
