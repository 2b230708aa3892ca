/* SPDX-License-Identifier: MIT */
/*
 * Contacts between two objects of a world, the pipeline the ODE plugin runs
 * for a trimesh pair, on the world's own data: candidate triangle pairs from
 * the two meshes' object-space BVHs placed by the poses (no refit, no world
 * copy of a mesh), contact regions on the candidate triangles alone placed in
 * world space (contacts/posed.c), and, when the surfaces do not meet, the
 * containment contacts that push a solid out of a closed other.
 *
 * For programs that ask a world "where do these two touch?" beside "which
 * pairs touch?" (glcollide_world_query): the Python module's
 * World.contacts, a planner's penetration check.
 */
#include "world/world.h"

static int add_candidate(uint32_t a, uint32_t b, void *user)
{
    return glcollide_pair_list_push(user, a, b) != GLCOLLIDE_OK;
}

static glcollide_contact_solid solid_of(const glcollide_world *world, uint32_t object)
{
    const glcollide_object *o = &world->objects[object];
    const glcollide_world_mesh_entry *entry = &world->meshes[o->mesh];
    return (glcollide_contact_solid){entry->mesh, entry->bvh, o->pose, entry->solid == 1};
}

static int check_arguments(const glcollide_world *world, uint32_t a, uint32_t b,
                           size_t max_contacts, const glcollide_contact *contacts)
{
    if (!world)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: contacts: world is NULL");
    if (a >= world->object_count || b >= world->object_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "world: contacts: no object %u (%zu objects)",
                              a >= world->object_count ? a : b, world->object_count);
    if (a == b)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "world: contacts: object %u with itself", a);
    if (max_contacts > 0 && !contacts)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "world: contacts: contacts is NULL with max_contacts %zu",
                              max_contacts);
    return GLCOLLIDE_OK;
}

int glcollide_world_contacts(glcollide_world *world, uint32_t a, uint32_t b, size_t max_contacts,
                             glcollide_contact *contacts, size_t *count)
{
    if (!count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: contacts: count is NULL");
    *count = 0;
    int status = check_arguments(world, a, b, max_contacts, contacts);
    const unsigned what = GLCOLLIDE_WORLD_BVH | GLCOLLIDE_WORLD_SOLIDS;
    if (status == GLCOLLIDE_OK)
        status = glcollide_world_prepare_mesh(world, world->objects[a].mesh, what);
    if (status == GLCOLLIDE_OK)
        status = glcollide_world_prepare_mesh(world, world->objects[b].mesh, what);
    if (status != GLCOLLIDE_OK || max_contacts == 0 ||
        !glcollide_aabb_overlap(&world->boxes[a], &world->boxes[b]))
        return status;
    const glcollide_pose *pose_a = &world->objects[a].pose, *pose_b = &world->objects[b].pose;
    const glcollide_world_mesh_entry *ea = &world->meshes[world->objects[a].mesh];
    const glcollide_world_mesh_entry *eb = &world->meshes[world->objects[b].mesh];
    glcollide_pair_list *candidates = &world->contact_candidates;
    candidates->count = 0;
    if (glcollide_bvh_overlap_posed_exact(ea->bvh, ea->mesh->positions, pose_a, eb->bvh,
                                          eb->mesh->positions, pose_b, add_candidate, candidates))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY; /* logged by the list */
    status = glcollide_posed_contacts(&world->posed, ea->mesh, pose_a, eb->mesh, pose_b,
                                      candidates->pairs, candidates->count, contacts, max_contacts,
                                      count);
    /* No surfaces meet: one solid may lie inside the other. */
    if (status == GLCOLLIDE_OK && *count == 0 && (ea->solid == 1 || eb->solid == 1)) {
        glcollide_contact_solid sa = solid_of(world, a), sb = solid_of(world, b);
        status = glcollide_contacts_containment(&sa, &sb, NULL, contacts, max_contacts, count);
    }
    if (status != GLCOLLIDE_OK)
        *count = 0;
    return status;
}
