/* usl — the Universal Scalability Law fitted to a capacity search's steps.
 *
 * What it is for: a search gives throughput X against concurrency N at
 * each step (N by Little's law: the VUs' busy time over the step's time).
 * Gunther's law X(N) = λN / (1 + σ(N − 1) + κN(N − 1)) splits what stops
 * the scaling in two: contention σ (a queue on a shared resource: a lock,
 * a pool) and coherency κ (work that grows with the pairs of users: cache
 * lines, replication), and predicts where throughput peaks, N* =
 * sqrt((1 − σ) / κ). Written as N/X = (1 + σ(N − 1) + κN(N − 1)) / λ it is
 * linear in 1/λ, σ/λ and κ/λ, so ordinary least squares fits it exactly,
 * with no iteration nor starting guess.
 *
 * The fit is refused, with the reason, when it cannot say anything: fewer
 * than USL_MIN_POINTS steps (three coefficients pass through any three
 * points), a step under one in flight (the law counts users), a
 * coefficient out of its range (σ outside 0..1, κ below 0: the points are
 * not shaped as the law), a poor fit (R² of X under USL_MIN_R2), or a peak
 * under the throughput measured.
 *
 * Usage:
 *     usl_fit f;
 *     if (usl_fit_points(n, x, count, &f) == 0)
 *         printf("σ %.3f κ %.5f, peak %.0f/s at %.0f\n", f.sigma, f.kappa, f.peak_x, f.peak_n);
 *     else
 *         printf("does not fit: %s\n", f.why);
 * No allocation, no I/O. */
#ifndef QUERN_USL_H
#define QUERN_USL_H

#include <stddef.h>

#define USL_MIN_R2 0.9   /* below it, the law does not describe the points */
#define USL_MIN_POINTS 4 /* steps the fit needs */

/** A fit, or why there is none. */
typedef struct usl_fit {
    double lambda;   /**< throughput of one user (N = 1), per second */
    double sigma;    /**< contention, 0..1 */
    double kappa;    /**< coherency, >= 0 */
    double r2;       /**< how much of X's variance the law explains */
    double peak_n;   /**< the concurrency of the highest throughput; INFINITY when κ is 0 */
    double peak_x;   /**< that throughput; with κ 0, the bound λ/σ (INFINITY when σ is 0 too) */
    const char *why; /**< borrowed (static): why no fit, NULL when fitted */
} usl_fit;

/** Fits the law to count points (n[i] concurrency, x[i] throughput; those
 *  without a positive throughput skipped): 0 and *f filled, or -1 with
 *  f->why set. */
int usl_fit_points(const double *n, const double *x, size_t count, usl_fit *f);
/** The law's throughput at concurrency n. */
double usl_throughput(const usl_fit *f, double n);

#endif
