/* profile — `quern run --profile`: which agent profiles which target, what
 * the agents send, stored, and what the profile says at the end.
 *
 * What it is for: control.c gives each agent its targets in StartRun
 * (profile_share: TARGET@AGENT goes to that agent, a plain TARGET to the
 * run's first agent); agents.c hands over ProfileStart and ProfileSecond,
 * which are stored once the run has its row in the results database
 * (store/profile_db.h); finish.c asks for the summary's lines and JSON, and
 * the diagnosis of a capacity search's knee (common/profdiag.h): the last
 * step that passed against the first that failed, each over its judged
 * seconds, read back from the database. It sees no run: each call is handed
 * what it needs.
 *
 * Usage:
 *     profile *p = profile_new(specs, n, freq, stacks);     // NULL: no --profile
 *     profile_share(p, agent_name, is_first, &sr, names); ... send ...; profile_share_done(&sr);
 *     profile_on_start(p, agent_name, msg, db, db_run, err, sizeof(err));
 *     profile_on_second(p, agent_name, msg, db, db_run, err, sizeof(err));
 *     json_t *j = profile_finish(p, &end, stdout, diag, sizeof(diag));
 *     profile_free(p); */
#ifndef QUERN_PROFILE_H
#define QUERN_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "console/capacity_search.h"
#include "console/opts.h"
#include "proto/quern.pb-c.h"
#include "store/db.h"

struct json_t;

typedef struct profile profile;

/** What profile_finish reads. All borrowed. */
typedef struct profile_end {
    db *d;                      /**< borrowed: the results database, NULL: none */
    int64_t db_run;             /**< the run's id in it */
    const capacity_search *cap; /**< borrowed: the capacity search, NULL: none */
    uint64_t requests;          /**< samples of the run, for the waits per request */
    int64_t end_s;              /**< the run's last second */
} profile_end;

/** The n targets of --profile (specs borrowed, they outlive it): NULL when
 *  n is 0. */
profile *profile_new(const char *const *specs, size_t n, unsigned freq, unsigned stacks);
/** Frees p, its statements first; p may be NULL. */
void profile_free(profile *p);
/** Sets sr->profile to the targets agent profiles (first: it is the run's
 *  first agent), their names without "@AGENT" into names (room for
 *  OPTS_PROFILE_MAX, owned until profile_share_done). */
void profile_share(const profile *p, const char *agent, int first, Quern__StartRun *sr,
                   char **names);
/** Frees the names profile_share put in sr. */
void profile_share_done(Quern__StartRun *sr);
/** Warns of each TARGET@AGENT whose agent is none of the n agents. */
void profile_check_agents(const profile *p, const char *const *agents, size_t n);
/** An agent's answer for one target: said, kept, and stored once d holds
 *  the run (db_run > 0). 0, or -1 with err when the database failed. */
int profile_on_start(profile *p, const char *agent, const Quern__ProfileStart *m, db *d,
                     int64_t db_run, char *err, size_t errlen);
/** One second of a target: stored. 0, or -1 with err. */
int profile_on_second(profile *p, const char *agent, const Quern__ProfileSecond *m, db *d,
                      int64_t db_run, char *err, size_t errlen);
/** Prints what each target's profile says (its top functions over the run,
 *  the capacity search's diagnosis) and returns the summary's "profile",
 *  {"targets": [...], "diagnosis": the first target's} (owned by the
 *  caller, json_decref), NULL when p is. diag gets the first target's
 *  diagnosis of the knee, for the capacity verdict ("" none). */
struct json_t *profile_finish(profile *p, const profile_end *e, FILE *out, char *diag,
                              size_t diaglen);

#endif
