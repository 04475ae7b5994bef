/* wproc — the worker process: one engine driven over a socketpair.
 *
 * What it is for: an agent forks one child per worker; the child calls
 * wproc_main with its end of a socketpair and the descriptor of the run's
 * bundle folder, and exits with its return value. The worker makes that
 * folder its current folder and reads the script and its files relative to
 * it: nothing is looked up again by the folder's path, which another user
 * could have swapped. The conversation on the fd (frames of
 * proto/frame.h, no authentication: the parent made the socket):
 *
 *     agent                       worker
 *       StartRun (this worker's VUs, no files) ->
 *                                 <- StepsDef, Ready(ok, vus)   or Ready(!ok, error)
 *       Go                        ->                            (or Stop / EOF: exit)
 *                                 <- Interval every second (and the last, partial one)
 *                                 <- RunFinished
 *
 * While the engine runs it owns the loop, so Stop travels as a signal: the
 * agent sends SIGTERM (graceful: VUs finish their request in flight within
 * the grace) and a second SIGTERM or SIGKILL to abort. The worker also asks
 * the kernel for SIGTERM when its parent dies (PR_SET_PDEATHSIG), and stops
 * its load if the fd stops taking its statistics.
 *
 * The worker's VUs are the global indices of StartRun.vu_ranges; they must
 * form an arithmetic progression (first, first + stride, ...), which is what
 * the agent's interleaved split gives. */
#ifndef QUERN_WPROC_H
#define QUERN_WPROC_H

#include <stdint.h>
#include <stddef.h>

#include "proto/quern.pb-c.h"

/** Exit statuses of a worker process (wproc_main's). Its agent counts only
 *  WPROC_EXIT_OK as a clean end and passes any other up as the worker's
 *  exit_status (agent/agent_run.c); a child that cannot place its
 *  descriptors before wproc_main exits with 3 too (become_worker). */
enum wproc_exit {
    WPROC_EXIT_OK = 0,     /**< after a run, or told to stop before its Go */
    WPROC_EXIT_SCRIPT = 2, /**< the script did not load or StartRun named none: said in Ready */
    WPROC_EXIT_IO = 3,     /**< a protocol or I/O error with the agent, or a StartRun that could
                                not be met (its folder, its VUs, its request logs) */
};

/** Runs the worker on fd (owned: closed on return) with the scripts unpacked
 *  in the folder of dirfd (owned: the worker fchdirs into it, after checking
 *  it is this user's and mode 0700, and closes it; a folder that fails is
 *  refused in Ready); number is the worker's index inside its agent, for
 *  logs. Returns the process exit status, one of enum wproc_exit. */
int wproc_main(int fd, int dirfd, unsigned number);

/** Reads the progression of the global VU indices in ranges: 0 with *first,
 *  *stride (>= 1) and *count set (count 0 for no VUs), or -1 with err set if
 *  the indices are not one increasing arithmetic progression. */
int wproc_vu_share(Quern__VuRange *const *ranges, size_t nranges, uint32_t *first, uint32_t *stride,
                   uint32_t *count, char *err, size_t errlen);

#endif
