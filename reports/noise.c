/* noise — the shift of a run's seconds over a baseline's; see noise.h. */
#include "reports/noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* The z of a two-sided 95 % interval. */
#define NOISE_Z 1.959963984540054

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The finite values of v (n) into a new array (*out, owned by the caller),
 * every step-th only; returns how many. */
static size_t finite_values(const double *v, size_t n, size_t step, double **out)
{
    size_t k = 0, seen = 0;

    *out = xmalloc((n > 0 ? n : 1) * sizeof(**out));
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        if (seen++ % step == 0)
            (*out)[k++] = v[i];
    }
    return k;
}

static size_t count_finite(const double *v, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        k += isfinite(v[i]) != 0;
    return k;
}

/* The median of n sorted values. */
static double median(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int noise_shift(const double *a, size_t na, const double *b, size_t nb, noise_ci *out)
{
    size_t fa = count_finite(a, na), fb = count_finite(b, nb), sa = 1, sb = 1, n, m, k = 0;
    double *x = NULL, *y = NULL, *d = NULL, kf;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    out->na = fa;
    out->nb = fb;
    if (fa < NOISE_SECONDS_MIN || fb < NOISE_SECONDS_MIN)
        return -1;
    /* thin the larger side evenly until the pairs fit */
    while (((fa + sa - 1) / sa) * ((fb + sb - 1) / sb) > NOISE_PAIRS_MAX) {
        if ((fa + sa - 1) / sa >= (fb + sb - 1) / sb)
            sa++;
        else
            sb++;
    }
    n = finite_values(a, na, sa, &x);
    m = finite_values(b, nb, sb, &y);
    out->na = n;
    out->nb = m;
    qsort(y, m, sizeof(*y), cmp_double);
    out->b_median = median(y, m);
    d = xmalloc(n * m * sizeof(*d));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            d[k++] = x[i] - y[j];
    qsort(d, k, sizeof(*d), cmp_double);
    out->est = median(d, k);
    kf =
        floor((double)k / 2.0 - NOISE_Z * sqrt((double)n * (double)m * (double)(n + m + 1) / 12.0));
    if (kf < 1)
        kf = 1; /* too few for a 95 % interval: the widest one */
    out->lo = d[(size_t)kf - 1];
    out->hi = d[k - (size_t)kf];
    rc = 0;
    xfree(x);
    xfree(y);
    xfree(d);
    return rc;
}

int noise_relative(const noise_ci *ci, double *est_pct, double *lo_pct, double *hi_pct)
{
    if (!(ci->b_median > 0))
        return -1;
    *est_pct = ci->est / ci->b_median * 100.0;
    *lo_pct = ci->lo / ci->b_median * 100.0;
    *hi_pct = ci->hi / ci->b_median * 100.0;
    return 0;
}
