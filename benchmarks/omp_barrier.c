/* The shape of one token in llama.cpp's OpenMP build: STEPS steps of WORK iterations on each of
 * two threads, a barrier after each step. Run it with several GOMP_SPINCOUNT values, quiet and
 * beside `python -c "while True: pass"`, to see what the barrier spin costs on a busy machine:
 *
 *     gcc -O2 -fopenmp benchmarks/omp_barrier.c -o /tmp/omp_barrier
 *     for s in 300000 10000 1000 0; do GOMP_SPINCOUNT=$s /tmp/omp_barrier 500 20000; done
 *
 * It prints the seconds the steps took (docs/performance.md, "The embedded model on a busy
 * machine"). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int steps = atoi(argv[1]), work = atoi(argv[2]);
    volatile double sink = 0;
    double t = omp_get_wtime();
    #pragma omp parallel num_threads(2)
    {
        for (int s = 0; s < steps; s++) {
            double x = 0;
            for (int i = 0; i < work; i++) x += i * 1e-9;
            sink += x;
            #pragma omp barrier
        }
    }
    printf("%.3f\n", omp_get_wtime() - t);
    return 0;
}
