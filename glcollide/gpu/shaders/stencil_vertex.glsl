// SPDX-License-Identifier: MIT
// stencil: the vertex shader (see stencil.c), after pose.glsl.
//
// Every drawn object's primitives in one multi-draw per kind, one command
// per object (its base instance: the object, read from an instanced
// attribute); its mesh's vertices are placed by the object's pose record.
struct object_record {
    vec4 rotation;    // quaternion x y z w
    vec4 translation; // xyz: t; w: k
    uvec4 first;      // first triangle, edge, vertex; w: mesh (| CROSSING)
};
layout(std430, binding = 0) readonly buffer vertex_block { vec4 vertices[]; };
layout(std430, binding = 1) readonly buffer index_block { uint indices[]; };
layout(std430, binding = 2) readonly buffer object_block { object_record objects[]; };
layout(std430, binding = 4) readonly buffer mesh_block { uvec4 meshes[]; }; // first vertex, triangle index, edge index
layout(location = 0) in uint slot; // the drawn object (divisor 1: the base instance)
uniform uint edge_total; // sample ids: edges, then vertices
uniform int kind;        // 0 triangles, 1 edges (lines), 2 vertices (points)
uniform uint view;
uniform vec3 view_min[6];
uniform vec3 view_size[6];
flat out uint f_sample;
flat out uint f_object;
flat out vec2 f_depths; // the primitive's window depth range (lines: both ends)
vec3 placed(object_record r, uint v) {
    return place_pose(r.rotation, r.translation.xyz, r.translation.w, vertices[v].xyz);
}
vec3 to_view(vec3 p) {
    int axis = int(view % 3u);
    vec3 q = axis == 0 ? p.yzx : axis == 1 ? p.zxy : p.xyz;
    return view >= 3u ? vec3(-q.x, q.y, -q.z) : q; // a rotation: faces keep their side
}
void main() {
    uint stride = kind == 0 ? 3u : kind == 1 ? 2u : 1u;
    uint local = uint(gl_VertexID) / stride, corner = uint(gl_VertexID) % stride;
    uint lo = slot;
    object_record r = objects[lo];
    uint primitive = r.first[kind] + local;
    uvec4 mesh = meshes[r.first.w & ID_MASK];
    uint v = kind == 2 ? local
                       : indices[(kind == 0 ? mesh.y + 3u * local : mesh.z + 2u * local) + corner];
    f_sample = kind == 1 ? primitive : edge_total + primitive;
    f_object = kind == 0 ? lo | (r.first.w & CROSSING) : lo;
    vec3 p = to_view(placed(r, mesh.x + v));
    gl_Position = vec4(2.0 * (p - view_min[view]) / view_size[view] - 1.0, 1.0);
    // A line's fragment depth is its plane's at the pixel centre, which past
    // an end of a line nearly along the view axis lies beyond the edge by up
    // to half a pixel times its depth slope: samples keep to the edge's range.
    float depth = (p.z - view_min[view].z) / view_size[view].z, other = depth;
    if (kind == 1) {
        uint w = indices[mesh.z + 2u * local + (corner ^ 1u)];
        other = (to_view(placed(r, mesh.x + w)).z - view_min[view].z) / view_size[view].z;
    }
    f_depths = vec2(min(depth, other), max(depth, other));
    gl_PointSize = 1.0;
}
