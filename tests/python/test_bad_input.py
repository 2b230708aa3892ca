# SPDX-License-Identifier: MIT
"""Bad input from Python: each case a clear exception, never a crash, the
World left as it was. Library checks reach Python with the library's own
message (glcollide.InvalidInput, also a ValueError; FileError, also an
OSError); the module's own checks of shapes and dtypes name the argument."""

import math

import numpy as np
import pytest

import glcollide

BOX_V, BOX_F = glcollide.box_mesh(0.5, 0.5, 0.5)


@pytest.fixture
def world():
    w = glcollide.World()
    m = w.add_mesh(BOX_V, BOX_F)
    w.add_object(m, (0, 0, 0))
    w.add_object(m, (2, 0, 0))
    return w


def test_vertices_of_the_wrong_shape(world):
    with pytest.raises(glcollide.InvalidInput, match=r"vertices: expected shape \(n, 3\), got \(8, 2\)"):
        world.add_mesh(BOX_V[:, :2], BOX_F)
    with pytest.raises(ValueError, match=r"vertices: expected shape \(n, 3\), got \(24,\)"):
        world.add_mesh(BOX_V.ravel(), BOX_F)
    with pytest.raises(glcollide.InvalidInput, match="vertices: not an array of numbers"):
        world.add_mesh([[0, 0, 0], [1, 1]], BOX_F)
    assert world.mesh_count == 1


def test_faces_of_the_wrong_shape_or_dtype(world):
    with pytest.raises(glcollide.InvalidInput, match=r"faces: expected shape \(n, 3\), got \(12, 4\)"):
        world.add_mesh(BOX_V, np.hstack([BOX_F, BOX_F[:, :1]]))
    with pytest.raises(TypeError, match="faces: expected integer vertex indices, got dtype numpy.float64"):
        world.add_mesh(BOX_V, BOX_F.astype(np.float64))
    with pytest.raises(TypeError, match="vertices: expected real numbers, got dtype numpy.complex128"):
        world.add_mesh(BOX_V.astype(np.complex128), BOX_F)
    with pytest.raises(TypeError):
        world.add_mesh(np.array([["a", "b", "c"]]), BOX_F)


def test_face_index_out_of_range(world):
    faces = BOX_F.copy()
    faces[1, 2] = 8
    with pytest.raises(glcollide.InvalidInput, match="world: mesh 1: triangle 1 uses vertex 8 of 8") as info:
        world.add_mesh(BOX_V, faces)
    assert info.value.status == -5 and info.value.status_name == "invalid mesh"
    negative = BOX_F.astype(np.int64)
    negative[3, 0] = -1
    with pytest.raises(glcollide.InvalidInput, match="faces: face 3 has vertex index -1, outside 0..4294967295"):
        world.add_mesh(BOX_V, negative)
    huge = BOX_F.astype(np.uint64)
    huge[2, 1] = 2**32
    with pytest.raises(glcollide.InvalidInput, match="faces: face 2 has vertex index 4294967296"):
        world.add_mesh(BOX_V, huge)
    assert world.mesh_count == 1


def test_nan_and_infinite_coordinates(world):
    vertices = BOX_V.copy()
    vertices[5, 1] = math.nan
    with pytest.raises(glcollide.InvalidInput, match="world: mesh 1: vertex 5 has a non-finite coordinate"):
        world.add_mesh(vertices, BOX_F)
    with pytest.raises(glcollide.InvalidInput, match="world: object translation is not finite"):
        world.add_object(0, (0, math.inf, 0))
    with pytest.raises(glcollide.InvalidInput, match=r"world: object rotation \(nan 0 0 0\) is not a unit quaternion"):
        world.set_pose(0, (0, 0, 0), (math.nan, 0, 0, 0))
    assert world.object_count == 2


def test_rotations_within_1e6_of_unit_are_normalised_others_refused(world):
    world.set_pose(0, (0, 0, 0), (1 + 5e-7, 0, 0, 0))
    assert world.poses()[1][0, 3] == 1.0
    with pytest.raises(glcollide.InvalidInput, match=r"world: object rotation \(2 0 0 0\) is not a unit quaternion"):
        world.add_object(0, (0, 0, 0), (2, 0, 0, 0))
    with pytest.raises(glcollide.InvalidInput, match=r"rotation_wxyz: expected 4 numbers, got shape \(3,\)"):
        world.add_object(0, (0, 0, 0), (1, 0, 0))
    with pytest.raises(glcollide.InvalidInput, match=r"translation: expected 3 numbers, got shape \(2,\)"):
        world.add_object(0, (0, 0))


def test_set_poses_all_or_nothing(world):
    before = world.poses()[1]
    poses = np.array([[5, 0, 0, 1, 0, 0, 0], [6, 0, 0, 0.5, 0, 0, 0]], dtype=np.float64)
    with pytest.raises(glcollide.InvalidInput, match=r"set_poses: row 1 \(object 0\): world: object rotation \(0.5 0 0 0\) is not a unit quaternion"):
        world.set_poses([1, 0], poses)
    assert np.array_equal(world.poses()[1], before)
    with pytest.raises(glcollide.InvalidInput, match=r"set_poses: 2 objects but 1 poses"):
        world.set_poses([0, 1], poses[:1])
    with pytest.raises(glcollide.InvalidInput, match=r"set_poses: poses: expected shape \(n, 7\), got \(2, 6\)"):
        world.set_poses([0, 1], poses[:, :6])
    with pytest.raises(glcollide.InvalidInput, match=r"set_poses: objects: no object 2 \(2 objects\)"):
        world.set_poses([0, 2], poses)
    with pytest.raises(glcollide.InvalidInput, match=r"set_poses: objects: no object -1 \(2 objects\)"):
        world.set_poses([-1, 0], poses)
    with pytest.raises(TypeError, match="set_poses: objects: expected integer object indices"):
        world.set_poses([0.0, 1.0], poses)
    assert np.array_equal(world.poses()[1], before)


def test_unknown_meshes_and_objects(world):
    with pytest.raises(glcollide.InvalidInput, match=r"no mesh 3 \(1 meshes\)"):
        world.add_object(3)
    with pytest.raises(glcollide.InvalidInput, match=r"no mesh -1 \(1 meshes\)"):
        world.add_object(-1)
    with pytest.raises(glcollide.InvalidInput, match=r"contacts: no object 9 \(2 objects\)"):
        world.contacts(0, 9)
    with pytest.raises(glcollide.InvalidInput, match=r"set_pose: no object -3 \(2 objects\)"):
        world.set_pose(-3, (0, 0, 0), (1, 0, 0, 0))
    with pytest.raises(glcollide.InvalidInput, match="world: contacts: object 1 with itself"):
        world.contacts(1, 1)
    with pytest.raises(glcollide.InvalidInput, match="contacts: max_contacts must be >= 0, got -1"):
        world.contacts(0, 1, max_contacts=-1)
    with pytest.raises(TypeError):
        world.contacts("a", 1)


def test_query_options(world):
    with pytest.raises(glcollide.InvalidInput, match="query: unknown method 'fast'"):
        world.query(method="fast")
    with pytest.raises(glcollide.InvalidInput, match="query: unknown level 'faces' \\(objects or triangles\\)"):
        world.query(level="faces")
    with pytest.raises(glcollide.InvalidInput, match="query: distance must be finite and >= 0, got -1"):
        world.query(distance=-1)
    with pytest.raises(glcollide.InvalidInput, match="query: distance must be finite and >= 0, got nan"):
        world.query(distance=math.nan)
    with pytest.raises(glcollide.InvalidInput, match="query: resolution 3 outside 16..16384"):
        world.query(method="sap", resolution=3)
    with pytest.raises(glcollide.InvalidInput, match="pairs object 0 with itself"):
        world.query(pairs=[[0, 0]])
    with pytest.raises(glcollide.InvalidInput, match="beyond the world's"):
        world.query(pairs=[[0, 99]])
    with pytest.raises(glcollide.InvalidInput, match="outside 0..4294967295"):
        world.query(pairs=[[0, -1]])
    with pytest.raises(glcollide.InvalidInput, match=r"expected shape \(n, 2\)"):
        world.query(pairs=[[0, 1, 2]])
    with pytest.raises(TypeError, match="integer object indices"):
        world.query(pairs=[[0.5, 1]])


def test_files(tmp_path):
    with pytest.raises(glcollide.FileError, match="nothing.off: cannot open") as info:
        glcollide.load_mesh(str(tmp_path / "nothing.off"))
    assert isinstance(info.value, OSError) and info.value.status == -3
    bad = tmp_path / "bad.off"
    bad.write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n")
    with pytest.raises(glcollide.InvalidInput, match="bad.off:6"):
        glcollide.load_mesh(str(bad))
    with pytest.raises(glcollide.InvalidInput, match="scale"):
        glcollide.load_mesh(str(bad), scale=-1)
    scene = tmp_path / "bad.scene"
    scene.write_text("object 3 0 0 0 1 0 0 0\n")
    with pytest.raises(glcollide.InvalidInput, match="bad.scene:1: object refers to mesh 3"):
        glcollide.load_scene(str(scene))
    with pytest.raises(glcollide.FileError, match="no-such-mesh.off"):
        glcollide.find_data_mesh("no-such-mesh.off")


def test_generators(world):
    with pytest.raises(glcollide.InvalidInput):
        glcollide.sphere_mesh(1.0, 2, 2)
    with pytest.raises(glcollide.InvalidInput):
        glcollide.box_mesh(-1, 1, 1)


def test_manager_unknown_names_and_bad_transforms():
    manager = glcollide.CollisionManager()
    manager.add_object("box", (BOX_V, BOX_F))
    with pytest.raises(ValueError, match="cup not in collision manager!"):
        manager.remove_object("cup")
    with pytest.raises(ValueError, match="cup not in collision manager!"):
        manager.set_transform("cup", np.eye(4))
    with pytest.raises(glcollide.InvalidInput, match=r"transform must be \(4, 4\), got shape \(3, 3\)"):
        manager.set_transform("box", np.eye(3))
    scaled = np.diag([2.0, 2.0, 2.0, 1.0])
    with pytest.raises(glcollide.InvalidInput, match="the rotation part is not a rotation"):
        manager.add_object("big", (BOX_V, BOX_F), scaled)
    mirrored = np.diag([-1.0, 1.0, 1.0, 1.0])
    with pytest.raises(glcollide.InvalidInput, match="the rotation part is not a rotation"):
        manager.set_transform("box", mirrored)
    nan = np.eye(4)
    nan[0, 3] = math.nan
    with pytest.raises(glcollide.InvalidInput, match="transform is not finite"):
        manager.in_collision_single((BOX_V, BOX_F), nan)
    with pytest.raises(TypeError, match="mesh: expected an object with .vertices and .faces"):
        manager.add_object("thing", 42)
    bad_faces = BOX_F.copy()
    bad_faces[0, 0] = 99
    with pytest.raises(glcollide.InvalidInput, match="triangle 0 uses vertex 99 of 8"):
        manager.add_object("broken", (BOX_V, bad_faces))
    # nothing of the failed calls stayed
    assert manager.in_collision_internal() is False
    assert manager._world.object_count == 1
