/* SPDX-License-Identifier: MIT */
/*
 * Contacts between a triangle mesh and an analytic primitive (a plane's
 * half-space, a sphere, a capsule, a box, a cylinder: ODE's shapes), and rays
 * cast at a mesh. The mesh is used in its object space with its BVH: the
 * primitive is brought into the mesh's frame, so a rigid motion of the mesh
 * costs nothing and a query visits only the triangles near the primitive.
 * Contacts follow the contact-region model of glcollide_contacts_generate
 * (one normal per connected region of the overlap, a small manifold of
 * points spread over it, depths never more than the overlap along the
 * normal); glcollide/contacts/contacts_primitive.c tells how each primitive does it.
 * Thread-compatible: distinct scratches (glcollide_scratch) may be used
 * from distinct threads.
 */
/* The umbrella header first, outside the guard: it includes every public
 * header, this one too, in an order that puts each after those it needs,
 * whichever of them a program includes first. */
#include <glcollide/glcollide.h>

#ifndef GLCOLLIDE_PRIMITIVES_H
#define GLCOLLIDE_PRIMITIVES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum glcollide_primitive_kind {
    GLCOLLIDE_PRIMITIVE_PLANE = 0, /* the half-space below a plane */
    GLCOLLIDE_PRIMITIVE_SPHERE,
    GLCOLLIDE_PRIMITIVE_CAPSULE,
    GLCOLLIDE_PRIMITIVE_BOX,
    GLCOLLIDE_PRIMITIVE_CYLINDER
} glcollide_primitive_kind;

/* A primitive placed in the world, with ODE's parameters. */
typedef struct glcollide_primitive {
    glcollide_primitive_kind kind;
    /* box: side lengths along its x, y, z; sphere: radius; capsule and
     * cylinder: radius, then length along its z (a capsule's without its
     * caps). Positive and finite. */
    double size[3];
    /* plane: a normal and an offset, as dGeomPlaneGetParams gives them: the
     * solid is {x : n . x <= offset}; n is normalised here (not zero). */
    double plane[4];
    glcollide_pose pose; /* translation and unit rotation (not for planes) */
} glcollide_primitive;

/*
 * Contacts between the mesh (its object-space arrays, BVH and pose; closed
 * tells whether it is a solid, for a primitive wholly inside it) and the
 * primitive, in ODE's convention: A is the mesh, B the primitive; normals
 * point from the primitive toward the mesh (moving the mesh along a normal
 * by the contact's depth undoes that point's overlap); triangle_a is the
 * mesh triangle the point lies on (or, for a point of the primitive inside
 * the mesh, the triangle it leaves through), triangle_b is UINT32_MAX.
 *
 * Per connected region of the overlap, one normal and up to
 * points_per_region points (4 by default) spread over the region, the
 * deepest first; regions take turns when max_contacts is smaller than
 * regions x points_per_region, so the count never grows with max_contacts
 * beyond that. Touching counts (depth 0). Output deterministic, grouped by
 * region (region 0 the deepest), in world space; *count receives the number
 * written (0 on error).
 *
 * Errors (logged, nothing written): INVALID_ARGUMENT for NULL arguments
 * (contacts may be NULL when max_contacts is 0; scratch NULL: allocated and
 * freed within the call), a pose or size that is not finite, a size that is
 * not positive, a plane normal of zero length; OUT_OF_MEMORY. An empty mesh
 * gives no contacts and no error.
 */
GLCOLLIDE_API int glcollide_contacts_mesh_primitive(const glcollide_contact_solid *mesh,
                                                    const glcollide_primitive *primitive,
                                                    const glcollide_contact_options *options,
                                                    glcollide_contact *contacts,
                                                    size_t max_contacts, size_t *count,
                                                    glcollide_scratch *scratch);

/* ---------------------------------------------------------------- rays */

enum {
    GLCOLLIDE_RAY_CLOSEST = 1,       /* only the nearest hit */
    GLCOLLIDE_RAY_FIRST = 2,         /* stop at the first hit found (any; cheapest) */
    GLCOLLIDE_RAY_CULL_BACKFACES = 4 /* ignore triangles the ray meets from inside */
};

typedef struct glcollide_ray_hit {
    double distance;    /* along the ray, from its origin */
    double position[3]; /* world */
    double normal[3];   /* the triangle's unit outward normal, world */
    uint32_t triangle;
} glcollide_ray_hit;

/*
 * Hits of the ray origin + t * direction, 0 <= t <= length (direction of
 * unit length, world space) on the mesh's triangles (closed triangles, both
 * sides unless culled; triangles without area are never hit), nearest first,
 * at most max_hits (the nearest ones). Cost: the BVH boxes along the ray.
 * Errors (logged): INVALID_ARGUMENT for NULL arguments, a non-finite origin,
 * direction or pose, a direction not of unit length (within 1e-6), a
 * negative or NaN length.
 */
GLCOLLIDE_API int glcollide_ray_mesh(const glcollide_contact_solid *mesh, const double origin[3],
                                     const double direction[3], double length, unsigned flags,
                                     glcollide_ray_hit *hits, size_t max_hits, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* GLCOLLIDE_PRIMITIVES_H */
