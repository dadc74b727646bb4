/* The CUDA backend. Every runtime call is checked; a failure is fatal and
 * names the call, file:line, rank, host and GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

#define GS_CUDA_CHECK(call)                                                                                            \
  do {                                                                                                                 \
    cudaError_t gs_e_ = (call);                                                                                        \
    if (gs_e_ != cudaSuccess) gs_fatal(#call, cudaGetErrorString(gs_e_), __FILE__, __LINE__);                          \
  } while (0)

/* Kernel launchers return a cudaError_t as int. */
#define GS_LAUNCH_CHECK(expr)                                                                                          \
  do {                                                                                                                 \
    int gs_k_ = (expr);                                                                                                \
    if (gs_k_ != 0) gs_fatal(#expr, cudaGetErrorString((cudaError_t)gs_k_), __FILE__, __LINE__);                       \
  } while (0)

int gs_cuda_probe(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); /* no driver or no device: not an error here */
    return 0;
  }
  return count;
}

static int cu_device_count(void) {
  int n = 0;
  GS_CUDA_CHECK(cudaGetDeviceCount(&n));
  return n;
}

static void cu_device_select(int index) {
  GS_CUDA_CHECK(cudaSetDevice(index));
  gs_error_set_gpu(index);
}

static void cu_device_describe(int index, gs_device_desc *out) {
  struct cudaDeviceProp prop;
  memset(out, 0, sizeof *out);
  GS_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  snprintf(out->name, sizeof out->name, "%s", prop.name);
  GS_CUDA_CHECK(cudaDeviceGetPCIBusId(out->pci_bus_id, (int)sizeof out->pci_bus_id, index));
  for (char *c = out->pci_bus_id; *c; ++c)
    if (*c >= 'A' && *c <= 'F') *c = (char)(*c - 'A' + 'a');
  out->total_mem = prop.totalGlobalMem;
  out->sm_count = prop.multiProcessorCount;
}

static int cu_can_access_peer(int a, int b) {
  if (a == b) return 1;
  int ok = 0;
  GS_CUDA_CHECK(cudaDeviceCanAccessPeer(&ok, a, b));
  return ok;
}

static int cu_device_current(void) {
  int d;
  GS_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}
static int cu_device_by_pci(const char *bus_id) {
  int d;
  if (cudaDeviceGetByPCIBusId(&d, bus_id) != cudaSuccess) {
    cudaGetLastError(); /* not visible here: an answer, not an error */
    return -1;
  }
  return d;
}

_Static_assert(sizeof(cudaIpcMemHandle_t) == GS_IPC_HANDLE_BYTES, "IPC handle size");
_Static_assert(sizeof(cudaIpcEventHandle_t) == GS_IPC_HANDLE_BYTES, "IPC handle size");

static void cu_ipc_mem_handle(void *p, void *handle) {
  cudaIpcMemHandle_t h;
  GS_CUDA_CHECK(cudaIpcGetMemHandle(&h, p));
  memcpy(handle, &h, sizeof h);
}
static void *cu_ipc_mem_open(const void *handle) {
  cudaIpcMemHandle_t h;
  memcpy(&h, handle, sizeof h);
  void *p = NULL;
  GS_CUDA_CHECK(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
  return p;
}
static void cu_ipc_mem_close(void *p) {
  if (p) GS_CUDA_CHECK(cudaIpcCloseMemHandle(p));
}
static gs_event cu_ipc_event_create(void) {
  cudaEvent_t e;
  GS_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess));
  return (gs_event)e;
}
static void cu_ipc_event_handle(gs_event e, void *handle) {
  cudaIpcEventHandle_t h;
  GS_CUDA_CHECK(cudaIpcGetEventHandle(&h, (cudaEvent_t)e));
  memcpy(handle, &h, sizeof h);
}
static gs_event cu_ipc_event_open(const void *handle) {
  cudaIpcEventHandle_t h;
  memcpy(&h, handle, sizeof h);
  cudaEvent_t e;
  GS_CUDA_CHECK(cudaIpcOpenEventHandle(&e, h));
  return (gs_event)e;
}
static double cu_peer_copy_gbs(int a, int b, size_t bytes, int both) {
  int cur, dev[2] = {a, b};
  GS_CUDA_CHECK(cudaGetDevice(&cur));
  void *src[2], *dst[2];
  cudaStream_t s[2];
  cudaEvent_t e0, e1, e2;
  for (int k = 0; k < 2; ++k) {
    GS_CUDA_CHECK(cudaSetDevice(dev[k]));
    cudaError_t pe = cudaDeviceEnablePeerAccess(dev[1 - k], 0); /* else the copy is staged through the host */
    if (pe == cudaErrorPeerAccessAlreadyEnabled)
      cudaGetLastError();
    else
      GS_CUDA_CHECK(pe);
    GS_CUDA_CHECK(cudaMalloc(&src[k], bytes));
    GS_CUDA_CHECK(cudaMalloc(&dst[k], bytes));
    GS_CUDA_CHECK(cudaMemset(src[k], 1, bytes));
    GS_CUDA_CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    GS_CUDA_CHECK(cudaDeviceSynchronize());
  }
  GS_CUDA_CHECK(cudaSetDevice(a));
  GS_CUDA_CHECK(cudaEventCreate(&e0));
  GS_CUDA_CHECK(cudaEventCreate(&e2));
  GS_CUDA_CHECK(cudaSetDevice(b));
  GS_CUDA_CHECK(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
  GS_CUDA_CHECK(cudaSetDevice(a));
  double best = 0;
  for (int rep = 0; rep < 6; ++rep) {
    /* a -> b on a's stream; with both, b -> a on b's stream, started by e0
     * and joined back by e1, so e0 .. e2 spans both. */
    GS_CUDA_CHECK(cudaEventRecord(e0, s[0]));
    GS_CUDA_CHECK(cudaMemcpyPeerAsync(dst[1], b, src[0], a, bytes, s[0]));
    if (both) {
      GS_CUDA_CHECK(cudaSetDevice(b));
      GS_CUDA_CHECK(cudaStreamWaitEvent(s[1], e0, 0));
      GS_CUDA_CHECK(cudaMemcpyPeerAsync(dst[0], a, src[1], b, bytes, s[1]));
      GS_CUDA_CHECK(cudaEventRecord(e1, s[1]));
      GS_CUDA_CHECK(cudaSetDevice(a));
      GS_CUDA_CHECK(cudaStreamWaitEvent(s[0], e1, 0));
    }
    GS_CUDA_CHECK(cudaEventRecord(e2, s[0]));
    GS_CUDA_CHECK(cudaEventSynchronize(e2));
    float ms;
    GS_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e2));
    double gbs = (double)bytes / (ms * 1e-3) * 1e-9;
    if (rep > 0 && gbs > best) best = gbs; /* the first one warms up */
  }
  GS_CUDA_CHECK(cudaEventDestroy(e0));
  GS_CUDA_CHECK(cudaEventDestroy(e2));
  for (int k = 1; k >= 0; --k) {
    GS_CUDA_CHECK(cudaSetDevice(dev[k]));
    if (k == 1) GS_CUDA_CHECK(cudaEventDestroy(e1));
    GS_CUDA_CHECK(cudaStreamDestroy(s[k]));
    GS_CUDA_CHECK(cudaFree(src[k]));
    GS_CUDA_CHECK(cudaFree(dst[k]));
  }
  GS_CUDA_CHECK(cudaSetDevice(cur));
  return best;
}

static size_t cu_mem_available(void) {
  size_t free_bytes = 0, total = 0;
  GS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}
static void *cu_dev_alloc(size_t bytes) {
  void *p = NULL;
  GS_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
  return p;
}
static void cu_dev_free(void *p) {
  if (p) GS_CUDA_CHECK(cudaFree(p));
}
static void *cu_host_alloc(size_t bytes) {
  void *p = NULL;
  GS_CUDA_CHECK(cudaMallocHost(&p, bytes ? bytes : 1));
  return p;
}
static void cu_host_free(void *p) {
  if (p) GS_CUDA_CHECK(cudaFreeHost(p));
}
static void cu_copy_h2d(void *dst, const void *src, size_t bytes, gs_stream s) {
  GS_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)s));
}
static void cu_copy_d2h(void *dst, const void *src, size_t bytes, gs_stream s) {
  GS_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)s));
}
static void cu_copy_d2d(void *dst, const void *src, size_t bytes, gs_stream s) {
  GS_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)s));
}
static void cu_zero(void *dst, size_t bytes, gs_stream s) {
  GS_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, (cudaStream_t)s));
}
static void cu_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                       int to_device, gs_stream s) {
  GS_CUDA_CHECK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                  to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, (cudaStream_t)s));
}
static void cu_copy_2d_d2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                           gs_stream s) {
  GS_CUDA_CHECK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDeviceToDevice, (cudaStream_t)s));
}
static gs_stream cu_stream_create(int high_priority) {
  int least = 0, greatest = 0;
  GS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t s;
  GS_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high_priority ? greatest : least));
  return (gs_stream)s;
}
static void cu_stream_destroy(gs_stream s) {
  if (s) GS_CUDA_CHECK(cudaStreamDestroy((cudaStream_t)s));
}
static void cu_stream_sync(gs_stream s) {
  GS_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)s));
}
static gs_event cu_event_create(int timing) {
  cudaEvent_t e;
  GS_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  return (gs_event)e;
}
static void cu_event_destroy(gs_event e) {
  if (e) GS_CUDA_CHECK(cudaEventDestroy((cudaEvent_t)e));
}
static void cu_event_record(gs_event e, gs_stream s) {
  GS_CUDA_CHECK(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s));
}
static void cu_stream_wait_event(gs_stream s, gs_event e) {
  GS_CUDA_CHECK(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0));
}
static void cu_event_sync(gs_event e) {
  GS_CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)e));
}
static float cu_event_elapsed_ms(gs_event a, gs_event b) {
  float ms = 0;
  GS_CUDA_CHECK(cudaEventElapsedTime(&ms, (cudaEvent_t)a, (cudaEvent_t)b));
  return ms;
}

static int cu_scale_u8(const uint8_t *in, uint8_t *out, size_t count, gs_scale_params p, void *s) {
  GS_LAUNCH_CHECK(gs_scale_u8_cuda(in, out, count, p, s));
  return 0;
}
static int cu_scale_u16(const uint16_t *in, uint16_t *out, size_t count, gs_scale_params p, void *s) {
  GS_LAUNCH_CHECK(gs_scale_u16_cuda(in, out, count, p, s));
  return 0;
}

static int cu_halo_copy(const gs_halo_boxes *b, void *s) {
  GS_LAUNCH_CHECK(gs_halo_copy_cuda(b, s));
  return 0;
}
static int cu_halo_signal(uint64_t *flag, gs_tick value, void *s) {
  GS_LAUNCH_CHECK(gs_halo_signal_cuda(flag, value, s));
  return 0;
}
static int cu_halo_wait(const uint64_t *flag, gs_tick value, void *s) {
  GS_LAUNCH_CHECK(gs_halo_wait_cuda(flag, value, s));
  return 0;
}
static int cu_fdtd_step(const gs_fdtd_step_args *a, const gs_fdtd_region *r, int n, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd_step_cuda(a, r, n, s));
  return 0;
}
static int cu_fdtd_inject(float *ez, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n, int pdl,
                          void *s) {
  GS_LAUNCH_CHECK(gs_fdtd_inject_cuda(ez, off, val, stride, t, n, pdl, s));
  return 0;
}
static int cu_fdtd_sample(gs_fdtd_view v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd_sample_cuda(v, off, n, out, slots, t, s));
  return 0;
}
static int cu_fdtd3_step(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd3_step_cuda(a, r, n, s));
  return 0;
}
static int cu_fdtd3_pass(const gs_fdtd3_step_args *a, gs_fdtd3_region box, gs_fdtd3_region stored, int h, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd3_pass_cuda(a, box, stored, h, s));
  return 0;
}
static int cu_fdtd3_inject(float *f, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd3_inject_cuda(f, off, val, stride, t, n, s));
  return 0;
}
static int cu_fdtd3_sample(gs_fdtd3_fields v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t,
                           void *s) {
  GS_LAUNCH_CHECK(gs_fdtd3_sample_cuda(v, off, n, out, slots, t, s));
  return 0;
}
static int cu_fdtd3_disp_a(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd3_disp_a_cuda(a, d, s));
  return 0;
}
static int cu_fdtd3_disp_b(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd3_disp_b_cuda(a, d, s));
  return 0;
}
static int cu_fdtd3_sources(const gs_fdtd3_step_args *a, const gs_fdtd3_srcs *src, gs_tick t, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd3_sources_cuda(a, src, t, s));
  return 0;
}

static int cu_fdtd3_pw(const gs_fdtd3_step_args *a, const gs_fdtd3_pw *w, int part, gs_tick t, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd3_pw_cuda(a, w, part, t, s));
  return 0;
}
static int cu_fdtd_run(const gs_fdtd_run_args *a, int64_t steps, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd_run_cuda(a, steps, s));
  return 0;
}
static int cu_fdtd_fuse(const gs_fdtd_run_args *a, int64_t steps, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd_fuse_cuda(a, steps, s));
  return 0;
}
static int cu_fdtd_clock(int64_t *c, int64_t v0, int64_t v1, int add, void *s) {
  GS_LAUNCH_CHECK(gs_fdtd_clock_cuda(c, v0, v1, add, s));
  return 0;
}

/* CUDA graphs: capture of what s (and the streams that join it through
 * events) queues, instantiated once, replayed. */
static void cu_graph_begin(gs_stream s) {
  GS_CUDA_CHECK(cudaStreamBeginCapture((cudaStream_t)s, cudaStreamCaptureModeThreadLocal));
}
static void *cu_graph_end(gs_stream s) {
  cudaGraph_t g;
  cudaGraphExec_t x;
  GS_CUDA_CHECK(cudaStreamEndCapture((cudaStream_t)s, &g));
  GS_CUDA_CHECK(cudaGraphInstantiate(&x, g, 0));
  GS_CUDA_CHECK(cudaGraphDestroy(g));
  return x;
}
static void cu_graph_launch(void *x, gs_stream s) {
  GS_CUDA_CHECK(cudaGraphLaunch((cudaGraphExec_t)x, (cudaStream_t)s));
}
static void cu_graph_free(void *x) {
  GS_CUDA_CHECK(cudaGraphExecDestroy((cudaGraphExec_t)x));
}

const gs_backend gs_backend_cuda = {
    .name = "cuda",
    .is_gpu = 1,
    .device_count = cu_device_count,
    .device_select = cu_device_select,
    .device_describe = cu_device_describe,
    .can_access_peer = cu_can_access_peer,
    .device_current = cu_device_current,
    .device_by_pci = cu_device_by_pci,
    .ipc_mem_handle = cu_ipc_mem_handle,
    .ipc_mem_open = cu_ipc_mem_open,
    .ipc_mem_close = cu_ipc_mem_close,
    .ipc_event_create = cu_ipc_event_create,
    .ipc_event_handle = cu_ipc_event_handle,
    .ipc_event_open = cu_ipc_event_open,
    .peer_copy_gbs = cu_peer_copy_gbs,
    .mem_available = cu_mem_available,
    .dev_alloc = cu_dev_alloc,
    .dev_free = cu_dev_free,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .copy_h2d = cu_copy_h2d,
    .copy_d2h = cu_copy_d2h,
    .copy_d2d = cu_copy_d2d,
    .zero = cu_zero,
    .copy_2d = cu_copy_2d,
    .copy_2d_d2d = cu_copy_2d_d2d,
    .stream_create = cu_stream_create,
    .stream_destroy = cu_stream_destroy,
    .stream_sync = cu_stream_sync,
    .event_create = cu_event_create,
    .event_destroy = cu_event_destroy,
    .event_record = cu_event_record,
    .stream_wait_event = cu_stream_wait_event,
    .event_sync = cu_event_sync,
    .event_elapsed_ms = cu_event_elapsed_ms,
    .scale_u8 = cu_scale_u8,
    .scale_u16 = cu_scale_u16,
    .fdtd_step = cu_fdtd_step,
    .fdtd_inject = cu_fdtd_inject,
    .fdtd_sample = cu_fdtd_sample,
    .fdtd_clock = cu_fdtd_clock,
    .fdtd_run = cu_fdtd_run,
    .fdtd_run_fits = gs_fdtd_run_fits_cuda,
    .fdtd_run_form = gs_fdtd_run_form_cuda,
    .fdtd_run_scratch = gs_fdtd_run_scratch_cuda,
    .fdtd_fuse = cu_fdtd_fuse,
    .fdtd_fuse_fits = gs_fdtd_fuse_fits_cuda,
    .fdtd3_step = cu_fdtd3_step,
    .fdtd3_pass = cu_fdtd3_pass,
    .fdtd3_inject = cu_fdtd3_inject,
    .fdtd3_sample = cu_fdtd3_sample,
    .fdtd3_disp_a = cu_fdtd3_disp_a,
    .fdtd3_disp_b = cu_fdtd3_disp_b,
    .fdtd3_sources = cu_fdtd3_sources,
    .fdtd3_pw = cu_fdtd3_pw,
    .graph_begin = cu_graph_begin,
    .graph_end = cu_graph_end,
    .graph_launch = cu_graph_launch,
    .graph_free = cu_graph_free,
    .halo_copy = cu_halo_copy,
    .halo_signal = cu_halo_signal,
    .halo_wait = cu_halo_wait,
};
