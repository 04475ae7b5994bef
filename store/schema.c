#include "store/schema.h"

#include <stdio.h>
#include <string.h>

#include "common/mem.h"

/* The start of the line "-- @migration n" in schema_sql, or NULL. */
static const char *find_mark(unsigned n)
{
    char mark[32];
    size_t mlen;
    const char *p = schema_sql;

    mlen = (size_t)snprintf(mark, sizeof(mark), "-- @migration %u\n", n);
    for (p = strstr(p, mark); p != NULL; p = strstr(p + mlen, mark)) {
        if (p == schema_sql || p[-1] == '\n')
            return p;
    }
    return NULL;
}

unsigned schema_migrations(void)
{
    unsigned n = 0;

    while (find_mark(n + 1) != NULL)
        n++;
    return n;
}

char *schema_migration(unsigned n)
{
    const char *start, *end;
    char *s;

    start = n > 0 ? find_mark(n) : NULL;
    if (start == NULL)
        return NULL;
    end = find_mark(n + 1);
    if (end == NULL)
        end = schema_sql + schema_sql_len;
    s = xmalloc((size_t)(end - start) + 1);
    memcpy(s, start, (size_t)(end - start));
    s[end - start] = '\0';
    return s;
}
