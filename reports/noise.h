/* noise — whether a change between runs is beyond the noise of their seconds.
 *
 * What it is for: two runs of an unchanged system never give the same
 * figures; a regression gate that flags every difference past a threshold
 * turns red by chance, and a team learns to ignore it. quern compare judges
 * a change on the runs' per-second figures (a step's p95 of each second,
 * from that second's merged histogram; its samples a second; ...): the
 * shift of the new run's seconds over the baseline's is estimated by
 * Hodges-Lehmann (the median of every difference of a new second and a
 * baseline second), and its 95 % interval is the distribution-free one of
 * the Mann-Whitney statistic (the K-th smallest and largest differences,
 * K from the normal approximation of the rank sum: K = nm/2 - 1.96
 * sqrt(nm(n+m+1)/12)). A change whose interval holds 0 is within the noise.
 * Each side needs NOISE_SECONDS_MIN seconds; past NOISE_PAIRS_MAX
 * differences, the larger side is thinned evenly (every k-th second).
 *
 * Usage:
 *     noise_ci ci;
 *     if (noise_shift(a, na, b, nb, &ci) == 0 && ci.lo > 0) ... a is higher, beyond noise ...
 * Pure; NaN values (seconds without a sample) are skipped. */
#ifndef QUERN_NOISE_H
#define QUERN_NOISE_H

#include <stddef.h>

/** Fewest seconds with a value on each side to judge the noise. */
#define NOISE_SECONDS_MIN 5
/** Most pairwise differences computed (memory: 8 bytes each). */
#define NOISE_PAIRS_MAX 2000000

/** The shift of a over b, and its 95 % interval, in the values' unit. */
typedef struct noise_ci {
    double est;      /**< Hodges-Lehmann estimate of a - b */
    double lo, hi;   /**< its 95 % interval */
    double b_median; /**< the median of b's values, for a relative change */
    size_t na, nb;   /**< values used on each side */
} noise_ci;

/** The shift of the na values a over the nb values b into *out: 0, or -1
 *  when a side has fewer than NOISE_SECONDS_MIN values (out->na, out->nb
 *  still say how many). */
int noise_shift(const double *a, size_t na, const double *b, size_t nb, noise_ci *out);

/** The interval relative to b's median, in percent: 0, or -1 when that
 *  median is not above 0. */
int noise_relative(const noise_ci *ci, double *est_pct, double *lo_pct, double *hi_pct);

#endif
