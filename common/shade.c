/* shade — the stretches of seconds shaded on a run's time charts; see shade.h. */
#include "common/shade.h"

#include <string.h>

#include "common/mem.h"

void shade_init(shade *sh, const char *label, const char *color)
{
    memset(sh, 0, sizeof(*sh));
    sh->label = label;
    sh->color = color;
}

void shade_free(shade *sh)
{
    if (sh == NULL)
        return;
    xfree(sh->bands);
    sh->bands = NULL;
    sh->n = sh->cap = 0;
}

/* b's worst figures take f's where f's are worse. */
static void worst_of(shade_sat *b, const shade_sat *f)
{
    if (f->saturated > b->saturated)
        b->saturated = f->saturated;
    if (f->workers > b->workers)
        b->workers = f->workers;
    if (f->cpu_pct > b->cpu_pct)
        b->cpu_pct = f->cpu_pct;
    if (f->lag_ms > b->lag_ms) {
        b->lag_ms = f->lag_ms;
        memcpy(b->who, f->who, sizeof(b->who));
    }
}

void shade_add(shade *sh, uint64_t from_s, uint64_t to_s, const shade_sat *f)
{
    shade_band *last = sh->n > 0 ? &sh->bands[sh->n - 1] : NULL;

    if (to_s <= from_s)
        return;
    if (last != NULL && (from_s <= last->to_s || sh->n == SHADE_BANDS_MAX)) {
        last->merged |= from_s > last->to_s;
        if (to_s > last->to_s)
            last->to_s = to_s;
        worst_of(&last->worst, f);
        return;
    }
    if (sh->n == sh->cap) {
        sh->cap = sh->cap ? 2 * sh->cap : 16;
        sh->bands = xreallocarray(sh->bands, sh->cap, sizeof(*sh->bands));
    }
    last = &sh->bands[sh->n++];
    memset(last, 0, sizeof(*last));
    last->from_s = from_s;
    last->to_s = to_s;
    last->worst = *f;
    last->worst.who[sizeof(last->worst.who) - 1] = '\0';
}
