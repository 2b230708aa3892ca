/* SPDX-License-Identifier: MIT */
/*
 * Trimeshes against ODE's primitives: glcollide's colliders for a trimesh
 * with a plane, a box, a sphere, a capsule, a cylinder, and rays.
 *
 * Installed with dSetColliderOverride(dTriMeshClass, class, ...): ODE then
 * calls them with the trimesh first for both argument orders, and for
 * (primitive, trimesh) flips the normals and swaps g1/g2 and side1/side2
 * itself. Contacts come from glcollide_contacts_mesh_primitive on the
 * trimesh's captured object-space mesh and BVH (the primitive is brought
 * into the mesh's frame; the mesh is never transformed): one small manifold
 * per contact region, the count independent of the caller's buffer, side1 =
 * the triangle, side2 = -1 as ODE's own trimesh colliders report. A ray gets
 * ODE's trimesh-ray contract (first contact, back-face culling, closest hit).
 *
 * A trimesh geom with one of ODE's triangle callbacks set
 * (dGeomTriMeshSetCallback, ...ArrayCallback, ...RayCallback) keeps ODE's
 * own collider, which calls them: glcollide would not.
 */
#define _GNU_SOURCE /* dlsym */
#include "plugin.h"

#include <glcollide/primitives.h>

#include <dlfcn.h>
#include <math.h>
#include <string.h>

/* ODE's own colliders, exported by libode (C++) though no header declares
 * them; reversed: ODE registered it as (class, trimesh). */
static const struct {
    int class_id;
    const char *symbol;
    int reversed;
} ode_colliders[] = {
    {dPlaneClass, "_Z20dCollideTrimeshPlaneP6dxGeomS0_iP12dContactGeomi", 0},
    {dBoxClass, "_Z11dCollideBTLP6dxGeomS0_iP12dContactGeomi", 0},
    {dSphereClass, "_Z11dCollideSTLP6dxGeomS0_iP12dContactGeomi", 0},
    {dCapsuleClass, "_Z12dCollideCCTLP6dxGeomS0_iP12dContactGeomi", 0},
    {dCylinderClass, "_Z23dCollideCylinderTrimeshP6dxGeomS0_iP12dContactGeomi", 1},
    {dRayClass, "_Z11dCollideRTLP6dxGeomS0_iP12dContactGeomi", 0},
};
enum { ODE_COLLIDER_COUNT = sizeof ode_colliders / sizeof ode_colliders[0] };

int plugin_primitive_class(int class_id)
{
    for (int i = 0; i < ODE_COLLIDER_COUNT; i++)
        if (ode_colliders[i].class_id == class_id)
            return 1;
    return 0;
}

static dColliderFn *ode_collider(int i)
{
    return (dColliderFn *)dlsym(RTLD_DEFAULT, ode_colliders[i].symbol);
}

void plugin_primitive_install(void)
{
    for (int i = 0; i < ODE_COLLIDER_COUNT; i++)
        dSetColliderOverride(dTriMeshClass, ode_colliders[i].class_id, plugin_primitive_collide);
}

void plugin_primitive_restore(void)
{
    for (int i = 0; i < ODE_COLLIDER_COUNT; i++) {
        dColliderFn *own = ode_collider(i);
        if (!own) {
            glcollide_log(GLCOLLIDE_LOG_WARNING,
                          "ODE plugin: ODE's trimesh collider %s not found: those pairs get no "
                          "contacts from dCollide after the last glcollide_ode_shutdown",
                          ode_colliders[i].symbol);
        }
        if (ode_colliders[i].reversed)
            dSetColliderOverride(ode_colliders[i].class_id, dTriMeshClass, own);
        else
            dSetColliderOverride(dTriMeshClass, ode_colliders[i].class_id, own);
    }
}

/* ODE's own collider for (trimesh, other), arguments in ODE's order for it;
 * 0 contacts when it cannot be found. */
static int ode_collide(dGeomID mesh, dGeomID other, int flags, dContactGeom *contact, int skip)
{
    int class_id = dGeomGetClass(other);
    for (int i = 0; i < ODE_COLLIDER_COUNT; i++) {
        if (ode_colliders[i].class_id != class_id)
            continue;
        dColliderFn *own = ode_collider(i);
        if (!own)
            return 0;
        if (!ode_colliders[i].reversed)
            return own(mesh, other, flags, contact, skip);
        int n = own(other, mesh, flags, contact, skip);
        plugin_contacts_reverse(contact, n, skip);
        return n;
    }
    return 0;
}

/* ------------------------------------------------------------- contacts */

int plugin_primitive_of(dGeomID geom, glcollide_primitive *p)
{
    memset(p, 0, sizeof *p);
    dVector4 plane;
    dVector3 lengths;
    dReal radius, length;
    switch (dGeomGetClass(geom)) {
    case dPlaneClass:
        p->kind = GLCOLLIDE_PRIMITIVE_PLANE;
        dGeomPlaneGetParams(geom, plane);
        for (int k = 0; k < 4; k++)
            p->plane[k] = (double)plane[k];
        return 1; /* not placeable: no pose */
    case dBoxClass:
        p->kind = GLCOLLIDE_PRIMITIVE_BOX;
        dGeomBoxGetLengths(geom, lengths);
        for (int k = 0; k < 3; k++)
            p->size[k] = (double)lengths[k];
        break;
    case dSphereClass:
        p->kind = GLCOLLIDE_PRIMITIVE_SPHERE;
        p->size[0] = (double)dGeomSphereGetRadius(geom);
        break;
    case dCapsuleClass:
        p->kind = GLCOLLIDE_PRIMITIVE_CAPSULE;
        dGeomCapsuleGetParams(geom, &radius, &length);
        p->size[0] = (double)radius;
        p->size[1] = (double)length;
        break;
    case dCylinderClass:
        p->kind = GLCOLLIDE_PRIMITIVE_CYLINDER;
        dGeomCylinderGetParams(geom, &radius, &length);
        p->size[0] = (double)radius;
        p->size[1] = (double)length;
        break;
    default: return 0;
    }
    p->pose = plugin_geom_pose(geom);
    return 1;
}

static int has_triangle_callbacks(dGeomID mesh, int ray)
{
    return dGeomTriMeshGetCallback(mesh) || dGeomTriMeshGetArrayCallback(mesh) ||
           (ray && dGeomTriMeshGetRayCallback(mesh));
}

static glcollide_contact_solid solid_of(const plugin_mesh *m, const glcollide_pose *pose)
{
    return (glcollide_contact_solid){m->mesh, m->bvh, *pose, m->closed};
}

/* ODE's trimesh-ray contract: hits along the ray within its length (all,
 * the closest, or the first found; back faces culled on request); normal
 * against the face (ODE reverses it for (ray, trimesh): the face's), depth
 * the distance from the ray's start. */
static int ray_collide(plugin_scratch *t, const plugin_mesh *m, dGeomID mesh, dGeomID ray,
                       size_t max_contacts, dContactGeom *contact, int skip)
{
    dVector3 origin, direction;
    dGeomRayGet(ray, origin, direction);
    unsigned flags = (dGeomRayGetClosestHit(ray) ? GLCOLLIDE_RAY_CLOSEST : 0) |
                     (dGeomRayGetFirstContact(ray) ? GLCOLLIDE_RAY_FIRST : 0) |
                     (dGeomRayGetBackfaceCull(ray) ? GLCOLLIDE_RAY_CULL_BACKFACES : 0);
    double o[3], d[3];
    for (int k = 0; k < 3; k++) {
        o[k] = (double)origin[k];
        d[k] = (double)direction[k];
    }
    if (plugin_reserve((void **)&t->ray_hits, &t->ray_hit_capacity, max_contacts,
                       sizeof *t->ray_hits) != GLCOLLIDE_OK)
        return 0;
    glcollide_pose pose = plugin_geom_pose(mesh);
    glcollide_contact_solid solid = solid_of(m, &pose);
    size_t count = 0;
    if (glcollide_ray_mesh(&solid, o, d, (double)dGeomRayGetLength(ray), flags, t->ray_hits,
                           max_contacts, &count) != GLCOLLIDE_OK)
        return 0;
    for (size_t i = 0; i < count; i++) {
        dContactGeom *out = (dContactGeom *)((char *)contact + i * (size_t)skip);
        const glcollide_ray_hit *h = &t->ray_hits[i];
        for (int k = 0; k < 3; k++) {
            out->pos[k] = (dReal)h->position[k];
            out->normal[k] = (dReal)-h->normal[k];
        }
        out->pos[3] = out->normal[3] = 0;
        out->depth = (dReal)h->distance;
        out->g1 = mesh;
        out->g2 = ray;
        out->side1 = (int)h->triangle;
        out->side2 = -1;
    }
    return (int)count;
}

int plugin_primitive_served(dGeomID mesh, dGeomID other)
{
    int class_id = dGeomGetClass(other);
    return atomic_load_explicit(&plugin.primitives, memory_order_relaxed) &&
           class_id != dRayClass && plugin_primitive_class(class_id) &&
           !has_triangle_callbacks(mesh, 0);
}

int plugin_primitive_collide(dGeomID mesh, dGeomID other, int flags, dContactGeom *contact,
                             int skip)
{
    if (dGeomGetClass(other) != dRayClass)
        return has_triangle_callbacks(mesh, 0)
                   ? ode_collide(mesh, other, flags, contact, skip)
                   : plugin_pair_collide(PLUGIN_PAIR_PRIMITIVE, mesh, other, flags, contact, skip);
    size_t max_contacts = (size_t)(flags & 0xffff);
    if (has_triangle_callbacks(mesh, 1))
        return ode_collide(mesh, other, flags, contact, skip);
    plugin_thread *t = max_contacts ? plugin_thread_get() : NULL;
    const plugin_mesh *m = t ? plugin_geom_mesh(t, mesh) : NULL;
    if (!m)
        return 0;
    unsigned long long start = plugin_now_ns();
    int count = ray_collide(&t->scratch, m, mesh, other, max_contacts, contact, skip);
    plugin_counters *counters = &plugin.counters;
    plugin_count(&counters->primitive_collides, 1);
    plugin_count(&counters->primitive_contacts, (unsigned long long)count);
    plugin_count(&counters->contact_ns, plugin_now_ns() - start);
    return count;
}

int plugin_primitive_contacts(plugin_scratch *s, const plugin_pair *pair, size_t max,
                              size_t *count)
{
    unsigned long long start = plugin_now_ns();
    *count = 0;
    int status = GLCOLLIDE_OK;
    if (!s->scratch)
        status = glcollide_scratch_create(&s->scratch);
    glcollide_contact_options options = glcollide_contact_default_options();
    options.ranked = 1;
    glcollide_contact_solid solid = solid_of(pair->m1, &pair->pose1);
    if (status == GLCOLLIDE_OK)
        status = glcollide_contacts_mesh_primitive(&solid, &pair->primitive, &options,
                                                   s->contacts, max, count, s->scratch);
    plugin_count(&plugin.counters.contact_ns, plugin_now_ns() - start);
    return status;
}
