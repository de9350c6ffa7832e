/* netbench: the network constants of the performance model in docs/scaling.md, measured here.
 *
 *   mpirun -np P build/netbench [-repeats R] [-o FILE.csv]
 *
 * Ping-pong: ranks 2k and 2k+1 exchange a message of n bytes back and forth (all pairs at once, so
 * P = 4 measures two pairs sharing the machine; with more ranks than cores, the oversubscribed cost);
 * the time of one message is half the round trip, the best of R round trips after a warm-up, the
 * slowest pair; and the median of the R (on a loaded machine the best is the unloaded latency, the median
 * what a step meets: a message waits while its peer is descheduled). n = 8 B .. 4 MiB by factors of 4. Then alpha (latency, s) and beta (bandwidth, B/s)
 * are the least-squares fit of t(n) = alpha + n / beta over the sizes, weighted by 1 / t (relative
 * error). Allreduce: MPI_Allreduce of 1 double (sum) on all P ranks, best of R, the slowest rank,
 * and of 3 * 4096 doubles (a replicated FEM vector of 4096 vertices).
 *
 * Prints and writes (FILE, default netbench.csv) rows: kind,ranks,bytes,seconds,median_seconds; then the
 * fits as rows fit,ranks,alpha_s,beta_Bps (best times) and fit_median,ranks,alpha_s,beta_Bps. Rank 0 writes. Plain MPI, no PETSc. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Best and median of the repeats (each the slowest pair's / rank's). */
static void Stats(double *t, int repeats, double *best, double *median)
{
  double *all = malloc(sizeof(double) * (size_t)repeats);
  MPI_Allreduce(t, all, repeats, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  qsort(all, (size_t)repeats, sizeof(double), Cmp);
  *best = all[0];
  *median = all[repeats / 2];
  free(all);
}

static void PingPong(int rank, int size, char *buf, int n, int repeats, double *best, double *median)
{
  const int peer = rank ^ 1, active = peer < size;
  double *times = calloc((size_t)repeats, sizeof(double));
  for (int r = -2; r < repeats; r++) { /* two warm-up round trips */
    double t0, t;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (active) {
      for (int k = 0; k < 10; k++) {
        if (rank % 2 == 0) {
          MPI_Send(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
          MPI_Recv(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
        }
      }
    }
    t = (MPI_Wtime() - t0) / 20; /* 10 round trips: 20 messages */
    if (r >= 0) times[r] = active ? t : 0;
  }
  Stats(times, repeats, best, median);
  free(times);
}

static void Allreduce(int count, int repeats, double *best, double *median)
{
  double *a = calloc((size_t)count, sizeof(double)), *b = calloc((size_t)count, sizeof(double)), *times = calloc((size_t)repeats, sizeof(double));
  for (int r = -2; r < repeats; r++) {
    double t0, t;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int k = 0; k < 10; k++) MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t = (MPI_Wtime() - t0) / 10;
    if (r >= 0) times[r] = t;
  }
  Stats(times, repeats, best, median);
  free(a);
  free(b);
  free(times);
}

int main(int argc, char **argv)
{
  int rank, size, repeats = 20, nsizes = 0;
  const char *out = "netbench.csv";
  double n[16], t[16], tm[16];
  char *buf;
  FILE *fp = NULL;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-repeats") && i + 1 < argc) repeats = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else {
      if (!rank) fprintf(stderr, "usage: mpirun -np P netbench [-repeats R] [-o FILE.csv]\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (size < 2 || repeats < 1) {
    if (!rank) fprintf(stderr, "netbench: needs at least 2 ranks and 1 repeat\n");
    MPI_Finalize();
    return 2;
  }
  if (!rank) {
    fp = fopen(out, "w");
    if (!fp) {
      fprintf(stderr, "netbench: cannot write %s\n", out);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fprintf(fp, "kind,ranks,bytes,seconds,median_seconds\n");
  }
  buf = calloc(4 << 20, 1);
  for (int bytes = 8; bytes <= (4 << 20); bytes *= 4, nsizes++) {
    n[nsizes] = bytes;
    PingPong(rank, size, buf, bytes, repeats, &t[nsizes], &tm[nsizes]);
    if (!rank) {
      fprintf(fp, "pingpong,%d,%d,%.6e,%.6e\n", size, bytes, t[nsizes], tm[nsizes]);
      printf("pingpong  %d ranks  %8d B  best %10.3f us  %8.3f GB/s  median %10.3f us\n", size, bytes, 1e6 * t[nsizes], bytes / t[nsizes] / 1e9,
             1e6 * tm[nsizes]);
    }
  }
  {
    const int counts[2] = {1, 3 * 4096};
    for (int c = 0; c < 2; c++) {
      double ta, tam;
      Allreduce(counts[c], repeats, &ta, &tam);
      if (!rank) {
        fprintf(fp, "allreduce,%d,%d,%.6e,%.6e\n", size, (int)(8 * counts[c]), ta, tam);
        printf("allreduce %d ranks  %8d B  best %10.3f us  median %10.3f us\n", size, 8 * counts[c], 1e6 * ta, 1e6 * tam);
      }
    }
  }
  if (!rank) { /* weighted least squares of t = alpha + n / beta, weights 1 / t^2: of the best times and of the medians */
    for (int which = 0; which < 2; which++) {
      const double *y = which ? tm : t;
      double S = 0, Sx = 0, Sxx = 0, Sy = 0, Sxy = 0, alpha, inv_beta;
      for (int k = 0; k < nsizes; k++) {
        const double w = 1 / (y[k] * y[k]);
        S += w, Sx += w * n[k], Sxx += w * n[k] * n[k], Sy += w * y[k], Sxy += w * n[k] * y[k];
      }
      inv_beta = (S * Sxy - Sx * Sy) / (S * Sxx - Sx * Sx);
      alpha = (Sy - inv_beta * Sx) / S;
      fprintf(fp, "%s,%d,%.6e,%.6e\n", which ? "fit_median" : "fit", size, alpha, 1 / inv_beta);
      printf("%s %d ranks  alpha = %.3f us  beta = %.3f GB/s\n", which ? "fit (median)" : "fit (best)  ", size, 1e6 * alpha, 1e-9 / inv_beta);
    }
    fclose(fp);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
