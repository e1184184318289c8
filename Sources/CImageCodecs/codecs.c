#include "image_codecs.h"

// jpeglib.h needs stdio.h first (it names FILE).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <jpeglib.h>
#include <png.h>

// MARK: - libjpeg's errors, caught

struct cic_jpeg_error {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  char *message;
};

static void cic_jpeg_error_exit(j_common_ptr info) {
  struct cic_jpeg_error *error = (struct cic_jpeg_error *)info->err;
  if (error->message) {
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    snprintf(error->message, CIC_ERROR_SIZE, "%s", text);
  }
  longjmp(error->jump, 1);
}

// Warnings (a corrupt stream libjpeg can go on with) are errors here: a file that decodes
// only in part is refused, not shown half grey.
static void cic_jpeg_emit_message(j_common_ptr info, int level) {
  if (level < 0) cic_jpeg_error_exit(info);
}

// Points `info` at the error manager that turns errors into a longjmp to `error->jump`; the
// caller calls setjmp itself (a jump may only return into a frame still running).
static void cic_jpeg_catch(struct jpeg_decompress_struct *info, struct cic_jpeg_error *error,
                           char *message) {
  info->err = jpeg_std_error(&error->manager);
  error->manager.error_exit = cic_jpeg_error_exit;
  error->manager.emit_message = cic_jpeg_emit_message;
  error->message = message;
}

// Reads the header at the given scale, RGB out; 0, or -1 with the reason in `message`.
static int cic_jpeg_open(struct jpeg_decompress_struct *info, const uint8_t *data, size_t size,
                         int denominator, char *message) {
  jpeg_create_decompress(info);
  jpeg_mem_src(info, data, (unsigned long)size);
  if (jpeg_read_header(info, TRUE) != JPEG_HEADER_OK) {
    snprintf(message, CIC_ERROR_SIZE, "not a JPEG image");
    return -1;
  }
  info->scale_num = 1;
  info->scale_denom = (unsigned int)denominator;
  info->out_color_space = JCS_RGB;  // grey and YCbCr become RGB (CMYK: refused by libjpeg)
  return 0;
}

int cic_jpeg_size(const uint8_t *data, size_t size, int *width, int *height, char *message) {
  return cic_jpeg_scaled_size(data, size, 1, width, height, message);
}

int cic_jpeg_scaled_size(const uint8_t *data, size_t size, int denominator, int *width,
                         int *height, char *message) {
  struct jpeg_decompress_struct info;
  struct cic_jpeg_error error;
  cic_jpeg_catch(&info, &error, message);
  if (setjmp(error.jump) || cic_jpeg_open(&info, data, size, denominator, message) != 0) {
    jpeg_destroy_decompress(&info);
    return -1;
  }
  jpeg_calc_output_dimensions(&info);
  *width = (int)info.output_width;
  *height = (int)info.output_height;
  jpeg_destroy_decompress(&info);
  return 0;
}

int cic_jpeg_decode(const uint8_t *data, size_t size, int denominator, uint8_t *out,
                    size_t out_size, char *message) {
  struct jpeg_decompress_struct info;
  struct cic_jpeg_error error;
  cic_jpeg_catch(&info, &error, message);
  if (setjmp(error.jump) || cic_jpeg_open(&info, data, size, denominator, message) != 0) {
    jpeg_destroy_decompress(&info);
    return -1;
  }
  jpeg_start_decompress(&info);
  size_t stride = (size_t)info.output_width * 3;
  if (info.output_components != 3 || stride * info.output_height > out_size) {
    snprintf(message, CIC_ERROR_SIZE, "unexpected output size");
    jpeg_destroy_decompress(&info);
    return -1;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = out + stride * info.output_scanline;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return 0;
}

int cic_jpeg_encode(const uint8_t *rgb, int width, int height, int quality, uint8_t **out,
                    size_t *out_size, char *message) {
  struct jpeg_compress_struct info;
  struct cic_jpeg_error error;
  // A buffer of our own, larger than any JPEG of these pixels can be, so libjpeg never grows
  // it (a grown buffer is libjpeg's to free, and an error after growing would leave the
  // caller's pointer stale): it stays ours to free on every path.
  size_t capacity = (size_t)width * (size_t)height * 3 * 2 + 65536;
  unsigned char *buffer = malloc(capacity);
  unsigned long length = (unsigned long)capacity;
  if (!buffer) {
    snprintf(message, CIC_ERROR_SIZE, "out of memory");
    return -1;
  }
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = cic_jpeg_error_exit;
  error.message = message;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&info);
    free(buffer);
    return -1;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, &buffer, &length);
  info.image_width = (JDIMENSION)width;
  info.image_height = (JDIMENSION)height;
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  info.optimize_coding = TRUE;
  jpeg_start_compress(&info, TRUE);
  size_t stride = (size_t)width * 3;
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = (JSAMPROW)(rgb + stride * info.next_scanline);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  *out = buffer;
  *out_size = (size_t)length;
  return 0;
}

// MARK: - libpng's simplified API (it catches its own errors)

int cic_png_size(const uint8_t *data, size_t size, int *width, int *height, char *message) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, data, size)) {
    snprintf(message, CIC_ERROR_SIZE, "%s", image.message);
    png_image_free(&image);
    return -1;
  }
  *width = (int)image.width;
  *height = (int)image.height;
  png_image_free(&image);
  return 0;
}

int cic_png_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                   char *message) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, data, size)) {
    snprintf(message, CIC_ERROR_SIZE, "%s", image.message);
    png_image_free(&image);
    return -1;
  }
  image.format = PNG_FORMAT_RGBA;
  if (PNG_IMAGE_SIZE(image) > out_size) {
    snprintf(message, CIC_ERROR_SIZE, "unexpected output size");
    png_image_free(&image);
    return -1;
  }
  if (!png_image_finish_read(&image, NULL, out, 0, NULL)) {
    snprintf(message, CIC_ERROR_SIZE, "%s", image.message);
    png_image_free(&image);
    return -1;
  }
  return 0;
}

int cic_png_encode(const uint8_t *rgba, int width, int height, uint8_t **out, size_t *out_size,
                   char *message) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = (png_uint_32)width;
  image.height = (png_uint_32)height;
  image.format = PNG_FORMAT_RGBA;
  png_alloc_size_t length = 0;
  if (!png_image_write_get_memory_size(image, length, 0, rgba, 0, NULL)) {
    snprintf(message, CIC_ERROR_SIZE, "%s", image.message);
    return -1;
  }
  uint8_t *buffer = malloc(length);
  if (!buffer) {
    snprintf(message, CIC_ERROR_SIZE, "out of memory");
    return -1;
  }
  if (!png_image_write_to_memory(&image, buffer, &length, 0, rgba, 0, NULL)) {
    snprintf(message, CIC_ERROR_SIZE, "%s", image.message);
    free(buffer);
    return -1;
  }
  *out = buffer;
  *out_size = (size_t)length;
  return 0;
}

void cic_free(void *pointer) { free(pointer); }
