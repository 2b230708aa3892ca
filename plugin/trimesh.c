/* SPDX-License-Identifier: MIT */
/*
 * Trimesh geometry for the plugin: capture of each trimesh data in object
 * space, world transforms, and the trimesh-trimesh collider.
 *
 * ODE has no public access to a trimesh data's arrays; dGeomTriMeshGetTriangle
 * gives each triangle in world space, so each data is captured once through a
 * geom using it and brought back to object space with the inverse of that
 * geom's transform. Vertices are not shared (three per triangle): triangle
 * indices stay ODE's, which is what side1/side2 report.
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

static glcollide_object geom_object(dGeomID geom)
{
    dReal t[7];
    plugin_geom_transform(geom, t);
    glcollide_object object = {0};
    for (int k = 0; k < 3; k++)
        object.translation[k] = (double)t[k];
    for (int k = 0; k < 4; k++)
        object.rotation[k] = (double)t[3 + k];
    return object;
}

static glcollide_mesh *capture(dGeomID geom)
{
    int count = dGeomTriMeshGetTriangleCount(geom);
    if (count < 0)
        return NULL;
    size_t n = (size_t)count;
    double *positions = malloc(9 * (n ? n : 1) * sizeof *positions);
    uint32_t *triangles = malloc(3 * (n ? n : 1) * sizeof *triangles);
    glcollide_mesh *mesh = NULL;
    if (positions && triangles) {
        const dReal *p = dGeomGetPosition(geom);
        const dReal *r = dGeomGetRotation(geom); /* 3x4 row-major */
        for (size_t t = 0; t < n; t++) {
            dVector3 v[3];
            dGeomTriMeshGetTriangle(geom, (int)t, &v[0], &v[1], &v[2]);
            for (int c = 0; c < 3; c++) {
                double d[3] = {v[c][0] - p[0], v[c][1] - p[1], v[c][2] - p[2]};
                for (int k = 0; k < 3; k++) /* object = R^T (world - p) */
                    positions[9 * t + 3 * c + k] = r[k] * d[0] + r[4 + k] * d[1] + r[8 + k] * d[2];
                triangles[3 * t + c] = (uint32_t)(3 * t + c);
            }
        }
        glcollide_mesh_create(positions, 3 * n, triangles, n, "ODE trimesh", &mesh);
    }
    free(positions);
    free(triangles);
    return mesh;
}

static void clear_geom(plugin_geom *entry);

static plugin_mesh *find_mesh(dTriMeshDataID data)
{
    for (size_t i = 0; i < plugin.mesh_count; i++)
        if (plugin.meshes[i].data == data)
            return &plugin.meshes[i];
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

glcollide_aabb plugin_mesh_bounds(const glcollide_mesh *mesh)
{
    for (size_t i = 0; i < plugin.mesh_count; i++)
        if (plugin.scene->meshes[plugin.meshes[i].scene_mesh] == mesh)
            return plugin.meshes[i].bounds;
    return bounds_of(mesh);
}

const glcollide_mesh *plugin_geom_mesh(dGeomID geom)
{
    dTriMeshDataID data = dGeomTriMeshGetTriMeshDataID(geom);
    plugin_mesh *entry = find_mesh(data);
    if (entry && !entry->stale &&
        plugin.scene->meshes[entry->scene_mesh]->triangle_count ==
            (size_t)dGeomTriMeshGetTriangleCount(geom))
        return plugin.scene->meshes[entry->scene_mesh];
    glcollide_mesh *mesh = capture(geom);
    if (!mesh)
        return NULL;
    if (entry) {
        if (glcollide_scene_replace_mesh(plugin.scene, entry->scene_mesh, mesh) != GLCOLLIDE_OK)
            return NULL;
        entry->stale = 0;
        entry->bounds = bounds_of(mesh);
        return mesh;
    }
    if (plugin_reserve((void **)&plugin.meshes, &plugin.mesh_capacity, plugin.mesh_count + 1,
                       sizeof *plugin.meshes) != GLCOLLIDE_OK) {
        glcollide_mesh_destroy(&mesh);
        return NULL;
    }
    uint32_t index;
    if (glcollide_scene_add_mesh(plugin.scene, mesh, &index) != GLCOLLIDE_OK)
        return NULL;
    plugin.meshes[plugin.mesh_count++] = (plugin_mesh){data, index, 0, bounds_of(mesh)};
    return mesh;
}

void plugin_meshes_release(void)
{
    free(plugin.meshes);
    plugin.meshes = NULL;
    plugin.mesh_count = plugin.mesh_capacity = 0;
}

void glcollide_ode_trimesh_data_changed(dTriMeshDataID data)
{
    plugin_mesh *entry = plugin.started ? find_mesh(data) : NULL;
    if (!entry)
        return;
    entry->stale = 1;
    /* Geoms built on the old capture start over (a new capture may even land
     * at the old one's address). */
    const glcollide_mesh *old = plugin.scene->meshes[entry->scene_mesh];
    for (size_t i = 0; i < plugin.geom_slots; i++)
        if (plugin.geoms[i].geom && plugin.geoms[i].mesh == old)
            clear_geom(&plugin.geoms[i]);
}

static size_t slot_of(dGeomID geom, size_t slots)
{
    uintptr_t h = (uintptr_t)geom;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 7) & (slots - 1);
}

static plugin_geom *find_geom(dGeomID geom)
{
    if (plugin.geom_slots == 0)
        return NULL;
    for (size_t i = slot_of(geom, plugin.geom_slots);; i = (i + 1) & (plugin.geom_slots - 1)) {
        if (plugin.geoms[i].geom == geom)
            return &plugin.geoms[i];
        if (!plugin.geoms[i].geom)
            return NULL;
    }
}

static plugin_geom *insert_geom(dGeomID geom)
{
    if (2 * (plugin.geom_used + 1) > plugin.geom_slots) { /* keep the load under 1/2 */
        size_t slots = plugin.geom_slots ? 2 * plugin.geom_slots : 64;
        plugin_geom *table = calloc(slots, sizeof *table);
        if (!table)
            return NULL;
        for (size_t i = 0; i < plugin.geom_slots; i++) {
            if (!plugin.geoms[i].geom)
                continue;
            size_t j = slot_of(plugin.geoms[i].geom, slots);
            while (table[j].geom)
                j = (j + 1) & (slots - 1);
            table[j] = plugin.geoms[i];
        }
        free(plugin.geoms);
        plugin.geoms = table;
        plugin.geom_slots = slots;
    }
    size_t i = slot_of(geom, plugin.geom_slots);
    while (plugin.geoms[i].geom)
        i = (i + 1) & (plugin.geom_slots - 1);
    plugin.geom_used++;
    plugin.geoms[i] = (plugin_geom){.geom = geom};
    return &plugin.geoms[i];
}

static void clear_geom(plugin_geom *entry)
{
    free(entry->world);
    glcollide_bvh_destroy(&entry->bvh);
    entry->world = NULL;
    entry->mesh = NULL;
}

void plugin_geoms_release(void)
{
    for (size_t i = 0; i < plugin.geom_slots; i++)
        if (plugin.geoms[i].geom)
            clear_geom(&plugin.geoms[i]);
    free(plugin.geoms);
    plugin.geoms = NULL;
    plugin.geom_slots = plugin.geom_used = 0;
}

const plugin_geom *plugin_geom_world(dGeomID geom)
{
    const glcollide_mesh *mesh = plugin_geom_mesh(geom);
    if (!mesh)
        return NULL;
    plugin_geom *entry = find_geom(geom);
    if (!entry && !(entry = insert_geom(geom)))
        return NULL;
    dReal transform[7];
    plugin_geom_transform(geom, transform);
    /* A geom address reused by another geom, or a recaptured mesh: start over. */
    if (entry->mesh != mesh)
        clear_geom(entry);
    else if (memcmp(transform, entry->transform, sizeof transform) == 0)
        return entry;
    if (!entry->world && !(entry->world = malloc(3 * (mesh->vertex_count ? mesh->vertex_count : 1) *
                                                 sizeof *entry->world)))
        return NULL;
    glcollide_object object = geom_object(geom);
    glcollide_object_transform_points(&object, mesh->positions, mesh->vertex_count, entry->world);
    if (entry->bvh)
        glcollide_bvh_refit(entry->bvh, entry->world);
    else if (glcollide_bvh_build(entry->world, mesh->vertex_count, mesh->triangles,
                                 mesh->triangle_count, &entry->bvh) != GLCOLLIDE_OK)
        return NULL;
    entry->mesh = mesh;
    memcpy(entry->transform, transform, sizeof transform);
    entry->box = glcollide_bvh_bounds(entry->bvh);
    return entry;
}

/* This step's GPU candidates for (o1, o2), if the geoms have not moved since. */
static const plugin_step_pair *step_pair(dGeomID o1, dGeomID o2)
{
    dGeomID a = o1 < o2 ? o1 : o2, b = o1 < o2 ? o2 : o1;
    for (size_t i = 0; i < plugin.step_pair_count; i++) {
        const plugin_step_pair *p = &plugin.step_pairs[i];
        if (p->a != a || p->b != b)
            continue;
        dReal ta[7], tb[7];
        plugin_geom_transform(a, ta);
        plugin_geom_transform(b, tb);
        return memcmp(ta, p->transform_a, sizeof ta) == 0 &&
                       memcmp(tb, p->transform_b, sizeof tb) == 0
                   ? p
                   : NULL;
    }
    return NULL;
}

typedef struct candidate_list {
    glcollide_index_pair *pairs;
    size_t count, capacity;
    int status;
} candidate_list;

static int add_candidate(uint32_t a, uint32_t b, void *user)
{
    candidate_list *list = user;
    list->status = plugin_reserve((void **)&list->pairs, &list->capacity, list->count + 1,
                                  sizeof *list->pairs);
    if (list->status != GLCOLLIDE_OK)
        return 1;
    list->pairs[list->count++] = (glcollide_index_pair){a, b};
    return 0;
}

int plugin_trimesh_collide(dGeomID o1, dGeomID o2, int flags, dContactGeom *contact, int skip)
{
    size_t max_contacts = (size_t)(flags & 0xffff);
    if (max_contacts == 0 || !plugin.started)
        return 0;
    const plugin_geom *wa = plugin_geom_world(o1), *wb = plugin_geom_world(o2);
    if (!wa || !wb)
        return 0;
    const glcollide_mesh *ma = wa->mesh, *mb = wb->mesh;
    double start = plugin_now_ms();
    plugin.stats.trimesh_collides++;

    /* Candidates: this step's GPU culling, else a CPU BVH over both; the list
     * lives in the plugin so that a warm step allocates nothing. */
    candidate_list cpu = {plugin.candidates, 0, plugin.candidate_capacity, GLCOLLIDE_OK};
    const glcollide_index_pair *candidates = NULL;
    size_t candidate_count = 0;
    int swapped = o1 > o2;
    const plugin_step_pair *cached = step_pair(o1, o2);
    if (cached && !swapped) {
        candidates = plugin.step_candidates + cached->first;
        candidate_count = cached->count;
    } else {
        if (cached) { /* stored as (lower geom, higher geom): swap each pair */
            for (size_t i = 0; i < cached->count; i++) {
                const glcollide_index_pair *p = &plugin.step_candidates[cached->first + i];
                add_candidate(p->b, p->a, &cpu);
            }
        } else {
            glcollide_bvh_overlap(wa->bvh, wb->bvh, 0.0, add_candidate, &cpu);
        }
        candidates = cpu.pairs;
        candidate_count = cpu.count;
    }
    plugin.stats.candidates += candidate_count;

    size_t count = 0;
    if (plugin_reserve((void **)&plugin.contacts, &plugin.contact_capacity, max_contacts,
                       sizeof *plugin.contacts) == GLCOLLIDE_OK)
        glcollide_contacts_generate_with(wa->world, ma->triangles, wb->world, mb->triangles,
                                         candidates, candidate_count, plugin.contacts,
                                         max_contacts, &count, &plugin.contact_workspace);
    plugin.candidates = cpu.pairs;
    plugin.candidate_capacity = cpu.capacity;
    for (size_t i = 0; i < count; i++) {
        dContactGeom *out = (dContactGeom *)((char *)contact + i * (size_t)skip);
        const glcollide_contact *c = &plugin.contacts[i];
        for (int k = 0; k < 3; k++) {
            out->pos[k] = (dReal)c->position[k];
            out->normal[k] = (dReal)c->normal[k];
        }
        out->pos[3] = out->normal[3] = 0;
        out->depth = (dReal)c->depth;
        out->g1 = o1;
        out->g2 = o2;
        out->side1 = (int)c->triangle_a;
        out->side2 = (int)c->triangle_b;
    }
    plugin.stats.contacts += count;
    plugin.stats.contact_ms += plugin_now_ms() - start;
    return (int)count;
}
