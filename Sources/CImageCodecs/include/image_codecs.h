#ifndef IMAGE_CODECS_H
#define IMAGE_CODECS_H

#include <stddef.h>
#include <stdint.h>

// JPEG and PNG through Debian's libjpeg-turbo and libpng, for ImagePipeline. libjpeg reports
// errors by longjmp, which Swift cannot catch: every call here catches them and returns a
// status instead (0 success, -1 failure, with a message in `error`, 200 bytes at most).

#define CIC_ERROR_SIZE 200

// The size of a JPEG without decoding its pixels.
int cic_jpeg_size(const uint8_t *data, size_t size, int *width, int *height, char *error);

// Decodes a JPEG scaled by 1/`denominator` (1, 2, 4 or 8: libjpeg's DCT scaling, cheap) into
// `out`, RGB, `out_width` × `out_height` × 3 bytes, which the caller sizes from
// cic_jpeg_scaled_size.
int cic_jpeg_scaled_size(const uint8_t *data, size_t size, int denominator, int *width,
                         int *height, char *error);
int cic_jpeg_decode(const uint8_t *data, size_t size, int denominator, uint8_t *out,
                    size_t out_size, char *error);

// Encodes RGB pixels (width × height × 3) as a baseline JPEG of `quality` (1–100) into a
// buffer the caller frees with cic_free.
int cic_jpeg_encode(const uint8_t *rgb, int width, int height, int quality, uint8_t **out,
                    size_t *out_size, char *error);

// The size of a PNG without decoding its pixels.
int cic_png_size(const uint8_t *data, size_t size, int *width, int *height, char *error);

// Decodes a PNG into RGBA (width × height × 4 bytes, 8 bits a channel, non-premultiplied).
int cic_png_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_size, char *error);

// Encodes RGBA pixels as a PNG into a buffer the caller frees with cic_free (tests make their
// input images with it).
int cic_png_encode(const uint8_t *rgba, int width, int height, uint8_t **out, size_t *out_size,
                   char *error);

void cic_free(void *pointer);

#endif
