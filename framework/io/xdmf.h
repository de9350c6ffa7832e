/* Parallel ParaView output: one HDF5 file per frame written collectively through PETSc's HDF5
 * viewer (every rank writes its own rows; nothing is gathered), described by a small XDMF 2 file
 * (frame_N.xmf), plus a time-series index (<scene>.xmf, a temporal collection). Selected by
 * `-output_format xdmf`. The framework knows no kinds: a problem type (or a grid solver) supplies
 * its arrays as one of three topologies and names its fields.
 *
 *   SimXDMF x;
 *   SimXDMFOpen(comm, "out/frame_00003.xmf", &x);         writes out/frame_00003.h5 (collective)
 *   SimXDMFSetPoints / SimXDMFSetMesh / SimXDMFSetUniformGrid(x, ...);   exactly one
 *   SimXDMFAddField / SimXDMFAddGridField(x, "velocity", ...);          any number
 *   SimXDMFClose(&x);                                     rank 0 writes the .xmf; temp + rename
 *
 * Datasets (HDF5 paths): /geometry (N x 3), /topology (Mixed: a flat Int array, or Polyvertex: none),
 * and one per field under its name: N x ncomp for point data, (nz,) ny x nx (x ncomp) in natural
 * order for a grid's cell data. */
#pragma once
#include <petscdm.h>

typedef struct _p_SimXDMF *SimXDMF;

/* path ends in ".xmf"; the data go to the same path with ".h5". Collective. */
PetscErrorCode SimXDMFOpen(MPI_Comm comm, const char *path, SimXDMF *x);

/* A point cloud (Polyvertex): this rank's nlocal points, xyz 3 per point. Collective. */
PetscErrorCode SimXDMFSetPoints(SimXDMF x, PetscInt nlocal, const PetscReal *xyz);

/* An unstructured mesh: this rank's rows of the vertex coordinates (nlocal vertices, xyz 3 each, in
 * the global vertex order: ranks in order), and this rank's rows of the cells: ncell cells, cell c
 * with nv[c] vertices conn[off[c] .. off[c] + nv[c]) (global vertex numbers; nv 1: vertex, 2: line,
 * 3: triangle, 4: tetrahedron). Written as an XDMF Mixed topology. Collective. */
PetscErrorCode SimXDMFSetMesh(SimXDMF x, PetscInt nlocal, const PetscReal *xyz, PetscInt ncell, const PetscInt *nv, const PetscInt *off,
                              const PetscInt *conn);

/* A uniform box of n[0] x n[1] (x n[2]) cells of size h from the origin (2D: dim 2, one layer);
 * its fields are cell data given as DMDA global vectors (SimXDMFAddGridField). Collective. */
PetscErrorCode SimXDMFSetUniformGrid(SimXDMF x, PetscInt dim, const PetscInt n[3], const PetscReal origin[3], PetscReal h);

/* Point (vertex) data of a point cloud or mesh: this rank's nlocal rows of ncomp values. Collective. */
PetscErrorCode SimXDMFAddField(SimXDMF x, const char *name, PetscInt ncomp, PetscInt nlocal, const PetscReal *data);

/* Cell data of a uniform grid: a global vector of a DMDA with one dof per component (1 or 3) over
 * the grid's cells; written in natural order by the DMDA's HDF5 viewer. Collective. */
PetscErrorCode SimXDMFAddGridField(SimXDMF x, const char *name, Vec v);

/* Closes the HDF5 file and writes the .xmf (rank 0); both via temporary names. Collective. */
PetscErrorCode SimXDMFClose(SimXDMF *x);

/* The time series: <scene>.xmf, a temporal collection of the frames' grids (each frame's .xmf is
 * copied in with its time), valid after every call, as the .pvd index. Rank 0 only. */
typedef struct _p_SimXDMFSeries *SimXDMFSeries;
PetscErrorCode SimXDMFSeriesCreate(const char *path, SimXDMFSeries *s);
PetscErrorCode SimXDMFSeriesAdd(SimXDMFSeries s, PetscReal time, const char *file); /* file: a frame's .xmf, relative to the series */
PetscErrorCode SimXDMFSeriesDestroy(SimXDMFSeries *s);                              /* accepts NULL */
