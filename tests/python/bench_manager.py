# SPDX-License-Identifier: MIT
"""CollisionManager.in_collision_internal beside the C world query it runs.

bench-world's scene from Python: N instances of bunny00, armadillo and
refined_elephant (each fitted to a unit box) in a cube of 1.5 units^3 per
object, every object moved each frame (set_transform, not timed). Per frame,
the Python call in_collision_internal() is timed around the call, and the C
query's own wall time (glcollide_world_query's stats.time_ms, measured inside
the library for the same query) is read beside it; the medians and their
ratio are printed. Not a test: make check does not run it.

    PYTHONPATH=glcollide/python/site python3 tests/python/bench_manager.py [N] [FRAMES]
"""

import statistics
import sys
import time

import numpy as np

import glcollide


def fitted(name):
    vertices, faces = glcollide.load_mesh(glcollide.find_data_mesh(name))
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    return (vertices - (low + high) / 2) / (high - low).max(), faces


def random_transforms(rng, count, side):
    q = rng.uniform(-1, 1, size=(count, 4))
    q /= np.linalg.norm(q, axis=1)[:, None]
    poses = np.hstack([rng.uniform(0, side, size=(count, 3)), q])
    return [glcollide.matrix_from_pose(p) for p in poses]


def main():
    objects = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    meshes = [fitted(n) for n in ("bunny00.off", "armadillo.off", "refined_elephant.off")]
    side = (objects * 1.5) ** (1 / 3)
    rng = np.random.default_rng(objects)
    manager = glcollide.CollisionManager()
    for i, transform in enumerate(random_transforms(rng, objects, side)):
        manager.add_object(i, meshes[i % 3], transform)
    manager.in_collision_internal()  # BVHs and solidity made once
    python_ms, c_ms, pairs = [], [], 0
    for _ in range(frames):
        for i, transform in enumerate(random_transforms(rng, objects, side)):
            manager.set_transform(i, transform)
        start = time.perf_counter()
        manager.in_collision_internal()
        python_ms.append(1e3 * (time.perf_counter() - start))
        c_ms.append(manager._world.stats["time_ms"])
        pairs += len(manager.in_collision_internal(return_names=True)[1])
    p, c = statistics.median(python_ms), statistics.median(c_ms)
    print("objects %d frames %d pairs/frame %.1f" % (objects, frames, pairs / frames))
    print("in_collision_internal median %.3f ms, C world query median %.3f ms, ratio %.3f"
          % (p, c, p / c))


if __name__ == "__main__":
    main()
