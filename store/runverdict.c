#include "store/runverdict.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

/* Appends s to out (of cap bytes) at *len, cut with "..." to end at most at
 * byte w (w < cap). */
static void add_cut(char *out, size_t *len, size_t w, const char *s)
{
    size_t n = strlen(s), room = w > *len ? w - *len : 0;

    if (n <= room) {
        memcpy(out + *len, s, n);
        *len += n;
    } else if (room >= 3) {
        memcpy(out + *len, s, room - 3);
        memcpy(out + *len + room - 3, "...", 3);
        *len += room;
    }
    out[*len] = '\0';
}

/* "failed: " and the first k of names, then " +M more" for the others. */
static size_t list_text(const runverdict_in *in, size_t k, char *out, size_t w)
{
    size_t len = 0;
    char more[48];

    out[0] = '\0';
    add_cut(out, &len, w, "failed: ");
    for (size_t i = 0; i < k; i++) {
        if (i > 0)
            add_cut(out, &len, w, ", ");
        add_cut(out, &len, w, in->failed[i]);
    }
    if (k < in->nfailed) {
        snprintf(more, sizeof(more), " +%zu more", in->nfailed - k);
        add_cut(out, &len, w, more);
    }
    return len;
}

/* The failed thresholds, as many named as fit in w. */
static void failed_list(const runverdict_in *in, size_t w, char *out)
{
    size_t named = in->nfailed < RUNVERDICT_FAILED_MAX ? in->nfailed : RUNVERDICT_FAILED_MAX;
    char full[RUNVERDICT_TEXT_MAX * 2];

    for (size_t k = named; k >= 1; k--) {
        /* Measure without cutting, then keep the first k that fit. */
        if (list_text(in, k, full, sizeof(full) - 1) <= w || k == 1) {
            list_text(in, k, out, w);
            return;
        }
    }
    list_text(in, 0, out, w);
}

void runverdict_decide(const runverdict_in *in, size_t width, runverdict *v)
{
    const char *st = in->status != NULL ? in->status : "";
    size_t w = width == 0 || width >= RUNVERDICT_TEXT_MAX ? RUNVERDICT_TEXT_MAX - 1 : width;
    size_t len = 0;
    char n[64];

    v->kind = RUNVERDICT_FAILED;
    v->text[0] = '\0';
    if (strcmp(st, "running") == 0) {
        v->kind = RUNVERDICT_PENDING;
        add_cut(v->text, &len, w, "running");
    } else if (strcmp(st, "abandoned") == 0) {
        add_cut(v->text, &len, w, "failed: abandoned");
    } else if (in->nfailed > 0 && in->failed != NULL) {
        failed_list(in, w, v->text);
    } else if (in->verdict != NULL && strcmp(in->verdict, "failed") == 0) {
        const char *why = in->verdict_reason != NULL ? in->verdict_reason : "";
        /* the console's own line says "failed: ..." or "inconclusive: ..." */
        if (strncmp(why, "inconclusive: ", 14) != 0) {
            if (strncmp(why, "failed: ", 8) == 0)
                why += 8;
            add_cut(v->text, &len, w, why[0] != '\0' ? "failed: " : "failed");
        }
        add_cut(v->text, &len, w, why);
    } else if (in->verdict != NULL && strcmp(in->verdict, "passed") == 0) {
        v->kind = RUNVERDICT_PASSED;
        add_cut(v->text, &len, w, "passed");
    } else if (strcmp(st, "aborted") == 0 || strcmp(st, "degraded") == 0) {
        add_cut(v->text, &len, w, "failed: ");
        add_cut(v->text, &len, w, st);
    } else if (in->nthresholds == 0 && in->count == 0) {
        add_cut(v->text, &len, w, "failed: no sample");
    } else if (in->nthresholds == 0 && in->errors > 0) {
        snprintf(n, sizeof(n), "failed: %" PRIu64 " error%s", in->errors,
                 in->errors == 1 ? "" : "s");
        add_cut(v->text, &len, w, n);
    } else {
        v->kind = RUNVERDICT_PASSED;
        add_cut(v->text, &len, w, "passed");
    }
}

int runverdict_load(db *d, int64_t id, const char *status, uint64_t count, uint64_t errors,
                    size_t width, runverdict *v, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    char *verd = NULL, *reason = NULL, *failed[RUNVERDICT_FAILED_MAX];
    runverdict_in in = {0};
    int rc, out = -1;

    in.status = status;
    in.count = count;
    in.errors = errors;
    in.failed = (const char *const *)failed;
    if (sqlite3_prepare_v2(sq, "SELECT verdict, verdict_reason FROM runs WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        goto sqlerr;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *a = (const char *)sqlite3_column_text(st, 0);
        const char *b = (const char *)sqlite3_column_text(st, 1);
        verd = a != NULL ? xstrdup(a) : NULL;
        reason = b != NULL ? xstrdup(b) : NULL;
    } else if (rc != SQLITE_DONE) {
        goto sqlerr;
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(sq,
                           "SELECT expr, passed FROM thresholds WHERE run_id = ? ORDER BY position",
                           -1, &st, NULL) != SQLITE_OK)
        goto sqlerr;
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *e = (const char *)sqlite3_column_text(st, 0);
        in.nthresholds++;
        if (sqlite3_column_int(st, 1) != 0)
            continue;
        if (in.nfailed < RUNVERDICT_FAILED_MAX)
            failed[in.nfailed] = xstrdup(e != NULL ? e : "?");
        in.nfailed++;
    }
    if (rc != SQLITE_DONE)
        goto sqlerr;
    in.verdict = verd;
    in.verdict_reason = reason;
    runverdict_decide(&in, width, v);
    out = 0;
    goto done;
sqlerr:
    err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
done:
    sqlite3_finalize(st);
    for (size_t i = 0; i < in.nfailed && i < RUNVERDICT_FAILED_MAX; i++)
        xfree(failed[i]);
    xfree(verd);
    xfree(reason);
    return out;
}
