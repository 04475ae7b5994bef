#include "common/redact.h"

#include <string.h>

#define REDACT_MASK "***"

/* Where the authority that starts at p ends: at the path, query or
 * fragment, or at what cannot be part of a URL in a message. */
static const char *authority_end(const char *p)
{
    return p + strcspn(p, "/?#\\ \t\r\n\"'<>");
}

/* Appends n bytes of s to out, as much as fits before the NUL. */
static void put(char *out, size_t outlen, size_t *len, const char *s, size_t n)
{
    if (*len + 1 >= outlen)
        return;
    if (n > outlen - 1 - *len)
        n = outlen - 1 - *len;
    memcpy(out + *len, s, n);
    *len += n;
}

int redact_url(const char *in, char *out, size_t outlen)
{
    const char *p = in, *scheme;
    size_t len = 0;

    if (outlen == 0)
        return 0;
    while ((scheme = strstr(p, "://")) != NULL) {
        const char *host = scheme + 3, *end = authority_end(host);
        const char *at = NULL, *colon;

        /* The user-info ends at the authority's last '@'. */
        for (const char *c = host; c < end; c++)
            if (*c == '@')
                at = c;
        colon = at != NULL ? memchr(host, ':', (size_t)(at - host)) : NULL;
        if (colon == NULL || colon + 1 == at) {
            /* No password here: copied as it is. */
            put(out, outlen, &len, p, (size_t)(end - p));
        } else {
            put(out, outlen, &len, p, (size_t)(colon + 1 - p));
            put(out, outlen, &len, REDACT_MASK, sizeof(REDACT_MASK) - 1);
            put(out, outlen, &len, at, (size_t)(end - at));
        }
        p = end;
    }
    put(out, outlen, &len, p, strlen(p));
    out[len] = '\0';
    return 0;
}
