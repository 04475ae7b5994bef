/* fuzz_errkinds — error messages and bodies as a server or a sender makes
 * them (common/errkinds): a transfer's error text, a check's message, a
 * response body, and a kind's message from another process, all folded or
 * cleaned before they are kept.
 *
 * Input: bytes 0-1 the code; the rest a message, cut at each NUL into the
 * messages of successive errors. Checks: a folded message is shorter than
 * ERRKIND_MSG_MAX, well-formed UTF-8 without control characters nor
 * leading or trailing space, and folds again to itself (a receiver folds
 * what it got); the whole input as a body gives an excerpt of at most
 * ERRKIND_BODY_MAX bytes, well-formed, without control characters; a table
 * fed every message keeps at most ERRKIND_MAX kinds and counts every error
 * once, and tables merged in either order hold the same total. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errkinds.h"
#include "common/utf8.h"
#include "tests/fuzz/fuzz_util.h"

/* s is well-formed UTF-8 without a control character. */
static void check_clean(const char *s)
{
    size_t n = strlen(s);

    for (size_t i = 0; i < n;) {
        uint32_t c = 0;
        size_t len = utf8_decode((const unsigned char *)s + i, n - i, &c);
        fuzz_check(len > 0);
        fuzz_check(c >= 0x20 && c != 0x7f && (c < 0x80 || c >= 0xa0));
        i += len;
    }
}

static void check_fold(const char *msg, int32_t code)
{
    char once[ERRKIND_MSG_MAX], twice[ERRKIND_MSG_MAX];
    size_t n = errkinds_fold(msg, code, once, sizeof(once));

    fuzz_check(n == strlen(once) && n < ERRKIND_MSG_MAX);
    check_clean(once);
    fuzz_check(n == 0 || (once[0] != ' ' && once[n - 1] != ' '));
    errkinds_fold(once, code, twice, sizeof(twice));
    fuzz_check(strcmp(once, twice) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t code = size >= 2 ? (int32_t)(data[0] | data[1] << 8) - 1000 : 0;
    const uint8_t *m = size >= 2 ? data + 2 : data;
    size_t mlen = size >= 2 ? size - 2 : 0, at = 0, notes = 0;
    char *s = fuzz_str(m, mlen);
    errkinds *a = errkinds_new(), *b = errkinds_new(), *ab = errkinds_new(), *ba = errkinds_new();
    errkind_example ex;

    errkinds_example_set(&ex, s, 503, (const char *)m, mlen, "0af7651916cd43dd8448eb211c80319c");
    fuzz_check(strlen(ex.body) <= ERRKIND_BODY_MAX && strlen(ex.url) < ERRKIND_URL_MAX);
    check_clean(ex.body);
    check_clean(ex.url);
    while (at <= mlen) {
        const char *msg = s + at;
        check_fold(msg, code);
        errkinds_note(notes % 2 ? a : b, (int)(notes % 3 == 0), code, msg, (int64_t)notes, &ex);
        notes++;
        at += strlen(msg) + 1;
    }
    fuzz_check(a->n <= ERRKIND_MAX && b->n <= ERRKIND_MAX);
    fuzz_check(errkinds_total(a) + errkinds_total(b) == notes);
    errkinds_merge(ab, a);
    errkinds_merge(ab, b);
    errkinds_merge(ba, b);
    errkinds_merge(ba, a);
    fuzz_check(errkinds_total(ab) == notes && errkinds_total(ba) == notes);
    errkinds_free(a);
    errkinds_free(b);
    errkinds_free(ab);
    errkinds_free(ba);
    free(s);
    return 0;
}
