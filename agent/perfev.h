/* perfev — a process's threads watched through Linux perf events: on-CPU
 * samples and context switches with their user call chains, no symbols.
 *
 * What it is for: the profiler (agent/profiler.h) reads where a target's
 * threads run and where they wait. Each thread gets two events, opened with
 * perf_event_open(2) directly (no perf tool, no text to parse): cpu-clock
 * sampled at a frequency (on-CPU), and context-switches on every switch out
 * (off-CPU: where it blocked), whose context_switch records also give the
 * time it came back. Both write into one ring buffer a thread; threads and
 * processes the target starts later inherit the events. Events are per CPU
 * (the kernel maps no inherited per-thread event), and every event on a CPU
 * writes into that CPU's one buffer. Times are CLOCK_MONOTONIC nanoseconds, so that they line
 * up with the run's clock. Call chains come from the kernel's frame-pointer
 * walk; with dwarf, each record also carries the user registers and the top
 * stack_bytes of the stack for a DWARF unwind (agent/symtab.h), which code
 * built without frame pointers (glibc's lock waits) needs.
 *
 * Cost: the kernel's work in the target's context: one sample a 1/freq of
 * CPU time and one record a context switch (plus the stack copy with dwarf).
 * Memory: PERFEV_BUF_PAGES pages a CPU, locked; descriptors: 2 a thread and CPU.
 *
 * Usage:
 *     perfev *p;
 *     perfev_opts o = {.freq = 99, .offcpu = 1};
 *     if (perfev_open(&p, tids, n, cpus, ncpu, &o, err, sizeof(err)) != 0) ... err says why and the
 * fix ... while (...) { perfev_wait(p, 100); perfev_read(p, on_rec, arg); } perfev_free(p);
 * Internal to agent/. */
#ifndef QUERN_PERFEV_H
#define QUERN_PERFEV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/** Data pages of a thread's ring buffer (a power of two), plus one page of header. */
#define PERFEV_BUF_PAGES 512
/** Longest user call chain kept, frames. */
#define PERFEV_CHAIN_MAX 127
/** User registers a dwarf record carries: x86-64's sixteen general ones and
 *  the instruction pointer, in perf's order (AX BX CX DX SI DI BP SP IP, R8..R15). */
#define PERFEV_NREGS 17

/** What a record says. */
enum perfev_kind {
    PERFEV_CPU,  /**< an on-CPU sample */
    PERFEV_OFF,  /**< a switch out's sample: where the thread stopped running */
    PERFEV_OUT,  /**< the switch out itself (preempt says whether it was still runnable) */
    PERFEV_IN,   /**< the thread runs again */
    PERFEV_LOST, /**< the kernel dropped lost records: the buffer was full */
    PERFEV_EXIT  /**< the thread ended */
};

/** One record, valid during the callback only. */
typedef struct perfev_rec {
    enum perfev_kind kind;
    uint32_t pid, tid;
    uint64_t time_ns;    /**< CLOCK_MONOTONIC */
    const uint64_t *ips; /**< borrowed: nips user addresses, leaf first (samples) */
    size_t nips;
    int in_kernel;        /**< PERFEV_CPU: the sample hit the kernel (a system call) */
    int preempt;          /**< PERFEV_OUT: preempted, not blocked */
    uint64_t lost;        /**< PERFEV_LOST: how many */
    const uint64_t *regs; /**< borrowed: PERFEV_NREGS registers (dwarf samples), else NULL */
    const uint8_t *stack; /**< borrowed: stack_len bytes of the stack from SP (dwarf samples) */
    size_t stack_len;
} perfev_rec;

/** What to watch. */
typedef struct perfev_opts {
    unsigned freq;        /**< on-CPU samples a second of a thread's CPU time */
    int offcpu;           /**< 1: context switches too */
    int dwarf_cpu;        /**< 1: registers and stack with each on-CPU sample */
    int dwarf_off;        /**< 1: with each switch out's sample */
    unsigned stack_bytes; /**< dwarf: bytes of stack copied (a multiple of 8), 0: 8192 */
} perfev_opts;

typedef struct perfev perfev;

/** Opens the events on each of n threads (a thread gone since it was listed
 *  is skipped) on each of ncpu CPUs (those the target may run on), into *out
 *  (perfev_free). -1 with err (the reason and its fix:
 *  perf_event_paranoid, CAP_PERFMON, the locked-memory limit) when none
 *  could be opened. The kernel is sampled too when allowed, else only user
 *  space. */
int perfev_open(perfev **out, const pid_t *tids, size_t n, const int *cpus, size_t ncpu,
                const perfev_opts *o, char *err, size_t errlen);
/** Samples one switch out in period (the switch records still come for
 *  all): 0, or -1 when an event refused it. */
int perfev_period(perfev *p, uint64_t period);
/** Threads watched. */
size_t perfev_threads(const perfev *p);
/** Waits up to timeout_ms for records (a buffer a quarter full). */
void perfev_wait(perfev *p, int timeout_ms);
/** Hands every record waiting in the buffers to cb, and frees their room. */
void perfev_read(perfev *p, void (*cb)(const perfev_rec *r, void *arg), void *arg);
/** Closes the events; p may be NULL. */
void perfev_free(perfev *p);

#endif
