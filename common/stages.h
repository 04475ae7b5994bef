/* stages — a staged load of the closed model: how many VUs are active over
 * time, and when each VU starts and leaves.
 *
 * What it is for: `quern run --stages 3s:20,4s:20,3s:0` moves the number of
 * active VUs linearly from the previous target (0 at the start) to each
 * stage's target over its duration. The console, every agent and every
 * worker compute the same schedule from the same list, so a VU's global
 * index (its `vu.id`) means the same everywhere.
 *
 * The model: the target N(t) is piecewise linear. Slot s (1..max) is
 * occupied while N(t) > s - 1, that is while s <= ceil(N(t)): on a climb from
 * a to b over D, slot s (a < s <= b) is taken at (s - 1 - a) * D / (b - a)
 * from the stage's start (the first at once, as with --ramp-up); on a
 * descent from a to b, slot s (b < s <= a) is left at (a - s + 1) * D /
 * (a - b), the highest slot first, the last at the stage's end. Each time a
 * slot is taken, the next unused id (1, 2, ...) takes it; the id leaves when
 * its slot is left (after its current run: the engine's business), and is
 * never used again: a VU that comes back on a later climb has a new id
 * beyond every one used. The number of ids is the sum of the climbs.
 *
 * Usage:
 *     stage st[STAGES_MAX];
 *     size_t n;
 *     char err[ERR_MAX];
 *     if (stages_parse("3s:20,4s:20,3s:0", st, STAGES_MAX, &n, err, sizeof(err)) != 0)
 *         die("--stages: %s", err);
 *     uint64_t ids = stages_ids(st, n);            // 20: the run's global indexes
 *     int64_t start, leave;
 *     stages_id_times(st, n, 7, &start, &leave);   // id 7 starts at 0.9 s, leaves at 9.1 s
 */
#ifndef QUERN_STAGES_H
#define QUERN_STAGES_H

#include <stddef.h>
#include <stdint.h>

/** Most stages in one list. */
#define STAGES_MAX 1000u
/** Largest target of a stage (the VUs of a whole run). */
#define STAGES_VUS_MAX 10000000u
/** Longest stage, and longest list in all: 31 days. */
#define STAGES_TIME_MAX_US (31ll * 24 * 3600 * 1000000)

/** One stage: go linearly from the previous target to target over dur_us. */
typedef struct stage {
    int64_t dur_us;  /**< the stage's length; 0 jumps to target at once */
    uint32_t target; /**< active VUs at the stage's end */
} stage;

/** Writes the list as stages_parse reads it back ("3s:20,4s:20,3s:0",
 *  durations through dur_format) into buf (len bytes, always terminated;
 *  cut when too long). Returns buf. */
char *stages_format(const stage *st, size_t n, char *buf, size_t len);

/** Reads the "D:" that starts a stage ("3s:20", "1m:100/s"): the duration
 *  into *dur_us and where the rest begins (after the ':') into *rest. 0, or
 *  -1 with a message quoting s in err; shape says what s should look like
 *  ("D:N (a duration, ':', a number of VUs; e.g. 30s:20)"). */
int stages_split(const char *s, const char *shape, int64_t *dur_us, const char **rest, char *err,
                 size_t errlen);

/** Parses one "D:N" (a duration as dur_parse reads it, a colon, a whole
 *  number of VUs from 0 to STAGES_VUS_MAX) into *out. 0, or -1 with a
 *  message quoting the text in err. */
int stages_parse_one(const char *s, stage *out, char *err, size_t errlen);

/** Parses "D:N[,D:N...]" into out (max entries), *n the count. The list
 *  must have a stage at least, some target above 0, and last from more than
 *  0 to at most STAGES_TIME_MAX_US in all. 0, or -1 with err. */
int stages_parse(const char *s, stage *out, size_t max, size_t *n, char *err, size_t errlen);

/** Walks a comma-separated list of at most max stages (no empty one, none
 *  over 127 bytes), handing each to one with its position k and ud; stops at
 *  the first error one reports. shape names the list's form for the message
 *  about an empty one ("D:N[,D:N...] (e.g. 3s:20)"). 0 with *n set, or -1
 *  with err. The parser of the VU stages, and of the rate stages. */
int stages_each(const char *s, size_t max, const char *shape,
                int (*one)(const char *item, size_t k, void *ud, char *err, size_t errlen),
                void *ud, size_t *n, char *err, size_t errlen);

/** Checks a list given some other way (a scenario's table, a StartRun):
 *  the same rules as stages_parse. 0, or -1 with err. */
int stages_check(const stage *st, size_t n, char *err, size_t errlen);

/** The length of the whole list. */
int64_t stages_total_us(const stage *st, size_t n);

/** The largest target. */
uint32_t stages_max(const stage *st, size_t n);

/** N(t): the target t_us after the start (the last target after the end,
 *  0 before the start); a zero-length stage is already at its target. */
double stages_target(const stage *st, size_t n, int64_t t_us);

/** Distinct ids the list uses: the sum of its climbs. */
uint64_t stages_ids(const stage *st, size_t n);

/** When id (1..stages_ids) starts and leaves, in microseconds from the
 *  start; *leave_us is -1 when it stays to the end of the list. 0, or -1
 *  when id is not one of the list's. */
int stages_id_times(const stage *st, size_t n, uint64_t id, int64_t *start_us, int64_t *leave_us);

#endif
