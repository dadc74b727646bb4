/* gs_fopen_regular: regular files open; folders, FIFOs and devices are refused
 * at once with the reason (a FIFO with no writer must not block). */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"

static int refused(const char *path, const char *reason) {
  char err[512] = "";
  gs_status st = GS_OK;
  FILE *f = gs_fopen_regular(path, &st, err, sizeof err);
  if (f) fclose(f);
  if (!f && (!strstr(err, path) || !strstr(err, reason))) fprintf(stderr, "message: %s\n", err);
  return !f && st == GS_ERR_IO && strstr(err, path) && strstr(err, reason);
}

int main(void) {
  char dir[] = "/tmp/gs-fsutil-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char file[600], fifo[600], missing[600];
  snprintf(file, sizeof file, "%s/plain.in", dir);
  snprintf(fifo, sizeof fifo, "%s/pipe.in", dir);
  snprintf(missing, sizeof missing, "%s/none.in", dir);
  FILE *w = fopen(file, "w");
  CHECK(w && fputs("#title: x\n", w) >= 0 && fclose(w) == 0);
  CHECK(mkfifo(fifo, 0600) == 0);

  char err[512] = "";
  gs_status st = GS_ERR_IO;
  FILE *f = gs_fopen_regular(file, &st, err, sizeof err);
  char line[32] = "";
  CHECK(f && st == GS_OK && fgets(line, sizeof line, f) && strcmp(line, "#title: x\n") == 0);
  if (f) fclose(f);

  CHECK(refused(dir, "a folder, not a regular file"));
  CHECK(refused(fifo, "a FIFO, not a regular file"));
  CHECK(refused("/dev/null", "a character device, not a regular file"));
  CHECK(refused(missing, "No such file or directory"));

  unlink(fifo);
  unlink(file);
  rmdir(dir);
  return gs_test_done("test_fsutil");
}
