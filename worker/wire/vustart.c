/* vustart — the closed model's VUs asked to start against those started; see
 * vustart.h. */
#include "worker/wire/vustart.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

void vustart_init(vustart *s)
{
    memset(s, 0, sizeof(*s));
    s->stop_us = -1;
}

void vustart_free(vustart *s)
{
    xfree(s->at);
    vustart_init(s);
}

void vustart_add(vustart *s, int64_t start_us)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->at = xreallocarray(s->at, s->cap, sizeof(*s->at));
    }
    s->at[s->n++] = start_us;
}

static int by_time(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y ? 1 : 0;
}

void vustart_sorted(vustart *s)
{
    if (s->n > 1)
        qsort(s->at, s->n, sizeof(*s->at), by_time);
}

void vustart_ran(vustart *s)
{
    s->started++;
}

void vustart_stop(vustart *s, int64_t t_us)
{
    if (s->stop_us < 0)
        s->stop_us = t_us;
}

void vustart_cut(vustart *s, int64_t t_us)
{
    size_t k = s->n;

    while (k > s->next && s->at[k - 1] > t_us)
        k--;
    s->n = k;
}

void vustart_take(vustart *s, int64_t t_us, uint32_t *planned, uint32_t *started)
{
    int64_t until = s->stop_us >= 0 && s->stop_us < t_us ? s->stop_us : t_us;
    uint32_t n = 0;

    while (s->next < s->n && s->at[s->next] <= until) {
        s->next++;
        n++;
    }
    *planned = n;
    *started = s->started;
    s->started = 0;
}
