/* SPDX-License-Identifier: MIT */
/*
 * The trimesh-trimesh collider's contacts: candidates from the two captures'
 * BVHs (geom.c) traversed with the pair's relative placement, or this step's
 * GPU candidates (space.c), then glcollide's contact regions. Reading the
 * pair from ODE and writing into its buffer are pair.c's; what is here runs
 * on any thread, with the caller's scratch.
 *
 * A pair of trimesh geoms is traversed with the relative placement of the
 * two (oriented box tests), so a rigid motion costs nothing per geom: no
 * world copy of the mesh, no refit. Only the candidate triangles are then
 * brought into world space, once each, for the exact tests and contacts.
 */
#include "plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room for the marks, their summary and word ranks of a mesh of
 * triangle_count triangles. */
static int side_reserve_map(plugin_side *side, size_t triangle_count)
{
    if (triangle_count > side->map_capacity) {
        size_t words = (triangle_count + 63) / 64, old_words = (side->map_capacity + 63) / 64;
        size_t groups = (words + 63) / 64, old_groups = (old_words + 63) / 64;
        uint32_t *ranks = realloc(side->ranks, words * sizeof *ranks);
        if (ranks)
            side->ranks = ranks;
        uint64_t *marks = realloc(side->marks, words * sizeof *marks);
        if (marks)
            side->marks = marks;
        uint64_t *summary = realloc(side->summary, groups * sizeof *summary);
        if (summary)
            side->summary = summary;
        if (!ranks || !marks || !summary)
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        memset(side->marks + old_words, 0, (words - old_words) * sizeof *marks);
        memset(side->summary + old_groups, 0, (groups - old_groups) * sizeof *summary);
        side->map_capacity = triangle_count;
    }
    return GLCOLLIDE_OK;
}

/* Room for the slots of the triangles marked (side->used of them: a
 * triangle is in several candidates, and the room kept is the most a pair
 * needed). */
static int side_reserve_slots(plugin_side *side)
{
    size_t count = side->used;
    return plugin_reserve((void **)&side->positions, &side->positions_capacity, 9 * count,
                          sizeof *side->positions) ||
                   plugin_reserve((void **)&side->triangles, &side->triangles_capacity, 3 * count,
                                  sizeof *side->triangles) ||
                   plugin_reserve((void **)&side->ids, &side->ids_capacity, count,
                                  sizeof *side->ids)
               ? GLCOLLIDE_ERROR_OUT_OF_MEMORY
               : GLCOLLIDE_OK;
}

/* Notes side k's triangle of every candidate as used on the side, counting
 * each once. Its word is noted in the summary, and the summary's words set
 * are a range: a few candidates of a large mesh cost a few words to scan
 * and clear, not a word per 64 triangles of the mesh. The counts are kept
 * in locals: the side's fields share a cache line with the other side's,
 * which another thread marks at the same time. */
static void side_mark(plugin_side *side, const glcollide_index_pair *candidates, size_t count,
                      int k)
{
    uint64_t *marks = side->marks, *summary = side->summary;
    size_t used = 0, first = SIZE_MAX, end = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t t = k ? candidates[i].b : candidates[i].a;
        uint64_t bit = (uint64_t)1 << (t % 64), *word = &marks[t / 64];
        used += !(*word & bit);
        *word |= bit;
        size_t group = t / 4096;
        summary[group] |= (uint64_t)1 << (t / 64 % 64);
        first = group < first ? group : first;
        end = group + 1 > end ? group + 1 : end;
    }
    side->used = used;
    side->first_summary = first;
    side->end_summary = end;
}

/* Set bits of x: a sum of bit fields (the libgcc call that
 * __builtin_popcountll makes for a processor without a popcount
 * instruction, such as the baseline x86-64 distributions build for, costs
 * more; slot_candidates uses the instruction where the processor has it). */
static inline uint32_t bit_count(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/* The side's marked triangles in increasing order, into ids, and each mark
 * word's first slot, into ranks (a scan of the summary, then of the words
 * it names: no sort; the marks stay until side_clear). */
static void side_order(plugin_side *side)
{
    size_t n = 0;
    for (size_t g = side->first_summary; g < side->end_summary; g++)
        for (uint64_t words = side->summary[g]; words; words &= words - 1) {
            size_t w = 64 * g + (size_t)__builtin_ctzll(words);
            uint64_t bits = side->marks[w];
            side->ranks[w] = (uint32_t)n;
            do {
                side->ids[n++] = (uint32_t)(64 * w + (size_t)__builtin_ctzll(bits));
                bits &= bits - 1;
            } while (bits);
        }
    side->used = n;
}

/* The slot of marked triangle t: the marked triangles before it (its word's
 * rank and the marks below it in the word; hardware: counted with the
 * popcount instruction, for a caller built for it). No map of a slot per
 * triangle of the mesh is kept: a mesh costs a quarter of a byte per
 * triangle here. */
static inline __attribute__((always_inline)) uint32_t side_slot(const plugin_side *side, uint32_t t,
                                                                int hardware)
{
    uint64_t below = side->marks[t / 64] & (((uint64_t)1 << (t % 64)) - 1);
    return side->ranks[t / 64] +
           (hardware ? (uint32_t)__builtin_popcountll(below) : bit_count(below));
}

/* The marks and their summary cleared for the next call (the words the
 * summary names). */
static void side_clear(plugin_side *side)
{
    for (size_t g = side->first_summary; g < side->end_summary; g++) {
        for (uint64_t words = side->summary[g]; words; words &= words - 1)
            side->marks[64 * g + (size_t)__builtin_ctzll(words)] = 0;
        side->summary[g] = 0;
    }
}

/*
 * Gives the marked triangles their slots in increasing triangle order (so the
 * contact generator's ties, broken by triangle index, fall as they would on
 * the whole mesh, whatever order the candidates came in) and brings them into
 * world space.
 */
static void side_place(plugin_side *side, const glcollide_mesh *mesh, const glcollide_pose *object)
{
    side_order(side);
    double m[9];
    glcollide_pose_rotation_matrix(object, m);
    const double *t0 = object->translation;
    const uint32_t *ids = side->ids;
    double *positions = side->positions;
    uint32_t *triangles = side->triangles, used = (uint32_t)side->used;
    for (uint32_t s = 0; s < used; s++) {
        uint32_t t = ids[s];
        /* The mesh is read at scattered places: ask for the triangles a few
         * slots ahead (their indices, then their vertices) early. */
        if (s + 16 < used)
            __builtin_prefetch(mesh->triangles + 3 * (size_t)ids[s + 16]);
        if (s + 8 < used) {
            const uint32_t *ahead = mesh->triangles + 3 * (size_t)ids[s + 8];
            for (int c = 0; c < 3; c++)
                __builtin_prefetch(mesh->positions + 3 * (size_t)ahead[c]);
        }
        for (int c = 0; c < 3; c++) {
            const double *p = mesh->positions + 3 * (size_t)mesh->triangles[3 * (size_t)t + c];
            double *out = positions + 9 * (size_t)s + 3 * c;
            /* as glcollide_pose_transform_points, with the matrix made once */
            for (int r = 0; r < 3; r++)
                out[r] = m[3 * r] * p[0] + m[3 * r + 1] * p[1] + m[3 * r + 2] * p[2] + t0[r];
            triangles[3 * s + c] = 3 * s + (uint32_t)c;
        }
    }
}

/* Candidates from which the two sides are gathered on two threads (below,
 * handing a side to a worker costs about what it saves). */
enum { GATHER_IN_PARALLEL = 512 };

typedef struct gather_job {
    plugin_scratch *t;
    const glcollide_mesh *mesh[2];
    const glcollide_pose *pose[2];
    const glcollide_index_pair *candidates;
    size_t count, per_task; /* candidates, and those a slot_candidates task renumbers */
    int status[2];
} gather_job;

/* One side of gather_sides (a task): the side's marks and slots, and its
 * triangles in world space. */
static void gather_side(void *user, size_t k, int worker)
{
    (void)worker;
    gather_job *job = user;
    plugin_side *side = &job->t->sides[k];
    side_mark(side, job->candidates, job->count, (int)k);
    job->status[k] = side_reserve_slots(side);
    if (job->status[k] == GLCOLLIDE_OK)
        side_place(side, job->mesh[k], job->pose[k]);
}

/* Candidates a task of slot_candidates renumbers, at least. */
enum { SLOTS_PER_TASK = 1024 };

/* Candidates first..end renumbered to both sides' slots. */
static inline __attribute__((always_inline)) void slot_range(gather_job *job, size_t first,
                                                             size_t end, int hardware)
{
    const plugin_side *a = &job->t->sides[0], *b = &job->t->sides[1];
    const glcollide_index_pair *candidates = job->candidates;
    glcollide_index_pair *local = job->t->local_candidates;
    for (size_t i = first; i < end; i++)
        local[i] = (glcollide_index_pair){side_slot(a, candidates[i].a, hardware),
                                          side_slot(b, candidates[i].b, hardware)};
}

/* On x86-64 a second build of the loop, with the popcount instruction,
 * taken where the processor has it (asked of the processor model that
 * libgcc reads at start-up, not through an indirect function resolved at
 * load time, which a sanitizer's runtime is not ready for). */
#if defined(__x86_64__) && defined(__GNUC__)
#define SLOT_POPCOUNT 1
__attribute__((target("popcnt"))) static void slot_range_popcount(gather_job *job, size_t first,
                                                                  size_t end)
{
    slot_range(job, first, end, 1);
}
#endif

/* The candidates of one range renumbered to both sides' slots (a task: a
 * range, so that no two threads write into one cache line). */
static void slot_candidates(void *user, size_t k, int worker)
{
    (void)worker;
    gather_job *job = user;
    size_t first = k * job->per_task;
    size_t end = first + job->per_task < job->count ? first + job->per_task : job->count;
#ifdef SLOT_POPCOUNT
    if (__builtin_cpu_supports("popcnt")) {
        slot_range_popcount(job, first, end);
        return;
    }
#endif
    slot_range(job, first, end, 0);
}

/*
 * Gathers the candidate triangles of both meshes into the sides (each
 * triangle once; the two sides on two threads where there are) and
 * renumbers the candidates to slots, in t->local_candidates (by ranges of
 * candidates, on the threads). The workers are roused first: the jobs are
 * the library's public ones, after which they would park, and the contact
 * generator's own follow at once. Errors: OUT_OF_MEMORY.
 */
static int gather_sides(plugin_scratch *t, const glcollide_mesh *ma, const glcollide_pose *oa,
                        const glcollide_mesh *mb, const glcollide_pose *ob,
                        const glcollide_index_pair *candidates, size_t count, int threads)
{
    if (side_reserve_map(&t->sides[0], ma->triangle_count) ||
        side_reserve_map(&t->sides[1], mb->triangle_count) ||
        plugin_reserve((void **)&t->local_candidates, &t->local_candidate_capacity, count,
                       sizeof *t->local_candidates))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    int parallel = count >= GATHER_IN_PARALLEL && threads > 1;
    size_t tasks = parallel ? 4 * (size_t)threads : 1;
    if (tasks > 1 && count / tasks < SLOTS_PER_TASK)
        tasks = count / SLOTS_PER_TASK > 1 ? count / SLOTS_PER_TASK : 1;
    gather_job job = {t,     {ma, mb}, {oa, ob}, candidates, count, (count + tasks - 1) / tasks,
                      {0, 0}};
    if (parallel)
        glcollide_workers_rouse(threads);
    glcollide_workers_run(2, parallel ? threads : 1, gather_side, &job);
    int status = job.status[0] ? job.status[0] : job.status[1];
    if (status == GLCOLLIDE_OK)
        glcollide_workers_run(tasks, parallel ? threads : 1, slot_candidates, &job);
    side_clear(&t->sides[0]);
    side_clear(&t->sides[1]);
    return status;
}

/* Meshes of at least this many triangles together share their descent
 * among the threads: below it, cutting the descent costs more than it
 * saves (measured with the pile's and the bench's pairs). */
enum { SPLIT_TRIANGLES = 4096 };

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
    return plugin_pair_collide(PLUGIN_PAIR_TRIMESH, o1, o2, flags, contact, skip);
}

int plugin_trimesh_contacts(plugin_scratch *s, const plugin_pair *pair, size_t max,
                            size_t *count)
{
    const plugin_mesh *da = pair->m1, *db = pair->m2;
    const glcollide_mesh *ma = da->mesh, *mb = db->mesh;
    const glcollide_pose *oa = &pair->pose1, *ob = &pair->pose2;
    unsigned long long start = plugin_now_ns();
    int threads = s->threads ? s->threads : plugin_threads();
    *count = 0;

    /* Candidates: this step's GPU culling (kept as (lower geom, higher
     * geom)), else a CPU BVH over both; the list lives in the scratch so that
     * a warm step allocates nothing. */
    candidate_list cpu = {s->candidates, 0, s->candidate_capacity, GLCOLLIDE_OK};
    const plugin_step_pair *cached = pair->culled;
    const glcollide_index_pair *candidates = NULL;
    size_t candidate_count = 0;
    if (cached && pair->g1 < pair->g2) {
        candidates = pair->culled_candidates;
        candidate_count = cached->count;
    } else {
        if (cached) { /* swap each pair */
            for (size_t i = 0; i < cached->count; i++)
                add_candidate(pair->culled_candidates[i].b, pair->culled_candidates[i].a, &cpu);
        } else if (threads > 1 && ma->triangle_count + mb->triangle_count >= SPLIT_TRIANGLES) {
            /* a large pair: its descent shared among the threads */
            glcollide_pair_list list = {cpu.pairs, 0, cpu.capacity};
            cpu.status = glcollide_bvh_overlap_posed_exact_split(
                da->bvh, ma->positions, oa, db->bvh, mb->positions, ob, threads, s->parts, &list);
            cpu.pairs = list.pairs;
            cpu.count = list.count;
            cpu.capacity = list.capacity;
        } else {
            glcollide_bvh_overlap_posed_exact(da->bvh, ma->positions, oa, db->bvh, mb->positions,
                                              ob, add_candidate, &cpu);
        }
        candidates = cpu.pairs;
        candidate_count = cpu.count;
    }
    s->candidates = cpu.pairs;
    s->candidate_capacity = cpu.capacity;
    if (cpu.status != GLCOLLIDE_OK) {
        glcollide_log(GLCOLLIDE_LOG_ERROR, "ODE plugin: out of memory for candidate pairs");
        return cpu.status;
    }

    /* Only the candidate triangles go to world space, each once. */
    glcollide_contact_options options = glcollide_contact_default_options();
    options.ranked = 1;
    options.threads = threads;
    int status = GLCOLLIDE_OK;
    if (!s->scratch)
        status = glcollide_scratch_create(&s->scratch);
    if (status == GLCOLLIDE_OK)
        status = gather_sides(s, ma, oa, mb, ob, candidates, candidate_count, threads);
    if (status == GLCOLLIDE_OK) {
        /* The sides as meshes of world positions, three vertices a slot. */
        glcollide_mesh sides[2];
        for (int k = 0; k < 2; k++)
            sides[k] = (glcollide_mesh){s->sides[k].positions, s->sides[k].triangles,
                                        3 * s->sides[k].used, s->sides[k].used, NULL};
        status = glcollide_contacts_generate(&sides[0], &sides[1], s->local_candidates,
                                             candidate_count, &options, s->contacts, max, count,
                                             s->scratch);
    }
    if (status != GLCOLLIDE_OK)
        return status;
    for (size_t i = 0; i < *count; i++) { /* slots to the meshes' triangles */
        s->contacts[i].triangle_a = s->sides[0].ids[s->contacts[i].triangle_a];
        s->contacts[i].triangle_b = s->sides[1].ids[s->contacts[i].triangle_b];
    }
    /* No surfaces meet: one solid may lie inside the other. The exact test
     * runs where its one vertex can be inside (plugin_may_contain), or where
     * this step's stencil pass saw the two interfere (it may also catch what
     * that test passes; a pair it did not flag is still tested: at finite
     * resolution it can miss a contained solid). */
    int contained = 0;
    if (*count == 0 && max > 0 && (da->closed || db->closed) &&
        ((cached && cached->interfering) || plugin_may_contain(da, oa, db, ob) ||
         plugin_may_contain(db, ob, da, oa))) {
        glcollide_contact_solid sa = {ma, da->bvh, *oa, da->closed};
        glcollide_contact_solid sb = {mb, db->bvh, *ob, db->closed};
        glcollide_contacts_containment(&sa, &sb, &options, s->contacts, max, count);
        contained = *count > 0;
    }
    if (cached && cached->stencil)
        plugin_stencil_agreement(cached->interfering, *count > 0);
    plugin_counters *counters = &plugin.counters;
    plugin_count(&counters->candidates, candidate_count);
    plugin_count(&counters->contained, (unsigned long long)contained);
    plugin_count(&counters->contact_ns, plugin_now_ns() - start);
    return GLCOLLIDE_OK;
}
