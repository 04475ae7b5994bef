/* fileup — sends the result files a run's workers wrote up to the console.
 *
 * What it is for: with --jtl or --grinder-logs each worker writes its files
 * into the agent's run directory (names in proto/workerfiles.h). When every
 * worker has exited, and before RunFinished, the agent sends them as
 * FilePart messages of at most FILEUP_CHUNK bytes: the JTL parts of all
 * workers under the name "jtl", cut at line ends so that the console can
 * append parts of several agents to one file; the Grinder logs under
 * "data_AGENT-N.log" and "out_AGENT-N.log".
 *
 * Flow control: the agent's queue to the console is bounded, so parts are
 * queued only while fewer than FILEUP_INFLIGHT bytes wait to be written;
 * call fileup_pump again (the agent's tick does) until it returns 1.
 *
 * Usage:
 *     u = fileup_new(dirfd, nworkers, agent_name, run_id);
 *     while (fileup_pump(u, &console) == 0) ...wait for the loop...
 *     fileup_free(u);      then RunFinished, then remove dir */
#ifndef QUERN_FILEUP_H
#define QUERN_FILEUP_H

#include <stdint.h>

#include "proto/peer.h"

/** Largest FilePart.data. */
#define FILEUP_CHUNK (256u * 1024u)
/** Parts are queued while less than this waits in the peer's queue. */
#define FILEUP_INFLIGHT (4u * 1024u * 1024u)

typedef struct fileup fileup;

/** Prepares the upload of the files of workers 0..nworkers-1 found in the
 *  run folder of dirfd (borrowed, open until fileup_free; the files are
 *  opened relative to it, following no link); agent names the Grinder logs. */
fileup *fileup_new(int dirfd, unsigned nworkers, const char *agent, uint64_t run_id);
/** Queues what the link takes now: 1 when everything was sent (or the link
 *  is gone: there is nobody to send to), 0 when more remains. */
int fileup_pump(fileup *u, peer *link);
/** Bytes queued so far. */
uint64_t fileup_sent(const fileup *u);
/** Releases it; NULL is fine. */
void fileup_free(fileup *u);

#endif
