/* dbfix — the fixture of the unit tests of the results store (store/): a
 * temporary folder holding a database path and a script ("abc", whose
 * SHA-256 the tests know), removed with the database's WAL files after each
 * test. setup leaves the database closed, setup_open opens it into f->d.
 * Included by the test files that use it; each gets its own copy. */
#ifndef QUERN_TESTS_DBFIX_H
#define QUERN_TESTS_DBFIX_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "store/db.h"

typedef struct fx {
    char dir[64];
    char path[128];
    char script[128];
    db *d; /* owned: with setup_open, else NULL */
} fx;

static int setup(void **state)
{
    fx *f = xcalloc(1, sizeof(*f));
    FILE *s;

    *state = f;
    snprintf(f->dir, sizeof(f->dir), "/tmp/quern-test-db-XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    snprintf(f->path, sizeof(f->path), "%s/r.db", f->dir);
    snprintf(f->script, sizeof(f->script), "%s/plan.lua", f->dir);
    s = fopen(f->script, "w");
    if (s == NULL)
        return -1;
    fputs("abc", s);
    fclose(s);
    return 0;
}

static __attribute__((unused)) int setup_open(void **state)
{
    char err[ERR_MAX];
    fx *f;

    if (setup(state) != 0)
        return -1;
    f = *state;
    f->d = db_open(f->path, err, sizeof(err));
    return f->d != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    fx *f = *state;
    char p[160];
    const char *const suffix[] = {"", "-wal", "-shm"};

    db_close(f->d);
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s%s", f->path, suffix[i]);
        unlink(p);
    }
    unlink(f->script);
    rmdir(f->dir);
    xfree(f);
    return 0;
}

#endif
