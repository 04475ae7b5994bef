/* junit — a run's verdicts as JUnit XML, for the CI server.
 *
 * What it is for: `quern run --junit FILE` writes one <testsuite> per run,
 * one <testcase> per step and per threshold, which Jenkins' JUnit step (and
 * GitLab, GitHub actions' reporters) read. The writer knows nothing of
 * steps or thresholds: console/thresh builds the cases, this writes them.
 *
 * Output (Ant's JUnit format, the one Jenkins' plugin reads):
 *     <?xml version="1.0" encoding="UTF-8"?>
 *     <testsuite name="..." tests="3" failures="1" errors="0" skipped="0"
 *                time="61.250" timestamp="2024-05-02T10:00:00" hostname="...">
 *       <testcase classname="quern.demo" name="..." time="0.012">
 *         <failure message="..." type="threshold">...</failure>
 *         <system-out>...</system-out>
 *       </testcase>
 *     </testsuite>
 *
 * Every string goes through libxml2's writer (so <, &, " are escaped), after
 * characters XML 1.0 cannot carry (control characters, invalid UTF-8) are
 * replaced by '?': error samples come from the network and are not trusted. */
#ifndef QUERN_JUNIT_H
#define QUERN_JUNIT_H

#include <stddef.h>

/** One test case, filled by the caller for one junit_write. */
typedef struct junit_case {
    const char *classname;       /**< borrowed: "quern.<run name>" */
    const char *name;            /**< borrowed: the step's display name, or the threshold */
    double time_s;               /**< the case's time attribute, seconds */
    int failed;                  /**< 1: the case gets a <failure> */
    const char *failure_message; /**< borrowed: the failure's message attribute (NULL: "") */
    const char *failure_type;    /**< borrowed: the failure's type attribute, NULL: none */
    const char *failure_text;    /**< borrowed: the failure's body, NULL: empty */
    const char *system_out;      /**< borrowed: <system-out> body, NULL: none */
} junit_case;

/** Writes cases[0..n) as one testsuite named suite_name to path (replaced if
 *  present): tests = n, failures = cases with failed set, errors = 0,
 *  time = time_s, timestamp = now - time_s (local time, ISO 8601 without a
 *  zone, as Ant writes it), hostname = this host's name. Returns 0, or -1
 *  with a message in err ("cannot write PATH: ..."). */
int junit_write(const char *path, const char *suite_name, const junit_case *cases, size_t n,
                double time_s, char *err, size_t errlen);

#endif
