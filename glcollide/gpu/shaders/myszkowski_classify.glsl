// SPDX-License-Identifier: MIT
// myszkowski: the classify shader (see myszkowski.c).
//
// stage 1, 2: the paper's pixel-mask examinations after passes 1 and 2;
// stage 3: the distance map where both objects are pi-convex;
// stage 4: the polygons of the contact zone, from the item buffer: where
// both are pi-convex and the gap is below zone, the two surfaces that face
// each other (or bound the overlap) are flagged in a bitset.
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform usampler2D stencil_texture;
uniform int height;
uniform int stage;
uniform int b_crossing; // B passes through itself: an even count may still wind
uniform float zone;
uniform uint triangles_a;
void flag(uint triangle) {
    atomicOr(work[COUNTER_WORDS + triangle / 32u], 1u << (triangle % 32u));
}
void main() {
    ivec2 t = ivec2(gl_GlobalInvocationID.xy);
    if (t.x >= width || t.y >= height)
        return;
    uint p = uint(t.y * width + t.x);
    if (stage == 4) {
        if (pixels[7u * pixel_count + p] != 2u || pixels[8u * pixel_count + p] != 2u)
            return;
        float min_a = uintBitsToFloat(pixels[3u * pixel_count + p]);
        float min_b = uintBitsToFloat(pixels[4u * pixel_count + p]);
        float max_a = uintBitsToFloat(pixels[5u * pixel_count + p]);
        float max_b = uintBitsToFloat(pixels[6u * pixel_count + p]);
        if (max(min_a, min_b) - min(max_a, max_b) > zone)
            return;
        uint a_min = pixels[11u * pixel_count + p], a_max = pixels[12u * pixel_count + p];
        uint b_min = triangles_a + pixels[13u * pixel_count + p];
        uint b_max = triangles_a + pixels[14u * pixel_count + p];
        if (max_a <= min_b) {
            flag(a_max);
            flag(b_min);
        } else if (max_b <= min_a) {
            flag(b_max);
            flag(a_min);
        } else {
            flag(min_a >= min_b ? a_min : b_min);
            flag(max_a <= max_b ? a_max : b_max);
        }
        atomicAdd(work[C_COVERED], 1u);
        return;
    }
    if (stage == 3) {
        uint count_a = pixels[7u * pixel_count + p], count_b = pixels[8u * pixel_count + p];
        uint coverage = (count_a > 0u ? 1u : 0u) | (count_b > 0u ? 2u : 0u);
        float d = uintBitsToFloat(0x7fc00000u);
        if (coverage == 3u) {
            if (count_a == 2u && count_b == 2u) {
                float min_a = uintBitsToFloat(pixels[3u * pixel_count + p]);
                float min_b = uintBitsToFloat(pixels[4u * pixel_count + p]);
                float max_a = uintBitsToFloat(pixels[5u * pixel_count + p]);
                float max_b = uintBitsToFloat(pixels[6u * pixel_count + p]);
                d = max(min_a, min_b) - min(max_a, max_b);
            } else {
                pixels[2u * p] = STATE_CONCAVE;
                coverage |= 4u;
                atomicAdd(work[C_CONCAVE], 1u);
            }
        }
        pixels[9u * pixel_count + p] = floatBitsToUint(d);
        pixels[10u * pixel_count + p] = coverage;
        return;
    }
    uint s = texelFetch(stencil_texture, t, 0).r;
    if (stage == 1) {
        if ((s & 0x80u) == 0u)
            return;
        atomicAdd(work[C_COVERED], 1u);
        uint sc = s & 0x7fu, state = sc;
        if (sc == 0x7fu) { // saturated: the lists count exactly
            state |= STATE_CONCAVE;
            atomicAdd(work[C_CONCAVE], 1u);
        } else if ((sc & 1u) != 0u) {
            state |= STATE_COLLIDE;
            atomicAdd(work[C_COLLIDE1], 1u);
        } else if (sc != 0u && b_crossing != 0) { // the lists count windings
            state |= STATE_CONCAVE;
            atomicAdd(work[C_CONCAVE], 1u);
        } else if (sc != 0u) {
            state |= STATE_SECOND;
            atomicAdd(work[C_SECOND], 1u);
        }
        pixels[2u * p] = state;
        return;
    }
    uint state = pixels[2u * p];
    if ((state & STATE_SECOND) == 0u)
        return;
    uint sc1 = state & 0x7fu, sc2 = s & 0x7fu, layers = pixels[2u * p + 1u];
    if (layers != 2u)
        atomicAdd(work[C_NOT_PI_CONVEX], 1u);
    if (sc2 == 0x7fu || (s & 0x80u) == 0u) {
        state |= STATE_CONCAVE;
        atomicAdd(work[C_CONCAVE], 1u);
    } else if ((sc2 & 1u) != 0u || (sc1 != sc2 && layers == 2u)) {
        state |= STATE_COLLIDE;
        atomicAdd(work[C_COLLIDE2], 1u);
    } else if (sc1 != sc2) {
        state |= STATE_CONCAVE;
        atomicAdd(work[C_CONCAVE], 1u);
    }
    pixels[2u * p] = state;
}
