// SPDX-License-Identifier: MIT
// FCL 0.7 (DynamicAABBTreeCollisionManager, BVHModel<OBBRSS>) for
// bench-world-fcl: see bench_world_fcl.h.
#include "bench_world_fcl.h"

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

typedef fcl::BVHModel<fcl::OBBRSSd> fcl_mesh;

struct bench_fcl {
    std::vector<std::shared_ptr<fcl_mesh>> meshes;
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

static void set_pose(fcl::CollisionObjectd *object, const glcollide_pose *pose)
{
    double m[9];
    glcollide_pose_rotation_matrix(pose, m);
    fcl::Matrix3d r;
    r << m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8];
    object->setTransform(
        r, fcl::Vector3d(pose->translation[0], pose->translation[1], pose->translation[2]));
}

bench_fcl *bench_fcl_create(const test_scene *scene, int refit)
{
    bench_fcl *fcl = new (std::nothrow) bench_fcl();
    if (!fcl)
        return nullptr;
    fcl->refit = refit;
    for (size_t m = 0; m < scene->mesh_count; m++) {
        const glcollide_mesh *mesh = scene->meshes[m];
        std::vector<fcl::Vector3d> points(mesh->vertex_count);
        std::vector<fcl::Triangle> triangles(mesh->triangle_count);
        for (size_t v = 0; v < mesh->vertex_count; v++)
            points[v] = fcl::Vector3d(mesh->positions[3 * v], mesh->positions[3 * v + 1],
                                      mesh->positions[3 * v + 2]);
        for (size_t t = 0; t < mesh->triangle_count; t++)
            triangles[t].set(mesh->triangles[3 * t], mesh->triangles[3 * t + 1],
                             mesh->triangles[3 * t + 2]);
        auto model = std::make_shared<fcl_mesh>();
        model->beginModel();
        model->addSubModel(points, triangles);
        model->endModel();
        model->computeLocalAABB();
        fcl->meshes.push_back(model);
    }
    for (size_t o = 0; o < scene->object_count; o++) {
        fcl->objects.emplace_back(new fcl::CollisionObjectd(fcl->meshes[scene->objects[o].mesh]));
        fcl->objects.back()->setUserData(reinterpret_cast<void *>(static_cast<std::uintptr_t>(o)));
        set_pose(fcl->objects.back().get(), &scene->objects[o].pose);
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
        set_pose(fcl->objects[o].get(), &scene->objects[o].pose);
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
