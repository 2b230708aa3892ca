// SPDX-License-Identifier: MIT
// The culling passes' data (cull.c): meshes once on the GPU, poses per frame.
//
// A triangle of the query is named by its global id g: the objects taking
// part are numbered 0..object_count-1, object o owning the ids from
// first_global(o) on, one per triangle of its mesh. Its corners are placed
// here, in the query's frame (world minus the frame's origin, times its
// power-of-two scale): R v k + t, with v the mesh vertex relative to the
// mesh's centre and scaled by its own power of two, R the pose's rotation
// from its quaternion, k the ratio of the two scales and t the mesh
// centre's place in the frame (cull.c bounds the float error of all this).
// The first two words are the pose record of gpu_mesh.h, placed by
// place_pose (pose.glsl, which comes before this file).

struct object_record {
    vec4 rotation;    // quaternion x y z w
    vec4 translation; // xyz: t; w: k
    vec4 region_lo;   // xyz: the box its triangles must meet (frame);
                      // w: first global triangle id (bits)
    vec4 region_hi;   // xyz: ...; w: mesh slot (bits)
};

layout(std430, binding = 0) readonly buffer vertex_block { vec4 vertices[]; };
layout(std430, binding = 1) readonly buffer index_block { uint indices[]; };
layout(std430, binding = 2) readonly buffer object_block { object_record objects[]; };
layout(std430, binding = 3) readonly buffer mesh_block { uvec4 meshes[]; }; // first vertex, first index
layout(std430, binding = 7) coherent buffer control_block {
    uint bounds_lo[3]; // of the selected triangles, ordered float bits
    uint bounds_hi[3];
    uint selected;     // triangles selected for this view
    uint point_count;  // FAR: drawn as points
    uint quad_count;   // FAR: drawn as quads
    uint listed;       // final list
    uint rasterized;   // primitives drawn, all passes
    uint spare;
    vec4 view_min;     // u v w; w: radius
    vec4 view_size;
    vec4 pixel;
    uint commands[8];  // two DrawArraysIndirectCommand
    uint dispatch[4];  // a DispatchIndirectCommand over the selected triangles
    uint removed;      // triangles the views removed from the set, all rounds
    uint round_mark;   // removed when the last round began
    uint halted;       // a round removed none: the later ones draw nothing
};

uniform uint object_count;
uniform uint triangle_total;

uint first_global(uint o) { return floatBitsToUint(objects[o].region_lo.w); }

// The object owning global id g: the last one whose first id is <= g.
uint object_of(uint g)
{
    uint lo = 0u, hi = object_count - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) >> 1;
        if (first_global(mid) <= g)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}

vec3 place(object_record r, vec3 v)
{
    return place_pose(r.rotation, r.translation.xyz, r.translation.w, v);
}

// The corners of global triangle g in the frame, and its object.
uint triangle_corners(uint g, out vec3 p[3])
{
    uint o = object_of(g);
    object_record r = objects[o];
    uvec4 mesh = meshes[floatBitsToUint(r.region_hi.w)];
    uint first = mesh.y + 3u * (g - first_global(o));
    for (int k = 0; k < 3; k++)
        p[k] = place(r, vertices[mesh.x + indices[first + uint(k)]].xyz);
    return o;
}

// View coordinates (u, v, w) of axis: w along the axis.
vec3 to_view(int axis, vec3 p) { return axis == 0 ? p.yzx : axis == 1 ? p.zxy : p.xyz; }
