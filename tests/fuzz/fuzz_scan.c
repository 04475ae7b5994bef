/* fuzz_scan — a scenario's text as `quern check` and `quern run` read it for
 * their warnings (console/scan).
 *
 * Input: Lua source, any bytes. Checks: scan_mask keeps the length, every
 * newline, and every byte it does not blank; what it blanks becomes a
 * space. scan_script over the text, with a step declared on each of its
 * first lines and a feeder of two columns, never reads out of bounds and
 * returns as many warnings as it printed lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/preflight.h"
#include "console/scan.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *code = malloc(size + 1), where[8][64], csv_where[64], *out = NULL;
    const char *path = fuzz_file(data, size);
    char *cols[] = {"user", "password"};
    preflight_step steps[8];
    loadinfo_csv csv;
    preflight pf;
    size_t len = 0, lines = 0;
    unsigned n;
    FILE *f;

    scan_mask((const char *)data, size, code);
    for (size_t i = 0; i < size; i++) {
        fuzz_check((data[i] == '\n') == (code[i] == '\n'));
        fuzz_check(code[i] == (char)data[i] || code[i] == ' ');
    }
    free(code);
    if (path == NULL)
        return 0;
    memset(&pf, 0, sizeof(pf));
    for (int i = 0; i < 8; i++) {
        snprintf(where[i], sizeof(where[i]), "%s:%d", path, i + 1);
        steps[i] = (preflight_step){"SC-F-STEP-1", "SC-F-STEP-1)F", "F", where[i], 0};
    }
    snprintf(csv_where, sizeof(csv_where), "%s:2", path);
    csv = (loadinfo_csv){"users.csv", csv_where, cols, 2};
    pf.steps = steps;
    pf.nsteps = 8;
    pf.info.csvs = &csv;
    pf.info.ncsvs = 1;
    f = open_memstream(&out, &len);
    n = scan_script(path, &pf, f);
    fclose(f);
    for (size_t i = 0; i < len; i++)
        lines += out[i] == '\n';
    fuzz_check(lines == n);
    free(out);
    return 0;
}
