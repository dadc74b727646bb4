/* The CPU backend: host memory, synchronous copies, host-clock events. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "parallel.h"
#include "progress.h"

struct gs_event_s {
  double t_ms;
};

static int cpu_device_count(void) {
  return 0;
}
static void cpu_device_select(int index) {
  (void)index;
}
static void cpu_device_describe(int index, gs_device_desc *out) {
  (void)index;
  memset(out, 0, sizeof *out);
  strcpy(out->name, "cpu");
}
static int cpu_can_access_peer(int a, int b) {
  return a == b;
}
static int cpu_device_current(void) {
  return -1;
}
static int cpu_device_by_pci(const char *bus_id) {
  (void)bus_id;
  return -1;
}

static void *cpu_alloc(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) gs_fatal("posix_memalign", "out of memory", __FILE__, __LINE__);
  return p;
}
static void cpu_free(void *p) {
  free(p);
}
static void cpu_copy(void *dst, const void *src, size_t bytes, gs_stream s) {
  (void)s;
  if (bytes) memmove(dst, src, bytes);
}
static void cpu_zero(void *dst, size_t bytes, gs_stream s) {
  (void)s;
  memset(dst, 0, bytes);
}

/* The 3D step on the host's cores: each region cut into slabs of z planes,
 * one per thread. The update gives every node the same bits whatever box
 * it is computed in (kernels/fdtd3d_node.h: a node reads stored H only
 * inside its own box and recomputes the rest), so the cut changes nothing
 * but the time. Small grids stay on one thread (thread start-up). */
typedef struct step3_job {
  const gs_fdtd3_step_args *a;
  const gs_fdtd3_region *r;
  int n, parts;
} step3_job;

static void step3_slab(void *ctx, int64_t lo, int64_t hi, int part) {
  (void)hi;
  const step3_job *job = ctx;
  for (int q = 0; q < job->n; ++q) {
    gs_fdtd3_region s = job->r[q];
    const int64_t len = s.k1 - s.k0;
    s.k0 = job->r[q].k0 + len * lo / job->parts;
    s.k1 = job->r[q].k0 + len * (lo + 1) / job->parts;
    gs_fdtd3_step_ref(job->a, &s, 1, NULL);
  }
  (void)part;
}

static int cpu_fdtd3_step(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream) {
  double nodes = 0;
  for (int q = 0; q < n; ++q)
    if (r[q].i1 > r[q].i0 && r[q].j1 > r[q].j0 && r[q].k1 > r[q].k0)
      nodes += (double)(r[q].i1 - r[q].i0) * (double)(r[q].j1 - r[q].j0) * (double)(r[q].k1 - r[q].k0);
  /* GS_FDTD3_REF=boxes (a test's knob): the boxes around the fused box as the GPU steps them, one thread. */
  const char *ref = getenv("GS_FDTD3_REF");
  if (ref && !strcmp(ref, "boxes")) return gs_fdtd3_step_boxes_ref(a, r, n, stream);
  int parts = nodes < 262144.0 ? 1 : gs_parallel_threads();
  if (parts == 1) return gs_fdtd3_step_ref(a, r, n, stream);
  step3_job job = {a, r, n, parts};
  gs_parallel_for(parts, parts, step3_slab, &job);
  return 0;
}

/* Half a step on the host's cores, the box cut into slabs of z planes (each
 * node's value does not depend on the cut: E reads only stored H). */
typedef struct pass3_job {
  const gs_fdtd3_step_args *a;
  gs_fdtd3_region box, stored;
  int h, parts;
} pass3_job;

static void pass3_slab(void *ctx, int64_t lo, int64_t hi, int part) {
  (void)hi;
  (void)part;
  const pass3_job *job = ctx;
  gs_fdtd3_region s = job->box;
  const int64_t len = s.k1 - s.k0;
  s.k0 = job->box.k0 + len * lo / job->parts;
  s.k1 = job->box.k0 + len * (lo + 1) / job->parts;
  gs_fdtd3_pass_ref(job->a, s, job->stored, job->h, NULL);
}

static int cpu_fdtd3_pass(const gs_fdtd3_step_args *a, gs_fdtd3_region box, gs_fdtd3_region stored, int h,
                          void *stream) {
  const double nodes = box.i1 > box.i0 && box.j1 > box.j0 && box.k1 > box.k0
                           ? (double)(box.i1 - box.i0) * (double)(box.j1 - box.j0) * (double)(box.k1 - box.k0)
                           : 0;
  const int parts = nodes < 262144.0 ? 1 : gs_parallel_threads();
  if (parts == 1) return gs_fdtd3_pass_ref(a, box, stored, h, stream);
  pass3_job job = {a, box, stored, h, parts};
  gs_parallel_for(parts, parts, pass3_slab, &job);
  return 0;
}

/* The deferred dispersive nodes' passes on the host's cores: each component's node list cut
 * into contiguous parts, one per thread (every listed node writes only its
 * own E, pole state and CPML Phi, so the cut changes nothing but the time). */
typedef struct disp3_job {
  const gs_fdtd3_step_args *a;
  const gs_fdtd3_disp_args *d;
  gs_fdtd3_disp_a_fn fn;
  int parts;
} disp3_job;

static void disp3_part(void *ctx, int64_t lo, int64_t hi, int part) {
  (void)hi, (void)part;
  const disp3_job *job = ctx;
  gs_fdtd3_disp_args d = *job->d;
  const int64_t per = (int64_t)job->a->poles.npoles * (job->a->poles.cplx ? 2 : 1);
  for (int c = 0; c < 3; ++c) {
    const int64_t e0 = job->d->n[c] * lo / job->parts, e1 = job->d->n[c] * (lo + 1) / job->parts;
    d.off[c] = job->d->off[c] + e0;
    d.t[c] = job->d->t[c] + e0 * per;
    d.n[c] = e1 - e0;
  }
  job->fn(job->a, &d, NULL);
}

static int cpu_disp3(gs_fdtd3_disp_a_fn fn, const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d) {
  const int64_t nodes = d->n[0] + d->n[1] + d->n[2];
  const int parts = nodes < 65536 ? 1 : gs_parallel_threads();
  if (parts == 1) return fn(a, d, NULL);
  disp3_job job = {a, d, fn, parts};
  gs_parallel_for(parts, parts, disp3_part, &job);
  return 0;
}

static int cpu_fdtd3_disp_a(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream) {
  (void)stream;
  return cpu_disp3(gs_fdtd3_disp_a_ref, a, d);
}

static int cpu_fdtd3_disp_b(const gs_fdtd3_step_args *a, const gs_fdtd3_disp_args *d, void *stream) {
  (void)stream;
  return cpu_disp3(gs_fdtd3_disp_b_ref, a, d);
}

static void cpu_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                        int to_device, gs_stream s) {
  (void)s;
  (void)to_device;
  for (size_t r = 0; r < height; ++r)
    memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
}
static gs_stream cpu_stream_create(int high_priority) {
  (void)high_priority;
  return NULL;
}
static void cpu_stream_destroy(gs_stream s) {
  (void)s;
}
static void cpu_stream_sync(gs_stream s) {
  (void)s;
}

static gs_event cpu_event_create(int timing) {
  (void)timing;
  gs_event e = gs_xcalloc(1, sizeof *e);
  return e;
}
static void cpu_event_destroy(gs_event e) {
  free(e);
}
static void cpu_event_record(gs_event e, gs_stream s) {
  (void)s;
  e->t_ms = gs_now_s() * 1e3;
}
static void cpu_stream_wait_event(gs_stream s, gs_event e) {
  (void)s;
  (void)e;
}
static void cpu_event_sync(gs_event e) {
  (void)e;
}
static float cpu_event_elapsed_ms(gs_event a, gs_event b) {
  return (float)(b->t_ms - a->t_ms);
}

const gs_backend gs_backend_cpu = {
    .name = "cpu",
    .is_gpu = 0,
    .device_count = cpu_device_count,
    .device_select = cpu_device_select,
    .device_describe = cpu_device_describe,
    .can_access_peer = cpu_can_access_peer,
    .device_current = cpu_device_current,
    .device_by_pci = cpu_device_by_pci,
    .mem_available = gs_host_mem_available,
    .dev_alloc = cpu_alloc,
    .dev_free = cpu_free,
    .host_alloc = cpu_alloc,
    .host_free = cpu_free,
    .copy_h2d = cpu_copy,
    .copy_d2h = cpu_copy,
    .copy_d2d = cpu_copy,
    .zero = cpu_zero,
    .copy_2d = cpu_copy_2d,
    .stream_create = cpu_stream_create,
    .stream_destroy = cpu_stream_destroy,
    .stream_sync = cpu_stream_sync,
    .event_create = cpu_event_create,
    .event_destroy = cpu_event_destroy,
    .event_record = cpu_event_record,
    .stream_wait_event = cpu_stream_wait_event,
    .event_sync = cpu_event_sync,
    .event_elapsed_ms = cpu_event_elapsed_ms,
    .scale_u8 = gs_scale_u8_ref,
    .scale_u16 = gs_scale_u16_ref,
    .fdtd_step = gs_fdtd_step_ref,
    .fdtd_inject = gs_fdtd_inject_ref,
    .fdtd_sample = gs_fdtd_sample_ref,
    .fdtd_clock = gs_fdtd_clock_ref,
    .fdtd_run = gs_fdtd_run_ref,
    .fdtd_run_fits = gs_fdtd_run_fits_ref,
    .fdtd_run_form = gs_fdtd_run_form_ref,
    .fdtd_run_scratch = gs_fdtd_run_scratch_ref,
    .fdtd_fuse = gs_fdtd_fuse_ref,
    .fdtd_fuse_fits = gs_fdtd_fuse_fits_ref,
    .fdtd3_step = cpu_fdtd3_step,
    .fdtd3_pass = cpu_fdtd3_pass,
    .fdtd3_inject = gs_fdtd3_inject_ref,
    .fdtd3_sample = gs_fdtd3_sample_ref,
    .fdtd3_disp_a = cpu_fdtd3_disp_a,
    .fdtd3_disp_b = cpu_fdtd3_disp_b,
    .fdtd3_sources = gs_fdtd3_sources_ref,
    .fdtd3_pw = gs_fdtd3_pw_ref,
    .halo_copy = gs_halo_copy_ref,
    .halo_signal = gs_halo_signal_ref,
    .halo_wait = gs_halo_wait_ref,
};
