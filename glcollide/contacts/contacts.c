/* SPDX-License-Identifier: MIT */
/*
 * Contacts between two triangle meshes for rigid-body solvers (ODE's
 * dContactGeom), made per contact region: a connected part of the two
 * solids' overlap (or of their touching set) gets one normal, one depth
 * scale and a small manifold of points spread over it.
 *
 * Why regions: one triangle pair at a time, the side faces of two resting
 * boxes give sideways normals and depths as large as a face; a solver fed
 * such contacts launches the top box. A region's normal must undo the
 * region's overlap as a whole.
 *
 * 1. Elements. Each candidate pair (a of A, b of B) is decided exactly (the
 *    triangle test on prepared planes, each candidate triangle prepared
 *    once). A pair where each triangle enters the other solid (has a vertex
 *    strictly behind the other's plane) along a segment that is not an edge
 *    of both gives a segment of the intersection curve, oriented along
 *    n_a x n_b: that leaves the part of a inside B on its left, so the
 *    segments of a region form the boundary curve of A's surface patch
 *    inside B. Other meeting pairs touch: an edge or vertex of one on the
 *    other's face (touch normal: the face's), edges meeting edges (no
 *    normal of their own: the corners of flush faces would point
 *    sideways), faces back to back (their overlap polygon and area F).
 *    Coplanar faces turned the same way (flush sides) give nothing.
 * 2. Facets: a segment lies on the face the other triangle enters less
 *    deeply within the face's prism (B's unless A's is clearly thinner), as
 *    a separating-axis test picks a reference face, when that depth is at
 *    most a quarter of the segment's length and the faces are not turned
 *    the same way; a touch lies on its touched face. Weighted by length.
 * 3. Regions: elements sharing a point (within 1e-7 of the contact set's
 *    size; union-find over a hash grid of their points) are connected when
 *    their facets agree (45 degrees, or one of them negligible); sets kept
 *    apart are merged afterwards where their normals agree within 60
 *    degrees (a box on a box is one region, a box in a corner two).
 * 4. Normal: the overlap volume's gradient with respect to translating A is
 *    minus the vector area of A's patch inside B, which depends only on the
 *    boundary curve: V = 1/2 sum (p - c) x (q - c) over the region's
 *    segments. For a box sunk into a box the side strips cancel and V is
 *    vertical, whatever the tessellation. With faces touching back to back
 *    the area F - V, from B toward A (ODE's convention: moving A along it
 *    separates the pair). Used when the curve is closed and agrees with the
 *    facets' sum; else the facets' sum (where they disagree the faces near
 *    both compete below); else the sum of n_b - n_a (edges on edges); else
 *    the offset of the triangles' centroids. Then the candidate face normals
 *    within 20 degrees (any direction after a fallback) compete: the one
 *    along which the overlap is thinnest is the normal. Flush boxes overlap
 *    in a slab whose strips tilt V by about depth / size; the face normal
 *    has no such tilt.
 * 5. Depth: the width W of the overlap along the normal, from points known
 *    to lie in both solids: the curve's points, and the vertices of the
 *    crossing triangles behind or on every partner's plane (exact; where B
 *    is concave near a this can only leave vertices out), so no contact
 *    reports more depth than the solids overlap along its normal. A
 *    vertex's depth is how far it travels along the normal to leave through
 *    a partner's plane; a curve point's, the thickness the two faces it
 *    lies on let a line run inside both solids along the normal through it
 *    (a flush slab's rim: the slab's thickness; a tilted face's crossing
 *    line, or a sphere's rim: 0); each clamped to [0, W].
 * 6. Manifold (manifold.c): points_per_region (default 4) points per
 *    region: the deepest (within 10% of W; among those, the farthest from
 *    the centre), the farthest from it, the largest triangle, the largest
 *    added area, then farthest-point sampling; ties by keys (vertices
 *    before curve points, then triangle and corner indices), so a resting
 *    pair keeps the same contacts step after step. With fewer slots than
 *    regions times points, regions take turns (deeper, then larger, first),
 *    one point a turn; output grouped by region. The count never grows with
 *    the caller's buffer beyond regions times points_per_region: in ODE's
 *    default friction model mu bounds each contact's friction force, so
 *    more contacts would mean more friction.
 *
 * The result does not depend on the order of candidates (elements are
 * sorted by their triangle pair; every tie is broken by keys). Scratch
 * memory lives in a glcollide_contact_scratch and only grows.
 *
 * A closed mesh inside another with no surface crossing has no curve:
 * glcollide_contacts_containment (at the end) pushes it out.
 */
#include "contacts/contacts_internal.h"
#include "contacts/manifold.h"
#include "geometry/geometry_internal.h"
#include "geometry/predicates.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_POLYGON = 9, MAX_DIRECTIONS = 16 };
enum { ELEMENT_SEGMENT = 0, ELEMENT_TOUCH = 1 };
/* Vertices sort before curve points: where both stand at one corner, the
 * mesh's own corner is the one reported, step after step. */
enum { SOURCE_VERTEX_A = 0, SOURCE_VERTEX_B = 1, SOURCE_CURVE = 2 };

/* Faces closer to antiparallel than this (|n_a x n_b|) count as facing:
 * their overlap area feeds the normal (rounding-level tilts only). */
static const double facing_sine = 1e-6;
/* Points within this fraction of the contact set's size are one point. */
static const double connect_tolerance = 1e-7;
/* Face normals closer than this cosine (20 degrees) to a region's vector
 * area are candidates for its normal. */
static const double direction_cone = 0.9396926207859084;

/* One candidate pair that meets: a segment of the curve or a touch. */
typedef struct element {
    uint32_t a, b;
    uint32_t kind;
    uint32_t first_point, point_count;
    double facing[3];                /* n_b * overlap area, for faces touching back to back */
    double touch[3];                 /* a touch's normal: the face touched, from B toward A */
    double hint[3];                  /* n_b - n_a, for regions without area or face touches */
    double offset[3];                /* centroid of a - centroid of b, the last resort */
    double normal_a[3], normal_b[3]; /* unit face normals (0 for a triangle without area) */
    double facet[3];  /* the face the pair lies on, times its length; 0: no facet (edges) */
    double facets[3]; /* union-find roots: the sum of their set's facets */
} element;

/* A point a contact can be made at. */
typedef struct contact_point {
    double position[3];
    double depth;
    uint32_t first_partner, partner_count; /* vertices: the other mesh's triangles meeting theirs */
    uint32_t element; /* curve points: owner; vertices: an element of their triangle */
    uint32_t source;
    uint32_t index; /* end / polygon corner, or vertex index */
    uint32_t open; /* a segment's end that no other element shares */
} contact_point;

typedef struct region {
    double centroid[3];
    uint32_t curve_points;
    uint32_t open_points; /* the curve is closed when 0 */
    double facets[3];     /* sum of its elements' facets */
    double area[3];       /* F - V */
    double hint[3];
    double offset[3];
    double sum[3];      /* of its curve points (centroid: sum / curve_points) */
    double segments[3]; /* of its segments' q - p (merge_sums moves the area's centre) */
    uint32_t members;   /* merge_sums: the regions it joins */
    double normal[3];
    double top, bottom, width;
    double lo[3], hi[3];
    uint32_t first, count; /* its candidate points, after bucketing */
    uint32_t kept;
    uint32_t first_element; /* smallest element index: the region's key */
    uint32_t direction_count;
    uint32_t guessed; /* the normal is a fallback: face normals are tried in every direction */
    /* The closed curve's vector area, unit, where the facets' normal was
     * taken instead (they disagree): its cone of faces is tried too. */
    double second[3];
    uint32_t has_second;
    double closeness[MAX_DIRECTIONS]; /* each candidate direction's closeness_to_normal */
} region;

enum { CELL_SLOTS = 4 };
/* A cell of the connection grid: the first element of each region (that
 * could not join the others) seen there. A slot holds a cell of this call
 * where its tag is set (the grid itself is not cleared between calls). */
typedef struct grid_cell {
    int64_t cell[3];
    uint32_t element[CELL_SLOTS];
    uint32_t first; /* the element of the cell's first point */
    uint32_t mixed; /* points of more than one element fell here */
} grid_cell;

/* A point's place in the connection grid: its coordinates over the cell
 * side, its cell and the slot of that cell. */
typedef struct point_cell {
    double scaled[3];
    int64_t cell[3]; /* floor(scaled) */
    size_t slot;
    uint32_t near[8]; /* the slots of the cells near it that hold points, in join order */
    uint32_t near_count;
    uint8_t tag; /* its cell's (cell_tag) */
} point_cell;

/* What the pairs of a call need of each of their triangles, computed once
 * per triangle: a candidate triangle typically meets several others. Most
 * candidates do not meet: the plane is made for every candidate triangle,
 * the rest only for a triangle of a pair that meets (info_shape; on the
 * threads, shaped_info). */
enum { SHAPE_NONE, SHAPE_BUSY, SHAPE_DONE };

typedef struct triangle_info {
    glcollide_plane_filter plane; /* holds the triangle's corners */
    atomic_int shaped;            /* the fields below: SHAPE_NONE, SHAPE_BUSY, SHAPE_DONE */
    int has_normal;
    double normal[3];         /* unit, outward; 0 without area */
    double max_edge, max_abs; /* largest edge component and coordinate */
    double prism[3][3];       /* normal x edge i: inward normals of the prism's sides */
} triangle_info;

/* A candidate pair's exact test: how it meets (0: not), the segment and
 * the sides of each triangle's corners (glcollide_tri_tri_intersection_planes). */
typedef struct meeting {
    uint32_t ta, tb;
    int kind;
    int side_a[3], side_b[3];
    double seg[2][3];
} meeting;

/* The box of a set of points, and their largest coordinate magnitude. */
typedef struct point_box {
    double lo[3], hi[3], max_abs;
} point_box;

/* A sort key with its payload. */
typedef struct keyed {
    uint64_t key;
    uint32_t index, pad;
} keyed;

/* Elements and their points as one task makes them (point owners and
 * first points are the chunk's own until merged). */
typedef struct element_chunk {
    element *elements;
    keyed *keys; /* each element's pair, its place here and its point count */
    size_t count, capacity, key_capacity;
    contact_point *points;
    size_t point_count, point_capacity;
    int status;
    size_t first;  /* its first element's place among all the chunks' */
    point_box box; /* of its points kept (sort_elements) */
} element_chunk;

/* A side's triangle some of whose corners may be inside the other mesh
 * (inside_side), and the side's part of that search. */
typedef struct inside_group {
    uint32_t first, end; /* its elements' keys */
    uint32_t behind;     /* bit c: corner c lies behind every partner's plane */
} inside_group;

typedef struct inside_part {
    keyed *keys, *keys_tmp; /* the elements by this side's triangle, then the other's */
    inside_group *groups;   /* the triangles with a corner behind all their partners */
    size_t group_count;
} inside_part;

/* A side's inside vertices and their partner lists (inside_vertices). */
typedef struct vertex_list {
    contact_point *points;
    size_t count, capacity;
    uint32_t *partners;
    size_t partner_count, partner_capacity;
} vertex_list;

struct glcollide_contact_scratch {
    element *elements, *elements_tmp;
    size_t element_capacity, element_tmp_capacity;
    contact_point *points, *bucketed;
    size_t point_capacity, bucketed_capacity;
    keyed *keys, *keys_tmp;
    size_t key_capacity, key_tmp_capacity;
    region *regions;
    size_t region_capacity;
    region *region_parts; /* per part, per region: its sums there (region_sums), or the
                           * regions before they were joined (merge_regions) */
    size_t region_part_capacity;
    uint32_t *bucket_next; /* per part of the points, per region (bucket_points) */
    size_t bucket_next_capacity;
    grid_cell *grid;
    size_t grid_capacity;
    uint8_t *grid_tags; /* per slot: 0 empty this call, else its cell's tag */
    size_t grid_tag_capacity;
    size_t grid_mask;        /* this call's slots - 1 */
    point_cell *point_cells; /* per point: its place in the grid */
    size_t point_cell_capacity;
    uint32_t *parent; /* per element: the union-find's (connect_elements to number_regions) */
    size_t parent_capacity;
    uint32_t *region_of; /* per element: its region's index (number_regions on) */
    size_t region_of_capacity;
    uint32_t *joining; /* the points whose nearby cells hold another set (a run a task) */
    size_t joining_capacity;
    uint32_t *joining_count; /* per task: its points in joining */
    size_t joining_count_capacity;
    uint32_t *order; /* regions by importance */
    size_t order_capacity;
    uint32_t *partners; /* partner lists of inside vertices */
    size_t partner_capacity;
    vertex_list inside_b; /* B's inside vertices while A's are found */
    double *directions; /* MAX_DIRECTIONS candidate normals per region */
    size_t direction_capacity;
    glcollide_index_pair *refused; /* element pairs kept apart for their facets */
    size_t refused_count, refused_capacity;
    glcollide_manifold_point *manifold; /* the points during selection, a part a region */
    size_t manifold_capacity;
    uint32_t *picks; /* a region's kept points in rank order: picks[first + k - 1], rank k */
    size_t pick_capacity;
    uint32_t *slot[2]; /* per mesh triangle index: its entry in info[side] */
    uint32_t used[2];  /* the entries of info[side] this call */
    size_t slot_capacity[2];
    triangle_info *info[2];
    size_t info_capacity[2];
    element_chunk *chunks; /* the element tasks' outputs */
    size_t chunk_capacity;
    inside_part inside[2]; /* their arrays parts of the two below */
    keyed *inside_keys;    /* each side's keys and keys_tmp */
    size_t inside_key_capacity;
    inside_group *inside_groups; /* each side's groups */
    size_t inside_group_capacity;
};

int glcollide_contact_scratch_create(glcollide_contact_scratch **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "contacts: scratch out is NULL");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "contacts: out of memory for scratch");
    return GLCOLLIDE_OK;
}

static void scratch_release(glcollide_contact_scratch *s)
{
    for (size_t k = 0; k < s->chunk_capacity; k++) {
        free(s->chunks[k].elements);
        free(s->chunks[k].keys);
        free(s->chunks[k].points);
    }
    free(s->chunks);
    free(s->elements);
    free(s->elements_tmp);
    free(s->points);
    free(s->bucketed);
    free(s->keys);
    free(s->keys_tmp);
    free(s->regions);
    free(s->bucket_next);
    free(s->grid);
    free(s->grid_tags);
    free(s->point_cells);
    free(s->parent);
    free(s->region_of);
    free(s->joining);
    free(s->joining_count);
    free(s->order);
    free(s->partners);
    free(s->inside_b.points);
    free(s->inside_b.partners);
    free(s->directions);
    free(s->refused);
    free(s->manifold);
    free(s->region_parts);
    free(s->picks);
    for (int side = 0; side < 2; side++) {
        free(s->slot[side]);
        free(s->info[side]);
    }
    free(s->inside_keys);
    free(s->inside_groups);
    memset(s, 0, sizeof *s);
}

void glcollide_contact_scratch_destroy(glcollide_contact_scratch **scratch)
{
    if (!scratch || !*scratch)
        return;
    scratch_release(*scratch);
    free(*scratch);
    *scratch = NULL;
}

glcollide_contact_options glcollide_contact_default_options(void)
{
    glcollide_contact_options options = {0};
    options.points_per_region = 4;
    return options;
}

/* ---------------------------------------------------------------- small geometry */

static double length3(const double v[3])
{
    return sqrt(glcollide_vec3_dot(v, v));
}

static double distance2(const double p[3], const double q[3])
{
    double d[3];
    glcollide_vec3_sub(d, p, q);
    return glcollide_vec3_dot(d, d);
}

/* Unit normal of triangle t (counter-clockwise = outward); 0 if it has no area. */
static int unit_normal(const double *const t[3], double n[3])
{
    double e1[3], e2[3];
    glcollide_vec3_sub(e1, t[1], t[0]);
    glcollide_vec3_sub(e2, t[2], t[0]);
    glcollide_vec3_cross(n, e1, e2);
    double len = length3(n);
    if (!(len > 0.0) || !isfinite(len))
        return 0;
    for (int k = 0; k < 3; k++)
        n[k] /= len;
    return 1;
}

/* Does segment pq lie on one edge line of triangle t (within tol)? */
static int on_boundary(const double *const t[3], int has_normal, const double p[3],
                       const double q[3], double tol)
{
    if (!has_normal)
        return 1; /* a triangle without area is all boundary */
    for (int i = 0; i < 3; i++) {
        const double *u = t[i], *v = t[(i + 1) % 3];
        double e[3], up[3], uq[3], c[3];
        glcollide_vec3_sub(e, v, u);
        double len = length3(e);
        if (!(len > 0.0))
            continue;
        glcollide_vec3_sub(up, p, u);
        glcollide_vec3_sub(uq, q, u);
        glcollide_vec3_cross(c, e, up);
        if (length3(c) > tol * len)
            continue;
        glcollide_vec3_cross(c, e, uq);
        if (length3(c) <= tol * len)
            return 1;
    }
    return 0;
}

/* The part of poly[0..n) where dot(m, p - origin) >= 0 (Sutherland-Hodgman),
 * into out; returns its corner count, or -1 when poly is kept whole
 * (nothing written: poly is the answer). */
static int clip_half_space(const double (*poly)[3], int n, const double m[3],
                           const double origin[3], double (*out)[3])
{
    double side[MAX_POLYGON];
    int inside = 0;
    for (int i = 0; i < n; i++) {
        double d[3];
        glcollide_vec3_sub(d, poly[i], origin);
        side[i] = glcollide_vec3_dot(m, d);
        inside += side[i] >= 0.0;
    }
    if (inside == n) /* kept whole (mostly) */
        return -1;
    if (inside == 0) /* cut away */
        return 0;
    /* Corners and crossings are written always and counted when they are
     * kept: which sides the corners lie on follows no pattern a branch
     * predictor learns. */
    int count = 0;
    for (int i = 0; i < n && count + 2 <= MAX_POLYGON; i++) {
        int j = i + 1 < n ? i + 1 : 0;
        int in_i = side[i] >= 0.0, in_j = side[j] >= 0.0;
        memcpy(out[count], poly[i], sizeof out[0]);
        count += in_i;
        double s = side[i] / (side[i] - side[j]); /* used only where the edge crosses */
        for (int k = 0; k < 3; k++)
            out[count][k] = poly[i][k] + s * (poly[j][k] - poly[i][k]);
        count += in_i != in_j;
    }
    return count;
}

/* Triangle t clipped to the infinite prism over face (its corners and the
 * inward normals of the prism's sides), into poly; returns the corner
 * count. Each cut writes into the other of two buffers, so that a corner
 * is copied once per cut that moves it, not once more to come back. */
static int clip_to_prism(const double *const t[3], const double *const face[3],
                         const double prism[3][3], double poly[MAX_POLYGON][3])
{
    double spare[MAX_POLYGON][3];
    double(*from)[3] = poly, (*to)[3] = spare;
    for (int i = 0; i < 3; i++)
        memcpy(poly[i], t[i], sizeof poly[i]);
    int count = 3;
    for (int i = 0; i < 3 && count > 0; i++) {
        int cut = clip_half_space((const double(*)[3])from, count, prism[i], face[i], to);
        if (cut < 0)
            continue;
        double(*swap)[3] = from;
        from = to;
        to = swap;
        count = cut;
    }
    if (from != poly)
        memcpy(poly, from, (size_t)count * sizeof poly[0]);
    return count;
}

/* The part of a over face b (a clipped to the prism over b), projected onto
 * b's plane; returns the corner count and the polygon's area. */
static int overlap_polygon(const double *const a[3], const double *const b[3], const double n_b[3],
                           const double prism_b[3][3], double poly[MAX_POLYGON][3], double *area)
{
    int count = clip_to_prism(a, b, prism_b, poly);
    double plane = glcollide_vec3_dot(n_b, b[0]), sum[3];
    for (int i = 0; i < count; i++) {
        double off = glcollide_vec3_dot(n_b, poly[i]) - plane;
        for (int k = 0; k < 3; k++)
            poly[i][k] -= off * n_b[k];
    }
    glcollide_polygon_vector_area(poly, count, sum);
    *area = fabs(glcollide_vec3_dot(sum, n_b));
    return count;
}

/* Below this |cos| between two faces, the prism over one meets the other's
 * plane too far out for the closed form in local_depth to be worth it. */
static const double pierce_cosine = 1e-3;

/* How far triangle other dips below the plane of face within the prism
 * over face, where the prism's three edges (face's corners moved along
 * its normal) pierce other's plane inside other: the part of other in the
 * prism is then the triangle of the three piercings, and its depth is
 * theirs (in *depth). 0 where one falls outside other, or where the
 * planes are too near perpendicular for the piercings to be worth it. */
static int pierced_depth(const triangle_info *face, const triangle_info *other, double *depth)
{
    const double *const *f = face->plane.t, *const *o = other->plane.t;
    const double *n = face->normal, *m = other->normal;
    double cosine = glcollide_vec3_dot(n, m);
    if (!(fabs(cosine) >= pierce_cosine))
        return 0;
    double plane = glcollide_vec3_dot(n, f[0]), plane_o = glcollide_vec3_dot(m, o[0]);
    *depth = 0.0;
    for (int i = 0; i < 3; i++) {
        double t = (plane_o - glcollide_vec3_dot(m, f[i])) / cosine, p[3];
        for (int k = 0; k < 3; k++)
            p[k] = f[i][k] + t * n[k];
        for (int j = 0; j < 3; j++) {
            double d[3];
            glcollide_vec3_sub(d, p, o[j]);
            if (glcollide_vec3_dot(other->prism[j], d) < 0.0)
                return 0;
        }
        *depth = glcollide_larger(*depth, plane - glcollide_vec3_dot(n, p));
    }
    return 1;
}

/* How far triangle other dips below the plane of face within the prism
 * over face (other clipped to face's side planes); both have normals. A
 * face at most a quarter of other's size (a detailed mesh on a large slab's
 * triangle) mostly lies all over other: its piercings are tried first,
 * three points against the clipping's three cuts. The two ways agree but
 * for rounding, and which is taken depends on the two triangles alone. */
static inline __attribute__((always_inline)) double local_depth(const triangle_info *face,
                                                                const triangle_info *other)
{
    double pierced;
    if (4.0 * face->max_edge <= other->max_edge && pierced_depth(face, other, &pierced))
        return pierced;
    const double *const *f = face->plane.t, *n = face->normal;
    double poly[MAX_POLYGON][3];
    int count = clip_to_prism(other->plane.t, f, face->prism, poly);
    double plane = glcollide_vec3_dot(n, f[0]), depth = 0.0;
    for (int i = 0; i < count; i++)
        depth = glcollide_larger(depth, plane - glcollide_vec3_dot(n, poly[i]));
    return depth;
}

/* ---------------------------------------------------------------- scratch arrays */

static int reserve(void **array, size_t *capacity, size_t count, size_t size)
{
    return glcollide_array_reserve(array, capacity, count, size, "contacts");
}

/* LSD radix sort of keyed items by key (8 passes of 8 bits, skipping
 * passes where every key has the same byte), between items and tmp;
 * returns the one that holds the sorted items. */
static keyed *radix_passes(keyed *items, keyed *tmp, size_t n)
{
    uint64_t all_or = 0, all_and = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        all_or |= items[i].key;
        all_and &= items[i].key;
    }
    keyed *from = items, *to = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        if ((((all_or ^ all_and) >> shift) & 0xff) == 0)
            continue;
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(from[i].key >> shift) & 0xff]++;
        glcollide_counts_to_offsets(count, 256);
        for (size_t i = 0; i < n; i++)
            to[count[(from[i].key >> shift) & 0xff]++] = from[i];
        keyed *t = from;
        from = to;
        to = t;
    }
    return from;
}

/* Merge sort of keyed items by key (runs of RUN sorted by insertion, then
 * merged pairwise, a side taken from the left on equal keys), between
 * items and tmp; returns the one that holds the sorted items. */
static keyed *merge_passes(keyed *items, keyed *tmp, size_t n)
{
    enum { RUN = 16 };
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t end = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < end; i++) {
            keyed item = items[i];
            size_t j = i;
            for (; j > lo && items[j - 1].key > item.key; j--)
                items[j] = items[j - 1];
            items[j] = item;
        }
    }
    keyed *from = items, *to = tmp;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = from[j].key < from[i].key ? from[j++] : from[i++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        keyed *t = from;
        from = to;
        to = t;
    }
    return from;
}

/* Keyed items sorted by key, stably (tmp: room for n): a merge sort where
 * the radix sort's fixed cost per pass (256 counters, cleared and summed)
 * would outweigh the items. Both give the same order. */
static void radix_sort(keyed *items, keyed *tmp, size_t n)
{
    keyed *sorted = n < 512 ? merge_passes(items, tmp, n) : radix_passes(items, tmp, n);
    if (sorted != items)
        memcpy(items, sorted, n * sizeof *items);
}

/* ---------------------------------------------------------------- elements */

/* Candidates a thread's task in the exact tests; below twice this many, the
 * stages made of one task per side (the triangles' planes, their shapes,
 * the vertices inside) run on the calling thread alone. */
enum { TESTS_PER_TASK = 256, SIDES_IN_PARALLEL = 2 * TESTS_PER_TASK };
/* The parts the points are counted and bucketed by region in (tasks). */
enum { POINT_PARTS = 4 };
/* Points from which the regions' normals, depths and manifolds are shared
 * among the threads, a region a task. */
enum { REGIONS_IN_PARALLEL = 512 };

/* The end of task's items, per_task a task, count in all. */
static inline size_t task_end(size_t task, size_t per_task, size_t count)
{
    size_t end = (task + 1) * per_task;
    return end < count ? end : count;
}

typedef struct input {
    const double *positions_a, *positions_b;
    const uint32_t *triangles_a, *triangles_b;
} input;

static void triangle_of(const double *positions, const uint32_t *triangles, uint32_t t,
                        const double *out[3])
{
    const uint32_t *v = triangles + 3 * (size_t)t;
    for (int i = 0; i < 3; i++)
        out[i] = positions + 3 * (size_t)v[i];
}

/* Appends a point (none for a non-finite one) to points (count of them,
 * room for capacity). */
static int push_point(contact_point **points, size_t *capacity, size_t *count, const double p[3],
                      uint32_t owner, uint32_t source, uint32_t index)
{
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        return GLCOLLIDE_OK;
    if (reserve((void **)points, capacity, *count + 1, sizeof **points))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    contact_point *c = &(*points)[(*count)++];
    memset(c, 0, sizeof *c);
    memcpy(c->position, p, sizeof c->position);
    c->element = owner;
    c->source = source;
    c->index = index;
    return GLCOLLIDE_OK;
}

typedef struct prepare_job {
    glcollide_contact_scratch *s;
    const input *in;
    const glcollide_index_pair *candidates;
    size_t count;
    double lo[2][3], hi[2][3]; /* the box of each side's candidate triangles */
    double extent;             /* the largest side of both sides' box */
    int status[2];
} prepare_job;

/* One side's part of prepare_triangles (the side a constant where it is
 * inlined: see prepare_side). */
static inline void prepare_one(prepare_job *job, int side)
{
    glcollide_contact_scratch *s = job->s;
    const glcollide_index_pair *candidates = job->candidates;
    size_t candidate_count = job->count;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    uint32_t largest = 0;
    for (size_t i = 0; i < candidate_count; i++) {
        uint32_t t = side ? candidates[i].b : candidates[i].a;
        largest = t > largest ? t : largest;
    }
    if (reserve((void **)&s->slot[side], &s->slot_capacity[side], (size_t)largest + 1,
                sizeof *s->slot[side])) {
        job->status[side] = GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        return;
    }
    uint32_t *slot = s->slot[side];
    for (size_t i = 0; i < candidate_count; i++)
        slot[side ? candidates[i].b : candidates[i].a] = UINT32_MAX;
    /* Room for each distinct triangle's info (a triangle is typically in
     * several candidates: sized to the candidates, the infos would be
     * several times larger than they need). */
    size_t distinct = 0;
    for (size_t i = 0; i < candidate_count; i++) {
        uint32_t t = side ? candidates[i].b : candidates[i].a;
        distinct += slot[t] == UINT32_MAX;
        slot[t] = 0;
    }
    for (size_t i = 0; i < candidate_count; i++)
        slot[side ? candidates[i].b : candidates[i].a] = UINT32_MAX;
    if (reserve((void **)&s->info[side], &s->info_capacity[side], distinct,
                sizeof *s->info[side])) {
        job->status[side] = GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        return;
    }
    const double *positions = side ? job->in->positions_b : job->in->positions_a;
    const uint32_t *triangles = side ? job->in->triangles_b : job->in->triangles_a;
    uint32_t used = 0;
    for (size_t i = 0; i < candidate_count; i++) {
        uint32_t t = side ? candidates[i].b : candidates[i].a;
        if (slot[t] != UINT32_MAX)
            continue;
        slot[t] = used;
        triangle_info *info = &s->info[side][used++];
        const double *c[3];
        triangle_of(positions, triangles, t, c);
        glcollide_plane_filter_init(&info->plane, c[0], c[1], c[2]);
        atomic_store_explicit(&info->shaped, SHAPE_NONE, memory_order_relaxed);
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                lo[k] = glcollide_smaller(lo[k], c[j][k]);
                hi[k] = glcollide_larger(hi[k], c[j][k]);
            }
    }
    s->used[side] = used;
    memcpy(job->lo[side], lo, sizeof lo); /* here, not in the loop: the sides' boxes share a line */
    memcpy(job->hi[side], hi, sizeof hi);
    job->status[side] = GLCOLLIDE_OK;
}

/* A task: the sides touch none of each other's arrays. */
static void prepare_side(void *user, size_t side, int worker)
{
    (void)worker;
    if (side)
        prepare_one(user, 1);
    else
        prepare_one(user, 0);
}

/* A side's planes told the extent of the points they will be asked about
 * (a task). */
static void extent_side(void *user, size_t side, int worker)
{
    (void)worker;
    const prepare_job *job = user;
    triangle_info *info = job->s->info[side];
    for (uint32_t i = 0; i < job->s->used[side]; i++)
        glcollide_plane_filter_set_extent(&info[i].plane, job->extent);
}

/* The info of every candidate triangle (side 0: A's, 1: B's), each once, the
 * two sides on two threads where there are: slot[side][t] numbers the
 * triangles met; only the slots of candidate triangles are written, so a
 * whole mesh passed with few candidates costs one array as long as its
 * largest candidate index, untouched elsewhere. */
static int prepare_triangles(glcollide_contact_scratch *s, const input *in,
                             const glcollide_index_pair *candidates, size_t candidate_count,
                             int threads)
{
    prepare_job job = {.s = s, .in = in, .candidates = candidates, .count = candidate_count};
    int side_threads = candidate_count >= SIDES_IN_PARALLEL ? threads : 1;
    glcollide_workers_run_chain(2, side_threads, 0.0, prepare_side, &job);
    for (int side = 0; side < 2; side++)
        if (job.status[side])
            return job.status[side];
    /* The box of every candidate triangle's corners: the points any plane
     * here is asked about (glcollide_plane_filter_set_extent). A NaN
     * coordinate is left out of it: a point with one has a NaN determinant,
     * which no bound decides. */
    job.extent = 0.0;
    for (int k = 0; k < 3; k++) {
        double lo = glcollide_smaller(job.lo[0][k], job.lo[1][k]);
        double hi = glcollide_larger(job.hi[0][k], job.hi[1][k]);
        job.extent = glcollide_larger(job.extent, hi - lo);
    }
    glcollide_workers_run_chain(2, side_threads, 0.0, extent_side, &job);
    return GLCOLLIDE_OK;
}

/* The rest of a triangle's info (info_shape and shaped_info make it once). */
static void shape(triangle_info *info)
{
    const double *const *c = info->plane.t;
    info->has_normal = unit_normal(c, info->normal);
    if (!info->has_normal)
        memset(info->normal, 0, sizeof info->normal);
    info->max_edge = info->max_abs = 0.0;
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) {
            info->max_abs = glcollide_larger(info->max_abs, fabs(c[j][k]));
            info->max_edge = glcollide_larger(info->max_edge, fabs(c[(j + 1) % 3][k] - c[j][k]));
        }
    for (int i = 0; i < 3; i++) {
        double e[3];
        glcollide_vec3_sub(e, c[(i + 1) % 3], c[i]);
        glcollide_vec3_cross(info->prism[i], info->normal, e); /* points inward */
    }
}

/* A triangle of a meeting pair shaped, once, on one thread. */
static void info_shape(triangle_info *info)
{
    if (atomic_load_explicit(&info->shaped, memory_order_relaxed) == SHAPE_DONE)
        return;
    shape(info);
    atomic_store_explicit(&info->shaped, SHAPE_DONE, memory_order_relaxed);
}

/* A triangle of a meeting pair, shaped: once, by the first thread to claim
 * it. A thread that finds it being shaped by another shapes a copy of its
 * own in *own (the same numbers) rather than wait. */
static const triangle_info *shaped_info(triangle_info *info, triangle_info *own)
{
    int state = atomic_load_explicit(&info->shaped, memory_order_acquire);
    if (state == SHAPE_DONE)
        return info;
    if (state == SHAPE_NONE &&
        atomic_compare_exchange_strong_explicit(&info->shaped, &state, SHAPE_BUSY,
                                                memory_order_acquire, memory_order_acquire)) {
        shape(info);
        atomic_store_explicit(&info->shaped, SHAPE_DONE, memory_order_release);
        return info;
    }
    if (state == SHAPE_DONE)
        return info;
    own->plane = info->plane; /* made before the job: read only */
    shape(own);
    return own;
}

static triangle_info *info_of(const glcollide_contact_scratch *s, int side, uint32_t t)
{
    return &s->info[side][s->slot[side][t]];
}

/* Whether candidate pair (ta, tb) meets, and how: the exact test, on the
 * triangles' prepared planes (read only: any thread). 0 when it does not. */
static int test_pair(const glcollide_contact_scratch *s, meeting *m)
{
    const triangle_info *info_a = info_of(s, 0, m->ta), *info_b = info_of(s, 1, m->tb);
    m->kind = glcollide_tri_tri_intersection_planes(&info_a->plane, &info_b->plane, m->seg[0],
                                                    m->seg[1], m->side_a, m->side_b);
    return m->kind;
}

/*
 * The element of a candidate pair that meets (m, from test_pair), appended to
 * out with its points (nothing when it gives nothing); info_a and info_b:
 * its triangles' infos, shaped.
 */
static int make_element(glcollide_contact_scratch *s, const input *in, const meeting *m,
                        const triangle_info *info_a, const triangle_info *info_b,
                        element_chunk *out)
{
    uint32_t ta = m->ta, tb = m->tb;
    int kind = m->kind;
    double seg[2][3];
    memcpy(seg, m->seg, sizeof seg);
    const int *side_a = m->side_a, *side_b = m->side_b;
    const double *const *a = info_a->plane.t, *const *b = info_b->plane.t;
    const double *n_a = info_a->normal, *n_b = info_b->normal;
    int has_a = info_a->has_normal, has_b = info_b->has_normal;
    if (!has_a && !has_b)
        return GLCOLLIDE_OK;
    (void)in;

    double max_edge = glcollide_larger(info_a->max_edge, info_b->max_edge);
    double max_abs = glcollide_larger(info_a->max_abs, info_b->max_abs);
    double tol = 1e-9 * max_edge + 64.0 * DBL_EPSILON * max_abs;

    element e = {0};
    e.a = ta;
    e.b = tb;
    e.kind = ELEMENT_TOUCH;
    if (has_a)
        memcpy(e.normal_a, n_a, sizeof e.normal_a);
    if (has_b)
        memcpy(e.normal_b, n_b, sizeof e.normal_b);
    for (int k = 0; k < 3; k++) {
        e.hint[k] = e.normal_b[k] - e.normal_a[k];
        e.offset[k] = (a[0][k] + a[1][k] + a[2][k] - b[0][k] - b[1][k] - b[2][k]) / 3.0;
    }
    double poly[MAX_POLYGON][3];
    int corners = 0;
    double cross[3] = {0, 0, 0};
    if (has_a && has_b)
        glcollide_vec3_cross(cross, n_a, n_b);
    int antiparallel = has_a && has_b && glcollide_vec3_dot(n_a, n_b) < 0.0;

    if (kind == 2) {
        if (!antiparallel)
            return GLCOLLIDE_OK; /* flush faces of overlapping solids */
        double area;
        corners = overlap_polygon(a, b, n_b, info_b->prism, poly, &area);
        for (int k = 0; k < 3; k++) {
            e.facing[k] = area * n_b[k];
            e.touch[k] = n_b[k];
        }
    } else {
        /* A pair crosses when each triangle enters the other solid (has a
         * vertex strictly behind the other's plane) along a segment that is
         * not an edge of both. Otherwise it touches: an edge or vertex of
         * one on the other's face (the face's normal, from B toward A); edges
         * or vertices meeting carry no normal of their own (the corners of
         * flush faces would point sideways). */
        int a_enters = 0, b_enters = 0;
        for (int i = 0; i < 3; i++) {
            a_enters |= has_b && side_a[i] > 0;
            b_enters |= has_a && side_b[i] > 0;
        }
        int point = distance2(seg[0], seg[1]) <= tol * tol;
        int crossing = a_enters && b_enters && !point;
        int on_a = on_boundary(a, has_a, seg[0], seg[1], tol);
        /* A crossing off a's edges is a segment whatever b's edges: on_b is
         * looked at only where it decides (0 otherwise, unused). */
        int on_b = crossing && !on_a ? 0 : on_boundary(b, has_b, seg[0], seg[1], tol);
        if (crossing && !(on_a && on_b)) {
            e.kind = ELEMENT_SEGMENT;
            double d[3];
            glcollide_vec3_sub(d, seg[1], seg[0]);
            if (glcollide_vec3_dot(d, cross) < 0.0) { /* orient along n_a x n_b */
                double t[3];
                memcpy(t, seg[0], sizeof t);
                memcpy(seg[0], seg[1], sizeof t);
                memcpy(seg[1], t, sizeof t);
            }
            /* The pair's facet: the face the other triangle enters less
             * deeply (within its prism), as a separating-axis test picks
             * a reference face: the floor under a box's side, the side of
             * a box's bottom edge pressed into a wall. */
            double length = length3(d);
            /* Only a pair much longer than deep, of faces not turned the
             * same way, lies on a slab; others (the short jog where the
             * sides of two yawed boxes cross, a solid pushed deep through a
             * face, faces nearly flush) take their neighbours' facet. Faces
             * turned the same way need no depths. */
            if (glcollide_vec3_dot(n_a, n_b) <= 0.0) {
                double depth_b = local_depth(info_b, info_a);
                double depth_a = local_depth(info_a, info_b);
                /* B's face unless A's is clearly thinner: along a curved
                 * contact (sphere on sphere) neighbouring pairs then agree
                 * instead of flipping between the two surfaces' normals. */
                int on_b_face = !(depth_a < 0.5 * depth_b);
                if (glcollide_smaller(depth_a, depth_b) <= 0.25 * length)
                    for (int k = 0; k < 3; k++)
                        e.facet[k] = length * (on_b_face ? n_b[k] : -n_a[k]);
            }
        } else if (on_a && !on_b && has_b) {
            memcpy(e.touch, n_b, sizeof e.touch);
        } else if (on_b && !on_a && has_a) {
            for (int k = 0; k < 3; k++)
                e.touch[k] = -n_a[k];
        }
        if (antiparallel && length3(cross) < facing_sine) {
            double area, scratch_poly[MAX_POLYGON][3];
            overlap_polygon(a, b, n_b, info_b->prism, scratch_poly, &area);
            for (int k = 0; k < 3; k++)
                e.facing[k] = area * n_b[k];
        }
        memcpy(poly[0], seg[0], sizeof poly[0]);
        memcpy(poly[1], seg[1], sizeof poly[1]);
        corners = point ? 1 : 2;
    }
    if (corners == 0)
        return GLCOLLIDE_OK;
    if (e.kind == ELEMENT_TOUCH) { /* a face touched: its normal, weighted by the touch's size */
        double size = kind == 2 ? sqrt(length3(e.facing)) : sqrt(distance2(seg[0], seg[1]));
        size = glcollide_larger(size, tol);
        for (int k = 0; k < 3; k++)
            e.facet[k] = size * e.touch[k];
    }
    uint32_t index = (uint32_t)out->count;
    e.first_point = (uint32_t)out->point_count;
    for (int i = 0; i < corners; i++)
        if (push_point(&out->points, &out->point_capacity, &out->point_count, poly[i], index,
                       SOURCE_CURVE, (uint32_t)i))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    e.point_count = (uint32_t)(out->point_count - e.first_point);
    if (e.point_count == 0 || (e.kind == ELEMENT_SEGMENT && e.point_count != 2)) {
        out->point_count = e.first_point; /* non-finite */
        return GLCOLLIDE_OK;
    }
    if (reserve((void **)&out->elements, &out->capacity, out->count + 1, sizeof *out->elements) ||
        reserve((void **)&out->keys, &out->key_capacity, out->count + 1, sizeof *out->keys))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    out->keys[out->count] =
        (keyed){((uint64_t)e.a << 32) | e.b, (uint32_t)out->count, (uint32_t)e.point_count};
    out->elements[out->count++] = e;
    return GLCOLLIDE_OK;
}

typedef struct elements_job {
    glcollide_contact_scratch *s;
    const input *in;
    const glcollide_index_pair *candidates;
    size_t count;
} elements_job;

/* The exact test of candidates first .. end - 1 and the element of each
 * that meets, into chunk; shared: other threads make other ranges' at the
 * same time (the triangles shaped by shaped_info, else by info_shape). */
static inline __attribute__((always_inline)) void
range_elements(glcollide_contact_scratch *s, const input *in,
               const glcollide_index_pair *candidates, size_t first, size_t end,
               element_chunk *chunk, int shared)
{
    for (size_t i = first; i < end && !chunk->status; i++) {
        meeting m = {.ta = candidates[i].a, .tb = candidates[i].b};
        if (!test_pair(s, &m))
            continue;
        triangle_info *a = info_of(s, 0, m.ta), *b = info_of(s, 1, m.tb), own_a, own_b;
        if (shared) {
            chunk->status =
                make_element(s, in, &m, shaped_info(a, &own_a), shaped_info(b, &own_b), chunk);
        } else {
            info_shape(a);
            info_shape(b);
            chunk->status = make_element(s, in, &m, a, b, chunk);
        }
    }
}

/* A task: the exact test of each of its candidates, and the element of
 * each that meets into its chunk. */
static void element_task(void *user, size_t task, int worker)
{
    (void)worker;
    const elements_job *job = user;
    range_elements(job->s, job->in, job->candidates, task * TESTS_PER_TASK,
                   task_end(task, TESTS_PER_TASK, job->count), &job->s->chunks[task], 1);
}

/* Elements and points written elsewhere become the call's: swapped with
 * s->elements and s->points, whose arrays (and capacities) go there. */
static void take_arrays(glcollide_contact_scratch *s, element **elements, size_t *element_capacity,
                        contact_point **points, size_t *point_capacity)
{
    element *swap_elements = s->elements;
    size_t swap_element_capacity = s->element_capacity;
    s->elements = *elements;
    s->element_capacity = *element_capacity;
    *elements = swap_elements;
    *element_capacity = swap_element_capacity;
    contact_point *swap_points = s->points;
    size_t swap_point_capacity = s->point_capacity;
    s->points = *points;
    s->point_capacity = *point_capacity;
    *points = swap_points;
    *point_capacity = swap_point_capacity;
}

typedef struct copy_job {
    glcollide_contact_scratch *s;
    const uint32_t *firsts; /* each kept element's first point */
    const uint32_t *place;  /* each element's, in chunk order: its place among the kept */
} copy_job;

/* A pair's element dropped: an earlier one of the same pair is kept. */
#define NOT_KEPT UINT32_MAX
/* The copies ask for the places of the element this far ahead: the
 * sorted places are scattered, each write a miss (two bunnies: the copies
 * 25 us faster on 1 thread). */
enum { COPY_AHEAD = 4 };

/* A chunk's kept elements and their points into their sorted places in
 * s->elements_tmp and s->bucketed, renumbered, and the box of those points
 * (a task: chunk k, made by task k of the elements' job, which in blocks is
 * mostly on this thread: its elements are read where they were written). */
static void copy_task(void *user, size_t k, int worker)
{
    (void)worker;
    const copy_job *job = user;
    glcollide_contact_scratch *s = job->s;
    element_chunk *chunk = &s->chunks[k];
    point_box box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0.0};
    for (size_t j = 0; j < chunk->count; j++) {
        uint32_t to = job->place[chunk->first + j];
        if (j + COPY_AHEAD < chunk->count) { /* a later element's places, asked for now */
            uint32_t ahead = job->place[chunk->first + j + COPY_AHEAD];
            if (ahead != NOT_KEPT) {
                const char *line = (const char *)&s->elements_tmp[ahead];
                for (size_t b = 0; b < sizeof(element); b += 64)
                    __builtin_prefetch(line + b, 1);
                __builtin_prefetch(&s->bucketed[job->firsts[ahead]], 1);
            }
        }
        if (to == NOT_KEPT)
            continue;
        element e = chunk->elements[j];
        uint32_t first = job->firsts[to];
        for (uint32_t p = 0; p < e.point_count; p++) {
            contact_point *q = &s->bucketed[first + p];
            *q = chunk->points[e.first_point + p];
            q->element = to;
            for (int c = 0; c < 3; c++) {
                box.lo[c] = glcollide_smaller(box.lo[c], q->position[c]);
                box.hi[c] = glcollide_larger(box.hi[c], q->position[c]);
                box.max_abs = glcollide_larger(box.max_abs, fabs(q->position[c]));
            }
        }
        e.first_point = first;
        s->elements_tmp[to] = e;
    }
    chunk->box = box;
}

/* The chunks' elements, in chunk order, sorted by (a, b) into s->elements,
 * repeated pairs dropped (the first kept); their points into s->points in
 * element order, owners and first points renumbered (the copies shared
 * among the threads, a chunk a task), and the box of those points into
 * *box. Errors: a chunk's, OUT_OF_MEMORY. */
static int sort_elements(glcollide_contact_scratch *s, size_t chunk_count, int threads,
                         size_t *element_count, size_t *point_count, point_box *box)
{
    size_t n = 0, total_points = 0;
    for (size_t k = 0; k < chunk_count; k++) {
        if (s->chunks[k].status)
            return s->chunks[k].status;
        s->chunks[k].first = n;
        n += s->chunks[k].count;
        total_points += s->chunks[k].point_count;
    }
    if (reserve((void **)&s->keys, &s->key_capacity, n, sizeof *s->keys) ||
        reserve((void **)&s->keys_tmp, &s->key_tmp_capacity, n, sizeof *s->keys_tmp) ||
        reserve((void **)&s->elements_tmp, &s->element_tmp_capacity, n, sizeof *s->elements_tmp) ||
        reserve((void **)&s->bucketed, &s->bucketed_capacity, total_points, sizeof *s->bucketed))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    size_t i = 0;
    for (size_t k = 0; k < chunk_count; k++) /* the keys made with the elements: places in all */
        for (size_t j = 0; j < s->chunks[k].count; j++) {
            s->keys[i] = s->chunks[k].keys[j];
            s->keys[i++].index += (uint32_t)s->chunks[k].first;
        }
    radix_sort(s->keys, s->keys_tmp, n);
    /* The first of each pair kept: its place, and its first point; keys_tmp
     * (4 words an element) reused for the two lists. */
    uint32_t *firsts = (uint32_t *)(void *)s->keys_tmp, *place = firsts + n;
    for (i = 0; i < n; i++)
        place[i] = NOT_KEPT;
    size_t kept = 0, points = 0;
    for (i = 0; i < n; i++) {
        if (i > 0 && s->keys[i].key == s->keys[i - 1].key)
            continue;
        place[s->keys[i].index] = (uint32_t)kept;
        firsts[kept++] = (uint32_t)points;
        points += s->keys[i].pad;
    }
    copy_job job = {s, firsts, place};
    glcollide_workers_run_chain(chunk_count, threads, 0.0, copy_task, &job);
    take_arrays(s, &s->elements_tmp, &s->element_tmp_capacity, &s->bucketed, &s->bucketed_capacity);
    *box = s->chunks[0].box;
    for (size_t k = 1; k < chunk_count; k++)
        for (int c = 0; c < 3; c++) {
            box->lo[c] = glcollide_smaller(box->lo[c], s->chunks[k].box.lo[c]);
            box->hi[c] = glcollide_larger(box->hi[c], s->chunks[k].box.hi[c]);
            box->max_abs = glcollide_larger(box->max_abs, s->chunks[k].box.max_abs);
        }
    *element_count = kept;
    *point_count = points;
    return GLCOLLIDE_OK;
}

/*
 * The elements of every candidate pair, sorted by pair (sort_elements).
 * Where there are enough candidates and threads, on the workers: each task
 * tests its candidates and makes the elements of those that meet, into a
 * chunk of its own (a triangle of a pair that meets is shaped once, by the
 * task that claims it first: shaped_info); the chunks are then sorted
 * together in chunk order: the same elements as one thread makes, whatever
 * the threads.
 */
static int make_elements(glcollide_contact_scratch *s, const input *in,
                         const glcollide_index_pair *candidates, size_t count, int threads,
                         size_t *element_count, size_t *point_count, point_box *box)
{
    if (threads <= 0)
        threads = glcollide_workers_count();
    size_t tasks = (count + TESTS_PER_TASK - 1) / TESTS_PER_TASK;
    int parallel = threads > 1 && tasks > 1;
    size_t chunk_count = parallel ? tasks : 1;
    if (chunk_count > s->chunk_capacity) {
        element_chunk *chunks = glcollide_realloc_array(s->chunks, chunk_count, sizeof *chunks);
        if (!chunks)
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        memset(chunks + s->chunk_capacity, 0,
               (chunk_count - s->chunk_capacity) * sizeof *chunks);
        s->chunks = chunks;
        s->chunk_capacity = chunk_count;
    }
    for (size_t k = 0; k < chunk_count; k++)
        s->chunks[k].count = s->chunks[k].point_count = 0, s->chunks[k].status = GLCOLLIDE_OK;
    if (parallel) {
        elements_job job = {s, in, candidates, count};
        glcollide_workers_run_chain(tasks, threads, 0.0, element_task, &job);
    } else {
        range_elements(s, in, candidates, 0, count, &s->chunks[0], 0);
    }
    return sort_elements(s, chunk_count, threads, element_count, point_count, box);
}

/* ---------------------------------------------------------------- regions */

/* The root of element i's set in the union-find's parent array (halving
 * the path there). */
static uint32_t find(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* Can sets with facet sums p and q form one region? When their mean facets
 * lie within 45 degrees, or one weighs under 5% of the other (its facet is
 * a detail of the other's overlap, or it has none: touching edges). An
 * overlap that turns a sharp corner (a peg on a floor pressed against a
 * wall) is two regions with two normals. */
static int facets_agree(const double p[3], const double q[3])
{
    double lp = length3(p), lq = length3(q);
    return !(lp > 0.05 * lq) || !(lq > 0.05 * lp) ||
           glcollide_vec3_dot(p, q) >= 0.7071067811865476 * lp * lq;
}

/* Joins the sets of i and j when their facets agree; returns 1 when they
 * are (now) one set. The smaller index is the root: deterministic. A pair
 * kept apart is recorded (merge_regions looks at it again). */
static int unite(glcollide_contact_scratch *s, uint32_t i, uint32_t j)
{
    element *elements = s->elements;
    uint32_t ei = i, ej = j;
    i = find(s->parent, i);
    j = find(s->parent, j);
    if (i == j)
        return 1;
    if (!facets_agree(elements[i].facets, elements[j].facets)) {
        if (reserve((void **)&s->refused, &s->refused_capacity, s->refused_count + 1,
                    sizeof *s->refused) == GLCOLLIDE_OK)
            s->refused[s->refused_count++] = (glcollide_index_pair){ei, ej};
        return 0;
    }
    uint32_t root = i < j ? i : j, other = i < j ? j : i;
    s->parent[other] = root;
    for (int k = 0; k < 3; k++)
        elements[root].facets[k] += elements[other].facets[k];
    return 1;
}

/* floor(x), without a call into libm where x is well inside int64's range
 * (the grid's cells are integers there). */
static inline double floor_exact(double x)
{
    if (!(fabs(x) < 0x1p52))
        return floor(x);
    double t = (double)(int64_t)x; /* toward 0, exact */
    return t > x ? t - 1.0 : t;
}

static uint64_t cell_hash(const int64_t c[3])
{
    uint64_t h = (uint64_t)c[0] * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)c[1] * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
    h ^= (uint64_t)c[2] * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
    return h ^ (h >> 29);
}

/* A slot's tag for a cell of hash h: bits of h that its slot does not use,
 * never 0 (an empty slot). */
static inline uint8_t cell_tag(uint64_t h)
{
    return (uint8_t)(h >> 56) | 1;
}

/* The slot of cell c (its tag, and its home slot h & mask) in the
 * open-addressed grid: its own, or the empty one where it would go
 * (tags[slot] 0). The tags, a byte a slot, are read first: most cells
 * looked for near a point hold no point, and their search ends there
 * without reading a grid_cell at a random place. */
static size_t cell_slot_from(const grid_cell *grid, const uint8_t *tags, size_t mask,
                             const int64_t c[3], uint8_t tag, size_t slot)
{
    for (; tags[slot]; slot = (slot + 1) & mask)
        if (tags[slot] == tag && grid[slot].cell[0] == c[0] && grid[slot].cell[1] == c[1] &&
            grid[slot].cell[2] == c[2])
            break;
    return slot;
}

static size_t cell_slot(const grid_cell *grid, const uint8_t *tags, size_t mask, const int64_t c[3])
{
    uint64_t h = cell_hash(c);
    return cell_slot_from(grid, tags, mask, c, cell_tag(h), h & mask);
}

/* Which neighbours of a point's cell it lies within a quarter cell of:
 * step[k] -1, 0 or 1 per axis; returns the axes with a step as bits. */
static int cell_steps(const point_cell *pc, int64_t step[3])
{
    int axes = 0;
    for (int k = 0; k < 3; k++) {
        double within = pc->scaled[k] - (double)pc->cell[k];
        /* -1, 0 or 1 without a branch: which side a point lies on is
         * anyone's guess */
        step[k] = (int64_t)(within > 0.75) - (int64_t)(within < 0.25);
        axes |= (step[k] != 0) << k;
    }
    return axes;
}

/* The neighbour of cell c across the faces of the axes in d. */
static void cell_neighbour(const int64_t c[3], const int64_t step[3], int d, int64_t n[3])
{
    n[0] = c[0] + (d & 1 ? step[0] : 0);
    n[1] = c[1] + (d & 2 ? step[1] : 0);
    n[2] = c[2] + (d & 4 ? step[2] : 0);
}

/* Joins element e with the regions recorded in a cell (and records e's
 * region there when it joined none); returns whether the cell holds a point
 * of another element than e (a point of e's there is shared). */
static int join_cell(glcollide_contact_scratch *s, grid_cell *cell, uint32_t e, int record)
{
    int joined = 0;
    uint32_t n = 0;
    for (; n < CELL_SLOTS && cell->element[n] != UINT32_MAX; n++)
        joined |= unite(s, e, cell->element[n]);
    if (record) {
        if (n == 0)
            cell->first = e;
        else if (cell->first != e)
            cell->mixed = 1;
        if (!joined && n < CELL_SLOTS)
            cell->element[n] = e;
    }
    return cell->mixed || cell->first != e;
}

/* The grid is read at random places (a point's cell and its neighbours):
 * where it outgrows the caches near the core (bunnies: 917 kB), each pass
 * over the points asks for the cells of the point AHEAD places ahead. The
 * end of the points to look ahead from in a pass ending at end (0: none),
 * for a grid of slots slots. */
enum { AHEAD = 8 };

static size_t prefetch_end(size_t slots, size_t end)
{
    return slots * sizeof(grid_cell) > ((size_t)1 << 18) ? end : 0;
}

typedef struct near_job {
    glcollide_contact_scratch *s;
    size_t point_count, mask;
} near_job;

enum { NEAR_PER_TASK = 256 };

/* The cells near each of a task's points that hold points, into its
 * point_cell: its own, then the neighbours across the faces it lies within
 * a quarter cell of (d runs over the subsets of those axes, ascending: the
 * joins' order). A point that shares one with another element's point is
 * not open; one near another set than its own's is listed in joining. The
 * grid and the sets (each element a root's child) are only read. */
static void near_task(void *user, size_t task, int worker)
{
    (void)worker;
    const near_job *job = user;
    glcollide_contact_scratch *s = job->s;
    size_t first = task * NEAR_PER_TASK, end = task_end(task, NEAR_PER_TASK, job->point_count);
    size_t ahead_end = prefetch_end(job->mask + 1, end);
    uint32_t joining = 0;
    for (size_t i = first; i < end; i++) {
        if (i + AHEAD < ahead_end) {
            const point_cell *ahead = &s->point_cells[i + AHEAD];
            int64_t ahead_step[3], n[3];
            int ahead_axes = cell_steps(ahead, ahead_step);
            for (int d = ahead_axes; d; d = (d - 1) & ahead_axes) { /* its subsets but 0 */
                cell_neighbour(ahead->cell, ahead_step, d, n);
                __builtin_prefetch(&s->grid_tags[cell_hash(n) & job->mask]);
            }
        }
        point_cell *pc = &s->point_cells[i];
        contact_point *p = &s->points[i];
        int64_t step[3];
        int axes = cell_steps(pc, step); /* bit k: a neighbour across axis k's nearer face */
        uint32_t count = 0, root = s->parent[p->element];
        int joins = 0;
        for (int d = 0;; d = (d - axes) & axes) {
            int64_t n[3];
            cell_neighbour(pc->cell, step, d, n);
            /* its own cell's slot is the one found before: the grid only gained cells */
            size_t slot = d ? cell_slot(s->grid, s->grid_tags, job->mask, n) : pc->slot;
            if (s->grid_tags[slot]) {
                const grid_cell *cell = &s->grid[slot];
                pc->near[count++] = (uint32_t)slot;
                if (cell->mixed || cell->first != p->element)
                    p->open = 0;
                for (int k = 0; k < CELL_SLOTS && cell->element[k] != UINT32_MAX; k++)
                    joins |= s->parent[cell->element[k]] != root;
            }
            if (d == axes)
                break;
        }
        pc->near_count = count;
        if (joins)
            s->joining[first + joining++] = (uint32_t)i;
    }
    s->joining_count[task] = joining;
}

/*
 * Connects elements whose points lie within tol of each other, in time
 * linear in the points: points are binned into cells of side 4 tol; each
 * point joins the regions recorded in its cell, then in the neighbours
 * across the faces it lies within tol of (on each axis at most one: on
 * average 3.4 cells a point, not 8). A point within tol of p lies in one of
 * those cells; points up to 8 sqrt(3) tol apart may be joined too, the same
 * tolerance for a region's shape. Here the grid is made and each point
 * joins its own cell; connect_near finds the neighbours (on the threads)
 * and makes their joins (in order, on this one).
 * Joins respect facets (facets_agree). A segment's point that meets no other
 * element's leaves its region's curve open (point.open).
 */
static int connect_elements(glcollide_contact_scratch *s, size_t element_count, size_t point_count,
                            double tol)
{
    s->refused_count = 0;
    size_t slots = 16;
    while (slots < 2 * point_count)
        slots *= 2;
    if (reserve((void **)&s->grid, &s->grid_capacity, slots, sizeof *s->grid) ||
        reserve((void **)&s->grid_tags, &s->grid_tag_capacity, slots, sizeof *s->grid_tags) ||
        reserve((void **)&s->point_cells, &s->point_cell_capacity, point_count,
                sizeof *s->point_cells) ||
        reserve((void **)&s->parent, &s->parent_capacity, element_count, sizeof *s->parent) ||
        reserve((void **)&s->joining, &s->joining_capacity, point_count, sizeof *s->joining) ||
        reserve((void **)&s->joining_count, &s->joining_count_capacity,
                (point_count + NEAR_PER_TASK - 1) / NEAR_PER_TASK, sizeof *s->joining_count))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < element_count; i++) {
        element *e = &s->elements[i];
        s->parent[i] = (uint32_t)i;
        memcpy(e->facets, e->facet, sizeof e->facets);
    }
    size_t mask = slots - 1;
    uint8_t *tags = s->grid_tags;
    memset(tags, 0, slots);
    double side = 4.0 * tol;
    size_t ahead_end = prefetch_end(slots, point_count);
    for (size_t i = 0; i < point_count; i++) {
        point_cell *pc = &s->point_cells[i];
        for (int k = 0; k < 3; k++) {
            pc->scaled[k] = s->points[i].position[k] / side;
            pc->cell[k] = (int64_t)floor_exact(pc->scaled[k]);
        }
        uint64_t h = cell_hash(pc->cell);
        pc->slot = h & mask; /* its home slot, for now */
        pc->tag = cell_tag(h);
    }
    for (size_t i = 0; i < point_count; i++) {
        contact_point *p = &s->points[i];
        point_cell *pc = &s->point_cells[i];
        const int64_t *c = pc->cell;
        if (i + AHEAD < ahead_end)
            __builtin_prefetch(&s->grid[s->point_cells[i + AHEAD].slot]);
        size_t slot = cell_slot_from(s->grid, tags, mask, c, pc->tag, pc->slot);
        grid_cell *cell = &s->grid[slot];
        if (!tags[slot]) { /* a new cell */
            tags[slot] = pc->tag;
            memcpy(cell->cell, c, sizeof cell->cell);
            for (int k = 0; k < CELL_SLOTS; k++)
                cell->element[k] = UINT32_MAX;
            cell->mixed = 0;
        }
        pc->slot = slot;
        p->open = !join_cell(s, &s->grid[slot], p->element, 1);
    }
    for (size_t i = 0; i < element_count; i++) /* each a root's child, for connect_near */
        s->parent[i] = find(s->parent, (uint32_t)i);
    s->grid_mask = mask;
    return GLCOLLIDE_OK;
}

/* The second half of connect_elements, once the grid is whole: the cells
 * near each point found on the threads, then the joins made in order. Only
 * a point near another set than its own's (as the sets stood before these
 * joins: they only grow) can join anything: its joins are the ones made
 * (bunnies: 16 points of 3,476; the others' unite nothing, and reading
 * their cells here took 24 us, 52 us where a worker had found half of them). */
static void connect_near(glcollide_contact_scratch *s, size_t point_count, int threads)
{
    near_job job = {s, point_count, s->grid_mask};
    size_t tasks = (point_count + NEAR_PER_TASK - 1) / NEAR_PER_TASK;
    glcollide_workers_run_chain(tasks, threads, 0.0, near_task, &job);
    for (size_t task = 0; task < tasks; task++)
        for (uint32_t j = 0; j < s->joining_count[task]; j++) {
            uint32_t i = s->joining[task * NEAR_PER_TASK + j];
            const point_cell *pc = &s->point_cells[i];
            uint32_t e = s->points[i].element;
            for (uint32_t m = 0; m < pc->near_count; m++)
                join_cell(s, &s->grid[pc->near[m]], e, 0);
        }
}

/* ---------------------------------------------------------------- inside vertices */

/* Is v behind or on the plane of every partner (triangles of the other
 * mesh, side other, meeting v's triangle)? */
static int behind_all(const glcollide_contact_scratch *s, const double v[3], int other,
                      const uint32_t *partners, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (glcollide_plane_side(&info_of(s, other, partners[i])->plane, v) < 0)
            return 0;
    return 1;
}

/* How far v must travel along dir to leave the other solid through the
 * plane of a partner facing dir (the nearest such plane); -1 when no
 * partner faces dir. For a vertex of a box's face sunk into a box this is
 * its penetration below the face, as ODE's box-box collider reports it. */
static double exit_distance(const glcollide_contact_scratch *s, const double v[3],
                            const double dir[3], int other, const uint32_t *partners, size_t count)
{
    double best = -1.0;
    for (size_t i = 0; i < count; i++) {
        const triangle_info *info = info_of(s, other, partners[i]);
        if (!info->has_normal)
            continue;
        const double *const *t = info->plane.t, *n = info->normal;
        double d[3];
        double facing = glcollide_vec3_dot(n, dir);
        if (!(facing > 0.0))
            continue;
        glcollide_vec3_sub(d, v, t[0]);
        double distance = -glcollide_vec3_dot(n, d) / facing;
        if (distance < 0.0)
            distance = 0.0;
        if (best < 0.0 || distance < best)
            best = distance;
    }
    return best;
}

/*
 * Vertices of A's crossing triangles inside B (side 0), then of B's inside A
 * (side 1), become candidate points of their region. In two halves: which
 * corners of a side's triangles lie behind the planes of all the triangles
 * they meet (their partners) needs no region, and is found while the
 * elements are being connected (inside_side, a task); once the regions are
 * known, the corners of a triangle whose segments all lie in one region
 * join it (inside_vertices; a triangle whose segments lie in more than one
 * region gives no vertices).
 */
static inline void inside_one(glcollide_contact_scratch *s, size_t element_count, const input *in,
                              int side)
{
    inside_part *part = &s->inside[side];
    part->group_count = 0;
    const double *own_positions = side ? in->positions_b : in->positions_a;
    const uint32_t *own_triangles = side ? in->triangles_b : in->triangles_a;
    keyed *keys = part->keys;
    for (size_t i = 0; i < element_count; i++) {
        const element *e = &s->elements[i];
        uint32_t own = side ? e->b : e->a, other = side ? e->a : e->b;
        keys[i] = (keyed){((uint64_t)own << 32) | other, (uint32_t)i, other};
    }
    if (side) /* A's keys are the elements' own order, (a, b) */
        radix_sort(keys, part->keys_tmp, element_count);
    /* The partners of one triangle, reusing keys_tmp as a plain list. */
    uint32_t *partners = (uint32_t *)(void *)part->keys_tmp;
    for (size_t first = 0; first < element_count;) {
        uint32_t own = (uint32_t)(keys[first].key >> 32);
        size_t last = first, segments = 0;
        for (; last < element_count && (uint32_t)(keys[last].key >> 32) == own; last++) {
            partners[last - first] = keys[last].pad;
            segments += s->elements[keys[last].index].kind == ELEMENT_SEGMENT;
        }
        uint32_t behind = 0;
        if (segments > 0) {
            const uint32_t *t = own_triangles + 3 * (size_t)own;
            for (int c = 0; c < 3; c++)
                if (behind_all(s, own_positions + 3 * (size_t)t[c], !side, partners, last - first))
                    behind |= 1u << c;
        }
        if (behind) /* at most a group an element: room for that (inside_reserve) */
            part->groups[part->group_count++] =
                (inside_group){(uint32_t)first, (uint32_t)last, behind};
        first = last;
    }
}

static void inside_side(glcollide_contact_scratch *s, size_t element_count, const input *in,
                        int side)
{
    if (side) /* a constant in each copy */
        inside_one(s, element_count, in, 1);
    else
        inside_one(s, element_count, in, 0);
}

/* The second half (see inside_side): side's vertices behind all their
 * partners appended to out, with their partner lists. */
static int inside_vertices(const glcollide_contact_scratch *s, const input *in, int side,
                           vertex_list *out)
{
    const inside_part *part = &s->inside[side];
    const double *own_positions = side ? in->positions_b : in->positions_a;
    const uint32_t *own_triangles = side ? in->triangles_b : in->triangles_a;
    for (size_t g = 0; g < part->group_count; g++) {
        const inside_group *group = &part->groups[g];
        const keyed *keys = part->keys;
        uint32_t group_region = UINT32_MAX, element_index = 0;
        int split = 0;
        for (uint32_t k = group->first; k < group->end && !split; k++) {
            const element *e = &s->elements[keys[k].index];
            if (e->kind != ELEMENT_SEGMENT)
                continue;
            uint32_t at = s->region_of[keys[k].index];
            if (group_region == UINT32_MAX) {
                group_region = at;
                element_index = keys[k].index;
            } else if (at != group_region) {
                split = 1;
            }
        }
        if (split)
            continue;
        uint32_t own = (uint32_t)(keys[group->first].key >> 32);
        uint32_t partners = group->end - group->first, first_partner = UINT32_MAX;
        const uint32_t *t = own_triangles + 3 * (size_t)own;
        for (int c = 0; c < 3; c++) {
            if (!(group->behind >> c & 1))
                continue;
            size_t before = out->count;
            if (push_point(&out->points, &out->capacity, &out->count,
                           own_positions + 3 * (size_t)t[c], element_index,
                           side ? SOURCE_VERTEX_B : SOURCE_VERTEX_A, (uint32_t)c))
                return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
            if (out->count == before) /* not finite: no point */
                continue;
            if (first_partner == UINT32_MAX) { /* the group's partners, once */
                if (reserve((void **)&out->partners, &out->partner_capacity,
                            out->partner_count + partners, sizeof *out->partners))
                    return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
                first_partner = (uint32_t)out->partner_count;
                for (uint32_t k = 0; k < partners; k++)
                    out->partners[first_partner + k] = keys[group->first + k].pad;
                out->partner_count += partners;
            }
            contact_point *p = &out->points[out->count - 1];
            p->first_partner = first_partner;
            p->partner_count = partners;
        }
    }
    return GLCOLLIDE_OK;
}

/* ---------------------------------------------------------------- per region */

/*
 * The region's normal: its vector area F - V when its curve is closed, that
 * has an area and agrees with its facets within 45 degrees; else the mean of
 * its facets (the faces its pairs lie on); else of n_b - n_a over its pairs
 * (edges meeting edges: the corners of flush boxes cancel, their tops and
 * sides do not); else the direction from B's triangles to A's; else +z.
 */
static void region_normal(region *r)
{
    double size2 = distance2(r->lo, r->hi), len = length3(r->area);
    int has_area = r->open_points == 0 && len > 1e-12 * size2 && isfinite(len);
    int closed_area = has_area && facets_agree(r->area, r->facets);
    const double *choices[4] = {closed_area ? r->area : r->facets, r->facets, r->hint, r->offset};
    r->guessed = 0;
    /* Facets are local (a face may look thinner than it is where the other
     * mesh's triangulation cuts it short); the vector area of a closed curve
     * is the overlap's own gradient. Where they disagree, the faces around
     * both compete: the thinnest overlap decides (choose_normal). */
    r->has_second = has_area && !closed_area;
    for (int k = 0; k < 3 && r->has_second; k++)
        r->second[k] = r->area[k] / len;
    for (int c = 0; c < 4; c++) {
        len = length3(choices[c]);
        if (!(len > 0.0) || !isfinite(len) || (c == 2 && !(len > 1e-9 * r->curve_points)))
            continue;
        for (int k = 0; k < 3; k++)
            r->normal[k] = choices[c][k] / len;
        r->guessed = c >= 2;
        return;
    }
    r->normal[0] = r->normal[1] = 0.0;
    r->normal[2] = 1.0;
    r->guessed = 1;
}

/* A point's key for the manifold's ties, stable from step to step while the
 * same triangles meet, and the same whether a caller passes whole meshes or
 * only the candidate triangles (in the same order): vertices before curve
 * points, vertices by their triangle and corner, curve points by their
 * element (sorted by triangle pair) and end. */
static void point_key(const contact_point *p, const element *elements, uint64_t key[2])
{
    const element *e = &elements[p->element];
    uint64_t primary = p->source == SOURCE_VERTEX_A   ? e->a
                       : p->source == SOURCE_VERTEX_B ? e->b
                                                      : p->element;
    key[0] = ((uint64_t)p->source << 40) | (primary << 8) | p->index;
    key[1] = p->element;
}

/* The manifold of region r from its bucketed points: its picks in rank
 * order (s->manifold and s->picks have room for every bucketed point; the
 * region uses its own part). */
static void select_manifold(const glcollide_contact_scratch *s, region *r, size_t max)
{
    const contact_point *points = s->bucketed + r->first;
    glcollide_manifold_point *manifold = s->manifold + r->first;
    for (uint32_t i = 0; i < r->count; i++) {
        glcollide_manifold_point *m = &manifold[i];
        memcpy(m->position, points[i].position, sizeof m->position);
        m->depth = points[i].depth;
        point_key(&points[i], s->elements, m->key);
    }
    r->kept = glcollide_manifold_select(manifold, r->count, r->normal, r->centroid, r->width, max);
    uint32_t *picks = s->picks + r->first;
    for (uint32_t i = 0; i < r->count; i++)
        if (manifold[i].kept)
            picks[manifold[i].kept - 1] = r->first + i;
}

/* Regions numbered by their smallest element (elements are sorted, and a
 * set's root is its smallest element): after full compression every element
 * points at its root, which comes first. */
static int number_regions(glcollide_contact_scratch *s, size_t element_count, size_t *count)
{
    if (reserve((void **)&s->region_of, &s->region_of_capacity, element_count,
                sizeof *s->region_of))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    uint32_t *region_of = s->region_of;
    for (size_t i = 0; i < element_count; i++)
        region_of[i] = find(s->parent, (uint32_t)i);
    size_t region_count = 0;
    for (size_t i = 0; i < element_count; i++)
        region_count += region_of[i] == i;
    if (reserve((void **)&s->regions, &s->region_capacity, region_count, sizeof *s->regions) ||
        reserve((void **)&s->bucket_next, &s->bucket_next_capacity, POINT_PARTS * region_count,
                sizeof *s->bucket_next) ||
        reserve((void **)&s->order, &s->order_capacity, region_count, sizeof *s->order))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    region_count = 0;
    for (size_t i = 0; i < element_count; i++) {
        if (region_of[i] != i) {
            region_of[i] = region_of[region_of[i]]; /* the root's, already numbered */
            continue;
        }
        s->regions[region_count].first_element = (uint32_t)i;
        region_of[i] = (uint32_t)region_count++;
    }
    *count = region_count;
    return GLCOLLIDE_OK;
}

/*
 * Each region's centroid, box, vector area and other sums, then its normal.
 * The points and the elements are cut into parts (sum_parts: from the
 * counts alone, never the threads), each part's sums taken in order as a
 * task, and the parts' sums added in part order: the same numbers on any
 * number of threads. One part is the plain sums in point and element order.
 */
enum { SUM_PARTS = 8, POINTS_PER_SUM_PART = 512, SUM_PART_REGIONS = 512 };

typedef struct sums_job {
    glcollide_contact_scratch *s;
    size_t element_count, point_count, region_count, parts;
    region *rows; /* a row of regions a part: s->region_parts, or s->regions for one part */
} sums_job;

int glcollide_contacts_plain_sums;

/* The parts of the sums of point_count points in region_count regions. */
static size_t sum_parts(size_t point_count, size_t region_count)
{
    if (glcollide_contacts_plain_sums)
        return 1;
    size_t parts = point_count / POINTS_PER_SUM_PART;
    if (parts > SUM_PARTS)
        parts = SUM_PARTS;
    if (parts < 1 || region_count > SUM_PART_REGIONS)
        parts = 1;
    return parts;
}

/* A part's points summed into its row of regions (a task). */
static void point_sums_task(void *user, size_t part, int worker)
{
    (void)worker;
    const sums_job *job = user;
    glcollide_contact_scratch *s = job->s;
    region *row = job->rows + part * job->region_count;
    for (size_t i = 0; i < job->region_count; i++) {
        region *r = &row[i];
        uint32_t first = r->first_element; /* the region's key, where the row is s->regions */
        memset(r, 0, sizeof *r);
        r->first_element = first;
        for (int k = 0; k < 3; k++) {
            r->lo[k] = INFINITY;
            r->hi[k] = -INFINITY;
        }
    }
    const contact_point *points = s->points;
    const element *elements = s->elements;
    for (size_t i = job->point_count * part / job->parts,
                end = job->point_count * (part + 1) / job->parts;
         i < end; i++) {
        uint32_t owner = points[i].element;
        region *r = &row[s->region_of[owner]];
        for (int k = 0; k < 3; k++) {
            r->sum[k] += points[i].position[k];
            r->lo[k] = glcollide_smaller(r->lo[k], points[i].position[k]);
            r->hi[k] = glcollide_larger(r->hi[k], points[i].position[k]);
        }
        r->curve_points++;
        r->open_points += points[i].open && elements[owner].kind == ELEMENT_SEGMENT;
    }
}

/* A part's elements summed into its row of regions, about each region's
 * centroid (a task). */
static void element_sums_task(void *user, size_t part, int worker)
{
    (void)worker;
    const sums_job *job = user;
    glcollide_contact_scratch *s = job->s;
    region *row = job->rows + part * job->region_count;
    const contact_point *points = s->points;
    const element *elements = s->elements;
    for (size_t i = job->element_count * part / job->parts,
                end = job->element_count * (part + 1) / job->parts;
         i < end; i++) {
        const element *e = &elements[i];
        region *r = &row[s->region_of[i]];
        for (int k = 0; k < 3; k++) {
            r->area[k] += e->facing[k];
            r->hint[k] += e->hint[k];
            r->offset[k] += e->offset[k];
            r->facets[k] += e->facet[k];
        }
        if (e->kind != ELEMENT_SEGMENT)
            continue;
        const double *centroid = s->regions[s->region_of[i]].centroid;
        double p[3], q[3], c[3];
        glcollide_vec3_sub(p, points[e->first_point].position, centroid);
        glcollide_vec3_sub(q, points[e->first_point + 1].position, centroid);
        glcollide_vec3_cross(c, p, q);
        for (int k = 0; k < 3; k++) {
            r->area[k] -= 0.5 * c[k];
            r->segments[k] += q[k] - p[k];
        }
    }
}

/* The points' sums of from added to to's (to = from where first). */
static void add_point_sums(region *to, const region *from, int first)
{
    for (int k = 0; k < 3; k++) {
        to->sum[k] = first ? from->sum[k] : to->sum[k] + from->sum[k];
        to->lo[k] = first ? from->lo[k] : glcollide_smaller(to->lo[k], from->lo[k]);
        to->hi[k] = first ? from->hi[k] : glcollide_larger(to->hi[k], from->hi[k]);
    }
    to->curve_points = (first ? 0 : to->curve_points) + from->curve_points;
    to->open_points = (first ? 0 : to->open_points) + from->open_points;
}

/* The elements' sums of from added to to's (to = from where first), the
 * area's given. */
static void add_element_sums(region *to, const region *from, const double area[3], int first)
{
    for (int k = 0; k < 3; k++) {
        to->area[k] = first ? area[k] : to->area[k] + area[k];
        to->segments[k] = first ? from->segments[k] : to->segments[k] + from->segments[k];
        to->hint[k] = first ? from->hint[k] : to->hint[k] + from->hint[k];
        to->offset[k] = first ? from->offset[k] : to->offset[k] + from->offset[k];
        to->facets[k] = first ? from->facets[k] : to->facets[k] + from->facets[k];
    }
}

static void centre(region *r)
{
    for (int k = 0; k < 3; k++)
        r->centroid[k] = r->sum[k] / r->curve_points;
}

/* Errors: OUT_OF_MEMORY. */
static int region_sums(glcollide_contact_scratch *s, size_t element_count, size_t point_count,
                       size_t region_count, int threads)
{
    size_t parts = sum_parts(point_count, region_count);
    if (parts > 1 && reserve((void **)&s->region_parts, &s->region_part_capacity,
                             parts * region_count, sizeof *s->region_parts))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    sums_job job = {s,           element_count,
                    point_count, region_count,
                    parts,       parts > 1 ? s->region_parts : s->regions};
    glcollide_workers_run_chain(parts, parts > 1 ? threads : 1, 0.0, point_sums_task, &job);
    for (size_t i = 0; i < region_count; i++) {
        region *r = &s->regions[i];
        if (parts > 1) { /* the parts' sums, in part order */
            uint32_t first = r->first_element;
            memset(r, 0, sizeof *r);
            r->first_element = first;
            for (size_t part = 0; part < parts; part++)
                add_point_sums(r, &job.rows[part * region_count + i], part == 0);
        }
        centre(r);
    }
    glcollide_workers_run_chain(parts, parts > 1 ? threads : 1, 0.0, element_sums_task, &job);
    for (size_t i = 0; i < region_count; i++) {
        region *r = &s->regions[i];
        if (parts > 1) /* the parts' sums, in part order */
            for (size_t part = 0; part < parts; part++) {
                const region *from = &job.rows[part * region_count + i];
                add_element_sums(r, from, from->area, part == 0);
            }
        region_normal(r);
    }
    return GLCOLLIDE_OK;
}

/*
 * The sums of the regions merge_regions joined (new_of: each old region's
 * new number, roots first in the order of both numberings; the old regions
 * in s->region_parts), each added in old region order, then the normals. A
 * joined region's area is its parts' areas about its own centroid: moving
 * a part's from c to the joined region's c' adds half of (c' - c) x (its
 * segments' q - p). A region joined to no other keeps its sums.
 */
static void merge_sums(glcollide_contact_scratch *s, const uint32_t *new_of, size_t old_count,
                       size_t new_count)
{
    const region *old = s->region_parts;
    for (size_t i = 0, next = 0; i < old_count; i++) {
        region *r = &s->regions[new_of[i]];
        int first = new_of[i] == next; /* its root: the set's first region */
        if (first) {
            memset(r, 0, sizeof *r);
            r->first_element = old[i].first_element; /* the set's smallest */
            next++;
        }
        add_point_sums(r, &old[i], first);
        r->members++;
    }
    for (size_t i = 0; i < new_count; i++)
        centre(&s->regions[i]);
    for (size_t i = 0, next = 0; i < old_count; i++) {
        region *r = &s->regions[new_of[i]];
        int first = new_of[i] == next;
        next += first;
        double area[3];
        memcpy(area, old[i].area, sizeof area);
        if (r->members > 1) {
            double moved[3], turn[3];
            glcollide_vec3_sub(moved, r->centroid, old[i].centroid);
            glcollide_vec3_cross(turn, moved, old[i].segments);
            for (int k = 0; k < 3; k++)
                area[k] += 0.5 * turn[k];
        }
        add_element_sums(r, &old[i], area, first);
    }
    for (size_t i = 0; i < new_count; i++)
        region_normal(&s->regions[i]);
}

static int compare_words(const void *p, const void *q)
{
    uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
    return (a > b) - (a < b);
}

typedef struct shared_job {
    glcollide_contact_scratch *s;
    size_t element_count;
    size_t pair_count[2];
} shared_job;

/* The regions a side's triangle meets through its elements (a run of the
 * side's inside keys, inside_one), where there are several: each next to
 * the following one in region order, as a pair, into the side's keys_tmp
 * (free after inside_one: four words an element, of which the pairs use at
 * most two and the run's regions one) for merge_regions (a task a side). */
static void shared_task(void *user, size_t side, int worker)
{
    (void)worker;
    shared_job *job = user;
    const glcollide_contact_scratch *s = job->s;
    const keyed *keys = s->inside[side].keys;
    uint32_t *pairs = (uint32_t *)(void *)s->inside[side].keys_tmp;
    uint32_t *regions = pairs + 2 * job->element_count;
    size_t count = 0;
    for (size_t first = 0; first < job->element_count;) {
        uint64_t own = keys[first].key >> 32;
        uint32_t at = s->region_of[keys[first].index];
        size_t end = first + 1;
        int several = 0;
        for (; end < job->element_count && keys[end].key >> 32 == own; end++)
            several |= s->region_of[keys[end].index] != at;
        if (several) {
            size_t n = end - first;
            for (size_t i = 0; i < n; i++)
                regions[i] = s->region_of[keys[first + i].index];
            glcollide_sort(regions, n, sizeof *regions, compare_words);
            for (size_t i = 1; i < n; i++)
                if (regions[i] != regions[i - 1]) {
                    pairs[2 * count] = regions[i - 1];
                    pairs[2 * count + 1] = regions[i];
                    count++;
                }
        }
        first = end;
    }
    job->pair_count[side] = count;
}

/*
 * One overlap can be bounded by several curve components (a hole in a
 * patch, an island where two surfaces graze): components whose pairs share
 * a triangle are joined when their facets agree. A triangle's elements are
 * a run of its side's inside keys (inside_one): the runs of regions are
 * listed on the threads, a side a task (shared_task), and joined here in
 * order. Which regions end up together does not depend on the order of the
 * joins: a set's root is its smallest region. Joined regions are
 * renumbered (*region_count updated), with their sums (merge_sums).
 */
static int merge_regions(glcollide_contact_scratch *s, size_t element_count, size_t point_count,
                         size_t *region_count, int threads)
{
    if (*region_count < 2)
        return GLCOLLIDE_OK;
    uint32_t *parent = s->order; /* free until the output */
    for (size_t i = 0; i < *region_count; i++)
        parent[i] = (uint32_t)i;
    shared_job job = {s, element_count, {0, 0}};
    glcollide_workers_run_chain(2, threads, 0.0, shared_task, &job);
    int joined = 0;
    for (int side = 0; side < 2; side++) { /* in order: side A's triangles, then B's */
        const uint32_t *pairs = (const uint32_t *)(void *)s->inside[side].keys_tmp;
        for (size_t i = 0; i < job.pair_count[side]; i++) {
            uint32_t r1 = pairs[2 * i], r2 = pairs[2 * i + 1];
            uint32_t x = find(parent, r1), y = find(parent, r2);
            if (x == y || !facets_agree(s->regions[r1].facets, s->regions[r2].facets))
                continue;
            parent[x > y ? x : y] = x < y ? x : y;
            joined = 1;
        }
    }
    /* Parts of one curved overlap kept apart for their facets (two sets grown
     * from either side of a sphere's rim): joined when their normals agree
     * within 60 degrees; a right-angled corner stays two regions. */
    for (size_t i = 0; i < s->refused_count; i++) {
        uint32_t r1 = s->region_of[s->refused[i].a], r2 = s->region_of[s->refused[i].b];
        uint32_t x = find(parent, r1), y = find(parent, r2);
        if (x == y || glcollide_vec3_dot(s->regions[r1].normal, s->regions[r2].normal) < 0.5)
            continue;
        parent[x > y ? x : y] = x < y ? x : y;
        joined = 1;
    }
    if (!joined)
        return GLCOLLIDE_OK;
    /* Renumber: roots in order (a root is its set's smallest region). */
    for (size_t i = 0; i < *region_count; i++)
        parent[i] = find(parent, (uint32_t)i);
    /* parent[] now maps to roots; a root's new number is its rank. */
    uint32_t count = 0;
    for (size_t i = 0; i < *region_count; i++)
        if (parent[i] == i)
            parent[i] = count++ | 0x80000000u;
    for (size_t i = 0; i < *region_count; i++)
        parent[i] =
            parent[i] & 0x80000000u ? parent[i] & 0x7fffffffu : parent[parent[i]] & 0x7fffffffu;
    for (size_t i = 0; i < element_count; i++)
        s->region_of[i] = parent[s->region_of[i]];
    size_t old_count = *region_count;
    *region_count = count;
    if (glcollide_contacts_plain_sums) { /* the joined regions summed afresh */
        for (size_t i = 0, next = 0; i < old_count; i++)
            if (parent[i] == next) /* a root: the first of its set */
                s->regions[next++].first_element = s->regions[i].first_element;
        return region_sums(s, element_count, point_count, count, threads);
    }
    /* The old regions' sums aside. */
    if (reserve((void **)&s->region_parts, &s->region_part_capacity, old_count,
                sizeof *s->region_parts))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    memcpy(s->region_parts, s->regions, old_count * sizeof *s->regions);
    merge_sums(s, parent, old_count, count);
    return GLCOLLIDE_OK;
}

/* How close direction d is to the region's normal (or to its second one). */
static double closeness_to_normal(const region *r, const double d[3])
{
    double closeness = glcollide_vec3_dot(d, r->normal);
    if (r->has_second)
        closeness = glcollide_larger(closeness, glcollide_vec3_dot(d, r->second));
    return closeness;
}

/* Offers direction d (unit) to a region's candidates: kept when within the
 * cone around the region's normal (anywhere when that is a guess: touching
 * edges only) and new; a full list keeps the directions closest to that
 * normal (each one's closeness kept beside it). */
static void offer_direction(region *r, double *directions, const double d[3])
{
    double closeness = closeness_to_normal(r, d);
    if (closeness < (r->guessed ? -2.0 : direction_cone))
        return;
    uint32_t worst = 0;
    double worst_closeness = 2.0;
    for (uint32_t i = 0; i < r->direction_count; i++) {
        if (glcollide_vec3_dot(directions + 3 * i, d) > 1.0 - 1e-15)
            return; /* the same face orientation */
        if (r->closeness[i] < worst_closeness) {
            worst_closeness = r->closeness[i];
            worst = i;
        }
    }
    if (r->direction_count < MAX_DIRECTIONS)
        worst = r->direction_count++;
    else if (closeness <= worst_closeness)
        return;
    memcpy(directions + 3 * worst, d, 3 * sizeof *d);
    r->closeness[worst] = closeness;
}

/* Candidate normals per region: its normal (and the vector area's where
 * they differ), then the face normals (n_b, and -n_a) of its pairs near
 * either. */
static int collect_directions(glcollide_contact_scratch *s, size_t element_count,
                              size_t region_count)
{
    if (reserve((void **)&s->directions, &s->direction_capacity, 3 * MAX_DIRECTIONS * region_count,
                sizeof *s->directions))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < region_count; i++) {
        region *r = &s->regions[i];
        double *directions = s->directions + 3 * MAX_DIRECTIONS * i;
        memcpy(directions, r->normal, 3 * sizeof(double));
        r->closeness[0] = closeness_to_normal(r, directions);
        r->direction_count = 1;
        if (r->has_second)
            offer_direction(r, directions, r->second);
    }
    for (size_t i = 0; i < element_count; i++) {
        const element *e = &s->elements[i];
        region *r = &s->regions[s->region_of[i]];
        double *directions = s->directions + 3 * MAX_DIRECTIONS * s->region_of[i];
        double n[3] = {-e->normal_a[0], -e->normal_a[1], -e->normal_a[2]};
        if (glcollide_vec3_dot(e->normal_b, e->normal_b) > 0.0)
            offer_direction(r, directions, e->normal_b);
        if (glcollide_vec3_dot(n, n) > 0.0)
            offer_direction(r, directions, n);
    }
    return GLCOLLIDE_OK;
}

/* The overlap's width along d, from the region's points known to lie in
 * both solids: B's side (curve, B's vertices) on top, A's at the bottom;
 * INFINITY as soon as it exceeds limit. */
static double width_along(const double d[3], const contact_point *points, uint32_t n, double limit,
                          double *top, double *bottom)
{
    *top = -INFINITY;
    *bottom = INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double h = glcollide_vec3_dot(d, points[i].position);
        if (points[i].source != SOURCE_VERTEX_A)
            *top = glcollide_larger(*top, h);
        if (points[i].source != SOURCE_VERTEX_B)
            *bottom = glcollide_smaller(*bottom, h);
        if (*top - *bottom > limit)
            return INFINITY; /* wider than the best so far: not chosen */
    }
    return *top > *bottom ? *top - *bottom : 0.0;
}

/*
 * The region's normal: of its candidates (the vector-area normal and the
 * face normals within 20 degrees of it), the one along which the overlap is
 * thinnest, as separating-axis tests choose a reference face. Flush boxes
 * overlap in a thin slab whose side strips tilt the vector area by about
 * depth / size; the face normal has none of that tilt, and a width measured
 * along a tilted normal would count the face's size into the depth.
 */
static void choose_normal(region *r, const double *directions, const contact_point *points,
                          uint32_t n)
{
    uint32_t best = 0;
    double best_width = INFINITY, top = 0.0, bottom = 0.0;
    for (uint32_t i = 0; i < r->direction_count; i++) {
        double t, b;
        double w = width_along(directions + 3 * i, points, n, best_width, &t, &b);
        if (w < best_width) {
            best_width = w;
            best = i;
            top = t;
            bottom = b;
        }
    }
    memcpy(r->normal, directions + 3 * best, sizeof r->normal);
    r->width = best_width < INFINITY ? best_width : 0.0;
    r->top = top;
    r->bottom = bottom;
}

/*
 * Each point's depth. A vertex inside the other solid: how far it travels
 * along the normal to leave it (through the plane of a partner facing that
 * way), as ODE's box-box collider reports a box's corners. A curve point
 * lies on both surfaces: its depth is the overlap's thickness along the
 * normal through it, where the two faces it lies on let a line run inside
 * both solids: up from it (toward A) when A's face is not turned up and B's
 * face not turned up either (then up to the top of the region's overlap),
 * down from it when both are not turned down. On the rim of a slab whose
 * walls are parallel to the normal (flush boxes) that is the slab's
 * thickness; on a tilted face's crossing line, or a sphere's rim, it is 0.
 */
static void point_depths(const glcollide_contact_scratch *s, const input *in, const region *r,
                         contact_point *points, uint32_t n)
{
    const double slack = 1e-9;
    for (uint32_t i = 0; i < n; i++) {
        contact_point *p = &points[i];
        double h = glcollide_vec3_dot(r->normal, p->position), d = 0.0;
        if (p->source == SOURCE_CURVE) {
            const element *e = &s->elements[p->element];
            double up_a = glcollide_vec3_dot(e->normal_a, r->normal);
            double up_b = glcollide_vec3_dot(e->normal_b, r->normal);
            if (up_a <= slack && up_b <= slack)
                d = glcollide_larger(d, r->top - h);
            if (up_a >= -slack && up_b >= -slack)
                d = glcollide_larger(d, h - r->bottom);
        } else {
            int side = p->source == SOURCE_VERTEX_B;
            double dir[3];
            d = side ? h - r->bottom : r->top - h;
            for (int k = 0; k < 3; k++) /* A leaves B along +n, B leaves A along -n */
                dir[k] = side ? -r->normal[k] : r->normal[k];
            double exit = exit_distance(s, p->position, dir, !side, s->partners + p->first_partner,
                                        p->partner_count);
            if (exit >= 0.0)
                d = exit;
        }
        p->depth = d > 0.0 ? (d < r->width ? d : r->width) : 0.0;
    }
}

/* ---------------------------------------------------------------- the pipeline */

/* Room for each side's part of the inside vertices' search, in two arrays
 * for both sides (fewer buffers to grow as pairs grow). */
static int inside_reserve(glcollide_contact_scratch *s, size_t element_count)
{
    if (reserve((void **)&s->inside_keys, &s->inside_key_capacity, 4 * element_count,
                sizeof *s->inside_keys) ||
        reserve((void **)&s->inside_groups, &s->inside_group_capacity, 2 * element_count,
                sizeof *s->inside_groups))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    for (int side = 0; side < 2; side++) {
        s->inside[side].keys = s->inside_keys + 2 * side * element_count;
        s->inside[side].keys_tmp = s->inside_keys + (2 * side + 1) * element_count;
        s->inside[side].groups = s->inside_groups + side * element_count;
    }
    return GLCOLLIDE_OK;
}

typedef struct connect_job {
    glcollide_contact_scratch *s;
    const input *in;
    size_t element_count, point_count;
    double tol;
    int status;
} connect_job;

/* The elements connected into regions (task 0) beside the first half of
 * each side's inside vertices (tasks 1 and 2): none reads what another
 * writes. */
static void connect_task(void *user, size_t task, int worker)
{
    (void)worker;
    connect_job *job = user;
    if (task == 0)
        job->status = connect_elements(job->s, job->element_count, job->point_count, job->tol);
    else
        inside_side(job->s, job->element_count, job->in, (int)task - 1);
}

typedef struct vertices_job {
    glcollide_contact_scratch *s;
    const input *in;
    vertex_list a; /* A's: the points and partner lists themselves */
    int status[2];
} vertices_job;

/* Once the regions are known: each side's vertices inside the other mesh
 * (a task a side; A's appended to the points, B's set apart). */
static void vertices_task(void *user, size_t side, int worker)
{
    (void)worker;
    vertices_job *job = user;
    if (side) {
        job->s->inside_b.count = job->s->inside_b.partner_count = 0;
        job->status[1] = inside_vertices(job->s, job->in, 1, &job->s->inside_b);
    } else {
        job->status[0] = inside_vertices(job->s, job->in, 0, &job->a);
    }
}

/* The inside vertices of both sides join the points, A's first (B's after
 * them, their partner lists after A's). Errors: OUT_OF_MEMORY. */
static int add_inside_vertices(glcollide_contact_scratch *s, const input *in, int threads,
                               size_t *point_count)
{
    vertices_job job = {
        s,
        in,
        {s->points, *point_count, s->point_capacity, s->partners, 0, s->partner_capacity},
        {0, 0}};
    glcollide_workers_run_chain(2, threads, 0.0, vertices_task, &job);
    s->points = job.a.points; /* A's list may have moved */
    s->point_capacity = job.a.capacity;
    s->partners = job.a.partners;
    s->partner_capacity = job.a.partner_capacity;
    if (job.status[0] || job.status[1])
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    const vertex_list *b = &s->inside_b;
    size_t count = job.a.count, partner_count = job.a.partner_count;
    if (reserve((void **)&s->points, &s->point_capacity, count + b->count, sizeof *s->points) ||
        reserve((void **)&s->partners, &s->partner_capacity, partner_count + b->partner_count,
                sizeof *s->partners))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < b->count; i++) {
        s->points[count + i] = b->points[i];
        s->points[count + i].first_partner += (uint32_t)partner_count;
    }
    if (b->partner_count)
        memcpy(s->partners + partner_count, b->partners, b->partner_count * sizeof *s->partners);
    *point_count = count + b->count;
    return GLCOLLIDE_OK;
}

typedef struct points_job {
    glcollide_contact_scratch *s;
    size_t element_count, point_count, region_count;
    uint32_t *next; /* per part, per region: its points' count, then the next one's place */
    int status;
} points_job;

/* The first point of part k of the points. */
static size_t part_start(const points_job *job, size_t k)
{
    return job->point_count * k / POINT_PARTS;
}

/* Each region's candidate normals (task 0, from the elements alone, about
 * as long as two parts: first, so that the blocks of a chain's job share
 * the five tasks out evenly) beside each part of the points counted by
 * region (tasks 1 .. POINT_PARTS). */
static void count_task(void *user, size_t task, int worker)
{
    (void)worker;
    points_job *job = user;
    glcollide_contact_scratch *s = job->s;
    if (task == 0) {
        job->status = collect_directions(s, job->element_count, job->region_count);
        return;
    }
    task--; /* the points' part */
    uint32_t *count = job->next + task * job->region_count;
    memset(count, 0, job->region_count * sizeof *count);
    for (size_t i = part_start(job, task), end = part_start(job, task + 1); i < end; i++)
        count[s->region_of[s->points[i].element]]++;
}

/* Each part of the points into its regions' buckets, after the earlier
 * parts' points of the same region (a task a part). */
static void scatter_task(void *user, size_t task, int worker)
{
    (void)worker;
    points_job *job = user;
    glcollide_contact_scratch *s = job->s;
    uint32_t *next = job->next + task * job->region_count;
    for (size_t i = part_start(job, task), end = part_start(job, task + 1); i < end; i++)
        s->bucketed[next[s->region_of[s->points[i].element]]++] = s->points[i];
}

/* The points bucketed by region into s->bucketed (stable: element order,
 * then vertices; the order one thread makes), beside each region's candidate
 * normals. Errors: OUT_OF_MEMORY. */
static int bucket_points(glcollide_contact_scratch *s, size_t element_count, size_t point_count,
                         size_t region_count, int threads)
{
    if (reserve((void **)&s->bucketed, &s->bucketed_capacity, point_count, sizeof *s->bucketed))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    points_job job = {s, element_count, point_count, region_count, s->bucket_next, GLCOLLIDE_OK};
    glcollide_workers_run_chain(POINT_PARTS + 1, threads, 0.0, count_task, &job);
    if (job.status)
        return job.status;
    uint32_t offset = 0;
    for (size_t i = 0; i < region_count; i++) {
        region *r = &s->regions[i];
        r->first = offset;
        for (size_t k = 0; k < POINT_PARTS; k++) {
            uint32_t *next = &job.next[k * region_count + i], count = *next;
            *next = offset;
            offset += count;
        }
        r->count = offset - r->first;
    }
    glcollide_workers_run_chain(POINT_PARTS, threads, 0.0, scatter_task, &job);
    return GLCOLLIDE_OK;
}

typedef struct region_job {
    const glcollide_contact_scratch *s;
    const input *in;
    size_t per_region;
} region_job;

/* A region's normal, its points' depths and its manifold (a task: each
 * region writes only itself and its own points). */
static void region_task(void *user, size_t i, int worker)
{
    (void)worker;
    const region_job *job = user;
    const glcollide_contact_scratch *s = job->s;
    region *r = &s->regions[i];
    choose_normal(r, s->directions + 3 * MAX_DIRECTIONS * i, s->bucketed + r->first, r->count);
    point_depths(s, job->in, r, s->bucketed + r->first, r->count);
    select_manifold(s, r, job->per_region);
}

static int generate(glcollide_contact_scratch *s, const input *in,
                    const glcollide_index_pair *candidates, size_t candidate_count,
                    const glcollide_contact_options *options, glcollide_contact *contacts,
                    size_t max_contacts, size_t *count)
{
    size_t element_count = 0, point_count = 0;
    if (prepare_triangles(s, in, candidates, candidate_count, options->threads))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    point_box box;
    if (make_elements(s, in, candidates, candidate_count, options->threads, &element_count,
                      &point_count, &box))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    if (element_count == 0)
        return GLCOLLIDE_OK;
    double tol =
        connect_tolerance * sqrt(distance2(box.lo, box.hi)) + 64.0 * DBL_EPSILON * box.max_abs;
    if (!(tol > 0.0))
        tol = DBL_MIN;
    if (inside_reserve(s, element_count))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    /* The stages of a few tasks each (a side, a kind of sum): shared only
     * where there are enough elements. */
    int side_threads = element_count >= SIDES_IN_PARALLEL ? options->threads : 1;
    connect_job connect = {s, in, element_count, point_count, tol, GLCOLLIDE_OK};
    glcollide_workers_run_chain(3, side_threads, 0.0, connect_task, &connect);
    if (connect.status)
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    connect_near(s, point_count, point_count >= 2 * NEAR_PER_TASK ? options->threads : 1);
    size_t region_count;
    if (number_regions(s, element_count, &region_count))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    if (region_sums(s, element_count, point_count, region_count, options->threads))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    if (merge_regions(s, element_count, point_count, &region_count, side_threads))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    /* Vertices inside the other mesh join their region's points. */
    if (add_inside_vertices(s, in, side_threads, &point_count))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    if (bucket_points(s, element_count, point_count, region_count, side_threads))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    if (reserve((void **)&s->manifold, &s->manifold_capacity, point_count, sizeof *s->manifold) ||
        reserve((void **)&s->picks, &s->pick_capacity, point_count, sizeof *s->picks))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    size_t per_region = options->points_per_region ? options->points_per_region : 4;
    region_job job = {s, in, per_region};
    glcollide_workers_run_chain(region_count,
                                point_count >= REGIONS_IN_PARALLEL ? options->threads : 1, 0.0,
                                region_task, &job);
    for (size_t i = 0; i < region_count; i++)
        s->order[i] = (uint32_t)i;
    /* Regions by importance: deeper, then larger, then key (insertion sort:
     * region counts are small). */
    for (size_t i = 1; i < region_count; i++)
        for (size_t j = i; j > 0; j--) {
            const region *p = &s->regions[s->order[j - 1]], *q = &s->regions[s->order[j]];
            double ap = length3(p->area), aq = length3(q->area);
            int swap = q->width > p->width ||
                       (q->width == p->width &&
                        (aq > ap || (aq == ap && q->first_element < p->first_element)));
            if (!swap)
                break;
            uint32_t t = s->order[j - 1];
            s->order[j - 1] = s->order[j];
            s->order[j] = t;
        }
    /* Turns: pick number 1 of every region, then number 2, ... */
    size_t written = 0;
    for (uint32_t turn = 1; written < max_contacts; turn++) {
        size_t before = written;
        for (size_t o = 0; o < region_count && written < max_contacts; o++) {
            const region *r = &s->regions[s->order[o]];
            if (turn > r->kept)
                continue;
            const contact_point *p = &s->bucketed[s->picks[r->first + turn - 1]];
            glcollide_contact *c = &contacts[written++];
            memcpy(c->position, p->position, sizeof c->position);
            memcpy(c->normal, r->normal, sizeof c->normal);
            c->depth = p->depth;
            c->triangle_a = s->elements[p->element].a;
            c->triangle_b = s->elements[p->element].b;
            c->region = (uint32_t)o;
        }
        if (written == before)
            break;
    }
    /* Output grouped by region, each region's picks in order (unless ranked). */
    *count = options->ranked ? written
                             : glcollide_contacts_select(contacts, written, written,
                                                         GLCOLLIDE_CONTACTS_MESH_MESH);
    return GLCOLLIDE_OK;
}

static void contact_scratch_release(void *memory)
{
    glcollide_contact_scratch *scratch = memory;
    glcollide_contact_scratch_destroy(&scratch);
}

glcollide_contact_scratch *glcollide_scratch_contacts(glcollide_scratch *scratch, int *status)
{
    *status = GLCOLLIDE_OK;
    if (!scratch->contacts.memory) {
        glcollide_contact_scratch *made = NULL;
        if ((*status = glcollide_contact_scratch_create(&made)) != GLCOLLIDE_OK)
            return NULL;
        scratch->contacts = (glcollide_scratch_part){made, contact_scratch_release};
    }
    return scratch->contacts.memory;
}

int glcollide_contacts_generate(const glcollide_mesh *a, const glcollide_mesh *b,
                                const glcollide_index_pair *candidates, size_t candidate_count,
                                const glcollide_contact_options *options,
                                glcollide_contact *contacts, size_t max_contacts, size_t *count,
                                glcollide_scratch *scratch)
{
    int status = GLCOLLIDE_OK;
    glcollide_contact_scratch *own = scratch ? glcollide_scratch_contacts(scratch, &status) : NULL;
    if (status != GLCOLLIDE_OK) {
        if (count)
            *count = 0;
        return status;
    }
    return glcollide_contacts_generate_arrays(a ? a->positions : NULL, a ? a->triangles : NULL,
                                              b ? b->positions : NULL, b ? b->triangles : NULL,
                                              candidates, candidate_count, contacts, max_contacts,
                                              count, options, own);
}

int glcollide_contacts_generate_arrays(const double *positions_a, const uint32_t *triangles_a,
                                       const double *positions_b, const uint32_t *triangles_b,
                                       const glcollide_index_pair *candidates,
                                       size_t candidate_count, glcollide_contact *contacts,
                                       size_t max_contacts, size_t *count,
                                       const glcollide_contact_options *options,
                                       glcollide_contact_scratch *scratch)
{
    if (!count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "contacts: count is NULL");
    *count = 0;
    if (candidate_count > 0 &&
        (!positions_a || !triangles_a || !positions_b || !triangles_b || !candidates))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "contacts: NULL mesh arrays or candidates with %zu candidates",
                              candidate_count);
    if (max_contacts > 0 && !contacts)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "contacts: contacts is NULL with max_contacts %zu", max_contacts);
    if (candidate_count == 0 || max_contacts == 0)
        return GLCOLLIDE_OK;
    glcollide_contact_options defaults = glcollide_contact_default_options();
    if (!options)
        options = &defaults;
    glcollide_contact_scratch own = {0}, *s = scratch ? scratch : &own;
    input in = {positions_a, positions_b, triangles_a, triangles_b};
    int status =
        generate(s, &in, candidates, candidate_count, options, contacts, max_contacts, count);
    if (s == &own)
        scratch_release(&own);
    if (status != GLCOLLIDE_OK)
        *count = 0; /* logged by the array helper */
    return status;
}

/* ---------------------------------------------------------------- containment */

/* A solid's vertex in world space. */
static void solid_vertex(const glcollide_contact_solid *s, size_t v, double out[3])
{
    glcollide_pose_transform_points(&s->pose, s->mesh->positions + 3 * v, 1, out);
}

/* World point p in the solid's object space (the rotation's transpose). */
static void to_object(const glcollide_contact_solid *s, const double p[3], double out[3])
{
    double m[9], d[3];
    glcollide_pose_rotation_matrix(&s->pose, m);
    glcollide_vec3_sub(d, p, s->pose.translation);
    for (int k = 0; k < 3; k++)
        out[k] = m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
}

/* Is the inner solid inside the outer one? The caller knows their surfaces
 * do not meet, so one vertex decides, if it is clearly away from the other
 * surface: within 1e-9 of the scene's size of it, the solids only touch
 * (rounding put them a hair apart), and nothing is contained. */
static int solid_inside(const glcollide_contact_solid *inner, const glcollide_contact_solid *outer)
{
    if (!outer->closed || !inner->mesh->triangle_count || !outer->mesh->triangle_count ||
        !outer->bvh)
        return 0;
    double world[3], local[3];
    solid_vertex(inner, inner->mesh->triangles[0], world);
    to_object(outer, world, local);
    glcollide_aabb box = glcollide_bvh_bounds(outer->bvh);
    double size = 0.0;
    for (int k = 0; k < 3; k++)
        size = fmax(size, fmax(fabs(box.min[k]), fabs(box.max[k])));
    if (!(glcollide_bvh_nearest_positions(outer->bvh, outer->mesh->positions, local, NULL, NULL) >
          1e-9 * size))
        return 0;
    return glcollide_point_in_mesh_arrays(outer->mesh->positions, outer->mesh->triangles,
                                          outer->mesh->triangle_count, outer->bvh, local);
}

/*
 * Contacts pushing inner out of outer: the way out is toward the point s of
 * outer's surface nearest to inner's centroid c (direction u = s - c); the
 * depth is how far inner must travel along u for its last vertex to pass the
 * plane through s normal to u; the points are inner's vertices, the
 * trailing one first, then spread (farthest-point sampling in the plane
 * normal to u). One region, uniform depth: the whole solid moves.
 */
static size_t push_out(const glcollide_contact_solid *inner, const glcollide_contact_solid *outer,
                       int inner_is_a, size_t per_region, glcollide_contact *contacts, size_t max)
{
    size_t n = inner->mesh->vertex_count;
    double c[3] = {0, 0, 0};
    for (size_t v = 0; v < n; v++) {
        double w[3];
        solid_vertex(inner, v, w);
        for (int k = 0; k < 3; k++)
            c[k] += w[k] / (double)n;
    }
    double c_local[3], s_local[3], s[3], u[3];
    uint32_t nearest = 0;
    to_object(outer, c, c_local);
    if (!(glcollide_bvh_nearest_positions(outer->bvh, outer->mesh->positions, c_local, s_local,
                                          &nearest) < INFINITY))
        return 0;
    glcollide_pose_transform_points(&outer->pose, s_local, 1, s);
    glcollide_vec3_sub(u, s, c);
    double len = length3(u);
    if (!(len > 0.0)) { /* the centroid on the surface: the face's outward normal */
        const uint32_t *t = outer->mesh->triangles + 3 * (size_t)nearest;
        double p[3][3];
        for (int i = 0; i < 3; i++)
            solid_vertex(outer, t[i], p[i]);
        const double *tri[3] = {p[0], p[1], p[2]};
        if (!unit_normal(tri, u))
            return 0;
        len = 1.0;
    } else {
        for (int k = 0; k < 3; k++)
            u[k] /= len;
    }
    double depth = 0.0;
    for (size_t v = 0; v < n; v++) {
        double w[3], d[3];
        solid_vertex(inner, v, w);
        glcollide_vec3_sub(d, s, w);
        depth = fmax(depth, glcollide_vec3_dot(d, u));
    }
    if (!isfinite(depth))
        return 0;
    /* Farthest-point sampling over the vertices in the plane normal to u,
     * from the trailing vertex; ties to the smaller index. */
    double e1[3], e2[3];
    glcollide_plane_basis(u, e1, e2);
    size_t want = per_region < max ? per_region : max, count = 0;
    size_t picked[64];
    if (want > 64)
        want = 64;
    size_t first = 0;
    double first_h = INFINITY;
    for (size_t v = 0; v < n; v++) {
        double w[3];
        solid_vertex(inner, v, w);
        double h = glcollide_vec3_dot(w, u);
        if (h < first_h) {
            first_h = h;
            first = v;
        }
    }
    picked[count++] = first;
    while (count < want) {
        size_t best = SIZE_MAX;
        double best_d = 0.0;
        for (size_t v = 0; v < n; v++) {
            double w[3];
            solid_vertex(inner, v, w);
            double nearest_d = INFINITY;
            for (size_t i = 0; i < count; i++) {
                double q[3], d[3];
                solid_vertex(inner, picked[i], q);
                glcollide_vec3_sub(d, w, q);
                double du = glcollide_vec3_dot(d, e1), dv = glcollide_vec3_dot(d, e2);
                nearest_d = fmin(nearest_d, du * du + dv * dv);
            }
            if (nearest_d > best_d) {
                best_d = nearest_d;
                best = v;
            }
        }
        if (best == SIZE_MAX)
            break;
        picked[count++] = best;
    }
    /* A triangle of inner using each picked vertex (for side1/side2). */
    for (size_t i = 0; i < count; i++) {
        glcollide_contact *out = &contacts[i];
        solid_vertex(inner, picked[i], out->position);
        uint32_t owner = 0;
        for (size_t t = 0; t < 3 * inner->mesh->triangle_count; t++)
            if (inner->mesh->triangles[t] == picked[i]) {
                owner = (uint32_t)(t / 3);
                break;
            }
        for (int k = 0; k < 3; k++) /* from B toward A: A moves along it */
            out->normal[k] = inner_is_a ? u[k] : -u[k];
        out->depth = depth;
        out->triangle_a = inner_is_a ? owner : nearest;
        out->triangle_b = inner_is_a ? nearest : owner;
        out->region = 0;
    }
    return count;
}

int glcollide_contacts_containment(const glcollide_contact_solid *a,
                                   const glcollide_contact_solid *b,
                                   const glcollide_contact_options *options,
                                   glcollide_contact *contacts, size_t max_contacts, size_t *count)
{
    if (!count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "contacts: count is NULL");
    *count = 0;
    if (!a || !b || !a->mesh || !b->mesh || (max_contacts > 0 && !contacts) ||
        (a->mesh->triangle_count && (!a->mesh->positions || !a->mesh->triangles)) ||
        (b->mesh->triangle_count && (!b->mesh->positions || !b->mesh->triangles)))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "contacts: NULL solid, arrays or contacts for containment");
    if (max_contacts == 0)
        return GLCOLLIDE_OK;
    glcollide_contact_options defaults = glcollide_contact_default_options();
    size_t per_region = options && options->points_per_region ? options->points_per_region
                                                              : defaults.points_per_region;
    if (a->bvh && solid_inside(a, b))
        *count = b->bvh ? push_out(a, b, 1, per_region, contacts, max_contacts) : 0;
    else if (b->bvh && solid_inside(b, a))
        *count = a->bvh ? push_out(b, a, 0, per_region, contacts, max_contacts) : 0;
    return GLCOLLIDE_OK;
}
