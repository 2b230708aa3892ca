/* SPDX-License-Identifier: MIT */
/*
 * PNG without zlib: the image data goes in stored (uncompressed) deflate
 * blocks, which every PNG reader accepts. Files are larger than compressed
 * ones; the demos write one image per run.
 */
#include "png.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc_update(uint32_t crc, const unsigned char *data, size_t size)
{
    for (size_t i = 0; i < size; i++)
        crc = crc_table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
    return crc;
}

static void put32(unsigned char *out, uint32_t v)
{
    out[0] = (unsigned char)(v >> 24);
    out[1] = (unsigned char)(v >> 16);
    out[2] = (unsigned char)(v >> 8);
    out[3] = (unsigned char)v;
}

static int write_chunk(FILE *file, const char *type, const unsigned char *data, size_t size)
{
    unsigned char head[8];
    put32(head, (uint32_t)size);
    memcpy(head + 4, type, 4);
    uint32_t crc = crc_update(0xffffffffu, head + 4, 4);
    crc = crc_update(crc, data, size) ^ 0xffffffffu;
    unsigned char tail[4];
    put32(tail, crc);
    return fwrite(head, 1, 8, file) == 8 && (size == 0 || fwrite(data, 1, size, file) == size) &&
                   fwrite(tail, 1, 4, file) == 4
               ? 0
               : -1;
}

int demo_png_write(const char *path, const unsigned char *pixels, int width, int height,
                   int channels)
{
    crc_init();
    size_t row = (size_t)width * (size_t)channels + 1; /* filter byte + pixels */
    size_t raw_size = row * (size_t)height;
    size_t blocks = (raw_size + 65534) / 65535;
    size_t zsize = 2 + blocks * 5 + raw_size + 4;
    unsigned char *raw = malloc(raw_size), *z = malloc(zsize);
    int status = -1;
    if (!raw || !z)
        goto done;
    for (int y = 0; y < height; y++) {
        raw[(size_t)y * row] = 0; /* filter: none */
        memcpy(raw + (size_t)y * row + 1, pixels + (size_t)y * (row - 1), row - 1);
    }
    size_t o = 0;
    z[o++] = 0x78; /* deflate, 32K window */
    z[o++] = 0x01;
    uint32_t a = 1, b = 0;
    for (size_t done_bytes = 0; done_bytes < raw_size;) {
        size_t n = raw_size - done_bytes < 65535 ? raw_size - done_bytes : 65535;
        z[o++] = done_bytes + n == raw_size; /* BFINAL, stored */
        z[o++] = (unsigned char)(n & 0xff);
        z[o++] = (unsigned char)(n >> 8);
        z[o++] = (unsigned char)(~n & 0xff);
        z[o++] = (unsigned char)((~n >> 8) & 0xff);
        memcpy(z + o, raw + done_bytes, n);
        for (size_t i = 0; i < n; i++) {
            a = (a + raw[done_bytes + i]) % 65521u;
            b = (b + a) % 65521u;
        }
        o += n;
        done_bytes += n;
    }
    put32(z + o, (b << 16) | a);
    o += 4;
    FILE *file = fopen(path, "wb");
    if (!file)
        goto done;
    unsigned char header[13];
    put32(header, (uint32_t)width);
    put32(header + 4, (uint32_t)height);
    header[8] = 8;                         /* bit depth */
    header[9] = channels == 4 ? 6 : 2;     /* RGBA or RGB */
    header[10] = header[11] = header[12] = 0;
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    status = fwrite(signature, 1, 8, file) == 8 && write_chunk(file, "IHDR", header, 13) == 0 &&
                     write_chunk(file, "IDAT", z, o) == 0 && write_chunk(file, "IEND", NULL, 0) == 0
                 ? 0
                 : -1;
    if (fclose(file) != 0)
        status = -1;
done:
    free(raw);
    free(z);
    return status;
}
