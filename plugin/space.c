/* SPDX-License-Identifier: MIT */
/*
 * The glcollide space: dSpaceCollide's contract on any ODE space, with
 * sweep-and-prune on the boxes and GPU culling (FAR) of trimesh pairs.
 * Candidate triangle pairs found by the culling are kept for this step, so
 * that the dCollide calls the user's callback makes do not test them again.
 */
#include "plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per call, reused across steps (no allocation once warm). A near callback
 * may collide a nested space with glcollide_ode_space_collide again, so each
 * nesting depth has its own. */
typedef struct space_buffers {
    dGeomID *geoms;
    size_t geom_capacity;
    glcollide_aabb *boxes;
    size_t box_capacity;
    int32_t *scene_object; /* geom -> object in plugin.scene, -1 if none */
    size_t scene_object_capacity;
    unsigned char *keep;   /* pair -> reported to the callback */
    size_t keep_capacity;
    glcollide_pair_list pairs;
    glcollide_workspace sap;
} space_buffers;

enum { MAX_DEPTH = 16 };
static space_buffers buffer_stack[MAX_DEPTH];
static int depth;

static void release(space_buffers *buffers)
{
    free(buffers->geoms);
    free(buffers->boxes);
    free(buffers->scene_object);
    free(buffers->keep);
    glcollide_pair_list_release(&buffers->pairs);
    glcollide_workspace_release(&buffers->sap);
    memset(buffers, 0, sizeof *buffers);
}

static int is_trimesh(dGeomID g)
{
    return dGeomGetClass(g) == dTriMeshClass;
}

/* Box of a geom: ODE's; for trimeshes, grown to cover the captured vertices
 * too, since ODE's goes stale when vertices change (ODE's own trimesh box, from
 * the rotated box of the mesh, is otherwise the larger: the pairs stay ODE's). */
static void geom_box(dGeomID g, glcollide_aabb *box)
{
    dReal aabb[6];
    dGeomGetAABB(g, aabb);
    for (int k = 0; k < 3; k++) {
        box->min[k] = (double)aabb[2 * k];
        box->max[k] = (double)aabb[2 * k + 1];
    }
    if (plugin.started && is_trimesh(g)) {
        /* The box of the captured mesh's box, rotated: no per-vertex work for
         * geoms that meet nothing (ODE's own trimesh box is made this way). */
        const glcollide_mesh *mesh = plugin_geom_mesh(g);
        if (mesh && mesh->triangle_count) {
            glcollide_aabb local = plugin_mesh_bounds(mesh);
            const dReal *p = dGeomGetPosition(g), *r = dGeomGetRotation(g);
            for (int k = 0; k < 3; k++) {
                double centre = p[k], extent = 0;
                for (int j = 0; j < 3; j++) {
                    double c = 0.5 * (local.min[j] + local.max[j]), h = 0.5 * (local.max[j] - local.min[j]);
                    centre += r[4 * k + j] * c;
                    extent += fabs(r[4 * k + j]) * h;
                }
                /* widened by a few ulps: the vertices' own rounding */
                extent += 1e-12 * (fabs(centre) + extent);
                box->min[k] = fmin(box->min[k], centre - extent);
                box->max[k] = fmax(box->max[k], centre + extent);
            }
        }
    }
}

static int use_gpu(void)
{
    if (!plugin.context || plugin.gpu_mode == GLCOLLIDE_ODE_GPU_NEVER)
        return 0;
    if (plugin.gpu_mode == GLCOLLIDE_ODE_GPU_ALWAYS)
        return 1;
    const char *renderer = glcollide_context_caps(plugin.context)->renderer;
    return !strstr(renderer, "llvmpipe") && !strstr(renderer, "softpipe") &&
           !strstr(renderer, "swrast");
}

/*
 * FAR over the trimeshes of the pairs in keep (those still marked): one GPU
 * query for all of them. Pairs without candidate triangle pairs are unmarked;
 * the others' candidates are kept for the step.
 */
static void cull_trimesh_pairs(space_buffers *buffers)
{
    const glcollide_pair_list *pairs = &buffers->pairs;
    unsigned char *keep = buffers->keep;
    plugin.step_pair_count = 0;
    plugin.step_candidate_count = 0;
    size_t n = 0;
    for (size_t k = 0; k < pairs->count; k++)
        n += keep[k] && is_trimesh(buffers->geoms[pairs->pairs[k].a]) &&
             is_trimesh(buffers->geoms[pairs->pairs[k].b]);
    if (n == 0 || !use_gpu())
        return;
    double start = plugin_now_ms();
    glcollide_scene_clear_objects(plugin.scene);
    for (size_t k = 0; k < pairs->count; k++) {
        for (int side = 0; side < 2; side++) {
            uint32_t i = side ? pairs->pairs[k].b : pairs->pairs[k].a;
            dGeomID g = buffers->geoms[i];
            if (!keep[k] || !is_trimesh(buffers->geoms[pairs->pairs[k].a]) ||
                !is_trimesh(buffers->geoms[pairs->pairs[k].b]) || buffers->scene_object[i] >= 0)
                continue;
            const glcollide_mesh *mesh = plugin_geom_mesh(g);
            uint32_t mesh_index = 0;
            while (mesh_index < plugin.scene->mesh_count && plugin.scene->meshes[mesh_index] != mesh)
                mesh_index++;
            dReal t[7];
            plugin_geom_transform(g, t);
            const double translation[3] = {t[0], t[1], t[2]}, rotation[4] = {t[3], t[4], t[5], t[6]};
            uint32_t object;
            if (!mesh || glcollide_scene_add_object(plugin.scene, mesh_index, translation, rotation,
                                                    &object) != GLCOLLIDE_OK)
                return; /* logged; every pair goes to the callback */
            buffers->scene_object[i] = (int32_t)object;
        }
    }
    glcollide_query_options options = glcollide_query_default_options();
    options.method = GLCOLLIDE_METHOD_FAR;
    options.level = GLCOLLIDE_LEVEL_TRIANGLES;
    glcollide_query_result result;
    if (glcollide_query_run(plugin.scene, plugin.context, &options, &result) != GLCOLLIDE_OK)
        return;
    plugin.stats.gpu_queries++;
    plugin.stats.draw_calls += result.stats.draw_calls;
    plugin.stats.gpu_syncs += result.stats.gpu_syncs;
    plugin.stats.readback_bytes += result.stats.readback_bytes;
    /* Object pair -> its run of candidates (result is sorted by object_a, triangle_a...). */
    for (size_t k = 0; k < pairs->count; k++) {
        dGeomID ga = buffers->geoms[pairs->pairs[k].a], gb = buffers->geoms[pairs->pairs[k].b];
        if (!keep[k] || !is_trimesh(ga) || !is_trimesh(gb))
            continue;
        uint32_t oa = (uint32_t)buffers->scene_object[pairs->pairs[k].a];
        uint32_t ob = (uint32_t)buffers->scene_object[pairs->pairs[k].b];
        dGeomID low = ga < gb ? ga : gb;
        uint32_t o_low = low == ga ? oa : ob, o_high = low == ga ? ob : oa;
        size_t first = plugin.step_candidate_count;
        for (size_t c = 0; c < result.triangle_pair_count; c++) {
            const glcollide_triangle_pair *t = &result.triangle_pairs[c];
            uint32_t tl, th;
            if (t->object_a == o_low && t->object_b == o_high)
                tl = t->triangle_a, th = t->triangle_b;
            else if (t->object_a == o_high && t->object_b == o_low)
                tl = t->triangle_b, th = t->triangle_a;
            else
                continue;
            if (plugin_reserve((void **)&plugin.step_candidates, &plugin.step_candidate_capacity,
                               plugin.step_candidate_count + 1,
                               sizeof *plugin.step_candidates) != GLCOLLIDE_OK)
                break;
            plugin.step_candidates[plugin.step_candidate_count++] = (glcollide_index_pair){tl, th};
        }
        size_t count = plugin.step_candidate_count - first;
        if (count == 0) {
            keep[k] = 0;
            plugin.stats.culled_pairs++;
            continue;
        }
        if (plugin_reserve((void **)&plugin.step_pairs, &plugin.step_pair_capacity,
                           plugin.step_pair_count + 1, sizeof *plugin.step_pairs) != GLCOLLIDE_OK)
            break;
        plugin_step_pair *p = &plugin.step_pairs[plugin.step_pair_count++];
        p->a = low;
        p->b = low == ga ? gb : ga;
        plugin_geom_transform(p->a, p->transform_a);
        plugin_geom_transform(p->b, p->transform_b);
        p->first = first;
        p->count = count;
    }
    glcollide_query_result_clear(&result);
    plugin.stats.cull_ms += plugin_now_ms() - start;
}

static void space_collide(space_buffers *buffers, dSpaceID space, void *data,
                          dNearCallback *callback)
{
    size_t n = (size_t)dSpaceGetNumGeoms(space);
    if (plugin_reserve((void **)&buffers->geoms, &buffers->geom_capacity, n, sizeof *buffers->geoms) ||
        plugin_reserve((void **)&buffers->boxes, &buffers->box_capacity, n, sizeof *buffers->boxes) ||
        plugin_reserve((void **)&buffers->scene_object, &buffers->scene_object_capacity, n,
                       sizeof *buffers->scene_object))
        return;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        dGeomID g = dSpaceGetGeom(space, (int)i);
        if (!dGeomIsEnabled(g))
            continue;
        buffers->geoms[count] = g;
        buffers->scene_object[count] = -1;
        geom_box(g, &buffers->boxes[count]);
        count++;
    }
    buffers->pairs.count = 0;
    if (glcollide_sap_pairs_with(buffers->boxes, count, 0.0, &buffers->pairs, &buffers->sap) != GLCOLLIDE_OK ||
        plugin_reserve((void **)&buffers->keep, &buffers->keep_capacity, buffers->pairs.count,
                       sizeof *buffers->keep))
        return;
    for (size_t k = 0; k < buffers->pairs.count; k++) {
        dGeomID a = buffers->geoms[buffers->pairs.pairs[k].a];
        dGeomID b = buffers->geoms[buffers->pairs.pairs[k].b];
        dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
        buffers->keep[k] = !(ba && ba == bb) &&
                           ((dGeomGetCategoryBits(a) & dGeomGetCollideBits(b)) ||
                            (dGeomGetCategoryBits(b) & dGeomGetCollideBits(a)));
        plugin.stats.aabb_pairs += buffers->keep[k];
    }
    if (plugin.started)
        cull_trimesh_pairs(buffers);
    for (size_t k = 0; k < buffers->pairs.count; k++)
        if (buffers->keep[k]) {
            plugin.stats.callbacks++;
            callback(data, buffers->geoms[buffers->pairs.pairs[k].a],
                     buffers->geoms[buffers->pairs.pairs[k].b]);
        }
}

void glcollide_ode_space_collide(dSpaceID space, void *data, dNearCallback *callback)
{
    if (!space || !callback)
        return;
    plugin.stats.space_collides++;
    if (depth >= MAX_DEPTH) { /* deeper than any real scene: buffers of its own */
        space_buffers local = {0};
        space_collide(&local, space, data, callback);
        release(&local);
        return;
    }
    depth++;
    space_collide(&buffer_stack[depth - 1], space, data, callback);
    depth--;
}

void plugin_space_release(void)
{
    for (int i = 0; i < MAX_DEPTH; i++)
        release(&buffer_stack[i]);
}
