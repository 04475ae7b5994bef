/* fuzz_interval_decode — an Envelope's bytes as the console reads an agent's
 * Interval in place (proto/interval_decode).
 *
 * Input: the bytes of one Envelope, as a frame carries them. Checks: what
 * interval_decode takes, protobuf-c also unpacks, and the two pack back to the same
 * bytes; the input is left as it was; nothing leaks. */
#include <string.h>

#include "common/mem.h"
#include "proto/interval_decode.h"
#include "tests/fuzz/fuzz_util.h"

/* The envelope packed again by protobuf-c, into a new buffer of *len bytes. */
static uint8_t *repack(const Quern__Envelope *env, size_t *len)
{
    uint8_t *out;

    *len = quern__envelope__get_packed_size(env);
    out = xmalloc(*len ? *len : 1);
    quern__envelope__pack(env, out);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = xmalloc(size ? size : 1);
    interval_decode d;

    memcpy(buf, data, size);
    if (interval_decode_envelope(buf, size, &d) == 1) {
        Quern__Envelope *ref = quern__envelope__unpack(NULL, size, buf);
        size_t a, b;
        uint8_t *pa, *pb;

        fuzz_check(ref != NULL);
        pa = repack(&d.env, &a);
        pb = repack(ref, &b);
        fuzz_check(a == b && memcmp(pa, pb, a) == 0);
        xfree(pa);
        xfree(pb);
        quern__envelope__free_unpacked(ref, NULL);
        interval_decode_free(&d);
    }
    fuzz_check(memcmp(buf, data, size) == 0);
    xfree(buf);
    return 0;
}
