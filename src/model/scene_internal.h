/* What the scene parser's files share (scene.c: the command table, the
 * parsing of lines, the checks every command uses, the finished scene;
 * scene_general.c: the grid, time, materials, waveforms, 2D sources,
 * receivers, the PML and the settings; scene_objects.c: the geometry
 * commands; scene_outputs.c: snapshots, geometry views and the output files'
 * names; scene_sources3d.c, scene_dispersion.c, scene_fractals.c,
 * geometry_objects_read.c: the commands their names say). Not for use
 * outside the parser. */
#ifndef GS_SCENE_INTERNAL_H
#define GS_SCENE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scene.h"

/* Parameters of a command line past this many are dropped, which makes every
 * such line fail its command's argument count. */
#define GS_SCENE_MAX_ARGS 32
/* Lengths and coordinates: at most this many cells (2^40) of the smallest
 * cell from the origin (beyond, a count of cells would not fit the integers
 * the geometry is painted with). */
#define GS_SCENE_MAX_CELLS 1099511627776.0
/* Waveforms a scene may define (each name is checked against the others). */
#define GS_SCENE_MAX_WAVEFORMS 2048

typedef struct gs_parser {
  const char *file;
  int line;
  int out; /* the line a #python block printed (1-based), or 0: the file's own line */
  char *err;
  size_t errlen;
  gs_scene *s;
  int have_domain, have_dxdydz, have_tw;
  double domain[3], tw;
  int tw_is_iterations;
  char base_dir[1024];
  int npml_cfs;         /* #pml_cfs commands read */
  const char *cfs_file; /* where the last one stands (the kappa check) */
  int cfs_line;
  double d[3];       /* cell size along the file's x, y, z */
  int64_t n[3];      /* cells along the file's x, y, z */
  int pml6[6];       /* #pml_cells: x- y- z- x+ y+ z+ */
  int64_t rx_cap;    /* receivers s->rxs has room for (it grows by doubling) */
  unsigned once;     /* the single-use commands seen (bits: single_use() in scene.c) */
  double host_bytes; /* the host memory this rank may use; 0: the host's available */
} gs_parser;

/* Room for one more element at arr[n]: the array grows by one. */
#define GS_SCENE_GROW(arr, n) ((arr) = gs_xrealloc((arr), sizeof *(arr) * (size_t)((n) + 1)))

typedef struct gs_scene_command gs_scene_command;

/* One "#name: parameters" line, its parameters split at blanks. */
typedef struct gs_command_call {
  const gs_scene_command *def;
  const char *name; /* without the '#' */
  char **arg;
  int nargs;
  const char *text; /* the parameters as written, for #title */
} gs_command_call;

int gs_perr(gs_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Refuses (one line) any of v[0..n) beyond GS_SCENE_MAX_CELLS smallest cells. */
int gs_check_lengths(gs_parser *p, const char *what, const double *v, int n);
/* A scene number: plain decimal (no hexadecimal, inf or nan), finite, at most
 * 1e30 in magnitude; 0, or -1 (not such a number) or -2 (out of range). */
int gs_scene_number(const char *tok, double *out);
/* Folds data into the scene's hash (what a checkpoint's restart compares):
 * the contents of the files a scene reads, beside its own lines. */
void gs_scene_hash_add(gs_scene *s, const void *data, size_t n);
/* Records a file the scene read (gs_scene_check_inputs keeps outputs off it). */
void gs_scene_add_input(gs_scene *s, const char *path, int line, const char *what);
int gs_parse_double(gs_parser *p, const char *tok, double *out, const char *what);
/* A source's delay and removal time, as gprMax checks them: both >= 0, the
 * removal after the delay; 0, or -1 with one line naming #cmd. */
int gs_check_source_times(gs_parser *p, const char *cmd, double start, double stop);
int gs_parse_args(gs_parser *p, const gs_command_call *c, int first, int count, double *out);
int gs_copy_name(gs_parser *p, char *dst, size_t size, const char *name, const char *what);
int gs_find_material(const gs_scene *s, const char *name);
/* gprMax's conversion of metres to cells of size d: the float64 quotient,
 * rounded to the nearest whole number with exact halves toward zero. */
int64_t gs_metres_to_cells(double metres, double d);
/* Refuses (one line naming #what) metres more than 2^40 cells of d from the
 * origin, before they are converted to a whole number of cells. */
int gs_check_cells_in_range(gs_parser *p, double metres, double d, const char *what);
/* Whether #domain and #dx_dy_dz have both been read (the grid is sized). */
int gs_have_geometry(const gs_parser *p);
/* The cell indices (file axes) of a point given in metres, gprMax's rounding;
 * -1 with the reason when a coordinate is out of range or, with inside, outside
 * [0, n] on its axis. */
int gs_point_cells(gs_parser *p, const double xyz[3], int64_t cell[3], int inside, const char *what);
/* Two corners v[0..2], v[3..5] of an object's box in file cells, checked as
 * gprMax checks them: inside [0, n], the first not above the second on any
 * axis, not the same point (refused as "#name: " then same_point, gprMax's
 * words for it differ between commands); -1 with the reason. */
int gs_corner_cells(gs_parser *p, const gs_command_call *c, const double v[6], int64_t lo[3], int64_t hi[3],
                    const char *same_point);
/* The trailing dielectric-smoothing flag of an object (y or n; absent: y). */
int gs_parse_averaging(gs_parser *p, const gs_command_call *c, int at, int *flag);
void gs_scene_add_object(gs_scene *s, const gs_object *o);
/* Frame (a, b) node of a point in file cells, and whether the point lies
 * in the model's plane (its thin-axis index is 0). */
void gs_frame_of(const gs_scene *s, const int64_t cell[3], int64_t *a, int64_t *b, int64_t *c);

/* scene_general.c: gprMax's general commands. */
int gs_cmd_title(gs_parser *p, const gs_command_call *c);
int gs_cmd_messages(gs_parser *p, const gs_command_call *c);
int gs_cmd_domain(gs_parser *p, const gs_command_call *c);
int gs_cmd_dx_dy_dz(gs_parser *p, const gs_command_call *c);
int gs_cmd_time_window(gs_parser *p, const gs_command_call *c);
int gs_cmd_time_step_stability_factor(gs_parser *p, const gs_command_call *c);
int gs_cmd_material(gs_parser *p, const gs_command_call *c);
int gs_cmd_waveform(gs_parser *p, const gs_command_call *c);
int gs_cmd_hertzian_dipole(gs_parser *p, const gs_command_call *c);
int gs_cmd_rx(gs_parser *p, const gs_command_call *c);
int gs_cmd_rx_array(gs_parser *p, const gs_command_call *c);
int gs_cmd_material_map(gs_parser *p, const gs_command_call *c);
int gs_cmd_pml_cells(gs_parser *p, const gs_command_call *c);
int gs_cmd_pml_cfs(gs_parser *p, const gs_command_call *c);
int gs_cmd_src_steps(gs_parser *p, const gs_command_call *c);
int gs_cmd_rx_steps(gs_parser *p, const gs_command_call *c);
int gs_cmd_snapshot_png(gs_parser *p, const gs_command_call *c);
int gs_cmd_refuse_python(gs_parser *p, const gs_command_call *c);
int gs_cmd_refuse_include(gs_parser *p, const gs_command_call *c);
int gs_cmd_pml_formulation(gs_parser *p, const gs_command_call *c);
int gs_cmd_num_threads(gs_parser *p, const gs_command_call *c);
int gs_cmd_output_dir(gs_parser *p, const gs_command_call *c);
int gs_cmd_source_timing(gs_parser *p, const gs_command_call *c);
/* scene_objects.c: the geometry commands. */
int gs_cmd_box(gs_parser *p, const gs_command_call *c);
int gs_cmd_cylinder(gs_parser *p, const gs_command_call *c);
int gs_cmd_edge(gs_parser *p, const gs_command_call *c);
int gs_cmd_plate(gs_parser *p, const gs_command_call *c);
int gs_cmd_triangle(gs_parser *p, const gs_command_call *c);
int gs_cmd_cylindrical_sector(gs_parser *p, const gs_command_call *c);
int gs_cmd_snapshot(gs_parser *p, const gs_command_call *c);
int gs_cmd_sphere(gs_parser *p, const gs_command_call *c);
int gs_cmd_cone(gs_parser *p, const gs_command_call *c);
int gs_cmd_ellipsoid(gs_parser *p, const gs_command_call *c);
int gs_cmd_add_dispersion(gs_parser *p, const gs_command_call *c);
/* The materials #add_dispersion_* name, once every #material is read and dt
 * is known: -1 with err (one line) for an unknown one, a pole gprMax refuses
 * against dt, or a 2D model. */
int gs_scene_resolve_dispersion(gs_scene *s, char *err, size_t errlen);
int gs_cmd_geometry_view(gs_parser *p, const gs_command_call *c);
int gs_cmd_geometry_objects_write(gs_parser *p, const gs_command_call *c);
int gs_cmd_geometry_objects_read(gs_parser *p, const gs_command_call *c);
/* After parsing: each #geometry_objects_read's materials appended (gprMax's
 * order and names) and its arrays read (src/outputs/geometry_objects.c). */
int gs_scene_resolve_geometry_reads(gs_scene *s, double host_bytes, char *err, size_t errlen);
/* Frees what gs_scene_resolve_geometry_reads made. */
void gs_scene_free_geometry_reads(gs_scene *s);
/* scene_fractals.c: heterogeneous soils (3D). */
int gs_cmd_soil_peplinski(gs_parser *p, const gs_command_call *c);
int gs_cmd_material_range(gs_parser *p, const gs_command_call *c);
int gs_cmd_material_list(gs_parser *p, const gs_command_call *c);
int gs_cmd_fractal_box(gs_parser *p, const gs_command_call *c);
int gs_cmd_add_surface_roughness(gs_parser *p, const gs_command_call *c);
int gs_cmd_add_surface_water(gs_parser *p, const gs_command_call *c);
int gs_cmd_add_grass(gs_parser *p, const gs_command_call *c);
/* After #material, #add_dispersion_* and dt, before #geometry_objects_read
 * (gprMax's order of materials): the mixing models' materials, the
 * surfaces, and each fractal box's cells; -1 with err (one line). host_bytes
 * bounds a fractal's memory (0: no bound). */
int gs_scene_resolve_fractals(gs_scene *s, double host_bytes, char *err, size_t errlen);
void gs_scene_free_fractals(gs_scene *s);
/* scene_sources3d.c: 3D sources and user waveforms. */
int gs_cmd_magnetic_dipole(gs_parser *p, const gs_command_call *c);
int gs_cmd_voltage_source(gs_parser *p, const gs_command_call *c);
int gs_cmd_transmission_line(gs_parser *p, const gs_command_call *c);
int gs_cmd_excitation_file(gs_parser *p, const gs_command_call *c);
int gs_cmd_plane_wave_angles(gs_parser *p, const gs_command_call *c);
int gs_cmd_plane_wave_vector(gs_parser *p, const gs_command_call *c);
int gs_cmd_plane_wave_axial(gs_parser *p, const gs_command_call *c);
int gs_find_waveform(const gs_scene *s, const char *name);
/* Once dt is known (user waveforms' simulation times); -1 with err. */
int gs_scene_sources3_finish(gs_scene *s, char *err, size_t errlen);
/* Snapshot times to iterations once dt is known; -1 with err if one is outside the window. */
int gs_scene_resolve_snapshots(gs_scene *s, char *err, size_t errlen);

#endif
