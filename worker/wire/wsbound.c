/* wsbound — where a WebSocket's incoming frames begin and end (wsbound.h). */
#include "worker/wire/wsbound.h"

/* The header's length, from its first two bytes. */
static size_t header_len(const uint8_t *hdr)
{
    size_t len = 2, plen = hdr[1] & 0x7fu;

    if (plen == 126)
        len += 2;
    else if (plen == 127)
        len += 8;
    return len + ((hdr[1] & 0x80u) != 0 ? 4 : 0);
}

/* The header is whole: its payload's length, the message's state. */
static void header_done(wsbound *b)
{
    uint64_t plen = b->hdr[1] & 0x7fu;
    unsigned fin = b->hdr[0] >> 7, opcode = b->hdr[0] & 0x0fu;
    size_t ext = plen == 126 ? 2 : plen == 127 ? 8 : 0;

    if (ext > 0) {
        plen = 0;
        for (size_t i = 0; i < ext; i++)
            plen = plen << 8 | b->hdr[2 + i];
    }
    if (opcode == 1 || opcode == 2) /* text, binary: a message begins */
        b->frag = fin == 0;
    else if (opcode == 0 && fin) /* its last continuation */
        b->frag = 0;
    b->left = plen;
    b->hlen = 0;
}

void wsbound_feed(wsbound *b, const uint8_t *p, size_t n)
{
    while (n > 0) {
        if (b->left > 0) {
            size_t k = b->left < n ? (size_t)b->left : n;
            b->left -= k;
            p += k;
            n -= k;
            continue;
        }
        b->hdr[b->hlen++] = *p++;
        n--;
        if (b->hlen >= 2 && b->hlen == header_len(b->hdr))
            header_done(b);
    }
}

int wsbound_idle(const wsbound *b)
{
    return b->hlen == 0 && b->left == 0 && !b->frag;
}
