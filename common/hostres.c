#include "common/hostres.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"

int hostres_check(const char *entry, char *err, size_t errlen)
{
    size_t n = strlen(entry);
    const char *c1, *c2, *p;
    long port = 0;

    if (n == 0 || n > HOSTRES_ENTRY_MAX) {
        err_set(err, errlen, "resolve entry: give 1 to %d bytes", HOSTRES_ENTRY_MAX);
        return -1;
    }
    if (strpbrk(entry, " \t\r\n") != NULL) {
        err_set(err, errlen, "resolve entry \"%.80s\" has a space", entry);
        return -1;
    }
    c1 = strchr(entry, ':');
    c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
    if (c1 == NULL || c2 == NULL || c1 == entry) {
        err_set(err, errlen, "resolve entry \"%.80s\" is not HOST:PORT:ADDRESS", entry);
        return -1;
    }
    for (p = c1 + 1; p < c2; p++) {
        if (*p < '0' || *p > '9' || port > 65535)
            break;
        port = port * 10 + (*p - '0');
    }
    if (p != c2 || c2 == c1 + 1 || port < 1 || port > 65535) {
        err_set(err, errlen, "resolve entry \"%.80s\": the port must be 1 to 65535", entry);
        return -1;
    }
    /* addresses: a comma-separated list, none empty */
    for (p = c2 + 1;;) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == 0 || (p[0] == '[' && (len < 3 || p[len - 1] != ']'))) {
            err_set(err, errlen, "resolve entry \"%.80s\": an address is empty or malformed",
                    entry);
            return -1;
        }
        if (end == NULL)
            break;
        p = end + 1;
    }
    return 0;
}
