/* SPDX-License-Identifier: MIT */
/*
 * Self-intersections of a triangle mesh: pairs of its triangles that share
 * a point other than through the vertices and edge they have in common.
 * The stencil method and the exact oracle take a closed mesh for the
 * boundary of a solid; a surface that passes through itself is no such
 * boundary (point containment by parity or by counting faces disagrees with
 * any solid), so it must be refused, not answered.
 *
 * Candidates are the pairs whose boxes overlap (BVH against itself); each
 * is decided with exact predicates, by how many vertex indices the two
 * triangles share:
 * - none: the closed triangles intersect (glcollide_tri_tri_overlap), which
 *   includes touching at a point and distinct vertices at one position;
 * - one vertex v: the two triangles meet beyond v iff the edge opposite v in
 *   one meets the other triangle. (Their intersection is convex and holds v;
 *   on a ray from v through another common point each triangle ends on its
 *   opposite edge, and the nearer end lies in both. The converse holds since
 *   no opposite edge holds v.) This covers the coplanar case: overlapping
 *   angular sectors, or edges folded onto each other;
 * - an edge uv: non-coplanar triangles meet exactly along uv (the common
 *   line of their planes); coplanar ones overlap beyond it iff their third
 *   vertices lie on the same side of uv (a fold of zero dihedral angle);
 * - all three: a repeated triangle, which overlaps itself everywhere.
 * Triangles of zero area (a repeated index, or exactly collinear vertices)
 * are left out: glcollide_mesh_validate counts them, and a closed solid has
 * none.
 */
#include "geometry/geometry_internal.h"
#include "geometry/predicates.h"

#include <stdlib.h>

typedef struct self_search {
    const double *positions;
    const uint32_t *triangles;
    const unsigned char *degenerate;
    size_t count;
    uint32_t first[2];
} self_search;

static const double *vertex(const self_search *s, uint32_t v)
{
    return s->positions + 3 * (size_t)v;
}

/*
 * Does segment pq meet the closed triangle t? Neighbouring triangles are
 * tested here by the million, so the general case avoids the degenerate
 * triangle pqq of glcollide_tri_tri_overlap, whose zero orientations defeat
 * the predicates' fast filter: p and q strictly on one side of t's plane
 * miss it; otherwise pq meets the plane at one point, inside t iff pq turns
 * the same way (or not at all) around t's three edges. Coplanar: the full
 * test.
 */
static int segment_meets(const self_search *s, uint32_t p, uint32_t q, const uint32_t *t)
{
    const double *pp = vertex(s, p), *pq = vertex(s, q);
    const double *t0 = vertex(s, t[0]), *t1 = vertex(s, t[1]), *t2 = vertex(s, t[2]);
    int side_p = glcollide_orient3d(t0, t1, t2, pp), side_q = glcollide_orient3d(t0, t1, t2, pq);
    if (side_p * side_q > 0)
        return 0;
    if (side_p == 0 && side_q == 0)
        return glcollide_tri_tri_overlap(pp, pq, pq, t0, t1, t2);
    int o0 = glcollide_orient3d(pp, pq, t0, t1), o1 = glcollide_orient3d(pp, pq, t1, t2);
    if (o0 * o1 < 0)
        return 0;
    int o2 = glcollide_orient3d(pp, pq, t2, t0);
    return o0 * o2 >= 0 && o1 * o2 >= 0;
}

static int pair_intersects(const self_search *s, const uint32_t *a, const uint32_t *b)
{
    int shared = 0, a_shared[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (a[i] == b[j]) {
                a_shared[i] = j;
                shared++;
            }
    if (shared == 0)
        return glcollide_tri_tri_overlap(vertex(s, a[0]), vertex(s, a[1]), vertex(s, a[2]),
                                         vertex(s, b[0]), vertex(s, b[1]), vertex(s, b[2]));
    if (shared == 3)
        return 1;
    if (shared == 1) {
        int ia = a_shared[0] >= 0 ? 0 : a_shared[1] >= 0 ? 1 : 2;
        int ib = a_shared[ia];
        return segment_meets(s, a[(ia + 1) % 3], a[(ia + 2) % 3], b) ||
               segment_meets(s, b[(ib + 1) % 3], b[(ib + 2) % 3], a);
    }
    /* An edge: the vertex of a not shared is a[k], that of b is b[m]. */
    int k = a_shared[0] < 0 ? 0 : a_shared[1] < 0 ? 1 : 2;
    int m = 3 - a_shared[(k + 1) % 3] - a_shared[(k + 2) % 3];
    const double *u = vertex(s, a[(k + 1) % 3]), *v = vertex(s, a[(k + 2) % 3]);
    const double *pa = vertex(s, a[k]), *pb = vertex(s, b[m]);
    if (glcollide_orient3d(u, v, pa, pb) != 0)
        return 0;
    /* Coplanar: dropping an axis along which the plane's normal is non-zero
     * keeps orientations within the plane exact. */
    int drop = glcollide_triangle_drop_axis(u, v, pa);
    return glcollide_orient2d_dropping(u, v, pa, drop) == glcollide_orient2d_dropping(u, v, pb, drop);
}

static int visit_pair(uint32_t ta, uint32_t tb, void *user)
{
    self_search *s = user;
    if (ta >= tb || s->degenerate[ta] || s->degenerate[tb])
        return 0; /* each unordered pair once: the BVH against itself gives both orders */
    if (!pair_intersects(s, s->triangles + 3 * (size_t)ta, s->triangles + 3 * (size_t)tb))
        return 0;
    if (s->count == 0 || ta < s->first[0] || (ta == s->first[0] && tb < s->first[1])) {
        s->first[0] = ta;
        s->first[1] = tb;
    }
    s->count++;
    return 0;
}

int glcollide_mesh_self_intersections(const glcollide_mesh *mesh, size_t *count, uint32_t first[2])
{
    if (count)
        *count = 0;
    if (!mesh || !count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "self-intersections: %s is NULL", mesh ? "count" : "mesh");
    size_t n = mesh->triangle_count;
    if (n > UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "self-intersections: %s: %zu triangles",
                              mesh->name ? mesh->name : "mesh", n);
    unsigned char *degenerate = calloc(n ? n : 1, 1);
    if (!degenerate)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "self-intersections: out of memory");
    self_search s = {mesh->positions, mesh->triangles, degenerate, 0, {0, 0}};
    for (size_t t = 0; t < n; t++) {
        const uint32_t *v = mesh->triangles + 3 * t;
        if (v[0] >= mesh->vertex_count || v[1] >= mesh->vertex_count || v[2] >= mesh->vertex_count) {
            free(degenerate);
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "self-intersections: %s: triangle %zu has a vertex index out of "
                                  "range",
                                  mesh->name ? mesh->name : "mesh", t);
        }
        degenerate[t] = v[0] == v[1] || v[1] == v[2] || v[0] == v[2] ||
                        glcollide_triangle_drop_axis(vertex(&s, v[0]), vertex(&s, v[1]),
                                                     vertex(&s, v[2])) < 0;
    }
    glcollide_bvh *bvh = NULL;
    int status = glcollide_bvh_build(mesh->positions, mesh->vertex_count, mesh->triangles, n, &bvh);
    if (status == GLCOLLIDE_OK) {
        glcollide_bvh_overlap(bvh, bvh, 0.0, visit_pair, &s);
        *count = s.count;
        if (first && s.count) {
            first[0] = s.first[0];
            first[1] = s.first[1];
        }
    }
    glcollide_bvh_destroy(&bvh);
    free(degenerate);
    return status;
}
