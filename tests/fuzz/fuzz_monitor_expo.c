/* fuzz_monitor_expo — the exposition text of a --monitor endpoint (console/expo),
 * which quern scrapes from hosts it does not control, and the host figures
 * derived from it (console/monitor_host).
 *
 * Input: the answer's body. Checks: every sample has a name and at most
 * MONITOR_EXPO_LABELS_MAX labels, never more than MONITOR_EXPO_SERIES_MAX samples; an error
 * names its line; the input read as a selector either fails with a message
 * or matches a sample of its own name; two scrapes of the input give
 * figures that are finite or NAN, fractions within 0..1 or NAN. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "console/monitor_expo.h"
#include "console/monitor_host.h"
#include "tests/fuzz/fuzz_util.h"

static size_t count;

static void on_sample(void *ud, const monitor_expo_sample *s)
{
    fuzz_check(s->name != NULL && s->name[0] != '\0');
    fuzz_check(s->nlabels <= MONITOR_EXPO_LABELS_MAX);
    for (size_t i = 0; i < s->nlabels; i++)
        fuzz_check(s->labels[i].name[0] != '\0' && s->labels[i].value != NULL);
    count++;
    monitor_host_add(ud, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static monitor_host_scrape a, b;
    char err[ERR_MAX], *s;
    double v[MONITOR_HOST_FIXED];
    monitor_expo_sel sel;

    count = 0;
    monitor_host_scrape_init(&a, NULL, 0);
    if (monitor_expo_parse((const char *)data, size, on_sample, &a, err, sizeof(err)) != 0)
        fuzz_check(strncmp(err, "line ", 5) == 0);
    fuzz_check(count <= MONITOR_EXPO_SERIES_MAX);
    b = a;
    monitor_host_derive(&a, &b, 1.0, v);
    for (int i = 0; i < MONITOR_HOST_FIXED; i++)
        fuzz_check(isnan(v[i]) || isfinite(v[i]) || i == MONITOR_HOST_LOAD1 ||
                   i == MONITOR_HOST_MEM_USED);
    for (int i = MONITOR_HOST_CPU_USER; i <= MONITOR_HOST_CPU_BUSY; i++)
        fuzz_check(isnan(v[i]) || (v[i] >= 0 && v[i] <= 1.0));
    s = fuzz_str(data, size > 512 ? 512 : size);
    if (monitor_expo_sel_parse(s, &sel, err, sizeof(err)) == 0) {
        monitor_expo_label l[MONITOR_EXPO_SEL_LABELS];
        monitor_expo_sample x = {sel.name, l, sel.nlabels, 1.0};
        for (size_t i = 0; i < sel.nlabels; i++)
            l[i] = (monitor_expo_label){sel.lname[i], sel.lvalue[i]};
        fuzz_check(monitor_expo_sel_match(&sel, &x));
    } else {
        fuzz_check(err[0] != '\0');
    }
    free(s);
    return 0;
}
