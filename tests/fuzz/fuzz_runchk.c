/* fuzz_runchk — what an agent accepts from an authenticated console
 * (agent/runchk): StartRun, Go and Stop as they arrive, decoded.
 *
 * Input: byte 0 chooses the message (0 StartRun, 1 Go, 2 Stop, by its value
 * mod 3), the rest is its protobuf encoding. Checks: an accepted StartRun
 * keeps every promise the agent relies on before it allocates or forks: at
 * most RUNCHK_VUS_MAX VUs in the run and at most the agent's bound here, its
 * non-empty ranges inside 1..vus_total, in order and apart, *nvus their sum, a script
 * name that is a safe bundle path and one of the bundle's files, at most
 * RUNCHK_WORKERS_MAX workers, every bundle path safe; a refusal says why. */
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "proto/bundle.h"
#include "agent/runchk.h"
#include "tests/fuzz/fuzz_util.h"

#define AGENT_VUS 100000u /* this agent's bound, as runchk_agent_vus_max gives one */

static void check_start(const Quern__StartRun *sr)
{
    char err[ERR_MAX] = "";
    uint64_t nvus = 0, sum = 0, next = 1;
    int in_bundle = 0;

    if (runchk_start(sr, AGENT_VUS, &nvus, err, sizeof(err)) != 0) {
        fuzz_check(err[0] != '\0' && memchr(err, '\0', sizeof(err)) != NULL);
        return;
    }
    fuzz_check(sr->vus_total <= RUNCHK_VUS_MAX);
    fuzz_check(nvus <= AGENT_VUS && nvus <= sr->vus_total);
    for (size_t i = 0; i < sr->n_vu_ranges; i++) {
        const Quern__VuRange *r = sr->vu_ranges[i];
        fuzz_check(r != NULL);
        if (r->count == 0)
            continue; /* an empty range gives nothing, wherever it points */
        fuzz_check(r->first >= next);
        fuzz_check((uint64_t)r->first + r->count - 1 <= sr->vus_total);
        next = (uint64_t)r->first + r->count;
        sum += r->count;
    }
    fuzz_check(sum == nvus);
    fuzz_check(sr->workers <= RUNCHK_WORKERS_MAX);
    fuzz_check(bundle_path_ok(sr->script_name));
    for (size_t i = 0; i < sr->n_files; i++) {
        fuzz_check(bundle_path_ok(sr->files[i]->path));
        in_bundle |= strcmp(sr->files[i]->path, sr->script_name) == 0;
    }
    fuzz_check(in_bundle);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[ERR_MAX];

    if (size < 1)
        return 0;
    switch (data[0] % 3) {
    case 0: {
        Quern__StartRun *sr = quern__start_run__unpack(NULL, size - 1, data + 1);
        if (sr != NULL) {
            check_start(sr);
            quern__start_run__free_unpacked(sr, NULL);
        }
        break;
    }
    case 1: {
        Quern__Go *go = quern__go__unpack(NULL, size - 1, data + 1);
        if (go != NULL) {
            if (runchk_go(go, err, sizeof(err)) == 0)
                fuzz_check(go->start_offset_us <= RUNCHK_OFFSET_MAX_US &&
                           go->start_offset_us >= -RUNCHK_OFFSET_MAX_US);
            quern__go__free_unpacked(go, NULL);
        }
        break;
    }
    default: {
        Quern__Stop *st = quern__stop__unpack(NULL, size - 1, data + 1);
        if (st != NULL) {
            if (runchk_stop(st, err, sizeof(err)) == 0)
                fuzz_check(strlen(st->reason) <= RUNCHK_NAME_MAX);
            quern__stop__free_unpacked(st, NULL);
        }
        break;
    }
    }
    return 0;
}
