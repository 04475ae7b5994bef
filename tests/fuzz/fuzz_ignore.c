/* fuzz_ignore — a script folder's .quernignore (common/ignore), read by the
 * console before it packs the folder.
 *
 * Input: the ignore file, then after a NUL byte (if any) a path to test.
 * Checks: a refused file says "FILE:LINE: " with a line of the input; an
 * accepted one matches the path (as a file and as a folder) in bounded
 * time, and the same rules with a last line "*" ignore every path and with
 * a last line "!*" none: the last matching rule decides. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ignore.h"
#include "tests/fuzz/fuzz_util.h"

/* The rules text plus a last line, parsed. */
static ignore *with_last(const char *text, size_t len, const char *last)
{
    size_t n = strlen(last);
    char *buf = malloc(len + n + 2);
    ignore *ig;

    fuzz_check(buf != NULL);
    memcpy(buf, text, len);
    buf[len] = '\n';
    memcpy(buf + len + 1, last, n);
    ig = ignore_parse(buf, len + 1 + n, "f", NULL, 0);
    free(buf);
    return ig;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const uint8_t *nul = memchr(data, '\0', size);
    size_t len = nul != NULL ? (size_t)(nul - data) : size;
    char path[512], err[1024];
    ignore *ig, *all, *none;

    snprintf(path, sizeof(path), "%.*s",
             nul != NULL ? (int)(size - len - 1 > 500 ? 500 : size - len - 1) : 0,
             nul != NULL ? (const char *)nul + 1 : "");
    if (path[0] == '\0')
        snprintf(path, sizeof(path), "data/users.csv");
    ig = ignore_parse(text, len, "f", err, sizeof(err));
    if (ig == NULL) {
        fuzz_check(strncmp(err, "f:", 2) == 0);
        return 0;
    }
    ignore_match(ig, path, 0);
    ignore_match(ig, path, 1);
    all = with_last(text, len, "*");
    none = with_last(text, len, "!*");
    /* "*" has no '/': it matches the last name of any path */
    fuzz_check(all != NULL && none != NULL);
    if (path[strlen(path) - 1] != '/') {
        fuzz_check(ignore_match(all, path, 0) == 1);
        fuzz_check(ignore_match(none, path, 0) == 0);
    }
    ignore_free(ig);
    ignore_free(all);
    ignore_free(none);
    return 0;
}
