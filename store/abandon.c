#include "store/abandon.h"

#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/dur.h"
#include "common/err.h"

/* What the rows' judgement needs: id, host, pid, last write. */
#define ABANDON_SELECT                                                                             \
    "SELECT id, console_host, coalesce(console_pid, 0), coalesce(updated_us, (SELECT "             \
    "max(start_us + length_us) FROM intervals WHERE run_id = runs.id), started_us) FROM runs "     \
    "WHERE status = 'running'"

/* Rows judged per sweep (more are marked by the next ones). */
#define ABANDON_SWEEP_MAX 64

/* 1 when process pid of this host no longer exists. */
static int pid_gone(int64_t pid)
{
    if (pid <= 0 || pid > INT32_MAX)
        return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int abandon_judge(const abandon_info *ai, int64_t now_us, char *why, size_t whylen)
{
    char host[256], b[64];

    if (ai->host != NULL && ai->pid > 0 && gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        if (strcmp(host, ai->host) == 0 && pid_gone(ai->pid)) {
            err_set(why, whylen, "its console (pid %lld on %s) is gone", (long long)ai->pid,
                    ai->host);
            return 1;
        }
    }
    if (now_us - ai->last_us > ABANDON_STALE_US) {
        err_set(why, whylen, "its console stopped writing it %s before it was checked",
                dur_prose(now_us - ai->last_us, b, sizeof(b)));
        return 1;
    }
    return 0;
}

/* Judges the current row of st (ABANDON_SELECT's columns). */
static int judge_row(sqlite3_stmt *st, int64_t now_us, char *why, size_t whylen)
{
    abandon_info ai;

    ai.host = (const char *)sqlite3_column_text(st, 1);
    ai.pid = sqlite3_column_int64(st, 2);
    ai.last_us = sqlite3_column_int64(st, 3);
    return abandon_judge(&ai, now_us, why, whylen);
}

int abandon_run(db *d, int64_t id, int64_t now_us, char *why, size_t whylen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int rc, out = 0;

    why[0] = '\0';
    if (sqlite3_prepare_v2(sq, ABANDON_SELECT " AND id = ?", -1, &st, NULL) != SQLITE_OK) {
        err_set(why, whylen, "cannot read the database: %s", sqlite3_errmsg(sq));
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        out = judge_row(st, now_us, why, whylen);
    else if (rc != SQLITE_DONE) {
        err_set(why, whylen, "cannot read the database: %s", sqlite3_errmsg(sq));
        out = -1;
    }
    sqlite3_finalize(st);
    return out;
}

int abandon_sweep(db *d, int64_t now_us, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int64_t ids[ABANDON_SWEEP_MAX];
    char why[ABANDON_SWEEP_MAX][160];
    int rc = SQLITE_DONE, n = 0, marked = 0;

    err[0] = '\0';
    if (sqlite3_prepare_v2(sq, ABANDON_SELECT, -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        return -1;
    }
    while (n < ABANDON_SWEEP_MAX && (rc = sqlite3_step(st)) == SQLITE_ROW)
        if (judge_row(st, now_us, why[n], sizeof(why[n])) == 1)
            ids[n++] = sqlite3_column_int64(st, 0);
    if (n < ABANDON_SWEEP_MAX && rc != SQLITE_DONE) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (n == 0)
        return 0;
    if (sqlite3_exec(sq, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq,
                           "UPDATE runs SET status = 'abandoned', status_reason = ? "
                           "WHERE id = ? AND status = 'running'",
                           -1, &st, NULL) != SQLITE_OK)
        goto nowrite;
    for (int i = 0; i < n; i++) {
        sqlite3_bind_text(st, 1, why[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ids[i]);
        if (sqlite3_step(st) != SQLITE_DONE)
            goto nowrite;
        marked += sqlite3_changes(sq);
        sqlite3_reset(st);
    }
    if (sqlite3_exec(sq, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto nowrite;
    sqlite3_finalize(st);
    return marked;
nowrite:
    err_set(err, errlen, "cannot mark abandoned runs: %s", sqlite3_errmsg(sq));
    sqlite3_finalize(st);
    if (!sqlite3_get_autocommit(sq))
        sqlite3_exec(sq, "ROLLBACK", NULL, NULL, NULL);
    return 0;
}
