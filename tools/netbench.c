/* netbench: the network constants of the performance model in docs/scaling.md, measured here.
 *
 *   mpirun -np P build/netbench [-repeats R] [-o FILE.csv]
 *
 * Ping-pong: ranks 2k and 2k+1 exchange a message of n bytes back and forth (all pairs at once, so
 * P = 4 measures two pairs sharing the machine; with more ranks than cores, the oversubscribed cost);
 * the time of one message is half the round trip, the best of R round trips after a warm-up, the
 * slowest pair. n = 8 B .. 4 MiB by factors of 4. Then alpha (latency, s) and beta (bandwidth, B/s)
 * are the least-squares fit of t(n) = alpha + n / beta over the sizes, weighted by 1 / t (relative
 * error). Allreduce: MPI_Allreduce of 1 double (sum) on all P ranks, best of R, the slowest rank,
 * and of 3 * 4096 doubles (a replicated FEM vector of 4096 vertices).
 *
 * Prints and writes (FILE, default netbench.csv) rows: kind,ranks,bytes,seconds; then the fit as
 * rows fit,ranks,alpha_s,beta_Bps. Rank 0 writes. Plain MPI, no PETSc. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double PingPong(int rank, int size, char *buf, int n, int repeats)
{
  const int peer = rank ^ 1, active = peer < size;
  double best = 1e30, worst;
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
    if (r >= 0 && t < best) best = t;
  }
  if (!active) best = 0;
  MPI_Allreduce(&best, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static double Allreduce(int count, int repeats)
{
  double *a = calloc((size_t)count, sizeof(double)), *b = calloc((size_t)count, sizeof(double)), best = 1e30, worst;
  for (int r = -2; r < repeats; r++) {
    double t0, t;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int k = 0; k < 10; k++) MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t = (MPI_Wtime() - t0) / 10;
    if (r >= 0 && t < best) best = t;
  }
  MPI_Allreduce(&best, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  free(a);
  free(b);
  return worst;
}

int main(int argc, char **argv)
{
  int rank, size, repeats = 20, nsizes = 0;
  const char *out = "netbench.csv";
  double n[16], t[16];
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
    fprintf(fp, "kind,ranks,bytes,seconds\n");
  }
  buf = calloc(4 << 20, 1);
  for (int bytes = 8; bytes <= (4 << 20); bytes *= 4, nsizes++) {
    n[nsizes] = bytes;
    t[nsizes] = PingPong(rank, size, buf, bytes, repeats);
    if (!rank) {
      fprintf(fp, "pingpong,%d,%d,%.6e\n", size, bytes, t[nsizes]);
      printf("pingpong  %d ranks  %8d B  %10.3f us  %8.3f GB/s\n", size, bytes, 1e6 * t[nsizes], bytes / t[nsizes] / 1e9);
    }
  }
  {
    const int counts[2] = {1, 3 * 4096};
    for (int c = 0; c < 2; c++) {
      double ta = Allreduce(counts[c], repeats);
      if (!rank) {
        fprintf(fp, "allreduce,%d,%d,%.6e\n", size, (int)(8 * counts[c]), ta);
        printf("allreduce %d ranks  %8d B  %10.3f us\n", size, 8 * counts[c], 1e6 * ta);
      }
    }
  }
  if (!rank) { /* weighted least squares of t = alpha + n / beta, weights 1 / t^2 */
    double S = 0, Sx = 0, Sxx = 0, Sy = 0, Sxy = 0, alpha, inv_beta;
    for (int k = 0; k < nsizes; k++) {
      const double w = 1 / (t[k] * t[k]);
      S += w, Sx += w * n[k], Sxx += w * n[k] * n[k], Sy += w * t[k], Sxy += w * n[k] * t[k];
    }
    inv_beta = (S * Sxy - Sx * Sy) / (S * Sxx - Sx * Sx);
    alpha = (Sy - inv_beta * Sx) / S;
    fprintf(fp, "fit,%d,%.6e,%.6e\n", size, alpha, 1 / inv_beta);
    printf("fit       %d ranks  alpha = %.3f us  beta = %.3f GB/s\n", size, 1e6 * alpha, 1e-9 / inv_beta);
    fclose(fp);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
