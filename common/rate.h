/* rate — the arrival schedule of the open model: how many runs start per
 * second over time, and when the k-th one is due.
 *
 * What it is for: `quern run --rate 200/s --duration 20s` starts a run of
 * the scenario 200 times a second, whatever the previous runs are doing;
 * `--rate-stages 10s:100/s,30s:100/s,10s:0/s` moves the rate linearly from
 * the previous target (0/s at the start) to each stage's target over its
 * duration. The console, every agent and every worker compute the same
 * schedule from the same list: arrival k (0-based) of the whole run is due
 * at the instant t where the expected count of arrivals since the start,
 * L(t) = integral of the rate from 0 to t, reaches k, so the first is due at
 * once and at a steady R/s arrival k is due at k / R. Worker w of W plays
 * the arrivals k with k mod W == w: the W streams interleave into the one
 * global stream, and no process tells another about an arrival.
 *
 * A constant rate is the list { 0:R, D:R } (a zero-length stage jumps).
 *
 * Usage:
 *     rate_stage st[RATE_STAGES_MAX];
 *     size_t n;
 *     char err[ERR_MAX];
 *     if (rate_stages_parse("10s:100/s,30s:100/s", st, RATE_STAGES_MAX, &n, err, sizeof(err)))
 *         die("--rate-stages: %s", err);
 *     uint64_t all = rate_total(st, n);             // 3500 arrivals
 *     rate_cursor c;
 *     rate_cursor_init(&c, st, n, w, W);            // worker w of W
 *     int64_t at;
 *     while (rate_cursor_next(&c, &at) == 0) ...;   // this worker's arrivals, in order
 */
#ifndef QUERN_RATE_H
#define QUERN_RATE_H

#include <stddef.h>
#include <stdint.h>

/** Most stages in one list. */
#define RATE_STAGES_MAX 1000u
/** Highest rate of a run: a million arrivals a second. */
#define RATE_MAX_PER_S 1e6
/** Longest stage, and longest list in all: 31 days. */
#define RATE_TIME_MAX_US (31ll * 24 * 3600 * 1000000)

/** One stage: go linearly from the previous rate to per_s over dur_us. */
typedef struct rate_stage {
    int64_t dur_us; /**< the stage's length; 0 jumps to per_s at once */
    double per_s;   /**< arrivals a second at the stage's end */
} rate_stage;

/** The open model's arrivals of one scenario over some time: counted by a
 *  worker each second, summed by agents and the console. */
typedef struct rate_counts {
    uint64_t scheduled;  /**< due */
    uint64_t started;    /**< a run began (late ones included) */
    uint64_t late;       /**< started after waiting for a VU of a full pool */
    uint64_t dropped;    /**< never started: the wait passed --max-lag, or the run ended */
    uint64_t init_waits; /**< started after waiting for a new VU's init (the pool had room) */
    uint64_t inits;      /**< VUs made during the load (their init run then), not before it */
} rate_counts;

/** Adds b into a. */
void rate_counts_add(rate_counts *a, const rate_counts *b);
/** Writes c as a sentence whose figures add up into buf, and returns buf:
 *  "800 arrivals due: 598 started (0 late, 12 after a new VU's init), 0
 *  dropped, 202 still waiting; 14 VU(s) made, their init run then" (a
 *  window's: those started or dropped in it that were due before it are
 *  "N of them due before"; the last part only when some were made). */
char *rate_counts_text(const rate_counts *c, char *buf, size_t len);

/** Parses a rate, "200/s", "30/m", "0.5/s", "1000/h" (a number, '/', a unit
 *  s, m or h), into arrivals a second. zero_ok: 0 is allowed (a stage's
 *  target); otherwise it must be above 0. 0, or -1 with a message in err. */
int rate_parse(const char *s, int zero_ok, double *per_s, char *err, size_t errlen);

/** Writes a rate as rate_parse reads it ("200/s", "0.5/s") into buf.
 *  Returns buf. */
char *rate_format(double per_s, char *buf, size_t len);

/** Parses one "D:R" (a duration as dur_parse reads it, ':', a rate from
 *  0/s) into *out. 0, or -1 with a message quoting the text in err. */
int rate_stage_parse_one(const char *s, rate_stage *out, char *err, size_t errlen);

/** Parses "D:R[,D:R...]" into out (max entries), *n the count. The list
 *  must have a stage, some target above 0, and last from more than 0 to at
 *  most RATE_TIME_MAX_US. 0, or -1 with err. */
int rate_stages_parse(const char *s, rate_stage *out, size_t max, size_t *n, char *err,
                      size_t errlen);

/** Checks a list given some other way (a StartRun): the rules of
 *  rate_stages_parse. 0, or -1 with err. */
int rate_stages_check(const rate_stage *st, size_t n, char *err, size_t errlen);

/** Writes the list as rate_stages_parse reads it back into buf (cut when
 *  too long). Returns buf. */
char *rate_stages_format(const rate_stage *st, size_t n, char *buf, size_t len);

/** The length of the whole list. */
int64_t rate_total_us(const rate_stage *st, size_t n);

/** The rate t_us after the start (0 before it and after the end). */
double rate_at(const rate_stage *st, size_t n, int64_t t_us);

/** L(t): arrivals expected from the start to t_us (the total after the end). */
double rate_expected(const rate_stage *st, size_t n, int64_t t_us);

/** Arrivals of the whole list: the k with a due time before its end. */
uint64_t rate_total(const rate_stage *st, size_t n);

/** When arrival k (0-based) is due, in microseconds from the start; -1 when
 *  k >= rate_total. Walks the list: rate_cursor is the cheap way through. */
int64_t rate_due(const rate_stage *st, size_t n, uint64_t k);

/** A walk through the arrivals of one stripe (k = first, first + step, ...)
 *  in order, each found in constant time. The list is borrowed. */
typedef struct rate_cursor {
    const rate_stage *st; /**< borrowed */
    size_t n;
    size_t i;       /**< the stage the next arrival falls in */
    double before;  /**< L at the start of stage i */
    int64_t t0_us;  /**< the start of stage i */
    double from;    /**< the rate at the start of stage i */
    uint64_t k;     /**< the next arrival */
    uint64_t step;  /**< the stripes */
    uint64_t total; /**< rate_total */
} rate_cursor;

/** Starts a walk over the arrivals k with k mod stripes == stripe. */
void rate_cursor_init(rate_cursor *c, const rate_stage *st, size_t n, uint32_t stripe,
                      uint32_t stripes);

/** The next arrival's due time into *at_us: 0, or -1 when there is none. */
int rate_cursor_next(rate_cursor *c, int64_t *at_us);

/** Arrivals of one stripe over the whole list. */
uint64_t rate_stripe_total(const rate_stage *st, size_t n, uint32_t stripe, uint32_t stripes);

#endif
