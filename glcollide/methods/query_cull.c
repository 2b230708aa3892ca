/* SPDX-License-Identifier: MIT */
/*
 * The culling methods as queries (CULLIDE, FAR), on the persistent world.
 * Objects: sweep-and-prune on the objects' boxes, then GPU culling of the
 * objects that pair, drawn whole (object PCS); the pairs reported are the
 * swept pairs of the PCS.
 * Triangles: sweep-and-prune, then, on the GPU, the triangles that meet the
 * box of an object they pair with, culled at triangle level; for each
 * object pair, the triangles left of one against those of the other whose
 * boxes overlap (grown by D/2) are the candidates handed to exact tests,
 * and the object pairs reported are those with candidates.
 * The CPU's work is in objects, pairs and the triangles left: only those
 * are placed in world space (as glcollide_pose_transform_points places
 * them), never a whole mesh.
 */
#include "methods/cull.h"
#include "methods/query.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the culling queries keep between frames, in the world that they run
 * on (glcollide_world_method_scratch): made on first use, released with the
 * world. */
typedef struct cull_scratch {
    int32_t *slots;                 /* per object: its place among those taking part, or -1 */
    uint32_t *taking_part;          /* the objects taking part */
    glcollide_aabb *regions;        /* per object taking part */
    glcollide_aabb *tight_boxes;    /* per object: placed BVH nodes (when paired) */
    uint64_t *tight_at;             /* per object: 1 + its change clock when placed, 0 never */
    glcollide_aabb *triangle_boxes; /* per triangle left */
    size_t *ranges;                 /* per object taking part: its triangles left, 2 each */
    struct glcollide_group_key *group_keys; /* per object taking part: far groups' sort */
    glcollide_aabb *group_boxes;            /* per object taking part: their unions */
    size_t tight_box_capacity, tight_at_capacity;
    size_t slot_capacity, taking_part_capacity, region_capacity, triangle_box_capacity,
        range_capacity, group_key_capacity, group_box_capacity;
} cull_scratch;

static void scratch_release(void *memory)
{
    cull_scratch *s = memory;
    free(s->slots);
    free(s->taking_part);
    free(s->regions);
    free(s->tight_boxes);
    free(s->tight_at);
    free(s->triangle_boxes);
    free(s->ranges);
    free(s->group_keys);
    free(s->group_boxes);
    free(s);
}

static const glcollide_world_method_kind scratch_kind = {"cull scratch", scratch_release};

/* The world's culling scratch, made on first use. */
static int scratch_of(glcollide_world *world, cull_scratch **out)
{
    *out = glcollide_world_method_scratch(world, &scratch_kind);
    if (*out)
        return GLCOLLIDE_OK;
    if (!(*out = calloc(1, sizeof **out)))
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
    glcollide_world_set_method_scratch(world, &scratch_kind, *out);
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------- far groups
 *
 * The views are fitted to what they draw. Objects far from the others (a
 * pair flung to 1e300, touching each other) would shrink everything else
 * below a pixel, where nothing is culled and, the placement's error bound
 * being relative to the whole frame, every fattened triangle covers the
 * whole view (16 cubes took 3 times as long as 14 finite ones alone at
 * 1,024 pixels). So the objects taking part are split where an empty gap
 * along an axis is wider than the resolution times the extent of the group
 * on either side (drawn together, both would be under a pixel) and than
 * twice the margin (no pair spans it: a pair's boxes are that close). The
 * group with the most triangles is drawn; the others are handled on the
 * CPU, their pairs' candidates being the triangle pairs whose placed BVH
 * boxes overlap (as the exact path finds them before testing). A scene
 * without such a gap (any scene less than resolution times its largest
 * object across) is drawn whole, as before.
 */

struct glcollide_group_key {
    double min; /* along the axis tried */
    uint32_t object;
};

static int key_compare(const void *a, const void *b)
{
    const struct glcollide_group_key *x = a, *y = b;
    return x->min < y->min   ? -1
           : x->min > y->min ? 1
                             : (x->object > y->object) - (x->object < y->object);
}

static double box_extent(const glcollide_aabb *box)
{
    double extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = fmax(extent, box->max[k] - box->min[k]);
    return extent;
}

static void box_union(glcollide_aabb *into, const glcollide_aabb *box)
{
    for (int k = 0; k < 3; k++) {
        into->min[k] = fmin(into->min[k], box->min[k]);
        into->max[k] = fmax(into->max[k], box->max[k]);
    }
}

typedef struct group_search {
    const glcollide_world *world;
    cull_scratch *s;
    double margin, resolution;
    size_t best_first, best_count; /* in taking_part */
    size_t best_triangles;
} group_search;

/* Where objects[first..first+count) split along axis (their keys sorted
 * by it), or 0: the first position after a wide enough gap. */
static size_t gap_along(group_search *search, size_t first, size_t count, int axis)
{
    const glcollide_world *world = search->world;
    cull_scratch *s = search->s;
    struct glcollide_group_key *keys = s->group_keys + first;
    glcollide_aabb *after = s->group_boxes + first; /* union of keys i.. */
    for (size_t i = 0; i < count; i++)
        keys[i] = (struct glcollide_group_key){world->boxes[s->taking_part[first + i]].min[axis],
                                               s->taking_part[first + i]};
    qsort(keys, count, sizeof *keys, key_compare);
    glcollide_aabb_empty(&after[count - 1]);
    box_union(&after[count - 1], &world->boxes[keys[count - 1].object]);
    for (size_t i = count - 1; i-- > 0;) {
        after[i] = after[i + 1];
        box_union(&after[i], &world->boxes[keys[i].object]);
    }
    glcollide_aabb before;
    glcollide_aabb_empty(&before);
    for (size_t i = 1; i < count; i++) {
        box_union(&before, &world->boxes[keys[i - 1].object]);
        double gap = keys[i].min - before.max[axis];
        if (gap > 2 * search->margin &&
            gap > search->resolution * fmax(box_extent(&before), box_extent(&after[i])))
            return i;
    }
    return 0;
}

/* Splits taking_part[first..first+count) at gaps, recursively, keeping the
 * group with the most triangles. */
static void split_groups(group_search *search, size_t first, size_t count)
{
    const glcollide_world *world = search->world;
    cull_scratch *s = search->s;
    uint32_t *objects = s->taking_part + first;
    /* No gap can be wide enough where the whole is less than resolution
     * times its largest object across (the common case: no sort). */
    glcollide_aabb all;
    glcollide_aabb_empty(&all);
    double largest = 0.0;
    size_t triangles = 0;
    for (size_t i = 0; i < count; i++) {
        box_union(&all, &world->boxes[objects[i]]);
        largest = fmax(largest, box_extent(&world->boxes[objects[i]]));
        triangles += world->meshes[world->objects[objects[i]].mesh].mesh->triangle_count;
    }
    for (int axis = 0; count > 1 && axis < 3 && box_extent(&all) > search->resolution * largest;
         axis++) {
        size_t at = gap_along(search, first, count, axis);
        if (at == 0)
            continue;
        for (size_t i = 0; i < count; i++)
            objects[i] = s->group_keys[first + i].object;
        split_groups(search, first, at);
        split_groups(search, first + at, count - at);
        return;
    }
    if (triangles > search->best_triangles || search->best_count == 0) {
        search->best_first = first;
        search->best_count = count;
        search->best_triangles = triangles;
    }
}

/* Puts the group to draw first in taking_part (each part in increasing
 * order, the slots renumbered); *drawn: its size. INVALID_MESH for an
 * object taking part with a non-finite box (as the exact path says). */
static int far_groups(const glcollide_world *world, cull_scratch *s, size_t count, double margin,
                      int resolution, size_t *drawn)
{
    *drawn = count;
    for (size_t p = 0; p < count; p++) {
        int status = glcollide_world_check_box(world, s->taking_part[p],
                                               &world->boxes[s->taking_part[p]], "query");
        if (status != GLCOLLIDE_OK)
            return status;
    }
    int status = glcollide_array_reserve((void **)&s->group_keys, &s->group_key_capacity, count + 1,
                                         sizeof *s->group_keys, "query");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&s->group_boxes, &s->group_box_capacity,
                                         count + 1, sizeof *s->group_boxes, "query");
    if (status != GLCOLLIDE_OK || count < 2)
        return status;
    group_search search = {.world = world, .s = s, .margin = margin, .resolution = resolution};
    split_groups(&search, 0, count);
    if (search.best_count == count)
        return GLCOLLIDE_OK; /* one group: the order as it was */
    /* The drawn group first, then the others, each in increasing order. */
    struct glcollide_group_key *keys = s->group_keys;
    for (size_t p = 0; p < count; p++)
        keys[p] = (struct glcollide_group_key){
            p >= search.best_first && p < search.best_first + search.best_count ? 0.0 : 1.0,
            s->taking_part[p]};
    qsort(keys, count, sizeof *keys, key_compare);
    for (size_t p = 0; p < count; p++) {
        s->taking_part[p] = keys[p].object;
        s->slots[keys[p].object] = (int32_t)p;
    }
    *drawn = search.best_count;
    return GLCOLLIDE_OK;
}

typedef struct bvh_candidates {
    glcollide_query_result *result;
    uint32_t i, j;
    int status;
} bvh_candidates;

static int add_candidate(uint32_t ta, uint32_t tb, void *user)
{
    bvh_candidates *c = user;
    c->status = glcollide_result_add_triangle_pair(c->result, c->i, ta, c->j, tb);
    return c->status != GLCOLLIDE_OK;
}

/* Candidates of objects i < j of a group not drawn: the triangle pairs
 * whose placed BVH boxes come within margin (the world's BVHs prepared). */
static int undrawn_pairs(const glcollide_world *world, uint32_t i, uint32_t j, double margin,
                         glcollide_query_result *result)
{
    const glcollide_object *a = &world->objects[i], *b = &world->objects[j];
    bvh_candidates c = {.result = result, .i = i, .j = j, .status = GLCOLLIDE_OK};
    glcollide_bvh_overlap_posed(world->meshes[a->mesh].bvh, &a->pose, world->meshes[b->mesh].bvh,
                                &b->pose, margin, add_candidate, &c);
    return c.status;
}

/* The objects that pair with some other, the group to draw first (*drawn of
 * them; each part in increasing order), and, at triangle level, the region
 * each one's triangles must meet: the union of its partners' boxes grown by
 * twice the margin. */
static int taking_part(const glcollide_world *world, cull_scratch *s, double margin, int regions,
                       int resolution, size_t *count, size_t *drawn)
{
    size_t n = world->object_count;
    const glcollide_pair_list *pairs = &world->pairs;
    int status = glcollide_array_reserve((void **)&s->slots, &s->slot_capacity, n + 1,
                                         sizeof *s->slots, "query");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&s->taking_part, &s->taking_part_capacity, n + 1,
                                         sizeof *s->taking_part, "query");
    if (status != GLCOLLIDE_OK)
        return status;
    for (size_t o = 0; o < n; o++)
        s->slots[o] = -1;
    for (size_t k = 0; k < pairs->count; k++)
        s->slots[pairs->pairs[k].a] = s->slots[pairs->pairs[k].b] = 0;
    *count = 0;
    for (size_t o = 0; o < n; o++)
        if (s->slots[o] == 0) {
            s->slots[o] = (int32_t)*count;
            s->taking_part[(*count)++] = (uint32_t)o;
        }
    if ((status = far_groups(world, s, *count, margin, resolution, drawn)) != GLCOLLIDE_OK ||
        !regions)
        return status;
    if ((status = glcollide_array_reserve((void **)&s->regions, &s->region_capacity, *count + 1,
                                          sizeof *s->regions, "query")))
        return status;
    for (size_t p = 0; p < *count; p++)
        glcollide_aabb_empty(&s->regions[p]);
    for (size_t k = 0; k < pairs->count; k++)
        for (int side = 0; side < 2; side++) {
            uint32_t self = side ? pairs->pairs[k].b : pairs->pairs[k].a;
            const glcollide_aabb *other =
                &s->tight_boxes[side ? pairs->pairs[k].a : pairs->pairs[k].b];
            glcollide_aabb *region = &s->regions[s->slots[self]];
            for (int c = 0; c < 3; c++) {
                double lo = other->min[c] - 2 * margin, hi = other->max[c] + 2 * margin;
                region->min[c] = lo < region->min[c] ? lo : region->min[c];
                region->max[c] = hi > region->max[c] ? hi : region->max[c];
            }
        }
    return GLCOLLIDE_OK;
}

/* Each object's run of the triangles left (frame's sorted global ids), and
 * the world box of each such triangle. */
static int triangles_left(const glcollide_world *world, cull_scratch *s,
                          const glcollide_cull_frame *frame)
{
    size_t count = frame->object_count, c = frame->flagged_count;
    int status = glcollide_array_reserve((void **)&s->ranges, &s->range_capacity, 2 * count + 2,
                                         sizeof *s->ranges, "query");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&s->triangle_boxes, &s->triangle_box_capacity,
                                         c + 1, sizeof *s->triangle_boxes, "query");
    if (status != GLCOLLIDE_OK)
        return status;
    size_t i = 0;
    for (size_t p = 0; p < count; p++) {
        s->ranges[2 * p] = i;
        while (i < c && frame->flagged[i] < frame->first[p + 1])
            i++;
        s->ranges[2 * p + 1] = i;
        const glcollide_object *pose = &world->objects[s->taking_part[p]];
        const glcollide_mesh *mesh = world->meshes[pose->mesh].mesh;
        double m[9];
        glcollide_pose_rotation_matrix(&pose->pose, m);
        for (size_t f = s->ranges[2 * p]; f < i; f++) {
            size_t t = frame->flagged[f] - frame->first[p];
            glcollide_aabb *box = &s->triangle_boxes[f];
            glcollide_aabb_empty(box);
            for (int corner = 0; corner < 3; corner++) {
                double q[3];
                glcollide_place_point(&pose->pose, m,
                                      mesh->positions + 3 * (size_t)mesh->triangles[3 * t + corner],
                                      q);
                glcollide_aabb_add_point(box, q);
            }
        }
    }
    return GLCOLLIDE_OK;
}

/* Candidate triangle pairs of objects i < j: box overlaps among the
 * triangles left of each (grown by margin), as one group of result. */
static int triangle_pairs(glcollide_world *world, const cull_scratch *s,
                          const glcollide_cull_frame *frame, uint32_t i, uint32_t j, double margin,
                          glcollide_query_result *result)
{
    size_t pi = (size_t)s->slots[i], pj = (size_t)s->slots[j];
    size_t ai = s->ranges[2 * pi], bi = s->ranges[2 * pi + 1];
    size_t aj = s->ranges[2 * pj], bj = s->ranges[2 * pj + 1];
    if (bi == ai || bj == aj)
        return GLCOLLIDE_OK;
    glcollide_world_scratch *scratch = &world->scratch;
    scratch->pairs.count = 0;
    int status =
        glcollide_sap_pairs_across_ws(s->triangle_boxes + ai, bi - ai, s->triangle_boxes + aj,
                                      bj - aj, margin, &scratch->pairs, &scratch->sap);
    for (size_t k = 0; k < scratch->pairs.count && status == GLCOLLIDE_OK; k++)
        status = glcollide_result_add_triangle_pair(
            result, i, frame->flagged[ai + scratch->pairs.pairs[k].a] - frame->first[pi], j,
            frame->flagged[aj + scratch->pairs.pairs[k].b] - frame->first[pj]);
    return status;
}

/* Keeps the pairs whose objects' tighter boxes (their BVHs' nodes TIGHT_DEPTH
 * levels down, placed: at most 256 boxes an object) still overlap within the
 * margin: the placed mesh box of a rotated object can be far larger than the
 * object, and every pair let through costs rasterisation of both objects'
 * triangles. On the first step of the 300-object pile, 111 trimesh pairs of
 * ODE's boxes leave 34 at depth 4 and 3 at depth 8. */
enum { TIGHT_DEPTH = 8, TIGHT_BOXES = 1 << TIGHT_DEPTH };

/* Mesh m's nodes TIGHT_DEPTH levels down, taken from its BVH once per
 * change of the mesh. NULL when out of memory (logged). */
static const double *mesh_frontier(glcollide_world *world, uint32_t m, size_t *count)
{
    glcollide_world_mesh_entry *entry = &world->meshes[m];
    if (entry->frontier_at != entry->changed_at + 1) {
        if (!entry->frontier &&
            !(entry->frontier = malloc(6 * TIGHT_BOXES * sizeof *entry->frontier))) {
            glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
            return NULL;
        }
        entry->frontier_count =
            glcollide_bvh_frontier(entry->bvh, TIGHT_DEPTH, entry->frontier, TIGHT_BOXES);
        entry->frontier_at = entry->changed_at + 1;
    }
    *count = entry->frontier_count;
    return entry->frontier;
}

static int tighten_pairs(glcollide_world *world, cull_scratch *s, double margin)
{
    glcollide_pair_list *pairs = &world->pairs;
    int status = glcollide_world_prepare(world, GLCOLLIDE_WORLD_BVH);
    size_t had = s->tight_at_capacity;
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&s->tight_boxes, &s->tight_box_capacity,
                                         world->object_count + 1, sizeof *s->tight_boxes, "query");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&s->tight_at, &s->tight_at_capacity,
                                         world->object_count + 1, sizeof *s->tight_at, "query");
    if (status != GLCOLLIDE_OK)
        return status;
    if (s->tight_at_capacity > had)
        memset(s->tight_at + had, 0, (s->tight_at_capacity - had) * sizeof *s->tight_at);
    /* An object's tight box is placed again only when it changed since (its
     * pose or its mesh): objects at rest keep theirs. */
    for (size_t k = 0; k < pairs->count; k++)
        for (int side = 0; side < 2; side++) {
            uint32_t o = side ? pairs->pairs[k].b : pairs->pairs[k].a;
            uint64_t stamp = glcollide_world_object_changed_at(world, o) + 1;
            if (s->tight_at[o] == stamp)
                continue; /* placed already, at this pose */
            glcollide_aabb *box = &s->tight_boxes[o];
            const glcollide_object *pose = &world->objects[o];
            size_t count = 0;
            const double *frontier = mesh_frontier(world, pose->mesh, &count);
            if (!frontier)
                return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
            glcollide_boxes_place_union(frontier, TIGHT_BOXES, count, &pose->pose, box);
            if (!(box->min[0] <= box->max[0]))
                *box = world->boxes[o]; /* an empty mesh: its box as it was */
            s->tight_at[o] = stamp;
        }
    size_t kept = 0;
    for (size_t k = 0; k < pairs->count; k++)
        if (glcollide_aabb_overlap_grown(&s->tight_boxes[pairs->pairs[k].a],
                                         &s->tight_boxes[pairs->pairs[k].b], margin))
            pairs->pairs[kept++] = pairs->pairs[k];
    pairs->count = kept;
    return GLCOLLIDE_OK;
}

int glcollide_query_cull(glcollide_world *world, glcollide_context *context,
                         const glcollide_query_options *options, int reliable,
                         glcollide_query_result *result)
{
    double margin = options->distance / 2;
    cull_scratch *s = NULL;
    int status = scratch_of(world, &s);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_pair_list *pairs = &world->pairs;
    status = glcollide_query_box_pairs(options, world->boxes, world->object_count, margin, pairs,
                                       &world->workspace);
    if (status == GLCOLLIDE_OK)
        status = tighten_pairs(world, s, margin);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.aabb_pairs = pairs->count;
    int triangle_level = options->level == GLCOLLIDE_LEVEL_TRIANGLES;
    size_t count = 0, drawn = 0;
    if ((status = taking_part(world, s, margin, triangle_level, options->resolution, &count,
                              &drawn)) != GLCOLLIDE_OK)
        return status;
    /* Objects: one round of the three views over whole objects.
     * Triangles: two rounds over the triangles that can touch another
     * object's box; the second round still removes a quarter of the
     * candidates on the bunny scene. */
    glcollide_cull_options cull = {
        .reliable = reliable,
        .resolution = options->resolution,
        .distance = options->distance,
        .object_round = !triangle_level,
        .triangle_rounds = triangle_level ? 2 : 0,
    };
    glcollide_cull_frame frame;
    status = glcollide_cull_world(context, world, &cull, s->taking_part, drawn,
                                  triangle_level ? s->regions : NULL, &frame, &result->stats);
    if (status == GLCOLLIDE_OK && triangle_level && count)
        status = triangles_left(world, s, &frame);
    for (size_t k = 0; k < pairs->count && status == GLCOLLIDE_OK && count; k++) {
        uint32_t i = pairs->pairs[k].a, j = pairs->pairs[k].b;
        if ((size_t)s->slots[i] >= drawn) { /* a group not drawn (both: no pair spans two) */
            size_t before = result->triangle_pair_count;
            if (triangle_level)
                status = undrawn_pairs(world, i, j, margin, result);
            if (status == GLCOLLIDE_OK && (!triangle_level || result->triangle_pair_count > before))
                status = glcollide_result_add_pair(result, i, j);
            continue;
        }
        if (!triangle_level) {
            size_t pi = (size_t)s->slots[i], pj = (size_t)s->slots[j];
            if (frame.pcs_bits && (frame.pcs_bits[pi / 32] >> (pi % 32) & 1u) &&
                (frame.pcs_bits[pj / 32] >> (pj % 32) & 1u))
                status = glcollide_result_add_pair(result, i, j);
            continue;
        }
        /* Triangles: the pairs that have candidate triangle pairs
         * (containment without surface contact is an object-level question). */
        size_t before = result->triangle_pair_count;
        status = triangle_pairs(world, s, &frame, i, j, margin, result);
        if (status == GLCOLLIDE_OK && result->triangle_pair_count > before)
            status = glcollide_result_add_pair(result, i, j);
    }
    result->stats.candidates = triangle_level ? result->triangle_pair_count : result->pair_count;
    return status;
}
