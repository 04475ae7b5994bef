/* Unit tests for worker/wire/wsbound: frame ends found whole and cut at
 * every byte, each length form, fragmented messages with control frames
 * between their fragments. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "worker/wire/wsbound.h"

/* Writes a frame's header (unmasked unless mask) for a payload of plen
 * bytes, then plen bytes of 'x', at out; its length. */
static size_t frame(uint8_t *out, unsigned fin, unsigned opcode, uint64_t plen, int mask)
{
    size_t n = 0;

    out[n++] = (uint8_t)(fin << 7 | opcode);
    if (plen < 126) {
        out[n++] = (uint8_t)((mask ? 0x80 : 0) | plen);
    } else if (plen < 65536) {
        out[n++] = (uint8_t)((mask ? 0x80 : 0) | 126);
        out[n++] = (uint8_t)(plen >> 8);
        out[n++] = (uint8_t)plen;
    } else {
        out[n++] = (uint8_t)((mask ? 0x80 : 0) | 127);
        for (int i = 7; i >= 0; i--)
            out[n++] = (uint8_t)(plen >> (8 * i));
    }
    if (mask) {
        memcpy(out + n, "\x01\x02\x03\x04", 4);
        n += 4;
    }
    memset(out + n, 'x', (size_t)plen);
    return n + (size_t)plen;
}

/* in fed in two parts cut at every byte: idle after the whole, and after
 * the first part only where the cut is at one of the ends (a 0-terminated
 * list). */
static void assert_cuts(const uint8_t *in, size_t n, const size_t *ends)
{
    for (size_t cut = 0; cut <= n; cut++) {
        wsbound b = {0};
        int at_end = cut == 0;
        for (const size_t *e = ends; *e != 0; e++)
            at_end |= *e == cut;
        wsbound_feed(&b, in, cut);
        assert_int_equal(wsbound_idle(&b), at_end);
        wsbound_feed(&b, in + cut, n - cut);
        assert_true(wsbound_idle(&b));
    }
}

static void test_lengths(void **state)
{
    static uint8_t in[70000 + 400];
    size_t a, b, c, d, e;

    (void)state;
    a = frame(in, 1, 1, 5, 0);
    b = a + frame(in + a, 1, 2, 0, 0);     /* an empty binary message */
    c = b + frame(in + b, 1, 1, 300, 0);   /* 16-bit length */
    d = c + frame(in + c, 1, 9, 3, 1);     /* a masked ping */
    e = d + frame(in + d, 1, 2, 70000, 0); /* 64-bit length */
    assert_cuts(in, e, (size_t[]){a, b, c, d, e, 0});
}

static void test_fragments(void **state)
{
    uint8_t in[256];
    size_t a, b, c, d;
    wsbound w = {0};

    (void)state;
    a = frame(in, 0, 1, 4, 0);         /* text, not its last frame */
    b = a + frame(in + a, 1, 9, 2, 0); /* a ping between: still open */
    c = b + frame(in + b, 0, 0, 3, 0); /* a continuation, not the last */
    d = c + frame(in + c, 1, 0, 3, 0); /* the last */
    assert_cuts(in, d, (size_t[]){d, 0});
    wsbound_feed(&w, in, c);
    assert_false(wsbound_idle(&w));
    wsbound_feed(&w, in + c, d - c);
    assert_true(wsbound_idle(&w));
    /* a close in the middle of a message leaves it open too */
    memset(&w, 0, sizeof(w));
    a = frame(in, 0, 2, 1, 0);
    b = a + frame(in + a, 1, 8, 2, 0);
    wsbound_feed(&w, in, b);
    assert_false(wsbound_idle(&w));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_fragments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
