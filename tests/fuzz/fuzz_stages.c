/* fuzz_stages — a load's stages as the tester writes them (common/stages):
 * every --stages list goes through stages_parse.
 *
 * Input: the text to parse. Checks: a refused list leaves *n at 0 and a
 * NUL-terminated message; an accepted one passes stages_check, has a target
 * above 0 and a length within bounds, and its ids (a few, first and last)
 * start within the list, leave after they start (or stay), and leave in the
 * order the model says: of two ids that take the same climb, the higher
 * leaves first or at the same time. */
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "common/stages.h"
#include "tests/fuzz/fuzz_util.h"

#define FUZZ_STAGES 64

static void check_ids(const stage *st, size_t n)
{
    uint64_t ids = stages_ids(st, n);
    int64_t total = stages_total_us(st, n), s0 = 0, l0 = 0, s1, l1;

    fuzz_check(ids >= stages_max(st, n));
    for (uint64_t id = 1; id <= ids && id <= 200; id++) {
        fuzz_check(stages_id_times(st, n, id, &s1, &l1) == 0);
        fuzz_check(s1 >= 0 && s1 <= total);
        fuzz_check(l1 == -1 || (l1 >= s1 && l1 <= total));
        fuzz_check(id == 1 || s1 >= s0); /* ids are taken in order */
        if (id > 1 && l0 != -1 && s1 < l0)
            fuzz_check(l1 != -1 && l1 <= l0); /* both active: the higher leaves first */
        s0 = s1;
        l0 = l1;
    }
    fuzz_check(stages_id_times(st, n, ids + 1, &s1, &l1) == -1);
    fuzz_check(stages_id_times(st, n, ids, &s1, &l1) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size), err[ERR_MAX];
    stage st[FUZZ_STAGES];
    size_t n = 7;

    if (stages_parse(s, st, FUZZ_STAGES, &n, err, sizeof(err)) == 0) {
        fuzz_check(n >= 1 && n <= FUZZ_STAGES);
        fuzz_check(stages_check(st, n, err, sizeof(err)) == 0);
        fuzz_check(stages_max(st, n) > 0);
        fuzz_check(stages_total_us(st, n) > 0 && stages_total_us(st, n) <= STAGES_TIME_MAX_US);
        fuzz_check(stages_target(st, n, stages_total_us(st, n)) == st[n - 1].target);
        check_ids(st, n);
    } else {
        fuzz_check(n == 0);
        fuzz_check(memchr(err, '\0', sizeof(err)) != NULL);
    }
    stages_parse(s, st, FUZZ_STAGES, &n, NULL, 0);
    free(s);
    return 0;
}
