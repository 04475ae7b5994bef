/* sectext — a section of the HTML report as text (sectext.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "tests/unit/sectext.h"

char *sectext_of(void (*write)(FILE *out, const query_run *r), const query_run *r)
{
    char *buf = NULL, *text;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    write(out, r);
    fclose(out);
    text = xstrdup(buf);
    free(buf); /* open_memstream's: malloc'd by libc */
    return text;
}

size_t sectext_count(const char *s, const char *what)
{
    size_t n = 0;

    for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what))
        n++;
    return n;
}
