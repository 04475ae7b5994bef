/* fuzz_wscookie — a Set-Cookie a server's 101 answer sends, and the jar line
 * it makes (worker/wscookie): every WebSocket upgrade reads the answer's
 * Set-Cookie lines from the network.
 *
 * Input: the header's value. Checks: a line is made the same twice; a made
 * line has the jar's 7 tab-separated fields and no CR or LF; the Cookie
 * header made from it (to the host that set it and to the input as a jar
 * line of its own) is "" or one line ending in CRLF. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_util.h"
#include "worker/wire/wscookie.h"

#define NOW 1700000000

static void header_ok(const char *line)
{
    const char *lines[1] = {line};
    char out[1024];
    size_t n = wscookie_header(out, sizeof(out), lines, 1, "h.example.com", "/a/b", 1, NOW);

    fuzz_check(n == strlen(out));
    fuzz_check(n == 0 || (n >= 10 && memcmp(out + n - 2, "\r\n", 2) == 0));
    fuzz_check(n < 2 || memchr(out, '\n', n - 1) == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *value = malloc(size + 1), line[1024], line2[1024];
    int rc, tabs = 0;

    if (value == NULL)
        return 0;
    memcpy(value, data, size);
    value[size] = '\0';
    rc = wscookie_line(value, "h.example.com", "/a/b", NOW, line, sizeof(line));
    fuzz_check(rc == wscookie_line(value, "h.example.com", "/a/b", NOW, line2, sizeof(line2)));
    if (rc == 0) {
        fuzz_check(strcmp(line, line2) == 0);
        fuzz_check(strpbrk(line, "\r\n") == NULL);
        for (const char *p = line; *p != '\0'; p++)
            tabs += *p == '\t';
        fuzz_check(tabs == 6);
        header_ok(line);
    } else {
        fuzz_check(rc == -1);
    }
    header_ok(value);
    free(value);
    return 0;
}
