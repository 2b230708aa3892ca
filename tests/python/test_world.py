# SPDX-License-Identifier: MIT
"""glcollide.World against the C library's own answers: glcollide-query on
the same scene files (tests/scenes and random worlds), at objects and
triangles level, exact and sap, with and without a distance; the batched
poses against one pose at a time; contacts on analytic cases; arrays handed
over without copies; the GIL released while a query runs."""

import math
import threading
import time

import numpy as np
import pytest
from conftest import random_quaternion, random_scene, run_query, world_of_scene

import glcollide



def sorted_rows(rows):
    return np.array(sorted(rows.tolist()), dtype=np.uint32).reshape(-1, rows.shape[1])


@pytest.mark.parametrize("method", ["exact", "sap"])
def test_query_equals_glcollide_query_on_scenes(scenes, method):
    assert scenes
    for scene in scenes:
        world = world_of_scene(scene)
        pairs, triangles, _ = run_query(scene, "--method", method, "--level", "triangles")
        assert np.array_equal(world.query(method=method), pairs)
        assert np.array_equal(sorted_rows(world.query(method=method, level="triangles")),
                              triangles)


@pytest.mark.parametrize("seed", range(6))
def test_query_equals_glcollide_query_on_random_worlds(tmp_path, seed):
    rng = np.random.default_rng(seed)
    scene = random_scene(str(tmp_path), rng)
    world = world_of_scene(scene)
    for options in ([], ["--level", "triangles"], ["--distance", "0.05"],
                    ["--method", "sap", "--level", "triangles"]):
        pairs, triangles, _ = run_query(scene, *options)
        kwargs = {"method": "sap"} if "sap" in options else {}
        if "--distance" in options:
            kwargs["distance"] = 0.05
        assert np.array_equal(world.query(**kwargs), pairs), options
        if "triangles" in options:
            assert np.array_equal(sorted_rows(world.query(level="triangles", **kwargs)),
                                  triangles), options


@pytest.mark.parametrize("level", ["objects", "triangles"])
def test_query_on_pairs_given(tmp_path, level):
    """pairs= (an allowed-collision list, a broad phase of one's own): the
    answer among those pairs, whatever their order, orientation or repeats."""
    rng = np.random.default_rng(11)
    scene = random_scene(str(tmp_path), rng, objects=24)
    world = world_of_scene(scene)
    everything = world.query(level=level)
    count = world.object_count
    given = [(b, a) if (a + b) % 2 else (a, b)
             for a in range(count) for b in range(a + 1, count) if (3 * a + b) % 4 != 1]
    rng.shuffle(given)
    given = given + given[:5]
    answer = world.query(level=level, pairs=np.array(given))
    wanted = {(min(a, b), max(a, b)) for a, b in given}
    columns = [0, 2] if level == "triangles" else [0, 1]
    keep = np.array([(row[columns[0]], row[columns[1]]) in wanted for row in everything.tolist()],
                    dtype=bool)
    assert len(everything) > len(answer) > 0
    assert np.array_equal(answer, everything[keep])
    assert world.query(pairs=[]).shape == (0, 2)


def test_query_follows_poses_as_a_fresh_scene(tmp_path):
    """Moved objects answer as a scene file of the moved poses does."""
    rng = np.random.default_rng(7)
    scene = random_scene(str(tmp_path), rng, objects=16)
    world = world_of_scene(scene)
    meshes, _, _ = glcollide.load_scene(scene)
    for frame in range(3):
        count = world.object_count
        poses = np.hstack([rng.uniform(0, 2.5, size=(count, 3)),
                           np.array([random_quaternion(rng) for _ in range(count)])])
        world.set_poses(np.arange(count), poses)
        mesh_of, now = world.poses()
        lines = [line for line in open(scene) if line.startswith("mesh")]
        lines += ["object %d %s\n" % (m, " ".join("%.17g" % x for x in p))
                  for m, p in zip(mesh_of, now)]
        moved = tmp_path / ("moved%d.scene" % frame)
        moved.write_text("".join(lines))
        pairs, _, _ = run_query(str(moved))
        assert np.array_equal(world.query(), pairs)


def test_set_poses_equals_set_pose():
    vertices, faces = glcollide.box_mesh(0.5, 0.5, 0.5)
    rng = np.random.default_rng(3)
    a, b = glcollide.World(), glcollide.World()
    for w in (a, b):
        m = w.add_mesh(vertices, faces)
        for _ in range(20):
            w.add_object(m)
    poses = np.hstack([rng.uniform(0, 3, size=(20, 3)),
                       np.array([random_quaternion(rng) for _ in range(20)])])
    order = rng.permutation(20)
    a.set_poses(order, poses[order])
    for i in range(20):
        b.set_pose(i, poses[i, :3], poses[i, 3:])
    assert np.array_equal(a.poses()[1], b.poses()[1])
    assert np.array_equal(a.query(), b.query())
    assert len(a.query()) > 0


def test_load_mesh_arrays_own_the_library_buffers():
    vertices, faces = glcollide.load_mesh(glcollide.find_data_mesh("bunny00.off"))
    assert vertices.dtype == np.float64 and vertices.shape == (37706, 3)
    assert faces.dtype == np.uint32 and faces.shape == (75408, 3)
    assert vertices.flags.c_contiguous and faces.flags.c_contiguous
    assert type(vertices.base).__name__ == "PyCapsule"
    assert faces.max() < len(vertices)


def test_arrays_that_fit_are_not_copied():
    vertices, faces = glcollide.box_mesh(1, 1, 1)
    world = glcollide.World()
    m = world.add_mesh(vertices, faces)
    held_v, held_f = world.mesh_arrays(m)
    assert held_v is vertices and held_f is faces
    # int64 faces (trimesh's) and float32 vertices: one converting copy each
    m = world.add_mesh(vertices.astype(np.float32), faces.astype(np.int64))
    held_v, held_f = world.mesh_arrays(m)
    assert held_v.dtype == np.float64 and held_f.dtype == np.uint32
    assert np.array_equal(held_f, faces)
    # a strided view is copied into a C-contiguous array
    wide = np.zeros((len(vertices), 6))
    wide[:, ::2] = vertices
    m = world.add_mesh(wide[:, ::2], faces)
    assert world.mesh_arrays(m)[0].flags.c_contiguous


def test_deforming_mesh_follows_mesh_changed():
    vertices, faces = glcollide.box_mesh(0.5, 0.5, 0.5)
    vertices = vertices.copy()
    world = glcollide.World()
    m = world.add_mesh(vertices, faces)
    world.add_object(m, (0, 0, 0))
    world.add_object(m, (1.5, 0, 0))
    assert len(world.query()) == 0
    vertices *= 2.0  # in place: the World reads this array
    world.mesh_changed(m)
    assert world.query().tolist() == [[0, 1]]


def box_world(gap):
    """Two unit cubes (half side 0.5), the second above the first by 1 + gap."""
    vertices, faces = glcollide.box_mesh(0.5, 0.5, 0.5)
    world = glcollide.World()
    m = world.add_mesh(vertices, faces)
    world.add_object(m, (0, 0, 0))
    world.add_object(m, (0, 0, 1.0 + gap))
    return world


def test_contacts_box_resting_in_box():
    world = box_world(-0.1)
    points, normals, depths, triangles = world.contacts(0, 1, return_triangles=True)
    assert points.shape == (4, 3) and normals.shape == (4, 3) and depths.shape == (4,)
    assert triangles.shape == (4, 2) and triangles.dtype == np.uint32
    # normals from b (the upper box) toward a: down
    assert np.allclose(normals, (0, 0, -1), atol=1e-9)
    assert np.allclose(depths, 0.1, atol=1e-9)
    assert np.all(np.abs(points[:, :2]) <= 0.5 + 1e-12)
    # the world's argument order turns the normals
    _, reversed_normals, _ = world.contacts(1, 0)
    assert np.allclose(reversed_normals, (0, 0, 1), atol=1e-9)
    # room for fewer: never more than asked
    assert len(world.contacts(0, 1, max_contacts=2)[2]) == 2


def test_contacts_apart_and_contained():
    world = box_world(0.1)
    points, normals, depths = world.contacts(0, 1)
    assert points.shape == (0, 3) and normals.shape == (0, 3) and depths.shape == (0,)
    vertices, faces = glcollide.box_mesh(0.1, 0.1, 0.1)
    small = world.add_mesh(vertices, faces)
    inner = world.add_object(small, (0.2, 0, 0))
    _, normals, depths = world.contacts(inner, 0)
    assert len(depths) > 0 and np.allclose(normals, (1, 0, 0))
    assert np.allclose(depths, 0.4)


def test_stats_of_the_last_query():
    world = box_world(-0.1)
    world.query()
    stats = world.stats
    assert stats["aabb_pairs"] == 1 and stats["triangle_tests"] > 0
    assert stats["time_ms"] >= 0


def test_gil_released_during_queries():
    """Another thread runs while a query works in C."""
    vertices, faces = glcollide.load_mesh(glcollide.find_data_mesh("bunny00.off"))
    world = glcollide.World()
    m = world.add_mesh(vertices, faces)
    world.add_object(m, (0, 0, 0))
    world.add_object(m, (0.01, 0, 0), (math.cos(0.2), 0, math.sin(0.2), 0))
    world.query()  # the BVH is built
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())

    thread = threading.Thread(target=count)
    thread.start()
    try:
        start = time.perf_counter()
        for _ in range(3):
            world.query(level="triangles")
        end = time.perf_counter()
    finally:
        done.set()
        thread.join()
    during = [t for t in ticks if start < t < end]
    assert len(during) > 100, "the other thread did not run during the queries"


def test_one_world_from_many_threads():
    rng = np.random.default_rng(11)
    vertices, faces = glcollide.sphere_mesh(0.3, 12, 6)
    world = glcollide.World()
    m = world.add_mesh(vertices, faces)
    for _ in range(200):
        world.add_object(m, rng.uniform(0, 4, size=3))
    expected = world.query(level="triangles")
    answers = []

    def ask():
        for _ in range(20):
            answers.append(world.query(level="triangles"))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 80
    assert all(np.array_equal(a, expected) for a in answers)


def test_distance_of_cubes_at_known_gaps():
    for gap in (1e-6, 0.01, 0.25, 3.0):
        world = box_world(gap)
        d, pa, pb = world.distance(0, 1)
        assert d == pytest.approx(gap, rel=1e-12, abs=1e-15)
        assert pa[2] == pytest.approx(0.5) and pb[2] == pytest.approx(0.5 + gap)
        assert np.linalg.norm(pa - pb) == pytest.approx(d, rel=1e-9)
    # turned 45 degrees about z: the gap does not change along z
    world = box_world(0.2)
    world.set_pose(1, (0, 0, 1.2), (math.cos(math.pi / 8), 0, 0, math.sin(math.pi / 8)))
    assert world.distance(0, 1)[0] == pytest.approx(0.2, rel=1e-12)


def test_distance_touching_overlapping_contained():
    world = box_world(-0.1)
    d, pa, pb = world.distance(0, 1)
    assert d == 0 and np.array_equal(pa, pb)
    vertices, faces = glcollide.box_mesh(0.1, 0.1, 0.1)
    inner = world.add_object(world.add_mesh(vertices, faces), (0.2, 0, 0))
    d, pa, pb, (ta, tb) = world.distance(inner, 0, return_triangles=True)
    assert d == 0 and ta is not None and tb is None


def test_distance_upper_bound_and_arguments():
    world = box_world(2.0)
    d, pa, pb, triangles = world.distance(0, 1, upper_bound=0.5, return_triangles=True)
    assert d > 0.5 and np.all(np.isnan(pa)) and triangles == (None, None)
    with pytest.raises(glcollide.InvalidInput, match="upper_bound"):
        world.distance(0, 1, upper_bound=-1)
    with pytest.raises(glcollide.InvalidInput, match=r"distance: no object 5 \(2 objects\)"):
        world.distance(0, 5)


@pytest.mark.parametrize("seed", range(3))
def test_distance_equals_glcollide_query(tmp_path, seed):
    """Every pair glcollide-query --distance D prints, with the same distance."""
    rng = np.random.default_rng(100 + seed)
    scene = random_scene(str(tmp_path), rng, objects=10)
    world = world_of_scene(scene)
    _, _, distances = run_query(scene, "--distance", "0.3")
    assert distances
    listed = {(i, j) for i, j, _ in distances}
    for i, j, d in distances:
        assert world.distance(i, j)[0] == pytest.approx(d, rel=1e-9, abs=1e-12)
    for i in range(world.object_count):
        for j in range(i + 1, world.object_count):
            if (i, j) not in listed:
                assert world.distance(i, j)[0] > 0.3
