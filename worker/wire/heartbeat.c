/* heartbeat — a connection's keepalive bytes (heartbeat.h). */
#include "worker/wire/heartbeat.h"

#include <string.h>

int heartbeat_set(heartbeat *h, double every, const char *bytes, size_t len, double last)
{
    /* !(a <= b) also refuses NaN */
    if (len == 0 || len > HEARTBEAT_MAX || !(every >= HEARTBEAT_MIN_S) || every > HEARTBEAT_MAX_S)
        return -1;
    h->every = every;
    h->last = last;
    h->len = len;
    h->off = len;
    memcpy(h->bytes, bytes, len);
    return 0;
}

int heartbeat_due(const heartbeat *h, double now, double *after)
{
    double left = h->last + h->every - now;

    if (left <= 0.)
        return 1;
    *after = left;
    return 0;
}

void heartbeat_begin(heartbeat *h)
{
    h->off = 0;
}

const char *heartbeat_rest(const heartbeat *h, size_t *len)
{
    *len = h->len - h->off;
    return h->bytes + h->off;
}

void heartbeat_wrote(heartbeat *h, size_t n, double now)
{
    h->off += n < h->len - h->off ? n : h->len - h->off;
    h->last = now;
}
