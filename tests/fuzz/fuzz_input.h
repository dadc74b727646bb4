/* Helpers shared by the libFuzzer targets: each input is written to a file
 * on a memory file system, because the readers under test take paths as the
 * program does. */
#ifndef GS_FUZZ_INPUT_H
#define GS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes data to a per-process file named after tag and returns its path
 * (static storage); aborts on failure, which would be the harness's fault. */
static const char *gs_fuzz_file(const char *tag, const char *suffix, const uint8_t *data, size_t size) {
  static char path[256];
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, sizeof path, "%s/gs-fuzz-%s-%ld%s", dir, tag, (long)getpid(), suffix);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
  return path;
}

#endif
