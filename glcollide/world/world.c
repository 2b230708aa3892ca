/* SPDX-License-Identifier: MIT */
/*
 * The persistent world: meshes registered once, objects posed frame after
 * frame.
 *
 * What a frame costs is what moved: a pose change recomputes one box (the
 * mesh's object-space box turned by the pose, no vertex touched); what is
 * derived from a mesh (BVH, solidity and connected parts, world positions
 * for the methods that need them) is made on first need and made again only
 * when the mesh changes. A clock ticks at every change; each cache keeps the
 * tick it was brought up to, so it can tell what to redo.
 *
 * The methods read the world through world.h; this file knows nothing of
 * them, nor of GL.
 */
#include "world/world.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t next_world_id = 1;

int glcollide_world_create(glcollide_world **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: out is NULL");
    glcollide_world *world = calloc(1, sizeof *world);
    if (!world)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "world: out of memory");
    world->clock = 1;
    world->id = next_world_id++;
    *out = world;
    return GLCOLLIDE_OK;
}

static void space_release(glcollide_world_space *space)
{
    if (!space)
        return;
    for (size_t i = 0; i < space->object_capacity; i++)
        free(space->objects[i].positions);
    free(space->objects);
    free(space->bounds);
    free(space->synced_at);
    free(space->position_capacity);
    free(space);
}

static void entry_release(glcollide_world_mesh_entry *entry)
{
    if (!entry->bvh_borrowed)
        glcollide_bvh_destroy(&entry->bvh);
    entry->bvh = NULL;
    entry->bvh_borrowed = 0;
    free(entry->shells);
    entry->shells = NULL;
    entry->shell_count = 0;
    free(entry->frontier);
    entry->frontier = NULL;
    entry->frontier_count = 0;
    entry->frontier_at = 0;
    free(entry->slabs);
    entry->slabs = NULL;
    entry->slabs_at = 0;
}

void glcollide_world_destroy(glcollide_world **world)
{
    if (!world || !*world)
        return;
    glcollide_world *w = *world;
    for (size_t m = 0; m < w->mesh_count; m++)
        entry_release(&w->meshes[m]);
    free(w->meshes);
    free(w->objects);
    free(w->boxes);
    free(w->changed_at);
    for (size_t k = 0; k < w->part_count; k++)
        glcollide_query_result_clear(&w->parts[k]);
    free(w->parts);
    free(w->outcomes);
    free(w->exact_boxes);
    free(w->exact_synced);
    glcollide_pair_list_clear(&w->pairs);
    glcollide_workspace_release(&w->workspace);
    glcollide_distance_scratch_release(&w->distance);
    glcollide_world_scratch_release(&w->scratch);
    glcollide_pair_list_clear(&w->contact_candidates);
    glcollide_posed_pair_release(&w->posed);
    space_release(w->space);
    if (w->method_kind)
        w->method_kind->release(w->method_scratch);
    for (size_t m = 0; m < w->owned_count; m++)
        glcollide_mesh_destroy(&w->owned[m]);
    free(w->owned);
    free(w);
    *world = NULL;
}

void *glcollide_world_method_scratch(const glcollide_world *world,
                                     const glcollide_world_method_kind *kind)
{
    return world->method_kind == kind ? world->method_scratch : NULL;
}

void glcollide_world_set_method_scratch(glcollide_world *world,
                                        const glcollide_world_method_kind *kind, void *scratch)
{
    if (world->method_kind && world->method_scratch != scratch)
        world->method_kind->release(world->method_scratch);
    world->method_kind = kind;
    world->method_scratch = scratch;
}

static void rebox_mesh_objects(glcollide_world *world, uint32_t m);

static const char *mesh_label(const glcollide_mesh *mesh)
{
    return mesh->name ? mesh->name : "mesh";
}

/* Box of the vertices first..first+count-1 (finite, checked), into box. */
static int check_vertices(const glcollide_mesh *mesh, size_t first, size_t count,
                          glcollide_aabb *box)
{
    for (size_t v = first; v < first + count; v++) {
        const double *p = mesh->positions + 3 * v;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "world: %s: vertex %zu has a non-finite coordinate",
                                  mesh_label(mesh), v);
        glcollide_aabb_add_point(box, p);
    }
    return GLCOLLIDE_OK;
}

/* The box of the vertices triangles use (object space), every index checked. */
static int mesh_bounds(const glcollide_mesh *mesh, glcollide_aabb *bounds)
{
    glcollide_aabb_empty(bounds);
    if (mesh->triangle_count >= UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "world: %s: %zu triangles, at most %u",
                              mesh_label(mesh), mesh->triangle_count, UINT32_MAX - 1);
    if (mesh->triangle_count && (!mesh->positions || !mesh->triangles))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: %s: NULL arrays",
                              mesh_label(mesh));
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++) {
        uint32_t v = mesh->triangles[i];
        if (v >= mesh->vertex_count)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "world: %s: triangle %zu uses vertex %u of %zu", mesh_label(mesh),
                                  i / 3, v, mesh->vertex_count);
        const double *p = mesh->positions + 3 * (size_t)v;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "world: %s: vertex %u has a non-finite coordinate",
                                  mesh_label(mesh), v);
        glcollide_aabb_add_point(bounds, p);
    }
    return GLCOLLIDE_OK;
}

static int fill_entry(glcollide_world *world, glcollide_world_mesh_entry *entry,
                      const glcollide_mesh *mesh)
{
    glcollide_aabb bounds;
    int status = mesh_bounds(mesh, &bounds);
    if (status != GLCOLLIDE_OK)
        return status;
    entry_release(entry);
    entry->mesh = mesh;
    entry->bounds = bounds;
    entry->solid = -1;
    entry->crossing = -1;
    entry->previous_change = entry->changed_at;
    entry->changed_at = ++world->clock;
    entry->changed_first = 0;
    entry->changed_count = mesh->vertex_count;
    return GLCOLLIDE_OK;
}

int glcollide_world_add_mesh(glcollide_world *world, const glcollide_mesh *mesh, uint32_t *index)
{
    if (!world || !mesh)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: add_mesh with NULL");
    if (world->mesh_count >= UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "world: too many meshes");
    int status = glcollide_array_reserve((void **)&world->meshes, &world->mesh_capacity,
                                         world->mesh_count + 1, sizeof *world->meshes, "world");
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_world_mesh_entry *entry = &world->meshes[world->mesh_count];
    memset(entry, 0, sizeof *entry);
    if ((status = fill_entry(world, entry, mesh)) != GLCOLLIDE_OK)
        return status;
    if (index)
        *index = (uint32_t)world->mesh_count;
    world->mesh_count++;
    return GLCOLLIDE_OK;
}

int glcollide_world_take_mesh(glcollide_world *world, glcollide_mesh *mesh, uint32_t *index)
{
    int status =
        world ? glcollide_array_reserve((void **)&world->owned, &world->owned_capacity,
                                        world->owned_count + 1, sizeof *world->owned, "world")
              : GLCOLLIDE_ERROR_INVALID_ARGUMENT;
    if (status == GLCOLLIDE_OK)
        status = glcollide_world_add_mesh(world, mesh, index);
    if (status != GLCOLLIDE_OK) {
        glcollide_mesh_destroy(&mesh);
        return status;
    }
    world->owned[world->owned_count++] = mesh;
    return GLCOLLIDE_OK;
}

int glcollide_world_add_mesh_with_bvh(glcollide_world *world, const glcollide_mesh *mesh,
                                      glcollide_bvh *bvh, uint32_t *index)
{
    if (!bvh)
        return glcollide_world_add_mesh(world, mesh, index);
    if (mesh && glcollide_bvh_triangle_count(bvh) != mesh->triangle_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "world: %s has %zu triangles, the BVH given with it %zu",
                              mesh_label(mesh), mesh->triangle_count,
                              glcollide_bvh_triangle_count(bvh));
    uint32_t at;
    int status = glcollide_world_add_mesh(world, mesh, &at);
    if (status != GLCOLLIDE_OK)
        return status;
    world->meshes[at].bvh = bvh;
    world->meshes[at].bvh_borrowed = 1;
    if (index)
        *index = at;
    return GLCOLLIDE_OK;
}

int glcollide_world_replace_mesh(glcollide_world *world, uint32_t index, const glcollide_mesh *mesh)
{
    if (!world || !mesh || index >= world->mesh_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "world: replace_mesh: no mesh %u or NULL", index);
    glcollide_aabb bounds;
    int status = mesh_bounds(mesh, &bounds); /* checked before the old one goes */
    if (status == GLCOLLIDE_OK)
        status = fill_entry(world, &world->meshes[index], mesh);
    if (status == GLCOLLIDE_OK)
        rebox_mesh_objects(world, index);
    return status;
}

int glcollide_world_mesh_changed(glcollide_world *world, uint32_t index, size_t first_vertex,
                                 size_t vertex_count)
{
    if (!world || index >= world->mesh_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: mesh_changed: no mesh %u",
                              index);
    glcollide_world_mesh_entry *entry = &world->meshes[index];
    const glcollide_mesh *mesh = entry->mesh;
    if (first_vertex > mesh->vertex_count || vertex_count > mesh->vertex_count - first_vertex)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "world: mesh_changed: vertices %zu..+%zu of %s, which has %zu",
                              first_vertex, vertex_count, mesh_label(mesh), mesh->vertex_count);
    glcollide_aabb ignored;
    glcollide_aabb_empty(&ignored);
    int status = check_vertices(mesh, first_vertex, vertex_count, &ignored);
    if (status != GLCOLLIDE_OK)
        return status;
    /* The box of the referenced vertices, again: O(triangles), as the refit. */
    if ((status = mesh_bounds(mesh, &entry->bounds)) != GLCOLLIDE_OK)
        return status;
    if (entry->bvh && !entry->bvh_borrowed) /* a borrowed one is the caller's to refit */
        glcollide_bvh_refit_positions(entry->bvh, mesh->positions, 0);
    entry->solid = entry->solid == 0 ? 0 : -1; /* topology kept: open stays open */
    entry->crossing = -1;                      /* moved vertices may cross */
    entry->previous_change = entry->changed_at;
    entry->changed_at = ++world->clock;
    entry->changed_first = first_vertex;
    entry->changed_count = vertex_count;
    rebox_mesh_objects(world, index);
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------- objects */

int glcollide_world_pose_check(const double translation[3], const double rotation[4], uint32_t mesh,
                               const char *where, glcollide_object *pose)
{
    if (!translation || !rotation)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "%sNULL pose", where);
    for (int k = 0; k < 3; k++)
        if (!isfinite(translation[k]))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "%sobject translation is not finite", where);
    double n2 = rotation[0] * rotation[0] + rotation[1] * rotation[1] + rotation[2] * rotation[2] +
                rotation[3] * rotation[3];
    if (!isfinite(n2) || fabs(sqrt(n2) - 1.0) > 1e-6)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "%sobject rotation (%g %g %g %g) is not a unit quaternion", where,
                              rotation[0], rotation[1], rotation[2], rotation[3]);
    pose->mesh = mesh;
    double inv = 1.0 / sqrt(n2);
    for (int k = 0; k < 3; k++)
        pose->pose.translation[k] = translation[k];
    for (int k = 0; k < 4; k++)
        pose->pose.rotation[k] = rotation[k] * inv;
    return GLCOLLIDE_OK;
}

/* The boxes of the objects of mesh m, after its vertices moved. */
static void rebox_mesh_objects(glcollide_world *world, uint32_t m)
{
    for (size_t o = 0; o < world->object_count; o++)
        if (world->objects[o].mesh == m)
            glcollide_aabb_place(&world->meshes[m].bounds, &world->objects[o].pose,
                                 &world->boxes[o]);
}

static int reserve_objects(glcollide_world *world, size_t count)
{
    int status = glcollide_array_reserve((void **)&world->objects, &world->object_capacity, count,
                                         sizeof *world->objects, "world");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&world->boxes, &world->box_capacity, count,
                                         sizeof *world->boxes, "world");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&world->changed_at, &world->changed_capacity,
                                         count, sizeof *world->changed_at, "world");
    return status;
}

static void place(glcollide_world *world, size_t o, const glcollide_object *pose)
{
    world->objects[o] = *pose;
    glcollide_aabb_place(&world->meshes[pose->mesh].bounds, &pose->pose, &world->boxes[o]);
    world->changed_at[o] = ++world->clock;
}

int glcollide_world_add_object_as_is(glcollide_world *world, const glcollide_object *pose,
                                     uint32_t *index)
{
    if (pose->mesh >= world->mesh_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "world: object refers to mesh %u, only %zu meshes", pose->mesh,
                              world->mesh_count);
    if (world->object_count >= UINT32_MAX - 1)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "world: too many objects");
    int status = reserve_objects(world, world->object_count + 1);
    if (status != GLCOLLIDE_OK)
        return status;
    if (index)
        *index = (uint32_t)world->object_count;
    place(world, world->object_count++, pose);
    return GLCOLLIDE_OK;
}

int glcollide_world_add_object(glcollide_world *world, uint32_t mesh, const double translation[3],
                               const double rotation[4], uint32_t *index)
{
    if (!world)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: add_object with NULL");
    glcollide_object pose;
    int status = glcollide_world_pose_check(translation, rotation, mesh, "world: ", &pose);
    return status == GLCOLLIDE_OK ? glcollide_world_add_object_as_is(world, &pose, index) : status;
}

int glcollide_world_set_pose(glcollide_world *world, uint32_t object, const double translation[3],
                             const double rotation[4])
{
    if (!world || object >= world->object_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: set_pose: no object %u",
                              object);
    glcollide_object pose;
    int status = glcollide_world_pose_check(translation, rotation, world->objects[object].mesh,
                                            "world: ", &pose);
    const glcollide_object *now = &world->objects[object];
    if (status == GLCOLLIDE_OK &&
        !(memcmp(now->pose.translation, pose.pose.translation, sizeof pose.pose.translation) == 0 &&
          memcmp(now->pose.rotation, pose.pose.rotation, sizeof pose.pose.rotation) == 0))
        place(world, object, &pose); /* the same pose again is no change: caches stay */
    return status;
}

void glcollide_world_clear_objects(glcollide_world *world)
{
    if (world) {
        world->object_count = 0;
        world->clock++;
    }
}

size_t glcollide_world_object_count(const glcollide_world *world)
{
    return world ? world->object_count : 0;
}

size_t glcollide_world_mesh_count(const glcollide_world *world)
{
    return world ? world->mesh_count : 0;
}

const glcollide_object *glcollide_world_object(const glcollide_world *world, uint32_t object)
{
    return world && object < world->object_count ? &world->objects[object] : NULL;
}

const glcollide_mesh *glcollide_world_mesh(const glcollide_world *world, uint32_t mesh)
{
    return world && mesh < world->mesh_count ? world->meshes[mesh].mesh : NULL;
}

/* ------------------------------------------------------------- derived */

/*
 * A triangle of each vertex-connected part of mesh, and how many parts: a
 * solid may be inside another in one part and not in the others (and where
 * the parts of one closed mesh pass through each other, the solid is where
 * they wind), so containment is asked once per part. Union-find.
 */
static int mesh_shells(const glcollide_mesh *mesh, uint32_t **shells, size_t *count)
{
    size_t n = mesh->vertex_count;
    uint32_t *parent = glcollide_alloc_array(n ? n : 1, sizeof *parent);
    unsigned char *seen = calloc(n ? n : 1, 1);
    *shells = glcollide_alloc_array(n ? n : 1, sizeof **shells);
    *count = 0;
    if (!parent || !seen || !*shells) {
        free(parent);
        free(seen);
        free(*shells);
        *shells = NULL;
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "world: out of memory");
    }
    for (size_t v = 0; v < n; v++)
        parent[v] = (uint32_t)v;
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++) {
        uint32_t a = mesh->triangles[i], b = mesh->triangles[i - i % 3 + (i + 1) % 3];
        while (parent[a] != a)
            a = parent[a] = parent[parent[a]];
        while (parent[b] != b)
            b = parent[b] = parent[parent[b]];
        parent[a] = b;
    }
    /* Each root once: the first corner met in each part. */
    for (size_t i = 0; i < 3 * mesh->triangle_count; i += 3) {
        uint32_t r = mesh->triangles[i];
        while (parent[r] != r)
            r = parent[r];
        if (!seen[r]) {
            seen[r] = 1;
            (*shells)[(*count)++] = (uint32_t)(i / 3);
        }
    }
    free(seen);
    free(parent);
    return GLCOLLIDE_OK;
}

static int prepare_mesh(glcollide_world *world, glcollide_world_mesh_entry *entry, unsigned what)
{
    const glcollide_mesh *mesh = entry->mesh;
    int status = GLCOLLIDE_OK;
    if ((what & GLCOLLIDE_WORLD_BVH) && !entry->bvh)
        status = glcollide_bvh_build(mesh->positions, mesh->vertex_count, mesh->triangles,
                                     mesh->triangle_count, &entry->bvh);
    if (status != GLCOLLIDE_OK || !(what & GLCOLLIDE_WORLD_SOLIDS))
        return status;
    if (entry->solid < 0) {
        glcollide_mesh_report report;
        if ((status = glcollide_mesh_validate(mesh, &report)) != GLCOLLIDE_OK)
            return status;
        world->solid_checks++;
        free(entry->shells);
        entry->shells = NULL;
        entry->shell_count = 0;
        entry->solid = report.closed;
        if (entry->solid)
            status = mesh_shells(mesh, &entry->shells, &entry->shell_count);
    }
    if (status == GLCOLLIDE_OK && (what & GLCOLLIDE_WORLD_CROSSING) && entry->solid == 1 &&
        entry->crossing < 0) {
        size_t crossings = 0;
        status = glcollide_mesh_self_intersections(mesh, &crossings, NULL);
        entry->crossing = status == GLCOLLIDE_OK ? crossings > 0 : -1;
    }
    return status;
}

int glcollide_world_prepare_mesh(glcollide_world *world, uint32_t m, unsigned what)
{
    return prepare_mesh(world, &world->meshes[m], what);
}

int glcollide_world_prepare(glcollide_world *world, unsigned what)
{
    /* Only the meshes objects use: a registry of many meshes costs nothing
     * for those not in play. */
    int status = GLCOLLIDE_OK;
    for (size_t o = 0; o < world->object_count && status == GLCOLLIDE_OK; o++)
        status = prepare_mesh(world, &world->meshes[world->objects[o].mesh], what);
    return status;
}

int glcollide_world_check_box(const glcollide_world *world, size_t o, const glcollide_aabb *box,
                              const char *what)
{
    const glcollide_mesh *mesh = world->meshes[world->objects[o].mesh].mesh;
    for (int k = 0; k < 3; k++)
        if (mesh->triangle_count && !(isfinite(box->min[k]) && isfinite(box->max[k])))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "%s: object %zu (mesh %s) has non-finite coordinates", what, o,
                                  mesh_label(mesh));
    return GLCOLLIDE_OK;
}

/* Box of object o's world positions, each vertex placed and dropped. */
static void exact_box(const glcollide_world *world, size_t o, glcollide_aabb *box)
{
    const glcollide_object *pose = &world->objects[o];
    const glcollide_mesh *mesh = world->meshes[pose->mesh].mesh;
    double m[9];
    glcollide_pose_rotation_matrix(&pose->pose, m);
    glcollide_aabb_empty(box);
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++) {
        double p[3];
        glcollide_place_point(&pose->pose, m, mesh->positions + 3 * (size_t)mesh->triangles[i], p);
        glcollide_aabb_add_point(box, p);
    }
}

int glcollide_world_exact_boxes(glcollide_world *world, const glcollide_aabb **boxes)
{
    size_t n = world->object_count;
    size_t before = world->exact_synced_capacity;
    int status = glcollide_array_reserve((void **)&world->exact_boxes, &world->exact_capacity, n,
                                         sizeof *world->exact_boxes, "world");
    if (status == GLCOLLIDE_OK)
        status =
            glcollide_array_reserve((void **)&world->exact_synced, &world->exact_synced_capacity, n,
                                    sizeof *world->exact_synced, "world");
    if (status != GLCOLLIDE_OK)
        return status;
    for (size_t o = before; o < world->exact_synced_capacity; o++)
        world->exact_synced[o] = 0;
    for (size_t o = 0; o < n && status == GLCOLLIDE_OK; o++) {
        if (world->exact_synced[o] >= glcollide_world_object_changed_at(world, o))
            continue;
        exact_box(world, o, &world->exact_boxes[o]);
        world->exact_synced[o] = world->clock;
        status = glcollide_world_check_box(world, o, &world->exact_boxes[o], "query");
        if (status != GLCOLLIDE_OK)
            world->exact_synced[o] = 0;
    }
    *boxes = world->exact_boxes;
    return status;
}

/* ------------------------------------------------------------- world space */

static int space_reserve(glcollide_world_space *space, size_t n)
{
    size_t before = space->object_capacity;
    if (n <= before)
        return GLCOLLIDE_OK;
    size_t capacity = before, c2 = before, c3 = before, c4 = before;
    int status = glcollide_array_reserve((void **)&space->objects, &capacity, n,
                                         sizeof *space->objects, "world");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&space->synced_at, &c2, n,
                                         sizeof *space->synced_at, "world");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&space->position_capacity, &c3, n,
                                         sizeof *space->position_capacity, "world");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&space->bounds, &c4, n, sizeof *space->bounds,
                                         "world");
    if (status != GLCOLLIDE_OK)
        return status; /* what grew stays grown; the capacity below still holds */
    size_t grown = capacity < c2 ? capacity : c2;
    grown = grown < c3 ? grown : c3;
    grown = grown < c4 ? grown : c4;
    for (size_t i = before; i < grown; i++) {
        space->objects[i] = (glcollide_world_placed){0};
        space->synced_at[i] = 0;
        space->position_capacity[i] = 0;
    }
    space->object_capacity = grown;
    space->bounds_capacity = grown;
    return GLCOLLIDE_OK;
}

static int space_sync_object(glcollide_world *world, glcollide_world_space *space, size_t o)
{
    const glcollide_object *pose = &world->objects[o];
    const glcollide_mesh *mesh = world->meshes[pose->mesh].mesh;
    glcollide_world_placed *w = &space->objects[o];
    if (w->mesh == mesh && space->synced_at[o] >= glcollide_world_object_changed_at(world, o))
        return GLCOLLIDE_OK;
    size_t doubles = 3 * mesh->vertex_count;
    if (space->position_capacity[o] < doubles) {
        double *grown = glcollide_realloc_array(w->positions, doubles ? doubles : 1, sizeof *grown);
        if (!grown)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                  "world: out of memory for %zu "
                                  "world positions",
                                  mesh->vertex_count);
        w->positions = grown;
        space->position_capacity[o] = doubles;
    }
    w->mesh = mesh;
    glcollide_pose_transform_points(&pose->pose, mesh->positions, mesh->vertex_count, w->positions);
    glcollide_aabb_empty(&w->bounds);
    for (size_t t = 0; t < 3 * mesh->triangle_count; t++)
        glcollide_aabb_add_point(&w->bounds, w->positions + 3 * (size_t)mesh->triangles[t]);
    space->bounds[o] = w->bounds;
    space->synced_at[o] = world->clock;
    int status = glcollide_world_check_box(world, o, &w->bounds, "query");
    if (status != GLCOLLIDE_OK)
        space->synced_at[o] = 0;
    return status;
}

int glcollide_world_space_get(glcollide_world *world, const glcollide_world_space **out)
{
    if (!world->space && !(world->space = calloc(1, sizeof *world->space)))
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "world: out of memory");
    glcollide_world_space *space = world->space;
    int status = space_reserve(space, world->object_count);
    for (size_t o = 0; o < world->object_count && status == GLCOLLIDE_OK; o++)
        status = space_sync_object(world, space, o);
    space->object_count = world->object_count;
    space->poses = world->objects;
    space->mesh_count = world->mesh_count;
    *out = space;
    return status;
}

/* ------------------------------------------------------------- triangle pairs */

void glcollide_world_scratch_release(glcollide_world_scratch *scratch)
{
    glcollide_pair_list_clear(&scratch->pairs);
    glcollide_workspace_release(&scratch->sap);
    glcollide_workspace_release(&scratch->boxes);
}

int glcollide_world_space_triangle_pairs(const glcollide_world_space *space,
                                         unsigned char *const *flags, uint32_t i, uint32_t j,
                                         double margin, glcollide_query_result *result,
                                         glcollide_world_scratch *scratch)
{
    const glcollide_world_placed *objects[2] = {&space->objects[i], &space->objects[j]};
    size_t count = 0;
    for (int s = 0; s < 2; s++)
        for (size_t t = 0; t < objects[s]->mesh->triangle_count; t++)
            count += flags ? flags[s ? j : i][t] : 1;
    /* Boxes, then their triangle ids, in one block of scratch (the sweep
     * has its own: pairs and workspace are separate). */
    size_t box_bytes = count * sizeof(glcollide_aabb);
    void *own = NULL;
    glcollide_aabb *boxes =
        count > SIZE_MAX / (sizeof(glcollide_aabb) + sizeof(uint32_t))
            ? NULL
            : glcollide_workspace_get(&scratch->boxes, box_bytes + count * sizeof(uint32_t) + 1,
                                      &own);
    if (!boxes)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
    uint32_t *ids = (uint32_t *)(void *)((char *)boxes + box_bytes);
    size_t first_of_j = 0, n = 0;
    for (int s = 0; s < 2; s++) {
        if (s == 1)
            first_of_j = n;
        const glcollide_world_placed *w = objects[s];
        for (size_t t = 0; t < w->mesh->triangle_count; t++) {
            if (flags && !flags[s ? j : i][t])
                continue;
            glcollide_aabb_empty(&boxes[n]);
            for (int c = 0; c < 3; c++)
                glcollide_aabb_add_point(&boxes[n],
                                         w->positions + 3 * (size_t)w->mesh->triangles[3 * t + c]);
            ids[n++] = (uint32_t)t;
        }
    }
    glcollide_pair_list *pairs = &scratch->pairs;
    pairs->count = 0;
    int status = glcollide_sap_pairs_across_ws(boxes, first_of_j, boxes + first_of_j,
                                               n - first_of_j, margin, pairs, &scratch->sap);
    for (size_t k = 0; k < pairs->count && status == GLCOLLIDE_OK; k++)
        status = glcollide_result_add_triangle_pair(result, i, ids[pairs->pairs[k].a], j,
                                                    ids[first_of_j + pairs->pairs[k].b]);
    return status;
}
