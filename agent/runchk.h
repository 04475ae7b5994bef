/* runchk — what an agent accepts in the control messages of its console.
 *
 * What it is for: even an authenticated console is checked before the agent
 * acts on what it says, so that a wrong (or compromised, or future) console
 * gets a clear refusal instead of an abort, a huge allocation, or a script
 * loaded from outside the run's bundle. runchk_start checks every field of a
 * StartRun against the limits below and against what this agent can hold;
 * the caller answers a refusal with Ready(ok=false, error) and starts
 * nothing (no folder, no worker).
 *
 *     char err[ERR_MAX];
 *     uint64_t nvus;
 *     if (runchk_start(sr, agent_vus_max, &nvus, err, sizeof(err)) != 0)
 *         refuse with err;
 *
 * The functions only read the message: they take decoded bytes from the
 * network and are easy to fuzz. */
#ifndef QUERN_RUNCHK_H
#define QUERN_RUNCHK_H

#include <stddef.h>
#include <stdint.h>

#include "common/stages.h"
#include "proto/quern.pb-c.h"

/** VUs in a whole run, every agent together (the console's --vus limit). */
#define RUNCHK_VUS_MAX 10000000u
/** VUs one agent takes at most, whatever its memory. */
#define RUNCHK_AGENT_VUS_MAX 1000000u
/** Bytes of memory counted per VU to judge what an agent can hold. */
#define RUNCHK_VU_BYTES (8u * 1024u)
/** Worker processes a run may ask for (StartRun.workers). */
#define RUNCHK_WORKERS_MAX 1024u
/** Properties, source addresses, ramp stages at most. */
#define RUNCHK_PROPS_MAX 10000u
#define RUNCHK_SOURCES_MAX 4096u
#define RUNCHK_STAGES_MAX STAGES_MAX
/** Longest duration of a run, a ramp, a grace or a stage: 31 days. */
#define RUNCHK_TIME_MAX_US (31ull * 24 * 3600 * 1000000)
/** Largest planned start offset, either way: one hour. */
#define RUNCHK_OFFSET_MAX_US (3600ll * 1000000)
/** Largest arrival rate, runs per second. */
#define RUNCHK_RATE_MAX 10000000.0
/** Longest name (run, display, property key) and property value. */
#define RUNCHK_NAME_MAX 4096u
#define RUNCHK_VALUE_MAX (64u * 1024u)

/** VUs this host can hold: RUNCHK_AGENT_VUS_MAX, or fewer if its memory
 *  holds fewer at RUNCHK_VU_BYTES each. */
uint32_t runchk_agent_vus_max(void);

/** Checks a StartRun (see above). agent_vus_max bounds the VUs given to this
 *  agent. Returns 0 with *nvus the VUs of its ranges, or -1 with err saying
 *  which field is wrong and why. */
int runchk_start(const Quern__StartRun *sr, uint32_t agent_vus_max, uint64_t *nvus, char *err,
                 size_t errlen);

/** Checks a Go (start offset within bounds). Returns 0, or -1 with err. */
int runchk_go(const Quern__Go *go, char *err, size_t errlen);

/** Checks a Stop (a reason of at most RUNCHK_NAME_MAX bytes: it is logged
 *  and passed to the workers). Returns 0, or -1 with err. */
int runchk_stop(const Quern__Stop *st, char *err, size_t errlen);

/** Checks a Steer (a kind the agent knows, VUs up to STAGES_VUS_MAX, a
 *  rate from 0 to RATE_MAX_PER_S, a moment from 0 to RATE_TIME_MAX_US).
 *  Returns 0, or -1 with err. */
int runchk_steer(const Quern__Steer *st, char *err, size_t errlen);

#endif
