#include "agent/runchk.h"

#include <arpa/inet.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto/bundle.h"
#include "common/err.h"
#include "common/rate.h"
#include "common/hostres.h"
#include "common/stages.h"
#include "worker/lua/setupdata.h"

uint32_t runchk_agent_vus_max(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t fit;

    if (pages <= 0 || psize <= 0)
        return RUNCHK_AGENT_VUS_MAX;
    fit = (uint64_t)pages * (uint64_t)psize / RUNCHK_VU_BYTES;
    return fit < RUNCHK_AGENT_VUS_MAX ? (uint32_t)fit : RUNCHK_AGENT_VUS_MAX;
}

static int str_ok(const char *s, size_t max)
{
    return s != NULL && strnlen(s, max + 1) <= max;
}

static int addr_ok(const char *s)
{
    struct in6_addr a6;
    struct in_addr a4;

    return s != NULL && (inet_pton(AF_INET, s, &a4) == 1 || inet_pton(AF_INET6, s, &a6) == 1);
}

static int check_schedule(const Quern__Schedule *s, uint32_t vus_total, char *err, size_t errlen)
{
    if (s == NULL)
        return 0;
    if (s->duration_us > RUNCHK_TIME_MAX_US || s->ramp_up_us > RUNCHK_TIME_MAX_US ||
        s->grace_us > RUNCHK_TIME_MAX_US) {
        err_set(err, errlen, "schedule: a duration, ramp-up or grace is longer than 31 days");
        return -1;
    }
    if (s->n_stages > RUNCHK_STAGES_MAX) {
        err_set(err, errlen, "schedule: %zu stages, more than %u", s->n_stages, RUNCHK_STAGES_MAX);
        return -1;
    }
    if (s->staged_vus > vus_total) {
        err_set(err, errlen, "schedule: %u staged VUs, more than vus_total %u", s->staged_vus,
                vus_total);
        return -1;
    }
    if (s->n_stages > 0) {
        /* The list a worker will play: each stage within bounds, a length
         * within 31 days, and the indexes before the staged scenarios' the
         * ids it uses, so that every VU index of the ranges has its times. */
        stage st[RUNCHK_STAGES_MAX];
        char why[256];
        for (size_t i = 0; i < s->n_stages; i++) {
            st[i].dur_us = s->stages[i]->duration_us > RUNCHK_TIME_MAX_US
                               ? -1
                               : (int64_t)s->stages[i]->duration_us;
            st[i].target = s->stages[i]->target_vus;
        }
        if (stages_check(st, s->n_stages, why, sizeof(why)) != 0) {
            err_set(err, errlen, "schedule: %s", why);
            return -1;
        }
        /* steered (active_vus): the ids beyond the stages' wait for a vus N */
        uint32_t planned = s->active_vus > 0 ? s->active_vus : vus_total - s->staged_vus;
        if (s->active_vus > vus_total || stages_ids(st, s->n_stages) != planned) {
            err_set(err, errlen, "schedule: the stages use %llu VU ids, the run has %u",
                    (unsigned long long)stages_ids(st, s->n_stages), planned);
            return -1;
        }
    }
    if (s->n_rate_stages > 0) {
        rate_stage st[RATE_STAGES_MAX];
        char why[256];
        if (s->n_rate_stages > RATE_STAGES_MAX) {
            err_set(err, errlen, "schedule: %zu rate stages, more than %u", s->n_rate_stages,
                    RATE_STAGES_MAX);
            return -1;
        }
        for (size_t i = 0; i < s->n_rate_stages; i++) {
            st[i].dur_us = s->rate_stages[i]->duration_us > RUNCHK_TIME_MAX_US
                               ? -1
                               : (int64_t)s->rate_stages[i]->duration_us;
            st[i].per_s = s->rate_stages[i]->per_second;
        }
        if (rate_stages_check(st, s->n_rate_stages, why, sizeof(why)) != 0) {
            err_set(err, errlen, "schedule: %s", why);
            return -1;
        }
        if (s->arrival_stripes == 0 || s->arrival_stripes > vus_total || s->open_vus > vus_total ||
            s->closed_vus > vus_total) {
            err_set(err, errlen, "schedule: %u arrival stripes, %u VUs first, for a pool of %u",
                    s->arrival_stripes, s->open_vus, vus_total);
            return -1;
        }
    }
    if (!isfinite(s->arrival_rate) || s->arrival_rate < 0 || s->arrival_rate > RUNCHK_RATE_MAX) {
        err_set(err, errlen, "schedule: arrival rate %g is not from 0 to %g", s->arrival_rate,
                RUNCHK_RATE_MAX);
        return -1;
    }
    return 0;
}

/* The VU ranges: inside 1..vus_total, increasing, not overlapping, and no
 * more VUs than this agent can hold. */
static int check_ranges(const Quern__StartRun *sr, uint32_t agent_vus_max, uint64_t *nvus,
                        char *err, size_t errlen)
{
    uint64_t n = 0, next = 1;

    if (sr->n_vu_ranges > agent_vus_max) {
        err_set(err, errlen, "%zu VU ranges, more than the %u VUs this agent can hold",
                sr->n_vu_ranges, agent_vus_max);
        return -1;
    }
    for (size_t i = 0; i < sr->n_vu_ranges; i++) {
        const Quern__VuRange *r = sr->vu_ranges[i];
        uint64_t last = (uint64_t)r->first + r->count - 1;

        if (r->count == 0)
            continue;
        if (r->first < next || last > sr->vus_total) {
            err_set(err, errlen,
                    "VU range %u-%llu is outside 1..%u or overlaps or precedes the one before",
                    r->first, (unsigned long long)last, sr->vus_total);
            return -1;
        }
        n += r->count;
        next = last + 1;
    }
    if (n > agent_vus_max) {
        err_set(err, errlen, "%llu VUs for this agent, more than the %u it can hold",
                (unsigned long long)n, agent_vus_max);
        return -1;
    }
    *nvus = n;
    return 0;
}

static int check_files(const Quern__StartRun *sr, char *err, size_t errlen)
{
    uint64_t total = 0;
    int found = 0;
    int local = sr->local_folder != NULL && sr->local_folder[0] != '\0';

    if (local && (sr->local_folder[0] != '/' || strlen(sr->local_folder) >= PATH_MAX)) {
        err_set(err, errlen, "local folder \"%.200s\" is not an absolute path", sr->local_folder);
        return -1;
    }
    if (local && sr->n_files > BUNDLE_LOCAL_MAX_FILES) {
        err_set(err, errlen, "%zu files, more than %d", sr->n_files, BUNDLE_LOCAL_MAX_FILES);
        return -1;
    }
    if (!local && sr->n_files > BUNDLE_MAX_FILES) {
        err_set(err, errlen, "%zu bundle files, more than %d", sr->n_files, BUNDLE_MAX_FILES);
        return -1;
    }
    for (size_t i = 0; i < sr->n_files; i++) {
        const Quern__BundleFile *f = sr->files[i];
        if (!bundle_path_ok(f->path)) {
            err_set(err, errlen, "bundle path \"%.200s\" is not a plain relative path", f->path);
            return -1;
        }
        total += f->data.len;
        found |= strcmp(f->path, sr->script_name) == 0;
    }
    if (total > BUNDLE_MAX_BYTES) {
        err_set(err, errlen, "bundle of %llu bytes, more than %u", (unsigned long long)total,
                BUNDLE_MAX_BYTES);
        return -1;
    }
    if (!found) {
        err_set(err, errlen, "script \"%.200s\" is not in the bundle", sr->script_name);
        return -1;
    }
    return 0;
}

int runchk_start(const Quern__StartRun *sr, uint32_t agent_vus_max, uint64_t *nvus, char *err,
                 size_t errlen)
{
    *nvus = 0;
    if (sr->run_id == 0) {
        err_set(err, errlen, "run id 0");
        return -1;
    }
    if (sr->vus_total == 0 || sr->vus_total > RUNCHK_VUS_MAX) {
        err_set(err, errlen, "vus_total %u is not from 1 to %u", sr->vus_total, RUNCHK_VUS_MAX);
        return -1;
    }
    if (check_ranges(sr, agent_vus_max, nvus, err, errlen) != 0)
        return -1;
    if (sr->setup_data.len > SETUPDATA_MAX) {
        err_set(err, errlen, "setup data of %zu bytes, more than %u", sr->setup_data.len,
                SETUPDATA_MAX);
        return -1;
    }
    if (sr->workers > RUNCHK_WORKERS_MAX) {
        err_set(err, errlen, "%u workers, more than %u", sr->workers, RUNCHK_WORKERS_MAX);
        return -1;
    }
    if (!bundle_path_ok(sr->script_name)) {
        err_set(err, errlen,
                "script name \"%.200s\" is not a plain relative path inside the bundle",
                sr->script_name != NULL ? sr->script_name : "");
        return -1;
    }
    if (check_files(sr, err, errlen) != 0)
        return -1;
    if (sr->n_props > RUNCHK_PROPS_MAX) {
        err_set(err, errlen, "%zu properties, more than %u", sr->n_props, RUNCHK_PROPS_MAX);
        return -1;
    }
    for (size_t i = 0; i < sr->n_props; i++) {
        if (!str_ok(sr->props[i]->key, RUNCHK_NAME_MAX) || sr->props[i]->key[0] == '\0' ||
            !str_ok(sr->props[i]->value, RUNCHK_VALUE_MAX)) {
            err_set(err, errlen, "property %zu has an empty or too long key, or a too long value",
                    i + 1);
            return -1;
        }
    }
    if (sr->n_source_addrs > RUNCHK_SOURCES_MAX) {
        err_set(err, errlen, "%zu source addresses, more than %u", sr->n_source_addrs,
                RUNCHK_SOURCES_MAX);
        return -1;
    }
    for (size_t i = 0; i < sr->n_source_addrs; i++) {
        if (!addr_ok(sr->source_addrs[i])) {
            err_set(err, errlen, "source address \"%.100s\" is not a numeric IP address",
                    sr->source_addrs[i]);
            return -1;
        }
    }
    if (sr->n_resolve > HOSTRES_ENTRIES_MAX) {
        err_set(err, errlen, "%zu resolve entries, more than %d", sr->n_resolve,
                HOSTRES_ENTRIES_MAX);
        return -1;
    }
    for (size_t i = 0; i < sr->n_resolve; i++) {
        char why[200];
        if (!str_ok(sr->resolve[i], HOSTRES_ENTRY_MAX) ||
            hostres_check(sr->resolve[i], why, sizeof(why)) != 0) {
            err_set(err, errlen, "resolve entry %zu is malformed", i + 1);
            return -1;
        }
    }
    if (check_schedule(sr->schedule, sr->vus_total, err, errlen) != 0)
        return -1;
    if (sr->start_offset_us > RUNCHK_OFFSET_MAX_US || sr->start_offset_us < -RUNCHK_OFFSET_MAX_US) {
        err_set(err, errlen, "start offset of %lld us is more than an hour",
                (long long)sr->start_offset_us);
        return -1;
    }
    if (!str_ok(sr->run_name, RUNCHK_NAME_MAX) || !str_ok(sr->script_display, RUNCHK_NAME_MAX) ||
        !str_ok(sr->agent_name, RUNCHK_NAME_MAX)) {
        err_set(err, errlen, "a run, script or agent name is longer than %u bytes",
                RUNCHK_NAME_MAX);
        return -1;
    }
    return 0;
}

int runchk_go(const Quern__Go *go, char *err, size_t errlen)
{
    if (go->start_offset_us > RUNCHK_OFFSET_MAX_US || go->start_offset_us < -RUNCHK_OFFSET_MAX_US) {
        err_set(err, errlen, "Go with a start offset of %lld us (more than an hour)",
                (long long)go->start_offset_us);
        return -1;
    }
    return 0;
}

int runchk_stop(const Quern__Stop *st, char *err, size_t errlen)
{
    if (!str_ok(st->reason, RUNCHK_NAME_MAX)) {
        err_set(err, errlen, "Stop with a reason longer than %u bytes", RUNCHK_NAME_MAX);
        return -1;
    }
    return 0;
}

int runchk_steer(const Quern__Steer *st, char *err, size_t errlen)
{
    if (st->kind < QUERN__STEER__KIND__PAUSE || st->kind > QUERN__STEER__KIND__RATE) {
        err_set(err, errlen, "Steer of an unknown kind %d", (int)st->kind);
        return -1;
    }
    if (st->kind == QUERN__STEER__KIND__VUS && (st->vus < 1 || st->vus > STAGES_VUS_MAX)) {
        err_set(err, errlen, "Steer with %u VUs (1 to %u)", st->vus, STAGES_VUS_MAX);
        return -1;
    }
    if (st->kind == QUERN__STEER__KIND__RATE && (!(st->rate >= 0 && st->rate <= RATE_MAX_PER_S) ||
                                                 st->at_us < 0 || st->at_us > RATE_TIME_MAX_US)) {
        err_set(err, errlen, "Steer with a rate or a moment out of bounds");
        return -1;
    }
    return 0;
}
