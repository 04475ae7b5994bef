#include "common/memsize.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"

/* The shift of a unit letter, -1 for none known. */
static int unit_shift(char c)
{
    switch (toupper((unsigned char)c)) {
    case 'K':
        return 10;
    case 'M':
        return 20;
    case 'G':
        return 30;
    case 'T':
        return 40;
    default:
        return -1;
    }
}

int memsize_parse(const char *s, uint64_t *out, char *err, size_t errlen)
{
    const char *p = s;
    uint64_t n = 0;
    int shift = 0;

    if (!isdigit((unsigned char)*p))
        goto bad;
    for (; isdigit((unsigned char)*p); p++) {
        if (n > (UINT64_MAX - 9) / 10)
            goto big;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    if (*p != '\0') {
        shift = unit_shift(*p);
        if (shift < 0)
            goto bad;
        p++;
        if (strcasecmp(p, "") != 0 && strcasecmp(p, "B") != 0 && strcasecmp(p, "iB") != 0)
            goto bad;
    }
    if (n == 0)
        goto bad;
    if (n > (UINT64_MAX >> shift))
        goto big;
    *out = n << shift;
    return 0;
big:
    err_set(err, errlen, "\"%s\" is too large", s);
    return -1;
bad:
    err_set(err, errlen, "\"%s\" is not an amount of memory (a number and K, M, G or T: 256M, 2G)",
            s);
    return -1;
}

/* The first number of a file (memory.max says "max" when unbounded), 0 none. */
static uint64_t file_number(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    uint64_t v = 0;
    size_t klen = key != NULL ? strlen(key) : 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *end;
        if (key != NULL && strncmp(line, key, klen) != 0)
            continue;
        errno = 0;
        v = strtoull(line + klen, &end, 10);
        if (errno != 0 || end == line + klen)
            v = 0;
        break;
    }
    fclose(f);
    return v;
}

uint64_t memsize_host_total(void)
{
    uint64_t total = file_number("/proc/meminfo", "MemTotal:");
    uint64_t cg = file_number("/sys/fs/cgroup/memory.max", NULL);

    if (total > UINT64_MAX / 1024)
        total = 0;
    total *= 1024; /* in kB */
    if (cg > 0 && (total == 0 || cg < total))
        total = cg;
    return total;
}

uint64_t memsize_worker_default(uint64_t total, unsigned workers)
{
    uint64_t b;

    if (total == 0)
        return MEMSIZE_DEFAULT_UNKNOWN;
    b = total / 4 * 3 / (workers > 0 ? workers : 1);
    if (b < MEMSIZE_DEFAULT_MIN)
        b = MEMSIZE_DEFAULT_MIN;
    if (b > MEMSIZE_WORKER_MAX)
        b = MEMSIZE_WORKER_MAX;
    return b;
}

char *memsize_format(uint64_t b, char *buf, size_t len)
{
    static const char units[] = "KMGT";
    int u = -1;

    while (u < 3 && b >= 1024 && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%" PRIu64, b);
    else
        snprintf(buf, len, "%" PRIu64 "%c", b, units[u]);
    return buf;
}
