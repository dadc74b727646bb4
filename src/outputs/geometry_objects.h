/* gprMax's #geometry_objects_write for 3D models (docs/fdtd.md, "3D models";
 * docs/gprmax-rules.md): a box of the built geometry saved as gprMax 4's
 * geometry objects file (BASE.h5) and its materials list
 * (BASE_materials.txt). */
#ifndef GS_GEOMETRY_OBJECTS_H
#define GS_GEOMETRY_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "geometry3d.h"
#include "scene.h"

/* The materials a view shows and their numbers in it, as gprMax's
 * GridView.initialise_materials: the materials marked in used[] (all when
 * used is NULL) sorted as gprMax sorts them: names without '+' first, by
 * index, then the compounds (a '+' in the name) by name. order[0..n) gets
 * their indices in g->mat, map[index] their number in the view (map[] sized
 * g->nmat). Returns n. */
int gs_view_materials(const gs_geometry3 *g, const uint8_t *used, int *order, uint32_t *map);

/* Every #geometry_objects_write of the scene into dir: BASE.h5 and
 * BASE_materials.txt. GS_OK, or an error with one line in err. */
gs_status gs_geometry_objects_write(const gs_scene *sc, const gs_geometry3 *g, const char *dir, char *err,
                                    size_t errlen);
/* The same for a model split over the ranks of sp, g this
 * rank's part (gs_fdtd3_dist_geometry): the materials used gathered from
 * every part, rank 0 writes the files one x plane at a time from the parts'
 * pieces (one rank's files). Collective; the status agreed (reason in every
 * rank's err). */
struct gs_fdtd3_ranks;
gs_status gs_geometry_objects_write_split(const gs_scene *sc, const gs_geometry3 *g, const struct gs_fdtd3_ranks *sp,
                                          const char *dir, char *err, size_t errlen);

#endif
