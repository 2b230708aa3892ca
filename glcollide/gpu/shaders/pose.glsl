// SPDX-License-Identifier: MIT
// A mesh vertex v placed by a pose record (gpu_mesh.h): R v k + t, R from
// the unit quaternion q (x y z w).
vec3 place_pose(vec4 q, vec3 t, float k, vec3 v)
{
    float x = q.x, y = q.y, z = q.z, w = q.w;
    mat3 m = mat3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y),
                  2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x),
                  2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y));
    return (m * v) * k + t;
}
