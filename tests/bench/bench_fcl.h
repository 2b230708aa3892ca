// SPDX-License-Identifier: MIT
// What the FCL sides of the benchmarks (bench_world_fcl.cc,
// bench_distance_fcl.cc) share, C++ only: a glcollide mesh as an FCL
// BVHModel<OBBRSS>, and a glcollide pose given to an FCL object.
#ifndef GLCOLLIDE_BENCH_FCL_H
#define GLCOLLIDE_BENCH_FCL_H

#include <glcollide/glcollide.h>

#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision_object.h>

#include <memory>
#include <vector>

typedef fcl::BVHModel<fcl::OBBRSSd> bench_fcl_mesh;

// The mesh's FCL model, its tree built (untimed in both benchmarks).
static inline std::shared_ptr<bench_fcl_mesh> bench_fcl_model(const glcollide_mesh *mesh)
{
    std::vector<fcl::Vector3d> points(mesh->vertex_count);
    std::vector<fcl::Triangle> triangles(mesh->triangle_count);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        points[v] = fcl::Vector3d(mesh->positions[3 * v], mesh->positions[3 * v + 1],
                                  mesh->positions[3 * v + 2]);
    for (size_t t = 0; t < mesh->triangle_count; t++)
        triangles[t].set(mesh->triangles[3 * t], mesh->triangles[3 * t + 1],
                         mesh->triangles[3 * t + 2]);
    auto model = std::make_shared<bench_fcl_mesh>();
    model->beginModel();
    model->addSubModel(points, triangles);
    model->endModel();
    model->computeLocalAABB();
    return model;
}

// The object placed as pose places glcollide's (rotation from its quaternion).
static inline void bench_fcl_set_pose(fcl::CollisionObjectd *object, const glcollide_pose *pose)
{
    double m[9];
    glcollide_pose_rotation_matrix(pose, m);
    fcl::Matrix3d r;
    r << m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8];
    object->setTransform(
        r, fcl::Vector3d(pose->translation[0], pose->translation[1], pose->translation[2]));
}

#endif
