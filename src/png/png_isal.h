/* PNG output through ISA-L's deflate (internal to src/png). */
#ifndef GS_PNG_ISAL_H
#define GS_PNG_ISAL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The ISA-L level (1..3) that serves --png-level level, or -1 where ISA-L
 * does not serve it (0: stored blocks; 4..9: denser than ISA-L can make). */
int gs_png_isal_level(int level);

/* Compresses len bytes as raw deflate at ISA-L level isal_level, without
 * history from earlier pieces. Unless last, the output ends with a full flush
 * (byte aligned, an empty stored block), so that pieces concatenate; with
 * last it ends with the final block. out holds cap bytes. GS_OK, or
 * GS_ERR_PNG when ISA-L fails or out is too small (the ISA-L code in
 * *isal_rc). Thread-safe: one work area per thread. */
gs_status gs_png_isal_deflate(const uint8_t *data, size_t len, int isal_level, int last, uint8_t *out, size_t cap,
                              size_t *outlen, int *isal_rc);

/* Adler-32 of data (ISA-L's vectorised one). */
uint32_t gs_png_isal_adler32(const uint8_t *data, size_t len);

/* ISA-L's vectorised CRC-32, Adler-32 (also inside inflate) and deflate
 * return with the upper halves of the AVX registers in use. SSE code run
 * after that (the unfilter and filter loops, the compiler's vectorised
 * loops; the build targets baseline x86-64) was measured 1.5x slower on the
 * development machine, so every ISA-L call here is followed by this
 * (vzeroupper where the CPU has AVX; nothing elsewhere). */
static inline void gs_png_isal_settle(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx"))
    __asm__ volatile("vzeroupper" ::
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
                           "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#endif
}

/* CRC-32 of data continued from crc, 0 to start (PNG's and zlib's CRC;
 * ISA-L's folding one, about 4x zlib 1.2's). */
uint32_t gs_png_isal_crc32(uint32_t crc, const uint8_t *data, size_t len);

/* Frees the calling thread's work area. */
void gs_png_isal_thread_cleanup(void);

#endif
