/* profile_db — the profiled server in the results database; see profile_db.h. */
#include "store/profile_db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

enum { ST_TARGET, ST_STACK, ST_SAMPLE, ST_SECOND, ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_N };

static const char *const sql[ST_N] = {
    [ST_TARGET] = "INSERT OR REPLACE INTO profile_targets (run_id, target, agent, ok, error, "
                  "procs, threads, freq, cpus) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_STACK] = "INSERT OR IGNORE INTO profile_stacks (run_id, id, frames) VALUES (?, ?, ?)",
    [ST_SAMPLE] = "INSERT INTO profile_samples (run_id, target, second, kind, stack, value) "
                  "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET value = value + "
                  "excluded.value",
    [ST_SECOND] = "INSERT INTO profile_seconds (run_id, target, second, on_us, off_us, "
                  "runnable_us, threads, lost) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO "
                  "UPDATE SET on_us = on_us + excluded.on_us, off_us = off_us + excluded.off_us, "
                  "runnable_us = runnable_us + excluded.runnable_us, threads = threads + "
                  "excluded.threads, lost = lost + excluded.lost",
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
};

struct profile_db {
    sqlite3 *sq;            /* borrowed from the db */
    sqlite3_stmt *st[ST_N]; /* owned */
    int64_t run_id;         /* whose stacks ids holds */
    folded ids;             /* owned: the run's stacks, an entry's index + 1 its id */
};

profile_db *profile_db_new(db *d, char *err, size_t errlen)
{
    profile_db *p = xcalloc(1, sizeof(*p));

    p->sq = db_sqlite(d);
    folded_init(&p->ids, PROFILE_DB_STACKS_MAX);
    for (int i = 0; i < ST_N; i++)
        if (sqlite3_prepare_v2(p->sq, sql[i], -1, &p->st[i], NULL) != SQLITE_OK) {
            err_set(err, errlen, "profile tables: %s", sqlite3_errmsg(p->sq));
            profile_db_free(p);
            return NULL;
        }
    return p;
}

static int step(profile_db *p, int i, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_step(p->st[i]);

    sqlite3_reset(p->st[i]);
    sqlite3_clear_bindings(p->st[i]);
    if (rc != SQLITE_DONE) {
        err_set(err, errlen, "cannot write %s: %s", what, sqlite3_errmsg(p->sq));
        return -1;
    }
    return 0;
}

int profile_db_target(profile_db *p, int64_t run_id, const char *target, const char *agent, int ok,
                      const char *error, const profile_target_row *found, char *err, size_t errlen)
{
    sqlite3_stmt *s = p->st[ST_TARGET];

    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_text(s, 2, target, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, agent, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 4, ok != 0);
    if (error != NULL && error[0] != '\0')
        sqlite3_bind_text(s, 5, error, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 6, found->procs);
    sqlite3_bind_int64(s, 7, found->threads);
    sqlite3_bind_int64(s, 8, found->freq);
    sqlite3_bind_int64(s, 9, found->cpus);
    return step(p, ST_TARGET, "a profiled target", err, errlen);
}

/* The id of a stack, stored the first time it comes: 0 on a failure. */
static int64_t stack_id(profile_db *p, int64_t run_id, const char *frames, char *err, size_t errlen)
{
    if (run_id != p->run_id) {
        folded_reset(&p->ids);
        p->run_id = run_id;
    }
    size_t before = p->ids.n;
    size_t k = folded_add(&p->ids, frames, strlen(frames), 0);
    if (p->ids.n == before)
        return (int64_t)k + 1;
    sqlite3_stmt *s = p->st[ST_STACK];
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, (int64_t)k + 1);
    sqlite3_bind_text(s, 3, p->ids.e[k].frames, -1, SQLITE_STATIC);
    if (step(p, ST_STACK, "a profile's stack", err, errlen) != 0)
        return 0;
    return (int64_t)k + 1;
}

static int samples(profile_db *p, int64_t run_id, const char *target, int64_t second, int kind,
                   const profile_db_stack *v, size_t n, char *err, size_t errlen)
{
    sqlite3_stmt *s = p->st[ST_SAMPLE];

    for (size_t i = 0; i < n; i++) {
        int64_t id = stack_id(p, run_id, v[i].frames, err, errlen);
        if (id == 0)
            return -1;
        sqlite3_bind_int64(s, 1, run_id);
        sqlite3_bind_text(s, 2, target, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 3, second);
        sqlite3_bind_int(s, 4, kind);
        sqlite3_bind_int64(s, 5, id);
        sqlite3_bind_int64(s, 6, (int64_t)v[i].value);
        if (step(p, ST_SAMPLE, "a profile's second", err, errlen) != 0)
            return -1;
    }
    return 0;
}

int profile_db_second(profile_db *p, int64_t run_id, const char *target, const profile_db_sec *sec,
                      char *err, size_t errlen)
{
    sqlite3_stmt *s = p->st[ST_SECOND];

    if (step(p, ST_BEGIN, "a profile's second", err, errlen) != 0)
        return -1;
    if (samples(p, run_id, target, sec->second, 0, sec->cpu, sec->ncpu, err, errlen) != 0 ||
        samples(p, run_id, target, sec->second, 1, sec->off, sec->noff, err, errlen) != 0)
        goto fail;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_text(s, 2, target, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, sec->second);
    sqlite3_bind_int64(s, 4, (int64_t)sec->on_us);
    sqlite3_bind_int64(s, 5, (int64_t)sec->off_us);
    sqlite3_bind_int64(s, 6, (int64_t)sec->runnable_us);
    sqlite3_bind_int64(s, 7, sec->threads);
    sqlite3_bind_int64(s, 8, (int64_t)sec->lost);
    if (step(p, ST_SECOND, "a profile's second", err, errlen) != 0)
        goto fail;
    return step(p, ST_COMMIT, "a profile's second", err, errlen);
fail:
    step(p, ST_ROLLBACK, "a rollback", NULL, 0);
    folded_reset(&p->ids); /* the stacks of the rolled-back second are not stored */
    p->run_id = 0;
    return -1;
}

void profile_db_free(profile_db *p)
{
    if (p == NULL)
        return;
    for (int i = 0; i < ST_N; i++)
        sqlite3_finalize(p->st[i]);
    folded_free(&p->ids);
    xfree(p);
}

static void copy(char *dst, size_t n, const unsigned char *src)
{
    snprintf(dst, n, "%s", src != NULL ? (const char *)src : "");
}

int profile_db_targets(db *d, int64_t run_id, profile_target_row *rows, size_t max, char *err,
                       size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *s = NULL;
    int n = 0, rc;

    if (sqlite3_prepare_v2(sq,
                           "SELECT target, agent, ok, error, procs, threads, freq, cpus FROM "
                           "profile_targets WHERE run_id = ? ORDER BY rowid",
                           -1, &s, NULL) != SQLITE_OK) {
        err_set(err, errlen, "profile targets: %s", sqlite3_errmsg(sq));
        return -1;
    }
    sqlite3_bind_int64(s, 1, run_id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && (size_t)n < max) {
        profile_target_row *r = &rows[n++];
        copy(r->target, sizeof(r->target), sqlite3_column_text(s, 0));
        copy(r->agent, sizeof(r->agent), sqlite3_column_text(s, 1));
        r->ok = sqlite3_column_int(s, 2);
        copy(r->error, sizeof(r->error), sqlite3_column_text(s, 3));
        r->procs = (unsigned)sqlite3_column_int64(s, 4);
        r->threads = (unsigned)sqlite3_column_int64(s, 5);
        r->freq = (unsigned)sqlite3_column_int64(s, 6);
        r->cpus = (unsigned)sqlite3_column_int64(s, 7);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        err_set(err, errlen, "profile targets: %s", sqlite3_errmsg(sq));
        n = -1;
    }
    sqlite3_finalize(s);
    return n;
}

int profile_db_window(db *d, int64_t run_id, const char *target, int64_t s0, int64_t s1,
                      profile_window *w, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *s = NULL, *t = NULL;
    int rc, ret = -1;

    memset(w, 0, sizeof(*w));
    folded_init(&w->cpu, 20000);
    folded_init(&w->off, 20000);
    if (sqlite3_prepare_v2(sq,
                           "SELECT p.kind, k.frames, SUM(p.value) FROM profile_samples p JOIN "
                           "profile_stacks k ON k.run_id = p.run_id AND k.id = p.stack WHERE "
                           "p.run_id = ? AND p.target = ? AND p.second >= ? AND p.second < ? "
                           "GROUP BY p.kind, p.stack",
                           -1, &s, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq,
                           "SELECT COUNT(*), SUM(on_us), SUM(off_us), SUM(runnable_us), "
                           "SUM(lost), MAX(threads) FROM profile_seconds WHERE run_id = ? AND "
                           "target = ? AND second >= ? AND second < ?",
                           -1, &t, NULL) != SQLITE_OK) {
        err_set(err, errlen, "profile: %s", sqlite3_errmsg(sq));
        goto out;
    }
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_text(s, 2, target, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, s0);
    sqlite3_bind_int64(s, 4, s1);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *frames = (const char *)sqlite3_column_text(s, 1);
        int64_t v = sqlite3_column_int64(s, 2);
        if (frames == NULL || v <= 0)
            continue;
        folded_add(sqlite3_column_int(s, 0) == 0 ? &w->cpu : &w->off, frames, strlen(frames),
                   (uint64_t)v);
    }
    if (rc != SQLITE_DONE) {
        err_set(err, errlen, "profile: %s", sqlite3_errmsg(sq));
        goto out;
    }
    sqlite3_bind_int64(t, 1, run_id);
    sqlite3_bind_text(t, 2, target, -1, SQLITE_STATIC);
    sqlite3_bind_int64(t, 3, s0);
    sqlite3_bind_int64(t, 4, s1);
    if (sqlite3_step(t) == SQLITE_ROW) {
        w->seconds = (uint32_t)sqlite3_column_int64(t, 0);
        w->on_us = (uint64_t)sqlite3_column_int64(t, 1);
        w->off_us = (uint64_t)sqlite3_column_int64(t, 2);
        w->runnable_us = (uint64_t)sqlite3_column_int64(t, 3);
        w->lost = (uint64_t)sqlite3_column_int64(t, 4);
        w->threads_max = (uint32_t)sqlite3_column_int64(t, 5);
    }
    ret = 0;
out:
    sqlite3_finalize(s);
    sqlite3_finalize(t);
    return ret;
}

void profile_window_in(const profile_window *w, unsigned cpus, const char *label, profdiag_in *in)
{
    memset(in, 0, sizeof(*in));
    in->cpu = &w->cpu;
    in->off = &w->off;
    in->on_us = w->on_us;
    in->off_us = w->off_us;
    in->runnable_us = w->runnable_us;
    /* a thread runs on one CPU at a time: a single-threaded server has one */
    unsigned c = w->threads_max > 0 && w->threads_max < cpus ? w->threads_max : cpus;
    in->cpu_us = (double)w->seconds * (double)c * 1e6;
    in->label = label;
}

void profile_window_free(profile_window *w)
{
    folded_free(&w->cpu);
    folded_free(&w->off);
}
