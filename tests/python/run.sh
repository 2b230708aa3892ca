#!/bin/sh
# SPDX-License-Identifier: MIT
# The Python module's tests (tests/python/test_*.py) with pytest, against the
# module built in this tree (staged uninstalled in glcollide/python/site).
# Skipped (77) only where configure found no Python with NumPy and headers,
# and then never under CI=true: CI installs them (tests/setup-debian.sh),
# so a module that was not built there is a failure.
set -u
python=${GLCOLLIDE_PYTHON:-}
site=${GLCOLLIDE_PYTHON_SITE:-glcollide/python/site}
src=${GLCOLLIDE_SRCDIR:-$(dirname "$0")/../..}
if [ "${GLCOLLIDE_HAVE_PYTHON:-no}" != yes ]; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: the Python module was not built: configure found no Python 3 with NumPy" \
            "and Python.h (apt-get install python3-dev python3-numpy python3-pytest)"
        exit 1
    fi
    echo "SKIP: no Python 3 with NumPy and Python.h (configure's summary says so)"
    exit 77
fi
if [ ! -f "$site/glcollide/_glcollide.so" ]; then
    echo "FAIL: $site/glcollide/_glcollide.so is missing (make did not build the module)"
    exit 1
fi
if ! "$python" -c 'import pytest' 2>/dev/null; then
    echo "FAIL: $python has no pytest (apt-get install python3-pytest)"
    exit 1
fi
PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
    exec "$python" -m pytest -q -p no:cacheprovider "$src/tests/python" "$@"
