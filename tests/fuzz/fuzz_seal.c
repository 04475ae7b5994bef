/* fuzz_seal — the sealed link (proto/seal, proto/frame): what a relay or a
 * fake peer can put on the wire after the handshake.
 *
 * Input: byte 0 says how many plain frames come before the switch to sealed
 * frames (0-3) and how the stream is cut into reads (bits 2-7); the rest is
 * the stream. Part 1 feeds it to a frame reader, switches it to sealed frames
 * after those plain frames (frame_reader_seal, as the peer does), and takes
 * every frame. Checks: no crash or leak; once a frame fails (a sealed frame
 * that does not open, a length refused), the reader stays failed.
 * Part 2 seals the input itself (split in two frames) with one key and opens
 * it with the same key and counter: the bytes come back; a copy with one
 * byte flipped (chosen by the input), or opened out of order, does not open,
 * and the opener then stays failed. */
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "proto/frame.h"
#include "proto/seal.h"
#include "tests/fuzz/fuzz_util.h"

static const uint8_t key[SEAL_KEY_LEN] = "quern-fuzz-key-32-bytes-long...";

static void hdr_of(size_t n, uint8_t h[4])
{
    h[0] = (uint8_t)(n >> 24), h[1] = (uint8_t)(n >> 16), h[2] = (uint8_t)(n >> 8),
    h[3] = (uint8_t)n;
}

/* Part 1: an arbitrary stream into a reader that turns sealed. */
static void stream(const uint8_t *data, size_t size, unsigned plain, unsigned cut)
{
    frame_reader *r = frame_reader_new(64 * 1024);
    seal *rx = seal_new(key);
    char err[ERR_MAX];
    int failed = 0, sealed = plain == 0;
    size_t off = 0, step = (size_t)cut + 1;

    fuzz_check(r != NULL && rx != NULL);
    if (sealed)
        failed = frame_reader_seal(r, rx, 64 * 1024, err, sizeof(err)) != 0;
    while (off < size && !failed) {
        size_t n = size - off < step ? size - off : step;
        Quern__Envelope *env = NULL;
        int got;

        failed = frame_reader_feed(r, data + off, n, err, sizeof(err)) != 0;
        off += n;
        while (!failed && (got = frame_reader_next(r, &env, err, sizeof(err))) == 1) {
            quern__envelope__free_unpacked(env, NULL);
            if (!sealed && --plain == 0) {
                sealed = 1;
                failed = frame_reader_seal(r, rx, 64 * 1024, err, sizeof(err)) != 0;
            }
        }
        if (!failed && got < 0)
            failed = 1;
    }
    if (failed && sealed) {
        /* failed once sealed: for good (a plain frame that does not decode
         * only skips that frame) */
        Quern__Envelope *env = NULL;
        fuzz_check(frame_reader_next(r, &env, err, sizeof(err)) < 0 && env == NULL);
    }
    frame_reader_free(r);
    seal_free(rx);
}

/* Part 2: seal, open, tamper. */
static void round_trip(const uint8_t *data, size_t size)
{
    size_t half = size / 2, lens[2] = {half, size - half};
    seal *tx = seal_new(key), *rx = seal_new(key), *rx2 = seal_new(key);
    uint8_t *buf = xmalloc(size + 2 * SEAL_TAG_LEN + 1), *copy = xmalloc(size + SEAL_TAG_LEN + 1);
    uint8_t h[2][4], tag[2][SEAL_TAG_LEN];
    size_t off = 0;

    fuzz_check(tx != NULL && rx != NULL && rx2 != NULL);
    memcpy(buf, data, size);
    for (int i = 0; i < 2; i++) {
        hdr_of(lens[i] + SEAL_TAG_LEN, h[i]);
        fuzz_check(seal_frame(tx, h[i], buf + off, lens[i], tag[i]) == 0);
        off += lens[i];
    }
    /* Opened out of order: the second frame first fails, and stays failed. */
    if (lens[1] > 0 || lens[0] > 0) {
        memcpy(copy, buf + half, lens[1]);
        fuzz_check(seal_open(rx2, h[1], copy, lens[1], tag[1]) != 0);
        memcpy(copy, buf, lens[0]);
        fuzz_check(seal_open(rx2, h[0], copy, lens[0], tag[0]) != 0);
    }
    /* A flipped byte of the first frame (body, tag or header) never opens. */
    if (size > 0) {
        size_t at = data[size - 1] % (lens[0] + SEAL_TAG_LEN + 4);
        uint8_t hh[4], tt[SEAL_TAG_LEN];
        seal *rx3 = seal_new(key);
        memcpy(copy, buf, lens[0]);
        memcpy(hh, h[0], 4);
        memcpy(tt, tag[0], SEAL_TAG_LEN);
        if (at < lens[0])
            copy[at] ^= 0x01;
        else if (at < lens[0] + SEAL_TAG_LEN)
            tt[at - lens[0]] ^= 0x01;
        else
            hh[at - lens[0] - SEAL_TAG_LEN] ^= 0x01;
        fuzz_check(seal_open(rx3, hh, copy, lens[0], tt) != 0);
        seal_free(rx3);
    }
    /* In order: both open, and the bytes come back. */
    off = 0;
    for (int i = 0; i < 2; i++) {
        fuzz_check(seal_open(rx, h[i], buf + off, lens[i], tag[i]) == 0);
        off += lens[i];
    }
    fuzz_check(memcmp(buf, data, size) == 0);
    fuzz_check(seal_count(rx) == 2 && seal_count(tx) == 2);
    xfree(buf);
    xfree(copy);
    seal_free(tx);
    seal_free(rx);
    seal_free(rx2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    stream(data + 1, size - 1, data[0] & 3, data[0] >> 2);
    round_trip(data + 1, size - 1 < 65536 ? size - 1 : 65536);
    return 0;
}
