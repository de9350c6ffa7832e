/* Position-based dynamics (Müller et al. 2007) and XPBD (Macklin et al. 2016) with substeps
 * (Macklin et al. 2019) on the mesh problem. The constraints are the energy terms' own
 * projective-dynamics form (energy.h, pd_* ops), so springs, bending, triangle strain, ARAP tets,
 * attachments and colliders run without a second copy of their data. docs/pbd.md.
 *
 * A term's constraint c (stencil x_c, nvert vertices; A_c nrows x nvert; weight w_c; projection
 * p_c(x)) is the nrows x 3 block of scalar constraints
 *   C_c(x) = A_c x_c - p_c,   grad C_c = A_c (x, y, z alike),   compliance alpha_c = 1/w_c,
 * with p_c taken at the positions the projection sees (Gauss-Seidel: the current ones). Since p_c is
 * the closest point of the constraint manifold, w_c/2 |C_c|^2 is the term's energy and its gradient
 * w_c A_c^T C_c is the term's gradient (the derivative of p_c drops out), so a converged XPBD step
 * (alpha~ lambda_c + C_c = 0, M (x - x~) = sum A_c^T lambda_c) is exactly a converged implicit Euler
 * step on the same energy. PBD sets alpha = 0: every constraint is projected onto its manifold. */
#include <stdint.h>
#include <string.h>
#include "solvers/pbd/pbd_impl.h"
#include "framework/linalg/svd3.h"
#include "framework/linalg/symeig.h"
#include "problems/mesh/mesh.h"

#define PBD_MAX_ROWS 27 /* (<= SIM_SYMEIG_MAX) a shape-matching cluster: one row per vertex (blocks of more than 3 rows: ClusterUpdate) */
#define PBD_MAX_VERT 27
#define PBD_UPDATE_ROWS 3 /* the rows Update and LaneGroup take (their arrays stay register-sized) */
#define PBD_COLOR_WORDS 4 /* at most 64 * 4 colours per term */
#define PBD_LANES 4       /* constraints per group of the fused rotation kernel */
#define PBD_GRO 32        /* read-only reals per lane of a group: A[12], WA[12], Sinv[6], alpha~, valid */
#define PBD_GRW 13        /* read-write reals per lane: lambda[9], q[4] */
#define PBD_LGRO(nv, nr) (2 * (nr) * (nv) + (nr) * (nr) + 2) /* read-only reals per lane of LaneGroup: A, WA, Sinv, alpha~, valid */

/* The constraints of one energy term, with the solver's data for them. */
/* The per-constraint arrays below `order` are stored in colour order (slot q holds constraint
 * order[q]), so that a sweep reads them front to back. */
typedef struct {
  SimEnergy term;
  PetscInt nc, nvert, nrows;
  PetscInt *vert;      /* nc*nvert (the term's pd_stencil, the term's order) */
  PetscInt ncolor;     /* Gauss-Seidel order: constraints of colour k are order[off[k] .. off[k+1]) */
  PetscInt *color_off, *order;
  PetscInt *sv;        /* nc*nvert: the stencils in colour order, as offsets 3 v into x */
  PetscReal *A, *w;    /* nc*nrows*nvert, nc: in colour order */
  PetscReal *WA;       /* nc*nrows*nvert: A with each column scaled by its vertex's 1/m (colour order) */
  PetscReal *p;        /* nc*nrows*3: projections (in colour order when the term projects some, else the term's order) */
  PetscReal *lambda;   /* nc*nrows*3: XPBD multipliers of the current substep (colour order) */
  PetscReal *Sinv;     /* nc*nrows*nrows: (A W A^T + alpha~ I)^+ for the current substep length (colour order) */
  PetscReal *at;       /* nc: alpha~ = 1/(w h^2) for the current substep length (XPBD; 0 for PBD; colour order) */
  PetscReal *jscale;   /* nc: Jacobi scale omega / (largest constraint count of the stencil's vertices) (colour order) */
  PetscReal stiffness; /* PBD: k in [0, 1] (Müller et al. 2007, Sec. 3.3) */
  PetscBool cons;      /* a nonlinear scalar constraint term (energy.h cons_*): nrows = 1, A unused */
  PetscReal *C, *G;    /* cons: nc values and 3 nvert nc gradients of the constraints (colour order) */
  /* rotation constraints (pd_rotations: ARAP tets) under Gauss-Seidel: the fused kernel (RotGroup)
   * runs the slots of a colour PBD_LANES at a time, its data in groups laid out lane by lane */
  PetscReal *rq;       /* the term's quaternions (pd_rotations, term order; borrowed) or NULL */
  PetscInt *goff;      /* ncolor + 1: the groups of colour k are goff[k] .. goff[k+1]) */
  PetscInt *gslot;     /* PBD_LANES per group: the lane's slot, -1 for a padding lane */
  PetscInt *gv;        /* 4 PBD_LANES per group: x offsets [vertex a][lane] (a padding lane repeats lane 0's) */
  PetscReal *gro;      /* PBD_GRO PBD_LANES per group: A[12], WA[12], Sinv[6] (upper triangle), alpha~, valid */
  PetscReal *grw;      /* PBD_GRW PBD_LANES per group: lambda[9], q[4] */
  /* the other blocks under Gauss-Seidel (LaneGroup): the same groups (goff, gslot, gv: nvert
   * PBD_LANES per group), each lane's A, W A, Sinv, alpha~ and valid in gro (PBD_LGRO per lane) and
   * its multipliers in grw (3 nrows per lane) */
  PetscInt *gp;        /* PBD_LANES per group: the lane's offset into p (3 nrows times its slot or constraint) */
} PBDBlock;

typedef struct {
  PetscBool xpbd;      /* compliance (XPBD) or none (PBD) */
  PetscInt iterations, substeps;
  PetscInt method;     /* 0: Gauss-Seidel in colour order, 1: Jacobi */
  PetscReal omega;     /* Jacobi relaxation */
  PetscReal stiffness; /* PBD default stiffness of every term */
  PetscInt nblocks, nlinear;
  PBDBlock block[SIM_MAX_TERMS];
  SimEnergy linear[SIM_MAX_TERMS];
  PetscReal *invm;     /* nv: 1/m, 0 for pinned vertices */
  PetscReal *fext;     /* 3nv: force of the linear terms (gravity) */
  PetscReal *xprev;    /* 3nv: positions at the start of the substep */
  PetscReal *dx;       /* 3nv: Jacobi accumulator */
  PetscReal hcache;    /* the substep length Sinv was built for */
  PetscReal residual;  /* |alpha~ lambda + C| over the last sweep */
  PetscInt ncolors;    /* sum over the terms */
  PetscBool fused;     /* -pbd_fused: Gauss-Seidel by the fused rotation kernel and the lane kernel */
} PBD;

static const char *const methods[] = {"gauss_seidel", "jacobi"};

static PetscErrorCode SetFromOptions_PBD(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, d->xpbd ? "XPBD (Macklin et al. 2016), -solver xpbd" : "PBD (Müller et al. 2007), -solver pbd");
  PetscCall(PetscOptionsInt("-pbd_iterations", "constraint sweeps per substep (>= 1)", "", d->iterations, &d->iterations, NULL));
  PetscCall(PetscOptionsInt("-pbd_substeps", "substeps per time step (Macklin et al. 2019, >= 1)", "", d->substeps, &d->substeps, NULL));
  PetscCall(PetscOptionsEList("-pbd_method", "constraint sweep: gauss_seidel (in colour order) or jacobi (averaged, -pbd_omega)", "", methods, 2,
                              methods[d->method], &d->method, NULL));
  PetscCall(PetscOptionsReal("-pbd_omega", "Jacobi over-relaxation omega in (0, 2)", "", d->omega, &d->omega, NULL));
  PetscCall(PetscOptionsBool("-pbd_fused", "Gauss-Seidel 4 constraints at a time: rotation constraints (ARAP tets) by the fused kernel, the others by the lane kernel (else one at a time; the same to rounding)",
                             "", d->fused, &d->fused, NULL));
  if (!d->xpbd)
    PetscCall(PetscOptionsReal("-pbd_stiffness", "stiffness k in [0, 1] of every term (-pbd_<term>_stiffness for one term)", "",
                               d->stiffness, &d->stiffness, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(d->iterations >= 1 && d->iterations <= 1000000, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pbd_iterations %" PetscInt_FMT " is out of range: must be in [1, 1e6]", d->iterations);
  PetscCheck(d->substeps >= 1 && d->substeps <= 1000000, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pbd_substeps %" PetscInt_FMT " is out of range: must be in [1, 1e6]", d->substeps);
  PetscCheck(d->omega > 0 && d->omega < 2, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-pbd_omega %g is out of range: must be in (0, 2)", (double)d->omega);
  PetscCheck(d->stiffness >= 0 && d->stiffness <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-pbd_stiffness %g is out of range: must be in [0, 1]",
             (double)d->stiffness);
  PetscFunctionReturn(0);
}

/* Greedy colouring of a term's constraints: two constraints that share a free vertex get different
 * colours, so the constraints of one colour can be projected in any order (or in parallel) and a
 * Gauss-Seidel sweep is a sweep over the colours. Pinned vertices do not move and create no conflict. */
static PetscErrorCode Colour(SimSolver s, PBDBlock *b, const PetscReal *invm, PetscInt nv)
{
  PetscInt *color, *count;
  uint64_t (*used)[PBD_COLOR_WORDS];

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(nv, &used, b->nc, &color));
  b->ncolor = 0;
  for (PetscInt c = 0; c < b->nc; c++) {
    uint64_t taken[PBD_COLOR_WORDS] = {0};
    PetscInt k = 0;
    for (PetscInt a = 0; a < b->nvert; a++) {
      PetscInt v = b->vert[c * b->nvert + a];
      if (invm[v] > 0)
        for (int q = 0; q < PBD_COLOR_WORDS; q++) taken[q] |= used[v][q];
    }
    while (k < 64 * PBD_COLOR_WORDS && (taken[k / 64] >> (k % 64) & 1)) k++;
    PetscCheck(k < 64 * PBD_COLOR_WORDS, s->comm, PETSC_ERR_SUP, "%s: term '%s' needs more than %d colours (a vertex in too many constraints)",
               s->type, b->term->name, 64 * PBD_COLOR_WORDS);
    color[c] = k;
    b->ncolor = PetscMax(b->ncolor, k + 1);
    for (PetscInt a = 0; a < b->nvert; a++) {
      PetscInt v = b->vert[c * b->nvert + a];
      if (invm[v] > 0) used[v][k / 64] |= (uint64_t)1 << (k % 64);
    }
  }
  /* counting sort by colour */
  PetscCall(PetscCalloc1(b->ncolor + 1, &b->color_off));
  PetscCall(PetscMalloc1(b->nc, &b->order));
  PetscCall(PetscCalloc1(b->ncolor + 1, &count));
  for (PetscInt c = 0; c < b->nc; c++) b->color_off[color[c] + 1]++;
  for (PetscInt k = 0; k < b->ncolor; k++) b->color_off[k + 1] += b->color_off[k];
  for (PetscInt c = 0; c < b->nc; c++) b->order[b->color_off[color[c]] + count[color[c]]++] = c;
  PetscCall(PetscFree(count));
  PetscCall(PetscFree2(used, color));
  PetscFunctionReturn(0);
}

/* ---- the fused kernel of the rotation constraints (ARAP tets) ----
 * The slots of each colour in groups of PBD_LANES (the last group of a colour padded with lanes that
 * repeat its lane 0's stencil and matrix with W A = 0, Sinv = 0: they move nothing and are written
 * back before lane 0), each group's data lane by lane, so that a group's constraints are projected
 * and corrected together in vector registers (no shared free vertex within a colour). */
static PetscErrorCode SetupRotGroups(PBDBlock *b)
{
  const PetscInt L = PBD_LANES;
  PetscInt ng = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(b->ncolor + 1, &b->goff));
  b->goff[0] = 0;
  for (PetscInt k = 0; k < b->ncolor; k++) b->goff[k + 1] = b->goff[k] + (b->color_off[k + 1] - b->color_off[k] + L - 1) / L;
  ng = b->goff[b->ncolor];
  PetscCall(PetscMalloc4(L * ng, &b->gslot, 4 * L * ng, &b->gv, PBD_GRO * L * ng, &b->gro, PBD_GRW * L * ng, &b->grw));
  PetscCall(PetscArrayzero(b->gro, PBD_GRO * L * ng));
  PetscCall(PetscArrayzero(b->grw, PBD_GRW * L * ng));
  for (PetscInt k = 0; k < b->ncolor; k++)
    for (PetscInt g = b->goff[k]; g < b->goff[k + 1]; g++)
      for (PetscInt l = 0; l < L; l++) {
        const PetscInt q = b->color_off[k] + (g - b->goff[k]) * L + l, valid = q < b->color_off[k + 1];
        const PetscInt src = valid ? q : b->gslot[L * g];
        PetscReal *ro = b->gro + PBD_GRO * L * g;
        b->gslot[L * g + l] = valid ? q : -1;
        for (int a = 0; a < 4; a++) b->gv[4 * L * g + L * a + l] = b->sv[4 * src + a];
        for (int r = 0; r < 12; r++) {
          ro[L * r + l] = b->A[12 * src + r];
          ro[L * (12 + r) + l] = valid ? b->WA[12 * src + r] : 0;
        }
        ro[L * 31 + l] = valid ? 1 : 0;
      }
  PetscFunctionReturn(0);
}

/* Sinv and alpha~ of the slots into their groups (after BuildSinv). */
static void PackRotSinv(PBDBlock *b)
{
  const PetscInt L = PBD_LANES, ng = b->goff[b->ncolor];
  static const int up[6] = {0, 1, 2, 4, 5, 8};

  for (PetscInt g = 0; g < ng; g++)
    for (PetscInt l = 0; l < L; l++) {
      const PetscInt q = b->gslot[L * g + l];
      PetscReal *ro = b->gro + PBD_GRO * L * g;
      for (int r = 0; r < 6; r++) ro[L * (24 + r) + l] = q >= 0 ? b->Sinv[9 * q + up[r]] : 0;
      ro[L * 30 + l] = q >= 0 ? b->at[q] : 0;
    }
}

/* The term's quaternions into the groups (out = false; a padding lane takes its lane 0's) or back
 * (out = true). */
static void RotQuats(PBDBlock *b, PetscBool out)
{
  const PetscInt L = PBD_LANES, ng = b->goff[b->ncolor];

  for (PetscInt g = 0; g < ng; g++)
    for (PetscInt l = 0; l < L; l++) {
      const PetscInt q = b->gslot[L * g + l], c = b->order[q >= 0 ? q : b->gslot[L * g]];
      PetscReal *rw = b->grw + PBD_GRW * L * g;
      if (!out)
        for (int k = 0; k < 4; k++) rw[L * (9 + k) + l] = b->rq[4 * c + k];
      else if (q >= 0)
        for (int k = 0; k < 4; k++) b->rq[4 * c + k] = rw[L * (9 + k) + l];
    }
}

typedef double V4 __attribute__((vector_size(32)));
typedef long long V4i __attribute__((vector_size(32)));

/* unaligned loads and stores of 4 reals (macros: a function returning V4 would have an AVX ABI) */
#define Ld4(p) \
  ({ \
    V4 v_; \
    memcpy(&v_, (p), sizeof(v_)); \
    v_; \
  })
#define St4(p, v) \
  do { \
    const V4 w_ = (v); \
    memcpy((p), &w_, sizeof(w_)); \
  } while (0)
static inline __attribute__((always_inline)) void QuatToRot4(const V4 q[4], V4 R[9])
{
  const V4 w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* One group: for each lane, F^T = A x_c (row j = column j of F), one Newton step of the polar
 * rotation from the lane's quaternion (the step of SimPolar3WarmSteps(F, q, 1, R): M = F R^T,
 * (tr M I - sym M) w = axial(M - M^T) by LDL^T, q <- (1, w/2) q normalised), a lane outside
 * Newton's safe region (a pivot below 2e-6 tr M, |w| >= 1) redone by SimPolar3WarmSteps itself
 * (which falls back to the SVD); then the block correction of Update with p = R^T. */
static inline __attribute__((always_inline)) PetscErrorCode RotGroup(PBDBlock *b, PetscInt g, PetscReal s, PetscBool first, PetscBool wres, PetscReal *x,
                                                                     V4 *res)
{
  const PetscInt L = PBD_LANES, *o = b->gv + 4 * L * g;
  const PetscReal *ro = b->gro + PBD_GRO * L * g;
  PetscReal *rw = b->grw + PBD_GRW * L * g;
  V4 X[4][3], Fc[3][3], q[4], R[9], M[9], rhs[3][3], dl[3][3];

  PetscFunctionBeginUser;
  for (int a = 0; a < 4; a++)
    for (int k = 0; k < 3; k++) {
      const PetscReal t[4] = {x[o[L * a] + k], x[o[L * a + 1] + k], x[o[L * a + 2] + k], x[o[L * a + 3] + k]};
      X[a][k] = Ld4(t);
    }
  for (int j = 0; j < 3; j++) {
    const V4 A0 = Ld4(ro + L * (4 * j)), A1 = Ld4(ro + L * (4 * j + 1)), A2 = Ld4(ro + L * (4 * j + 2)), A3 = Ld4(ro + L * (4 * j + 3));
    for (int k = 0; k < 3; k++) Fc[j][k] = A0 * X[0][k] + A1 * X[1][k] + A2 * X[2][k] + A3 * X[3][k];
  }
  for (int k = 0; k < 4; k++) q[k] = Ld4(rw + L * (9 + k));
  QuatToRot4(q, R);
  /* M = F R^T, F_ik = Fc[k][i] */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) M[3 * i + j] = Fc[0][i] * R[3 * j] + Fc[1][i] * R[3 * j + 1] + Fc[2][i] * R[3 * j + 2];
  {
    const V4 g0 = M[7] - M[5], g1 = M[2] - M[6], g2 = M[3] - M[1], tr = M[0] + M[4] + M[8], thr = 1e-6 * 2 * tr;
    const V4 h01 = -0.5 * (M[1] + M[3]), h02 = -0.5 * (M[2] + M[6]), h12 = -0.5 * (M[5] + M[7]);
    const V4 d1 = tr - M[0], i1 = 1 / d1, l10 = h01 * i1, l20 = h02 * i1, d2 = tr - M[4] - l10 * h01, i2 = 1 / d2, l21 = (h12 - l20 * h01) * i2;
    const V4 d3 = tr - M[8] - l20 * h02 - l21 * l21 * d2, y1 = g1 - l10 * g0, y2 = g2 - l20 * g0 - l21 * y1;
    const V4 w2 = y2 / d3, w1 = y1 * i2 - l21 * w2, w0 = g0 * i1 - l10 * w1 - l20 * w2, ww = w0 * w0 + w1 * w1 + w2 * w2;
    const V4i ok = (d1 > thr) & (d2 > thr) & (d3 > thr) & (ww < 1);
    const V4 e1 = 0.5 * w0, e2 = 0.5 * w1, e3 = 0.5 * w2;
    V4 qn[4], n2;
    qn[0] = q[0] - e1 * q[1] - e2 * q[2] - e3 * q[3];
    qn[1] = q[1] + e1 * q[0] + e2 * q[3] - e3 * q[2];
    qn[2] = q[2] - e1 * q[3] + e2 * q[0] + e3 * q[1];
    qn[3] = q[3] + e1 * q[2] - e2 * q[1] + e3 * q[0];
    n2 = qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3];
    for (int l = 0; l < 4; l++) n2[l] = 1 / PetscSqrtReal(n2[l]);
    for (int k = 0; k < 4; k++) qn[k] *= n2;
    QuatToRot4(qn, R);
    for (int l = 0; l < 4; l++)
      if (!ok[l] && b->gslot[L * g + l] >= 0) { /* rare: this lane by the scalar routine, from its start */
        PetscReal Fl[9], ql[4], Rl[9];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) Fl[3 * i + j] = Fc[j][i][l];
        for (int k = 0; k < 4; k++) ql[k] = q[k][l];
        PetscCall(SimPolar3WarmSteps(Fl, ql, 1, Rl, NULL));
        for (int k = 0; k < 4; k++) qn[k][l] = ql[k];
        for (int k = 0; k < 9; k++) R[k][l] = Rl[k];
      }
    for (int k = 0; k < 4; k++) St4(rw + L * (9 + k), qn[k]);
  }
  /* the correction: rhs = -C - alpha~ lambda, C_jk = F_kj - R_kj; dlambda = s Sinv rhs */
  {
    const V4 at = Ld4(ro + L * 30), S00 = Ld4(ro + L * 24), S01 = Ld4(ro + L * 25), S02 = Ld4(ro + L * 26), S11 = Ld4(ro + L * 27),
             S12 = Ld4(ro + L * 28), S22 = Ld4(ro + L * 29);
    V4 sq = {0, 0, 0, 0};
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) {
        const V4 lm = first ? (V4){0, 0, 0, 0} : Ld4(rw + L * (3 * j + k));
        rhs[j][k] = -(Fc[j][k] - R[3 * k + j]) - at * lm;
        if (wres) sq += rhs[j][k] * rhs[j][k];
      }
    if (wres) *res += Ld4(ro + L * 31) * sq;
    for (int k = 0; k < 3; k++) {
      dl[0][k] = s * (S00 * rhs[0][k] + S01 * rhs[1][k] + S02 * rhs[2][k]);
      dl[1][k] = s * (S01 * rhs[0][k] + S11 * rhs[1][k] + S12 * rhs[2][k]);
      dl[2][k] = s * (S02 * rhs[0][k] + S12 * rhs[1][k] + S22 * rhs[2][k]);
    }
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) St4(rw + L * (3 * j + k), (first ? (V4){0, 0, 0, 0} : Ld4(rw + L * (3 * j + k))) + dl[j][k]);
    for (int a = 0; a < 4; a++) {
      const V4 W0 = Ld4(ro + L * (12 + a)), W1 = Ld4(ro + L * (16 + a)), W2 = Ld4(ro + L * (20 + a));
      for (int k = 0; k < 3; k++) X[a][k] += W0 * dl[0][k] + W1 * dl[1][k] + W2 * dl[2][k];
    }
  }
  /* lanes in reverse: a padding lane (the last ones, a copy of lane 0) stores before lane 0 */
  for (int l = L - 1; l >= 0; l--)
    for (int a = 0; a < 4; a++)
      for (int k = 0; k < 3; k++) x[o[L * a + l] + k] = X[a][k][l];
  PetscFunctionReturn(0);
}

/* The groups of one colour; *res += the summed squared residuals when wres. */
__attribute__((target_clones("arch=x86-64-v3", "default"))) static PetscErrorCode RunRot(PBDBlock *b, PetscInt col, PetscReal s, PetscBool first, PetscBool wres,
                                                                                           PetscReal *x, PetscReal *res)
{
  V4 r = {0, 0, 0, 0};

  PetscFunctionBeginUser;
  if (first) {
    for (PetscInt g = b->goff[col]; g < b->goff[col + 1]; g++) PetscCall(RotGroup(b, g, s, PETSC_TRUE, wres, x, &r));
  } else {
    for (PetscInt g = b->goff[col]; g < b->goff[col + 1]; g++) PetscCall(RotGroup(b, g, s, PETSC_FALSE, wres, x, &r));
  }
  *res += r[0] + r[1] + r[2] + r[3];
  PetscFunctionReturn(0);
}

/* ---- the 4-lane Gauss-Seidel kernel of the other blocks (springs, triangles, bending, ...) ----
 * The same groups as the rotation kernel (the slots of a colour PBD_LANES at a time, the last group
 * padded with lanes that repeat its lane 0 with W A = 0, Sinv = 0), each group's data lane by lane;
 * the block correction of Update done for the 4 constraints of a group in vector registers, from
 * the projections p the term left (p gathered per lane). The arithmetic of a lane is Update's. */
static PetscErrorCode SetupLaneGroups(PBDBlock *b, PetscBool some)
{
  const PetscInt L = PBD_LANES, nv = b->nvert, nr = b->nrows, E = PBD_LGRO(nv, nr);
  PetscInt ng;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(b->ncolor + 1, &b->goff));
  b->goff[0] = 0;
  for (PetscInt k = 0; k < b->ncolor; k++) b->goff[k + 1] = b->goff[k] + (b->color_off[k + 1] - b->color_off[k] + L - 1) / L;
  ng = b->goff[b->ncolor];
  PetscCall(PetscMalloc4(L * ng, &b->gslot, nv * L * ng, &b->gv, E * L * ng, &b->gro, 3 * nr * L * ng, &b->grw));
  PetscCall(PetscMalloc1(L * ng, &b->gp));
  PetscCall(PetscArrayzero(b->gro, E * L * ng));
  PetscCall(PetscArrayzero(b->grw, 3 * nr * L * ng));
  for (PetscInt k = 0; k < b->ncolor; k++)
    for (PetscInt g = b->goff[k]; g < b->goff[k + 1]; g++)
      for (PetscInt l = 0; l < L; l++) {
        const PetscInt q = b->color_off[k] + (g - b->goff[k]) * L + l, valid = q < b->color_off[k + 1];
        const PetscInt src = valid ? q : b->gslot[L * g];
        PetscReal *ro = b->gro + E * L * g;
        b->gslot[L * g + l] = valid ? q : -1;
        b->gp[L * g + l] = 3 * nr * (some ? src : b->order[src]);
        for (PetscInt a = 0; a < nv; a++) b->gv[nv * L * g + L * a + l] = b->sv[nv * src + a];
        for (PetscInt r = 0; r < nr * nv; r++) {
          ro[L * r + l] = b->A[nr * nv * src + r];
          ro[L * (nr * nv + r) + l] = valid ? b->WA[nr * nv * src + r] : 0;
        }
        ro[L * (E - 1) + l] = valid ? 1 : 0;
      }
  PetscFunctionReturn(0);
}

/* Sinv and alpha~ of the slots into their lanes (after BuildSinv). */
static void PackLaneSinv(PBDBlock *b)
{
  const PetscInt L = PBD_LANES, nv = b->nvert, nr = b->nrows, E = PBD_LGRO(nv, nr), ng = b->goff[b->ncolor];

  for (PetscInt g = 0; g < ng; g++)
    for (PetscInt l = 0; l < L; l++) {
      const PetscInt q = b->gslot[L * g + l];
      PetscReal *ro = b->gro + E * L * g;
      for (PetscInt r = 0; r < nr * nr; r++) ro[L * (2 * nr * nv + r) + l] = q >= 0 ? b->Sinv[nr * nr * q + r] : 0;
      ro[L * (E - 2) + l] = q >= 0 ? b->at[q] : 0;
    }
}

/* One group: Update for its 4 lanes (literal nv, nr). */
static inline __attribute__((always_inline)) void LaneGroup(const PBDBlock *b, PetscInt g, PetscReal s, PetscBool first, PetscBool wres, PetscReal *x,
                                                             V4 *res, const PetscInt nv, const PetscInt nr)
{
  const PetscInt L = PBD_LANES, E = PBD_LGRO(nv, nr), *o = b->gv + nv * L * g, *po = b->gp + L * g;
  const PetscReal *ro = b->gro + E * L * g, *p = b->p;
  PetscReal *rw = b->grw + 3 * nr * L * g;
  const V4 at = Ld4(ro + L * (E - 2)), zero = {0, 0, 0, 0};
  V4 X[4][3], rhs[PBD_UPDATE_ROWS][3], dl[PBD_UPDATE_ROWS][3], sq = zero; /* LaneStencil: at most 4 vertices */

  for (PetscInt a = 0; a < nv; a++)
    for (int k = 0; k < 3; k++) {
      const PetscReal t[4] = {x[o[L * a] + k], x[o[L * a + 1] + k], x[o[L * a + 2] + k], x[o[L * a + 3] + k]};
      X[a][k] = Ld4(t);
    }
  for (PetscInt r = 0; r < nr; r++)
    for (int k = 0; k < 3; k++) {
      const PetscReal t[4] = {p[po[0] + 3 * r + k], p[po[1] + 3 * r + k], p[po[2] + 3 * r + k], p[po[3] + 3 * r + k]};
      const V4 lm = first ? zero : Ld4(rw + L * (3 * r + k));
      V4 C = -Ld4(t);
      for (PetscInt a = 0; a < nv; a++) C += Ld4(ro + L * (r * nv + a)) * X[a][k];
      rhs[r][k] = -C - at * lm;
      if (wres) sq += rhs[r][k] * rhs[r][k];
    }
  if (wres) *res += Ld4(ro + L * (E - 1)) * sq;
  for (PetscInt r = 0; r < nr; r++)
    for (int k = 0; k < 3; k++) {
      V4 sum = zero;
      for (PetscInt q = 0; q < nr; q++) sum += Ld4(ro + L * (2 * nr * nv + r * nr + q)) * rhs[q][k];
      dl[r][k] = s * sum;
      St4(rw + L * (3 * r + k), (first ? zero : Ld4(rw + L * (3 * r + k))) + dl[r][k]);
    }
  for (PetscInt a = 0; a < nv; a++) {
    V4 d[3] = {zero, zero, zero};
    for (PetscInt r = 0; r < nr; r++) {
      const V4 W = Ld4(ro + L * (nr * nv + r * nv + a));
      for (int k = 0; k < 3; k++) d[k] += W * dl[r][k];
    }
    for (int k = 0; k < 3; k++) X[a][k] += d[k];
  }
  /* lanes in reverse: a padding lane (the last ones, a copy of lane 0) stores before lane 0 */
  for (int l = L - 1; l >= 0; l--)
    for (PetscInt a = 0; a < nv; a++)
      for (int k = 0; k < 3; k++) x[o[L * a + l] + k] = X[a][k][l];
}

static inline __attribute__((always_inline)) PetscReal LaneColour(const PBDBlock *b, PetscInt col, PetscReal s, PetscBool first, PetscBool wres, PetscReal *x,
                                                                  const PetscInt nv, const PetscInt nr)
{
  V4 r = {0, 0, 0, 0};
  for (PetscInt g = b->goff[col]; g < b->goff[col + 1]; g++) LaneGroup(b, g, s, first, wres, x, &r, nv, nr);
  return r[0] + r[1] + r[2] + r[3];
}

/* The stencils LaneGroup runs (the others take the generic kernel). */
static PetscBool LaneStencil(PetscInt nv, PetscInt nr)
{
  return (PetscBool)((nv == 2 && nr == 1) || (nv == 1 && nr == 1) || (nv == 3 && nr == 2) || (nv == 4 && nr == 1) || (nv == 4 && nr == 3));
}

/* The groups of one colour; returns the summed squared residuals when wres. */
#define PBD_LANE_DISPATCH(FIRST, WRES) \
  switch (b->nvert * 8 + b->nrows) { \
  case 2 * 8 + 1: return LaneColour(b, col, s, FIRST, WRES, x, 2, 1); \
  case 1 * 8 + 1: return LaneColour(b, col, s, FIRST, WRES, x, 1, 1); \
  case 3 * 8 + 2: return LaneColour(b, col, s, FIRST, WRES, x, 3, 2); \
  case 4 * 8 + 1: return LaneColour(b, col, s, FIRST, WRES, x, 4, 1); \
  default: return LaneColour(b, col, s, FIRST, WRES, x, 4, 3); \
  }
__attribute__((target_clones("arch=x86-64-v3", "default"))) static PetscReal RunLanes(const PBDBlock *b, PetscInt col, PetscReal s, PetscBool first, PetscBool wres,
                                                                                         PetscReal *x)
{
  if (first) {
    if (wres) { PBD_LANE_DISPATCH(PETSC_TRUE, PETSC_TRUE) }
    else { PBD_LANE_DISPATCH(PETSC_TRUE, PETSC_FALSE) }
  } else {
    if (wres) { PBD_LANE_DISPATCH(PETSC_FALSE, PETSC_TRUE) }
    else { PBD_LANE_DISPATCH(PETSC_FALSE, PETSC_FALSE) }
  }
}
#undef PBD_LANE_DISPATCH

/* Gathers the constraints of every term; refuses, by name, terms without a constraint form. */
static PetscErrorCode Setup_PBD(SimSolver s)
{
  PBD *d = (PBD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscScalar *mass;
  PetscInt *count;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(m->nv, &d->invm, 3 * m->nv, &d->fext, 3 * m->nv, &d->xprev, 3 * m->nv, &d->dx));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nv; i++) d->invm[i] = m->pinned[i] ? 0 : 1.0 / mass[3 * i];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy e = m->term[t];
    PetscInt nc, nvert, nrows;
    const PetscBool cons = e->ops.cons_count && !e->ops.pd_count ? PETSC_TRUE : PETSC_FALSE; /* the pd form where a term has both (springs) */
    PetscCheck(e->kind == SIM_ENERGY_POTENTIAL && (e->ops.pd_count || cons), s->comm, PETSC_ERR_SUP,
               "%s: energy term '%s' has no constraint form (%s); %s runs springs, bending, triangles, gravity, attachments, "
               "plane/sphere colliders, tet volume and FEM with the arap material. Remove the term or use -solver implicit_euler",
               s->type, e->name, e->kind == SIM_ENERGY_DISSIPATION ? "damping is not supported" : "no pd_count or cons_count op", s->type);
    if (cons) {
      PetscCall(e->ops.cons_count(e, &nc, &nvert));
      nrows = 1;
      if (nc == 0) continue;
      PetscCheck(e->ops.cons_stencil && e->ops.cons_eval, s->comm, PETSC_ERR_SUP, "%s: energy term '%s' has cons_count but no cons_stencil/cons_eval",
                 s->type, e->name);
    } else {
      PetscCall(e->ops.pd_count(e, &nc, &nvert, &nrows));
      if (nc == 0) {
        d->linear[d->nlinear++] = e;
        continue;
      }
    }
    PetscCheck((cons || (e->ops.pd_stencil && e->ops.pd_project)) && nvert > 0 && nvert <= PBD_MAX_VERT && nrows > 0 && nrows <= PBD_MAX_ROWS,
               s->comm, PETSC_ERR_SUP,
               "%s: energy term '%s' has constraints of %" PetscInt_FMT " rows on %" PetscInt_FMT " vertices; %s takes 1 to %d rows on 1 to %d vertices",
               s->type, e->name, nrows, nvert, s->type, PBD_MAX_ROWS, PBD_MAX_VERT);
    {
      PBDBlock *b = &d->block[d->nblocks++];
      char opt[128];
      b->term = e, b->nc = nc, b->nvert = nvert, b->nrows = nrows, b->cons = cons;
      PetscReal *A, *w;
      PetscCall(PetscMalloc4(nc * nvert, &b->vert, nc * nrows * nvert, &b->A, nc, &b->w, 3 * nc * nrows, &b->p));
      PetscCall(PetscMalloc4(3 * nc * nrows, &b->lambda, nc * nrows * nrows, &b->Sinv, nc, &b->jscale, nc, &b->at));
      PetscCall(PetscMalloc2(nc * nvert, &b->sv, nc * nrows * nvert, &b->WA));
      PetscCall(PetscMalloc2(nc * nrows * nvert, &A, nc, &w));
      if (cons) {
        PetscCall(e->ops.cons_stencil(e, b->vert, w));
        PetscCall(PetscArrayzero(A, nc * nvert));
        PetscCall(PetscMalloc2(nc, &b->C, 3 * nc * nvert, &b->G));
      } else PetscCall(e->ops.pd_stencil(e, b->vert, A, w));
      for (PetscInt c = 0; c < nc; c++)
        PetscCheck(w[c] >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: term '%s', constraint %" PetscInt_FMT ": weight %g < 0", s->type, e->name,
                   c, (double)w[c]);
      PetscCall(Colour(s, b, d->invm, m->nv));
      /* the stencils, matrices and weights in colour order; W A */
      for (PetscInt q = 0; q < nc; q++) {
        const PetscInt c = b->order[q];
        b->w[q] = w[c];
        for (PetscInt a = 0; a < nvert; a++) b->sv[q * nvert + a] = 3 * b->vert[c * nvert + a];
        for (PetscInt r = 0; r < nrows * nvert; r++) {
          b->A[q * nrows * nvert + r] = A[c * nrows * nvert + r];
          b->WA[q * nrows * nvert + r] = A[c * nrows * nvert + r] * d->invm[b->vert[c * nvert + r % nvert]];
        }
      }
      PetscCall(PetscFree2(A, w));
      if (!cons && nvert == 4 && nrows == 3 && e->ops.pd_rotations) {
        PetscCall(e->ops.pd_rotations(e, &b->rq));
        if (b->rq) PetscCall(SetupRotGroups(b));
      }
      if (!cons && !b->rq && d->method == 0 && d->fused && LaneStencil(nvert, nrows))
        PetscCall(SetupLaneGroups(b, e->ops.pd_project_some ? PETSC_TRUE : PETSC_FALSE));
      d->ncolors += b->ncolor;
      b->stiffness = d->stiffness;
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-pbd_%s_stiffness", e->name));
      if (!d->xpbd) PetscCall(PetscOptionsGetReal(NULL, NULL, opt, &b->stiffness, NULL));
      PetscCheck(b->stiffness >= 0 && b->stiffness <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: must be in [0, 1]", opt,
                 (double)b->stiffness);
    }
  }
  /* Jacobi: a constraint's correction is scaled by omega over the largest number of constraints
   * that share one of its free vertices (Macklin et al. 2014 average per vertex; one scale per
   * constraint keeps XPBD's multiplier equal to the displacement it caused) */
  PetscCall(PetscCalloc1(m->nv, &count));
  for (PetscInt k = 0; k < d->nblocks; k++)
    for (PetscInt i = 0; i < d->block[k].nc * d->block[k].nvert; i++) count[d->block[k].vert[i]]++;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    for (PetscInt q = 0; q < b->nc; q++) {
      PetscInt cmax = 1;
      for (PetscInt a = 0; a < b->nvert; a++)
        if (d->invm[b->sv[q * b->nvert + a] / 3] > 0) cmax = PetscMax(cmax, count[b->sv[q * b->nvert + a] / 3]);
      b->jscale[q] = d->omega / cmax;
    }
  }
  PetscCall(PetscFree(count));
  PetscFunctionReturn(0);
}

/* Si = (A W A^T + at I)^+ for a block of nr > 3 rows (a shape-matching cluster): the eigenvectors by
 * SimSymEig (framework/linalg/symeig.h), eigenvalues below 1e-12 of the largest dropped (as for nr <= 3). */
static PetscErrorCode PseudoInverse(PetscInt nr, PetscInt nv, const PetscReal *Ac, const PetscReal *WAc, PetscReal at, PetscReal *Si)
{
  PetscReal S[PBD_MAX_ROWS * PBD_MAX_ROWS] = {0}, V[PBD_MAX_ROWS * PBD_MAX_ROWS], lam[PBD_MAX_ROWS], lmax = 0;

  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < nr; r++)
    for (PetscInt q = 0; q < nr; q++) {
      PetscReal sum = r == q ? at : 0;
      for (PetscInt a = 0; a < nv; a++) sum += Ac[r * nv + a] * WAc[q * nv + a];
      S[nr * r + q] = sum;
    }
  PetscCall(SimSymEig(nr, S, lam, V));
  for (PetscInt e = 0; e < nr; e++) lmax = PetscMax(lmax, PetscAbsReal(lam[e]));
  for (PetscInt e = 0; e < nr; e++) /* eigenvector e is column e of V */
    if (lam[e] > 1e-12 * lmax)
      for (PetscInt r = 0; r < nr; r++)
        for (PetscInt q = 0; q < nr; q++) Si[r * nr + q] += V[nr * r + e] * V[nr * q + e] / lam[e];
  PetscFunctionReturn(0);
}

/* Sinv_c = (A W A^T + alpha~ I)^+, the block's "effective inverse mass" (Macklin et al. 2016 eq. 18
 * for nrows = 1), for a substep h: alpha~ = 1/(w h^2) (XPBD) or 0 (PBD). The pseudo-inverse (through
 * the eigenvalues) gives the minimum-norm correction when pins leave the block rank-deficient; a
 * constraint with w = 0 or only pinned vertices gets 0 and never moves anything. */
static PetscErrorCode BuildSinv(PBD *d, PetscReal h)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    const PetscInt nv = b->nvert, nr = b->nrows;
    for (PetscInt c = 0; c < b->nc; c++) {
      const PetscReal *Ac = b->A + c * nr * nv, *WAc = b->WA + c * nr * nv;
      const PetscReal at = (d->xpbd && b->w[c] > 0) ? 1.0 / (b->w[c] * h * h) : 0;
      PetscReal S[9] = {0}, lam[3], Q[9], tol, *Si = b->Sinv + c * nr * nr;
      b->at[c] = at;
      for (PetscInt r = 0; r < nr * nr; r++) Si[r] = 0;
      if (b->w[c] == 0) continue;
      if (nr > 3) {
        PetscCall(PseudoInverse(nr, nv, Ac, WAc, at, Si));
        continue;
      }
      for (PetscInt r = 0; r < nr; r++)
        for (PetscInt q = 0; q < nr; q++) {
          PetscReal sum = r == q ? at : 0;
          for (PetscInt a = 0; a < nv; a++) sum += Ac[r * nv + a] * WAc[q * nv + a];
          S[3 * r + q] = sum;
        }
      if (nr == 1) {
        if (S[0] > 0) Si[0] = 1.0 / S[0];
        continue;
      }
      PetscCall(SimSymEig3(S, lam, Q));
      tol = 1e-12 * PetscMax(PetscMax(PetscAbsReal(lam[0]), PetscAbsReal(lam[1])), PetscAbsReal(lam[2]));
      for (PetscInt r = 0; r < nr; r++)
        for (PetscInt q = 0; q < nr; q++)
          for (int e = 0; e < 3; e++)
            if (lam[e] > tol) Si[r * nr + q] += Q[3 * r + e] * Q[3 * q + e] / lam[e];
    }
  }
  for (PetscInt k = 0; k < d->nblocks; k++) {
    if (d->block[k].rq) PackRotSinv(&d->block[k]);
    if (d->block[k].gp) PackLaneSinv(&d->block[k]);
  }
  d->hcache = h;
  PetscFunctionReturn(0);
}

/* One constraint block's correction (Macklin et al. 2016 eqs. 17-18, per block), slot q:
 *   dlambda = Sinv (-C - alpha~ lambda),   C = A x_c - p   (nr x 3),
 * then lambda += s dlambda and x_a += s invm_a sum_r A_ra dlambda_r (writing into xw, reading x);
 * returns |C + alpha~ lambda|^2. Always inlined with literal nv, nr (see Kernel) so that the loops
 * unroll for the common stencils; the per-constraint data are read front to back. */
static inline __attribute__((always_inline)) PetscReal Update(const PetscInt *restrict vc, const PetscReal *restrict Ac, const PetscReal *restrict WAc,
                                                              const PetscReal *restrict Si, PetscReal at, PetscReal *restrict lam, const PetscReal *restrict p,
                                                              PetscReal s, PetscBool first, PetscBool wres, const PetscReal *x, PetscReal *xw,
                                                              const PetscInt nv, const PetscInt nr)
{
  PetscReal rhs[3 * PBD_UPDATE_ROWS], dl[3 * PBD_UPDATE_ROWS], lm[3 * PBD_UPDATE_ROWS], res = 0;

  for (PetscInt r = 0; r < 3 * nr; r++) lm[r] = first ? 0 : lam[r]; /* the first sweep of a substep starts from lambda = 0 */
  for (PetscInt r = 0; r < nr; r++) {
    PetscReal C0 = -p[3 * r], C1 = -p[3 * r + 1], C2 = -p[3 * r + 2];
    for (PetscInt a = 0; a < nv; a++) {
      const PetscReal *xa = x + vc[a], A = Ac[r * nv + a];
      C0 += A * xa[0], C1 += A * xa[1], C2 += A * xa[2];
    }
    rhs[3 * r] = -C0 - at * lm[3 * r], rhs[3 * r + 1] = -C1 - at * lm[3 * r + 1], rhs[3 * r + 2] = -C2 - at * lm[3 * r + 2];
    if (wres) res += rhs[3 * r] * rhs[3 * r] + rhs[3 * r + 1] * rhs[3 * r + 1] + rhs[3 * r + 2] * rhs[3 * r + 2];
  }
  for (PetscInt r = 0; r < nr; r++)
    for (int k = 0; k < 3; k++) {
      PetscReal sum = 0;
      for (PetscInt q = 0; q < nr; q++) sum += Si[r * nr + q] * rhs[3 * q + k];
      dl[3 * r + k] = s * sum;
      lam[3 * r + k] = lm[3 * r + k] + dl[3 * r + k];
    }
  for (PetscInt a = 0; a < nv; a++) {
    PetscReal *xa = xw + vc[a], d0 = 0, d1 = 0, d2 = 0;
    for (PetscInt r = 0; r < nr; r++) {
      const PetscReal W = WAc[r * nv + a];
      d0 += W * dl[3 * r], d1 += W * dl[3 * r + 1], d2 += W * dl[3 * r + 2];
    }
    xa[0] += d0, xa[1] += d1, xa[2] += d2;
  }
  return res;
}

/* Update for a block of more than PBD_UPDATE_ROWS rows (a shape-matching cluster, up to
 * PBD_MAX_ROWS), the same arithmetic with arrays of that size; returns |C + alpha~ lambda|^2. */
static PetscReal ClusterUpdate(const PetscInt *vc, const PetscReal *Ac, const PetscReal *WAc, const PetscReal *Si, PetscReal at, PetscReal *lam,
                               const PetscReal *p, PetscReal s, PetscBool first, PetscBool wres, const PetscReal *x, PetscReal *xw, PetscInt nv, PetscInt nr)
{
  PetscReal rhs[3 * PBD_MAX_ROWS], dl[3 * PBD_MAX_ROWS], res = 0;

  for (PetscInt r = 0; r < nr; r++) {
    PetscReal C[3] = {-p[3 * r], -p[3 * r + 1], -p[3 * r + 2]};
    for (PetscInt a = 0; a < nv; a++)
      for (int k = 0; k < 3; k++) C[k] += Ac[r * nv + a] * x[vc[a] + k];
    for (int k = 0; k < 3; k++) {
      rhs[3 * r + k] = -C[k] - at * (first ? 0 : lam[3 * r + k]);
      if (wres) res += rhs[3 * r + k] * rhs[3 * r + k];
    }
  }
  for (PetscInt r = 0; r < nr; r++)
    for (int k = 0; k < 3; k++) {
      PetscReal sum = 0;
      for (PetscInt q = 0; q < nr; q++) sum += Si[r * nr + q] * rhs[3 * q + k];
      dl[3 * r + k] = s * sum;
      lam[3 * r + k] = (first ? 0 : lam[3 * r + k]) + dl[3 * r + k];
    }
  for (PetscInt a = 0; a < nv; a++)
    for (int k = 0; k < 3; k++) {
      PetscReal d = 0;
      for (PetscInt r = 0; r < nr; r++) d += WAc[r * nv + a] * dl[3 * r + k];
      xw[vc[a] + k] += d;
    }
  return res;
}

/* The constraints in slots lo .. hi) of a block, Gauss-Seidel (xw = x) or Jacobi (xw = the
 * accumulator, scale jscale), with the stencil's sizes as literals. p holds the projections of the
 * slots (some) or of the constraints in the term's order. */
static inline __attribute__((always_inline)) PetscReal Kernel(const PBDBlock *b, PetscInt lo, PetscInt hi, PetscBool gs, PetscBool some, PetscReal kk,
                                                              PetscBool first, PetscBool wres, const PetscReal *x, PetscReal *xw, const PetscInt nv,
                                                              const PetscInt nr)
{
  const PetscInt *restrict sv = b->sv, *restrict order = b->order;
  const PetscReal *restrict A = b->A, *restrict WA = b->WA, *restrict Sinv = b->Sinv, *restrict at = b->at, *restrict js = b->jscale, *restrict p = b->p;
  PetscReal *restrict lambda = b->lambda, res = 0;

  if (nr > PBD_UPDATE_ROWS) {
    for (PetscInt q = lo; q < hi; q++)
      res += ClusterUpdate(sv + q * nv, A + q * nr * nv, WA + q * nr * nv, Sinv + q * nr * nr, at[q], lambda + 3 * nr * q, p + 3 * nr * (some ? q : order[q]),
                           gs ? kk : kk * js[q], first, wres, x, xw, nv, nr);
    return res;
  }
  for (PetscInt q = lo; q < hi; q++)
    res += Update(sv + q * nv, A + q * nr * nv, WA + q * nr * nv, Sinv + q * nr * nr, at[q], lambda + 3 * nr * q, p + 3 * nr * (some ? q : order[q]),
                  gs ? kk : kk * js[q], first, wres, x, xw, nv, nr);
  return res;
}

/* Dispatch on the stencil: springs (2, 1), colliders and attachments (1, 1), triangles (3, 2),
 * bending (4, 1), tets (4, 3); anything else (up to PBD_MAX_VERT vertices) through the general loop.
 * wres: sum the residual (only the last sweep of a step reports it, so the others skip it). */
#define PBD_DISPATCH(WRES) \
  switch (b->nvert * 8 + b->nrows) { \
  case 2 * 8 + 1: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 2, 1); \
  case 1 * 8 + 1: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 1, 1); \
  case 3 * 8 + 2: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 3, 2); \
  case 4 * 8 + 1: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 4, 1); \
  case 4 * 8 + 3: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 4, 3); \
  default: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, b->nvert, b->nrows); \
  }
__attribute__((target_clones("arch=x86-64-v3", "default"))) static PetscReal RunKernel(const PBDBlock *b, PetscInt lo, PetscInt hi, PetscBool gs, PetscBool some,
                                                                                             PetscReal kk, PetscBool first, PetscBool wres, const PetscReal *x,
                                                                                             PetscReal *xw)
{
  if (wres) { PBD_DISPATCH(PETSC_TRUE) }
  else { PBD_DISPATCH(PETSC_FALSE) }
}
#undef PBD_DISPATCH

/* The nonlinear scalar constraints in slots lo .. hi) (Macklin et al. 2016 eq. 18), C and G in the
 * block's slots: dlambda = s (-C - alpha~ lambda) / (sum_a invm_a |grad_a C|^2 + alpha~),
 * x_a += s invm_a grad_a C dlambda (into xw). Returns the summed squared residuals when wres. */
static PetscReal ConsKernel(const PBDBlock *b, PetscInt lo, PetscInt hi, PetscBool gs, PetscReal kk, PetscBool first, PetscBool wres,
                            const PetscReal *invm, PetscReal *xw)
{
  const PetscInt nv = b->nvert;
  PetscReal res = 0;

  for (PetscInt q = lo; q < hi; q++) {
    const PetscInt *vc = b->sv + q * nv;
    const PetscReal *g = b->G + 3 * nv * q, at = b->at[q], lm = first ? 0 : b->lambda[3 * q], rhs = -b->C[q] - at * lm;
    const PetscReal sc = gs ? kk : kk * b->jscale[q];
    PetscReal den = at, dl;
    if (wres) res += rhs * rhs;
    b->lambda[3 * q] = lm;
    if (b->w[q] == 0) continue;
    for (PetscInt a = 0; a < nv; a++) den += invm[vc[a] / 3] * (g[3 * a] * g[3 * a] + g[3 * a + 1] * g[3 * a + 1] + g[3 * a + 2] * g[3 * a + 2]);
    if (!(den > 0)) continue;
    dl = sc * rhs / den;
    b->lambda[3 * q] = lm + dl;
    for (PetscInt a = 0; a < nv; a++) {
      const PetscReal f = invm[vc[a] / 3] * dl;
      xw[vc[a]] += f * g[3 * a], xw[vc[a] + 1] += f * g[3 * a + 1], xw[vc[a] + 2] += f * g[3 * a + 2];
    }
  }
  return res;
}

/* One Gauss-Seidel sweep: term by term, colour by colour, each constraint corrected at the
 * positions its predecessors left. A term with pd_project_some projects one colour at a time;
 * otherwise its projections are taken once at the start of the sweep. */
static PetscErrorCode SweepGaussSeidel(PBD *d, PetscBool first, PetscBool wres, PetscReal *x)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    const PetscInt nr = b->nrows;
    const PetscBool some = b->term->ops.pd_project_some ? PETSC_TRUE : PETSC_FALSE;
    const PetscReal kk = d->xpbd ? 1 : 1 - PetscPowReal(1 - b->stiffness, 1.0 / d->iterations);
    if (b->cons) {
      for (PetscInt col = 0; col < b->ncolor; col++) {
        const PetscInt lo = b->color_off[col], hi = b->color_off[col + 1];
        PetscCall(b->term->ops.cons_eval(b->term, x, hi - lo, b->order + lo, b->C + lo, b->G + 3 * b->nvert * lo));
        d->residual += ConsKernel(b, lo, hi, PETSC_TRUE, kk, first, wres, d->invm, x);
      }
      continue;
    }
    if (b->rq && d->fused) {
      for (PetscInt col = 0; col < b->ncolor; col++) PetscCall(RunRot(b, col, kk, first, wres, x, &d->residual));
      continue;
    }
    if (!some) PetscCall(b->term->ops.pd_project(b->term, x, b->p));
    for (PetscInt col = 0; col < b->ncolor; col++) {
      const PetscInt lo = b->color_off[col], hi = b->color_off[col + 1];
      if (some) PetscCall(b->term->ops.pd_project_some(b->term, x, hi - lo, b->order + lo, b->p + 3 * nr * lo));
      if (b->gp) d->residual += RunLanes(b, col, kk, first, wres, x);
      else d->residual += RunKernel(b, lo, hi, PETSC_TRUE, some, kk, first, wres, x, x);
    }
  }
  PetscFunctionReturn(0);
}

/* One Jacobi sweep: every correction from the sweep's starting positions, summed, each scaled by
 * jscale (omega over the largest vertex count of its stencil). */
static PetscErrorCode SweepJacobi(PBD *d, PetscBool first, PetscBool wres, PetscInt n, PetscReal *x)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(d->dx, n));
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    const PetscReal kk = d->xpbd ? 1 : 1 - PetscPowReal(1 - b->stiffness, 1.0 / d->iterations);
    if (b->cons) {
      PetscCall(b->term->ops.cons_eval(b->term, x, b->nc, b->order, b->C, b->G));
      d->residual += ConsKernel(b, 0, b->nc, PETSC_FALSE, kk, first, wres, d->invm, d->dx);
      continue;
    }
    PetscCall(b->term->ops.pd_project(b->term, x, b->p));
    d->residual += RunKernel(b, 0, b->nc, PETSC_FALSE, PETSC_FALSE, kk, first, wres, x, d->dx);
  }
  for (PetscInt i = 0; i < n; i++) x[i] += d->dx[i];
  PetscFunctionReturn(0);
}

/* The prediction of a substep: v += h M^-1 f_ext (f_ext = -dE/dx of the linear terms), x_prev = x,
 * x += h v (flat loops over the 3 nv reals). */
static void Predict(PetscInt nv, PetscReal h, const PetscReal *restrict invm, const PetscReal *restrict fext, PetscReal *restrict v, PetscReal *restrict x,
                    PetscReal *restrict xprev)
{
  for (PetscInt i = 0; i < nv; i++)
    for (int k = 0; k < 3; k++) v[3 * i + k] -= h * invm[i] * fext[3 * i + k];
  for (PetscInt j = 0; j < 3 * nv; j++) {
    xprev[j] = x[j];
    x[j] += h * v[j];
  }
}

/* The velocities of a substep, v = (x - x_prev) / h, of the vertices that are not pinned. */
static void Velocities(PetscInt nv, PetscReal hinv, const PetscReal *restrict invm, const PetscReal *restrict x, const PetscReal *restrict xprev,
                       PetscReal *restrict v)
{
  for (PetscInt i = 0; i < nv; i++)
    if (invm[i] > 0)
      for (int k = 0; k < 3; k++) v[3 * i + k] = (x[3 * i + k] - xprev[3 * i + k]) * hinv;
}

/* Small steps (Macklin et al. 2019): per substep of length h = dt / substeps,
 *   v += h M^-1 f_ext;  x~ = x + h v;  lambda = 0;  iterations sweeps from x~;  v = (x - x_prev) / h.
 * (lambda = 0 is the first sweep's: it reads no multiplier and writes each one.) */
static PetscErrorCode Step_PBD(SimSolver s, PetscReal dt)
{
  PBD *d = (PBD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = 3 * m->nv;
  const PetscReal h = dt / d->substeps, hinv = d->substeps / dt;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  if (h != d->hcache) PetscCall(BuildSinv(d, h));
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(PetscLogEventBegin(s->ev.force, 0, 0, 0, 0));
  PetscCall(PetscArrayzero(d->fext, n));
  for (PetscInt l = 0; l < d->nlinear; l++) PetscCall(d->linear[l]->ops.gradient(d->linear[l], x, v, d->fext));
  PetscCall(PetscLogEventEnd(s->ev.force, 0, 0, 0, 0));
  if (d->fused && d->method == 0)
    for (PetscInt k = 0; k < d->nblocks; k++)
      if (d->block[k].rq) RotQuats(&d->block[k], PETSC_FALSE);
  for (PetscInt sub = 0; sub < d->substeps; sub++) {
    Predict(m->nv, h, d->invm, d->fext, v, x, d->xprev);
    PetscCall(PetscLogEventBegin(s->ev.solve, 0, 0, 0, 0));
    for (PetscInt it = 0; it < d->iterations; it++) {
      const PetscBool wres = (PetscBool)(sub == d->substeps - 1 && it == d->iterations - 1); /* the step reports its last sweep's */
      d->residual = 0;
      if (d->method == 0) PetscCall(SweepGaussSeidel(d, (PetscBool)(it == 0), wres, x));
      else PetscCall(SweepJacobi(d, (PetscBool)(it == 0), wres, n, x));
    }
    PetscCall(PetscLogEventEnd(s->ev.solve, 0, 0, 0, 0));
    Velocities(m->nv, hinv, d->invm, x, d->xprev, v);
  }
  if (d->fused && d->method == 0)
    for (PetscInt k = 0; k < d->nblocks; k++)
      if (d->block[k].rq) RotQuats(&d->block[k], PETSC_TRUE);
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  s->stats.outcome = SIM_STEP_OK;
  s->stats.nonlinear_its = d->substeps * d->iterations;
  s->stats.residual = PetscSqrtReal(d->residual);
  s->stats.nhistory = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Figures_PBD(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  names[0] = "constraint_residual", values[0] = PetscSqrtReal(d->residual);
  names[1] = "colors", values[1] = (PetscReal)d->ncolors;
  *n = 2;
  PetscFunctionReturn(0);
}

static PetscErrorCode View_PBD(SimSolver s, PetscViewer viewer)
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s: %" PetscInt_FMT " substeps x %" PetscInt_FMT " %s sweeps;", s->type, d->substeps, d->iterations,
                                   methods[d->method]));
  for (PetscInt k = 0; k < d->nblocks; k++)
    PetscCall(PetscViewerASCIIPrintf(viewer, " %s: %" PetscInt_FMT " constraints in %" PetscInt_FMT " colours;", d->block[k].term->name,
                                     d->block[k].nc, d->block[k].ncolor));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_PBD(SimSolver s)
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    PetscCall(PetscFree4(b->vert, b->A, b->w, b->p));
    PetscCall(PetscFree4(b->lambda, b->Sinv, b->jscale, b->at));
    PetscCall(PetscFree2(b->sv, b->WA));
    PetscCall(PetscFree2(b->C, b->G));
    PetscCall(PetscFree4(b->gslot, b->gv, b->gro, b->grw));
    PetscCall(PetscFree(b->goff));
    PetscCall(PetscFree(b->gp));
    PetscCall(PetscFree(b->color_off));
    PetscCall(PetscFree(b->order));
  }
  PetscCall(PetscFree4(d->invm, d->fext, d->xprev, d->dx));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPBDGetColouring(SimSolver s, PetscInt k, const char **term, PetscInt *ncolor, const PetscInt **off, const PetscInt **order,
                                  PetscInt *nvert, const PetscInt **vert)
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  PetscCheck(s->ops.step == Step_PBD, s->comm, PETSC_ERR_ARG_WRONG, "SimPBDGetColouring: solver '%s' is not pbd or xpbd", s->type);
  PetscCall(SimSolverSetUp(s));
  PetscCheck(k >= 0 && k < d->nblocks, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "SimPBDGetColouring: term %" PetscInt_FMT " of %" PetscInt_FMT, k,
             d->nblocks);
  *term = d->block[k].term->name, *ncolor = d->block[k].ncolor, *off = d->block[k].color_off, *order = d->block[k].order;
  *nvert = d->block[k].nvert, *vert = d->block[k].vert;
  PetscFunctionReturn(0);
}

static PetscErrorCode Create(SimSolver s, PetscBool xpbd)
{
  PBD *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->xpbd = xpbd;
  d->iterations = xpbd ? 1 : 4;
  d->substeps = xpbd ? 10 : 1;
  d->omega = 1;
  d->stiffness = 1;
  d->fused = PETSC_TRUE;
  s->data = d;
  s->ops.setfromoptions = SetFromOptions_PBD;
  s->ops.setup = Setup_PBD;
  s->ops.step = Step_PBD;
  s->ops.figures = Figures_PBD;
  s->ops.view = View_PBD;
  s->ops.destroy = Destroy_PBD;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_PBD(SimSolver s)
{
  return Create(s, PETSC_FALSE);
}
PetscErrorCode SimSolverCreate_XPBD(SimSolver s)
{
  return Create(s, PETSC_TRUE);
}
