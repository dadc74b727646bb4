/* A test's stand-in for libhdf5's H5Fopen (LD_PRELOAD, tests/geomobj_hostile.sh): it crashes,
 * as libhdf5 itself does on some corrupt files, so that the test sees what the program does when
 * the geometry objects reader's helper process dies. The program's own process never opens an
 * HDF5 file for reading, so only the helper meets it. */
#include <signal.h>
#include <stdint.h>

int64_t H5Fopen(const char *name, unsigned flags, int64_t fapl);
int64_t H5Fopen(const char *name, unsigned flags, int64_t fapl) {
  (void)name, (void)flags, (void)fapl;
  raise(SIGSEGV);
  return -1;
}
