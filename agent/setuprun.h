/* setuprun — a script's setup and teardown played once, in this process.
 *
 * What it is for: sc.setup() must run once per run whatever the agents and
 * workers, before any VU starts, and sc.teardown(data) once after the last
 * one ended. The console plays both itself, each in a Lua state and an event
 * loop of its own (the worker's engine in its setup or teardown mode,
 * worker/engine/lifecycle.h), before StartRun and after the agents finished. The
 * console may not include worker/: as preflight.h, this file is its way in.
 *
 * Usage:
 *     setuprun_cfg c = { .script = path, .props = p, .mem_limit = m };
 *     char *json; size_t len;
 *     if (setuprun_setup(&c, &json, &len, err, sizeof(err)) != 0)
 *         ... err is "file:line: message": no load may start ...
 *     ... StartRun.setup_data = json, len ...
 *     setuprun_teardown(&c, json, len, err, sizeof(err));
 *     xfree(json); */
#ifndef QUERN_SETUPRUN_H
#define QUERN_SETUPRUN_H

#include <stddef.h>
#include <stdint.h>

#include "common/props.h"

/** Where and how the functions run; every pointer borrowed. */
typedef struct setuprun_cfg {
    const char *script;         /**< borrowed: the main scenario file */
    const props *props;         /**< borrowed: properties visible to the script, or NULL */
    uint64_t mem_limit;         /**< bytes its Lua state may hold, 0: no bound */
    const char *const *resolve; /**< borrowed: nresolve --resolve entries for its requests */
    size_t nresolve;
    int handle_signals; /**< 1: SIGINT and SIGTERM stop it (the process watches them nowhere
                             else meanwhile) */
} setuprun_cfg;

/** Runs every scenario's setup (all at once, one VU each) and hands back what they returned as JSON
 * in *json (owned by the caller, NULL when none returned anything) and *len. Returns 0, or -1 with
 *  the first error ("file:line: message") in err. */
int setuprun_setup(const setuprun_cfg *c, char **json, size_t *len, char *err, size_t errlen);

/** Runs every scenario's teardown with its part of json (len bytes, what
 *  setuprun_setup gave, or NULL). Returns 0, or -1 with the first error in
 *  err. */
int setuprun_teardown(const setuprun_cfg *c, const char *json, size_t len, char *err,
                      size_t errlen);

#endif
