// SPDX-License-Identifier: MIT
// particles: the map vertex shader (see particles.c).
#version 430 core
layout(std430, binding = 2) readonly buffer record_block { uint record_count; uint instances;
                                                            uint first; uint base; uvec4 records[]; };
uniform uint capacity;
uniform int tile, columns;
uniform vec2 map_size;
uniform float levels;
flat out vec4 value;
void main() {
    uint k = uint(gl_VertexID);
    gl_PointSize = 1.0;
    if (k >= capacity) { gl_Position = vec4(2.0, 2.0, 2.0, 1.0); value = vec4(0.0); return; }
    uvec4 a = records[3u * k], b = records[3u * k + 1u], c = records[3u * k + 2u];
    int collider = int(a.y & 0xffffu);
    int ix = min(int(floor(uintBitsToFloat(c.x) * float(tile))), tile - 1);
    int iy = min(int(floor(uintBitsToFloat(c.y) * float(tile))), tile - 1);
    vec2 pixel = vec2((collider % columns) * tile + ix, (collider / columns) * tile + iy) + 0.5;
    gl_Position = vec4(pixel / map_size * 2.0 - 1.0, 0.0, 1.0);
    float tau = clamp(uintBitsToFloat(b.w), 0.0, 1.0);
    value = vec4(1.0, float(collider), floor(tau * levels + 0.5) / levels, uintBitsToFloat(c.z));
}
