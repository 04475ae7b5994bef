/* fuzz_rdframe — a server's bytes as a TCP step's receive cuts them
 * (worker/wire/rdframe): what a line, a delimiter or n bytes take.
 *
 * Input: byte 0 chooses the kind and the bound, byte 1 the delimiter's
 * length (from the bytes that follow) or n; the rest is the input. Checks:
 * fed as a buffer that grows from a cut chosen by the input, the search
 * resumed, the answer is the whole buffer's (the same piece; for "some",
 * what was held then); a piece lies within the input
 * and the bound; a line holds no LF and its end is one; a delimiter is
 * found at the piece's end and nowhere before it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_util.h"
#include "worker/wire/rdframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rdframe w = {0, 0, NULL, 0};
    const char *in;
    size_t n, max, scanned = 0, take = 0, drop = 0, t2 = 0, d2 = 0, cut;
    int whole, grown = 0;

    if (size < 2)
        return 0;
    w.kind = data[0] % 4;
    max = 1 + (data[0] >> 2) * 8; /* 1 to 505: bounds are met too */
    in = (const char *)data + 2;
    n = size - 2;
    if (w.kind == RDFRAME_BYTES) {
        w.n = data[1];
    } else if (w.kind == RDFRAME_UNTIL) {
        w.dlen = 1 + data[1] % 4;
        if (w.dlen > n)
            return 0;
        w.delim = in; /* the first bytes are the delimiter, the rest the input */
        in += w.dlen;
        n -= w.dlen;
    }
    whole = rdframe_find(&w, in, n, max, &scanned, &take, &drop);
    fuzz_check(whole >= -1 && whole <= 1);
    cut = n > 0 ? data[1] % (n + 1) : 0;
    scanned = 0;
    for (size_t len = cut; len <= n && grown == 0; len++)
        grown = rdframe_find(&w, in, len, max, &scanned, &t2, &d2);
    if (w.kind == RDFRAME_SOME) { /* whatever is held: less, when fewer bytes were */
        fuzz_check(grown == whole && (whole != 1 || (t2 >= 1 && t2 <= take && d2 == t2)));
    } else { /* the same answer, the same piece */
        fuzz_check(grown == whole && (whole != 1 || (t2 == take && d2 == drop)));
    }
    if (whole != 1)
        return 0;
    fuzz_check(take <= drop && drop <= n && drop <= max);
    if (w.kind == RDFRAME_LINE) {
        fuzz_check(in[drop - 1] == '\n' && memchr(in, '\n', drop - 1) == NULL);
        fuzz_check(take == drop - 1 || (take == drop - 2 && in[take] == '\r'));
    } else if (w.kind == RDFRAME_UNTIL) {
        fuzz_check(drop == take + w.dlen && memcmp(in + take, w.delim, w.dlen) == 0);
        fuzz_check(memmem(in, take + w.dlen - 1, w.delim, w.dlen) == NULL);
    } else if (w.kind == RDFRAME_BYTES) {
        fuzz_check(take == w.n);
    } else {
        fuzz_check(take >= 1);
    }
    return 0;
}
