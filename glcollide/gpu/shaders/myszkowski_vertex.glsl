// SPDX-License-Identifier: MIT
// myszkowski: the vertex shader (see myszkowski.c).
layout(std430, binding = 0) readonly buffer vertex_block { vec4 vertices[]; };
layout(std430, binding = 1) readonly buffer index_block { uint indices[]; };
uniform mat4 to_clip;
uniform uint first_index;
void main() {
    uint v = indices[first_index + uint(gl_VertexID)];
    gl_Position = to_clip * vec4(vertices[v].xyz, 1.0);
}
