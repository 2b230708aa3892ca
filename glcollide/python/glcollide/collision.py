# SPDX-License-Identifier: MIT
"""trimesh's CollisionManager on a glcollide World.

The calls and return shapes are trimesh's (trimesh.collision, which runs on
python-fcl), so that a program switches by changing one import:

    from glcollide import CollisionManager    # was: from trimesh.collision import ...

What differs, because glcollide answers exactly:
- Objects collide when their solids touch: surfaces that meet (exact
  predicates), or, for closed meshes, one inside the other (FCL's mesh
  test reports surface contact only).
- min_distance_* return 0 for objects in collision (never a negative
  penetration depth), math.inf when there is nothing to measure against.
- return_data's contacts are glcollide's contact points (a few per contact
  region, as the ODE plugin gives them), with normals pointing from the
  first named object toward the second, as FCL's do.
- add_object returns None (FCL returns its CollisionObject).
- transform: a 4x4 rigid transform; its rotation part must be a rotation
  (orthonormal within 1e-6, determinant +1): scale or shear raise
  InvalidInput instead of being applied silently.
- A mesh is anything with .vertices and .faces (a trimesh.Trimesh) or a
  (vertices, faces) pair. It is copied when added (later changes to it are
  not seen, as with FCL); adding the same mesh object again reuses the copy.
"""

import math

import numpy as np

from ._glcollide import InvalidInput, World

_IDENTITY_POSE = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])


def pose_from_matrix(transform):
    """A (4, 4) rigid transform as a pose (7,): translation, quaternion w x y z.

    None gives the identity. Raises InvalidInput when it is not (4, 4), not
    finite, its last row is not (0, 0, 0, 1), or its rotation part is not a
    rotation within 1e-6 (orthonormal, determinant +1).
    """
    if transform is None:
        return _IDENTITY_POSE.copy()
    m = np.asarray(transform, dtype=np.float64)
    if m.shape != (4, 4):
        raise InvalidInput("transform must be (4, 4), got shape %s" % (m.shape,))
    if not np.all(np.isfinite(m)):
        raise InvalidInput("transform is not finite")
    if np.max(np.abs(m[3] - (0.0, 0.0, 0.0, 1.0))) > 1e-6:
        raise InvalidInput("transform: last row is %s, not (0, 0, 0, 1)" % (m[3].tolist(),))
    r = m[:3, :3]
    error = np.max(np.abs(r.T @ r - np.eye(3)))
    if error > 1e-6 or np.linalg.det(r) <= 0:
        raise InvalidInput(
            "transform: the rotation part is not a rotation (|R^T R - I| = %.3g, det %.6g): "
            "scale and reflection are not supported" % (error, np.linalg.det(r)))
    pose = np.empty(7)
    pose[:3] = m[:3, 3]
    pose[3:] = _quaternion_from_rotation(r)
    return pose


def _quaternion_from_rotation(r):
    """w x y z of a rotation matrix (world = r @ local), unit length."""
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    if trace > 0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = (0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s)
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = 2.0 * math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        q = ((r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s)
    elif r[1, 1] > r[2, 2]:
        s = 2.0 * math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
        q = ((r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
        q = ((r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s)
    q = np.array(q)
    return q / np.linalg.norm(q)


def matrix_from_pose(pose):
    """The (4, 4) transform of a pose (7,): translation, quaternion w x y z."""
    p = np.asarray(pose, dtype=np.float64)
    if p.shape != (7,):
        raise InvalidInput("pose must have shape (7,), got %s" % (p.shape,))
    w, x, y, z = p[3:] / np.linalg.norm(p[3:])
    m = np.eye(4)
    m[:3, :3] = (
        (1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
        (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
        (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)),
    )
    m[:3, 3] = p[:3]
    return m


def _mesh_arrays(mesh):
    """(vertices, faces) of a mesh argument."""
    if hasattr(mesh, "vertices") and hasattr(mesh, "faces"):
        return mesh.vertices, mesh.faces
    if isinstance(mesh, (tuple, list)) and len(mesh) == 2:
        return mesh[0], mesh[1]
    raise TypeError("mesh: expected an object with .vertices and .faces or a (vertices, faces) "
                    "pair, got %s" % type(mesh).__name__)


class ContactData:
    """One contact point between two objects (trimesh's ContactData)."""

    def __init__(self, names, point, normal, depth, triangles):
        names = tuple(names)
        self.names = set(names)
        self._inds = {names[0]: int(triangles[0]), names[1]: int(triangles[1])}
        self._point = point
        self._normal = normal
        self._depth = float(depth)

    @property
    def point(self):
        """(3,) float: the contact point."""
        return self._point

    @property
    def normal(self):
        """(3,) float: unit normal, from the first named object toward the second."""
        return self._normal

    @property
    def depth(self):
        """float: penetration depth (>= 0)."""
        return self._depth

    def index(self, name):
        """The index of the face in contact of the named object's mesh."""
        return self._inds[name]


class DistanceData:
    """The closest points of two objects (trimesh's DistanceData)."""

    def __init__(self, names, distance, points, triangles):
        names = tuple(names)
        self.names = set(names)
        self._inds = {names[0]: triangles[0], names[1]: triangles[1]}
        self._points = {names[0]: points[0], names[1]: points[1]}
        self._distance = float(distance)

    @property
    def distance(self):
        """float: the distance between the two objects."""
        return self._distance

    def index(self, name):
        """The index of the closest face of the named object's mesh (None for
        the outer object when one contains the other)."""
        return self._inds[name]

    def point(self, name):
        """(3,) float: the closest point on the named object."""
        return self._points[name]


class _Meshes:
    """A World's meshes by the arrays they were made from: the same mesh
    (the same vertices and faces objects, still holding the same numbers)
    is registered once."""

    def __init__(self, world):
        self._world = world
        self._entries = {}

    def index(self, mesh, copy=True):
        vertices, faces = _mesh_arrays(mesh)
        key = (id(vertices), id(faces))
        entry = self._entries.get(key)
        if entry is not None:
            source_v, source_f, held_v, held_f, index = entry
            if not copy or (np.array_equal(held_v, vertices) and np.array_equal(held_f, faces)):
                return index
        held_v = np.array(vertices, dtype=np.float64, order="C", copy=True) if copy else vertices
        held_f = np.array(faces, order="C", copy=True) if copy else faces
        index = self._world.add_mesh(held_v, held_f)
        self._entries[key] = (vertices, faces, held_v, held_f, index)
        return index


class CollisionManager:
    """A mesh-mesh collision manager with trimesh's calls (trimesh.collision)."""

    def __init__(self):
        self._world = World()
        self._meshes = _Meshes(self._world)
        self._names = []  # object index -> name
        self._index = {}  # name -> object index
        self._sources = []  # object index -> the held (vertices, faces), for other managers

    # ------------------------------------------------------------ objects

    def add_object(self, name, mesh, transform=None):
        """Adds an object (replacing one of the same name)."""
        pose = pose_from_matrix(transform)
        mesh_index = self._meshes.index(mesh)
        if name in self._index:
            self.remove_object(name)
        self._world.add_object(mesh_index, pose[:3], pose[3:])
        self._index[name] = len(self._names)
        self._names.append(name)
        self._sources.append(self._world.mesh_arrays(mesh_index))

    def remove_object(self, name):
        """Deletes the named object; ValueError when there is none."""
        if name not in self._index:
            raise ValueError("{} not in collision manager!".format(name))
        i = self._index.pop(name)
        self._keep(np.delete(np.arange(len(self._names)), i))
        del self._names[i]
        del self._sources[i]
        self._index = {n: k for k, n in enumerate(self._names)}

    def set_transform(self, name, transform):
        """Moves the named object; ValueError when there is none."""
        if name not in self._index:
            raise ValueError("{} not in collision manager!".format(name))
        pose = pose_from_matrix(transform)
        self._world.set_pose(self._index[name], pose[:3], pose[3:])

    def _keep(self, rows):
        """Keeps the World's objects at rows (in that order), drops the rest."""
        meshes, poses = self._world.poses()
        self._world.clear_objects()
        self._world.add_objects(meshes[rows], poses[rows])

    def _with_extra(self, meshes, poses):
        """Appends objects after the manager's own (removed by _drop_extra)."""
        self._world.add_objects(meshes, poses)

    def _drop_extra(self):
        n = len(self._names)
        if self._world.object_count > n:
            self._keep(np.arange(n))

    def _probe(self, mesh, transform):
        """The single object of *_single calls, added after the others."""
        pose = pose_from_matrix(transform)
        self._with_extra([self._meshes.index(mesh)], pose[None, :])
        return len(self._names)

    def _other_objects(self, other):
        """other's objects added after this manager's own; their first index."""
        meshes = [self._meshes.index(source, copy=False) for source in other._sources]
        _, poses = other._world.poses()
        self._with_extra(np.asarray(meshes, dtype=np.int64), poses[: len(other._names)])
        return len(self._names)

    # ------------------------------------------------------------ collisions

    def _contacts(self, a, b, names):
        """ContactData of objects a and b; normals from a toward b."""
        points, normals, depths, triangles = self._world.contacts(a, b, return_triangles=True)
        return [ContactData(names, points[k], -normals[k], depths[k], triangles[k])
                for k in range(len(depths))]

    @staticmethod
    def _answer(result, names, data, return_names, return_data):
        """trimesh's return shapes: result, then names and data as asked."""
        if return_names and return_data:
            return result, names, data
        if return_names:
            return result, names
        if return_data:
            return result, data
        return result

    def in_collision_single(self, mesh, transform=None, return_names=False, return_data=False):
        """Does the mesh at transform collide with any object of the manager?

        Returns is_collision, then the set of names it collides with
        (return_names), then a list of ContactData (return_data).
        """
        probe = self._probe(mesh, transform)
        try:
            pairs = self._world.query()
            hits = pairs[pairs[:, 1] == probe, 0]
            names = {self._names[i] for i in hits} if return_names else set()
            data = []
            if return_data:
                for i in hits:
                    data += self._contacts(int(i), probe, (self._names[i], "__external"))
        finally:
            self._drop_extra()
        return self._answer(len(hits) > 0, names, data, return_names, return_data)

    def in_collision_internal(self, return_names=False, return_data=False):
        """Do any two objects of the manager collide?

        Returns is_collision, then the set of colliding pairs of names, each
        in sorted order (return_names), then a list of ContactData
        (return_data).
        """
        self._drop_extra()
        pairs = self._world.query()
        if not (return_names or return_data):
            return len(pairs) > 0
        names, data = set(), []
        for i, j in pairs.tolist():
            pair = (self._names[i], self._names[j])
            if return_names:
                names.add(tuple(sorted(pair)))
            if return_data:
                data += self._contacts(i, j, pair)
        return self._answer(len(pairs) > 0, names, data, return_names, return_data)

    def in_collision_other(self, other_manager, return_names=False, return_data=False):
        """Does any object of this manager collide with any of other_manager's?

        Returns is_collision, then the set of (name here, name there) pairs
        (return_names), then a list of ContactData (return_data).
        """
        first = self._other_objects(other_manager)
        try:
            pairs = self._world.query()
            pairs = pairs[(pairs[:, 0] < first) & (pairs[:, 1] >= first)]
            names, data = set(), []
            for i, j in pairs.tolist():
                pair = (self._names[i], other_manager._names[j - first])
                if return_names:
                    names.add(pair)
                if return_data:
                    data += self._contacts(i, j, pair)
        finally:
            self._drop_extra()
        return self._answer(len(pairs) > 0, names, data, return_names, return_data)

    # ------------------------------------------------------------ distances

    def _nearest(self, firsts, seconds):
        """The closest pair among firsts[k], seconds[k]: (distance, a, b, points,
        triangles), pairs taken in order of their boxes' distance and skipped
        once that exceeds the best found; (inf, None, ...) for no pairs."""
        best = (math.inf, None, None, None, None)
        if len(firsts) == 0:
            return best
        boxes = self._world.boxes()
        lo_a, hi_a = boxes[firsts, :3], boxes[firsts, 3:]
        lo_b, hi_b = boxes[seconds, :3], boxes[seconds, 3:]
        gap = np.maximum(0.0, np.maximum(lo_b - hi_a, lo_a - hi_b))
        bound = np.sqrt(np.sum(gap * gap, axis=1))
        bound[~np.isfinite(bound)] = math.inf  # meshes without faces
        for k in np.argsort(bound, kind="stable"):
            if not bound[k] < best[0]:
                break
            a, b = int(firsts[k]), int(seconds[k])
            d, pa, pb, triangles = self._world.distance(a, b, upper_bound=best[0],
                                                        return_triangles=True)
            if d < best[0]:
                best = (d, a, b, (pa, pb), triangles)
                if d == 0:
                    break
        return best

    def min_distance_single(self, mesh, transform=None, return_name=False, return_data=False):
        """The distance from the mesh at transform to the nearest object.

        Returns distance, then the name of the nearest object (return_name),
        then a DistanceData (return_data).
        """
        probe = self._probe(mesh, transform)
        try:
            others = np.arange(probe)
            d, a, _, points, triangles = self._nearest(others, np.full(probe, probe))
        finally:
            self._drop_extra()
        name = self._names[a] if a is not None else None
        data = None
        if return_data and a is not None:
            data = DistanceData((name, "__external"), d, points, triangles)
        return self._answer(d, name, data, return_name, return_data)

    def min_distance_internal(self, return_names=False, return_data=False):
        """The smallest distance between two objects of the manager.

        Returns distance, then the sorted pair of their names (return_names),
        then a DistanceData (return_data).
        """
        self._drop_extra()
        firsts, seconds = np.triu_indices(len(self._names), 1)
        d, a, b, points, triangles = self._nearest(firsts, seconds)
        names = data = None
        if a is not None:
            pair = (self._names[a], self._names[b])
            names = tuple(sorted(pair))
            if return_data:
                data = DistanceData(pair, d, points, triangles)
        return self._answer(d, names, data, return_names, return_data)

    def min_distance_other(self, other_manager, return_names=False, return_data=False):
        """The smallest distance between an object here and one of other_manager's.

        Returns distance, then (name here, name there) (return_names), then
        a DistanceData (return_data).
        """
        first = self._other_objects(other_manager)
        try:
            count = len(other_manager._names)
            firsts = np.repeat(np.arange(first), count)
            seconds = np.tile(np.arange(first, first + count), first)
            d, a, b, points, triangles = self._nearest(firsts, seconds)
        finally:
            self._drop_extra()
        names = data = None
        if a is not None:
            names = (self._names[a], other_manager._names[b - first])
            if return_data:
                data = DistanceData(names, d, points, triangles)
        return self._answer(d, names, data, return_names, return_data)
