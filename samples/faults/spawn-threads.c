/* faults / spawn-threads.c: a constructor that runs work on 4 threads before main.
 *
 * Built: gcc -O1 -g -pthread spawn-threads.c -o DIR/faults/spawn-threads
 *        (glibc 2.36: no libpthread.so.0 in DT_NEEDED, only libc.so.6)
 * Shows: `premain_spawn_threads_ctor` starts 4 pthreads; thread i busy-waits 10 ms
 *        (env PREMAIN_SAMPLE_COST_THREAD_MS) and logs "exe:thread<i>" (i = 0..3); the
 *        constructor joins all 4 and logs "exe:spawn_threads" (its whole duration, >= 10 ms of
 *        wall time, about 4x that in CPU time across threads). main logs "main", prints
 *        "spawn-threads: main reached (4 threads)" and exits 0. The process has 5 threads
 *        before main (ptrace tracers see 4 clone events) and 1 when main runs.
 */
#include <pthread.h>

#include "selftime.h"

static const char *const thread_ids[4] = { "exe:thread0", "exe:thread1", "exe:thread2", "exe:thread3" };
static int threads_done;

static void *worker(void *arg)
{
    premain_timed_init((const char *)arg, "THREAD", 10);
    __atomic_add_fetch(&threads_done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

__attribute__((constructor)) void premain_spawn_threads_ctor(void)
{
    uint64_t start = premain_now_ns();
    pthread_t threads[4];
    int started = 0;
    for (int i = 0; i < 4; i++)
        if (pthread_create(&threads[i], NULL, worker, (void *)thread_ids[i]) == 0)
            started++;
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    premain_log("exe:spawn_threads", start, premain_now_ns());
}

int main(void)
{
    premain_log_main();
    printf("spawn-threads: main reached (%d threads)\n", __atomic_load_n(&threads_done, __ATOMIC_SEQ_CST));
    return 0;
}
