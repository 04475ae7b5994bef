/* dur — durations as people write them ("250ms", "1m30s", "1.5s").
 *
 * What it is for: every duration in the command line, the properties file
 * and the scripts (test length, ramp-up, think time, timeouts) goes through
 * dur_parse; every duration shown to people goes through this file:
 * dur_format (messages, tables, the JSON's text), dur_clock (the live
 * display's running clock), dur_prose (the HTML pages). All work in
 * microseconds, held in an int64_t.
 *
 * Usage:
 *     char err[ERR_MAX];
 *     int64_t us;
 *     if (dur_parse(arg, &us, err, sizeof(err)) != 0)
 *         die("%s", err);
 *     char buf[DUR_FORMAT_MAX];
 *     printf("ran for %s\n", dur_format(us, buf, sizeof(buf)));
 *     printf("elapsed %s\n", dur_clock(us, buf, sizeof(buf)));   // live display
 *     fprintf(page, "<dd>%s</dd>", dur_prose(us, buf, sizeof(buf)));
 *
 * dur_format's output always parses back to the same value. */
#ifndef QUERN_DUR_H
#define QUERN_DUR_H

#include <stddef.h>
#include <stdint.h>

/** A buffer of this size holds dur_format's output for any value. */
#define DUR_FORMAT_MAX 32

/** Parses a duration into microseconds: a sequence of <number><unit> parts
 * ("250ms", "2s", "1m30s", "1h2m3s4ms"), units us, ms, s, m, h; a number may
 * have a fraction ("1.5s", ".5s"). A bare number alone is seconds ("10",
 * "0.5"). Whitespace around the whole is allowed, not inside. Fractions
 * finer than a microsecond are truncated. Returns 0 and sets *us, or -1 with
 * a message in err (which may be NULL) for an empty string, a negative
 * value, a missing or unknown unit, trailing junk, or a value beyond
 * INT64_MAX microseconds; *us is then unchanged. */
int dur_parse(const char *s, int64_t *us, char *err, size_t errlen);

/** Formats us for people into buf (at most len bytes, always
 * NUL-terminated when len > 0) and returns buf. Below a millisecond: "500us";
 * below a second: milliseconds with up to 3 decimals ("250ms", "1.5ms");
 * below a minute: seconds with up to 6 decimals ("2s", "1.25s"); from a
 * minute on: hours (if any), minutes and seconds ("1m30s", "2m0s",
 * "1h0m5s"). Zero is "0s"; negative values get a leading '-'. */
char *dur_format(int64_t us, char *buf, size_t len);

/** Formats us as a running clock for a display that redraws in place:
 *  rounded to the nearest second, minutes and seconds zero-padded so the
 *  width changes only at a unit ("42s", "1m03s", "2h05m00s"). Negative
 *  values are "0s". Returns buf. */
char *dur_clock(int64_t us, char *buf, size_t len);

/** Formats us as prose for the HTML pages: "3.0 s" below a minute (one
 *  decimal), "2 min 05 s" below an hour, "1 h 02 min" from there (rounded to
 *  the second); a negative value (unknown) is "-". Returns buf. */
const char *dur_prose(int64_t us, char *buf, size_t len);

#endif
