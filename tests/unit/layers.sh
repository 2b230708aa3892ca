#!/bin/sh
# SPDX-License-Identifier: MIT
# The library's layers are the folders of glcollide/, lowest first:
#   core geometry mesh contacts world gpu methods tools python
# A file may include its own layer's headers and those of the layers below,
# never a higher one's (docs/architecture.md says what each layer holds).
# The public headers and the ODE plugin include no private header at all.
test_name=layers
. "$(dirname "$0")/../programs/check.sh"
src=${GLCOLLIDE_SRCDIR:-$(dirname "$0")/../..}
layers="core geometry mesh contacts world gpu methods tools python"

rank() {
    r=0
    for l in $layers; do
        [ "$l" = "$1" ] && { echo $r; return; }
        r=$((r + 1))
    done
    echo -1
}

for dir in $layers; do
    [ -d "$src/glcollide/$dir" ] || { check "layer folder glcollide/$dir exists" 1; continue; }
    own=$(rank "$dir")
    bad=0
    for file in "$src/glcollide/$dir"/*.c "$src/glcollide/$dir"/*.h; do
        [ -f "$file" ] || continue
        for included in $(sed -n 's/^#include "\([a-z_]*\)\/[^"]*".*/\1/p' "$file"); do
            r=$(rank "$included")
            if [ "$r" -lt 0 ] || [ "$r" -gt "$own" ]; then
                echo "glcollide/$dir/$(basename "$file") includes a header of $included"
                bad=1
            fi
        done
        if grep -q '^#include "[^/"]*"' "$file" && [ "$(basename "$file")" != shaders.c ]; then
            echo "glcollide/$dir/$(basename "$file"): an include without its layer folder"
            bad=1
        fi
    done
    check "glcollide/$dir includes no higher layer" $bad
done

# No source file lies outside the layers.
loose=$(ls "$src"/glcollide/*.c "$src"/glcollide/*.h 2>/dev/null)
[ -z "$loose" ] || echo "outside every layer: $loose"
check "every source file of glcollide/ is in a layer folder" "$([ -z "$loose" ] && echo 0 || echo 1)"

bad=0
for file in "$src"/glcollide/include/glcollide/*.h "$src"/plugin/*.c "$src"/plugin/*.h \
            "$src"/plugin/include/glcollide/*.h; do
    if grep -q '^#include "\(core\|geometry\|mesh\|contacts\|world\|gpu\|methods\|tools\|python\)/' "$file"; then
        echo "$file includes a private header of the library"
        bad=1
    fi
done
check "public headers and the ODE plugin include no private header" $bad

# The Python module sees the library as any program does: public headers only.
bad=0
for file in "$src"/glcollide/python/*.c "$src"/glcollide/python/*.h; do
    [ -f "$file" ] || continue
    if grep '^#include "' "$file" | grep -qv '^#include "python/'; then
        echo "$file includes a private header of the library"
        bad=1
    fi
done
check "the Python module includes public headers only" $bad
finish
