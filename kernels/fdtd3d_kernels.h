/* 3D FDTD (Yee) update kernels for one rank and their CPU twins, gprMax 4's
 * update equations (docs/gprmax-rules.md sections a, d, g in 3D).
 *
 * Fields: Ex Ey Ez Hx Hy Hz, float32, one array each over the nodes (i, j, k),
 * i in [0, nx], j in [0, ny], k in [0, nz]; Yee positions as gprMax: Ex at
 * (i+1/2, j, k), Ey (i, j+1/2, k), Ez (i, j, k+1/2), Hx (i, j+1/2, k+1/2),
 * Hy (i+1/2, j, k+1/2), Hz (i+1/2, j+1/2, k).
 * Layout (every field, material array and H material array alike): x
 * fastest; node (i, j, k) at (k * rows + j) * pitch + i, where pitch (floats
 * per row) is a multiple of 32 at least nx + 1 and rows >= ny + 1 (so plane =
 * rows * pitch elements). A warp takes 32 consecutive i of one row: loads of
 * 128 aligned bytes, and the neighbours in j and k are whole rows and planes
 * away (gs_fdtd3_layout() gives the sizes).
 *
 * Updated nodes (gprMax 4's 3D ranges; every other node keeps its value, 0):
 *   Ex: i [0, nx), j [1, ny), k [1, nz)    Hx: i [1, nx], j [0, ny), k [0, nz)
 *   Ey: i [1, nx), j [0, ny), k [1, nz)    Hy: i [0, nx), j [1, ny], k [0, nz)
 *   Ez: i [1, nx), j [1, ny), k [0, nz)    Hz: i [0, nx), j [0, ny), k [1, nz]
 *   Ex = CA Ex + CBy (Hz - Hz[j-1]) - CBz (Hy - Hy[k-1])   (left to right)
 *   Ey = CA Ey + CBz (Hx - Hx[k-1]) - CBx (Hz - Hz[i-1])
 *   Ez = CA Ez + CBx (Hy - Hy[i-1]) - CBy (Hx - Hx[j-1])
 *   Hx = DA Hx - DBy (Ez[j+1] - Ez) + DBz (Ey[k+1] - Ey)
 *   Hy = DA Hy - DBz (Ex[k+1] - Ex) + DBx (Ez[i+1] - Ez)
 *   Hz = DA Hz - DBx (Ey[i+1] - Ey) + DBy (Ex[j+1] - Ex)
 * (with free-space H, "DA Hx" is just Hx: the same bits as DA = 1.)
 *
 * CPML (gprMax's HORIPML, first order, in gprMax's own form, so that the
 * round-off is gprMax's): a slab normal to axis dir corrects the terms of the
 * E and H updates that differ along dir, in the order the slabs are listed
 * (gprMax's: x0, y0, z0, xmax, ymax, zmax): with d = difference / cell size,
 * field = fmaf(+-src, fmaf(RA - 1, d, RB Phi), field) and the new
 * Phi = fmaf(RE, Phi, -(RF d)) (the field takes the old Phi; src is the
 * node material's srce or srcm, the sign that of the term). gprMax's other
 * forms (HORIPML with two CFS terms, MRIPML with one or two) take the same
 * places with their own expressions (fdtd3d_node.h, gs_fdtd3_pml_x),
 * selected by pml_form; the GPU's one-thread-per-node kernels are built
 * once per form, so the first-order HORIPML code is what it was.
 * The sums are contracted as gprMax's compiled update contracts them
 * (docs/gprmax-rules.md, "Fused multiply-adds"):
 *   E = fmaf(-cm, dm, fmaf(CA, E, cp dp)), H = fmaf(cp, dp, fmaf(DA, H, -(cm dm)))
 * for E = CA E + cp dp - cm dm and H = DA H - cm dm + cp dp.
 *
 * Each GPU launcher gs_fdtd3_X_cuda() has a CPU twin gs_fdtd3_X_ref() with the
 * same signature and the same expressions (fdtd3d_node.h) evaluated without
 * fused multiply-add on both sides, so the two give the same bits. Pointers
 * are device pointers for the GPU and host pointers for the CPU; stream is a
 * cudaStream_t (ignored by the CPU). All return 0 or a backend error code. */
#ifndef GS_FDTD3D_KERNELS_H
#define GS_FDTD3D_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "tick.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_FDTD3_MAX_MATERIALS 256

/* Electric coefficients of one material (gprMax's updatecoeffsE row):
 * CA, CBx, CBy, CBz and srce = 1 / (eps / dt + sigma / 2) (for sources;
 * the kernels do not read it). */
typedef struct gs_fdtd3_coef {
  float ca, cbx, cby, cbz, src;
} gs_fdtd3_coef;

/* Magnetic coefficients of one material (gprMax's updatecoeffsH row): DA,
 * DBx, DBy, DBz and srcm = 1 / (mu / dt + sigma* / 2) (the CPML's factor). */
typedef struct gs_fdtd3_hcoef {
  float da, dbx, dby, dbz, src;
} gs_fdtd3_hcoef;

/* One CPML slab: the face normal to axis dir (0 x, 1 y, 2 z) at index 0
 * (side 0) or at n_dir (side 1), t >= 1 cells thick. Node n along dir
 * (n_dir = nx, ny or nz):
 *   E (nodes at integer positions along dir): side 0: n in [1, t], depth
 *     q = t - n; side 1: n in [n_dir - t, n_dir), q = n - (n_dir - t);
 *   H (half nodes, n + 1/2): side 0: n in [0, t), q = t - 1 - n; side 1: as E.
 * Profiles (t values each, gprMax's float32 HORIPML coefficients): ra1e, rbe,
 * ree, rfe (RA - 1, RB, RE, RF) for E at depth q, ra1h, rbh, reh, rfh for H at
 * depth q + 1/2; d is the cell size along dir (float32: gprMax divides each
 * difference by it). The slab corrects the
 * two components other than dir, E and H, in x, y, z order: slot 0 and 1
 * (x slab: Ey Ez, Hy Hz; y slab: Ex Ez, Hx Hz; z slab: Ex Ey, Hx Hy). Phi
 * arrays (psi_*), one per slot, t x nb x na floats, where (a, b) are the other two
 * axes in x, y, z order with na, nb their cell counts (nodes at index n_a or
 * n_b take no correction, as in gprMax): element [(q nb + b) na + a] for y
 * and z slabs, [(b na + a) t + q] for x slabs (i fastest, so that a warp's
 * accesses are contiguous); read from _in, written to _out (the two may not
 * be the same array). The strides na and nb are the fields sa, sb: the
 * face's cell counts on one rank; on a part of a model split over ranks
 * (src/engine/fdtd3d_dist.c) the cells along a and b its arrays hold, with
 * the psi pointers biased by the part's origin, so that a rank holds only
 * its piece of the slab and the indices stay global. */
typedef struct gs_fdtd3_slab {
  int dir, side;
  int64_t t;
  float d;
  const float *ra1e, *rbe, *ree, *rfe, *ra1h, *rbh, *reh, *rfh;
  const float *psi_e_in[2], *psi_h_in[2];
  float *psi_e_out[2], *psi_h_out[2];
  int64_t sa, sb; /* psi strides (above) */
  /* The other forms (gs_fdtd3_step_args.pml_form > 0): per depth q,
   * GS_FDTD3_PML_K float32 coefficients at ke + q K (E) and kh + q K (H)
   * (gs_fdtd3_pml_coefs), ra1e .. rfh unused; with two CFS terms each psi
   * array holds the second term's Phi psi2 elements after the first's. */
  const float *ke, *kh;
  int64_t psi2;
} gs_fdtd3_slab;

/* The CPML's forms (gprMax's #pml_formulation and its count of #pml_cfs
 * terms): HORIPML of first order (gprMax's default, the slab's ra1e ..
 * profiles) and the others (the slab's ke, kh tables). */
enum { GS_FDTD3_HORIPML1 = 0, GS_FDTD3_HORIPML2, GS_FDTD3_MRIPML1, GS_FDTD3_MRIPML2, GS_FDTD3_PML_FORMS };
#define GS_FDTD3_PML_K 9 /* coefficients a depth in the other forms */

/* The K coefficients of one depth in form (not HORIPML1) from gprMax's
 * float32 RA, RB, RE, RF of its CFS terms (r[term][0..3]), as gprMax's
 * compiled update derives them in float32 (RA0 RA1 - 1 fused):
 *   HORIPML2: RA0 RA1 - 1, RA1 RB0, RB1, RA0, RB0, RF1, RE1, RF0, RE0
 *   MRIPML1:  IRA = 1 / RA0, IRA - 1, (IRA RB0) RF0, RE0
 *   MRIPML2:  IRA = 1 / (RA0 + RA1), IRA - 1, RB0, RB1, IRA RF0, IRA RF1, RE0, RE1
 * (unused places 0). */
void gs_fdtd3_pml_coefs(int form, const float r[2][4], float out[GS_FDTD3_PML_K]);

/* Dispersive (Debye, Lorentz, Drude) coefficients of one material and pole:
 * c0 = e0 exp(q dt/2), c1 = exp(q dt), c2 = zt, gprMax's
 * updatecoeffsdispersive row (float32, or complex64 with the imaginary parts
 * c1i, c2i when a Lorentz or Drude material is present; phi reads only c0's
 * real part); zeros for non-dispersive materials and poles a material lacks. */
typedef struct gs_fdtd3_disp_coef {
  float c0, c1, c2, c1i, c2i;
} gs_fdtd3_disp_coef;

/* The dispersive poles the E update carries (kernels/fdtd3d_disp.h: the
 * design). Per E component c, the nodes whose pole state the E update
 * itself advances (gprMax's A and B halves in one go, "fused") hold it
 * compactly: node offset o lies in block o >> 5 of 32 nodes (a block is a
 * piece of one row: pitch and the arrays' origin are multiples of 32);
 * map[c][2 b] is the first slot of block b's fused nodes, map[c][2 b + 1]
 * the mask of them (bit o & 31), so node o's slot is the first plus the
 * fused nodes before it in the block; its state is t[c][slot npoles w ..]
 * (w = 2 floats a pole, re and im, when cplx, else 1). map[c] is biased as
 * the fields (indexed by global offset >> 5), NULL when component c has no
 * fused node; npoles 0 when the scene has no dispersive material. */
typedef struct gs_fdtd3_poles {
  int npoles;                     /* gprMax's maxpoles (1..15) */
  int cplx;                       /* complex pole state (Lorentz or Drude present) */
  const gs_fdtd3_disp_coef *coef; /* [material][pole]: GS_FDTD3_MAX_MATERIALS x npoles */
  const uint32_t *map[3];
  float *t[3];
} gs_fdtd3_poles;

/* Half-open node box [i0, i1) x [j0, j1) x [k0, k1). */
typedef struct gs_fdtd3_region {
  int64_t i0, i1, j0, j1, k0, k1;
} gs_fdtd3_region;

/* Everything one step reads and writes. */
typedef struct gs_fdtd3_step_args {
  const float *ex, *ey, *ez, *hx, *hy, *hz; /* in: E^n, H^{n-1/2} */
  float *ex_out, *ey_out, *ez_out;          /* out: E^{n+1} */
  float *hx_out, *hy_out, *hz_out;          /* out: H^{n+1/2} */
  /* Material index of each Ex, Ey and Ez node, into coef (256 entries). */
  const uint8_t *mex, *mey, *mez;
  const gs_fdtd3_coef *coef;
  int64_t pitch, plane; /* elements per row, per plane */
  int64_t nx, ny, nz;   /* cells */
  /* Free-space H: Hx -= dby dEz + ..., used when hmx is NULL; srcm its
   * CPML factor. */
  float dbx, dby, dbz, srcm;
  /* Magnetic materials: the material of each Hx, Hy, Hz node and the table
   * (256 entries); NULL when all H is free space. */
  const uint8_t *hmx, *hmy, *hmz;
  const gs_fdtd3_hcoef *hcoef;
  int nslab;
  gs_fdtd3_slab slab[6];
  int pml_form; /* GS_FDTD3_HORIPML1 .. (every slab's) */
  /* The nodes the arrays hold (a part of a model split over ranks: its
   * owned nodes, ghost layers and the columns that align its rows); the
   * fused kernel reads zeros outside. All zero: the whole grid (one rank). */
  gs_fdtd3_region held;
  /* Dispersive materials (above); all zero without them. */
  gs_fdtd3_poles poles;
} gs_fdtd3_step_args;

/* Where slab s's E or H corrections reach and where they keep their Phi,
 * as affine maps of the node (i, j, k): gs_fdtd3_in_slab's test and
 * gs_fdtd3_cpml_f's depth and element (fdtd3d_node.h), worked out once a
 * launch rather than once a node and component. The same values as those
 * functions', in 32-bit depths and 64-bit elements. */
typedef struct gs_fdtd3_slab_geo {
  int dir;                    /* the slab's axis */
  int i0, i1, j0, j1, k0, k1; /* the nodes reached: [i0, i1) x [j0, j1) x [k0, k1) */
  int qi, qj, qk, q0;         /* depth q = qi i + qj j + qk k + q0 */
  int64_t wi, wj, wk, w0;     /* Phi element w = wi i + wj j + wk k + w0 */
} gs_fdtd3_slab_geo;

/* Every slab's, for H (s[0]) and E (s[1]). */
typedef struct gs_fdtd3_geo {
  gs_fdtd3_slab_geo s[2][6];
} gs_fdtd3_geo;

/* The row pitch (elements, a multiple of 32) and plane size (elements) of a
 * grid of nx x ny x nz cells, and the elements one array holds. */
void gs_fdtd3_layout(int64_t nx, int64_t ny, int64_t nz, int64_t *pitch, int64_t *plane, int64_t *count);

/* One time step over the nodes of n regions r[0..n) (disjoint; together
 * usually the whole grid [0, nx] x [0, ny] x [0, nz]): every field node of a
 * region gets its new H (with CPML) and its new E (with CPML; a node with
 * fused poles, a->poles, with its dispersive term, and its pole state
 * advanced from the new E: gprMax's A and B halves). The in and out
 * field sets must not overlap. The GPU launcher sends the part of a region
 * that no slab reaches, with free-space H, to a fused marching kernel; with
 * first-order HORIPML the z slabs' nodes above and below that box (in its
 * rows and columns) to a variant of it with their CPML terms, where that box
 * is wide enough (fdtd3d.cu, step_shell); the rest to a one-thread-per-node
 * kernel. */
typedef int (*gs_fdtd3_step_fn)(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream);
int gs_fdtd3_step_ref(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream);
int gs_fdtd3_step_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream);

/* One half of a step over the nodes of box (a model split over ranks,
 * issue #19): h = 1: the new H of every node of box (its H psi stored);
 * h = 0: the new E of every node of box, reading the new H of the nodes
 * one lower from the out arrays wherever they lie in stored (the caller
 * stored them: the H pass and the exchanged ghost layers) and recomputing
 * the others (none, when stored holds the box and its lower ghost layer).
 * The per-node expressions are those of gs_fdtd3_step (the same bits). */
typedef int (*gs_fdtd3_pass_fn)(const gs_fdtd3_step_args *a, gs_fdtd3_region box, gs_fdtd3_region stored, int h,
                                void *stream);
int gs_fdtd3_pass_ref(const gs_fdtd3_step_args *a, gs_fdtd3_region box, gs_fdtd3_region stored, int h, void *stream);
int gs_fdtd3_pass_cuda(const gs_fdtd3_step_args *a, gs_fdtd3_region box, gs_fdtd3_region stored, int h, void *stream);

/* The slabs along each axis, side 0 and side 1: their index in the step's
 * slab list, -1 where there is none. */
typedef struct gs_fdtd3_axes {
  signed char s[3][2];
} gs_fdtd3_axes;

/* a's slabs by axis in *ax; whether no node lies in both slabs of an axis
 * (their thicknesses add up to fewer cells than the axis has), so that a
 * node takes at most one slab term along each axis (gs_fdtd3_boxes_ref), and
 * the arrays hold fewer than 2^31 elements (32-bit offsets). */
int gs_fdtd3_axes_of(const gs_fdtd3_step_args *a, gs_fdtd3_axes *ax);

/* New H (e = 0) or E (e = 1) of every node of the n boxes box[], each node
 * in one pass with its CPML terms and fused poles: the bits of
 * gs_fdtd3_step. The boxes lie in a region from node (0, 0, 0) that the
 * step covers, and for E the new H of that region is all stored by now.
 * Where gs_fdtd3_axes_of holds, each node's terms are worked out by axis
 * (fdtd3d_node.h, gs_fdtd3_h_axes); else as gs_fdtd3_pass. The GPU steps
 * the boxes around its fused kernels' nodes so, where the step's region
 * starts at node (0, 0, 0). */
typedef int (*gs_fdtd3_boxes_fn)(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, int e, void *stream);
int gs_fdtd3_boxes_ref(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, int e, void *stream);
int gs_fdtd3_boxes_cuda(const gs_fdtd3_step_args *a, const gs_fdtd3_region *box, int n, int e, void *stream);

/* gs_fdtd3_step_ref's step with the boxes gs_fdtd3_split leaves around its
 * fused box stepped by gs_fdtd3_boxes_ref, as the GPU steps them: the same
 * bits (a region that does not start at node (0, 0, 0) is stepped whole). */
int gs_fdtd3_step_boxes_ref(const gs_fdtd3_step_args *a, const gs_fdtd3_region *r, int n, void *stream);

/* The slabs' geometry of a (gs_fdtd3_geo). */
void gs_fdtd3_geo_of(const gs_fdtd3_step_args *a, gs_fdtd3_geo *g);

/* Splits the node box r into at most 7 boxes: out[0] (possibly empty) where
 * the fused kernel may run (no slab in reach, free-space H, interior) and
 * the rest. Returns how many boxes were written. */
int gs_fdtd3_split(const gs_fdtd3_step_args *a, gs_fdtd3_region r, gs_fdtd3_region out[7]);

/* The boxes of r around its part c (c's bounds within r's, lo <= hi: c may
 * be empty): below and above c in k (the whole of r in i and j), then in j
 * (within c's k), then in i; the non-empty ones written to out, their
 * count returned. */
int gs_fdtd3_around(gs_fdtd3_region r, gs_fdtd3_region c, gs_fdtd3_region out[6]);

/* Hertzian dipoles: field[off[k]] -= val[t stride + k] (n distinct nodes,
 * device memory; val already scaled by srce and the dipole length). */
int gs_fdtd3_inject_ref(float *field, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n,
                        void *stream);
int gs_fdtd3_inject_cuda(float *field, const int64_t *off, const float *val, int64_t stride, gs_tick t, int n,
                         void *stream);

/* Receivers: out[6 (t % slots) n + 6 k + c] = component c (Ex Ey Ez Hx Hy
 * Hz) at off[k], from the six arrays f[0..6). */
typedef struct gs_fdtd3_fields {
  const float *f[6];
} gs_fdtd3_fields;
int gs_fdtd3_sample_ref(gs_fdtd3_fields v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t,
                        void *stream);
int gs_fdtd3_sample_cuda(gs_fdtd3_fields v, const int64_t *off, int n, float *out, int64_t slots, gs_tick t,
                         void *stream);

#ifdef __cplusplus
}
#endif
#endif
