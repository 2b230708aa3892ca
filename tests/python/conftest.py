# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python module's tests (tests/python/run.sh runs them
against the module built in the tree)."""

import os
import subprocess

import numpy as np
import pytest

import glcollide

SOURCE = os.environ.get("GLCOLLIDE_SRCDIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def scenes():
    """The scene files of tests/scenes."""
    folder = os.environ.get("GLCOLLIDE_TEST_SCENES", os.path.join(SOURCE, "tests", "scenes"))
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".scene"))


def run_query(scene, *options):
    """glcollide-query's answer: pairs (k, 2) and triangle rows (k, 4), sorted,
    and distance lines (i, j, d)."""
    program = os.environ.get("GLCOLLIDE_QUERY", os.path.join(SOURCE, "glcollide-query"))
    out = subprocess.run([program, *options, scene], check=True, capture_output=True,
                         text=True).stdout
    pairs, triangles, distances = [], [], []
    for line in out.splitlines():
        word, *rest = line.split()
        if word == "pair":
            pairs.append([int(x) for x in rest])
        elif word == "tri":
            triangles.append([int(x) for x in rest])
        elif word == "distance":
            distances.append((int(rest[0]), int(rest[1]), float(rest[2])))
    return (np.array(pairs, dtype=np.uint32).reshape(-1, 2),
            np.array(sorted(triangles), dtype=np.uint32).reshape(-1, 4), distances)


def world_of_scene(path):
    """A World of the scene's meshes and objects, through load_scene."""
    meshes, mesh_indices, poses = glcollide.load_scene(path)
    world = glcollide.World()
    for vertices, faces in meshes:
        world.add_mesh(vertices, faces)
    world.add_objects(mesh_indices, poses)
    return world


def write_off(path, vertices, faces):
    with open(path, "w") as f:
        f.write("OFF\n%d %d 0\n" % (len(vertices), len(faces)))
        for v in vertices:
            f.write("%.17g %.17g %.17g\n" % tuple(v))
        for t in faces:
            f.write("3 %d %d %d\n" % tuple(t))


def random_quaternion(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def random_scene(folder, rng, objects=12, side=2.5):
    """A scene file of generated meshes at random poses in a cube; returns its
    path."""
    meshes = [glcollide.box_mesh(0.4, 0.2, 0.1), glcollide.sphere_mesh(0.3, 12, 6),
              glcollide.torus_mesh(0.4, 0.1, 16, 8), glcollide.capsule_mesh(0.1, 0.4, 10, 3)]
    lines = []
    for m, (vertices, faces) in enumerate(meshes):
        name = os.path.join(folder, "mesh%d.off" % m)
        write_off(name, vertices, faces)
        lines.append("mesh %s" % name)
    for _ in range(objects):
        t = rng.uniform(0, side, size=3)
        q = random_quaternion(rng)
        lines.append("object %d %s" % (rng.integers(len(meshes)),
                                       " ".join("%.17g" % x for x in (*t, *q))))
    path = os.path.join(folder, "random.scene")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path
