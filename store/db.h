/* db — the results store's write side: the SQLite file the console records
 * a run into.
 *
 * What it is for: every run is recorded in one SQLite file (schema and its
 * documentation: store/schema.sql, compiled in: store/schema.h). db_open
 * creates the file or upgrades its schema; the readers (`quern runs`,
 * `report`, `compare`) open it the same way and read it through
 * store/query.h only. The prefix stays db_ (not store_): it is the name
 * the console has always called, and "db" is what the user types (--db).
 * The console opens the file, begins a
 * run when load starts, writes each completed interval as it arrives (one
 * transaction per interval, with statements prepared once), and ends the run
 * with its per-step totals and final status. A console crash loses at most
 * the interval being written. The cost of an interval is proportional to the
 * number of steps (and scenarios), never to the number of requests.
 *
 * Usage:
 *     db *d = db_open(path, err, sizeof(err));          // creates or upgrades
 *     int64_t id = db_run_begin(d, &info, err, sizeof(err));
 *     db_agent(d, id, 0, &agent, err, sizeof(err));      // any time, upserts
 *     db_interval(d, id, &iv, err, sizeof(err));         // once per second
 *     db_run_end(d, id, &end, err, sizeof(err));          // or db_run_end_reason
 *     db_thresholds(d, id, verdicts, n, err, sizeof(err)); // when it has any
 *     db_run_verdict(d, id, passed, "why", err, sizeof(err));
 *     db_close(d);
 *
 * A failed write (err names the file and the cause; db_failure_kind says
 * whether the disk is full) leaves d usable: keep it open and still end the
 * run with db_run_end_reason, which records at least the status and why.
 *
 * Where the results go (--db, --name, --tag) is store/dbopts.h.
 *
 * A db is not thread-safe; the console uses it from its loop only. */
#ifndef QUERN_DB_H
#define QUERN_DB_H

#include <stddef.h>
#include <stdint.h>

#include "common/props.h"
#include "common/rate.h"
#include "common/stats.h"
#include "common/tally.h"

struct sqlite3;

/** Schema version this binary writes (PRAGMA user_version). */
#define DB_SCHEMA_VERSION 19

/** An open results database; created by db_open, released by db_close. */
typedef struct db db;

/** Opens (creating if needed) the database at path: WAL journal, busy
 *  timeout, foreign keys on; upgrades an older schema in one transaction.
 *  Returns NULL with err set if the file cannot be opened, is not a
 *  database, or has a schema newer than DB_SCHEMA_VERSION. */
db *db_open(const char *path, char *err, size_t errlen);

/** Closes d (finalising its statements); NULL is fine. */
void db_close(db *d);

/** The SQLite handle, for the readers of store/; borrowed. */
struct sqlite3 *db_sqlite(db *d);

/** One step as declared by the script. All borrowed. */
typedef struct db_step {
    const char *id;       /**< borrowed: "SC-<scenario>-STEP-<n>" */
    const char *label;    /**< borrowed: the step's label */
    const char *scenario; /**< borrowed: its scenario's name */
} db_step;

/** What is known about a run when its load starts. All borrowed. */
typedef struct db_run_info {
    const char *name;     /**< borrowed: run name (db_default_name when none given) */
    const props *tags;    /**< borrowed: --tag pairs; may be NULL */
    const char *script;   /**< borrowed: path of the main script (hashed here) */
    const props *props;   /**< borrowed: properties, may be NULL (stored redacted: db_run_begin) */
    unsigned vus;         /**< --vus */
    int64_t started_us;   /**< wall clock, epoch microseconds */
    const db_step *steps; /**< borrowed: nsteps entries, by step index */
    size_t nsteps;
    const char *const *scen_names; /**< borrowed: nscens entries, by scenario index */
    size_t nscens;
    int64_t req_duration_us; /**< --duration in microseconds; 0: none */
    int64_t req_ramp_up_us;  /**< --ramp-up in microseconds; 0: none */
    unsigned req_runs;       /**< --runs; 0: none */
    const char *req_stages;  /**< borrowed: --stages as read back ("3s:20,..."), NULL: none */
    int argc;                /**< arguments of the command (0: none recorded) */
    const char *const *argv; /**< borrowed: argc entries, argv[0] the subcommand ("run"); stored
                                  as "quern run ...", shell-quoted and redacted */
} db_run_info;

/** Inserts the run (status "running") with its steps and scenarios, and
 *  prepares the per-interval statements. Also records this process's
 *  host name and pid and the time (the console writing the run:
 *  store/abandon.h). Secrets are not stored: the values of properties
 *  whose key names a secret (common/redact.h: redact_key_is_secret), and
 *  URL passwords in the other values and in the command line, are replaced
 *  by "***". Returns the run id (> 0), or -1 with err set. */
int64_t db_run_begin(db *d, const db_run_info *ri, char *err, size_t errlen);

/** One load injector of a run. All borrowed. */
typedef struct db_agent_info {
    const char *name; /**< borrowed: the agent's name */
    const char *host; /**< borrowed: its host */
    unsigned workers;
    unsigned vus;
    int lost;           /**< 1: lost mid-run */
    const char *status; /**< borrowed: e.g. "running", "completed", "stopped" */
    uint64_t requests;
    uint64_t errors;
    unsigned vus_peak; /**< the most VUs active on it in one second */
} db_agent_info;

/** Inserts or replaces agent number index of run_id. 0, or -1 with err. */
int db_agent(db *d, int64_t run_id, unsigned index, const db_agent_info *a, char *err,
             size_t errlen);

/** One completed interval. All borrowed. */
typedef struct db_iv {
    uint64_t second;  /**< 0-based since the start of load */
    int64_t start_us; /**< wall clock, epoch microseconds */
    int64_t length_us;
    uint32_t active_vus;
    const step_stats *steps; /**< borrowed: nsteps entries (as given to db_run_begin) */
    size_t nsteps;
    const uint64_t *runs;   /**< borrowed: nscens entries; may be NULL when nscens is 0 */
    const uint64_t *missed; /**< borrowed: nscens entries; may be NULL when nscens is 0 */
    size_t nscens;
    const rate_counts *arrivals; /**< borrowed: nscens entries, the open model's; NULL: none */
    int64_t paused_us;           /**< how long the load was paused in it (quern ctl pause) */
} db_iv;

/** Writes one interval in one transaction: its intervals row (kept as it is
 *  if the second was written already: late data), a step_intervals row per
 *  step with samples, the running error and scenario counters (URL
 *  passwords in the sample messages replaced by "***"), and the
 *  run's last-update time (a run wrongly marked abandoned is running again).
 *  Returns 0, or -1 with err set (nothing of the interval is then written,
 *  the transaction is rolled back and d stays usable: db_run_end may still
 *  record how the run ended). err names the file and the cause; a full disk
 *  (SQLITE_FULL) or an I/O error (SQLITE_IOERR) says so plainly ("disk
 *  full", "I/O error"), and db_failure_kind tells them apart. */
int db_interval(db *d, int64_t run_id, const db_iv *iv, char *err, size_t errlen);

/** How a run ended. All borrowed. */
typedef struct db_run_end_info {
    const char *status;       /**< borrowed: "completed", "stopped", "degraded", "aborted" */
    int64_t ended_us;         /**< wall clock, epoch microseconds */
    int64_t duration_us;      /**< measured length of the load (TPS divides by it) */
    const step_stats *totals; /**< borrowed: nsteps entries: whole-run totals per step */
    size_t nsteps;
    const tally *tally; /**< borrowed: the script's checks and custom metrics
                             (store/dbtally.h); NULL: none */
} db_run_end_info;

/** Writes the per-step totals, the status and the end time, in one
 *  transaction. When that fails (a full disk, say), it rolls back and
 *  still tries to write the status, the end time and the duration alone,
 *  in a second, smaller transaction (it fits where the totals did not, as
 *  the failed transaction gave its pages back): a run never stays
 *  "running" when the console could say how it ended. Callable after a
 *  failed db_interval. Returns 0 when all was written; 1 when only the
 *  status, end time and duration were (err says why the totals were not);
 *  -1 when nothing was (err set). */
int db_run_end(db *d, int64_t run_id, const db_run_end_info *ei, char *err, size_t errlen);

/** db_run_end, also recording why the run ended so (column status_reason:
 *  "results database: disk full, the rest of the run is not recorded");
 *  reason NULL: none. Same returns. */
int db_run_end_reason(db *d, int64_t run_id, const db_run_end_info *ei, const char *reason,
                      char *err, size_t errlen);

/** What made the last failed write of d fail. */
enum db_failure {
    DB_FAIL_NONE = 0, /**< no failure, or not one of the below */
    DB_FAIL_FULL,     /**< SQLITE_FULL: disk (or quota, or max_page_count) full */
    DB_FAIL_IO,       /**< SQLITE_IOERR*: the file could not be read or written */
    DB_FAIL_BUSY,     /**< SQLITE_BUSY/LOCKED: another process held the lock too long */
    DB_FAIL_OTHER     /**< another SQLite error */
};
/** The kind of the last failure reported by a write function of d (the
 *  same call's err says more). */
enum db_failure db_failure_kind(const db *d);

/** Records the run's own verdict as the console decided it (columns
 *  verdict and verdict_reason of its runs row): passed 1 or 0, and reason,
 *  the rule that decided in a few words ("no errors", "3 errors and no
 *  threshold about errors (--allow-errors tolerates them)"); NULL: none.
 *  Call it once the run ended, besides db_thresholds when there are
 *  thresholds. `quern runs`, `report` and `compare` show it; without it (an
 *  older quern), they judge by the thresholds, the status and the errors.
 *  Returns 0, or -1 with err set. */
int db_run_verdict(db *d, int64_t run_id, int passed, const char *reason, char *err, size_t errlen);

/** Records steer seq of the run (table steers): kind ("pause", "vus",
 *  "rate", "stop") at_us from Go, value when has_value. 0, or -1 with err. */
int db_steer(db *d, int64_t run_id, unsigned seq, int64_t at_us, const char *kind, double value,
             int has_value, char *err, size_t errlen);
/** Records when pause seq ended (its resume), end_us from Go. 0, or -1 with err. */
int db_steer_end(db *d, int64_t run_id, unsigned seq, int64_t end_us, char *err, size_t errlen);
/** Records the VUs the run had: vus_peak, the most at a second's end (the
 *  open model: its pool's peak), and vu_pool, the open model's pool
 *  (--max-vus; 0 in the closed model: stored NULL). Returns 0, or -1 with
 *  err set. */
int db_run_vus(db *d, int64_t run_id, int64_t vus_peak, int64_t vu_pool, char *err, size_t errlen);

/** The verdict of one threshold of a run. All borrowed. */
typedef struct db_threshold {
    const char *expr;   /**< borrowed: as given: "SC-X-STEP-2: p99<1s" */
    const char *source; /**< borrowed: "cli", or "file:line" of its declaration in the script */
    int passed;         /**< 1 passed, 0 failed */
    int measurable;     /**< 0: nothing to measure (measured is stored as NULL) */
    double measured;    /**< in unit */
    double limit;       /**< in unit */
    const char *unit;   /**< borrowed: "ms", "%", "/s" or "" */
    const char *description; /**< borrowed: "p95 of SC-X-STEP-2 = 612.3 ms, limit < 500 ms" */
} db_threshold;

/** Writes the n threshold verdicts of run_id (table thresholds, position i
 *  for ts[i]), replacing those written before, in one transaction. Returns
 *  0, or -1 with err set (nothing is then written). */
int db_thresholds(db *d, int64_t run_id, const db_threshold *ts, size_t n, char *err,
                  size_t errlen);

#endif
