// SPDX-License-Identifier: MIT
// stencil: the vertex shader (see stencil.c).
layout(std430, binding = 0) readonly buffer vertex_block { vec4 vertices[]; };
layout(std430, binding = 1) readonly buffer index_block { uint indices[]; };
layout(std430, binding = 2) readonly buffer object_block { uint objects[]; };
uniform int axis;
uniform int flip;
uniform vec3 view_min;
uniform vec3 view_size;
uniform int stride; // vertices per primitive: 1 points, 2 lines, 3 triangles
uniform uint first_index; // where the primitives' vertex indices start
uniform uint first_object; // where their objects start
uniform uint first_sample; // sample id of the first primitive
flat out uint f_sample;
flat out uint f_object;
vec3 to_view(vec3 p) {
    vec3 q = axis == 0 ? p.yzx : axis == 1 ? p.zxy : p.xyz;
    return flip != 0 ? vec3(-q.x, q.y, -q.z) : q; // a rotation: faces keep their side
}
void main() {
    uint primitive = uint(gl_VertexID) / uint(stride);
    uint v = stride == 1 ? uint(gl_VertexID) : indices[first_index + uint(gl_VertexID)];
    f_sample = first_sample + primitive;
    f_object = objects[first_object + primitive];
    vec3 p = to_view(vertices[v].xyz);
    gl_Position = vec4(2.0 * (p - view_min) / view_size - 1.0, 1.0);
    gl_PointSize = 1.0;
}
