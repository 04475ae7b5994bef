#include "worker/wire/traceid.h"

#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"

static const char hexd[] = "0123456789abcdef";

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna): fast, 2^256 - 1 period. */
static uint64_t next(traceid_gen *g)
{
    uint64_t *s = g->s;
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* splitmix64: spreads a seed over the state (never all zero). */
static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void traceid_seed(traceid_gen *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        g->s[i] = splitmix(&seed);
    if ((g->s[0] | g->s[1] | g->s[2] | g->s[3]) == 0)
        g->s[0] = 1;
}

void traceid_init(traceid_gen *g)
{
    uint64_t seed[4];

    if (getrandom(seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed)) {
        memcpy(g->s, seed, sizeof(g->s));
        for (int i = 0; i < 4; i++) /* whatever the bytes, a well-spread state */
            g->s[i] = splitmix(&seed[i]);
        return;
    }
    traceid_seed(g, (uint64_t)clock_wall_us() ^ ((uint64_t)getpid() << 32) ^
                        (uint64_t)clock_mono_us());
}

static void hex64(char *out, uint64_t v)
{
    for (int i = 15; i >= 0; i--) {
        out[i] = hexd[v & 15];
        v >>= 4;
    }
}

void traceid_line(traceid_gen *g, char *line, char *id)
{
    uint64_t hi, lo, parent;
    char *v = line + 13;

    do {
        hi = next(g);
        lo = next(g);
    } while ((hi | lo) == 0);
    do
        parent = next(g);
    while (parent == 0);
    memcpy(line, "traceparent: 00-", 16);
    hex64(v + 3, hi);
    hex64(v + 19, lo);
    v[35] = '-';
    hex64(v + 36, parent);
    memcpy(v + 52, "-01", 4); /* with the NUL */
    memcpy(id, v + 3, TRACEID_HEX_LEN);
    id[TRACEID_HEX_LEN] = '\0';
}

/* n lowercase hex digits at p, not all '0'. */
static int hex_ok(const char *p, int n)
{
    int nonzero = 0;

    for (int i = 0; i < n; i++) {
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
        nonzero |= p[i] != '0';
    }
    return nonzero;
}

int traceid_parse(const char *value, char *id)
{
    const char *p = value;
    size_t n;

    id[0] = '\0';
    if (p == NULL)
        return -1;
    while (*p == ' ' || *p == '\t')
        p++;
    n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n != TRACEID_VALUE_LEN || strncmp(p, "00-", 3) != 0 || p[35] != '-' || p[52] != '-' ||
        !hex_ok(p + 3, 32) || !hex_ok(p + 36, 16))
        return -1;
    if (!((p[53] >= '0' && p[53] <= '9') || (p[53] >= 'a' && p[53] <= 'f')) ||
        !((p[54] >= '0' && p[54] <= '9') || (p[54] >= 'a' && p[54] <= 'f')))
        return -1;
    memcpy(id, p + 3, TRACEID_HEX_LEN);
    id[TRACEID_HEX_LEN] = '\0';
    return 0;
}
