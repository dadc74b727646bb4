/* A model described by a gprMax input file, 2D or 3D (docs/fdtd.md lists the
 * commands and their meaning here).
 *
 * A 2D model is one cell thick along one axis (z: TMz, x: TMx, y: TMy). The
 * scene holds it in the engine's frame, where the thin axis is always the
 * third: (a, b, c) = (x, y, z) for TMz, (y, z, x) for TMx and (z, x, y) for
 * TMy (cyclic, so the curl keeps its signs). The engine's Ez, Hx, Hy are then
 * the field along the thin axis and the two H components across it; `axis`
 * maps the frame back to the file's axes for outputs. */
#ifndef GS_SCENE_H
#define GS_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "geometry3d.h"

enum {
  GS_WAVE_GAUSSIAN,
  GS_WAVE_GAUSSIANDOT,
  GS_WAVE_GAUSSIANDOTNORM,
  GS_WAVE_GAUSSIANDOTDOT,
  GS_WAVE_GAUSSIANDOTDOTNORM,
  GS_WAVE_RICKER,
  GS_WAVE_SINE,
  GS_WAVE_CONTSINE,
  GS_WAVE_GAUSSIANPRIME,       /* gprMax: the same as gaussiandot */
  GS_WAVE_GAUSSIANDOUBLEPRIME, /* gprMax: gaussiandotdot's shape with gaussian's chi and zeta */
  GS_WAVE_IMPULSE,             /* 1 while t < dt (gprMax) */
  GS_WAVE_USER                 /* #excitation_file: samples interpolated (src/model/scene_sources3d.c) */
};

/* A waveform read from an #excitation_file (scene_sources3d.c). */
typedef struct gs_user_wave gs_user_wave;

/* gprMax material: pec (or sigma = inf) is never averaged and gives zero
 * update coefficients. Compound materials (gprMax's dielectric smoothing,
 * "a+b+c+d") are made by src/model/geometry.c, not by the scene. */
typedef struct gs_material {
  char name[160];
  double er, sigma; /* relative permittivity, conductivity (S/m) */
  double mr, sm;    /* relative permeability, magnetic loss (Ohm/m) */
  int pec;
} gs_material;

/* #add_dispersion_debye, _lorentz, _drude (src/model/scene_dispersion.c):
 * poles added to a #material (gprMax's Add*Dispersion; 3D models only). One
 * entry per material named; a later command for the same material replaces
 * it. Per pole, as gprMax stores them: Debye delta_er, tau; Lorentz delta_er,
 * omega (in tau), delta (in alpha); Drude omega (in tau), alpha. */
#define GS_DISP_MAX_POLES 15
enum { GS_DISP_DEBYE, GS_DISP_LORENTZ, GS_DISP_DRUDE };
typedef struct gs_dispersion {
  char name[64]; /* the material as named; resolved at the end of the file */
  int material;  /* index into materials, -1 when a later command replaced this one */
  int line, npoles, kind;
  double deltaer[GS_DISP_MAX_POLES], tau[GS_DISP_MAX_POLES], alpha[GS_DISP_MAX_POLES];
} gs_dispersion;

typedef struct gs_waveform {
  char name[64];
  int type;
  double amp, freq;
  double dt;          /* the model's time step (impulse) */
  gs_user_wave *user; /* GS_WAVE_USER: its samples (owned by the scene) */
} gs_waveform;

typedef struct gs_source {
  int64_t i, j; /* node in the engine's frame, first run */
  int64_t k;    /* 3D: the node's z */
  int pol;      /* 3D: the component it drives (0 x, 1 y, 2 z) */
  int waveform;
  double start, stop; /* seconds */
} gs_source;

/* 3D: #plane_wave_angles / #plane_wave_vector (src/model/scene_sources3d.c;
 * the engine: src/engine/fdtd3d_planewave.c). */
typedef struct gs_plane_wave {
  int64_t lo[3], hi[3];   /* the TFSF box's corner nodes */
  double theta, phi, psi; /* degrees (the vector form: gprMax's angles of m) */
  double max_angle_diff;  /* degrees: the rational direction's tolerance */
  int waveform, material; /* indices into the scene's tables */
  double start, stop;     /* seconds (stop INFINITY: the time window) */
  int line;               /* the command's line, for messages */
} gs_plane_wave;

/* 3D sources other than Hertzian dipoles (src/model/scene_sources3d.c), in
 * file order within each kind. */
enum { GS_SRC3_MAGNETIC, GS_SRC3_VOLTAGE, GS_SRC3_TLINE };
typedef struct gs_source3 {
  int kind;          /* GS_SRC3_ */
  gs_source at;      /* node, component, waveform, delay and removal time */
  double resistance; /* voltage source (0: hard) and transmission line, Ohms */
} gs_source3;

/* Receiver outputs: bits of these, in gprMax's (alphabetical) order. */
enum { GS_OUT_EX, GS_OUT_EY, GS_OUT_EZ, GS_OUT_HX, GS_OUT_HY, GS_OUT_HZ, GS_OUT_IX, GS_OUT_IY, GS_OUT_IZ, GS_OUT_N };
#define GS_OUT_DEFAULT 0x3f
/* The constants gprMax 4 takes from scipy (CODATA 2018). */
#define GS_EPS0 8.8541878128e-12
#define GS_MU0 1.25663706212e-6
#define GS_PI 3.14159265358979323846 /* Ex Ey Ez Hx Hy Hz */

typedef struct gs_rx {
  int64_t i, j; /* node in the engine's frame, first run */
  int64_t k;    /* 3D: the node's z */
  char name[64];
  unsigned outputs; /* GS_OUT_ bits */
  int line;         /* file order (receivers.csv) */
  int offplane;     /* on the thin axis' far face: gprMax records 0 there */
  int hidden;       /* a helper: samples the H a current needs, not an output */
  int below, left;  /* helpers at (i, j - 1) and (i - 1, j) for the current along the thin axis, or -1 */
} gs_rx;

/* Objects, in file order, with gprMax's rounding already applied (cells and
 * nodes in the engine's frame; docs/fdtd.md, "Geometry"). */
enum { GS_OBJ_BOX, GS_OBJ_CYLINDER, GS_OBJ_MAP, GS_OBJ_EDGE, GS_OBJ_PLATE, GS_OBJ_TRIANGLE, GS_OBJ_SECTOR };

typedef struct gs_object {
  int type;
  int material;
  int averaging;              /* dielectric smoothing: the flag and the material allow it */
  int64_t ci0, ci1, cj0, cj1; /* cells [ci0, ci1) x [cj0, cj1) it may paint (box: exactly those;
                                 edge and plate: nodes [ci0, ci1] x [cj0, cj1]) */
  float fx[3], fy[3], fr;     /* cylinder centre (fx[0], fy[0]) and radius; triangle vertices; sector
                                 centre (fx[0], fy[0]), radius, start angle fx[1], angle fx[2] (radians) */
  float fdx, fdy;             /* cell sizes as gprMax's geometry code holds them (float) */
  int swap;                   /* triangle, sector: cells (f, g) in gprMax's axis order are the frame's (b, a) (TMy) */
  int64_t mi0, mj0;           /* map: lower-left cell */
  uint32_t mw, mh;            /* map: picture size */
  uint8_t *grey;              /* map: picture, top row first */
  int16_t lut[256];           /* map: grey level -> material, -1 keeps */
} gs_object;

/* #snapshot: the fields of a box of nodes, sampled every step[] nodes, at
 * iteration `iteration` (gprMax's count: taken after iteration - 1 steps). */
typedef struct gs_snapshot_req {
  int64_t lo[3], step[3], size[3]; /* file axes: first node, stride, cells */
  int64_t iteration;
  double seconds; /* the time as given (< 0: an iteration count was given) */
  char file[256]; /* name with extension (.h5, .vtkhdf or .vti) */
  int line;       /* the command's line, for messages */
} gs_snapshot_req;

/* #geometry_view: the cells' materials of a box, every step[] cells. */
typedef struct gs_geometry_view {
  int64_t lo[3], step[3], size[3];
  int64_t hi[3]; /* the upper corner as given, in cells (gprMax's pml_thickness uses it) */
  int fine;      /* type f: gprMax's per-edge view (3D models; 2D writes the cells) */
  char file[256];
  int line; /* the command's line, for messages */
} gs_geometry_view;

/* #geometry_objects_write (3D): cells [lo, hi) saved as BASE.h5 and
 * BASE_materials.txt (src/outputs/geometry_objects.c). */
typedef struct gs_geo_write {
  int64_t lo[3], hi[3];
  char base[256];
  int line; /* the command's line, for messages */
} gs_geo_write;

/* #geometry_objects_read (3D): a geometry objects file and its materials
 * list, placed at cell lo; objs3[obj] is its place in the geometry (its
 * arrays are read once the whole file is parsed, after every #material). */
typedef struct gs_geo_read {
  int64_t lo[3];
  char geo[2200], mat[2200]; /* paths as resolved (as given, else in the input file's folder) */
  int obj, line;
} gs_geo_read;

/* A file the scene read: the scene itself (line 0), a #material_map image,
 * a #geometry_objects_read file or materials list, an #excitation_file. */
typedef struct gs_scene_input {
  char path[2200];
  int line;
  char what[32]; /* the command that read it */
} gs_scene_input;

/* #soil_peplinski, #material_range, #material_list, #fractal_box and its
 * modifiers as read, then built (src/model/scene_fractals.c). */
typedef struct gs_fractal_set gs_fractal_set;

/* The model's orientation (see the top of this file). */
enum { GS_MODE_TMZ, GS_MODE_TMX, GS_MODE_TMY, GS_MODE_3D };

/* CFS-CPML parameter profile: value(d) = min + (max - min) * d^order with d
 * the depth into the PML (0 at its inner face, 1 at the wall; reversed:
 * 1 - d); order 0 (constant): max. max < 0 for sigma means "computed"
 * (gprMax's None; a sigma max of 0 is computed too). */
typedef struct gs_cfs_param {
  int order;
  int reverse;
  double min, max;
} gs_cfs_param;

/* One CFS term of the PML (one #pml_cfs): its alpha, kappa and sigma profiles. */
typedef struct gs_cfs {
  gs_cfs_param alpha, kappa, sigma;
} gs_cfs;

/* gprMax's PML formulations (#pml_formulation). */
enum { GS_PML_HORIPML, GS_PML_MRIPML };
#define GS_SCENE_MAX_CFS 2 /* gprMax takes at most two #pml_cfs (a second-order PML) */

typedef struct gs_scene {
  char path[1024];
  char title[256];
  char output_dir[1024];            /* #output_dir (relative to the input file's folder), or "" */
  int mode;                         /* GS_MODE_ */
  int axis[3];                      /* file axis (0 x, 1 y, 2 z) of the frame's a, b, c */
  double dx, dy, dz, dt, stability; /* dx, dy: across the model (frame a, b); dz: its thickness */
  int64_t nx, ny;                   /* cells; Ez nodes 0..nx x 0..ny */
  int64_t nz;                       /* 3D: cells along z (1 in a 2D model) */
  int pml6[6];                      /* 3D: #pml_cells x- y- z- x+ y+ z+ */
  int64_t src_dk, rx_dk;            /* 3D: cells moved along z per run */
  gs_obj3 *objs3;                   /* 3D: the geometry commands as written (src/model/geometry3d.c builds them) */
  int nobjs3;
  int gprmax3_timing; /* sources evaluated at n dt (gprMax 3) instead of (n + 1/2) dt */
  int64_t iterations;
  int pml[4];                   /* cells at x-, y-, x+, y+ */
  gs_cfs cfs[GS_SCENE_MAX_CFS]; /* the PML's CFS terms: gprMax's default one, or those of #pml_cfs */
  int ncfs;                     /* 1 or 2 (2: second order; 3D models only) */
  int pml_formulation;          /* GS_PML_ (MRIPML: 3D models only) */
  int messages;
  int64_t snapshot_every;               /* 0: none */
  int64_t src_di, src_dj, rx_di, rx_dj; /* cells moved per run */
  gs_material *materials;               /* [0] free_space, [1] pec, then #material in file order */
  int nmaterials;
  gs_dispersion *disps; /* #add_dispersion_*, in file order */
  int ndisps;
  gs_waveform *waveforms;
  int nwaveforms;
  gs_source *sources;
  int nsources;
  gs_source3 *src3; /* 3D: magnetic dipoles, voltage sources, transmission lines */
  int nsrc3;
  gs_plane_wave *pws; /* 3D: discrete plane waves, in file order */
  int npws;
  double timewindow; /* gprMax's: the seconds given, or (iterations - 1) dt */
  gs_rx *rxs;
  int nrx;
  gs_object *objects;
  int nobjects;
  gs_snapshot_req *snaps;
  int nsnaps;
  gs_geometry_view *views;
  int nviews;
  gs_geo_write *geo_writes; /* 3D: #geometry_objects_write */
  int ngeo_writes;
  gs_geo_read *geo_reads; /* 3D: #geometry_objects_read */
  int ngeo_reads;
  gs_fractal_set *fractals; /* 3D: heterogeneous soils (scene_fractals.c), or NULL */
  gs_scene_input *inputs;   /* the files the scene read (itself first), for gs_scene_check_inputs */
  int ninputs;
  uint64_t hash; /* FNV-1a of the scene and the files it reads */
} gs_scene;

/* Iterations a scene may ask for at most (2^40); whether a model of that many
 * steps fits in memory is checked later, against what the rank has. */
#define GS_SCENE_MAX_ITERATIONS 1099511627776.0

/* How the #python blocks of an input file run (src/model/scene_python.c;
 * docs/gprmax-rules.md, "#python blocks and #include_file"): all blocks of
 * the file in one process of the user's python3, in one namespace that holds
 * gprMax's c, e0, m0, z0, current_model_run, number_model_runs and inputfile. */
typedef struct gs_scene_python {
  int enabled;         /* 0: a block is refused with `refusal` */
  const char *refusal; /* why blocks are refused (enabled 0), e.g. "--no-python" */
  const char *python;  /* the interpreter, looked up on PATH ("python3") */
  const char *libdir;  /* gpustencil's Python files (share/gpustencil/python), NULL: not found */
  int64_t run, runs;   /* current_model_run (1-based) and number_model_runs */
  double timeout_s;    /* the blocks are stopped and refused after this long */
  size_t max_output;   /* or when they print more bytes than this */
} gs_scene_python;
#define GS_PYTHON_TIMEOUT_S 300.0
#define GS_PYTHON_MAX_OUTPUT ((size_t)64 << 20)
/* The expanded input of a scene, at most this many bytes of commands. */
#define GS_SCENE_TEXT_MAX ((size_t)256 << 20)
/* #include_file commands nest at most this deep. */
#define GS_SCENE_MAX_INCLUDE_DEPTH 16

/* An input file's commands after its #python blocks ran and its
 * #include_file commands were replaced by the files' commands, as gprMax's
 * processed file holds them, each line with where it came from
 * (src/model/scene_text.c). */
typedef struct gs_scene_text gs_scene_text;

/* Expands path (a regular file). py NULL: #python blocks are refused, as
 * with py->enabled 0. Non-command lines a block prints are shown on stdout
 * (as gprMax shows them). On failure returns GS_ERR_FORMAT (GS_ERR_IO) with
 * one line "FILE:LINE: reason" in err and *out NULL. */
gs_status gs_scene_text_expand(const char *path, const gs_scene_python *py, gs_scene_text **out, char *err,
                               size_t errlen);
/* Whether #python blocks made the text (it may then differ from run to run). */
int gs_scene_text_has_python(const gs_scene_text *t);
/* The text as bytes for another rank (malloc'd, *n bytes), and back: NULL
 * when buf is not such bytes. */
void *gs_scene_text_pack(const gs_scene_text *t, size_t *n);
gs_scene_text *gs_scene_text_unpack(const void *buf, size_t n);
/* Writes the commands, one a line, to path (through a temporary file): the
 * processed file of gprMax's --write-processed. Refuses a path that is one of
 * the files the text was read from. */
gs_status gs_scene_text_write(const gs_scene_text *t, const char *path, char *err, size_t errlen);
void gs_scene_text_free(gs_scene_text *t);

/* Parses path, which must be a regular file (a FIFO or folder is refused
 * without blocking), with its #include_file commands; #python blocks are
 * refused (the fdtd command runs them: gs_scene_load_text). On failure
 * returns GS_ERR_FORMAT (or GS_ERR_IO) with one line "FILE:LINE: reason" in
 * err, and *s is left empty (already freed; gs_scene_free() on it is
 * harmless). */
gs_status gs_scene_load(const char *path, gs_scene *s, char *err, size_t errlen);
/* The same within host_bytes, the host memory this rank may use (0: the
 * host's available memory): the bound on the files the scene reads
 * (#geometry_objects_read), weighed before they are read. */
gs_status gs_scene_load_within(const char *path, double host_bytes, gs_scene *s, char *err, size_t errlen);
/* The same from an expanded input (its first file is the scene's path). */
gs_status gs_scene_load_text(const gs_scene_text *t, double host_bytes, gs_scene *s, char *err, size_t errlen);
void gs_scene_free(gs_scene *s);

/* Refuses a scene two of whose outputs (snapshots, geometry views, geometry
 * objects and their _materials.txt, the receivers' MODEL.h5 and
 * receivers.csv) would land on one path of the output folder over `runs` runs
 * (-n), where the later would silently overwrite the earlier: -1 with one
 * line "FILE:LINE: #command: writes PATH, as line N does" in err, or 0. */
int gs_scene_check_outputs(const gs_scene *s, int64_t runs, char *err, size_t errlen);
/* Refuses a scene one of whose outputs (the same list, over `runs` runs)
 * would overwrite one of the files it read (s->inputs) in folder outdir:
 * -1 with one line "FILE:LINE: #command: writes PATH, the file line N reads
 * (#command)" in err, or 0. Files are compared by folder (device and inode)
 * and name; a folder that does not exist yet holds no input. */
int gs_scene_check_inputs(const gs_scene *s, int64_t runs, const char *outdir, char *err, size_t errlen);

/* gprMax's default PML: HORIPML with one CFS term (alpha constant 0, kappa
 * constant 1, sigma quartic from 0 to its computed maximum). */
void gs_scene_default_cfs(gs_scene *s);

/* A benchmark scene: nx x ny cells of 1 mm, soil in the lower half, 10-cell
 * CPML, a Ricker source and a receiver near the centre. */
void gs_scene_synthetic(gs_scene *s, int64_t nx, int64_t ny, int64_t iterations);

/* The same in 3D: nx x ny x nz cells, soil in the lower half (z), 10-cell
 * CPML on all faces, a z dipole and a receiver above the centre. */
void gs_scene_synthetic3(gs_scene *s, int64_t nx, int64_t ny, int64_t nz, int64_t iterations);

/* Material of cell (i, j) (clamped to the grid) after painting every object
 * in order (gprMax's `solid`); compound materials never appear here. */
int gs_scene_material_at(const gs_scene *s, int64_t i, int64_t j);

/* gprMax's rounding of a coordinate to a whole number of cells: to the
 * nearest, an exact half toward zero. */
int64_t gs_round_cells(double v);

/* The names of the engine's three field components in the file's axes
 * (TMz: Ez Hx Hy; TMx: Ex Hy Hz; TMy: Ey Hz Hx), as GS_OUT_ indices. */
void gs_scene_components(const gs_scene *s, int out[3]);

/* The #add_dispersion_debye entry in force for material index `material`
 * (the scene's order), or -1 when the material is not dispersive. */
int gs_scene_dispersion_of(const gs_scene *s, int material);

/* Waveform value at time t (seconds), gprMax's definitions; NAN where a
 * user waveform is not defined (gprMax stops with an error there). */
double gs_waveform_value(const gs_waveform *w, double t);
/* A user waveform's value at t (gprMax's interp1d), NAN outside its times. */
double gs_user_wave_value(const gs_user_wave *u, double t);
/* The line of the #excitation_file command that read it (0: none). */
int gs_user_wave_line(const gs_user_wave *u);
/* Frees what the commands of scene_sources3d.c added to s. */
void gs_scene_sources3_free(gs_scene *s);

#endif
