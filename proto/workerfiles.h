/* workerfiles — the files a worker leaves in its agent's run directory, and the
 * shape of their lines, which three processes must agree on: the worker
 * writes them (worker/plugs/reqlog.h), the agent sends them up when the run is
 * over (agent/fileup.c) and the console merges every worker's into the
 * run's JTL and Grinder logs (console/gather.c).
 *
 * Use: snprintf a name with the worker's number (0-based) to find its
 * file; WORKERFILES_JTL_PREFIX with the prefix values to write (or
 * WORKERFILES_JTL_PREFIX_MAX to bound the parse of) the start of a JTL line. */
#ifndef QUERN_WORKERFILES_H
#define QUERN_WORKERFILES_H

#include <inttypes.h>

/** Where worker N writes its files in the agent's run directory (printf
 *  formats of N, an unsigned). */
#define WORKERFILES_JTL ".quern-jtl.%u"
#define WORKERFILES_DATA ".quern-data.%u"
#define WORKERFILES_OUT ".quern-out.%u"

/** The prefix of each line of a worker's JTL file, removed by the console:
 *  the interval the sample was recorded in (the engine's second, as in its
 *  Interval messages, a uint64_t), the worker's active VUs then (uint32_t),
 *  and the byte offset in the line of its grpThreads column (size_t), which
 *  holds "ACTIVE,ACTIVE" until the console writes the run's counts there. */
#define WORKERFILES_JTL_PREFIX "%" PRIu64 " %" PRIu32 " %zu\t"
/** Room kept for the prefix at the start of a line. */
#define WORKERFILES_JTL_PREFIX_MAX 48u

/** The JTL header line (without its newline): the worker's file has none,
 *  the console writes it once at the top of the merged file. */
#define WORKERFILES_JTL_HEADER                                                                     \
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"            \
    "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"
/** The column a run with --traceparent adds after Connect: each line's
 *  trace id (32 hex digits, empty when its request sent none). JMeter's
 *  CSV has no such column; readers that map columns by the header's names
 *  (JMeter, the Jenkins Performance plugin) keep working. */
#define WORKERFILES_JTL_TRACE_COLUMN ",traceId"

#endif
