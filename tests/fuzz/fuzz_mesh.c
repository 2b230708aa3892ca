/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the mesh loaders (make fuzz): the first byte picks
 * the format (bits 0-1: auto, OFF, OBJ, STL) and a scale (bits 2-3: 1, 0.5,
 * 1e-300, 1e300; '0' to '3' are the formats at scale 1, so that the seeds
 * are text), the rest is the file. A mesh that loads is validated and, when
 * small, tested for self-intersections, so that the geometry behind the
 * loaders sees whatever the loaders let through. Any crash, leak or
 * undefined behaviour is a bug; refusals are fine.
 */
#include "mesh/mesh_text.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const double scales[4] = {1.0, 0.5, 1e-300, 1e300};
    if (size < 1)
        return 0;
    glcollide_mesh_format format = (glcollide_mesh_format)(data[0] & 3);
    double scale = scales[(data[0] >> 2) & 3];
    glcollide_mesh *mesh = NULL;
    if (glcollide_mesh_parse(data + 1, size - 1, format, "fuzz", scale, &mesh) != GLCOLLIDE_OK)
        return 0;
    glcollide_mesh_report report;
    glcollide_mesh_validate(mesh, &report);
    if (mesh->triangle_count <= 256) {
        size_t count = 0;
        uint32_t first[2];
        glcollide_mesh_self_intersections(mesh, &count, first);
    }
    glcollide_mesh_destroy(&mesh);
    return 0;
}
