/* SPDX-License-Identifier: MIT */
/* A finger (a capsule) comes down on a part (a box), both triangle meshes:
 * how far apart, where they touch. cc example.c $(pkg-config --cflags --libs glcollide) */
#include <glcollide/glcollide.h>

#include <stdio.h>

int main(void)
{
    glcollide_mesh *part = NULL, *finger = NULL;
    glcollide_world *world = NULL;
    uint32_t mesh[2], object[2];
    const double upright[4] = {1, 0, 0, 0}, origin[3] = {0, 0, 0};
    const double heights[3] = {0.32, 0.24, 0.20}; /* the tip 10 cm above the top, 2 above, 2 in */
    int status = glcollide_mesh_generate_box(0.1, 0.1, 0.1, &part); /* half extents */
    status = status ? status : glcollide_mesh_generate_capsule(0.02, 0.1, 16, 4, &finger);
    status = status ? status : glcollide_world_create(&world);
    status = status ? status : glcollide_world_add_mesh(world, part, &mesh[0]);
    status = status ? status : glcollide_world_add_mesh(world, finger, &mesh[1]);
    status =
        status ? status : glcollide_world_add_object(world, mesh[0], origin, upright, &object[0]);
    status =
        status ? status : glcollide_world_add_object(world, mesh[1], origin, upright, &object[1]);
    for (int i = 0; i < 3 && status == GLCOLLIDE_OK; i++) {
        const double at[3] = {0, 0, heights[i]};
        glcollide_distance_result gap;
        glcollide_contact contact[8];
        size_t n = 0;
        status = glcollide_world_set_pose(world, object[1], at, upright);
        status = status ? status : glcollide_world_distance(world, object[0], object[1], 1.0, &gap);
        status =
            status ? status : glcollide_world_contacts(world, object[0], object[1], 8, contact, &n);
        if (status == GLCOLLIDE_OK)
            printf("finger at z %.2f: %zu contacts, distance %.3f\n", at[2], n, gap.distance);
    }
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&finger);
    glcollide_mesh_destroy(&part);
    return status == GLCOLLIDE_OK ? 0 : 1; /* on error the library has logged why */
}
