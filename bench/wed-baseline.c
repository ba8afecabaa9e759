/*
 * The baseline of the WED matrix (bench/taste.bench.mjs, issue 24): a plain single-thread C loop over the same
 * integer-encoded sequences the JS kernel gets. The weighted edit distance of DESIGN §11 in integer hundredths:
 * insertion and deletion 100, substitution sub[a][b] (0, 33, 66 or 100). One DP row, the textbook loop, no tricks.
 *
 * Input (stdin, whitespace-separated integers): nTools n, then nTools*nTools substitution costs, then per sequence
 * its length and its tool codes. Output (stdout): one line `ms <milliseconds of the matrix loop only> sum <sum of all
 * entries in hundredths> n <sequences> cpu <CPU milliseconds of the loop>`; with a file argument, the condensed matrix (i < j, row-major) is written
 * there as 32-bit little-endian integers, so the caller can check every entry against its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int read_int(void) {
  int x;
  if (scanf("%d", &x) != 1) {
    fprintf(stderr, "wed-baseline: malformed input\n");
    exit(2);
  }
  return x;
}

int main(int argc, char **argv) {
  int nTools = read_int();
  int n = read_int();
  int *sub = malloc(sizeof(int) * nTools * nTools);
  for (int i = 0; i < nTools * nTools; i++) sub[i] = read_int();
  int *offsets = malloc(sizeof(int) * (n + 1));
  int *codes = malloc(sizeof(int) * n * 64);
  int k = 0, maxLen = 0;
  for (int i = 0; i < n; i++) {
    int len = read_int();
    offsets[i] = k;
    for (int p = 0; p < len; p++) codes[k++] = read_int();
    if (len > maxLen) maxLen = len;
  }
  offsets[n] = k;
  int64_t pairs = (int64_t)n * (n - 1) / 2;
  int32_t *out = malloc(sizeof(int32_t) * (pairs > 0 ? pairs : 1));
  int *row = malloc(sizeof(int) * (maxLen + 1));

  struct timespec t0, t1, c0, c1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int64_t at = 0;
  for (int i = 0; i < n; i++) {
    const int *a = codes + offsets[i];
    int la = offsets[i + 1] - offsets[i];
    for (int j = i + 1; j < n; j++) {
      const int *b = codes + offsets[j];
      int lb = offsets[j + 1] - offsets[j];
      for (int q = 0; q <= lb; q++) row[q] = q * 100;
      for (int p = 1; p <= la; p++) {
        const int *s = sub + a[p - 1] * nTools;
        int diag = row[0];
        int left = p * 100;
        row[0] = left;
        for (int q = 1; q <= lb; q++) {
          int up = row[q];
          int v = diag + s[b[q - 1]];
          if (up + 100 < v) v = up + 100;
          if (left + 100 < v) v = left + 100;
          diag = up;
          row[q] = v;
          left = v;
        }
      }
      out[at++] = row[lb];
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);

  int64_t sum = 0;
  for (int64_t x = 0; x < pairs; x++) sum += out[x];
  double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
  double cpu = (c1.tv_sec - c0.tv_sec) * 1e3 + (c1.tv_nsec - c0.tv_nsec) / 1e6;
  printf("ms %.3f sum %lld n %d cpu %.3f\n", ms, (long long)sum, n, cpu);
  if (argc > 1) {
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(out, sizeof(int32_t), pairs, f) != (size_t)pairs) {
      fprintf(stderr, "wed-baseline: cannot write %s\n", argv[1]);
      return 1;
    }
    fclose(f);
  }
  return 0;
}
