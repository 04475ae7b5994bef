/* usl — the Universal Scalability Law fitted to a search's steps (usl.h). */
#include "common/usl.h"

#include <math.h>
#include <string.h>

/* The highest throughput measured. */
static double x_max(const double *n, const double *x, size_t count)
{
    double m = 0;

    for (size_t i = 0; i < count; i++)
        if (n[i] > 0 && x[i] > m && isfinite(x[i]))
            m = x[i];
    return m;
}

double usl_throughput(const usl_fit *f, double n)
{
    return f->lambda * n / (1.0 + f->sigma * (n - 1.0) + f->kappa * n * (n - 1.0));
}

/* Solves the 3x3 system m·v = r by Gaussian elimination with partial
 * pivoting: 0, or -1 when it is singular (the points do not tell the
 * coefficients apart). */
static int solve3(double m[3][3], double r[3], double v[3])
{
    for (int c = 0; c < 3; c++) {
        int p = c;
        for (int i = c + 1; i < 3; i++)
            if (fabs(m[i][c]) > fabs(m[p][c]))
                p = i;
        if (fabs(m[p][c]) < 1e-300)
            return -1;
        if (p != c) {
            double t[3], tr = r[c];
            memcpy(t, m[c], sizeof(t));
            memcpy(m[c], m[p], sizeof(t));
            memcpy(m[p], t, sizeof(t));
            r[c] = r[p];
            r[p] = tr;
        }
        for (int i = c + 1; i < 3; i++) {
            double k = m[i][c] / m[c][c];
            for (int j = c; j < 3; j++)
                m[i][j] -= k * m[c][j];
            r[i] -= k * r[c];
        }
    }
    for (int c = 2; c >= 0; c--) {
        double s = r[c];
        for (int j = c + 1; j < 3; j++)
            s -= m[c][j] * v[j];
        v[c] = s / m[c][c];
    }
    return 0;
}

/* The fit's R² on X itself (not on N/X, which the least squares used). */
static double r2_of(const usl_fit *f, const double *n, const double *x, size_t count)
{
    double mean = 0, ss_tot = 0, ss_res = 0;
    size_t k = 0;

    for (size_t i = 0; i < count; i++)
        if (n[i] > 0 && x[i] > 0) {
            mean += x[i];
            k++;
        }
    mean /= (double)k;
    for (size_t i = 0; i < count; i++) {
        if (!(n[i] > 0 && x[i] > 0))
            continue;
        double d = x[i] - usl_throughput(f, n[i]);
        ss_res += d * d;
        ss_tot += (x[i] - mean) * (x[i] - mean);
    }
    return ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
}

int usl_fit_points(const double *n, const double *x, size_t count, usl_fit *f)
{
    double m[3][3] = {{0}}, r[3] = {0}, v[3] = {0}, nmin = INFINITY, nmax = 0;
    size_t k = 0;

    memset(f, 0, sizeof(*f));
    for (size_t i = 0; i < count; i++) {
        if (!(n[i] > 0 && x[i] > 0 && isfinite(n[i]) && isfinite(x[i])))
            continue;
        if (n[i] < 1) { /* the law counts users: under one in flight the server mostly waited */
            f->why = "a step with less than 1 in flight: the server was mostly idle";
            return -1;
        }
        /* N/X = a + b(N − 1) + c·N(N − 1): a = 1/λ, b = σ/λ, c = κ/λ */
        double row[3] = {1.0, n[i] - 1.0, n[i] * (n[i] - 1.0)}, y = n[i] / x[i];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++)
                m[a][b] += row[a] * row[b];
            r[a] += row[a] * y;
        }
        nmin = n[i] < nmin ? n[i] : nmin;
        nmax = n[i] > nmax ? n[i] : nmax;
        k++;
    }
    /* three coefficients pass through any three points: a fourth tests them */
    if (k < USL_MIN_POINTS || nmax - nmin < 1e-9 * nmax) {
        f->why = "fewer than 4 steps with distinct concurrencies";
        return -1;
    }
    if (solve3(m, r, v) != 0 || !(v[0] > 0)) {
        f->why = "the steps do not tell contention from coherency";
        return -1;
    }
    f->lambda = 1.0 / v[0];
    f->sigma = v[1] / v[0];
    f->kappa = v[2] / v[0];
    /* rounding: a linear scaling's σ, a plateau's κ, found a hair off 0 */
    if (fabs(f->sigma) < 1e-9 || (f->sigma < 0 && f->sigma > -1e-3))
        f->sigma = 0;
    if (fabs(f->kappa) < 1e-12)
        f->kappa = 0;
    if (f->sigma < 0 || f->sigma > 1 || f->kappa < 0) {
        f->why = "the steps are not shaped as the law (a coefficient out of its range)";
        return -1;
    }
    f->r2 = r2_of(f, n, x, count);
    if (!(f->r2 >= USL_MIN_R2)) {
        f->why = "a poor fit (R² under 0.9)";
        return -1;
    }
    if (f->kappa > 0) {
        f->peak_n = sqrt((1.0 - f->sigma) / f->kappa);
        if (f->peak_n < 1)
            f->peak_n = 1;
        f->peak_x = usl_throughput(f, f->peak_n);
    } else {
        f->peak_n = INFINITY;
        f->peak_x = f->sigma > 0 ? f->lambda / f->sigma : INFINITY;
    }
    if (f->peak_x < 0.9 * x_max(n, x, count)) { /* a peak under what was measured */
        f->why = "the law's peak lies under the throughput measured";
        return -1;
    }
    return 0;
}
