/* SPDX-License-Identifier: MIT */
/*
 * What the plugin's colliders and space share of a geom: the capture of
 * each trimesh data in object space (with its BVH), a geom's pose, the
 * containment filter, and the writer of contacts into ODE's buffer.
 *
 * ODE has no public access to a trimesh data's arrays; dGeomTriMeshGetTriangle
 * gives each triangle in world space, so each data is captured once through a
 * geom using it and brought back to object space with the inverse of that
 * geom's transform. Vertices are not shared (three per triangle): triangle
 * indices stay ODE's, which is what side1/side2 report. A data marked changed
 * (glcollide_ode_trimesh_data_changed) is captured again on next use, in place
 * and with a refit when its triangle count is unchanged (a deforming mesh).
 *
 * Each captured data has one BVH in object space (the colliders traverse it
 * with the pair's relative placement).
 *
 * The registry (registered arrays and captures) is shared by all threads
 * under plugin.lock; every capture gets a generation number of its own, so
 * that candidates culled for one capture are never used with another.
 */
#include "plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void plugin_geom_transform(dGeomID geom, dReal out[7])
{
    const dReal *p = dGeomGetPosition(geom);
    dQuaternion q;
    dGeomGetQuaternion(geom, q);
    for (int k = 0; k < 3; k++)
        out[k] = p[k];
    for (int k = 0; k < 4; k++)
        out[3 + k] = q[k];
}

glcollide_pose plugin_geom_pose(dGeomID geom)
{
    dReal t[7];
    plugin_geom_transform(geom, t);
    return plugin_transform_pose(t);
}

glcollide_pose plugin_transform_pose(const dReal t[7])
{
    glcollide_pose pose;
    for (int k = 0; k < 3; k++)
        pose.translation[k] = (double)t[k];
    /* dGeomGetQuaternion derives q from ODE's matrix and leaves its norm off
     * by up to ~1e-8 (measured): normalised, it reproduces the matrix to
     * rounding, so contacts land where ODE places the mesh. */
    double norm = 0.0;
    for (int k = 0; k < 4; k++)
        norm += (double)t[3 + k] * (double)t[3 + k];
    norm = norm > 0.0 ? 1.0 / sqrt(norm) : 1.0;
    for (int k = 0; k < 4; k++)
        pose.rotation[k] = (double)t[3 + k] * norm;
    return pose;
}

/* The triangles of a trimesh geom in its object space, three vertices each
 * (9 * count doubles). */
static void capture_positions(dGeomID geom, size_t count, double *positions)
{
    const dReal *p = dGeomGetPosition(geom);
    const dReal *r = dGeomGetRotation(geom); /* 3x4 row-major */
    for (size_t t = 0; t < count; t++) {
        dVector3 v[3];
        dGeomTriMeshGetTriangle(geom, (int)t, &v[0], &v[1], &v[2]);
        for (int c = 0; c < 3; c++) {
            double d[3] = {v[c][0] - p[0], v[c][1] - p[1], v[c][2] - p[2]};
            for (int k = 0; k < 3; k++) /* object = R^T (world - p) */
                positions[9 * t + 3 * c + k] = r[k] * d[0] + r[4 + k] * d[1] + r[8 + k] * d[2];
        }
    }
}

static plugin_source *find_source(dTriMeshDataID data)
{
    for (size_t i = 0; i < plugin.source_count; i++)
        if (plugin.sources[i].data == data)
            return &plugin.sources[i];
    return NULL;
}

/* Vertex v and index i of a registered source, as ODE reads them. */
static void source_vertex(const plugin_source *src, size_t v, double out[3])
{
    const char *p = (const char *)src->vertices + v * (size_t)src->vertex_stride;
    for (int k = 0; k < 3; k++)
        out[k] = src->single ? (double)((const float *)(const void *)p)[k]
                             : ((const double *)(const void *)p)[k];
}

static uint32_t source_index(const plugin_source *src, size_t t, int c)
{
    const char *p = (const char *)src->indices + t * (size_t)src->tri_stride;
    return (uint32_t)((const dTriIndex *)(const void *)p)[c];
}

/* Is index, a corner of triangle t, one of the source's vertices? 0, logged, if not. */
static int index_in_range(const plugin_source *src, size_t t, uint32_t index)
{
    if (index < (size_t)src->vertex_count)
        return 1;
    glcollide_log(GLCOLLIDE_LOG_ERROR, "trimesh data %p: triangle %zu uses vertex %u of %d",
                  (void *)src->data, t, index, src->vertex_count);
    return 0;
}

/*
 * Reads a registered source into positions (3 * vertex_count) and triangles
 * (3 * triangle_count). Returns 1 when the triangles differ from what
 * triangles held before, -1 on an index out of range (logged).
 */
static int read_source(const plugin_source *src, double *positions, uint32_t *triangles)
{
    size_t vertex_count = (size_t)src->vertex_count, triangle_count = (size_t)src->index_count / 3;
    for (size_t v = 0; v < vertex_count; v++)
        source_vertex(src, v, positions + 3 * v);
    int changed = 0;
    for (size_t t = 0; t < triangle_count; t++)
        for (int c = 0; c < 3; c++) {
            uint32_t index = source_index(src, t, c);
            if (!index_in_range(src, t, index))
                return -1;
            changed |= triangles[3 * t + c] != index;
            triangles[3 * t + c] = index;
        }
    return changed;
}

/*
 * Can a capture use a registered source's arrays as they are, rather than a
 * copy? Double vertices three to a stride and 32-bit indices three to a
 * stride (what dGeomTriMeshDataBuildDouble is mostly given) are laid out as
 * a glcollide_mesh's. ODE reads them in place for as long as the data lives,
 * and so may glcollide (glcollide_ode_trimesh_data_build_double's contract),
 * which then keeps no second copy of every mesh.
 */
static int borrowable(const plugin_source *src)
{
    return src && !src->single && src->vertex_count > 0 && src->index_count > 0 &&
           src->vertex_stride == (int)(3 * sizeof(double)) &&
           sizeof(dTriIndex) == sizeof(uint32_t) &&
           src->tri_stride == (int)(3 * sizeof(dTriIndex)) &&
           (uintptr_t)src->vertices % _Alignof(double) == 0 &&
           (uintptr_t)src->indices % _Alignof(uint32_t) == 0;
}

/* Are the vertices of a data's capture finite? 0, or -1 with the first that
 * is not logged (as glcollide_mesh_create refuses a new one). */
static int positions_finite(dTriMeshDataID data, const double *positions, size_t vertex_count)
{
    for (size_t i = 0; i < 3 * vertex_count; i++)
        if (!isfinite(positions[i])) {
            glcollide_log(GLCOLLIDE_LOG_ERROR, "trimesh data %p: vertex %zu is not finite",
                          (void *)data, i / 3);
            return -1;
        }
    return 0;
}

/* The checks glcollide_mesh_create makes of a copy, made of a borrowable
 * source in place: every index in range and every coordinate finite (the
 * first failure logged). 0, or -1. */
static int source_valid(const plugin_source *src)
{
    const uint32_t *triangles = src->indices;
    for (size_t i = 0; i < (size_t)src->index_count; i++)
        if (!index_in_range(src, i / 3, triangles[i]))
            return -1;
    return positions_finite(src->data, src->vertices, (size_t)src->vertex_count);
}

/* A capture that borrows a borrowable source's arrays (NULL if they fail
 * source_valid or memory is short). */
static glcollide_mesh *borrow(const plugin_source *src)
{
    if (source_valid(src) < 0)
        return NULL;
    glcollide_mesh *mesh = calloc(1, sizeof *mesh);
    if (mesh)
        *mesh = (glcollide_mesh){(double *)(uintptr_t)src->vertices,
                                 (uint32_t *)(uintptr_t)src->indices, (size_t)src->vertex_count,
                                 (size_t)src->index_count / 3, NULL};
    return mesh;
}

/* Frees a capture's mesh (only the struct where the arrays are borrowed). */
static void capture_free(glcollide_mesh **mesh, int borrowed)
{
    if (borrowed) {
        free(*mesh);
        *mesh = NULL;
    } else {
        glcollide_mesh_destroy(mesh);
    }
}

/*
 * A new capture of a trimesh data: from its registered arrays (exact:
 * borrowed where borrowable, else copied) or, for data glcollide was not
 * told about, through dGeomTriMeshGetTriangle (which hands out OPCODE's
 * float copies of the vertices, three per triangle). *borrowed tells which.
 */
static glcollide_mesh *capture(dGeomID geom, const plugin_source *src, int *borrowed)
{
    *borrowed = borrowable(src);
    if (*borrowed)
        return borrow(src);
    size_t vertex_count, triangle_count;
    if (src) {
        vertex_count = (size_t)src->vertex_count;
        triangle_count = (size_t)src->index_count / 3;
    } else {
        int count = dGeomTriMeshGetTriangleCount(geom);
        if (count < 0)
            return NULL;
        triangle_count = (size_t)count;
        vertex_count = 3 * triangle_count;
    }
    double *positions = malloc(3 * (vertex_count ? vertex_count : 1) * sizeof *positions);
    uint32_t *triangles = calloc(3 * (triangle_count ? triangle_count : 1), sizeof *triangles);
    glcollide_mesh *mesh = NULL;
    int ok = positions && triangles;
    if (ok && src) {
        ok = read_source(src, positions, triangles) >= 0;
    } else if (ok) {
        capture_positions(geom, triangle_count, positions);
        for (size_t i = 0; i < 3 * triangle_count; i++)
            triangles[i] = (uint32_t)i;
    }
    if (ok)
        glcollide_mesh_create(positions, vertex_count, triangles, triangle_count, "ODE trimesh",
                              &mesh);
    free(positions);
    free(triangles);
    return mesh;
}

/*
 * A changed data read again into its existing capture when the counts still
 * fit (a deforming mesh): 1 done with the same triangles (refit), 2 done with
 * other triangles (rebuild), 0 when a new capture is needed, -1 on error. A
 * borrowed capture has nothing to read: the arrays are checked again where
 * they still are the source's, and its BVH tells whether its triangles
 * changed.
 */
static int recapture_in_place(dGeomID geom, const plugin_source *src, plugin_mesh *entry)
{
    glcollide_mesh *mesh = entry->mesh;
    if (entry->borrowed) {
        if (!borrowable(src) || src->vertices != mesh->positions ||
            src->indices != mesh->triangles || (size_t)src->vertex_count != mesh->vertex_count ||
            (size_t)src->index_count / 3 != mesh->triangle_count)
            return 0;
        if (source_valid(src) < 0)
            return -1;
        return glcollide_bvh_same_triangles(entry->bvh, mesh) ? 1 : 2;
    }
    if (src) {
        if ((size_t)src->vertex_count != mesh->vertex_count ||
            (size_t)src->index_count / 3 != mesh->triangle_count)
            return 0;
        int changed = read_source(src, mesh->positions, mesh->triangles);
        if (changed < 0 || positions_finite(src->data, mesh->positions, mesh->vertex_count) < 0)
            return -1;
        return 1 + changed;
    }
    if ((size_t)dGeomTriMeshGetTriangleCount(geom) != mesh->triangle_count ||
        mesh->vertex_count != 3 * mesh->triangle_count)
        return 0;
    capture_positions(geom, mesh->triangle_count, mesh->positions);
    return positions_finite(entry->data, mesh->positions, mesh->vertex_count) < 0 ? -1 : 1;
}

static plugin_mesh *find_mesh(dTriMeshDataID data)
{
    for (size_t i = 0; i < plugin.mesh_count; i++)
        if (plugin.meshes[i]->data == data)
            return plugin.meshes[i];
    return NULL;
}

static glcollide_aabb bounds_of(const glcollide_mesh *mesh)
{
    glcollide_aabb box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            double x = mesh->positions[3 * v + k];
            box.min[k] = x < box.min[k] ? x : box.min[k];
            box.max[k] = x > box.max[k] ? x : box.max[k];
        }
    return box;
}

/* The object-space BVH of a capture: refit when only the vertices moved,
 * else built (the BVH keeps its own copy of the triangles). */
static int update_bvh(plugin_mesh *entry, const glcollide_mesh *mesh, int same_triangles)
{
    if (same_triangles && entry->bvh &&
        glcollide_bvh_triangle_count(entry->bvh) == mesh->triangle_count) {
        glcollide_bvh_refit(entry->bvh, mesh, plugin_threads());
        return GLCOLLIDE_OK;
    }
    glcollide_bvh_destroy(&entry->bvh);
    /* New triangles: is it a closed solid (a contained mesh can then be
     * pushed out)? A refit keeps the topology, and the answer. */
    glcollide_mesh_report report;
    entry->closed = glcollide_mesh_validate(mesh, &report) == GLCOLLIDE_OK && report.closed;
    return glcollide_bvh_create(mesh, &entry->bvh);
}

/* Every capture's generation; plugin.lock held. */
static uint64_t next_generation = 1;

/* A capture done: its generation, box and BVH. On failure the entry stays
 * stale (the next use tries again) and NULL is returned. */
static plugin_mesh *captured(plugin_mesh *entry, int same_triangles, int fresh)
{
    atomic_fetch_add(&plugin.registry_version, 1);
    /* Positions rewritten in place and the tree refit in place: a world
     * holding the capture takes it as a deformation (its generation tells);
     * a mesh or tree made anew: worlds holding the old are made again. */
    int refit = same_triangles && entry->bvh &&
                glcollide_bvh_triangle_count(entry->bvh) == entry->mesh->triangle_count;
    if (!fresh && !refit)
        atomic_fetch_add(&plugin.capture_epoch, 1);
    if (fresh)
        entry->id = next_generation;
    entry->generation = next_generation++;
    entry->bounds = bounds_of(entry->mesh);
    entry->stale = update_bvh(entry, entry->mesh, same_triangles) != GLCOLLIDE_OK;
    return entry->stale ? NULL : entry;
}

/* The captured data of a trimesh geom, captured (again) when needed;
 * plugin.lock held. */
static plugin_mesh *mesh_entry(dGeomID geom, dTriMeshDataID data, size_t triangle_count)
{
    plugin_mesh *entry = find_mesh(data);
    if (entry && !entry->stale && entry->mesh->triangle_count == triangle_count)
        return entry;
    const plugin_source *src = find_source(data);
    if (src && (size_t)src->index_count / 3 != triangle_count)
        src = NULL; /* rebuilt behind glcollide's back: the registration is stale */
    if (entry) {
        int done = recapture_in_place(geom, src, entry);
        if (done < 0)
            return NULL;
        if (done > 0)
            return captured(entry, done == 1, 0);
    }
    int borrowed;
    glcollide_mesh *mesh = capture(geom, src, &borrowed);
    if (!mesh)
        return NULL;
    if (entry) {
        capture_free(&entry->mesh, entry->borrowed);
        entry->mesh = mesh;
        entry->borrowed = borrowed;
        return captured(entry, 0, 0);
    }
    entry = calloc(1, sizeof *entry);
    if (!entry || plugin_reserve((void **)&plugin.meshes, &plugin.mesh_capacity,
                                 plugin.mesh_count + 1, sizeof *plugin.meshes) != GLCOLLIDE_OK) {
        free(entry);
        capture_free(&mesh, borrowed);
        return NULL;
    }
    *entry = (plugin_mesh){.data = data, .mesh = mesh, .borrowed = borrowed};
    plugin.meshes[plugin.mesh_count++] = entry;
    return captured(entry, 0, 1);
}

const plugin_mesh *plugin_geom_mesh(plugin_thread *t, dGeomID geom)
{
    /* ODE's side first, outside the lock. */
    dTriMeshDataID data = dGeomTriMeshGetTriMeshDataID(geom);
    size_t triangle_count = (size_t)dGeomTriMeshGetTriangleCount(geom);
    /* This thread found it at the registry's present version: nothing has
     * changed since, no lock needed. */
    plugin_found *found = &t->found[((uintptr_t)data >> 4) % PLUGIN_FOUND_SLOTS];
    unsigned long long version = atomic_load(&plugin.registry_version);
    if (found->data == data && found->version == version && found->triangle_count == triangle_count)
        return found->mesh;
    pthread_mutex_lock(&plugin.lock);
    const plugin_mesh *entry = mesh_entry(geom, data, triangle_count);
    *found = (plugin_found){data, triangle_count, atomic_load(&plugin.registry_version), entry};
    pthread_mutex_unlock(&plugin.lock);
    return entry;
}

static void mesh_free(plugin_mesh *entry)
{
    glcollide_bvh_destroy(&entry->bvh);
    capture_free(&entry->mesh, entry->borrowed);
    free(entry);
}

void plugin_meshes_release(void)
{
    atomic_fetch_add(&plugin.registry_version, 1);
    atomic_fetch_add(&plugin.capture_epoch, 1);
    for (size_t i = 0; i < plugin.mesh_count; i++)
        mesh_free(plugin.meshes[i]);
    free(plugin.meshes);
    plugin.meshes = NULL;
    plugin.mesh_count = plugin.mesh_capacity = 0;
}

static void mark_changed(dTriMeshDataID data)
{
    plugin_mesh *entry = find_mesh(data);
    if (entry) {
        entry->stale = 1;
        atomic_fetch_add(&plugin.registry_version, 1);
    }
}

void glcollide_ode_trimesh_data_changed(dTriMeshDataID data)
{
    pthread_mutex_lock(&plugin.lock);
    mark_changed(data);
    pthread_mutex_unlock(&plugin.lock);
}

/* Drops the registration and the capture of data; plugin.lock held. */
static void forget(dTriMeshDataID data)
{
    atomic_fetch_add(&plugin.registry_version, 1);
    atomic_fetch_add(&plugin.capture_epoch, 1);
    plugin_source *src = find_source(data);
    if (src)
        *src = plugin.sources[--plugin.source_count];
    for (size_t i = 0; i < plugin.mesh_count; i++)
        if (plugin.meshes[i]->data == data) {
            mesh_free(plugin.meshes[i]);
            plugin.meshes[i] = plugin.meshes[--plugin.mesh_count];
            return;
        }
}

static void register_source(dTriMeshDataID data, int single, const void *vertices,
                            int vertex_stride, int vertex_count, const void *indices,
                            int index_count, int tri_stride)
{
    if (!data) /* kept also before glcollide_ode_init: programs build data first */
        return;
    int bad = !vertices || !indices || vertex_count < 0 || index_count < 0 || index_count % 3 ||
              vertex_stride < (int)(3 * (single ? sizeof(float) : sizeof(double))) ||
              tri_stride < (int)(3 * sizeof(dTriIndex));
    if (bad)
        glcollide_log(GLCOLLIDE_LOG_ERROR,
                      "trimesh data %p: bad arrays (%d vertices, stride %d; %d indices, "
                      "stride %d): captured through ODE instead",
                      (void *)data, vertex_count, vertex_stride, index_count, tri_stride);
    pthread_mutex_lock(&plugin.lock);
    plugin_source *src = bad ? NULL : find_source(data);
    if (bad) {
        forget(data);
    } else if (!src &&
               plugin_reserve((void **)&plugin.sources, &plugin.source_capacity,
                              plugin.source_count + 1, sizeof *plugin.sources) == GLCOLLIDE_OK) {
        src = &plugin.sources[plugin.source_count++];
    }
    if (src) /* else out of memory: captured through ODE instead */
        *src = (plugin_source){data,    vertices,    vertex_stride, vertex_count,
                               indices, index_count, tri_stride,    single};
    mark_changed(data);
    pthread_mutex_unlock(&plugin.lock);
}

void glcollide_ode_trimesh_data_build_double(dTriMeshDataID data, const void *vertices,
                                             int vertex_stride, int vertex_count,
                                             const void *indices, int index_count, int tri_stride)
{
    register_source(data, 0, vertices, vertex_stride, vertex_count, indices, index_count,
                    tri_stride);
}

void glcollide_ode_trimesh_data_build_single(dTriMeshDataID data, const void *vertices,
                                             int vertex_stride, int vertex_count,
                                             const void *indices, int index_count, int tri_stride)
{
    register_source(data, 1, vertices, vertex_stride, vertex_count, indices, index_count,
                    tri_stride);
}

void glcollide_ode_trimesh_data_forget(dTriMeshDataID data)
{
    pthread_mutex_lock(&plugin.lock);
    forget(data);
    pthread_mutex_unlock(&plugin.lock);
}

/* The world box of an object-space box placed by pose. */
static glcollide_aabb world_box(const glcollide_aabb *local, const glcollide_pose *pose)
{
    double m[9];
    glcollide_pose_rotation_matrix(pose, m);
    glcollide_aabb box;
    for (int k = 0; k < 3; k++) {
        double centre = pose->translation[k], extent = 0.0;
        for (int j = 0; j < 3; j++) {
            centre += m[3 * k + j] * 0.5 * (local->min[j] + local->max[j]);
            extent += fabs(m[3 * k + j]) * 0.5 * (local->max[j] - local->min[j]);
        }
        box.min[k] = centre - extent;
        box.max[k] = centre + extent;
    }
    return box;
}

/*
 * Can outer contain inner? glcollide_contacts_containment decides it with
 * one vertex of inner (the first of its first triangle) and exact
 * point-in-solid; that vertex outside outer's box (the box of its rotated
 * object-space box, which holds the solid) can never be inside. So this
 * test passes every contained pair, whatever the rotations: a test of
 * inner's whole box inside outer's, as before, missed a sphere turned 45
 * degrees inside a slightly larger one. Rounding: the box is widened by
 * 1e-9 of the outer mesh's size, within which point-in-solid calls a vertex
 * touching, not inside.
 */
int plugin_may_contain(const plugin_mesh *inner, const glcollide_pose *placed_inner,
                       const plugin_mesh *outer, const glcollide_pose *placed_outer)
{
    if (!outer->closed || !inner->mesh->triangle_count || !outer->mesh->triangle_count)
        return 0;
    double p[3];
    glcollide_pose_transform_points(
        placed_inner, inner->mesh->positions + 3 * (size_t)inner->mesh->triangles[0], 1, p);
    glcollide_aabb box = world_box(&outer->bounds, placed_outer);
    double size = 0.0;
    for (int k = 0; k < 3; k++)
        size = fmax(size, box.max[k] - box.min[k]);
    for (int k = 0; k < 3; k++)
        if (!(p[k] >= box.min[k] - 1e-9 * size && p[k] <= box.max[k] + 1e-9 * size))
            return 0;
    return 1;
}

dContactGeom *plugin_contact_out(dContactGeom *contact, int skip, size_t i,
                                 const glcollide_contact *c, double least_depth, dGeomID g1,
                                 dGeomID g2)
{
    dContactGeom *out = (dContactGeom *)((char *)contact + i * (size_t)skip);
    for (int k = 0; k < 3; k++) {
        out->pos[k] = (dReal)c->position[k];
        out->normal[k] = (dReal)c->normal[k];
    }
    out->pos[3] = out->normal[3] = 0;
    out->depth = (dReal)fmax(c->depth, least_depth);
    out->g1 = g1;
    out->g2 = g2;
    return out;
}

void plugin_contacts_reverse(dContactGeom *contact, int count, int skip)
{
    for (int i = 0; i < count; i++) {
        dContactGeom *c = (dContactGeom *)((char *)contact + (size_t)i * (size_t)skip);
        for (int k = 0; k < 3; k++)
            c->normal[k] = -c->normal[k];
        dGeomID g = c->g1;
        c->g1 = c->g2;
        c->g2 = g;
        int side = c->side1;
        c->side1 = c->side2;
        c->side2 = side;
    }
}
