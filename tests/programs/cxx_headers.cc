// SPDX-License-Identifier: MIT
// Every public header in one C++ translation unit, compiled and linked
// against both libraries (make check): C++ programs include them as they
// are. Each header is also included first once, so that none depends on
// being included after another.
#include <glcollide/geometry.h>
#include <glcollide/myszkowski.h>
#include <glcollide/particles.h>
#include <glcollide/primitives.h>
#include <glcollide/tetra_tree.h>
#include <glcollide/glcollide.h>
#include <glcollide/ode.h>

#include <cstdio>
#include <cstring>

int main()
{
    // One call into each library and a type of each header, so that the
    // declarations are used, not only parsed.
    const char *ok = glcollide_status_string(GLCOLLIDE_OK);
    glcollide_contact_options contacts = glcollide_contact_default_options();
    glcollide_primitive primitive = glcollide_primitive();
    glcollide_myszkowski_options myszkowski = glcollide_myszkowski_default_options();
    glcollide_particles_settings particles = glcollide_particles_default_settings();
    glcollide_tetra_tree_options tree = glcollide_tetra_tree_default_options();
    glcollide_aabb a = {{0, 0, 0}, {1, 1, 1}}, b = {{1, 1, 1}, {2, 2, 2}};
    int gpu = glcollide_ode_has_gpu();
    if (std::strcmp(ok, glcollide_status_string(0)) != 0 || contacts.points_per_region == 0 ||
        primitive.kind != GLCOLLIDE_PRIMITIVE_PLANE || myszkowski.resolution <= 0 ||
        particles.map_tile <= 0 || tree.max_depth < 0 || !glcollide_aabb_overlap(&a, &b) ||
        gpu != 0) {
        std::printf("FAIL: unexpected defaults\n");
        return 1;
    }
    std::printf("every public header compiles and links in C++\n");
    return 0;
}
