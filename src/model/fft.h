/* A plain complex FFT in double precision for the fractals (src/model/fractals.c)
 * when gpustencil is built without FFTW: mixed radix 2, 3, 4, 5 and small odd
 * factors, Bluestein's algorithm for lengths with a prime factor above 61.
 * Any length; the last bits differ from FFTW's and from gprMax's pocketfft by
 * a few units in the last place (docs/gprmax-rules.md section k). */
#ifndef GS_FFT_H
#define GS_FFT_H

#include <stdint.h>

#include "error.h"

/* In place over a C-order array of n[0] x ... x n[rank - 1] complex values
 * (interleaved re, im), every axis transformed: sign -1 forward, +1
 * backward (unnormalised, as FFTW). GS_OK or GS_ERR_NOMEM. */
gs_status gs_fft_nd(double *data, int rank, const int64_t *n, int sign);

#endif
