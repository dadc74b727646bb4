
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static gs_config g_config = {.fault_rank = -1, .pdl = 1, .onchip = GS_ONCHIP_AUTO, .fuse = GS_FUSE_AUTO};

/* Index of value in the NULL-terminated list, or -1 (and a message) when
 * the variable is set to something else; unset gives dflt. */
static int pick(const char *var, const char *const *values, int dflt, char *err, size_t errlen) {
  const char *v = getenv(var);
  if (!v || !*v) return dflt;
  for (int i = 0; values[i]; ++i)
    if (strcmp(v, values[i]) == 0) return i;
  if (!err[0]) {
    size_t n = (size_t)snprintf(err, errlen, "%s='%s' is not one of", var, v);
    for (int i = 0; values[i] && n < errlen; ++i)
      n += (size_t)snprintf(err + n, errlen - n, "%s%s", i ? "|" : " ", values[i]);
  }
  return dflt;
}

static void load_fault(gs_config *cfg, char *err, size_t errlen) {
  const char *spec = getenv("GPUSTENCIL_FAULT");
  if (!spec || !*spec) return;
  const char *at = strchr(spec, '@');
  size_t nlen = at ? (size_t)(at - spec) : strlen(spec);
  char *end = NULL;
  long rank = at ? strtol(at + 1, &end, 10) : -1;
  if (nlen == 0 || nlen >= sizeof cfg->fault || (at && (end == at + 1 || *end || rank < 0))) {
    if (!err[0]) snprintf(err, errlen, "GPUSTENCIL_FAULT='%s' is not NAME or NAME@RANK", spec);
    return;
  }
  memcpy(cfg->fault, spec, nlen);
  cfg->fault[nlen] = 0;
  cfg->fault_rank = (int)rank;
}

void gs_config_load(gs_config *cfg, char *err, size_t errlen) {
  static const char *const sync[] = {"flag", "event", NULL};
  static const char *const stage[] = {"auto", "never", "always", NULL};
  static const char *const copy[] = {"kernel", "engine", NULL};
  static const char *const off_on[] = {"0", "1", NULL};
  static const char *const onchip[] = {"0", "1", "auto", NULL};
  static const char *const fuse[] = {"0", "1", "2",    "3", "4", "5",
                                     "6", "7", "auto", NULL}; /* index = T, up to
                                                                GS_FDTD_FUSE_MAX (7) */
  memset(cfg, 0, sizeof *cfg);
  err[0] = 0;
  cfg->debug = getenv("GPUSTENCIL_DEBUG") != NULL;
  cfg->fault_rank = -1;
  load_fault(cfg, err, errlen);
  cfg->ipc_sync = (gs_ipc_sync)pick("GPUSTENCIL_IPC_SYNC", sync, GS_IPC_SYNC_FLAG, err, errlen);
  cfg->ipc_stage = (gs_ipc_stage)pick("GPUSTENCIL_IPC_STAGE", stage, GS_IPC_STAGE_AUTO, err, errlen);
  cfg->ipc_copy_engine = pick("GPUSTENCIL_IPC_COPY", copy, 0, err, errlen);
  cfg->pdl = pick("GPUSTENCIL_PDL", off_on, 1, err, errlen);
  cfg->onchip = pick("GPUSTENCIL_ONCHIP", onchip, GS_ONCHIP_AUTO, err, errlen);
  cfg->fuse = pick("GPUSTENCIL_FUSE", fuse, 8, err, errlen);
  if (cfg->fuse == 8) cfg->fuse = GS_FUSE_AUTO;
  /* The on-chip form's benchmarking knob: the GPU's launcher reads it
   * (kernels/fdtd_run_cols.cu); checked here, where a bad value can be said. */
  static const char *const forms[] = {"tiles", "ez", "regs", NULL};
  (void)pick("GS_FDTD_RUN_FORM", forms, 0, err, errlen);
}

const gs_config *gs_config_get(void) {
  return &g_config;
}

void gs_config_set(const gs_config *cfg) {
  g_config = *cfg;
  gs_fault_armed = cfg->fault[0] != 0;
}
