/* SPDX-License-Identifier: MIT */
/* Saving and restoring the GL state glcollide's passes touch. */
#include "gpu/gl_internal.h"

#include <string.h>

static GLboolean enabled(GLenum cap)
{
    return glIsEnabled(cap);
}

static void set_enabled(GLenum cap, GLboolean on)
{
    if (on)
        glEnable(cap);
    else
        glDisable(cap);
}

void glcollide_gl_state_save(glcollide_gl_state *s)
{
    memset(s, 0, sizeof *s); /* padding too: states are compared with memcmp in tests */
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s->draw_framebuffer);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s->read_framebuffer);
    glGetIntegerv(GL_RENDERBUFFER_BINDING, &s->renderbuffer);
    glGetIntegerv(GL_VIEWPORT, s->viewport);
    glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &s->vertex_array);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &s->array_buffer);
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s->shader_storage_buffer);
    glGetIntegerv(GL_ATOMIC_COUNTER_BUFFER_BINDING, &s->atomic_counter_buffer);
    glGetIntegerv(GL_DRAW_INDIRECT_BUFFER_BINDING, &s->draw_indirect_buffer);
    glGetIntegerv(GL_DISPATCH_INDIRECT_BUFFER_BINDING, &s->dispatch_indirect_buffer);
    s->query_buffer = 0;
    if (epoxy_gl_version() >= 44 || epoxy_has_gl_extension("GL_ARB_query_buffer_object"))
        glGetIntegerv(GL_QUERY_BUFFER_BINDING, &s->query_buffer);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &s->pixel_pack_buffer);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &s->pixel_unpack_buffer);
    glGetIntegerv(GL_PACK_ALIGNMENT, &s->pack_alignment);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &s->unpack_alignment);
    s->depth_test = enabled(GL_DEPTH_TEST);
    s->stencil_test = enabled(GL_STENCIL_TEST);
    s->cull_face = enabled(GL_CULL_FACE);
    s->blend = enabled(GL_BLEND);
    s->scissor_test = enabled(GL_SCISSOR_TEST);
    s->polygon_offset_fill = enabled(GL_POLYGON_OFFSET_FILL);
    s->depth_clamp = enabled(GL_DEPTH_CLAMP);
    s->rasterizer_discard = enabled(GL_RASTERIZER_DISCARD);
    s->multisample = enabled(GL_MULTISAMPLE);
    glGetIntegerv(GL_DEPTH_FUNC, &s->depth_func);
    glGetBooleanv(GL_DEPTH_WRITEMASK, &s->depth_mask);
    glGetBooleanv(GL_COLOR_WRITEMASK, s->color_mask);
    static const GLenum func[2] = {GL_STENCIL_FUNC, GL_STENCIL_BACK_FUNC};
    static const GLenum ref[2] = {GL_STENCIL_REF, GL_STENCIL_BACK_REF};
    static const GLenum value_mask[2] = {GL_STENCIL_VALUE_MASK, GL_STENCIL_BACK_VALUE_MASK};
    static const GLenum writemask[2] = {GL_STENCIL_WRITEMASK, GL_STENCIL_BACK_WRITEMASK};
    static const GLenum fail[2] = {GL_STENCIL_FAIL, GL_STENCIL_BACK_FAIL};
    static const GLenum zfail[2] = {GL_STENCIL_PASS_DEPTH_FAIL, GL_STENCIL_BACK_PASS_DEPTH_FAIL};
    static const GLenum zpass[2] = {GL_STENCIL_PASS_DEPTH_PASS, GL_STENCIL_BACK_PASS_DEPTH_PASS};
    for (int face = 0; face < 2; face++) {
        glGetIntegerv(func[face], &s->stencil_func[face]);
        glGetIntegerv(ref[face], &s->stencil_ref[face]);
        glGetIntegerv(value_mask[face], &s->stencil_value_mask[face]);
        glGetIntegerv(writemask[face], &s->stencil_writemask[face]);
        glGetIntegerv(fail[face], &s->stencil_fail[face]);
        glGetIntegerv(zfail[face], &s->stencil_pass_depth_fail[face]);
        glGetIntegerv(zpass[face], &s->stencil_pass_depth_pass[face]);
    }
    glGetIntegerv(GL_CULL_FACE_MODE, &s->cull_face_mode);
    glGetIntegerv(GL_FRONT_FACE, &s->front_face);
    glGetFloatv(GL_POLYGON_OFFSET_FACTOR, &s->polygon_offset_factor);
    glGetFloatv(GL_POLYGON_OFFSET_UNITS, &s->polygon_offset_units);
    glGetFloatv(GL_COLOR_CLEAR_VALUE, s->clear_color);
    glGetFloatv(GL_DEPTH_CLEAR_VALUE, &s->clear_depth);
    glGetIntegerv(GL_STENCIL_CLEAR_VALUE, &s->clear_stencil);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active_texture);
    GLint modes[2] = {GL_FILL, GL_FILL};
    glGetIntegerv(GL_POLYGON_MODE, modes);
    s->polygon_mode = modes[0];
    for (GLuint i = 0; i < GLCOLLIDE_GL_SSBO_BINDINGS; i++) {
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &s->ssbo_binding[i]);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &s->ssbo_start[i]);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &s->ssbo_size[i]);
    }
}

void glcollide_gl_state_restore(const glcollide_gl_state *s)
{
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)s->draw_framebuffer);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)s->read_framebuffer);
    glBindRenderbuffer(GL_RENDERBUFFER, (GLuint)s->renderbuffer);
    glViewport(s->viewport[0], s->viewport[1], s->viewport[2], s->viewport[3]);
    glUseProgram((GLuint)s->program);
    glBindVertexArray((GLuint)s->vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, (GLuint)s->array_buffer);
    /* Indexed bindings first: glBindBufferBase also sets the generic binding. */
    for (GLuint i = 0; i < GLCOLLIDE_GL_SSBO_BINDINGS; i++) {
        if (s->ssbo_binding[i] && s->ssbo_size[i] > 0)
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, i, (GLuint)s->ssbo_binding[i],
                              (GLintptr)s->ssbo_start[i], (GLsizeiptr)s->ssbo_size[i]);
        else
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, (GLuint)s->ssbo_binding[i]);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)s->shader_storage_buffer);
    glBindBuffer(GL_ATOMIC_COUNTER_BUFFER, (GLuint)s->atomic_counter_buffer);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, (GLuint)s->draw_indirect_buffer);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, (GLuint)s->dispatch_indirect_buffer);
    if (epoxy_gl_version() >= 44 || epoxy_has_gl_extension("GL_ARB_query_buffer_object"))
        glBindBuffer(GL_QUERY_BUFFER, (GLuint)s->query_buffer);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)s->pixel_pack_buffer);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)s->pixel_unpack_buffer);
    glPixelStorei(GL_PACK_ALIGNMENT, s->pack_alignment);
    glPixelStorei(GL_UNPACK_ALIGNMENT, s->unpack_alignment);
    set_enabled(GL_DEPTH_TEST, s->depth_test);
    set_enabled(GL_STENCIL_TEST, s->stencil_test);
    set_enabled(GL_CULL_FACE, s->cull_face);
    set_enabled(GL_BLEND, s->blend);
    set_enabled(GL_SCISSOR_TEST, s->scissor_test);
    set_enabled(GL_POLYGON_OFFSET_FILL, s->polygon_offset_fill);
    set_enabled(GL_DEPTH_CLAMP, s->depth_clamp);
    set_enabled(GL_RASTERIZER_DISCARD, s->rasterizer_discard);
    set_enabled(GL_MULTISAMPLE, s->multisample);
    glDepthFunc((GLenum)s->depth_func);
    glDepthMask(s->depth_mask);
    glColorMask(s->color_mask[0], s->color_mask[1], s->color_mask[2], s->color_mask[3]);
    static const GLenum faces[2] = {GL_FRONT, GL_BACK};
    for (int face = 0; face < 2; face++) {
        glStencilFuncSeparate(faces[face], (GLenum)s->stencil_func[face], s->stencil_ref[face],
                              (GLuint)s->stencil_value_mask[face]);
        glStencilMaskSeparate(faces[face], (GLuint)s->stencil_writemask[face]);
        glStencilOpSeparate(faces[face], (GLenum)s->stencil_fail[face],
                            (GLenum)s->stencil_pass_depth_fail[face],
                            (GLenum)s->stencil_pass_depth_pass[face]);
    }
    glCullFace((GLenum)s->cull_face_mode);
    glFrontFace((GLenum)s->front_face);
    glPolygonOffset(s->polygon_offset_factor, s->polygon_offset_units);
    glClearColor(s->clear_color[0], s->clear_color[1], s->clear_color[2], s->clear_color[3]);
    glClearDepth(s->clear_depth);
    glClearStencil(s->clear_stencil);
    glActiveTexture((GLenum)s->active_texture);
    glPolygonMode(GL_FRONT_AND_BACK, (GLenum)s->polygon_mode);
}

void glcollide_gl_state_reset(void)
{
    /* Only what a pass could inherit and be changed by; bindings are set by
     * each pass itself. */
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glDisable(GL_DEPTH_CLAMP);
    glDisable(GL_RASTERIZER_DISCARD);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glStencilMask(0xffffffffu);
    glStencilFunc(GL_ALWAYS, 0, 0xffffffffu);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glFrontFace(GL_CCW);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}
