/* SPDX-License-Identifier: MIT */
/*
 * Contacts between a triangle mesh and an analytic primitive (a plane's
 * half-space, a sphere, a capsule, a box, a cylinder), in the contact-region
 * model of contacts.c: one normal per connected region of the overlap, a
 * depth scale that undoes it, and a small manifold of points spread over it
 * (glcollide_manifold_select, as mesh-mesh contacts are chosen).
 *
 * Frame. Everything happens in the primitive's own frame (a plane: z = 0,
 * solid below), where the primitive is exact and simple: the mesh is never
 * transformed as a whole. Its object-space BVH is traversed against the
 * primitive brought into the mesh's frame (a half-space, or the primitive's
 * oriented box), and only the triangles found are brought into the
 * primitive's frame, once each. So a mesh resting on a plane costs in
 * proportion to the triangles near the plane, not to the mesh.
 *
 * 1. Triangles. Each candidate is tested exactly against the primitive
 *    (grown by 1e-12 of the scene's size, so that touching counts however
 *    the transforms rounded): a plane by its corners' heights, a sphere or a
 *    capsule by the distance from its core (point or segment), a box by
 *    clipping the triangle to it (the exact polygon of the triangle inside),
 *    a cylinder by clipping to its caps and measuring the distance from its
 *    axis.
 * 2. Regions: triangles are connected through the mesh's vertices inside
 *    the primitive and its edges through it, found by their coordinates (so
 *    that meshes whose triangles do not share vertex indices connect too):
 *    the connected parts of the mesh's surface inside the primitive.
 * 3. Normal, from the primitive toward the mesh (moving the mesh along it
 *    separates them):
 *    - plane: the plane's normal;
 *    - sphere, capsule: along the shortest segment between the core and the
 *      region (the direction of least penetration; reversed when the core is
 *      inside the mesh: by the nearest face's side where that is clear, else
 *      by exact point-in-solid for a closed mesh, else by the pseudo-normal
 *      of the faces nearest);
 *    - box, cylinder: the overlap volume's gradient, as for two meshes: minus
 *      the vector area of the mesh's surface inside the primitive (exact
 *      polygons for a box; for a cylinder the caps exact and the round side
 *      by its circumscribed 32-sided prism, which tilts no flat contact),
 *      then, as separating-axis tests choose a reference face, the
 *      primitive's face normals and the region's face normals within 20
 *      degrees of it are tried and the one across which the overlap is
 *      thinnest is kept (the strips of side faces sunk into a flush face
 *      tilt the vector area by depth / size; a face normal has no tilt);
 *    - an open mesh whose border edge runs through a box or cylinder (a
 *      panel's top edge under a wheel): also the directions across each
 *      such edge in its face's plane, each direction's width at least the
 *      exits of the edges' points inside (a sheet has no inside: its
 *      points' spread says nothing of how far it must move).
 * 4. Points, and depths along the normal:
 *    - mesh vertices inside the primitive: how far the mesh must move along
 *      the normal for the vertex to leave the primitive (the exit of the
 *      ray from it: exact for every shape);
 *    - points of the primitive inside the mesh (a box's corners, a
 *      cylinder's rims: its lowest points toward the mesh and 8 fixed points
 *      on each rim): how far they lie from the mesh surface they leave
 *      through along the normal, found by casting a ray at the region's
 *      triangles within the primitive (a point whose ray first meets a face
 *      from outside, or none within the primitive, is not inside);
 *    - points of the curve where the surfaces cross (the box's clipped
 *      polygons' corners on its faces, a cylinder's crossings with the
 *      mesh's edges and its rims' with the faces), depth as for vertices;
 *      they are used only when a region has no point of the first two kinds
 *      (an edge across an edge): depth-0 rims of a sunk face would otherwise
 *      be picked for their spread over the deep corners that carry it; a
 *      box's deep ones well outside the others' support stay (a box across
 *      a mesh's edge);
 *    - a cylinder lying on its round side: the ends of its lowest line's
 *      part over and behind the region's faces, where the mesh ends under
 *      it or it comes out of the faces (a wheel overhanging a road's
 *      border: the line contact's second end, which no rim point gives);
 *      across a border edge: the edge's deepest point;
 *    - a cylinder past a mesh edge that lies inside its round side (a wheel
 *      rolled past the end of a sheet): on each cap whose rim has no point
 *      inside the mesh, the deepest of the edges' crossings with that cap,
 *      the end of the line contact along the edge;
 *    - a sphere's region gets its nearest point only (a point contact: a
 *      ring of rim points would resist rolling), a capsule's the nearest
 *      points to its core's ends and to the core, and the ends of the
 *      core's part over each face within the radius (a line contact keeps
 *      its two ends, also across a patch narrower than the core).
 *    No depth exceeds the region's overlap width along the normal (box,
 *    cylinder: from the highest point of the primitive's part inside the
 *    mesh to the lowest of the mesh's part inside the primitive, as in
 *    contacts.c; others: the deepest point's exact depth).
 * 5. Manifold: per region points_per_region (default 4) points chosen by
 *    glcollide_manifold_select, keyed by (kind, triangle, feature) so that a
 *    resting pair keeps the same contacts step after step; regions take
 *    turns when the caller's buffer is smaller (the count never grows with
 *    the buffer).
 * 6. Containment: a primitive wholly inside a closed mesh (no triangle meets
 *    it) is pushed out toward the mesh surface nearest its centre, by the
 *    depth its farthest point must travel (exact point-in-solid first). A
 *    mesh wholly inside a box or cylinder has no vector area: its region's
 *    normal is the face normal along which the mesh leaves soonest.
 *
 * Deterministic: candidates are sorted by triangle index, every tie broken
 * by keys. Scratch memory lives in a glcollide_primitive_scratch and only
 * grows, so a warm step allocates nothing.
 */
#include "contacts/contacts_internal.h"
#include "contacts/manifold.h"
#include "geometry/geometry_internal.h"
#include "geometry/primitive_shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Key order at ties: the mesh's own vertices, then the primitive's points,
 * then curve points. */
enum { SOURCE_MESH = 0, SOURCE_PRIMITIVE = 1, SOURCE_CURVE = 2 };
enum { MAX_DIRECTIONS = 16, RIM_SAMPLES = 8 };
/* A cylinder's points' labels: its rims' fixed samples are 0 to
 * 2 RIM_SAMPLES - 1, then each rim's lowest point, then its line's ends. */
enum { LOWEST_LABEL = 64, LINE_END_LABEL = 66 };
/* Its curve points' labels: a mesh edge's crossings with its surface from
 * EDGE_CROSSING_LABEL (two per edge), a face's with its rims from
 * RIM_CROSSING_LABEL. */
enum { EDGE_CROSSING_LABEL = 8, RIM_CROSSING_LABEL = 16 };

/* Face normals within this cosine (20 degrees) of a region's vector-area
 * normal are tried as its normal. */
static const double direction_cone = 0.9396926207859084;

/* A triangle that meets the primitive. */
typedef struct candidate {
    uint32_t id;       /* the mesh's triangle index */
    uint32_t parent;   /* union-find; then its region */
    double p[9];       /* corners in the primitive's frame */
    double normal[3];  /* unit outward normal (0 without area) */
    double area[3];    /* box, cylinder: vector area of its part inside */
    double distance;   /* sphere, capsule: from the core */
    double on_mesh[3]; /* sphere, capsule: the nearest pair */
    double on_core[3];
    uint32_t vertex[3]; /* its corners' slots in the vertex table */
    uint32_t root;      /* its set's first candidate, once connected */
    int polygon_count;  /* box: its part inside, with each corner's label */
    double polygon[9][3];
    uint32_t label[9];
} candidate;

typedef struct point {
    double position[3];
    double hit[3]; /* a primitive's point: where its ray leaves the mesh */
    double depth;
    uint32_t candidate; /* the triangle it lies on or leaves the mesh through */
    uint32_t source;
    uint32_t label; /* the feature that made it, within its source and triangle */
    uint32_t rank;  /* 0, or its pick's rank in the region's manifold */
} point;

typedef struct region {
    double lo[3], hi[3]; /* its triangles' box in the primitive's frame */
    double normal[3];
    double area[3];
    double total_area;
    double width;
    uint32_t first;   /* its first candidate: the region's key */
    uint32_t nearest; /* sphere, capsule: the candidate nearest the core */
    uint32_t first_member, member_count;
    uint32_t first_point, point_count;
    uint32_t kept;
    double edge_width; /* an open mesh's: the least width by its border edges (border_edges) */
} region;

/* The part of a cylinder's lowest line over one face (line_over_face). */
typedef struct line_span {
    double t[2];        /* along the axis */
    uint32_t candidate; /* the face */
} line_span;

/* A corner position met this call: its first candidate with it inside. */
typedef struct vertex_slot {
    double x[3];
    uint32_t stamp, first_inside; /* in use when stamp is the call's epoch */
} vertex_slot;

/* An edge (two vertex slots) of a candidate: its first candidate through
 * the primitive, and how many candidates have it (1: the mesh's border,
 * where the edge meets the primitive, since every face that has such an
 * edge meets the primitive too). */
typedef struct edge_slot {
    uint64_t key;
    uint32_t stamp, first, uses;
} edge_slot;

struct glcollide_primitive_scratch {
    uint32_t *ids, *ids_tmp;
    size_t id_count, id_capacity, ids_tmp_capacity;
    candidate *candidates;
    size_t candidate_count, candidate_capacity;
    uint32_t *members; /* candidates by region */
    size_t member_capacity;
    point *points;
    size_t point_capacity;
    region *regions;
    size_t region_capacity;
    uint32_t *order;
    size_t order_capacity;
    vertex_slot *vertices;
    size_t vertex_capacity;
    edge_slot *edges;
    size_t edge_capacity;
    size_t table_size; /* slots in use in both tables: a power of two */
    uint32_t epoch;    /* of this call: the tables' slots of other calls are free */
    glcollide_manifold_point *manifold;
    size_t manifold_capacity;
    double (*planes)[4]; /* a region's distinct face planes: normal, offset */
    size_t plane_capacity;
    line_span *spans; /* a cylinder's lowest line over the region's faces */
    size_t span_capacity;
};

int glcollide_primitive_scratch_create(glcollide_primitive_scratch **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "primitive contacts: scratch out is NULL");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                              "primitive contacts: out of memory for scratch");
    return GLCOLLIDE_OK;
}

void glcollide_primitive_scratch_destroy(glcollide_primitive_scratch **scratch)
{
    if (!scratch || !*scratch)
        return;
    glcollide_primitive_scratch *s = *scratch;
    free(s->ids);
    free(s->ids_tmp);
    free(s->candidates);
    free(s->members);
    free(s->points);
    free(s->regions);
    free(s->order);
    free(s->vertices);
    free(s->edges);
    free(s->manifold);
    free(s->planes);
    free(s->spans);
    free(s);
    *scratch = NULL;
}

static int reserve(void **array, size_t *capacity, size_t count, size_t size)
{
    return glcollide_array_reserve(array, capacity, count, size, "primitive contacts");
}

/* ---------------------------------------------------------------- frame */

/* One call's setting: the primitive's shape and where the mesh lies in its
 * frame (local = m x_object + u), and the way back to the world. */
typedef struct frame {
    primitive_shape shape;
    double m[9], u[3];
    double rotation[9], translation[3]; /* the primitive's frame in the world */
    const glcollide_contact_solid *mesh;
    size_t per_region;
} frame;

static int finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* A pose's rotation matrix, its quaternion normalised; 0 if not finite. */
static int pose_matrix(const glcollide_pose *pose, double m[9])
{
    double q = 0.0;
    for (int k = 0; k < 4; k++)
        q += pose->rotation[k] * pose->rotation[k];
    if (!finite3(pose->translation) || !isfinite(q) || !(q > 0.0))
        return 0;
    glcollide_pose unit = *pose;
    for (int k = 0; k < 4; k++)
        unit.rotation[k] = pose->rotation[k] / sqrt(q);
    glcollide_pose_rotation_matrix(&unit, m);
    return 1;
}

/* The primitive's shape from its parameters; an error (logged) when they
 * are not finite or not positive. */
static int make_shape(const glcollide_primitive *p, primitive_shape *s)
{
    memset(s, 0, sizeof *s);
    s->kind = p->kind;
    const double *z = p->size;
    int ok = isfinite(z[0]) && z[0] > 0.0;
    switch (p->kind) {
    case GLCOLLIDE_PRIMITIVE_PLANE:
        ok = finite3(p->plane) && isfinite(p->plane[3]) &&
             glcollide_vec3_dot(p->plane, p->plane) > 0.0;
        if (!ok)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "primitive contacts: plane (%g, %g, %g, %g) has no finite "
                                  "normal and offset",
                                  p->plane[0], p->plane[1], p->plane[2], p->plane[3]);
        return GLCOLLIDE_OK;
    case GLCOLLIDE_PRIMITIVE_SPHERE: s->radius = z[0]; break;
    case GLCOLLIDE_PRIMITIVE_CAPSULE:
        ok = ok && isfinite(z[1]) && z[1] >= 0.0;
        s->radius = z[0];
        s->half_length = 0.5 * z[1];
        break;
    case GLCOLLIDE_PRIMITIVE_CYLINDER:
        ok = ok && isfinite(z[1]) && z[1] > 0.0;
        s->radius = z[0];
        s->half_length = 0.5 * z[1];
        break;
    case GLCOLLIDE_PRIMITIVE_BOX:
        ok = ok && isfinite(z[1]) && z[1] > 0.0 && isfinite(z[2]) && z[2] > 0.0;
        for (int k = 0; k < 3; k++)
            s->half[k] = 0.5 * z[k];
        break;
    default:
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "primitive contacts: unknown primitive kind %d", (int)p->kind);
    }
    if (!ok)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "primitive contacts: size (%g, %g, %g) of a %s is not positive "
                              "and finite",
                              z[0], z[1], z[2],
                              p->kind == GLCOLLIDE_PRIMITIVE_SPHERE    ? "sphere"
                              : p->kind == GLCOLLIDE_PRIMITIVE_CAPSULE ? "capsule"
                              : p->kind == GLCOLLIDE_PRIMITIVE_BOX     ? "box"
                                                                       : "cylinder");
    return GLCOLLIDE_OK;
}

/* The plane's frame: z along its unit normal, origin the foot of the mesh's
 * origin on it (coordinates stay of the mesh's size). */
static void plane_frame(const glcollide_primitive *p, const double mesh_origin[3], frame *f)
{
    double n[3], len = sqrt(glcollide_vec3_dot(p->plane, p->plane)), e1[3], e2[3];
    for (int k = 0; k < 3; k++)
        n[k] = p->plane[k] / len;
    double offset = p->plane[3] / len;
    glcollide_plane_basis(n, e1, e2);
    double height = glcollide_vec3_dot(n, mesh_origin) - offset;
    for (int k = 0; k < 3; k++) {
        f->rotation[3 * k] = e1[k];
        f->rotation[3 * k + 1] = e2[k];
        f->rotation[3 * k + 2] = n[k];
        f->translation[k] = mesh_origin[k] - height * n[k];
    }
}

static double shape_size(const primitive_shape *s)
{
    switch (s->kind) {
    case GLCOLLIDE_PRIMITIVE_BOX: return fmax(s->half[0], fmax(s->half[1], s->half[2]));
    case GLCOLLIDE_PRIMITIVE_PLANE: return 0.0;
    default: return s->radius + s->half_length;
    }
}

static int make_frame(const glcollide_contact_solid *mesh, const glcollide_primitive *p,
                      const glcollide_contact_options *options, frame *f)
{
    memset(f, 0, sizeof *f);
    f->mesh = mesh;
    f->per_region = options && options->points_per_region ? options->points_per_region : 4;
    int status = make_shape(p, &f->shape);
    if (status != GLCOLLIDE_OK)
        return status;
    double ra[9];
    if (!pose_matrix(&mesh->pose, ra))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "primitive contacts: the mesh's pose is not finite");
    if (p->kind == GLCOLLIDE_PRIMITIVE_PLANE) {
        plane_frame(p, mesh->pose.translation, f);
    } else {
        if (!pose_matrix(&p->pose, f->rotation))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "primitive contacts: the primitive's pose is not finite");
        memcpy(f->translation, p->pose.translation, sizeof f->translation);
    }
    /* m = R_p^T R_a, u = R_p^T (t_a - t_p) */
    double dt[3];
    glcollide_vec3_sub(dt, mesh->pose.translation, f->translation);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            f->m[3 * i + j] = f->rotation[i] * ra[j] + f->rotation[3 + i] * ra[3 + j] +
                              f->rotation[6 + i] * ra[6 + j];
        f->u[i] = f->rotation[i] * dt[0] + f->rotation[3 + i] * dt[1] + f->rotation[6 + i] * dt[2];
    }
    glcollide_aabb bounds = glcollide_bvh_bounds(mesh->bvh);
    double size = 0.0;
    for (int k = 0; k < 3 && bounds.max[0] >= bounds.min[0]; k++)
        size += bounds.max[k] - bounds.min[k];
    double scale = size + shape_size(&f->shape) + sqrt(glcollide_vec3_dot(f->u, f->u));
    f->shape.eps = 1e-12 * scale;
    return GLCOLLIDE_OK;
}

static void to_local(const frame *f, const double x[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = f->m[3 * i] * x[0] + f->m[3 * i + 1] * x[1] + f->m[3 * i + 2] * x[2] + f->u[i];
}

static void to_object(const frame *f, const double local[3], double out[3])
{
    double d[3];
    glcollide_vec3_sub(d, local, f->u);
    for (int j = 0; j < 3; j++)
        out[j] = f->m[j] * d[0] + f->m[3 + j] * d[1] + f->m[6 + j] * d[2];
}

static void to_world(const frame *f, const double local[3], double out[3], int direction)
{
    for (int i = 0; i < 3; i++)
        out[i] = f->rotation[3 * i] * local[0] + f->rotation[3 * i + 1] * local[1] +
                 f->rotation[3 * i + 2] * local[2] + (direction ? 0.0 : f->translation[i]);
}

/* ---------------------------------------------------------------- candidates */

typedef struct id_list {
    glcollide_primitive_scratch *s;
    int status;
} id_list;

static int collect_id(uint32_t triangle, void *user)
{
    id_list *list = user;
    glcollide_primitive_scratch *s = list->s;
    if (reserve((void **)&s->ids, &s->id_capacity, s->id_count + 1, sizeof *s->ids)) {
        list->status = GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        return 1;
    }
    s->ids[s->id_count++] = triangle;
    return 0;
}

/* The candidates' triangle indices in increasing order (radix sort by
 * bytes, skipping the bytes all share), so that nothing depends on the
 * BVH's order. */
static int sort_ids(glcollide_primitive_scratch *s)
{
    size_t n = s->id_count;
    if (n < 2)
        return GLCOLLIDE_OK;
    if (reserve((void **)&s->ids_tmp, &s->ids_tmp_capacity, n, sizeof *s->ids_tmp))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    uint32_t *from = s->ids, *to = s->ids_tmp, all_or = 0, all_and = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        all_or |= from[i];
        all_and &= from[i];
    }
    for (int shift = 0; shift < 32; shift += 8) {
        if (((all_or ^ all_and) >> shift & 0xff) == 0)
            continue; /* every id has the same byte here */
        size_t offset[256] = {0};
        for (size_t i = 0; i < n; i++)
            offset[from[i] >> shift & 0xff]++;
        glcollide_counts_to_offsets(offset, 256);
        for (size_t i = 0; i < n; i++)
            to[offset[from[i] >> shift & 0xff]++] = from[i];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != s->ids)
        memcpy(s->ids, from, n * sizeof *s->ids);
    return GLCOLLIDE_OK;
}

/* The triangles whose boxes meet the primitive, by the mesh's BVH in its own
 * frame, sorted. */
static int find_candidates(glcollide_primitive_scratch *s, const frame *f)
{
    id_list list = {s, GLCOLLIDE_OK};
    s->id_count = 0;
    const primitive_shape *sh = &f->shape;
    if (sh->kind == GLCOLLIDE_PRIMITIVE_PLANE) {
        /* local z = m[2] . x + u[2] <= eps */
        glcollide_bvh_query_half_space(f->mesh->bvh, f->m + 6, sh->eps - f->u[2], collect_id,
                                       &list);
    } else {
        double centre[3], zero[3] = {0, 0, 0}, half[3];
        to_object(f, zero, centre);
        switch (sh->kind) {
        case GLCOLLIDE_PRIMITIVE_BOX: memcpy(half, sh->half, sizeof half); break;
        case GLCOLLIDE_PRIMITIVE_CAPSULE:
            half[0] = half[1] = sh->radius;
            half[2] = sh->half_length + sh->radius;
            break;
        default:
            half[0] = half[1] = sh->radius;
            half[2] = sh->kind == GLCOLLIDE_PRIMITIVE_SPHERE ? sh->radius : sh->half_length;
            break;
        }
        for (int k = 0; k < 3; k++)
            half[k] += 2.0 * sh->eps;
        glcollide_bvh_query_oriented_box(f->mesh->bvh, centre, f->m, half, collect_id, &list);
    }
    if (list.status == GLCOLLIDE_OK)
        list.status = sort_ids(s);
    return list.status;
}

static void corners(const candidate *c, const double *t[3])
{
    for (int i = 0; i < 3; i++)
        t[i] = c->p + 3 * i;
}

static void unit_normal(const double *const t[3], double n[3])
{
    double a[3], b[3];
    glcollide_vec3_sub(a, t[1], t[0]);
    glcollide_vec3_sub(b, t[2], t[0]);
    glcollide_vec3_cross(n, a, b);
    double len = sqrt(glcollide_vec3_dot(n, n)), inverse = len > 0.0 ? 1.0 / len : 0.0;
    for (int k = 0; k < 3; k++)
        n[k] *= inverse;
}

/* Does the candidate's triangle meet the primitive? Fills what its kind
 * needs later. */
static int meets(const frame *f, candidate *c)
{
    const primitive_shape *s = &f->shape;
    const double *t[3];
    corners(c, t);
    double r = s->radius + s->eps;
    switch (s->kind) {
    case GLCOLLIDE_PRIMITIVE_PLANE:
        return t[0][2] <= s->eps || t[1][2] <= s->eps || t[2][2] <= s->eps;
    case GLCOLLIDE_PRIMITIVE_SPHERE: {
        static const double origin[3] = {0, 0, 0};
        glcollide_closest_point_on_triangle(origin, t[0], t[1], t[2], c->on_mesh);
        memset(c->on_core, 0, sizeof c->on_core);
        c->distance = sqrt(glcollide_vec3_dot(c->on_mesh, c->on_mesh));
        return c->distance <= r;
    }
    case GLCOLLIDE_PRIMITIVE_CAPSULE: {
        double a[3] = {0, 0, -s->half_length}, b[3] = {0, 0, s->half_length};
        c->distance = sqrt(primitive_segment_triangle(a, b, t, c->on_core, c->on_mesh));
        return c->distance <= r;
    }
    case GLCOLLIDE_PRIMITIVE_BOX: {
        double poly[PRIMITIVE_MAX_POLYGON][3];
        uint32_t label[PRIMITIVE_MAX_POLYGON];
        int n = primitive_clip_triangle(s, t, poly, label);
        glcollide_polygon_vector_area(poly, n, c->area);
        c->polygon_count = n;
        memcpy(c->polygon, poly, (size_t)n * sizeof poly[0]); /* a triangle cut by 6 planes: <= 9 */
        memcpy(c->label, label, (size_t)n * sizeof label[0]);
        return n > 0;
    }
    case GLCOLLIDE_PRIMITIVE_CYLINDER: {
        double poly[PRIMITIVE_MAX_POLYGON][3];
        int n = primitive_clip_triangle(s, t, poly, NULL);
        glcollide_polygon_vector_area(poly, n, c->area);
        return primitive_cylinder_meets(s, t);
    }
    }
    return 0;
}

/* Does segment a b meet the primitive? */
static int edge_meets(const primitive_shape *s, const double a[3], const double b[3])
{
    double d[3], t0, t1, ca[3], cb[3], r = s->radius + s->eps;
    glcollide_vec3_sub(d, b, a);
    switch (s->kind) {
    case GLCOLLIDE_PRIMITIVE_SPHERE: {
        static const double origin[3] = {0, 0, 0};
        return primitive_point_segment(origin, a, b, ca) <= r * r;
    }
    case GLCOLLIDE_PRIMITIVE_CAPSULE: {
        double e0[3] = {0, 0, -s->half_length}, e1[3] = {0, 0, s->half_length};
        return primitive_segment_segment(a, b, e0, e1, ca, cb) <= r * r;
    }
    default:
        if (glcollide_vec3_dot(d, d) == 0.0)
            return primitive_inside(s, a);
        return primitive_line(s, a, d, &t0, &t1) && t1 >= 0.0 && t0 <= 1.0;
    }
}

/* ---------------------------------------------------------------- regions */

static uint64_t coordinate_bits(double x)
{
    uint64_t bits;
    x = x == 0.0 ? 0.0 : x; /* -0 and +0 are one point */
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

/* The slot of a corner position in the vertex table (inserted if new). */
static uint32_t vertex_slot_of(glcollide_primitive_scratch *s, const double x[3])
{
    size_t mask = s->table_size - 1;
    uint64_t h = glcollide_mix64(
        coordinate_bits(x[0]) ^
        glcollide_mix64(coordinate_bits(x[1]) ^ glcollide_mix64(coordinate_bits(x[2]))));
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        vertex_slot *v = &s->vertices[i];
        if (v->stamp != s->epoch) {
            memcpy(v->x, x, sizeof v->x);
            v->stamp = s->epoch;
            v->first_inside = UINT32_MAX;
            return (uint32_t)i;
        }
        if (v->x[0] == x[0] && v->x[1] == x[1] && v->x[2] == x[2])
            return (uint32_t)i;
    }
}

static edge_slot *edge_slot_of(glcollide_primitive_scratch *s, uint32_t a, uint32_t b)
{
    uint64_t key = a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
    size_t mask = s->table_size - 1;
    for (size_t i = (size_t)glcollide_mix64(key) & mask;; i = (i + 1) & mask) {
        edge_slot *e = &s->edges[i];
        if (e->stamp != s->epoch) {
            e->stamp = s->epoch;
            e->key = key;
            e->first = UINT32_MAX;
            e->uses = 0;
            return e;
        }
        if (e->key == key)
            return e;
    }
}

static uint32_t find(candidate *c, uint32_t i)
{
    while (c[i].parent != i) {
        c[i].parent = c[c[i].parent].parent;
        i = c[i].parent;
    }
    return i;
}

/* Joins i to the set of *first (which becomes i's when unset). Roots keep
 * the smaller index, so a region's root is its first candidate. */
static void join(candidate *c, uint32_t *first, uint32_t i)
{
    if (*first == UINT32_MAX) {
        *first = i;
        return;
    }
    uint32_t a = find(c, *first), b = find(c, i);
    if (a < b)
        c[b].parent = a;
    else if (b < a)
        c[a].parent = b;
}

static size_t power_of_two_above(size_t n)
{
    size_t p = 16;
    while (p < n)
        p *= 2;
    return p;
}

/* Union-find through the corners inside and the edges through the
 * primitive, then the regions numbered by their first candidate. */
static int connect(glcollide_primitive_scratch *s, const frame *f, size_t count,
                   size_t *region_count)
{
    size_t slots = power_of_two_above(8 * count), old_v = s->vertex_capacity,
           old_e = s->edge_capacity;
    if (reserve((void **)&s->vertices, &s->vertex_capacity, slots, sizeof *s->vertices) ||
        reserve((void **)&s->edges, &s->edge_capacity, slots, sizeof *s->edges))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    s->table_size = slots;
    /* Slots are free when their stamp is another call's: fresh memory and a
     * wrapped epoch are cleared, nothing else is. */
    if (++s->epoch == 0 || s->vertex_capacity != old_v || s->edge_capacity != old_e) {
        memset(s->vertices, 0, s->vertex_capacity * sizeof *s->vertices);
        memset(s->edges, 0, s->edge_capacity * sizeof *s->edges);
        s->epoch = 1;
    }
    const glcollide_contact_solid *mesh = f->mesh;
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        candidate *c = &s->candidates[i];
        c->parent = i;
        for (int k = 0; k < 3; k++) {
            uint32_t v = mesh->mesh->triangles[3 * (size_t)c->id + k];
            c->vertex[k] = vertex_slot_of(s, mesh->mesh->positions + 3 * (size_t)v);
        }
    }
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        candidate *c = &s->candidates[i];
        int inside[3];
        for (int k = 0; k < 3; k++) {
            inside[k] = primitive_inside(&f->shape, c->p + 3 * k);
            if (inside[k])
                join(s->candidates, &s->vertices[c->vertex[k]].first_inside, i);
        }
        if (f->shape.kind == GLCOLLIDE_PRIMITIVE_PLANE)
            continue; /* an edge into a half-space has a corner in it */
        for (int k = 0; k < 3; k++) {
            /* an edge with a corner inside is joined through the corner, but
             * its slot must exist (its first candidate owns its crossings) */
            int j = (k + 1) % 3;
            edge_slot *e = edge_slot_of(s, c->vertex[k], c->vertex[j]);
            e->uses++;
            if (inside[k] || inside[j] || edge_meets(&f->shape, c->p + 3 * k, c->p + 3 * j))
                join(s->candidates, &e->first, i);
        }
    }
    size_t regions = 0;
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        s->candidates[i].root = find(s->candidates, i);
        regions += s->candidates[i].root == i;
    }
    if (reserve((void **)&s->regions, &s->region_capacity, regions, sizeof *s->regions) ||
        reserve((void **)&s->order, &s->order_capacity, regions, sizeof *s->order) ||
        reserve((void **)&s->members, &s->member_capacity, count, sizeof *s->members))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    /* Roots are their sets' smallest index: numbered in order; a member
     * comes after its root and takes its region. */
    size_t r = 0;
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        candidate *c = &s->candidates[i];
        if (c->root == i) {
            memset(&s->regions[r], 0, sizeof s->regions[r]);
            s->regions[r].first = i;
            c->parent = (uint32_t)r++;
        } else {
            c->parent = s->candidates[c->root].parent;
        }
    }
    for (uint32_t i = 0; i < (uint32_t)count; i++)
        s->regions[s->candidates[i].parent].member_count++;
    uint32_t first = 0;
    for (size_t k = 0; k < r; k++) {
        s->regions[k].first_member = first;
        first += s->regions[k].member_count;
        s->regions[k].member_count = 0;
    }
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        region *g = &s->regions[s->candidates[i].parent];
        s->members[g->first_member + g->member_count++] = i;
    }
    *region_count = r;
    return GLCOLLIDE_OK;
}

/* ---------------------------------------------------------------- points */

static int add_point(glcollide_primitive_scratch *s, size_t *count, const double p[3],
                     uint32_t candidate_index, uint32_t source, uint32_t label)
{
    if (!finite3(p))
        return GLCOLLIDE_OK;
    if (reserve((void **)&s->points, &s->point_capacity, *count + 1, sizeof *s->points))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    point *q = &s->points[(*count)++];
    memcpy(q->position, p, sizeof q->position);
    q->depth = 0.0;
    q->candidate = candidate_index;
    q->source = source;
    q->label = label;
    q->rank = 0;
    return GLCOLLIDE_OK;
}

/* The candidate's corners inside the primitive, each vertex once (from the
 * first candidate that has it inside). */
static int add_inside_corners(glcollide_primitive_scratch *s, const frame *f, uint32_t i,
                              size_t *count)
{
    const candidate *c = &s->candidates[i];
    for (int k = 0; k < 3; k++)
        if (s->vertices[c->vertex[k]].first_inside == i &&
            primitive_inside(&f->shape, c->p + 3 * k) &&
            add_point(s, count, c->p + 3 * k, i, SOURCE_MESH, (uint32_t)k))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    return GLCOLLIDE_OK;
}

/* A box's clipped polygon: its corners that are the triangle's own (inside
 * the box) and those on the box's faces (curve points). */
static int add_box_polygon(glcollide_primitive_scratch *s, const frame *f, uint32_t i,
                           size_t *count)
{
    const candidate *c = &s->candidates[i];
    for (int k = 0; k < c->polygon_count; k++) {
        if ((c->label[k] & 0x3f) == 0) /* on no face: one of the triangle's corners */
            continue;                  /* (added once per vertex, below) */
        if (add_point(s, count, c->polygon[k], i, SOURCE_CURVE, c->label[k]))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    return add_inside_corners(s, f, i, count);
}

/* A cylinder's curve points on the candidate: where its edges cross the
 * surface (each edge once) and where the rims cross its face. */
static int add_cylinder_curve(glcollide_primitive_scratch *s, const frame *f, uint32_t i,
                              size_t *count)
{
    const candidate *c = &s->candidates[i];
    const primitive_shape *sh = &f->shape;
    for (int k = 0; k < 3; k++) {
        int j = (k + 1) % 3;
        const double *a = c->p + 3 * k, *b = c->p + 3 * j;
        double d[3], t0, t1, x[3];
        glcollide_vec3_sub(d, b, a);
        if (edge_slot_of(s, c->vertex[k], c->vertex[j])->first != i ||
            !primitive_line(sh, a, d, &t0, &t1))
            continue;
        double ends[2] = {t0, t1};
        for (int e = 0; e < 2; e++)
            if (ends[e] > 0.0 && ends[e] < 1.0) {
                for (int m = 0; m < 3; m++)
                    x[m] = a[m] + ends[e] * d[m];
                if (add_point(s, count, x, i, SOURCE_CURVE,
                              EDGE_CROSSING_LABEL + 2 * (uint32_t)k + (uint32_t)e))
                    return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
            }
    }
    /* Rim z = h, x^2 + y^2 = r^2 against the face's plane n . x = n . p0. */
    const double *n = c->normal;
    double plan = n[0] * n[0] + n[1] * n[1];
    if (!(plan > 1e-24))
        return GLCOLLIDE_OK; /* parallel to the rims: their points are added apart */
    const double *t[3];
    corners(c, t);
    for (int rim = 0; rim < 2; rim++) {
        double h = rim ? sh->half_length : -sh->half_length;
        double w = glcollide_vec3_dot(n, t[0]) - n[2] * h; /* n_x x + n_y y = w */
        double foot = w / plan, r2 = sh->radius * sh->radius - foot * foot * plan;
        if (r2 < 0.0)
            continue;
        double along = sqrt(r2 / plan);
        for (int e = 0; e < 2; e++) {
            double x[3] = {foot * n[0] + (e ? along : -along) * -n[1],
                           foot * n[1] + (e ? along : -along) * n[0], h};
            double q[3], gap[3];
            glcollide_closest_point_on_triangle(x, t[0], t[1], t[2], q);
            glcollide_vec3_sub(gap, x, q);
            if (glcollide_vec3_dot(gap, gap) <= sh->eps * sh->eps &&
                add_point(s, count, x, i, SOURCE_CURVE,
                          RIM_CROSSING_LABEL + 2 * (uint32_t)rim + (uint32_t)e))
                return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        }
    }
    return GLCOLLIDE_OK;
}

/*
 * Narrows [t0, t1] to where the point q0 + t dq (in the candidate's plane)
 * lies inside the triangle: within each edge's half-plane,
 * ((v1 - v0) x (q - v0)) . n >= 0. Returns 0 when nothing is left.
 */
static int clip_to_triangle(const candidate *c, const double q0[3], const double dq[3], double *t0,
                            double *t1)
{
    for (int k = 0; k < 3 && *t0 <= *t1; k++) {
        const double *v0 = c->p + 3 * k, *v1 = c->p + 3 * ((k + 1) % 3);
        double e[3], m[3], w[3];
        glcollide_vec3_sub(e, v1, v0);
        glcollide_vec3_cross(m, c->normal, e); /* inward across the edge */
        glcollide_vec3_sub(w, q0, v0);
        double rest = glcollide_vec3_dot(m, w), slope = glcollide_vec3_dot(m, dq);
        if (slope == 0.0) {
            if (rest < 0.0)
                return 0;
        } else if (slope > 0.0) {
            *t0 = fmax(*t0, -rest / slope);
        } else {
            *t1 = fmin(*t1, -rest / slope);
        }
    }
    return *t0 <= *t1;
}

/*
 * The part of the capsule's core (z in [-h, h]) lying within the radius in
 * front of a face (its signed distance from the face's plane below r, above
 * -r) and over the face (its foot on the plane inside the triangle): the
 * parameters' interval [t0, t1] of z, the feet there written to feet.
 * Returns 0 when there is none (a face along the core has no foot interval).
 */
static int core_over_face(const primitive_shape *sh, const candidate *c, double feet[2][3])
{
    const double *n = c->normal, *p0 = c->p;
    if (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0)
        return 0; /* no area */
    double r = sh->radius + sh->eps, t0 = -sh->half_length, t1 = sh->half_length;
    /* s(t) = n . ((0, 0, t) - p0) = a + b t, kept in (-r, r) */
    double a = -glcollide_vec3_dot(n, p0), b = n[2];
    const double bounds[2] = {-r, r};
    for (int side = 0; side < 2; side++) {
        double limit = bounds[side], sign = side ? 1.0 : -1.0; /* sign * (a + b t - limit) <= 0 */
        double slope = sign * b, rest = sign * (a - limit);
        if (slope == 0.0) {
            if (rest > 0.0)
                return 0;
        } else if (slope > 0.0) {
            t1 = fmin(t1, -rest / slope);
        } else {
            t0 = fmax(t0, -rest / slope);
        }
    }
    /* the foot q(t) = (0, 0, t) - s(t) n = q0 + t dq, inside each edge's
     * half-plane: ((v1 - v0) x (q - v0)) . n >= 0 */
    double q0[3] = {-a * n[0], -a * n[1], -a * n[2]};
    double dq[3] = {-b * n[0], -b * n[1], 1.0 - b * n[2]};
    if (!clip_to_triangle(c, q0, dq, &t0, &t1))
        return 0;
    const double ts[2] = {t0, t1};
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < 3; k++)
            feet[e][k] = q0[k] + ts[e] * dq[k];
    return 1;
}

/* A capsule's region: the region's nearest points to the core and to each
 * of the core's ends (within the radius), and the ends of the part of the
 * core over each face it lies on (a capsule lying across the faces of a
 * flat patch smaller than its core rests on the patch's extent along it):
 * the ends of a line contact. */
static int add_capsule_points(glcollide_primitive_scratch *s, const frame *f, const region *g,
                              size_t *count)
{
    const primitive_shape *sh = &f->shape;
    for (uint32_t m = 0; m < g->member_count; m++) {
        uint32_t i = s->members[g->first_member + m];
        double feet[2][3];
        if (!core_over_face(sh, &s->candidates[i], feet))
            continue;
        for (int e = 0; e < 2; e++)
            if (add_point(s, count, feet[e], i, SOURCE_MESH, 3 + (uint32_t)e))
                return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    const candidate *nearest = &s->candidates[g->nearest];
    if (add_point(s, count, nearest->on_mesh, g->nearest, SOURCE_MESH, 0))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    double r = sh->radius + sh->eps;
    for (int e = 0; e < 2; e++) {
        double end[3] = {0, 0, e ? sh->half_length : -sh->half_length}, best[3];
        double best_d2 = r * r;
        uint32_t best_i = UINT32_MAX;
        for (uint32_t m = 0; m < g->member_count; m++) {
            uint32_t i = s->members[g->first_member + m];
            const double *t[3];
            corners(&s->candidates[i], t);
            double q[3], d[3];
            glcollide_closest_point_on_triangle(end, t[0], t[1], t[2], q);
            glcollide_vec3_sub(d, q, end);
            double d2 = glcollide_vec3_dot(d, d);
            if (d2 < best_d2 || (best_i == UINT32_MAX && d2 <= best_d2)) {
                best_d2 = d2;
                best_i = i;
                memcpy(best, q, sizeof best);
            }
        }
        if (best_i != UINT32_MAX && add_point(s, count, best, best_i, SOURCE_MESH, 1 + (uint32_t)e))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    return GLCOLLIDE_OK;
}

/* The points of the mesh a region's candidates give (the primitive's own
 * come once the normal is known). */
static int add_mesh_points(glcollide_primitive_scratch *s, const frame *f, region *g, size_t *count)
{
    g->first_point = (uint32_t)*count;
    for (uint32_t m = 0; m < g->member_count; m++) {
        uint32_t i = s->members[g->first_member + m];
        const candidate *c = &s->candidates[i];
        const primitive_shape *sh = &f->shape;
        int status = GLCOLLIDE_OK;
        switch (sh->kind) {
        case GLCOLLIDE_PRIMITIVE_PLANE:
            status = add_inside_corners(s, f, i, count);
            for (int k = 0; k < 3 && status == GLCOLLIDE_OK; k++) {
                const double *a = c->p + 3 * k, *b = c->p + 3 * ((k + 1) % 3);
                if ((a[2] <= sh->eps) == (b[2] <= sh->eps))
                    continue;
                double t = a[2] / (a[2] - b[2]), x[3];
                for (int j = 0; j < 3; j++)
                    x[j] = a[j] + t * (b[j] - a[j]);
                status = add_point(s, count, x, i, SOURCE_CURVE, 8 + (uint32_t)k);
            }
            break;
        case GLCOLLIDE_PRIMITIVE_SPHERE:
            if (i == g->nearest)
                status = add_point(s, count, c->on_mesh, i, SOURCE_MESH, 0);
            break;
        case GLCOLLIDE_PRIMITIVE_CAPSULE:
            if (i == g->nearest)
                status = add_capsule_points(s, f, g, count);
            break;
        case GLCOLLIDE_PRIMITIVE_BOX: status = add_box_polygon(s, f, i, count); break;
        case GLCOLLIDE_PRIMITIVE_CYLINDER:
            status = add_inside_corners(s, f, i, count);
            if (status == GLCOLLIDE_OK)
                status = add_cylinder_curve(s, f, i, count);
            break;
        }
        if (status != GLCOLLIDE_OK)
            return status;
    }
    g->point_count = (uint32_t)(*count - g->first_point);
    return GLCOLLIDE_OK;
}

/* The primitive's points that may lie inside the mesh: a box's corners; a
 * cylinder's rim points farthest along n and 8 fixed points on the rim of
 * a cap that faces along n (within 20 degrees).
 * Returns how many were written (at most 2 + 2 * RIM_SAMPLES). */
static int primitive_points(const primitive_shape *sh, const double n[3],
                            double out[2 + 2 * RIM_SAMPLES][3], uint32_t label[])
{
    int count = 0;
    if (sh->kind == GLCOLLIDE_PRIMITIVE_BOX) {
        for (int k = 0; k < 8; k++) {
            for (int j = 0; j < 3; j++)
                out[count][j] = (k >> j & 1) ? sh->half[j] : -sh->half[j];
            label[count++] = (uint32_t)k;
        }
        return count;
    }
    double plan = sqrt(n[0] * n[0] + n[1] * n[1]);
    for (int rim = 0; rim < 2; rim++) {
        double h = rim ? sh->half_length : -sh->half_length;
        if (plan > 1e-9) {
            out[count][0] = sh->radius * n[0] / plan;
            out[count][1] = sh->radius * n[1] / plan;
            out[count][2] = h;
            label[count++] = LOWEST_LABEL + (uint32_t)rim;
        }
        /* Fixed points on a rim only where its cap faces the mesh: on a
         * cylinder lying on its side they would come and go beside the
         * lowest line as it turns, and rock it. */
        if (fabs(n[2]) < direction_cone || (n[2] > 0.0) != (rim == 1))
            continue;
        static const double c = 0.70710678118654757; /* cos 45 degrees */
        static const double rim_unit[RIM_SAMPLES][2] = {{1, 0},  {c, c},   {0, 1},  {-c, c},
                                                        {-1, 0}, {-c, -c}, {0, -1}, {c, -c}};
        for (int k = 0; k < RIM_SAMPLES; k++) {
            out[count][0] = sh->radius * rim_unit[k][0];
            out[count][1] = sh->radius * rim_unit[k][1];
            out[count][2] = h;
            label[count++] = (uint32_t)(RIM_SAMPLES * rim + k);
        }
    }
    return count;
}

/* The candidate of mesh triangle id (candidates are sorted by id), or
 * UINT32_MAX. */
static uint32_t candidate_of(const glcollide_primitive_scratch *s, uint32_t id)
{
    size_t lo = 0, hi = s->candidate_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->candidates[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->candidate_count && s->candidates[lo].id == id ? (uint32_t)lo : UINT32_MAX;
}

/* A ray cast from a primitive's point at its region's faces, through the
 * mesh's BVH in object space. */
typedef struct region_cast {
    const glcollide_primitive_scratch *s;
    const frame *f;
    uint32_t region;
    double origin[3], direction[3]; /* the primitive's frame */
    double t_max, best;
    uint32_t best_i; /* a candidate, or OUTER_FACE */
} region_cast;

/* best_i of a ray whose first face is no candidate (it misses the primitive). */
enum { OUTER_FACE = UINT32_MAX - 1 };

static int cast_visit(uint32_t triangle, void *user)
{
    region_cast *r = user;
    uint32_t i = candidate_of(r->s, triangle);
    double th, outer[9];
    const double *t[3];
    if (i != UINT32_MAX) {
        corners(&r->s->candidates[i], t);
    } else { /* met beyond the primitive: it hides what lies behind it */
        const glcollide_mesh *mesh = r->f->mesh->mesh;
        for (int k = 0; k < 3; k++) {
            to_local(r->f, mesh->positions + 3 * (size_t)mesh->triangles[3 * (size_t)triangle + k],
                     outer + 3 * k);
            t[k] = outer + 3 * k;
        }
        i = OUTER_FACE; /* after every candidate at a tie */
    }
    if (primitive_ray_triangle(r->origin, r->direction, t, &th) && th >= 0.0 && th <= r->t_max &&
        (th < r->best || (th == r->best && i < r->best_i))) {
        r->best = th;
        r->best_i = i;
    }
    return 0;
}

/*
 * Does primitive point q lie inside the mesh near the region? The ray from q
 * along -n (the way q travels as the mesh moves along n) must first meet one
 * of the region's faces from inside, within the primitive's depth along n (to
 * its far side there, not to where the ray leaves it: from a cylinder's rim
 * point a ray along a face that leans off the cap by a hair leaves the
 * cylinder at once, and the rim sunk into the face would be lost): a face of
 * another region or beyond the primitive met first, from either side, means
 * q is outside or belongs to that region. Returns the distance (the point's
 * depth) and the face's candidate, or a negative distance. The ray starts
 * eps behind q, so that a face through q is met.
 */
static double primitive_point_depth(const glcollide_primitive_scratch *s, const frame *f,
                                    const region *g, const double q[3], const double n[3],
                                    uint32_t *hit)
{
    double eps = f->shape.eps;
    region_cast r = {.s = s,
                     .f = f,
                     .region = (uint32_t)(g - s->regions),
                     .best = INFINITY,
                     .best_i = UINT32_MAX};
    for (int k = 0; k < 3; k++) {
        r.direction[k] = -n[k];
        r.origin[k] = q[k] + eps * n[k];
    }
    r.t_max =
        fmax(glcollide_vec3_dot(n, q) + primitive_support(&f->shape, r.direction), 0.0) + 2.0 * eps;
    for (int k = 0; k < 3; k++) { /* the ray's box must meet the region's */
        double end = r.origin[k] + r.t_max * r.direction[k];
        if (fmax(r.origin[k], end) < g->lo[k] - eps || fmin(r.origin[k], end) > g->hi[k] + eps)
            return -1.0;
    }
    double origin[3], direction[3];
    to_object(f, r.origin, origin);
    for (int j = 0; j < 3; j++) /* a direction: rotation only */
        direction[j] =
            f->m[j] * r.direction[0] + f->m[3 + j] * r.direction[1] + f->m[6 + j] * r.direction[2];
    double t_max = r.t_max;
    glcollide_bvh_query_ray(f->mesh->bvh, origin, direction, &t_max, cast_visit, &r);
    if (r.best_i >= OUTER_FACE)
        return -1.0;
    double depth = r.best - eps;
    const candidate *c = &s->candidates[r.best_i];
    if (!(glcollide_vec3_dot(c->normal, r.direction) > 0.0) && depth > eps)
        return -1.0; /* entered the mesh there: q was outside */
    if (c->parent != r.region)
        return -1.0;
    *hit = r.best_i;
    return fmax(depth, 0.0);
}

/* A point of the primitive inside the mesh, into region g: its depth along
 * n, and where it leaves the mesh (hit). A non-finite point is not added. */
static int add_primitive_point(glcollide_primitive_scratch *s, size_t *count, region *g,
                               const double q[3], uint32_t candidate_index, uint32_t label,
                               double depth, const double n[3])
{
    size_t before = *count;
    if (add_point(s, count, q, candidate_index, SOURCE_PRIMITIVE, label))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    if (*count == before)
        return GLCOLLIDE_OK;
    point *p = &s->points[before];
    p->depth = depth;
    for (int k = 0; k < 3; k++)
        p->hit[k] = q[k] - depth * n[k];
    g->point_count++;
    return GLCOLLIDE_OK;
}

/*
 * The part of a cylinder's lowest line toward the mesh, (line[0], line[1],
 * t) for t in [-h, h], lying behind the face and over it (its foot along n
 * on the face's plane inside the triangle): the interval of t in span.
 * Returns 0 when there is none or the face does not face the cylinder
 * (within 60 degrees of -n).
 */
static int line_over_face(const primitive_shape *sh, const double line[2], const double n[3],
                          const candidate *c, double span[2])
{
    const double *nf = c->normal, *p0 = c->p;
    double approach = glcollide_vec3_dot(nf, n);
    if (!(approach < -0.5))
        return 0;
    /* the depth along n, d(t) = nf . (L(t) - p0) / approach = a + b t, >= 0 */
    double a = (nf[0] * line[0] + nf[1] * line[1] - glcollide_vec3_dot(nf, p0)) / approach,
           b = nf[2] / approach, t0 = -sh->half_length, t1 = sh->half_length;
    if (b == 0.0) {
        if (a < -sh->eps)
            return 0;
    } else if (b > 0.0) {
        t0 = fmax(t0, (-sh->eps - a) / b);
    } else {
        t1 = fmin(t1, (-sh->eps - a) / b);
    }
    /* the foot F(t) = L(t) - d(t) n = f0 + t df, inside each edge's half-plane */
    double f0[3] = {line[0] - a * n[0], line[1] - a * n[1], -a * n[2]};
    double df[3] = {-b * n[0], -b * n[1], 1.0 - b * n[2]};
    if (!clip_to_triangle(c, f0, df, &t0, &t1))
        return 0;
    span[0] = t0;
    span[1] = t1;
    return 1;
}

/*
 * A cylinder lying on the mesh: the ends of its lowest line's part over and
 * behind the region's faces (their spans joined) that lie within its
 * length. Where the mesh ends under the line (a wheel overhanging the
 * border of a road) or the line comes out of the faces (a wheel leaning by
 * a hair), that end is the line contact's second end, which no rim point
 * (outside the mesh there) or vertex (outside the cylinder) gives: with
 * only the sunk rim's point the wheel stands on one point and rocks, as
 * ODE's own cylinder collider (which gives both ends) does not. A capsule's
 * line contact keeps its two ends the same way. The lowest line lies on
 * the round side's axis of symmetry across the face: its ends do not move
 * with the depth across the line, so they do not roll it.
 */
static int add_line_ends(glcollide_primitive_scratch *s, const frame *f, region *g,
                         const double n[3], size_t *count)
{
    const primitive_shape *sh = &f->shape;
    double plan = sqrt(n[0] * n[0] + n[1] * n[1]);
    if (!(plan > 1e-9) || fabs(n[2]) >= direction_cone)
        return GLCOLLIDE_OK; /* on a cap: its rim's fixed points */
    double line[2] = {sh->radius * n[0] / plan, sh->radius * n[1] / plan};
    if (reserve((void **)&s->spans, &s->span_capacity, g->member_count, sizeof *s->spans))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    uint32_t m = 0;
    for (uint32_t k = 0; k < g->member_count; k++) {
        uint32_t i = s->members[g->first_member + k];
        line_span span = {.candidate = i};
        if (!line_over_face(sh, line, n, &s->candidates[i], span.t))
            continue;
        uint32_t j = m++; /* by start (insertion: few faces), ties by candidate */
        while (j > 0 && (s->spans[j - 1].t[0] > span.t[0] ||
                         (s->spans[j - 1].t[0] == span.t[0] && s->spans[j - 1].candidate > i))) {
            s->spans[j] = s->spans[j - 1];
            j--;
        }
        s->spans[j] = span;
    }
    uint32_t label = 0;
    for (uint32_t k = 0; k < m;) {
        /* one joined part: [start, end], the faces it ends on */
        double start = s->spans[k].t[0], end = s->spans[k].t[1];
        uint32_t first = s->spans[k].candidate, last = first;
        for (k++; k < m && s->spans[k].t[0] <= end + sh->eps; k++)
            if (s->spans[k].t[1] > end) {
                end = s->spans[k].t[1];
                last = s->spans[k].candidate;
            }
        const double ts[2] = {start, end};
        const uint32_t faces[2] = {first, last};
        for (int e = 0; e < 2; e++, label++) {
            if (fabs(ts[e]) >= sh->half_length - sh->eps)
                continue; /* a rim's own point */
            const candidate *c = &s->candidates[faces[e]];
            double q[3] = {line[0], line[1], ts[e]}, w[3];
            glcollide_vec3_sub(w, q, c->p);
            double depth =
                fmax(glcollide_vec3_dot(c->normal, w) / glcollide_vec3_dot(c->normal, n), 0.0);
            if (add_primitive_point(s, count, g, q, faces[e],
                                    LINE_END_LABEL + (label < 60 ? label : 60), depth, n))
                return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        }
    }
    return GLCOLLIDE_OK;
}

/* Adds the primitive's points inside the mesh near the region, with their
 * depths along n. */
static int add_primitive_points(glcollide_primitive_scratch *s, const frame *f, region *g,
                                const double n[3], size_t *count)
{
    double q[2 + 2 * RIM_SAMPLES][3];
    uint32_t label[2 + 2 * RIM_SAMPLES];
    int found = primitive_points(&f->shape, n, q, label);
    for (int j = 0; j < found; j++) {
        uint32_t hit;
        double depth = primitive_point_depth(s, f, g, q[j], n, &hit);
        if (depth < 0.0)
            continue;
        if (add_primitive_point(s, count, g, q[j], hit, label[j], depth, n))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    return f->shape.kind == GLCOLLIDE_PRIMITIVE_CYLINDER ? add_line_ends(s, f, g, n, count)
                                                         : GLCOLLIDE_OK;
}

/* ---------------------------------------------------------------- normals */

/* Sphere, capsule: the candidate nearest the core (the first of equals). */
static uint32_t nearest_member(const glcollide_primitive_scratch *s, const region *g)
{
    uint32_t best = s->members[g->first_member];
    for (uint32_t m = 1; m < g->member_count; m++) {
        uint32_t i = s->members[g->first_member + m];
        if (s->candidates[i].distance < s->candidates[best].distance)
            best = i;
    }
    return best;
}

/* Is point q (the nearest of the mesh to it is on candidate c) of the core
 * inside the mesh? The nearest face's side where the nearest point lies
 * inside that face; else exact point-in-solid for a closed mesh; else the
 * pseudo-normal of the region's faces that are as near. */
static int core_inside(const glcollide_primitive_scratch *s, const frame *f, const region *g,
                       const candidate *c, const double q[3])
{
    double to_q[3];
    glcollide_vec3_sub(to_q, q, c->on_mesh);
    const double *t[3];
    corners(c, t);
    double e1[3], e2[3], rel[3], cr[3];
    glcollide_vec3_sub(e1, t[1], t[0]);
    glcollide_vec3_sub(e2, t[2], t[0]);
    glcollide_vec3_sub(rel, c->on_mesh, t[0]);
    glcollide_vec3_cross(cr, e1, e2);
    double area2 = glcollide_vec3_dot(cr, cr);
    if (area2 > 0.0) { /* barycentric coordinates of the nearest point */
        double d11 = glcollide_vec3_dot(e1, e1), d12 = glcollide_vec3_dot(e1, e2),
               d22 = glcollide_vec3_dot(e2, e2), r1 = glcollide_vec3_dot(rel, e1),
               r2 = glcollide_vec3_dot(rel, e2), det = d11 * d22 - d12 * d12;
        double v = (d22 * r1 - d12 * r2) / det, w = (d11 * r2 - d12 * r1) / det;
        if (v > 1e-9 && w > 1e-9 && v + w < 1.0 - 1e-9)
            return glcollide_vec3_dot(to_q, c->normal) < 0.0;
    }
    const glcollide_contact_solid *mesh = f->mesh;
    if (mesh->closed) {
        double x[3];
        to_object(f, q, x);
        return glcollide_point_in_mesh_arrays(mesh->mesh->positions, mesh->mesh->triangles,
                                              mesh->mesh->triangle_count, mesh->bvh, x);
    }
    double pseudo[3] = {0, 0, 0}, near = c->distance + 1e-9 * (c->distance + f->shape.eps);
    for (uint32_t m = 0; m < g->member_count; m++) {
        const candidate *o = &s->candidates[s->members[g->first_member + m]];
        if (o->distance <= near)
            for (int k = 0; k < 3; k++)
                pseudo[k] += o->normal[k];
    }
    return glcollide_vec3_dot(to_q, pseudo) < 0.0;
}

/* Sphere, capsule: along the shortest segment from the core to the region,
 * away from the core (toward it when the core is inside the mesh); a core
 * touching the mesh: against the face it touches. */
static void round_normal(const glcollide_primitive_scratch *s, const frame *f, region *g)
{
    g->nearest = nearest_member(s, g);
    const candidate *c = &s->candidates[g->nearest];
    double d[3];
    glcollide_vec3_sub(d, c->on_mesh, c->on_core);
    double len = sqrt(glcollide_vec3_dot(d, d));
    if (len <= f->shape.eps || !(len > 0.0)) {
        for (int k = 0; k < 3; k++)
            g->normal[k] = -c->normal[k];
        if (glcollide_vec3_dot(g->normal, g->normal) == 0.0)
            g->normal[2] = 1.0; /* a touch on a triangle without area */
        return;
    }
    double sign = core_inside(s, f, g, c, c->on_core) ? -1.0 : 1.0;
    for (int k = 0; k < 3; k++)
        g->normal[k] = sign * d[k] / len;
}

/* The overlap's width along d from the region's points (box, cylinder): from
 * the lowest point of the mesh's part inside the primitive (its vertices, the
 * curve, where the primitive's points' rays leave the mesh) to the highest of
 * the primitive's part inside the mesh (its points and the curve); the
 * deepest vertex's exit when the primitive has no part inside (the mesh
 * wholly inside it). */
static double width_along(const frame *f, const point *pts, uint32_t n, const double d[3])
{
    double top = -INFINITY, bottom = INFINITY, exit = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double h = glcollide_vec3_dot(d, pts[i].position);
        double low = pts[i].source == SOURCE_PRIMITIVE ? glcollide_vec3_dot(d, pts[i].hit) : h;
        if (pts[i].source != SOURCE_MESH && h > top)
            top = h;
        if (low < bottom)
            bottom = low;
    }
    if (top > -INFINITY)
        return top > bottom ? top - bottom : 0.0;
    for (uint32_t i = 0; i < n; i++)
        exit = fmax(exit, primitive_exit(&f->shape, pts[i].position, d));
    return exit;
}

static void offer(double directions[MAX_DIRECTIONS][3], int *count, const double d[3])
{
    if (*count >= MAX_DIRECTIONS)
        return;
    for (int i = 0; i < *count; i++)
        if (glcollide_vec3_dot(directions[i], d) > 1.0 - 1e-12)
            return;
    memcpy(directions[(*count)++], d, 3 * sizeof *d);
}

/*
 * Box, cylinder: the directions the normal is chosen from: the primitive's
 * face normals and the region's faces' (the way the mesh leaves them), those
 * within 20 degrees of the vector-area normal reference (all of them when
 * the region has no vector area: a mesh wholly inside), then the reference.
 */
static int candidate_directions(const glcollide_primitive_scratch *s, const frame *f,
                                const region *g, const double *reference,
                                double directions[MAX_DIRECTIONS][3])
{
    int count = 0;
    int faces = f->shape.kind == GLCOLLIDE_PRIMITIVE_BOX ? 6 : 2;
    for (int k = 0; k < faces; k++) {
        double d[3] = {0, 0, 0};
        d[f->shape.kind == GLCOLLIDE_PRIMITIVE_BOX ? k / 2 : 2] = k % 2 ? -1.0 : 1.0;
        if (!reference || glcollide_vec3_dot(d, reference) >= direction_cone)
            offer(directions, &count, d);
    }
    for (uint32_t m = 0; m < g->member_count; m++) {
        const candidate *c = &s->candidates[s->members[g->first_member + m]];
        double d[3] = {-c->normal[0], -c->normal[1], -c->normal[2]};
        if (glcollide_vec3_dot(d, d) > 0.0 &&
            (!reference || glcollide_vec3_dot(d, reference) >= direction_cone))
            offer(directions, &count, d);
    }
    if (reference)
        offer(directions, &count, reference);
    return count;
}

/*
 * An open mesh's border edges through the primitive (the top edge of a
 * panel on the side of a game's ramp, which an overhanging wheel dips
 * below). A sheet has no inside for the primitive to lie in: the points
 * and vector area that measure a solid's overlap say nothing of how far
 * the sheet must move to leave the primitive (its face normal gave a wheel
 * over such a panel a width of 0, or of the wheel's whole overlap, 80 mm,
 * where ODE's own collider lifts it by its dip of 3.6 mm). That distance
 * along d is the largest exit along d of the sheet's part inside; its
 * border edges' points inside bound it from below for every direction, and
 * across an edge, in its face's plane toward the face (d = normal x edge),
 * it is exact for a flat sheet: every point of the face inside lies behind
 * the edge along d. Each edge's deepest point along its own d (the exit is
 * concave along the edge: golden-section search) and its part's ends are
 * kept as samples.
 */
enum { MAX_BORDER_EDGES = 16 };

/* The exit along d of the point a + t e of an edge. */
static double edge_exit(const primitive_shape *sh, const double a[3], const double e[3], double t,
                        const double d[3])
{
    double x[3] = {a[0] + t * e[0], a[1] + t * e[1], a[2] + t * e[2]};
    return primitive_exit(sh, x, d);
}

typedef struct border_edge {
    double across[3]; /* d */
    double deepest[3];
    double width; /* the deepest point's exit along d */
    uint32_t candidate;
} border_edge;

static int border_edges(glcollide_primitive_scratch *s, const frame *f, const region *g,
                        border_edge edges[MAX_BORDER_EDGES],
                        double samples[3 * MAX_BORDER_EDGES][3])
{
    const primitive_shape *sh = &f->shape;
    int found = 0;
    for (uint32_t m = 0; m < g->member_count && found < MAX_BORDER_EDGES; m++) {
        uint32_t i = s->members[g->first_member + m];
        const candidate *c = &s->candidates[i];
        if (glcollide_vec3_dot(c->normal, c->normal) == 0.0)
            continue;
        for (int k = 0; k < 3 && found < MAX_BORDER_EDGES; k++) {
            int j = (k + 1) % 3;
            const double *a = c->p + 3 * k, *b = c->p + 3 * j;
            double e[3], t0, t1;
            glcollide_vec3_sub(e, b, a);
            if (edge_slot_of(s, c->vertex[k], c->vertex[j])->uses != 1 ||
                !primitive_line(sh, a, e, &t0, &t1))
                continue;
            t0 = fmax(t0, 0.0);
            t1 = fmin(t1, 1.0);
            border_edge *edge = &edges[found];
            double *d = edge->across;
            glcollide_vec3_cross(d, c->normal, e); /* toward the face */
            double len = sqrt(glcollide_vec3_dot(d, d));
            if (!(t0 <= t1) || !(len > 0.0))
                continue;
            for (int q = 0; q < 3; q++)
                d[q] /= len;
            /* golden-section search: each step keeps one probe's exit */
            static const double golden = 0.6180339887498949;
            double lo = t0, hi = t1, best_t = t0, best = -1.0;
            double ts[2] = {hi - golden * (hi - lo), lo + golden * (hi - lo)};
            double w[2] = {edge_exit(sh, a, e, ts[0], d), edge_exit(sh, a, e, ts[1], d)};
            for (int step = 0;; step++) {
                for (int side = 0; side < 2; side++)
                    if (w[side] > best)
                        best = w[side], best_t = ts[side];
                if (step == 48)
                    break;
                if (w[0] < w[1]) { /* the maximum lies above ts[0] */
                    lo = ts[0];
                    ts[0] = ts[1], w[0] = w[1];
                    ts[1] = lo + golden * (hi - lo);
                    w[1] = edge_exit(sh, a, e, ts[1], d);
                } else {
                    hi = ts[1];
                    ts[1] = ts[0], w[1] = w[0];
                    ts[0] = hi - golden * (hi - lo);
                    w[0] = edge_exit(sh, a, e, ts[0], d);
                }
            }
            const double at[3] = {best_t, t0, t1};
            for (int q = 0; q < 3; q++)
                for (int r = 0; r < 3; r++)
                    samples[3 * found + q][r] = a[r] + at[q] * e[r];
            memcpy(edge->deepest, samples[3 * found], sizeof edge->deepest);
            edge->width = best;
            edge->candidate = i;
            found++;
        }
    }
    return found;
}

/* The largest exit along d of the border edges' samples. */
static double samples_width(const primitive_shape *sh, const double (*samples)[3], int count,
                            const double d[3])
{
    double w = 0.0;
    for (int i = 0; i < count; i++)
        w = fmax(w, primitive_exit(sh, samples[i], d));
    return w;
}

/*
 * Box, cylinder: the normal across which the region's overlap is thinnest,
 * of the candidate directions (ties to the earlier: face normals before the
 * vector area, whose rounding would tilt a flush contact). The primitive's
 * points are found along the reference, and again along the normal chosen
 * when that is another direction.
 */
static int clipped_normal(glcollide_primitive_scratch *s, const frame *f, region *g, size_t *count)
{
    double v = sqrt(glcollide_vec3_dot(g->area, g->area)), reference[3];
    int has_reference = v > 1e-9 * g->total_area && v > 0.0;
    for (int k = 0; k < 3; k++)
        reference[k] = has_reference ? -g->area[k] / v : 0.0;
    double directions[MAX_DIRECTIONS][3];
    int n = candidate_directions(s, f, g, has_reference ? reference : NULL, directions);
    size_t mesh_points = *count;
    uint32_t mesh_count = g->point_count;
    const double *cast = has_reference ? reference : directions[0];
    if (add_primitive_points(s, f, g, cast, count))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    border_edge edges[MAX_BORDER_EDGES];
    double samples[3 * MAX_BORDER_EDGES][3];
    int edge_count = border_edges(s, f, g, edges, samples);
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        double w = width_along(f, s->points + g->first_point, g->point_count, directions[i]);
        if (edge_count > 0)
            w = fmax(w, samples_width(&f->shape, samples, 3 * edge_count, directions[i]));
        if (w < best) {
            best = w;
            memcpy(g->normal, directions[i], sizeof g->normal);
        }
    }
    int across = -1;
    for (int e = 0; e < edge_count; e++) {
        /* at a tie (within eps: a wheel resting on a panel's top edge) the
         * edge's: a grazed panel pushing sideways held the wheel by
         * friction */
        double w = fmax(edges[e].width,
                        samples_width(&f->shape, samples, 3 * edge_count, edges[e].across));
        if (w <= best + f->shape.eps && (across < 0 || w < best)) {
            best = w;
            across = e;
        }
    }
    if (edge_count > 0)
        g->edge_width = best;
    if (across >= 0) {
        /* the sheet's own points, and the edge's deepest point: the
         * primitive has no inside of an open sheet to lie in */
        memcpy(g->normal, edges[across].across, sizeof g->normal);
        *count = mesh_points;
        g->point_count = mesh_count;
        if (add_point(s, count, edges[across].deepest, edges[across].candidate, SOURCE_MESH, 32))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        g->point_count = (uint32_t)(*count - g->first_point);
        return GLCOLLIDE_OK;
    }
    if (memcmp(g->normal, cast, sizeof g->normal) != 0) { /* cast again along the normal */
        *count = mesh_points;
        g->point_count = mesh_count;
        return add_primitive_points(s, f, g, g->normal, count);
    }
    return GLCOLLIDE_OK;
}

/* ---------------------------------------------------------------- manifold */

/*
 * The distinct planes of the region's faces into s->planes (a flat patch of
 * many triangles has one): the first 32 found, then every other face's
 * plane as it comes. Returns how many, or -1 when memory runs out.
 */
static int64_t region_planes(glcollide_primitive_scratch *s, const frame *f, const region *g)
{
    if (reserve((void **)&s->planes, &s->plane_capacity, g->member_count, sizeof *s->planes))
        return -1;
    size_t count = 0;
    for (uint32_t m = 0; m < g->member_count; m++) {
        const candidate *c = &s->candidates[s->members[g->first_member + m]];
        double offset = glcollide_vec3_dot(c->normal, c->p);
        int known = 0;
        for (size_t i = 0; i < count && i < 32 && !known; i++)
            known = fabs(s->planes[i][0] - c->normal[0]) <= 1e-12 &&
                    fabs(s->planes[i][1] - c->normal[1]) <= 1e-12 &&
                    fabs(s->planes[i][2] - c->normal[2]) <= 1e-12 &&
                    fabs(s->planes[i][3] - offset) <= f->shape.eps;
        if (!known && glcollide_vec3_dot(c->normal, c->normal) > 0.0) {
            memcpy(s->planes[count], c->normal, 3 * sizeof(double));
            s->planes[count++][3] = offset;
        }
    }
    return (int64_t)count;
}

/*
 * How far curve point x lies below the region's faces along n, as a point
 * of the primitive: the nearest of the planes (region_planes) that x lies
 * behind (not those through x: it is on the surface already) which the ray
 * x - t n reaches, within the region's box; -1 when there is none. Planes,
 * not the faces themselves: x lies where faces meet, and the ray from it
 * along a normal that leans off a face's may pass just beside the face it
 * is sunk under (a box's edge sunk across a beam's edge).
 */
static double curve_point_sinking(const glcollide_primitive_scratch *s, size_t plane_count,
                                  const frame *f, const region *g, const double x[3],
                                  const double n[3])
{
    double eps = f->shape.eps, best = INFINITY;
    for (size_t i = 0; i < plane_count; i++) {
        const double *plane = s->planes[i];
        double behind = plane[3] - glcollide_vec3_dot(plane, x),
               approach = -glcollide_vec3_dot(plane, n);
        if (!(behind > eps) || !(approach > 0.0) || !(behind < best * approach))
            continue;
        double t = behind / approach, y[3];
        int inside = 1;
        for (int k = 0; k < 3; k++) {
            y[k] = x[k] - t * n[k];
            inside &= y[k] >= g->lo[k] - eps && y[k] <= g->hi[k] + eps;
        }
        if (inside)
            best = t;
    }
    return best < INFINITY ? best : -1.0;
}

/* Depths of the mesh's points along the region's normal (the primitive's
 * have theirs; a curve point's as a point of the mesh), the region's width,
 * then the depths clamped to it. */
static void region_depths(glcollide_primitive_scratch *s, const frame *f, region *g)
{
    point *pts = s->points + g->first_point;
    double deepest = 0.0;
    for (uint32_t i = 0; i < g->point_count; i++) {
        point *p = &pts[i];
        if (f->shape.kind == GLCOLLIDE_PRIMITIVE_PLANE)
            p->depth = fmax(0.0, -p->position[2]);
        else if (p->source != SOURCE_PRIMITIVE)
            p->depth = primitive_exit(&f->shape, p->position, g->normal);
        deepest = fmax(deepest, p->depth);
    }
    int clipped =
        f->shape.kind == GLCOLLIDE_PRIMITIVE_BOX || f->shape.kind == GLCOLLIDE_PRIMITIVE_CYLINDER;
    g->width = clipped ? width_along(f, pts, g->point_count, g->normal) : deepest;
    if (g->edge_width > 0.0) /* a sheet's width is not its points' */
        g->width = fmax(g->width, g->edge_width);
    for (uint32_t i = 0; i < g->point_count; i++)
        pts[i].depth = fmin(fmax(pts[i].depth, 0.0), g->width);
}

/*
 * Do the region's points other than curve points span an area across the
 * normal (not all on one line, within 1e-6 of the region's extent)?
 */
static int deep_points_span(const point *pts, uint32_t n, const double normal[3])
{
    double e1[3], e2[3], u[64], v[64], lo = INFINITY, hi = -INFINITY;
    glcollide_plane_basis(normal, e1, e2);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < 64; i++) {
        if (pts[i].source == SOURCE_CURVE)
            continue;
        u[m] = glcollide_vec3_dot(pts[i].position, e1);
        v[m] = glcollide_vec3_dot(pts[i].position, e2);
        lo = fmin(lo, fmin(u[m], v[m]));
        hi = fmax(hi, fmax(u[m], v[m]));
        m++;
    }
    if (m < 3)
        return 0;
    /* the farthest pair from the first point, then the farthest from their line */
    uint32_t a = 0, b = 0;
    double best = -1.0;
    for (uint32_t i = 0; i < m; i++) {
        double d = hypot(u[i] - u[0], v[i] - v[0]);
        if (d > best)
            best = d, a = i;
    }
    best = -1.0;
    for (uint32_t i = 0; i < m; i++) {
        double d = hypot(u[i] - u[a], v[i] - v[a]);
        if (d > best)
            best = d, b = i;
    }
    double tie = 1e-6 * (hi - lo), off = 0.0;
    if (!(best > tie))
        return 0;
    for (uint32_t i = 0; i < m; i++)
        off = fmax(off, fabs((u[b] - u[a]) * (v[i] - v[a]) - (v[b] - v[a]) * (u[i] - u[a])) / best);
    return off > tie;
}

/*
 * Curve points (on both surfaces) only where the region's vertices and the
 * primitive's points do not span an area: a sunk face's rim of them would be
 * picked for its spread over the corners that carry the contact, but a box
 * on one corner or edge, or a polygonal cylinder on one edge of its facet,
 * needs them to stand on. Not for a cylinder's round side: on the line a
 * cylinder lies on, they stand on the edges of the sunk strip, which move
 * with the depth, and roll it. A box's deep curve points (more than half the
 * region's width) well outside the others' hull across the normal (a tenth
 * of the region's extent) stay: where a mesh's edge runs under a sunk face
 * (a box across a table's edge) they are the support's corners on that
 * side, which no vertex or corner gives.
 */
/* The convex hull, across a region's normal, of its points other than
 * curve points (at most 64 of them, by the monotone chain). */
typedef struct support_hull {
    double e1[3], e2[3];
    double corner[2 * 64 + 1][2]; /* counter-clockwise */
    uint32_t count;
    double extent; /* the points' largest extent along e1 or e2 */
} support_hull;

static int hull_make(const point *pts, uint32_t n, const double normal[3], support_hull *hull)
{
    double q[64][2];
    glcollide_plane_basis(normal, hull->e1, hull->e2);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < 64; i++)
        if (pts[i].source != SOURCE_CURVE) {
            q[m][0] = glcollide_vec3_dot(pts[i].position, hull->e1);
            q[m][1] = glcollide_vec3_dot(pts[i].position, hull->e2);
            m++;
        }
    if (m < 3)
        return 0;
    for (uint32_t i = 1; i < m; i++) /* by u, then v (insertion sort: few points) */
        for (uint32_t j = i;
             j > 0 && (q[j][0] < q[j - 1][0] || (q[j][0] == q[j - 1][0] && q[j][1] < q[j - 1][1]));
             j--) {
            double t0 = q[j][0], t1 = q[j][1];
            q[j][0] = q[j - 1][0];
            q[j][1] = q[j - 1][1];
            q[j - 1][0] = t0;
            q[j - 1][1] = t1;
        }
    double(*c)[2] = hull->corner;
    uint32_t k = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t floor = k;
        for (uint32_t a = 0; a < m; a++) {
            const double *p = q[pass ? m - 1 - a : a];
            while (k >= floor + 2 && (c[k - 1][0] - c[k - 2][0]) * (p[1] - c[k - 2][1]) -
                                             (c[k - 1][1] - c[k - 2][1]) * (p[0] - c[k - 2][0]) <=
                                         0.0)
                k--;
            c[k][0] = p[0];
            c[k][1] = p[1];
            k++;
        }
        k--; /* the last of a chain is the first of the other */
    }
    hull->count = k;
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t i = 0; i < m; i++) {
        lo = fmin(lo, q[i][1]);
        hi = fmax(hi, q[i][1]);
    }
    hull->extent = fmax(q[m - 1][0] - q[0][0], hi - lo);
    return k >= 2;
}

/* Does x lie outside the hull by more than a tenth of its extent? */
static int outside_hull(const support_hull *hull, const double x[3])
{
    double u = glcollide_vec3_dot(x, hull->e1), v = glcollide_vec3_dot(x, hull->e2), out = 0.0;
    for (uint32_t i = 0; i < hull->count; i++) { /* outside is on an edge's right */
        const double *a = hull->corner[i], *b = hull->corner[(i + 1) % hull->count];
        double du = b[0] - a[0], dv = b[1] - a[1], len = sqrt(du * du + dv * dv);
        if (len > 0.0)
            out = fmax(out, -(du * (v - a[1]) - dv * (u - a[0])) / len);
    }
    return out > 0.1 * hull->extent;
}

/* The rim a primitive point lies on (its label: a fixed sample's, the
 * lowest point's; a line end's is on neither, and is not asked). */
static int rim_of(uint32_t label)
{
    return label >= LOWEST_LABEL ? (int)(label - LOWEST_LABEL) & 1 : label >= RIM_SAMPLES;
}

/*
 * A cylinder's curve point where a mesh edge leaves it through a cap whose
 * rim has no point inside the mesh: the end of a line contact along that
 * edge (an open sheet's edge under the round side, past which the wheel
 * has rolled: the edge inside runs from a corner of the sheet to the cap,
 * and with no rim point there nothing else marks that end).
 */
static int cap_end(const primitive_shape *sh, const point *p, const int rim_inside[2])
{
    if (p->label < EDGE_CROSSING_LABEL || p->label >= RIM_CROSSING_LABEL) /* not an edge's */
        return 0;
    double z = p->position[2];
    /* crossings lie on the shape grown by eps */
    if (fabs(fabs(z) - sh->half_length) > 2.0 * sh->eps ||
        !(hypot(p->position[0], p->position[1]) < sh->radius))
        return 0; /* on the round side: where the edge comes out, depth 0 */
    return !rim_inside[z > 0.0];
}

/*
 * The curve points kept (above). Where they are all kept (no deep points
 * of a plane, sphere, capsule or box, or a box's or a plane's that do not
 * span an area: the points where the surfaces cross carry the contact),
 * each gets its depth as a point of the primitive too: a curve point lies
 * on both surfaces, and its depth is the larger of its depth as a point of
 * the mesh (how far the mesh moves along n before the point leaves the
 * primitive) and how far it lies below the mesh's other faces
 * (curve_point_sinking). Where an edge of the primitive
 * is sunk across the mesh's faces with no corner inside the mesh and no
 * vertex of the mesh inside the primitive (a box's bottom edge across a
 * beam), the first is 0 all along the curve and the second is the sinking.
 * Returns OUT_OF_MEMORY or OK.
 */
static int keep_curve_points(glcollide_primitive_scratch *s, const frame *f, region *g)
{
    point *pts = s->points + g->first_point;
    uint32_t deep = 0;
    for (uint32_t i = 0; i < g->point_count; i++)
        deep += pts[i].source != SOURCE_CURVE;
    if (f->shape.kind != GLCOLLIDE_PRIMITIVE_CYLINDER &&
        (deep == 0 || !deep_points_span(pts, g->point_count, g->normal))) {
        int64_t planes = f->shape.kind == GLCOLLIDE_PRIMITIVE_PLANE ? 0 : region_planes(s, f, g);
        if (planes < 0)
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        for (uint32_t i = 0; i < g->point_count && planes > 0; i++)
            if (pts[i].source == SOURCE_CURVE)
                pts[i].depth =
                    fmin(fmax(pts[i].depth, curve_point_sinking(s, (size_t)planes, f, g,
                                                                pts[i].position, g->normal)),
                         g->width);
        return GLCOLLIDE_OK;
    }
    if (f->shape.kind == GLCOLLIDE_PRIMITIVE_CYLINDER) {
        /* A cylinder's cap pressed into a wedge of faces (a wheel against
         * a spike, or against a box's face near its edge): the overlap's
         * deepest part may lie where the mesh's edge crosses the cylinder
         * (as a point of the mesh) or where the rim crosses a face below
         * another (as a point of the cylinder), away from every rim sample
         * and vertex, which then miss it (1.8 mm given where the wheel had
         * to move 12.5 mm). Curve points deeper than all of those stay, at
         * their depth. A cylinder lying on a face keeps none: the strip's
         * edges are on the face, no deeper than its lowest line. And on
         * each cap whose rim has no point inside the mesh, the deepest of
         * the mesh's edges' crossings stays (cap_end): the end of a line
         * contact along an edge under the round side. */
        double deepest = 0.0, cap_deepest[2] = {0.0, 0.0};
        int rim_inside[2] = {0, 0};
        for (uint32_t i = 0; i < g->point_count; i++) {
            if (pts[i].source != SOURCE_CURVE)
                deepest = fmax(deepest, pts[i].depth);
            if (pts[i].source == SOURCE_PRIMITIVE)
                rim_inside[rim_of(pts[i].label)] |= pts[i].label < LINE_END_LABEL;
        }
        int64_t planes = region_planes(s, f, g);
        if (planes < 0)
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        for (uint32_t i = 0; i < g->point_count; i++) {
            if (pts[i].source != SOURCE_CURVE)
                continue;
            double sinking = planes > 0 ? curve_point_sinking(s, (size_t)planes, f, g,
                                                              pts[i].position, g->normal)
                                        : -1.0;
            /* as a point of the mesh, from its place on the cylinder's own
             * surface (a crossing lies on the surface grown by eps, where a
             * ray along the surface is in or out by rounding) */
            double on[3], plan = hypot(pts[i].position[0], pts[i].position[1]);
            double pull = plan > f->shape.radius ? f->shape.radius / plan : 1.0;
            on[0] = pts[i].position[0] * pull;
            on[1] = pts[i].position[1] * pull;
            on[2] = fmax(fmin(pts[i].position[2], f->shape.half_length), -f->shape.half_length);
            double depth = fmax(pts[i].depth, primitive_exit(&f->shape, on, g->normal));
            pts[i].depth = fmin(fmax(depth, sinking), g->width);
            if (cap_end(&f->shape, &pts[i], rim_inside))
                cap_deepest[pts[i].position[2] > 0.0] =
                    fmax(cap_deepest[pts[i].position[2] > 0.0], pts[i].depth);
        }
        /* which stay (marked in rank, which the manifold sets later); with
         * nothing deep and no curve point deeper than a hundredth of the
         * width (a graze), all stay, as for the other shapes */
        int cap_kept[2] = {0, 0}, any = 0;
        for (uint32_t i = 0; i < g->point_count; i++) {
            pts[i].rank = 1;
            if (pts[i].source == SOURCE_CURVE && !(pts[i].depth > deepest + 0.01 * g->width)) {
                int cap = pts[i].position[2] > 0.0;
                if (!cap_end(&f->shape, &pts[i], rim_inside) || cap_kept[cap] ||
                    !(pts[i].depth == cap_deepest[cap] && pts[i].depth > 0.01 * g->width))
                    pts[i].rank = 0;
                else
                    cap_kept[cap] = 1; /* the first of equals */
            }
            any |= (int)pts[i].rank;
        }
        uint32_t kept = 0;
        for (uint32_t i = 0; i < g->point_count; i++)
            if (pts[i].rank || !any)
                pts[kept++] = pts[i];
        g->point_count = kept;
        return GLCOLLIDE_OK;
    }
    /* the hull only where a deep curve point asks for it */
    int deep_curve = 0;
    for (uint32_t i = 0; i < g->point_count && f->shape.kind == GLCOLLIDE_PRIMITIVE_BOX; i++)
        deep_curve |= pts[i].source == SOURCE_CURVE && pts[i].depth > 0.5 * g->width;
    support_hull hull;
    int box = deep_curve && hull_make(pts, g->point_count, g->normal, &hull);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < g->point_count; i++)
        if (pts[i].source != SOURCE_CURVE ||
            (box && pts[i].depth > 0.5 * g->width && outside_hull(&hull, pts[i].position)))
            pts[kept++] = pts[i];
    g->point_count = kept;
    return GLCOLLIDE_OK;
}

/*
 * Curve points no deeper than a hundredth of the region's width, in a
 * region that has deeper points, are dropped: they lie where the sunk
 * surface comes out of the other (the back rim of a wedge of overlap), and
 * exist only as long as the solids overlap; once pushed apart they fall on
 * the deeper points' feature. As contacts they prop the primitive on the
 * surface it is sinking into: a chassis' plate landing on a beam's edge,
 * propped 13 mm behind the edge it was sunk by, was kicked sideways off the
 * beam by dWorldQuickStep, where ODE's own colliders give the edge's ends.
 */
static void drop_shallow_curve(glcollide_primitive_scratch *s, region *g)
{
    point *pts = s->points + g->first_point;
    double band = 0.01 * g->width, deepest = 0.0;
    for (uint32_t i = 0; i < g->point_count; i++)
        deepest = fmax(deepest, pts[i].depth);
    if (!(deepest > band))
        return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < g->point_count; i++)
        if (pts[i].source != SOURCE_CURVE || pts[i].depth > band)
            pts[kept++] = pts[i];
    g->point_count = kept;
}

static int select_manifold(glcollide_primitive_scratch *s, region *g, size_t per_region)
{
    if (g->point_count == 0)
        return GLCOLLIDE_OK;
    if (reserve((void **)&s->manifold, &s->manifold_capacity, g->point_count, sizeof *s->manifold))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    const point *pts = s->points + g->first_point;
    double centre[3] = {0, 0, 0};
    for (uint32_t i = 0; i < g->point_count; i++) {
        glcollide_manifold_point *m = &s->manifold[i];
        memset(m, 0, sizeof *m);
        memcpy(m->position, pts[i].position, sizeof m->position);
        m->depth = pts[i].depth;
        uint64_t owner = pts[i].source == SOURCE_PRIMITIVE ? 0 : s->candidates[pts[i].candidate].id;
        m->key[0] = (uint64_t)pts[i].source << 32 | owner;
        m->key[1] = pts[i].label;
        for (int k = 0; k < 3; k++)
            centre[k] += pts[i].position[k] / g->point_count;
    }
    g->kept = glcollide_manifold_select(s->manifold, g->point_count, g->normal, centre, g->width,
                                        per_region);
    for (uint32_t i = 0; i < g->point_count; i++)
        s->points[g->first_point + i].rank = s->manifold[i].kept;
    return GLCOLLIDE_OK;
}

/* ---------------------------------------------------------------- the pipeline */

/* One region: its normal, points, depths and manifold. */
static int make_region(glcollide_primitive_scratch *s, const frame *f, region *g, size_t *count)
{
    const primitive_shape *sh = &f->shape;
    for (int k = 0; k < 3; k++) {
        g->lo[k] = INFINITY;
        g->hi[k] = -INFINITY;
    }
    for (uint32_t m = 0; m < g->member_count; m++) {
        const candidate *c = &s->candidates[s->members[g->first_member + m]];
        for (int k = 0; k < 3; k++) {
            g->area[k] += c->area[k];
            for (int j = 0; j < 3; j++) {
                double x = c->p[3 * j + k];
                g->lo[k] = x < g->lo[k] ? x : g->lo[k];
                g->hi[k] = x > g->hi[k] ? x : g->hi[k];
            }
        }
        g->total_area += sqrt(glcollide_vec3_dot(c->area, c->area));
    }
    if (sh->kind == GLCOLLIDE_PRIMITIVE_SPHERE || sh->kind == GLCOLLIDE_PRIMITIVE_CAPSULE)
        round_normal(s, f, g);
    else if (sh->kind == GLCOLLIDE_PRIMITIVE_PLANE)
        g->normal[2] = 1.0;
    if (add_mesh_points(s, f, g, count))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    if (sh->kind == GLCOLLIDE_PRIMITIVE_BOX || sh->kind == GLCOLLIDE_PRIMITIVE_CYLINDER) {
        if (clipped_normal(s, f, g, count))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    region_depths(s, f, g);
    if (keep_curve_points(s, f, g))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    drop_shallow_curve(s, g);
    *count = g->first_point + g->point_count;
    return select_manifold(s, g, f->per_region);
}

/*
 * A primitive wholly inside the closed mesh (no triangle meets it): pushed
 * out toward the mesh surface nearest its centre, each of its points with
 * the depth its farthest point must travel. One region; 0 when the
 * primitive is not inside.
 */
static int contain(glcollide_primitive_scratch *s, const frame *f, size_t *region_count)
{
    const glcollide_contact_solid *mesh = f->mesh;
    const primitive_shape *sh = &f->shape;
    *region_count = 0;
    if (!mesh->closed || sh->kind == GLCOLLIDE_PRIMITIVE_PLANE || !mesh->mesh->triangle_count)
        return GLCOLLIDE_OK;
    double zero[3] = {0, 0, 0}, centre[3], near[3], local[3];
    to_object(f, zero, centre);
    /* cheap first: the primitive's centre must lie in the mesh's box */
    glcollide_aabb bounds = glcollide_bvh_bounds(mesh->bvh);
    for (int k = 0; k < 3; k++)
        if (!(centre[k] >= bounds.min[k] && centre[k] <= bounds.max[k]))
            return GLCOLLIDE_OK;
    if (!glcollide_point_in_mesh_arrays(mesh->mesh->positions, mesh->mesh->triangles,
                                        mesh->mesh->triangle_count, mesh->bvh, centre))
        return GLCOLLIDE_OK;
    uint32_t triangle = 0;
    double distance =
        glcollide_bvh_nearest_positions(mesh->bvh, mesh->mesh->positions, centre, near, &triangle);
    if (!(distance > 0.0) || !isfinite(distance))
        return GLCOLLIDE_OK;
    to_local(f, near, local);
    double out[3], n[3];
    for (int k = 0; k < 3; k++) {
        out[k] = local[k] / distance; /* the way the primitive leaves */
        n[k] = -out[k];
    }
    double depth = distance + primitive_support(sh, n);
    if (reserve((void **)&s->regions, &s->region_capacity, 1, sizeof *s->regions) ||
        reserve((void **)&s->order, &s->order_capacity, 1, sizeof *s->order) ||
        reserve((void **)&s->candidates, &s->candidate_capacity, 1, sizeof *s->candidates))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    candidate *c = &s->candidates[0];
    memset(c, 0, sizeof *c);
    c->id = triangle;
    region *g = &s->regions[0];
    memset(g, 0, sizeof *g);
    memcpy(g->normal, n, sizeof g->normal);
    g->width = depth;
    /* The primitive's trailing points: its corners, rims, or the farthest
     * point of a ball or a capsule's ends. */
    double q[2 + 2 * RIM_SAMPLES][3];
    uint32_t label[2 + 2 * RIM_SAMPLES];
    int k = 0;
    if (sh->kind == GLCOLLIDE_PRIMITIVE_BOX || sh->kind == GLCOLLIDE_PRIMITIVE_CYLINDER) {
        k = primitive_points(sh, n, q, label);
    } else {
        for (int e = 0; e < (sh->kind == GLCOLLIDE_PRIMITIVE_CAPSULE ? 2 : 1); e++, k++) {
            for (int j = 0; j < 3; j++)
                q[k][j] = n[j] * sh->radius;
            q[k][2] +=
                sh->kind == GLCOLLIDE_PRIMITIVE_CAPSULE ? (e ? 1 : -1) * sh->half_length : 0.0;
            label[k] = (uint32_t)e;
        }
    }
    size_t count = 0;
    for (int j = 0; j < k; j++) {
        if (add_point(s, &count, q[j], 0, SOURCE_PRIMITIVE, label[j]))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        s->points[count - 1].depth = depth;
    }
    g->point_count = (uint32_t)count;
    *region_count = 1;
    return select_manifold(s, g, f->per_region);
}

/* Regions by importance: deeper, then larger, then key (insertion sort:
 * region counts are small). */
static void order_regions(glcollide_primitive_scratch *s, size_t region_count)
{
    for (size_t i = 0; i < region_count; i++)
        s->order[i] = (uint32_t)i;
    for (size_t i = 1; i < region_count; i++)
        for (size_t j = i; j > 0; j--) {
            const region *p = &s->regions[s->order[j - 1]], *q = &s->regions[s->order[j]];
            int swap =
                q->width > p->width ||
                (q->width == p->width && (q->total_area > p->total_area ||
                                          (q->total_area == p->total_area && q->first < p->first)));
            if (!swap)
                break;
            uint32_t t = s->order[j - 1];
            s->order[j - 1] = s->order[j];
            s->order[j] = t;
        }
}

/* The picks into contacts, regions taking turns (pick 1 of every region,
 * then pick 2, ...), then (unless ranked) grouped by region; in the world. */
static size_t write_contacts(const glcollide_primitive_scratch *s, const frame *f,
                             size_t region_count, glcollide_contact *contacts, size_t max_contacts,
                             int ranked)
{
    size_t written = 0;
    for (uint32_t turn = 1; written < max_contacts; turn++) {
        size_t before = written;
        for (size_t o = 0; o < region_count && written < max_contacts; o++) {
            const region *g = &s->regions[s->order[o]];
            if (turn > g->kept)
                continue;
            for (uint32_t i = 0; i < g->point_count; i++) {
                const point *p = &s->points[g->first_point + i];
                if (p->rank != turn)
                    continue;
                glcollide_contact *c = &contacts[written++];
                to_world(f, p->position, c->position, 0);
                to_world(f, g->normal, c->normal, 1);
                c->depth = p->depth;
                c->triangle_a = s->candidates[p->candidate].id;
                c->triangle_b = UINT32_MAX;
                c->region = (uint32_t)o;
                break;
            }
        }
        if (written == before)
            break;
    }
    return ranked ? written
                  : glcollide_contacts_select(contacts, written, written,
                                              GLCOLLIDE_CONTACTS_MESH_PRIMITIVE);
}

static int generate(glcollide_primitive_scratch *s, const frame *f, glcollide_contact *contacts,
                    size_t max_contacts, int ranked, size_t *count)
{
    int status = find_candidates(s, f);
    if (status != GLCOLLIDE_OK)
        return status;
    const glcollide_contact_solid *mesh = f->mesh;
    size_t n = 0;
    for (size_t i = 0; i < s->id_count; i++) {
        /* Room for the triangles that meet the shape, not for every one
         * the box query found (a box deep in a detailed mesh finds
         * thousands, and a candidate is large). */
        if (reserve((void **)&s->candidates, &s->candidate_capacity, n + 1, sizeof *s->candidates))
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        candidate *c = &s->candidates[n];
        c->id = s->ids[i];
        c->area[0] = c->area[1] = c->area[2] = 0.0;
        c->polygon_count = 0;
        for (int k = 0; k < 3; k++)
            to_local(
                f, mesh->mesh->positions + 3 * (size_t)mesh->mesh->triangles[3 * (size_t)c->id + k],
                c->p + 3 * k);
        const double *t[3];
        corners(c, t);
        unit_normal(t, c->normal);
        n += meets(f, c) != 0;
    }
    s->candidate_count = n;
    size_t region_count = 0;
    if (n == 0) {
        status = contain(s, f, &region_count);
    } else {
        status = connect(s, f, n, &region_count);
        size_t points = 0;
        for (size_t r = 0; r < region_count && status == GLCOLLIDE_OK; r++)
            status = make_region(s, f, &s->regions[r], &points);
    }
    if (status != GLCOLLIDE_OK || region_count == 0)
        return status;
    order_regions(s, region_count);
    *count = write_contacts(s, f, region_count, contacts, max_contacts, ranked);
    return GLCOLLIDE_OK;
}

static void primitive_scratch_release(void *memory)
{
    glcollide_primitive_scratch *scratch = memory;
    glcollide_primitive_scratch_destroy(&scratch);
}

glcollide_primitive_scratch *glcollide_scratch_primitives(glcollide_scratch *scratch, int *status)
{
    *status = GLCOLLIDE_OK;
    if (!scratch->primitives.memory) {
        glcollide_primitive_scratch *made = NULL;
        if ((*status = glcollide_primitive_scratch_create(&made)) != GLCOLLIDE_OK)
            return NULL;
        scratch->primitives = (glcollide_scratch_part){made, primitive_scratch_release};
    }
    return scratch->primitives.memory;
}

int glcollide_contacts_mesh_primitive(const glcollide_contact_solid *mesh,
                                      const glcollide_primitive *primitive,
                                      const glcollide_contact_options *options,
                                      glcollide_contact *contacts, size_t max_contacts,
                                      size_t *count, glcollide_scratch *shared)
{
    if (count)
        *count = 0;
    if (!count || !mesh || !primitive || (!contacts && max_contacts > 0))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "primitive contacts: NULL count, mesh, primitive or contacts");
    if (!mesh->mesh || (mesh->mesh->triangle_count &&
                        (!mesh->mesh->positions || !mesh->mesh->triangles || !mesh->bvh)))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "primitive contacts: no mesh, or triangles but no arrays or BVH");
    frame f;
    int status = make_frame(mesh, primitive, options, &f);
    if (status != GLCOLLIDE_OK || max_contacts == 0 || mesh->mesh->triangle_count == 0)
        return status;
    glcollide_primitive_scratch *own = NULL,
                                *scratch =
                                    shared ? glcollide_scratch_primitives(shared, &status) : NULL;
    if (status != GLCOLLIDE_OK)
        return status;
    if (!scratch) {
        status = glcollide_primitive_scratch_create(&own);
        if (status != GLCOLLIDE_OK)
            return status;
        scratch = own;
    }
    status = generate(scratch, &f, contacts, max_contacts, options && options->ranked, count);
    if (status != GLCOLLIDE_OK)
        *count = 0;
    glcollide_primitive_scratch_destroy(&own);
    return status;
}
