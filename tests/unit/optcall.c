/* optcall — an option parser called as its unit tests call it (optcall.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/mem.h"
#include "tests/unit/optcall.h"

void optcall_args(optcall *c, const char *word, const char *first, va_list ap)
{
    memset(c, 0, sizeof(*c));
    c->argv[c->argc++] = xstrdup(word);
    for (const char *s = first; s != NULL && c->argc < OPTCALL_ARGS_MAX;
         s = va_arg(ap, const char *))
        c->argv[c->argc++] = xstrdup(s);
}

void optcall_run(optcall *c, int (*parse)(void *arg), void *arg)
{
    FILE *tmp = tmpfile();
    int saved = dup(STDERR_FILENO);
    size_t n;

    assert_non_null(tmp);
    fflush(stderr);
    dup2(fileno(tmp), STDERR_FILENO);
    c->rc = parse(arg);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(tmp);
    n = fread(c->said, 1, sizeof(c->said) - 1, tmp);
    c->said[n] = '\0';
    fclose(tmp);
}

void optcall_assert_refused(const optcall *c, const char *want)
{
    assert_int_equal(c->rc, -1);
    if (strstr(c->said, want) == NULL)
        fail_msg("stderr \"%s\" lacks \"%s\"", c->said, want);
    assert_non_null(strchr(c->said, '\n'));
    assert_string_equal(strchr(c->said, '\n'), "\n"); /* one line */
}

void optcall_free(optcall *c)
{
    for (int i = 0; i < c->argc; i++)
        xfree(c->argv[i]);
}
