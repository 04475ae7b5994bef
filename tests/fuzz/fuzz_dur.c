/* fuzz_dur — durations as people write them (common/dur): every --duration,
 * --ramp-up, think time and threshold limit goes through dur_parse.
 *
 * Input: the text to parse. Checks: a parsed value is not negative and
 * dur_format's text of it parses back to the same value (dur.h's promise);
 * the first 8 bytes, as an int64, format into a buffer of every small size
 * without overflow, NUL-terminated, and a non-negative one parses back. */
#include <stdint.h>
#include <string.h>

#include "common/dur.h"
#include "common/err.h"
#include "tests/fuzz/fuzz_util.h"

/* dur_format(us) parses back to us, and small buffers stay terminated. */
static void check_format(int64_t us)
{
    char buf[DUR_FORMAT_MAX], err[ERR_MAX];
    int64_t back = -1;

    dur_format(us, buf, sizeof(buf));
    fuzz_check(strlen(buf) < sizeof(buf));
    if (us >= 0) {
        fuzz_check(dur_parse(buf, &back, err, sizeof(err)) == 0);
        fuzz_check(back == us);
    }
    for (size_t len = 1; len < 8; len++) {
        char small[8];
        memset(small, 'x', sizeof(small));
        dur_format(us, small, len);
        fuzz_check(memchr(small, '\0', len) != NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size), err[ERR_MAX];
    int64_t us = -7;

    if (dur_parse(s, &us, err, sizeof(err)) == 0) {
        fuzz_check(us >= 0);
        check_format(us);
    } else {
        fuzz_check(us == -7); /* unchanged on error */
        fuzz_check(memchr(err, '\0', sizeof(err)) != NULL);
    }
    dur_parse(s, &us, NULL, 0);
    if (size >= 8) {
        int64_t v;
        memcpy(&v, data, sizeof(v));
        check_format(v);
    }
    free(s);
    return 0;
}
