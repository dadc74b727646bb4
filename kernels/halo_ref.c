/* CPU twin of kernels/halo.cu. */
#include <string.h>

#include "halo_kernels.h"

int gs_halo_copy_ref(const gs_halo_boxes *b, void *stream) {
  (void)stream;
  for (int k = 0; k < b->n; ++k) {
    const gs_halo_box *x = &b->box[k];
    for (int64_t r = 0; r < gs_halo_rows(x); ++r)
      memcpy(x->dst + gs_halo_dst_row(x, r), x->src + gs_halo_src_row(x, r), (size_t)x->w * sizeof(float));
  }
  if (b->flag) *(volatile uint64_t *)b->flag = (uint64_t)gs_tick_value(b->value);
  return 0;
}

int gs_halo_signal_ref(uint64_t *flag, gs_tick value, void *stream) {
  (void)stream;
  *(volatile uint64_t *)flag = (uint64_t)gs_tick_value(value);
  return 0;
}

int gs_halo_wait_ref(const uint64_t *flag, gs_tick value, void *stream) {
  (void)stream;
  return *(const volatile uint64_t *)flag >= (uint64_t)gs_tick_value(value) ? 0 : -1;
}
