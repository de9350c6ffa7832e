/* The Lagrangian model: vertices with lumped masses, pins, and a sum of energy terms with
 * values, gradients and assembled Hessians. Every Lagrangian solver advances one of these. */
#pragma once
#include <petscmat.h>
#include <petscviewer.h>
#include <petscsf.h>
#include "framework/model/energy.h"
#include "framework/report.h"

/* The model's surface, for contact (IPC) and collision terms: what can touch. Arrays in model vertex
 * numbering, owned by the model. */
typedef struct {
  PetscInt ntri;
  PetscInt *tri;   /* 3 per triangle: a tet mesh's boundary faces (outward), else the model's triangles */
  PetscInt nedge;
  PetscInt *edge;  /* 2 per edge, i < j, sorted: the triangles' edges and the segments (rods) */
  PetscInt nvert;
  PetscInt *vert;  /* sorted: the vertices of those, or every vertex of a model with neither (points) */
} SimSurface;

/* Transparent: solvers' hot loops read the arrays directly. Sizes: nv vertices, 3*nv DOFs. */
struct _p_SimModel {
  MPI_Comm comm;
  PetscMPIInt size;   /* ranks of comm */
  PetscInt nv;
  /* Parallel layout (see "Running on several ranks" in docs/fem.md): the rank owns the Hessian rows
   * of the vertices with global numbers [vstart, vend), a contiguous range (all of them on one rank).
   * The vertex state is replicated on every rank unless it is distributed (local_state, below).
   * natural[g] is the input ("natural") number of global vertex g, from_natural its inverse (nglobal
   * entries each); both NULL when the numbering is the input one. */
  PetscInt vstart, vend;
  PetscInt *natural, *from_natural;
  /* Distributed state (SimModelDistributeState, framework/model/halo.c; docs/scaling.md): when
   * local_state is set, nv and every flat array of the model (x, v, mass, pinned, a solver's
   * scratch) cover this rank's vertices only: the owned ones [0, nown) (global numbers vstart + i)
   * then the ghosts [nown, nv), the other vertices of the rank's cells. Every local array is kept
   * CONSISTENT: a ghost entry equals its owner's (gradients are summed onto the owners and sent back
   * by SimModelGhostSum), so pointwise updates (x += h v) need no exchange and only reductions (sums,
   * norms, dots) must run over [0, nown) and then over the ranks.
   * Replicated state (the default): nv = nglobal, nown = nv (vertex terms evaluate every vertex on
   * every rank), global = local = NULL. */
  PetscBool local_state;
  PetscInt nglobal;   /* vertices of the whole model */
  PetscInt nown;      /* vertices vertex terms (gravity, colliders) evaluate on this rank: [0, nown) */
  PetscInt *global;   /* nv: global (partition) number of local vertex i; NULL when replicated */
  PetscInt *local;    /* nglobal: local number of global vertex g, -1 when this rank does not store it */
  PetscSF ghost_sf;   /* per DOF: roots the 3 nown owned DOFs, leaves the 3 (nv - nown) ghost DOFs */
  PetscBool replicated_state; /* a scene's request before its bodies: keep the whole state on every rank
                               * (terms that need every vertex, e.g. IPC's contact) */
  Vec x, v;           /* current state, 3*nv, block size 3 (owned by the model) */
  Vec mass;           /* lumped mass per DOF (m_i repeated 3 times), kg */
  Vec inv_mass;       /* 1/m per DOF, 0 on pinned DOFs: explicit updates multiply by it */
  PetscBool *pinned;  /* nv flags: a pinned vertex never moves (v = 0) */
  PetscInt npinned;
  PetscReal gravity[3];

  /* Scripted (kinematic) pinned vertices: when set, writes the positions of the pinned vertices at
   * time t into x (flat 3*nv; other entries must be left alone). The solver dispatcher places the
   * pinned vertices there for every step (see SimSolverStep). */
  PetscErrorCode (*kinematic)(void *ctx, PetscReal t, PetscReal *x);
  void *kinematic_ctx;

  PetscInt nterms;
  SimEnergy term[SIM_MAX_TERMS];

  /* Topology for output only (rendering / ParaView): triangles, line segments, tetrahedra. */
  PetscInt ntri, nseg, ntet;
  PetscInt *tri, *seg, *tet;

  /* Hessian assembly (built lazily by SimModelHessianCreate). */
  PetscInt ncoo;          /* scalar COO entries: 9 per block + 3 per vertex for the diagonal */
  PetscInt *term_block_offset; /* nterms+1 offsets into the block list */
  PetscReal *coo_vals;    /* scratch values, ncoo */
  SimSurface *surface;    /* built by SimModelGetSurface on first use */
  PetscInt pattern_version; /* bumped whenever a term's Hessian pattern changed (SimModelHessianUpdatePattern) */
  PetscInt nmasked_block; /* blocks that touch a pinned vertex (off the diagonal): forced to 0 */
  PetscInt *masked_block; /* their indices in the block list */
  /* The one-rank path of SimModelHessianAssemble (hessian.c): values added straight into the SeqAIJ
   * matrix's CSR value array at offsets built once per pattern (no COO value array to gather). */
  PetscInt csr_version;       /* pattern_version + 1 the offsets below belong to; 0: none */
  PetscInt *csr_block;        /* per block: CSR position of its entry (0, 0); -1 for masked blocks */
  PetscInt *csr_brow;         /* per block: its row vertex */
  PetscInt *csr_stride;       /* per vertex: distance between its three rows in the CSR values */
  PetscInt *csr_diag;         /* per DOF: CSR position of the diagonal entry */
  PetscInt csr_nnz, *csr_ia, *csr_ja; /* the layout they were built for (copies; checked against a new matrix) */
  PetscObjectId csr_mat[2];   /* the last two matrices found to have that layout ... */
  PetscObjectState csr_nzstate[2]; /* ... with their nonzero states then */
  PetscBool coo_only;         /* tests: assemble through MatSetValuesCOO, as on several ranks */
  /* The unassembled (MATIS) Hessian for PCBDDC (SimModelHessianSetIS): each rank's subdomain matrix
   * holds the blocks of its own elements and vertex terms in local numbering, and its share is_weight[i]
   * = 1 / (ranks storing vertex i) of the per-vertex diagonal (mass, pinned identity), so that the
   * subdomain matrices sum to the assembled Hessian and none has an empty row. */
  PetscBool hessian_is;       /* SimModelHessianCreate makes a MATIS */
  PetscReal *is_weight;       /* nv; built by the first MATIS */
  PetscReal *grad_scratch; /* 3*nv */
  PetscReal *vel_scratch;  /* 3*nv */
  PetscReal *dist_scratch; /* 3*nv: the distributed terms' partial gradient before its reduction */
};

/* Lifecycle. After SimModelCreate the caller sets the vertex count with SimModelSetVertices,
 * then positions (model->x), masses (SimModelSetVertexMass or SimModelAddMass), pins and terms;
 * SimModelFinalize checks everything (positive masses, finite positions) and derives inv_mass. */
PetscErrorCode SimModelCreate(MPI_Comm comm, SimModel *model);
PetscErrorCode SimModelDestroy(SimModel *model); /* accepts NULL */
PetscErrorCode SimModelSetVertices(SimModel model, PetscInt nv, const PetscReal *xyz);
PetscErrorCode SimModelSetVertexMass(SimModel model, PetscInt i, PetscReal m);
PetscErrorCode SimModelAddMass(SimModel model, PetscInt i, PetscReal m);
/* Pins a vertex; an index outside [0, nv) is an input error naming the option `what`. */
PetscErrorCode SimModelPin(SimModel model, PetscInt i, const char *what);
PetscErrorCode SimModelAddTerm(SimModel model, SimEnergy term); /* the model takes ownership */
PetscErrorCode SimModelFindTerm(SimModel model, const char *name, SimEnergy *term);
PetscErrorCode SimModelSetTopology(SimModel model, PetscInt ntri, const PetscInt *tri, PetscInt nseg,
                                   const PetscInt *seg, PetscInt ntet, const PetscInt *tet);
PetscErrorCode SimModelFinalize(SimModel model);
/* Parallel layout, set by a scene that distributes its elements (after SimModelSetVertices):
 * this rank owns vertices [vstart, vend) (contiguous; the ranges of all ranks tile [0, nv) in rank
 * order) and natural[i] (nv entries, copied; NULL: identity) is vertex i's number in the input
 * mesh. Without a call the vertices are split evenly in their own order. */
PetscErrorCode SimModelSetPartition(SimModel model, PetscInt vstart, PetscInt vend, const PetscInt *natural);
/* The model's number of the vertex with input number i (identity unless the scene renumbered). */
PetscErrorCode SimModelVertexFromNatural(SimModel model, PetscInt i, PetscInt *j);
/* Distributed state (framework/model/halo.c): after SimModelSetPartition and before masses, pins
 * and terms, this rank keeps only its owned vertices and the other vertices of its cells (ncell
 * cells of 4 vertices, global numbers in tet). Every later call that names a vertex (mass, pin)
 * takes its global number and is ignored for a vertex the rank does not store. Terms must then be
 * distributed (their elements this rank's, in local numbering) or vertex terms (created on the
 * first nown vertices); SimModelAddTerm refuses others. Collective. No-op on one rank. */
PetscErrorCode SimModelDistributeState(SimModel model, PetscInt ncell, const PetscInt *tet);
/* Local number of global vertex g (-1 if this rank does not store it); identity when replicated. */
PetscInt SimModelLocal(SimModel model, PetscInt g);
/* The two halo exchanges of a flat local array (3 per vertex), no-ops when replicated:
 * SimModelGhostUpdate: the owners' values into the ghost copies (forward scatter);
 * SimModelGhostSum:    the ghost copies' contributions added onto their owners (reverse scatter-add),
 *                      then the sums sent back, so every copy holds the total. Collective. */
PetscErrorCode SimModelGhostUpdate(SimModel model, PetscReal *a);
PetscErrorCode SimModelGhostSum(SimModel model, PetscReal *a);
/* First local vertex of the owned range: vstart when replicated (the owned rows sit inside the
 * replicated arrays), 0 with a distributed state. */
static inline PetscInt SimModelOwnedFirst(SimModel model)
{
  return model->local_state ? 0 : model->vstart;
}
/* A flat local array (3 per vertex) in natural (input) order, the whole model's 3 nglobal entries,
 * on every rank. Collective. */
PetscErrorCode SimModelGatherNatural(SimModel model, const PetscReal *a, PetscReal *out);
/* Distributed state only (output, checkpoints; collective):
 * SimModelGatherGlobal: the owned rows (bs values per vertex) of a local array, gathered in global
 *   order into out (bs nglobal) on every rank (all) or on rank 0 only.
 * SimModelNaturalRows: rows [lo, lo + n) of the natural-order array (bs per vertex) into out, sent
 *   straight from their owners (the ranks' [lo, lo + n) must tile [0, nglobal) in rank order). */
PetscErrorCode SimModelGatherGlobal(SimModel model, PetscInt bs, const PetscReal *a, PetscBool all, PetscReal *out);
PetscErrorCode SimModelNaturalRows(SimModel model, PetscInt bs, const PetscReal *a, PetscInt lo, PetscInt n, PetscReal *out);
/* Sum of a local scalar over the ranks when the state is distributed (each rank's share covers its
 * owned vertices); the value itself when replicated. n values in place. Collective. */
PetscErrorCode SimModelSumOwned(SimModel model, PetscInt n, PetscReal *vals);

/* Evaluation on flat arrays (3*nv, the model's local vertices). kind selects which terms contribute.
 * Results are the whole model's on every rank: distributed terms' contributions are summed over
 * model->comm (collective when the model has distributed terms or a distributed state and more than
 * one rank); with a distributed state the gradient is the consistent local array (ghost rows hold
 * their owners' totals).
 * SimModelEnergy:   *E = sum of the selected terms' values.
 * SimModelGradient: g = sum of the selected terms' gradients (g is overwritten; pinned DOFs 0). */
PetscErrorCode SimModelEnergy(SimModel model, SimEnergyKind kind, const PetscReal *x, const PetscReal *v, PetscReal *E);
PetscErrorCode SimModelGradient(SimModel model, SimEnergyKind kind, const PetscReal *x, const PetscReal *v, PetscReal *g);
/* Acceleration a = M^-1 (-dE/dx - dD/dv) at (x, v); zero on pinned DOFs. Vec form for convenience. */
PetscErrorCode SimModelAcceleration(SimModel model, Vec x, Vec v, Vec a);
/* Energy report at (x, v). */
PetscErrorCode SimModelReport(SimModel model, Vec x, Vec v, SimEnergyReport *rep);

/* Hessian assembly.
 * SimModelHessianCreate: an AIJ matrix on model->comm (SEQAIJ on one rank, MPIAIJ otherwise; block
 *   size 3; rows 3*[vstart, vend) on this rank) with the union pattern of every term plus the
 *   diagonal, preallocated once for COO assembly. Distributed terms contribute all their blocks,
 *   replicated terms only the blocks of owned rows, so every block is counted once.
 * SimModelHessianAssemble: H = cM * M + cE * d2E/dx2(x) + cD * d2D/dv2(xd, v), with rows and columns
 *   of pinned DOFs replaced by the identity, so that H is SPD whenever cM > 0 and psd is true.
 *   xd are the positions at which dissipation terms take their directions (implicit integrators
 *   lag them at the start of the step; pass x otherwise). Terms with a zero coefficient are skipped. */
PetscErrorCode SimModelHessianCreate(SimModel model, Mat *H);
/* The type SimModelHessianCreate makes from now on: MATIS when use_is (unassembled: one subdomain
 * matrix per rank, local-to-global map from model->global with block size 3; what PCBDDC needs), else
 * AIJ. A MATIS on several ranks needs the distributed state (every term distributed or per vertex):
 * SimModelHessianCreate refuses the replicated one. SimModelHessianSetISFromOptions: use_is when
 * -<prefix>pc_type is bddc (the Newton minimizer calls it with its prefix before creating its matrices). */
PetscErrorCode SimModelHessianSetIS(SimModel model, PetscBool use_is);
PetscErrorCode SimModelHessianSetISFromOptions(SimModel model, const char *prefix);
PetscErrorCode SimModelHessianAssemble(SimModel model, const PetscReal *x, const PetscReal *xd, const PetscReal *v,
                                       PetscReal cM, PetscReal cE, PetscReal cD, PetscBool psd, Mat H);
/* The surface (built from the output topology on first use; the topology must be set by then). */
PetscErrorCode SimModelGetSurface(SimModel model, const SimSurface **surface);
/* The largest step alpha in [0, 1] along p from x that every term with a max_step op admits (the
 * minimum over them; over all ranks when a distributed term has one). 1 without such terms.
 * SimModelHasMaxStep: whether any term bounds steps (collective when a distributed term does). */
PetscErrorCode SimModelMaxStep(SimModel model, const PetscReal *x, const PetscReal *p, PetscReal *alpha);
PetscBool SimModelHasMaxStep(SimModel model);
/* The terms' lag ops (energy.h) in model order; *again (out) is true when one asks for another
 * minimization. SimModelHasLag: whether any term has a lag op. */
PetscErrorCode SimModelLag(SimModel model, const PetscReal *x, const PetscReal *grad, PetscReal beta, PetscInt k, PetscBool *again);
PetscBool SimModelHasLag(SimModel model);
/* Whether x is admissible for every term with an admissible op: why = "" if so, else the first
 * term's reason, prefixed by its name. */
PetscErrorCode SimModelAdmissible(SimModel model, const PetscReal *x, char *why, size_t len);
/* Contact-like terms whose Hessian pattern follows x (update_pattern): asks each at x; when one
 * changed, rebuilds the model's COO layout and bumps model->pattern_version (*changed, collective).
 * A matrix made by SimModelHessianCreate under an older version is brought up to date with
 * SimModelHessianRepreallocate (new nonzero structure; its values are zero until assembled). */
PetscErrorCode SimModelHessianUpdatePattern(SimModel model, const PetscReal *x, PetscBool *changed);
PetscErrorCode SimModelHessianRepreallocate(SimModel model, Mat H);
/* Zeroes the entries of pinned DOFs in a flat 3*nv array (gradients, right-hand sides). */
PetscErrorCode SimModelZeroPinned(SimModel model, PetscReal *a);
/* Checkpoints of flat 3*nv arrays (positions, velocities, a solver's history) in the input
 * ("natural") vertex order, so that a run whose partition numbered the vertices differently (another
 * rank count, or another partition from PT-Scotch) reads them right. The file holds the whole model
 * (3 nglobal): rank 0 writes it (a distributed state's owned rows gathered first), every rank reads
 * it and keeps its local vertices' rows. Collective on the viewer. */
PetscErrorCode SimModelWriteArray(SimModel model, const PetscReal *a, PetscViewer viewer);
PetscErrorCode SimModelReadArray(SimModel model, PetscReal *a, PetscViewer viewer);
/* Mass-weighted norm sqrt(sum m_i |a_i|^2) of a flat 3*nv array (over the ranks with a distributed state). */
PetscErrorCode SimModelMassNorm(SimModel model, const PetscReal *a, PetscReal *norm);
