// SPDX-License-Identifier: MIT
// myszkowski: the resolve shader (see myszkowski.c).
//
// Pass 3 and the map's listed pixels: sort the pixel's surfaces by depth
// (at equal depth, entries first: touching counts) and walk them.
layout(local_size_x = 8, local_size_y = 8) in;
uniform int height;
uniform int map;
uniform int nonzero; // bit o: object o passes through itself
// Inside: winding > 0, or != 0 for an object that passes through
// itself (2 in its overlaps, -1 where folded). For the others a stray
// exit before its entry (a sliver the rasterizer sees and the exact
// surface has not) winds -1 and must change nothing.
bool in_solid(int o, int winding) {
    return ((nonzero >> o) & 1) != 0 ? winding != 0 : winding > 0;
}
void main() {
    ivec2 t = ivec2(gl_GlobalInvocationID.xy);
    if (t.x >= width || t.y >= height)
        return;
    uint p = uint(t.y * width + t.x);
    uint state = pixels[2u * p];
    if ((state & STATE_CONCAVE) == 0u)
        return;
    float depth[MAX_LAYERS];
    uint info[MAX_LAYERS];
    int n = 0;
    bool overflow = false;
    uint i = pixels[2u * pixel_count + p];
    for (; i != 0xffffffffu; i = work[COUNTER_WORDS + 3u * i + 1u]) {
        if (n == MAX_LAYERS) {
            overflow = true;
            break;
        }
        float z = uintBitsToFloat(work[COUNTER_WORDS + 3u * i]);
        uint f = work[COUNTER_WORDS + 3u * i + 2u];
        int k = n;
        while (k > 0 && (depth[k - 1] > z || (depth[k - 1] == z &&
                         (info[k - 1] & 2u) == 0u && (f & 2u) != 0u))) {
            depth[k] = depth[k - 1];
            info[k] = info[k - 1];
            k--;
        }
        depth[k] = z;
        info[k] = f;
        n++;
    }
    if (overflow) {
        atomicAdd(work[C_UNRESOLVED], 1u);
        if (map != 0)
            pixels[10u * pixel_count + p] |= 8u;
        else
            pixels[2u * p] = state | STATE_COLLIDE;
        return;
    }
    int inside[2] = int[2](0, 0);
    float last_exit[2] = float[2](-1.0, -1.0);
    float overlap = 0.0, gap = uintBitsToFloat(0x7f800000u), previous = 0.0;
    bool both = false;
    for (int k = 0; k < n; k++) {
        float z = depth[k];
        uint o = info[k] & 1u, other = 1u - o;
        if (inside[0] > 0 && inside[1] > 0)
            overlap += z - previous;
        // Inside = more entries than exits so far; only 0 -> 1 enters and
        // 1 -> 0 leaves (a stray exit-entry pair where the rasterizer sees a
        // sliver the exact surface does not have changes nothing).
        if ((info[k] & 2u) != 0u) {
            if (inside[o] == 0 && inside[other] <= 0 && last_exit[other] >= 0.0)
                gap = min(gap, z - last_exit[other]);
            inside[o]++;
        } else if (--inside[o] == 0) {
            last_exit[o] = z;
        }
        both = both || (in_solid(0, inside[0]) && in_solid(1, inside[1]));
        previous = z;
    }
    if (map == 0) {
        if (both) {
            pixels[2u * p] = state | STATE_COLLIDE;
            atomicAdd(work[C_COLLIDE_CONCAVE], 1u);
        }
        return;
    }
    float d = both ? -overlap : gap;
    if (isinf(d))
        d = uintBitsToFloat(0x7fc00000u);
    pixels[9u * pixel_count + p] = floatBitsToUint(d);
}
