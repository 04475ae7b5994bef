/* fuzz_har2lua — a HAR file as a browser, a proxy or a colleague wrote it
 * (record/har.c, record/correl.c, record/har2lua.c): what `quern har2lua`
 * reads before it writes a script a tester will run.
 *
 * Input: the file's bytes, converted with --resources list (byte 0 odd) or
 * auto. Checks: a refusal says where ("LINE:COLUMN: ..."); a script ends
 * with run()'s "end", and every line of it is blank, a comment, a
 * declaration or indented code: nothing in the recording (a name, a URL, a
 * title) starts a line of code of its own. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/har2lua.h"
#include "tests/fuzz/fuzz_util.h"

/* A line of the script as har2lua writes them. */
static int line_ok(const char *s, size_t n)
{
    static const char *const starts[] = {"--", "local ", "function sc.run(vu)", "  ", "end"};

    if (n == 0)
        return 1;
    for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
        if (n >= strlen(starts[i]) && strncmp(s, starts[i], strlen(starts[i])) == 0)
            return strcmp(starts[i], "end") != 0 || n == 3;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    replay_opts o = {.source = "f.har", .name = "F", .prop = "base_url"};
    char err[512], *buf = NULL;
    size_t blen = 0;
    FILE *out;
    int rc;

    if (size < 1)
        return 0;
    o.resources = data[0] & 1 ? REPLAY_RES_LIST : REPLAY_RES_AUTO;
    out = open_memstream(&buf, &blen);
    fuzz_check(out != NULL);
    err[0] = '\0';
    rc = har2lua_convert((const char *)data + 1, size - 1, &o, out, err, sizeof(err));
    fclose(out);
    if (rc != 0) {
        unsigned line, col;
        fuzz_check(sscanf(err, "%u:%u: ", &line, &col) == 2);
    } else {
        fuzz_check(blen >= 4 && strcmp(buf + blen - 4, "end\n") == 0);
        for (const char *s = buf; s < buf + blen;) {
            const char *nl = memchr(s, '\n', (size_t)(buf + blen - s));
            size_t n = nl != NULL ? (size_t)(nl - s) : (size_t)(buf + blen - s);
            fuzz_check(line_ok(s, n));
            s += n + 1;
        }
    }
    free(buf);
    return 0;
}
