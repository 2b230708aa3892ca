#!/bin/sh
# SPDX-License-Identifier: MIT
# The examples of docs/python.md, run as printed there: each ```python block
# whose first line is "# example: NAME" is written out and run with the
# module built in this tree. dart_stack.py runs under the ODE preload, which
# must serve it (its counters show the mesh pairs it collided); it is skipped,
# saying so, where dartpy is not installed. Skipped (77) as tests/python/run.sh
# is, only where configure found no Python with NumPy.
set -u
test_name=python-examples
. "$(dirname "$0")/../programs/check.sh"
src=${GLCOLLIDE_SRCDIR:-$(dirname "$0")/../..}
python=${GLCOLLIDE_PYTHON:-}
site=${GLCOLLIDE_PYTHON_SITE:-glcollide/python/site}
preload=${GLCOLLIDE_PRELOAD_LIB:-.libs/libglcollide-ode-preload.so}
if [ "${GLCOLLIDE_HAVE_PYTHON:-no}" != yes ]; then
    [ "${CI:-}" = true ] && { echo "FAIL: the Python module was not built"; exit 1; }
    echo "SKIP: no Python 3 with NumPy and Python.h"
    exit 77
fi
awk -v dir="$tmp" '/^```python$/ { block = 1; file = ""; next }
     /^```$/ { block = 0; next }
     block && file == "" && /^# example: / { file = dir "/" $3 }
     block && file != "" { print > file }' "$src/docs/python.md"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1

[ -f "$tmp/arm.py" ]
check "docs/python.md prints arm.py" $?
"$python" "$tmp/arm.py" >"$tmp/arm.out" 2>&1
check "arm.py runs" $?
cat "$tmp/arm.out"
grep -q '^10000 configurations: .* us per configuration$' "$tmp/arm.out"
check "arm.py prints its time per configuration" $?

[ -f "$tmp/dart_stack.py" ]
check "docs/python.md prints dart_stack.py" $?
if "$python" -c 'import dartpy' 2>/dev/null; then
    GLCOLLIDE_PRELOAD_STATS=1 LD_PRELOAD="$preload" "$python" "$tmp/dart_stack.py" \
        >"$tmp/dart.out" 2>&1
    check "dart_stack.py runs under the preload" $?
    cat "$tmp/dart.out"
    grep -q 'glcollide-preload: .* trimesh_collides=[1-9]' "$tmp/dart.out"
    check "glcollide collided DART's meshes" $?
else
    echo "SKIP: dart_stack.py: dartpy is not installed (apt-get install python3-dartpy)"
fi
finish
