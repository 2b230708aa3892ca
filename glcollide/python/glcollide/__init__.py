# SPDX-License-Identifier: MIT
"""glcollide: exact collision queries between triangle meshes, from Python.

    import glcollide
    vertices, faces = glcollide.load_mesh("bunny.off")
    world = glcollide.World()
    mesh = world.add_mesh(vertices, faces)
    a = world.add_object(mesh, (0, 0, 0), (1, 0, 0, 0))
    b = world.add_object(mesh, (0.05, 0, 0), (1, 0, 0, 0))
    world.query()             # (k, 2) array of touching pairs: [[0, 1]]
    world.contacts(a, b)      # points, normals, depths
    world.distance(a, b)      # distance, closest point on a, on b

CollisionManager has the calls of trimesh's (trimesh.collision), so that a
program written for it can switch by changing one import. docs/python.md
says more.
"""

from ._glcollide import (  # noqa: F401
    Error,
    FileError,
    InvalidInput,
    World,
    box_mesh,
    capsule_mesh,
    find_data_mesh,
    load_mesh,
    load_scene,
    sphere_mesh,
    torus_mesh,
)
from .collision import (  # noqa: F401
    CollisionManager,
    ContactData,
    DistanceData,
    matrix_from_pose,
    pose_from_matrix,
)

__all__ = [
    "CollisionManager",
    "ContactData",
    "DistanceData",
    "Error",
    "FileError",
    "InvalidInput",
    "World",
    "box_mesh",
    "capsule_mesh",
    "find_data_mesh",
    "load_mesh",
    "load_scene",
    "matrix_from_pose",
    "pose_from_matrix",
    "sphere_mesh",
    "torus_mesh",
]
