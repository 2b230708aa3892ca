# SPDX-License-Identifier: MIT
"""glcollide.CollisionManager with trimesh's calls and return shapes
(trimesh.collision): booleans, sets of names, sorted name pairs, ContactData
and DistanceData; answers equal to the World's on the same objects."""

import math

import numpy as np
import pytest
from conftest import random_quaternion

import glcollide

BOX = glcollide.box_mesh(0.5, 0.5, 0.5)


class Mesh:
    """A trimesh.Trimesh stand-in: .vertices and .faces (int64, as trimesh's)."""

    def __init__(self, vertices, faces):
        self.vertices = np.asarray(vertices, dtype=np.float64)
        self.faces = np.asarray(faces, dtype=np.int64)


def moved(x, y=0.0, z=0.0):
    t = np.eye(4)
    t[:3, 3] = (x, y, z)
    return t


@pytest.fixture
def manager():
    m = glcollide.CollisionManager()
    box = Mesh(*BOX)
    m.add_object("a", box, moved(0))
    m.add_object("b", box, moved(0.9))    # overlaps a
    m.add_object("c", box, moved(3.0))    # alone
    return m


def test_in_collision_internal_shapes(manager):
    assert manager.in_collision_internal() is True
    result, names = manager.in_collision_internal(return_names=True)
    assert result is True and names == {("a", "b")}
    result, data = manager.in_collision_internal(return_data=True)
    assert result and data and all(isinstance(d, glcollide.ContactData) for d in data)
    assert data[0].names == {"a", "b"}
    # normals from the first named object toward the second (FCL's way)
    assert np.allclose(data[0].normal, (1, 0, 0), atol=1e-9)
    assert data[0].depth == pytest.approx(0.1)
    assert 0 <= data[0].index("a") < 12 and 0 <= data[0].index("b") < 12
    result, names, data = manager.in_collision_internal(return_names=True, return_data=True)
    assert names == {("a", "b")} and len(data) > 0
    manager.set_transform("b", moved(1.5))
    assert manager.in_collision_internal() is False
    assert manager.in_collision_internal(return_names=True) == (False, set())


def test_names_are_sorted_within_pairs():
    m = glcollide.CollisionManager()
    m.add_object("zebra", BOX)
    m.add_object("apple", BOX, moved(0.5))
    assert m.in_collision_internal(return_names=True)[1] == {("apple", "zebra")}


def test_in_collision_single(manager):
    assert manager.in_collision_single(BOX, moved(3.5)) is True
    result, names = manager.in_collision_single(BOX, moved(0.45), return_names=True)
    assert result is True and names == {"a", "b"}
    result, names = manager.in_collision_single(BOX, moved(10), return_names=True)
    assert result is False and names == set()
    result, data = manager.in_collision_single(BOX, moved(3.5), return_data=True)
    assert data and data[0].names == {"c", "__external"}
    # the probe left nothing behind
    assert manager._world.object_count == 3
    assert manager.in_collision_internal(return_names=True)[1] == {("a", "b")}


def test_in_collision_other(manager):
    other = glcollide.CollisionManager()
    other.add_object("x", BOX, moved(3.2))
    other.add_object("y", BOX, moved(20))
    result, names = manager.in_collision_other(other, return_names=True)
    assert result is True and names == {("c", "x")}
    assert other.in_collision_other(manager, return_names=True)[1] == {("x", "c")}
    result, names, data = manager.in_collision_other(other, return_names=True,
                                                     return_data=True)
    assert data[0].names == {"c", "x"}
    other.set_transform("x", moved(8))
    assert manager.in_collision_other(other) is False
    assert manager._world.object_count == 3 and other._world.object_count == 2


def test_replace_and_remove(manager):
    manager.add_object("b", BOX, moved(10))   # the same name replaces
    assert manager.in_collision_internal() is False
    manager.add_object("d", BOX, moved(3.5))
    assert manager.in_collision_internal(return_names=True)[1] == {("c", "d")}
    manager.remove_object("c")
    assert manager.in_collision_internal() is False
    manager.set_transform("d", moved(0.5))
    assert manager.in_collision_internal(return_names=True)[1] == {("a", "d")}


def test_the_same_mesh_is_registered_once():
    m = glcollide.CollisionManager()
    box = Mesh(*BOX)
    for i in range(50):
        m.add_object(i, box, moved(2 * i))
    assert m._world.mesh_count == 1
    box.vertices = box.vertices * 2   # a new array: a new mesh
    m.add_object("big", box, moved(-10))
    assert m._world.mesh_count == 2


def test_answers_equal_the_worlds():
    rng = np.random.default_rng(5)
    meshes = [glcollide.box_mesh(0.4, 0.2, 0.1), glcollide.torus_mesh(0.4, 0.1, 16, 8)]
    manager = glcollide.CollisionManager()
    world = glcollide.World()
    ids = [world.add_mesh(*m) for m in meshes]
    for i in range(60):
        pose = np.concatenate([rng.uniform(0, 3, size=3), random_quaternion(rng)])
        k = i % 2
        manager.add_object("o%d" % i, meshes[k], glcollide.matrix_from_pose(pose))
        world.add_object(ids[k], pose[:3], pose[3:])
    expected = {("o%d" % i, "o%d" % j) for i, j in world.query().tolist()}
    expected = {tuple(sorted(p)) for p in expected}
    assert manager.in_collision_internal(return_names=True)[1] == expected
    assert expected


def test_pose_and_matrix_round_trip():
    rng = np.random.default_rng(9)
    for _ in range(100):
        pose = np.concatenate([rng.normal(size=3), random_quaternion(rng)])
        back = glcollide.pose_from_matrix(glcollide.matrix_from_pose(pose))
        if back[3] * pose[3] < 0:
            back[3:] = -back[3:]
        assert np.allclose(back, pose, atol=1e-12)
    assert np.array_equal(glcollide.pose_from_matrix(None), [0, 0, 0, 1, 0, 0, 0])


def test_min_distance_shapes(manager):
    manager.set_transform("b", moved(1.25))   # 0.25 from a
    assert manager.min_distance_internal() == pytest.approx(0.25, abs=1e-12)
    distance, names = manager.min_distance_internal(return_names=True)
    assert names == ("a", "b")
    distance, names, data = manager.min_distance_internal(return_names=True, return_data=True)
    assert isinstance(data, glcollide.DistanceData) and data.names == {"a", "b"}
    assert data.distance == pytest.approx(0.25, abs=1e-12)
    assert np.linalg.norm(data.point("a") - data.point("b")) == pytest.approx(0.25, abs=1e-12)
    assert data.point("a")[0] == pytest.approx(0.5) and data.point("b")[0] == pytest.approx(0.75)
    assert 0 <= data.index("a") < 12

    distance, name = manager.min_distance_single(BOX, moved(4.5), return_name=True)
    assert distance == pytest.approx(0.5, abs=1e-12) and name == "c"
    distance, data = manager.min_distance_single(BOX, moved(4.5), return_data=True)
    assert data.names == {"c", "__external"}
    assert manager._world.object_count == 3

    other = glcollide.CollisionManager()
    other.add_object("x", BOX, moved(0, 3))
    distance, names = manager.min_distance_other(other, return_names=True)
    assert distance == pytest.approx(2.0, abs=1e-12) and names[1] == "x"
    assert names[0] in ("a", "b")   # a and b are both 2.0 away


def test_min_distance_in_collision_and_empty(manager):
    manager.set_transform("b", moved(0.5))
    assert manager.min_distance_internal() == 0.0
    assert glcollide.CollisionManager().min_distance_internal() == math.inf
    assert glcollide.CollisionManager().in_collision_internal() is False
    assert glcollide.CollisionManager().min_distance_single(BOX) == math.inf


def test_min_distance_equals_brute_force():
    rng = np.random.default_rng(21)
    mesh = glcollide.sphere_mesh(0.2, 10, 5)
    manager = glcollide.CollisionManager()
    for i in range(40):
        manager.add_object(i, mesh, moved(*rng.uniform(0, 6, size=3)))
    world = manager._world
    brute = min(world.distance(i, j)[0] for i in range(40) for j in range(i + 1, 40))
    assert manager.min_distance_internal() == brute
