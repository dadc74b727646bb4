/* The run configuration: every GPUSTENCIL_* environment switch, read once at
 * start by gs_config_load() and handed down from there. No other file reads
 * the environment for gpustencil's own switches (docs/usage.md, "Environment"). */
#ifndef GS_CONFIG_H
#include <stddef.h>
#define GS_CONFIG_H

/* How ipc halo neighbours order their NVLink stores. */
typedef enum gs_ipc_sync {
  GS_IPC_SYNC_FLAG = 0, /* device flags raised by the copy kernel (default) */
  GS_IPC_SYNC_EVENT,    /* CUDA IPC events with host counters (for comparison) */
} gs_ipc_sync;

/* When ipc halo boxes go through a contiguous staging buffer. */
typedef enum gs_ipc_stage {
  GS_IPC_STAGE_AUTO = 0, /* boxes whose rows hold 2-31 floats */
  GS_IPC_STAGE_NEVER,
  GS_IPC_STAGE_ALWAYS,
} gs_ipc_stage;

/* GPUSTENCIL_ONCHIP: 0, 1, or auto (src/engine/fdtd.c, init_onchip: the GPU
 * keeps a 2D grid on chip where it fits and H is free space). */
enum { GS_ONCHIP_OFF = 0, GS_ONCHIP_ON = 1, GS_ONCHIP_AUTO = 2 };
/* GPUSTENCIL_FUSE: 0 (single steps), T in 1..7 (passes of T steps fused),
 * or auto (src/engine/fdtd.c, init_fuse: the GPU's measured best, the CPU
 * single steps). */
enum { GS_FUSE_AUTO = -1 };

typedef struct gs_config {
  int debug;              /* GPUSTENCIL_DEBUG set: gs_log_debug() prints */
  char fault[64];         /* GPUSTENCIL_FAULT=NAME[@RANK]: NAME, "" when off */
  int fault_rank;         /* the RANK of it, -1 for every rank */
  gs_ipc_sync ipc_sync;   /* GPUSTENCIL_IPC_SYNC=flag|event */
  gs_ipc_stage ipc_stage; /* GPUSTENCIL_IPC_STAGE=auto|never|always */
  int ipc_copy_engine;    /* GPUSTENCIL_IPC_COPY=engine: copy engines instead of the copy kernel */
  int pdl;                /* GPUSTENCIL_PDL=0 turns programmatic dependent launch off */
  int onchip;             /* GPUSTENCIL_ONCHIP=auto|0|1: 2D grid on chip (kernels/fdtd_run.cu) */
  int fuse;               /* GPUSTENCIL_FUSE=auto|0..7: steps fused a pass (kernels/fdtd_fuse.cu) */
} gs_config;

/* Reads the switches from the environment into *cfg. A value that is not one
 * of a switch's documented values leaves its default and writes one line
 * naming the switch into err (err[0] stays 0 when all are well). */
void gs_config_load(gs_config *cfg, char *err, size_t errlen);

/* The configuration loaded at start (defaults until gs_config_load() ran and
 * gs_config_set() installed it). For the few base services that cannot take
 * it as an argument: logging and fault points. */
const gs_config *gs_config_get(void);
void gs_config_set(const gs_config *cfg);

#endif
