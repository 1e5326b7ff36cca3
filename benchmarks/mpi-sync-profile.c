/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Where a distributed run's ranks spend their time, measured from outside:
 * a PMPI interposer (LD_PRELOAD, no change to ns-3 or the module) that counts
 * and times the MPI calls of ns-3's two distributed engines and prints one
 * line per rank at MPI_Finalize:
 *   - MPI_Allgather: one per synchronisation round of the granted-time-window
 *     engine (DistributedSimulatorImpl), the time in it is time spent
 *     waiting for the slowest rank, and of that, the CPU time the rank burnt
 *     spinning (the rest it was off its core);
 *   - MPI_Waitany: the null-message engine blocked for a message;
 *     MPI_Testany and MPI_Test: its polls after every event;
 *   - MPI_Isend: frames and notifications to other ranks, and null messages
 *     (24-byte sends of the null-message engine);
 *   - MPI_Allreduce: results combined after the run (and the null-message
 *     engine's idle checks);
 *   - the rank's wall time from MPI_Init, user and system CPU time, its main
 *     thread's CPU time (the rank's own work is that less the CPU time
 *     spent in blocking MPI calls), and its
 *     voluntary and involuntary context switches (the latter: the core was
 *     taken by another process).
 * Built and used by run-distributed-benchmark.sh:
 *   mpicc -shared -fPIC -O2 -o libmpi-sync-profile.so mpi-sync-profile.c
 *   mpirun -x LD_PRELOAD=./libmpi-sync-profile.so -np 2 PROGRAM ...
 */
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

struct counter
{
    long calls;
    double seconds;
    double cpuSeconds; /* of this thread: spinning while blocked (blocking calls only) */
};

static double g_start;
static struct counter g_allgather, g_allreduce, g_waitany, g_testany, g_test, g_isend;
static long g_nullSends;
static long g_sentBytes;

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
threadCpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
count(struct counter* c, double since)
{
    ++c->calls;
    c->seconds += now() - since;
}

/* A blocking call: also the CPU time the rank burnt waiting in it (a system
 * call each, so not for the polls made after every event). */
static void
countBlocking(struct counter* c, double since, double cpuSince)
{
    count(c, since);
    c->cpuSeconds += threadCpu() - cpuSince;
}

int
MPI_Init(int* argc, char*** argv)
{
    int r = PMPI_Init(argc, argv);
    g_start = now();
    return r;
}

int
MPI_Allgather(const void* sendbuf,
              int sendcount,
              MPI_Datatype sendtype,
              void* recvbuf,
              int recvcount,
              MPI_Datatype recvtype,
              MPI_Comm comm)
{
    double t = now();
    double cpu = threadCpu();
    int r = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    countBlocking(&g_allgather, t, cpu);
    return r;
}

int
MPI_Allreduce(const void* sendbuf,
              void* recvbuf,
              int n,
              MPI_Datatype type,
              MPI_Op op,
              MPI_Comm comm)
{
    double t = now();
    double cpu = threadCpu();
    int r = PMPI_Allreduce(sendbuf, recvbuf, n, type, op, comm);
    countBlocking(&g_allreduce, t, cpu);
    return r;
}

int
MPI_Waitany(int n, MPI_Request* requests, int* index, MPI_Status* status)
{
    double t = now();
    double cpu = threadCpu();
    int r = PMPI_Waitany(n, requests, index, status);
    countBlocking(&g_waitany, t, cpu);
    return r;
}

int
MPI_Testany(int n, MPI_Request* requests, int* index, int* flag, MPI_Status* status)
{
    double t = now();
    int r = PMPI_Testany(n, requests, index, flag, status);
    count(&g_testany, t);
    return r;
}

int
MPI_Test(MPI_Request* request, int* flag, MPI_Status* status)
{
    double t = now();
    int r = PMPI_Test(request, flag, status);
    count(&g_test, t);
    return r;
}

int
MPI_Isend(const void* buf,
          int n,
          MPI_Datatype type,
          int dest,
          int tag,
          MPI_Comm comm,
          MPI_Request* request)
{
    double t = now();
    int size = 0;
    PMPI_Type_size(type, &size);
    g_sentBytes += (long)n * size;
    /* The null-message engine's null message: two times and two ids. */
    if ((long)n * size == 2 * 8 + 2 * 4)
    {
        ++g_nullSends;
    }
    int r = PMPI_Isend(buf, n, type, dest, tag, comm, request);
    count(&g_isend, t);
    return r;
}

int
MPI_Finalize(void)
{
    int rank = 0;
    struct rusage ru;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr,
            "MPIPROF rank=%d wall_s=%.3f user_s=%.3f sys_s=%.3f main_thread_cpu_s=%.3f "
            "allgather=%ld allgather_s=%.3f allgather_cpu_s=%.3f allreduce=%ld allreduce_s=%.3f "
            "allreduce_cpu_s=%.3f waitany=%ld waitany_s=%.3f waitany_cpu_s=%.3f testany=%ld "
            "testany_s=%.3f test=%ld test_s=%.3f isend=%ld null_messages=%ld sent_bytes=%ld "
            "isend_s=%.3f voluntary_switches=%ld involuntary_switches=%ld\n",
            rank,
            now() - g_start,
            (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6,
            threadCpu(),
            g_allgather.calls,
            g_allgather.seconds,
            g_allgather.cpuSeconds,
            g_allreduce.calls,
            g_allreduce.seconds,
            g_allreduce.cpuSeconds,
            g_waitany.calls,
            g_waitany.seconds,
            g_waitany.cpuSeconds,
            g_testany.calls,
            g_testany.seconds,
            g_test.calls,
            g_test.seconds,
            g_isend.calls,
            g_nullSends,
            g_sentBytes,
            g_isend.seconds,
            ru.ru_nvcsw,
            ru.ru_nivcsw);
    return PMPI_Finalize();
}
