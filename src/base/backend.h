/* The compute backend: one table of function pointers, chosen once at start.
 *
 * Drivers call the GPU or the CPU through this table only, so driver code has
 * no CUDA #ifdef. On the CPU backend "device" memory is host memory, copies
 * are memcpy, streams and events are cheap host objects, and kernels are the
 * CPU reference twins from kernels/. Every entry is fatal on failure (through
 * gs_fatal) unless it returns a status. */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fdtd3d_disp.h"
#include "fdtd3d_kernels.h"
#include "fdtd3d_pw.h"
#include "fdtd3d_src.h"
#include "fdtd_kernels.h"
#include "halo_kernels.h"
#include "kernels.h"

typedef struct gs_stream_s *gs_stream; /* NULL is the default stream */
typedef struct gs_event_s *gs_event;

typedef struct gs_device_desc {
  char name[256];      /* "NVIDIA H200" */
  char pci_bus_id[32]; /* "0000:19:00.0", "" when none */
  size_t total_mem;    /* bytes */
  int sm_count;
} gs_device_desc;

typedef struct gs_backend {
  const char *name; /* "cuda" or "cpu" */
  int is_gpu;

  /* Devices visible to this process (0 on the CPU backend). */
  int (*device_count)(void);
  void (*device_select)(int index);
  void (*device_describe)(int index, gs_device_desc *out);
  /* 1 when device a can access device b's memory directly. */
  int (*can_access_peer)(int a, int b);
  /* The device this process uses, -1 on the CPU backend. */
  int (*device_current)(void);
  /* The visible device with this PCI bus id, -1 when it is not visible. */
  int (*device_by_pci)(const char *bus_id);

  /* CUDA IPC, NULL on the CPU backend. Handles are GS_IPC_HANDLE_BYTES
   * bytes; memory handles name a dev_alloc block (its start). Events made by
   * ipc_event_create are inter-process and never timed. */
  void (*ipc_mem_handle)(void *dev_ptr, void *handle);
  void *(*ipc_mem_open)(const void *handle);
  void (*ipc_mem_close)(void *p);
  gs_event (*ipc_event_create)(void);
  void (*ipc_event_handle)(gs_event e, void *handle);
  gs_event (*ipc_event_open)(const void *handle);
  /* GB/s (one way) of bytes copied from device a to device b with
   * cudaMemcpyPeerAsync, best of a few; both: b to a at the same time too
   * (what an exchange does), GB/s of each direction. NULL on the CPU backend. */
  double (*peer_copy_gbs)(int a, int b, size_t bytes, int both);

  /* Bytes the selected device can still allocate: free GPU memory on CUDA;
   * on the CPU backend the host's available memory (MemAvailable, within the
   * cgroup's limit when there is one). Shared by all ranks on the device or
   * host: callers divide. 0 when unknown. */
  size_t (*mem_available)(void);
  void *(*dev_alloc)(size_t bytes);
  void (*dev_free)(void *p);
  void *(*host_alloc)(size_t bytes); /* page-locked on the GPU backend */
  void (*host_free)(void *p);

  void (*copy_h2d)(void *dst, const void *src, size_t bytes, gs_stream s);
  void (*copy_d2h)(void *dst, const void *src, size_t bytes, gs_stream s);
  void (*copy_d2d)(void *dst, const void *src, size_t bytes, gs_stream s);
  /* Sets bytes of device memory to zero (queued on s). */
  void (*zero)(void *dst, size_t bytes, gs_stream s);
  /* Strided copies: height rows of width bytes, device rows spitch/dpitch
   * bytes apart, host rows packed (to_device 0: device to host). */
  void (*copy_2d)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int to_device,
                  gs_stream s);

  /* The same between device arrays, by a copy engine (also into another
   * GPU's memory opened by ipc_mem_open); NULL on the CPU backend. */
  void (*copy_2d_d2d)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                      gs_stream s);

  /* high_priority: boundary work; otherwise the lowest priority. */
  gs_stream (*stream_create)(int high_priority);
  void (*stream_destroy)(gs_stream s);
  void (*stream_sync)(gs_stream s);
  /* timing: 1 for an event usable with event_elapsed_ms. */
  gs_event (*event_create)(int timing);
  void (*event_destroy)(gs_event e);
  void (*event_record)(gs_event e, gs_stream s);
  void (*stream_wait_event)(gs_stream s, gs_event e);
  void (*event_sync)(gs_event e);
  float (*event_elapsed_ms)(gs_event start, gs_event stop);

  /* CUDA graphs, NULL on the CPU backend: graph_begin starts capturing what
   * s (and streams that wait on events recorded in s) queue, graph_end
   * instantiates it, graph_launch replays it on s. */
  void (*graph_begin)(gs_stream s);
  void *(*graph_end)(gs_stream s);
  void (*graph_launch)(void *graph, gs_stream s);
  void (*graph_free)(void *graph);

  /* Kernels: same signatures as kernels.h (stream is the backend stream). */
  gs_scale_u8_fn scale_u8;
  gs_scale_u16_fn scale_u16;
  gs_fdtd_step_fn fdtd_step;
  gs_fdtd_inject_fn fdtd_inject;
  gs_fdtd_sample_fn fdtd_sample;
  gs_fdtd_clock_fn fdtd_clock;
  gs_fdtd_run_fn fdtd_run;                 /* several steps in one launch, the grid on chip (one rank) */
  gs_fdtd_run_fits_fn fdtd_run_fits;       /* whether fdtd_run takes a grid */
  gs_fdtd_run_form_fn fdtd_run_form;       /* the form of fdtd_run that takes it (logs, benchmarks) */
  gs_fdtd_run_scratch_fn fdtd_run_scratch; /* the device scratch its launches need */
  gs_fdtd_fuse_fn fdtd_fuse;               /* T steps fused in one pass (one rank, grids too big for the chip) */
  gs_fdtd_fuse_fits_fn fdtd_fuse_fits;     /* the deepest pass fdtd_fuse takes for a grid, 0: none */
  gs_fdtd3_step_fn fdtd3_step;
  gs_fdtd3_pass_fn fdtd3_pass; /* half a step on a box (a part of a split model) */
  int (*fdtd3_inject)(float *field, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n,
                      void *stream);
  int (*fdtd3_sample)(gs_fdtd3_fields v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t, void *stream);
  /* Dispersive materials' deferred nodes: their E again, and the poles' second half (kernels/fdtd3d_disp.h). */
  gs_fdtd3_disp_a_fn fdtd3_disp_a;
  gs_fdtd3_disp_b_fn fdtd3_disp_b;
  gs_fdtd3_sources_fn fdtd3_sources; /* magnetic dipoles, voltage sources, transmission lines */
  gs_fdtd3_pw_fn fdtd3_pw;           /* discrete plane waves (kernels/fdtd3d_pw.h) */
  gs_halo_copy_fn halo_copy;
  gs_halo_signal_fn halo_signal;
  gs_halo_wait_fn halo_wait;
} gs_backend;

#define GS_IPC_HANDLE_BYTES 64

/* Chooses a backend by name: "cuda", "cpu" or "auto" (CUDA when this build
 * has it and a GPU is visible, else CPU with a one-line notice on rank 0).
 * Returns NULL and writes the reason into why for an unavailable choice. */
const gs_backend *gs_backend_choose(const char *which, char *why, size_t whylen);
/* What --backend cpu chooses from now on (NULL: the CPU backend): a test
 * program's seam (tests/emu: the CPU backend with the GPU's many-steps
 * kernels run by its CUDA emulator, so the whole program runs them). */
void gs_backend_stand_in_cpu(const gs_backend *b);
extern const gs_backend gs_backend_cpu;
#ifdef GS_HAVE_CUDA
extern const gs_backend gs_backend_cuda;
/* Number of CUDA devices visible, 0 when none or the driver is missing. */
int gs_cuda_probe(void);
#endif

/* The host's available memory in bytes (MemAvailable of /proc/meminfo,
 * capped by the cgroup v2 or v1 memory limit less its usage and by the
 * process's RLIMIT_AS less its mapped size); 0 when unknown. */
size_t gs_host_mem_available(void);
/* The files the host's memory is read from (_from's tests give their own). */
typedef struct gs_host_files {
  const char *meminfo;     /* /proc/meminfo */
  const char *cgroup_root; /* /sys/fs/cgroup */
  const char *self_cgroup; /* /proc/self/cgroup */
} gs_host_files;
/* The host memory one of the node_ranks ranks of this node may use: the
 * node's MemAvailable shared evenly by them, within each memory cgroup limit
 * over this process (its folder and the ancestors) shared by the ranks under
 * that limit, capped by the process's own RLIMIT_AS room, which each rank has
 * whole; 0 when unknown. peers: the cgroup folders of the node's ranks (this
 * one's included, from gs_host_cgroup_self); none (npeers 0): every limit is
 * taken as shared by all node_ranks. */
size_t gs_host_mem_share(int node_ranks, char *const *peers, int npeers);
size_t gs_host_mem_share_from(const gs_host_files *f, int node_ranks, char *const *peers, int npeers);
/* This process's memory cgroup folder (under /sys/fs/cgroup; _of reads the
 * given files): the folder the peers of gs_host_mem_share name. */
void gs_host_cgroup_self(char *dir, size_t n);
void gs_host_cgroup_of(const char *self_cgroup, const char *root, char *dir, size_t n);

#endif
