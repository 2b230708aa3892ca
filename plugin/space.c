/* SPDX-License-Identifier: MIT */
/*
 * The glcollide space: dSpaceCollide's contract on any ODE space, with
 * sweep-and-prune on the boxes and GPU culling (FAR) of trimesh pairs.
 * Candidate triangle pairs found by the culling are kept for this step, so
 * that the dCollide calls the user's callback makes do not test them again.
 *
 * What ODE's spaces do, done here the same way:
 * - geoms are listed by ODE itself, in the space's own order: the space is
 *   collided (dSpaceCollide2) with a plane whose box is all of space, which
 *   works for every kind of space, leaves out disabled and zero-sized geoms
 *   as ODE's spaces do, and cleans the space as their collide does;
 * - pairs: overlapping boxes (inclusive), not on one body, category and
 *   collide bits, nested spaces reported as geoms; a pair with a geom of a
 *   class of the program's own goes through dSpaceCollide2, where ODE calls
 *   the classes' aabb_test as its spaces do;
 * - pairs reach the callback in dSimpleSpace's order: (i, j) by the list
 *   index of i, then of j, for i before j.
 */
#include "plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the pair tests need of geom i, into buffers->info[i]. */
static void note_info(plugin_space_buffers *buffers, size_t i)
{
    dGeomID g = buffers->geoms[i];
    int c = dGeomGetClass(g);
    buffers->info[i] = (plugin_geom_info){.body = dGeomGetBody(g),
                                          .category = dGeomGetCategoryBits(g),
                                          .collide = dGeomGetCollideBits(g),
                                          .user_class = c >= dFirstUserClass && c <= dLastUserClass,
                                          .trimesh = c == dTriMeshClass};
}

/* Box of a geom: ODE's; for trimeshes, grown to cover the captured vertices
 * too, since ODE's goes stale when vertices change (ODE's own trimesh box, from
 * the rotated box of the mesh, is otherwise the larger: the pairs stay ODE's). */
static void geom_box(dGeomID g, const plugin_mesh *captured, glcollide_aabb *box)
{
    dReal aabb[6];
    dGeomGetAABB(g, aabb);
    for (int k = 0; k < 3; k++) {
        box->min[k] = (double)aabb[2 * k];
        box->max[k] = (double)aabb[2 * k + 1];
    }
    if (!captured || !captured->mesh->triangle_count)
        return;
    /* The box of the captured mesh's box, rotated: no per-vertex work for
     * geoms that meet nothing (ODE's own trimesh box is made this way). */
    const glcollide_aabb *local = &captured->bounds;
    const dReal *p = dGeomGetPosition(g), *r = dGeomGetRotation(g);
    for (int k = 0; k < 3; k++) {
        double centre = p[k], extent = 0;
        for (int j = 0; j < 3; j++) {
            double c = 0.5 * (local->min[j] + local->max[j]),
                   h = 0.5 * (local->max[j] - local->min[j]);
            centre += r[4 * k + j] * c;
            extent += fabs(r[4 * k + j]) * h;
        }
        /* widened by a few ulps: the vertices' own rounding */
        extent += 1e-12 * (fabs(centre) + extent);
        double low = centre - extent, high = centre + extent;
        box->min[k] = low < box->min[k] ? low : box->min[k];
        box->max[k] = high > box->max[k] ? high : box->max[k];
    }
}

/* ------------------------------------------------------------- listing */

/* The probe's callback: whichever of the two is not the probe is a geom of
 * the space that ODE's own test kept. */
typedef struct probe_listing {
    plugin_space_buffers *buffers;
    dGeomID probe;
    size_t capacity;
} probe_listing;

static void note_probed(void *data, dGeomID o1, dGeomID o2)
{
    probe_listing *listing = data;
    if (listing->buffers->geom_count < listing->capacity)
        listing->buffers->geoms[listing->buffers->geom_count++] = o1 == listing->probe ? o2 : o1;
}

/*
 * The geoms of space that ODE's spaces consider, into buffers->geoms, in the
 * space's order: those its collide2 hands on against a plane whose box is
 * all of space. Every kind of space has a collide2 (quadtree spaces have no
 * dSpaceGetGeom in ODE 0.16), and it first cleans the space as its collide
 * would (boxes recomputed, moved geoms no longer marked dirty), so the
 * space's list evolves from step to step as under ODE's own collide, and
 * with it the order of the pairs. ODE keeps the geoms that are enabled and
 * not zero-sized (GEOM_ENABLED), have some category or collide bit (a geom
 * with none pairs with nothing), and that a class of the program's own
 * accepts in its aabb_test (asked with the plane and an infinite box).
 */
static int list_geoms(plugin_thread *t, plugin_space_buffers *buffers, dSpaceID space)
{
    size_t n = (size_t)dSpaceGetNumGeoms(space);
    if (plugin_reserve((void **)&buffers->geoms, &buffers->geom_capacity, n,
                       sizeof *buffers->geoms))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    buffers->geom_count = 0;
    /* a plane not along an axis: its box is infinite on every side */
    if (!t->probe && !(t->probe = dCreatePlane(NULL, 1, 1, 1, 0)))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    probe_listing listing = {buffers, t->probe, n};
    plugin_ode_space_collide2()((dGeomID)space, t->probe, &listing, note_probed);
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------- GPU culling */

/* Slot of key in an open-addressing table of size (a power of two). */
static size_t table_slot(uint64_t key, size_t size)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (size - 1);
}

static void step_pair_key(const void *user, uint32_t i, dGeomID *a, dGeomID *b)
{
    const plugin_step_pair *p = &((const plugin_step_cache *)user)->pairs[i];
    *a = p->a;
    *b = p->b;
}

const plugin_step_pair *plugin_step_find(const plugin_step_cache *cache, dGeomID a, dGeomID b)
{
    uint32_t i = plugin_pair_table_find(&cache->table, a, b, step_pair_key, cache);
    return i == UINT32_MAX ? NULL : &cache->pairs[i];
}

static int kept_trimesh_pair(const plugin_space_buffers *buffers, size_t k)
{
    return buffers->keep[k] && buffers->info[buffers->pairs.pairs[k].a].trimesh &&
           buffers->info[buffers->pairs.pairs[k].b].trimesh;
}

/* Keeps the candidates of pair k, the triangle pairs of the world's object
 * pair group (none: count 0) for this step's dCollide calls, with what the
 * stencil pass said of the pair (stencil: it ran; interfering: flagged).
 * Returns 0 when the pair is left for dCollide to find its own candidates
 * (out of memory). */
static int keep_candidates(plugin_thread *t, const plugin_space_buffers *buffers, size_t k,
                           const glcollide_triangle_pair *group, size_t count, int stencil,
                           int interfering)
{
    plugin_step_cache *cache = &t->step;
    if (plugin_reserve((void **)&cache->candidates, &cache->candidate_capacity,
                       cache->candidate_count + count, sizeof *cache->candidates) ||
        plugin_reserve((void **)&cache->pairs, &cache->pair_capacity, cache->pair_count + 1,
                       sizeof *cache->pairs))
        return 0;
    /* geoms (first, second) in the cache's order; the group's triangle_a
     * is the lower object's */
    uint32_t i = buffers->pairs.pairs[k].a, j = buffers->pairs.pairs[k].b;
    if (plugin_step_swapped(buffers->geoms[i], buffers->geoms[j])) {
        uint32_t swap = i;
        i = j;
        j = swap;
    }
    int first_lower = buffers->scene_object[i] < buffers->scene_object[j];
    glcollide_index_pair *out = cache->candidates + cache->candidate_count;
    for (size_t c = 0; c < count; c++)
        out[c] = first_lower ? (glcollide_index_pair){group[c].triangle_a, group[c].triangle_b}
                             : (glcollide_index_pair){group[c].triangle_b, group[c].triangle_a};
    plugin_step_pair *p = &cache->pairs[cache->pair_count];
    *p = (plugin_step_pair){.a = buffers->geoms[i],
                            .b = buffers->geoms[j],
                            .first = cache->candidate_count,
                            .count = count,
                            .generation_a = buffers->meshes[i]->generation,
                            .generation_b = buffers->meshes[j]->generation,
                            .stencil = stencil,
                            .interfering = interfering};
    memcpy(p->transform_a, buffers->transforms[i], sizeof p->transform_a);
    memcpy(p->transform_b, buffers->transforms[j], sizeof p->transform_b);
    cache->pair_count++;
    if (plugin_pair_table_add(&cache->table, p->a, p->b, (uint32_t)(cache->pair_count - 1),
                              step_pair_key, cache) != GLCOLLIDE_OK) {
        cache->pair_count--; /* not findable: its dCollide finds candidates itself */
        return 0;
    }
    cache->candidate_count += count;
    return 1;
}

/* Can one solid of pair k lie inside the other, by the exact test's own
 * filter (plugin_may_contain)? Such a pair is never culled: it has no
 * triangle pair to find, yet its dCollide pushes the inner one out. */
static int may_contain_pair(const plugin_space_buffers *buffers, size_t k)
{
    uint32_t i = buffers->pairs.pairs[k].a, j = buffers->pairs.pairs[k].b;
    const plugin_mesh *mi = buffers->meshes[i], *mj = buffers->meshes[j];
    glcollide_pose oi = plugin_transform_pose(buffers->transforms[i]),
                   oj = plugin_transform_pose(buffers->transforms[j]);
    return plugin_may_contain(mi, &oi, mj, &oj) || plugin_may_contain(mj, &oj, mi, &oi);
}

/* A GPU query's work into the plugin's counters. */
static void count_gpu_work(const glcollide_query_stats *stats)
{
    plugin_counters *c = &plugin.counters;
    plugin_count(&c->draw_calls, stats->draw_calls);
    plugin_count(&c->gpu_syncs, stats->gpu_syncs);
    plugin_count(&c->readback_bytes, stats->readback_bytes);
    plugin_count(&c->upload_bytes, stats->upload_bytes);
}

/*
 * The stencil flags pass (Knott) on the world FAR just culled, with the same
 * context: which objects interpenetrate. Only where every object is a
 * closed solid (the method's premise; an open mesh would be refused each
 * step). Returns 1 when the pass ran (t->stencil_result holds its pairs).
 */
static int stencil_flags(plugin_thread *t, const plugin_space_buffers *buffers,
                         glcollide_context *context, const glcollide_query_options *far)
{
    int resolution = atomic_load_explicit(&plugin.stencil_resolution, memory_order_relaxed);
    if (resolution <= 0)
        return 0;
    for (size_t i = 0; i < buffers->geom_count; i++)
        if (buffers->scene_object[i] >= 0 && !buffers->meshes[i]->closed)
            return 0;
    unsigned long long start = plugin_now_ns();
    glcollide_query_options options = *far;
    options.method = GLCOLLIDE_METHOD_STENCIL;
    options.level = GLCOLLIDE_LEVEL_OBJECTS;
    options.resolution = resolution;
    glcollide_query_result *result = &t->stencil_result;
    if (glcollide_world_query(t->cull_world, context, &options, result) != GLCOLLIDE_OK)
        return 0; /* logged; the exact tests serve */
    count_gpu_work(&result->stats);
    plugin_count(&plugin.counters.stencil_passes, 1);
    plugin_count(&plugin.counters.stencil_ns, plugin_now_ns() - start);
    return 1;
}

/* World mesh of capture m: registered once per world, with its BVH. A
 * capture rewritten in place since (a deforming mesh: a new generation, the
 * same mesh and tree) is told to the world as changed, so only its vertices
 * travel again; the world is made again whenever a capture it borrows may
 * have gone (capture_epoch). UINT32_MAX on error (logged). */
static uint32_t world_mesh(plugin_thread *t, const plugin_mesh *m)
{
    size_t count = glcollide_world_mesh_count(t->cull_world);
    size_t slot = 0;
    if (t->cull_mesh_table_size) {
        for (slot = table_slot(m->id, t->cull_mesh_table_size); t->cull_mesh_table[slot];
             slot = (slot + 1) & (t->cull_mesh_table_size - 1)) {
            uint32_t index = t->cull_mesh_table[slot] - 1;
            if (t->cull_ids[index] != m->id)
                continue;
            if (t->cull_generations[index] != m->generation) {
                if (glcollide_world_mesh_changed(t->cull_world, index, 0, m->mesh->vertex_count) !=
                    GLCOLLIDE_OK)
                    return UINT32_MAX;
                t->cull_generations[index] = m->generation;
            }
            return index;
        }
    }
    uint32_t index;
    if (plugin_reserve((void **)&t->cull_ids, &t->cull_id_capacity, count + 1,
                       sizeof *t->cull_ids) ||
        plugin_reserve((void **)&t->cull_generations, &t->cull_generation_capacity, count + 1,
                       sizeof *t->cull_generations) ||
        glcollide_world_add_mesh_with_bvh(t->cull_world, m->mesh, m->bvh, &index) != GLCOLLIDE_OK)
        return UINT32_MAX;
    t->cull_ids[index] = m->id;
    t->cull_generations[index] = m->generation;
    if (2 * (count + 1) > t->cull_mesh_table_size) { /* grow and refill */
        size_t size = t->cull_mesh_table_size ? 2 * t->cull_mesh_table_size : 64;
        uint32_t *table = calloc(size, sizeof *table);
        if (!table)
            return UINT32_MAX;
        free(t->cull_mesh_table);
        t->cull_mesh_table = table;
        t->cull_mesh_table_size = size;
        for (uint32_t i = 0; i < index; i++) {
            size_t s = table_slot(t->cull_ids[i], size);
            while (table[s])
                s = (s + 1) & (size - 1);
            table[s] = i + 1;
        }
        slot = table_slot(m->id, size);
        while (table[slot])
            slot = (slot + 1) & (size - 1);
    }
    t->cull_mesh_table[slot] = index + 1;
    return index;
}

/* Sets index (in the space's list) on the wanted trimesh geoms, 0, 1, ...
 * in the space's order, and their world meshes; returns how many, or -1. */
static long wanted_objects(plugin_thread *t, plugin_space_buffers *buffers)
{
    const glcollide_pair_list *pairs = &buffers->pairs;
    for (size_t k = 0; k < pairs->count; k++)
        if (kept_trimesh_pair(buffers, k))
            buffers->scene_object[pairs->pairs[k].a] = buffers->scene_object[pairs->pairs[k].b] = 0;
    /* the captures (made when the geoms were described) first: a capture
     * may change the registry */
    for (size_t i = 0; i < buffers->geom_count; i++)
        if (buffers->scene_object[i] == 0 && !buffers->meshes[i])
            return -1;
    unsigned long long version = atomic_load(&plugin.capture_epoch);
    if (!t->cull_world || t->cull_version != version) {
        glcollide_world_destroy(&t->cull_world);
        if (glcollide_world_create(&t->cull_world) != GLCOLLIDE_OK)
            return -1;
        if (t->cull_mesh_table_size)
            memset(t->cull_mesh_table, 0, t->cull_mesh_table_size * sizeof *t->cull_mesh_table);
        t->cull_version = version;
    }
    long count = 0;
    for (size_t i = 0; i < buffers->geom_count; i++) {
        if (buffers->scene_object[i] != 0)
            continue;
        uint32_t m = world_mesh(t, buffers->meshes[i]);
        if (m == UINT32_MAX || plugin_reserve((void **)&t->cull_meshes, &t->cull_mesh_capacity,
                                              (size_t)count + 1, sizeof *t->cull_meshes))
            return -1;
        t->cull_meshes[count] = m;
        buffers->scene_object[i] = (int32_t)count++;
    }
    return count;
}

/* Poses the world's objects as the wanted geoms stand (their transforms
 * read here, once per step): moved where the objects are those of the last
 * step (same number, same meshes), else listed again. */
static int pose_world(plugin_thread *t, plugin_space_buffers *buffers, size_t count)
{
    glcollide_world *world = t->cull_world;
    if (plugin_reserve((void **)&buffers->transforms, &buffers->transform_capacity,
                       buffers->geom_count, sizeof *buffers->transforms))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    int same = glcollide_world_object_count(world) == count;
    for (size_t o = 0; o < count && same; o++)
        same = glcollide_world_object(world, (uint32_t)o)->mesh == t->cull_meshes[o];
    if (!same)
        glcollide_world_clear_objects(world);
    for (size_t i = 0; i < buffers->geom_count; i++) {
        int32_t o = buffers->scene_object[i];
        if (o < 0)
            continue;
        plugin_geom_transform(buffers->geoms[i], buffers->transforms[i]);
        glcollide_pose pose = plugin_transform_pose(buffers->transforms[i]);
        int status =
            same ? glcollide_world_set_pose(world, (uint32_t)o, pose.translation, pose.rotation)
                 : glcollide_world_add_object(world, t->cull_meshes[o], pose.translation,
                                              pose.rotation, NULL);
        if (status != GLCOLLIDE_OK)
            return status;
    }
    return GLCOLLIDE_OK;
}

static int compare_cull_pairs(const void *x, const void *y)
{
    return glcollide_index_pair_compare(&((const plugin_cull_pair *)x)->objects,
                                        &((const plugin_cull_pair *)y)->objects);
}

/* The kept trimesh pairs as object pairs, sorted (the order a world query
 * takes them in), into buffers->cull_pairs and cull_objects; how many, or
 * -1 when out of memory. A space's pairs come sorted already (its objects
 * follow its list); dSpaceCollide2's come by the iterated geom. */
static long cull_pairs(plugin_space_buffers *buffers)
{
    const glcollide_pair_list *pairs = &buffers->pairs;
    size_t n = 0;
    int sorted = 1;
    for (size_t k = 0; k < pairs->count; k++) {
        if (!kept_trimesh_pair(buffers, k))
            continue;
        if (plugin_reserve((void **)&buffers->cull_pairs, &buffers->cull_pair_capacity, n + 1,
                           sizeof *buffers->cull_pairs))
            return -1;
        uint32_t a = (uint32_t)buffers->scene_object[pairs->pairs[k].a],
                 b = (uint32_t)buffers->scene_object[pairs->pairs[k].b];
        plugin_cull_pair *p = &buffers->cull_pairs[n];
        *p = (plugin_cull_pair){{a < b ? a : b, a < b ? b : a}, k};
        sorted &= !n || glcollide_index_pair_compare(&p[-1].objects, &p->objects) < 0;
        n++;
    }
    if (!sorted)
        qsort(buffers->cull_pairs, n, sizeof *buffers->cull_pairs, compare_cull_pairs);
    if (plugin_reserve((void **)&buffers->cull_objects, &buffers->cull_object_capacity, n,
                       sizeof *buffers->cull_objects))
        return -1;
    for (size_t c = 0; c < n; c++)
        buffers->cull_objects[c] = buffers->cull_pairs[c].objects;
    return (long)n;
}

/* Is given (a pair the query was given) the next of a result's pairs,
 * *at? They come in the order given, some left out: stepped on when so. */
static int next_found(const glcollide_query_result *result, size_t *at,
                      const glcollide_index_pair *given)
{
    if (*at >= result->pair_count || result->pairs[*at].a != given->a ||
        result->pairs[*at].b != given->b)
        return 0;
    ++*at;
    return 1;
}

/*
 * FAR over the trimeshes of the pairs in keep (those still marked), on the
 * thread's persistent world: meshes registered (and uploaded) once, the
 * geoms posed, one GPU query for all of them, on the space's own pairs (not
 * swept again). Pairs without candidate triangle pairs are unmarked; the
 * others' candidates are kept for the step.
 */
static void cull_trimesh_pairs(plugin_thread *t, plugin_space_buffers *buffers)
{
    unsigned long long start = plugin_now_ns();
    long count = wanted_objects(t, buffers);
    long given = count < 0 ? -1 : cull_pairs(buffers);
    if (given < 0 || pose_world(t, buffers, (size_t)count) != GLCOLLIDE_OK)
        return; /* logged; every pair goes to the callback */
    glcollide_query_options options = glcollide_query_default_options();
    options.method = GLCOLLIDE_METHOD_FAR;
    options.level = GLCOLLIDE_LEVEL_TRIANGLES;
    options.pairs = buffers->cull_objects;
    options.pair_count = (size_t)given;
    glcollide_context *context = plugin_gpu_begin();
    if (!context)
        return; /* the CPU path serves */
    glcollide_query_result *result = &t->cull_result;
    int status = glcollide_world_query(t->cull_world, context, &options, result);
    int stencil = status == GLCOLLIDE_OK && stencil_flags(t, buffers, context, &options);
    plugin_gpu_end(context);
    if (status != GLCOLLIDE_OK)
        return;
    plugin_counters *c = &plugin.counters;
    plugin_count(&c->gpu_queries, 1);
    count_gpu_work(&result->stats);
    size_t g = 0, f = 0;
    for (size_t p = 0; p < (size_t)given; p++) {
        const plugin_cull_pair *pair = &buffers->cull_pairs[p];
        int found = next_found(result, &g, &pair->objects);
        size_t first = found ? result->pair_first[g - 1] : 0;
        size_t group = found ? result->pair_first[g] - first : 0;
        int flagged = stencil && next_found(&t->stencil_result, &f, &pair->objects);
        /* No triangle pair, not flagged, no containment possible: apart. */
        if (group == 0 && !flagged && !may_contain_pair(buffers, pair->k)) {
            buffers->keep[pair->k] = 0;
            plugin_count(&c->culled_pairs, 1);
            if (stencil)
                plugin_stencil_agreement(0, 0);
            continue;
        }
        keep_candidates(t, buffers, pair->k, result->triangle_pairs + first, group, stencil,
                        flagged);
    }
    plugin_count(&c->cull_ns, plugin_now_ns() - start);
}

/* ------------------------------------------------------------- collide */

/*
 * The pairs of overlapping boxes, sorted by (i, j): sweep-and-prune, or for
 * up to 128 boxes every pair tested, which costs less than the sweep's sort
 * (its radix passes alone take ~5 us; measured with bench-small's sparse
 * scene: 96 boxes 4.7 us directly, 9.5 us swept). Both test the same
 * inequalities: the pairs are the same.
 */
enum { BOX_PAIRS_DIRECT_MAX = 128 };

static int box_pairs(plugin_space_buffers *buffers, size_t count)
{
    buffers->pairs.count = 0;
    if (count > BOX_PAIRS_DIRECT_MAX)
        return buffers->sap || glcollide_scratch_create(&buffers->sap) == GLCOLLIDE_OK
                   ? glcollide_sap_pairs(buffers->boxes, count, 0.0, &buffers->pairs, buffers->sap)
                   : GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    const glcollide_aabb *boxes = buffers->boxes;
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count; j++)
            if (glcollide_aabb_overlap(&boxes[i], &boxes[j]) &&
                glcollide_pair_list_push(&buffers->pairs, (uint32_t)i, (uint32_t)j) != GLCOLLIDE_OK)
                return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    return GLCOLLIDE_OK;
}

/* Counts the pairs ODE hands on after its own test (custom classes). */
typedef struct counted_callback {
    void *data;
    dNearCallback *callback;
    unsigned long long calls;
} counted_callback;

static void count_and_call(void *data, dGeomID o1, dGeomID o2)
{
    counted_callback *c = data;
    c->calls++;
    c->callback(c->data, o1, o2);
}

/* Room for, and what the pair tests need of, the listed geoms: their
 * info and boxes. */
static int describe_geoms(plugin_thread *t, plugin_space_buffers *buffers)
{
    size_t count = buffers->geom_count;
    if (plugin_reserve((void **)&buffers->boxes, &buffers->box_capacity, count,
                       sizeof *buffers->boxes) ||
        plugin_reserve((void **)&buffers->meshes, &buffers->mesh_capacity, count,
                       sizeof *buffers->meshes) ||
        plugin_reserve((void **)&buffers->info, &buffers->info_capacity, count,
                       sizeof *buffers->info) ||
        plugin_reserve((void **)&buffers->scene_object, &buffers->scene_object_capacity, count,
                       sizeof *buffers->scene_object))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < count; i++) {
        buffers->scene_object[i] = -1;
        note_info(buffers, i);
        buffers->meshes[i] =
            buffers->info[i].trimesh ? plugin_geom_mesh(t, buffers->geoms[i]) : NULL;
        geom_box(buffers->geoms[i], buffers->meshes[i], &buffers->boxes[i]);
    }
    return GLCOLLIDE_OK;
}

/*
 * The pairs in buffers->pairs, in the order the callback gets them: ODE's
 * rules (not one body, category and collide bits), GPU culling of the
 * trimesh pairs where the mode says so, their contacts computed ahead, then
 * the callbacks.
 */
static void hand_over(plugin_thread *t, plugin_space_buffers *buffers, void *data,
                      dNearCallback *callback)
{
    if (plugin_reserve((void **)&buffers->keep, &buffers->keep_capacity, buffers->pairs.count,
                       sizeof *buffers->keep))
        return;
    unsigned long long kept = 0;
    for (size_t k = 0; k < buffers->pairs.count; k++) {
        const plugin_geom_info *a = &buffers->info[buffers->pairs.pairs[k].a];
        const plugin_geom_info *b = &buffers->info[buffers->pairs.pairs[k].b];
        buffers->keep[k] = !(a->body && a->body == b->body) &&
                           ((a->category & b->collide) || (b->category & a->collide));
        kept += buffers->keep[k];
    }
    plugin_count(&plugin.counters.aabb_pairs, kept);
    /* GPU culling where the mode (AUTO: its measurement) says so; the
     * outermost space's steps are AUTO's benchmark, timed whole. */
    size_t trimesh_pairs = 0;
    for (size_t k = 0; k < buffers->pairs.count; k++)
        trimesh_pairs += kept_trimesh_pair(buffers, k);
    int measured = trimesh_pairs && t->depth == 1;
    int gpu = trimesh_pairs && (measured ? plugin_auto_gpu_step(buffers->geom_count)
                                         : plugin_gpu_wanted() && glcollide_ode_auto_choice() !=
                                                                      GLCOLLIDE_ODE_AUTO_CPU);
    unsigned long long start = plugin_now_ns();
    if (gpu)
        cull_trimesh_pairs(t, buffers);
    plugin_ahead_compute(t, buffers);
    counted_callback counted = {data, callback, 0};
    for (size_t k = 0; k < buffers->pairs.count; k++) {
        if (!buffers->keep[k])
            continue;
        uint32_t i = buffers->pairs.pairs[k].a, j = buffers->pairs.pairs[k].b;
        dGeomID a = buffers->geoms[i], b = buffers->geoms[j];
        if ((buffers->info[i].user_class || buffers->info[j].user_class) && !dGeomIsSpace(a) &&
            !dGeomIsSpace(b))
            plugin_ode_space_collide2()(a, b, &counted, count_and_call); /* ODE's aabb_test */
        else
            count_and_call(&counted, a, b);
    }
    plugin_count(&plugin.counters.callbacks, counted.calls);
    if (measured)
        plugin_auto_step_done(gpu, plugin_now_ns() - start);
}

static void space_collide(plugin_thread *t, plugin_space_buffers *buffers, dSpaceID space,
                          void *data, dNearCallback *callback)
{
    if (list_geoms(t, buffers, space) != GLCOLLIDE_OK ||
        describe_geoms(t, buffers) != GLCOLLIDE_OK ||
        box_pairs(buffers, buffers->geom_count) != GLCOLLIDE_OK)
        return;
    hand_over(t, buffers, data, callback);
}

/* ------------------------------------------------------------- collide2 */

/*
 * dSpaceCollide2's pairs of a space (collided, its enabled geoms as its
 * collide2 lists them) with a set of geoms (iterated: one geom, or every geom
 * of a space in its list, enabled or not, as ODE iterates them): ODE's
 * pairs, (the collided space's geom, the iterated geom), ordered by the
 * iterated geom, then the collided space's list, each pair's geoms in the
 * order of the arguments they come from (iterated_first: the iterated side
 * is dSpaceCollide2's first), as ODE 0.16's dSpaceCollide2 does over a
 * dSimpleSpace (glcollide's spaces give every kind dSimpleSpace's order).
 * Returns 0 when ODE must do it (out of memory, a class of the program's
 * own: its aabb_test is ODE's to call).
 */
static int space_collide2(plugin_thread *t, plugin_space_buffers *buffers, dSpaceID collided,
                          dGeomID iterated, int iterated_first, void *data, dNearCallback *callback)
{
    if (list_geoms(t, buffers, collided) != GLCOLLIDE_OK)
        return 0;
    size_t first = buffers->geom_count;
    dSpaceID set = dGeomIsSpace(iterated) ? (dSpaceID)iterated : NULL;
    size_t n = set ? (size_t)dSpaceGetNumGeoms(set) : 1;
    if (plugin_reserve((void **)&buffers->geoms, &buffers->geom_capacity, first + n,
                       sizeof *buffers->geoms))
        return 0;
    for (size_t i = 0; i < n; i++)
        buffers->geoms[first + i] = set ? dSpaceGetGeom(set, (int)i) : iterated;
    buffers->geom_count = first + n;
    if (describe_geoms(t, buffers) != GLCOLLIDE_OK)
        return 0;
    for (size_t i = 0; i < buffers->geom_count; i++)
        if (buffers->info[i].user_class)
            return 0;
    buffers->pairs.count = 0;
    if ((!buffers->sap && glcollide_scratch_create(&buffers->sap) != GLCOLLIDE_OK) ||
        glcollide_sap_pairs_across(buffers->boxes, first, buffers->boxes + first, n, 0.0,
                                   &buffers->pairs, buffers->sap) != GLCOLLIDE_OK)
        return 0;
    /* (collided geom i, iterated geom j) sorted by j, then i; handed over
     * with each geom on the side of dSpaceCollide2's argument it came from
     * (indices into geoms) */
    glcollide_pair_list *pairs = &buffers->pairs;
    for (size_t k = 0; k < pairs->count; k++)
        pairs->pairs[k] = (glcollide_index_pair){pairs->pairs[k].b, pairs->pairs[k].a};
    glcollide_pair_list_sort_unique(pairs);
    for (size_t k = 0; k < pairs->count; k++) {
        uint32_t i = pairs->pairs[k].b, j = (uint32_t)first + pairs->pairs[k].a;
        pairs->pairs[k] =
            iterated_first ? (glcollide_index_pair){j, i} : (glcollide_index_pair){i, j};
    }
    hand_over(t, buffers, data, callback);
    return 1;
}

/* Runs fn on this thread's buffers at the next nesting depth (a callback
 * may collide again), a new step's state reset at the outermost. */
static int at_depth(plugin_thread *t,
                    int (*fn)(plugin_thread *, plugin_space_buffers *, dSpaceID, dGeomID, int,
                              void *, dNearCallback *),
                    dSpaceID space, dGeomID other, int flag, void *data, dNearCallback *callback)
{
    if (t->depth == 0) { /* a new step: last step's candidates and answers are done with */
        plugin_pair_table_clear(&t->step.table);
        t->step.pair_count = t->step.candidate_count = 0;
        plugin_ahead_reset(t);
    }
    if (t->depth >= PLUGIN_MAX_DEPTH) { /* deeper than any real scene: buffers of its own */
        plugin_space_buffers local = {0};
        int done = fn(t, &local, space, other, flag, data, callback);
        plugin_space_buffers_free(&local);
        return done;
    }
    t->depth++;
    int done = fn(t, &t->space[t->depth - 1], space, other, flag, data, callback);
    t->depth--;
    return done;
}

static int collide_space(plugin_thread *t, plugin_space_buffers *buffers, dSpaceID space,
                         dGeomID unused, int unused_flag, void *data, dNearCallback *callback)
{
    (void)unused;
    (void)unused_flag;
    space_collide(t, buffers, space, data, callback);
    return 1;
}

void glcollide_ode_space_collide(dSpaceID space, void *data, dNearCallback *callback)
{
    plugin_thread *t = space && callback ? plugin_thread_get() : NULL;
    if (!t)
        return;
    plugin_count(&plugin.counters.space_collides, 1);
    at_depth(t, collide_space, space, NULL, 0, data, callback);
}

/* ODE's dSpaceCollide2 with the spaces it would treat as spaces: of two
 * spaces at different sublevels, the lower one counts as a geom. */
static void collide2_roles(dGeomID o1, dGeomID o2, dSpaceID *s1, dSpaceID *s2)
{
    *s1 = dGeomIsSpace(o1) ? (dSpaceID)o1 : NULL;
    *s2 = dGeomIsSpace(o2) ? (dSpaceID)o2 : NULL;
    if (*s1 && *s2) {
        int l1 = dSpaceGetSublevel(*s1), l2 = dSpaceGetSublevel(*s2);
        if (l1 > l2)
            *s2 = NULL;
        else if (l2 > l1)
            *s1 = NULL;
    }
}

/* Does dSpaceGetGeom walk a space's list in the order dSpaceCollide2
 * iterates it? For simple and hash spaces (ODE's list); not for the
 * sweep-and-prune space (arrays of its own) and quadtree spaces (none). */
static int iterated_in_list_order(dSpaceID space)
{
    int kind = dSpaceGetClass(space);
    return kind == dSimpleSpaceClass || kind == dHashSpaceClass;
}

void glcollide_ode_space_collide2(dGeomID o1, dGeomID o2, void *data, dNearCallback *callback)
{
    plugin_thread *t = o1 && o2 && callback ? plugin_thread_get() : NULL;
    dSpaceID s1, s2;
    if (t)
        collide2_roles(o1, o2, &s1, &s2);
    if (t && s1 && s1 == s2) { /* a space with itself: its own collide */
        glcollide_ode_space_collide(s1, data, callback);
        return;
    }
    /* Which space is collided with what (ODE: the space with fewer geoms is
     * iterated, each of its geoms collided with the other space); two geoms,
     * quadtree spaces, and spaces iterated whose dSpaceGetGeom does not walk
     * the list ODE iterates stay ODE's. */
    dSpaceID collided = NULL;
    dGeomID iterated = NULL;
    int iterated_first = 0;
    if (t && s1 && s2) {
        iterated_first = dSpaceGetNumGeoms(s1) < dSpaceGetNumGeoms(s2);
        collided = iterated_first ? s2 : s1;
        iterated = (dGeomID)(iterated_first ? s1 : s2);
    } else if (t && (s1 || s2)) {
        collided = s1 ? s1 : s2;
        iterated = s1 ? o2 : o1;
        iterated_first = !s1;
    }
    if (collided && (dSpaceGetClass(collided) == dQuadTreeSpaceClass ||
                     (dGeomIsSpace(iterated) && !iterated_in_list_order((dSpaceID)iterated))))
        collided = NULL;
    if (collided) {
        plugin_count(&plugin.counters.space_collide2s, 1);
        if (at_depth(t, space_collide2, collided, iterated, iterated_first, data, callback))
            return;
    }
    plugin_ode_space_collide2()(o1, o2, data, callback);
}
