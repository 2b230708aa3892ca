// SPDX-License-Identifier: MIT
// FCL 0.7 (BVHModel<OBBRSS>, fcl::distance with nearest points) for
// bench-distance-fcl: see bench_distance_fcl.h.
#include "bench_distance_fcl.h"

#include "bench_fcl.h"

#include <fcl/narrowphase/distance.h>

#include <memory>
#include <new>
#include <vector>

struct bench_fcl_distance {
    std::vector<std::shared_ptr<bench_fcl_mesh>> meshes;
    std::unique_ptr<fcl::CollisionObjectd> a, b;
};

bench_fcl_distance *bench_fcl_distance_create(glcollide_mesh *const *meshes, size_t count)
{
    bench_fcl_distance *fcl = new (std::nothrow) bench_fcl_distance();
    if (!fcl)
        return nullptr;
    for (size_t m = 0; m < count; m++)
        fcl->meshes.push_back(bench_fcl_model(meshes[m]));
    return fcl;
}

void bench_fcl_distance_pose(bench_fcl_distance *fcl, const glcollide_object *a,
                             const glcollide_object *b)
{
    fcl->a.reset(new fcl::CollisionObjectd(fcl->meshes[a->mesh]));
    fcl->b.reset(new fcl::CollisionObjectd(fcl->meshes[b->mesh]));
    bench_fcl_set_pose(fcl->a.get(), &a->pose);
    bench_fcl_set_pose(fcl->b.get(), &b->pose);
    fcl->a->computeAABB();
    fcl->b->computeAABB();
}

double bench_fcl_distance_run(bench_fcl_distance *fcl, double point_a[3], double point_b[3])
{
    fcl::DistanceRequestd request(true);
    fcl::DistanceResultd result;
    fcl::distance(fcl->a.get(), fcl->b.get(), request, result);
    for (int k = 0; k < 3; k++) {
        point_a[k] = result.nearest_points[0][k];
        point_b[k] = result.nearest_points[1][k];
    }
    return result.min_distance;
}

void bench_fcl_distance_destroy(bench_fcl_distance *fcl)
{
    delete fcl;
}
