/* gs_mkpng: writes a deterministic test PNG (tests and benchmarks).
 * usage: gs_mkpng --check FILE.png | gs_mkpng OUT.png W H grey|greyalpha|rgb|rgba|palette DEPTH [interlace] [trns]
 * [noise] [seed=N] [level=L] */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pnggen.h"

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--check")) { /* exit 0 when a grey PNG decodes fully */
    uint32_t w, h;
    int d, ch;
    void *pix;
    if (gs_testimg_read(argv[2], &w, &h, &d, &ch, &pix)) return 1;
    free(pix);
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "--check-any")) { /* exit 0 when any PNG decodes fully */
    FILE *fp = fopen(argv[2], "rb");
    if (!fp) return 1;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep row = NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
      png_destroy_read_struct(&png, &info, NULL);
      fclose(fp);
      free(row);
      return 1;
    }
    png_init_io(png, fp);
    png_read_info(png, info);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    row = malloc(png_get_rowbytes(png, info));
    for (int p = 0; p < passes; ++p)
      for (png_uint_32 y = 0; y < png_get_image_height(png, info); ++y)
        png_read_row(png, row, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    free(row);
    return 0;
  }
  if (argc < 6) {
    fprintf(stderr, "usage: gs_mkpng OUT.png W H grey|greyalpha|rgb|rgba|palette DEPTH [interlace] [trns] [noise] "
                    "[seed=N] [level=L]\n");
    return 2;
  }
  gs_testimg t = {.w = (uint32_t)strtoul(argv[2], NULL, 10),
                  .h = (uint32_t)strtoul(argv[3], NULL, 10),
                  .depth = atoi(argv[5]),
                  .smooth = 1,
                  .level = 1,
                  .seed = 1};
  const char *ty = argv[4];
  t.color_type = !strcmp(ty, "grey")        ? PNG_COLOR_TYPE_GRAY
                 : !strcmp(ty, "greyalpha") ? PNG_COLOR_TYPE_GRAY_ALPHA
                 : !strcmp(ty, "rgb")       ? PNG_COLOR_TYPE_RGB
                 : !strcmp(ty, "rgba")      ? PNG_COLOR_TYPE_RGB_ALPHA
                                            : PNG_COLOR_TYPE_PALETTE;
  for (int i = 6; i < argc; ++i) {
    if (!strcmp(argv[i], "interlace"))
      t.interlace = 1;
    else if (!strcmp(argv[i], "trns"))
      t.trns = 1;
    else if (!strcmp(argv[i], "noise"))
      t.smooth = 0;
    else if (!strncmp(argv[i], "seed=", 5))
      t.seed = (uint32_t)atoi(argv[i] + 5);
    else if (!strncmp(argv[i], "level=", 6))
      t.level = atoi(argv[i] + 6);
  }
  if (gs_testimg_write(&t, argv[1])) {
    fprintf(stderr, "gs_mkpng: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
