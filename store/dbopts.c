#include "store/dbopts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

int db_opts_flag(const char *flag)
{
    return strcmp(flag, "--db") == 0 || strcmp(flag, "--name") == 0 || strcmp(flag, "--tag") == 0;
}

int db_opts_set(db_opts *o, const char *flag, const char *val, char *err, size_t errlen)
{
    if (strcmp(flag, "--db") == 0) {
        if (val[0] == '\0') {
            err_set(err, errlen, "an empty path (use --db none to record nothing)");
            return -1;
        }
        o->path = val;
    } else if (strcmp(flag, "--name") == 0) {
        if (val[0] == '\0') {
            err_set(err, errlen, "the run name is empty");
            return -1;
        }
        o->name = val;
    } else if (strcmp(flag, "--tag") == 0) {
        if (o->tags == NULL)
            o->tags = props_new();
        if (props_set_arg(o->tags, val, err, errlen) != 0)
            return -1;
    } else {
        err_set(err, errlen, "not a results option");
        return -1;
    }
    return 0;
}

void db_opts_free(db_opts *o)
{
    props_free(o->tags);
    o->tags = NULL;
}

const char *db_opts_path(const db_opts *o)
{
    const char *p = o->path;

    if (p == NULL) {
        p = getenv(DB_PATH_ENV);
        if (p == NULL || p[0] == '\0')
            p = DB_PATH_DEFAULT;
    }
    return strcmp(p, "none") == 0 ? NULL : p;
}

const char *db_opts_name(const db_opts *o, const char *script, char *buf, size_t len)
{
    const char *base;
    size_t n;

    if (o->name != NULL) {
        snprintf(buf, len, "%s", o->name);
        return buf;
    }
    base = strrchr(script, '/');
    base = base != NULL ? base + 1 : script;
    n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".lua") == 0)
        n -= 4;
    snprintf(buf, len, "%.*s", (int)n, base);
    return buf;
}
