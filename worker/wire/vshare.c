#include "worker/wire/vshare.h"

#include <string.h>

#include "common/mem.h"

CURLSH *vshare_get(vshare_set *s, uint32_t idx)
{
    uint32_t g = idx / VSHARE_GROUP;

    if (g >= s->n) {
        uint32_t n = s->n ? s->n : 16;
        while (n <= g)
            n *= 2;
        s->sh = xreallocarray(s->sh, n, sizeof(*s->sh));
        memset(s->sh + s->n, 0, (n - s->n) * sizeof(*s->sh));
        s->n = n;
    }
    if (s->sh[g] == NULL) {
        CURLSH *sh = curl_share_init();
        if (sh == NULL)
            return NULL;
        curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
        s->sh[g] = sh;
    }
    return s->sh[g];
}

void vshare_free(vshare_set *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->sh[i] != NULL)
            curl_share_cleanup(s->sh[i]);
    xfree(s->sh);
    memset(s, 0, sizeof(*s));
}
