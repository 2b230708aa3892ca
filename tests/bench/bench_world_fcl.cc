// SPDX-License-Identifier: MIT
// FCL 0.7 (DynamicAABBTreeCollisionManager, BVHModel<OBBRSS>) for
// bench-world-fcl: see bench_world_fcl.h.
#include "bench_world_fcl.h"

#include "bench_fcl.h"

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/narrowphase/collision.h>

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

struct bench_fcl {
    std::vector<std::shared_ptr<bench_fcl_mesh>> meshes;
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
    std::vector<fcl::CollisionObjectd *> registered;
    fcl::DynamicAABBTreeCollisionManagerd manager;
    int refit;
    glcollide_pair_list *found;
    size_t candidates;
    int failed;
};

static std::uintptr_t index_of(fcl::CollisionObjectd *object)
{
    return reinterpret_cast<std::uintptr_t>(object->getUserData());
}

// The manager's callback: one FCL mesh test per candidate pair (its OBBRSS
// trees and floating-point triangle test), stopping at the first
// intersecting triangle pair (num_max_contacts 1, no contact data).
static bool narrow(fcl::CollisionObjectd *o1, fcl::CollisionObjectd *o2, void *user)
{
    bench_fcl *fcl = static_cast<bench_fcl *>(user);
    fcl->candidates++;
    fcl::CollisionRequestd request;
    fcl::CollisionResultd result;
    if (fcl::collide(o1, o2, request, result) && !fcl->failed) {
        std::uintptr_t a = index_of(o1), b = index_of(o2);
        if (a > b)
            std::swap(a, b);
        if (glcollide_pair_list_push(fcl->found, (uint32_t)a, (uint32_t)b))
            fcl->failed = 1;
    }
    return false;
}

bench_fcl *bench_fcl_create(const test_scene *scene, int refit)
{
    bench_fcl *fcl = new (std::nothrow) bench_fcl();
    if (!fcl)
        return nullptr;
    fcl->refit = refit;
    for (size_t m = 0; m < scene->mesh_count; m++)
        fcl->meshes.push_back(bench_fcl_model(scene->meshes[m]));
    for (size_t o = 0; o < scene->object_count; o++) {
        fcl->objects.emplace_back(new fcl::CollisionObjectd(fcl->meshes[scene->objects[o].mesh]));
        fcl->objects.back()->setUserData(reinterpret_cast<void *>(static_cast<std::uintptr_t>(o)));
        bench_fcl_set_pose(fcl->objects.back().get(), &scene->objects[o].pose);
        fcl->objects.back()->computeAABB();
        fcl->registered.push_back(fcl->objects.back().get());
    }
    fcl->manager.registerObjects(fcl->registered);
    fcl->manager.setup();
    return fcl;
}

void bench_fcl_pose(bench_fcl *fcl, const test_scene *scene)
{
    for (size_t o = 0; o < scene->object_count; o++)
        bench_fcl_set_pose(fcl->objects[o].get(), &scene->objects[o].pose);
}

int bench_fcl_collide(bench_fcl *fcl, glcollide_pair_list *found, size_t *candidates)
{
    for (auto &object : fcl->objects)
        object->computeAABB();
    if (fcl->refit)
        fcl->manager.update();
    else {
        fcl->manager.clear();
        fcl->manager.registerObjects(fcl->registered);
        fcl->manager.setup();
    }
    found->count = 0;
    fcl->found = found;
    fcl->failed = 0;
    fcl->candidates = 0;
    fcl->manager.collide(fcl, narrow);
    *candidates += fcl->candidates;
    return fcl->failed ? -1 : 0;
}

void bench_fcl_destroy(bench_fcl *fcl)
{
    delete fcl;
}
