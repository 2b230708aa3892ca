// SPDX-License-Identifier: MIT
// tetra tree: the classify shader (see tetra_tree.c).
#version 430 core
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer point_block { float points[]; };
layout(std430, binding = 1) readonly buffer tree_block { uvec4 tree[]; };
layout(std430, binding = 2) buffer cone_block { uint cones[]; };
layout(std430, binding = 3) buffer result_block { uint counters[4]; uint bits[]; };
uniform uint count;
uniform uint words; // 32-bit words per bit array
uniform uint node_count;
uniform uint tet_base; // in uvec4
uniform uint leaf_base;
uniform int coherence;
uniform float tolerance; // error bound factor of the plane values
shared uint group_counts[2]; // coherent, bounding rejects (the CPU counts the rest)
vec3 xyz(uvec4 s) { return uintBitsToFloat(s.xyz); }
float w(uvec4 s) { return uintBitsToFloat(s.w); }
// Generators are small integers: the crosses are exact, the dots
// within float rounding, far inside the build's cone margin.
bool in_cone(uint node, vec3 p) {
    vec3 g1 = xyz(tree[4u * node]), g2 = xyz(tree[4u * node + 1u]), g3 = xyz(tree[4u * node + 2u]);
    return dot(cross(g2, g3), p) >= 0.0 && dot(cross(g3, g1), p) >= 0.0 &&
           dot(cross(g1, g2), p) >= 0.0;
}
uint descend(vec3 p) {
    uint node = (p.x < 0.0 ? 1u : 0u) | (p.y < 0.0 ? 2u : 0u) | (p.z < 0.0 ? 4u : 0u);
    for (int level = 0; level <= 10; level++) {
        uvec4 s0 = tree[4u * node];
        if (s0.w == 0xffffffffu)
            break;
        vec3 g1 = xyz(s0), g2 = xyz(tree[4u * node + 1u]), g3 = xyz(tree[4u * node + 2u]);
        vec3 m12 = g1 + g2, m23 = g2 + g3, m31 = g3 + g1;
        uint child = dot(cross(m31, m12), p) < 0.0 ? 0u : dot(cross(m12, m23), p) < 0.0 ? 1u :
                     dot(cross(m23, m31), p) < 0.0 ? 2u : 3u;
        node = s0.w + child;
    }
    return node;
}
// 0 outside, 1 inside, 2 uncertain (the CPU decides).
uint classify(uint i) {
    vec3 p = vec3(points[3u * i], points[3u * i + 1u], points[3u * i + 2u]);
    float pm = max(abs(p.x), max(abs(p.y), abs(p.z)));
    if (!(pm > 1e-30)) // at V0 (or not finite: uploaded as V0)
        return 2u;
    uint node = 0xffffffffu;
    if (coherence != 0) {
        uint last = cones[i];
        if (last < node_count && tree[4u * last].w == 0xffffffffu && in_cone(last, p)) {
            node = last;
            atomicAdd(group_counts[0], 1u);
        }
    }
    if (node == 0xffffffffu)
        node = descend(p);
    cones[i] = node;
    uint first = tree[4u * node + 1u].w, n = tree[4u * node + 2u].w;
    if (n == 0u)
        return 0u;
    uvec4 b = tree[4u * node + 3u];
    if (dot(xyz(b), p) - w(b) > tolerance * (dot(abs(xyz(b)), abs(p)) + abs(w(b)))) {
        atomicAdd(group_counts[1], 1u);
        return 0u;
    }
    int sum = 0;
    for (uint k = 0u; k < n; k++) {
        uint j = first + k;
        uint base = tet_base + 5u * tree[leaf_base + (j >> 2)][j & 3u];
        uvec4 s4 = tree[base + 4u];
        int sign = int(s4.z);
        uvec4 s0 = tree[base];
        float v0 = dot(xyz(s0), p) + w(s0);
        float e0 = tolerance * (dot(abs(xyz(s0)), abs(p)) + abs(w(s0)) + uintBitsToFloat(s4.x) * pm +
                                uintBitsToFloat(s4.y));
        if (sign == 0) { // flat: uncertain on its triangle's plane within its box
            if (abs(v0) <= e0) {
                float g = tolerance * (pm + 1.0);
                vec3 lo = xyz(tree[base + 1u]) - g, hi = xyz(tree[base + 2u]) + g;
                if (all(greaterThanEqual(p, lo)) && all(lessThanEqual(p, hi)))
                    return 2u;
            }
            continue;
        }
        bool unsure = false, outside = false; // inner faces first: narrower than the cone
        for (uint f = 1u; f <= 3u && !outside; f++) {
            uvec4 s = tree[base + f];
            float v = dot(xyz(s), p), e = tolerance * (dot(abs(xyz(s)), abs(p)) + w(s) * pm);
            outside = v < -e;
            unsure = unsure || v <= e;
        }
        if (outside || v0 < -e0)
            continue;
        unsure = unsure || v0 <= e0;
        if (unsure)
            return 2u;
        sum += 2 * sign; // Algorithm 1, case b
    }
    return sum != 0 ? 1u : 0u;
}
void main() {
    uint local = gl_LocalInvocationIndex;
    if (local < 2u)
        group_counts[local] = 0u;
    barrier();
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + local;
    if (i < count) {
        uint result = classify(i);
        uint bit = 1u << (i & 31u);
        if (result == 1u)
            atomicOr(bits[i >> 5], bit);
        else if (result == 2u)
            atomicOr(bits[words + (i >> 5)], bit);
    }
    barrier();
    if (local < 2u && group_counts[local] != 0u)
        atomicAdd(counters[local], group_counts[local]);
}
