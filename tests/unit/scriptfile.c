/* scriptfile — a Lua script written to a file for a test (scriptfile.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/scriptfile.h"

const char *scriptfile_write(char *path, size_t len, const char *name, const char *text)
{
    int fd;
    FILE *f;

    snprintf(path, len, "/tmp/quern-test-%s.XXXXXX.lua", name);
    fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return strrchr(path, '/') + 1;
}
