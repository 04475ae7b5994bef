/* The buffered output file writes only when full or closed, losing
 * nothing, and refuses what it cannot open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "worker/wire/wfile.h"

static void test_file_buffers_until_full(void **state)
{
    char path[] = "/tmp/quern-wfile-XXXXXX", err[ERR_MAX], line[100];
    int fd = mkstemp(path);
    wfile f;
    struct stat st;
    size_t total = 0;
    uint64_t i;

    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(wfile_open(&f, path, 16384, err, sizeof(err)), 0);
    /* Lines go to memory: nothing is written while a line still fits. */
    for (i = 0; i < 100; i++) {
        char *p = wfile_reserve(&f);
        int n = snprintf(line, sizeof(line), "line %03llu\n", (unsigned long long)i);
        assert_non_null(p);
        memcpy(p, line, (size_t)n);
        wfile_commit(&f, (size_t)n);
        total += (size_t)n;
    }
    assert_int_equal(f.flushes, 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
    /* Past the buffer: written in big blocks, in order, nothing lost. */
    for (; i < 3000; i++) {
        char *p = wfile_reserve(&f);
        int n = snprintf(line, sizeof(line), "line %04llu\n", (unsigned long long)i);
        memcpy(p, line, (size_t)n);
        wfile_commit(&f, (size_t)n);
        total += (size_t)n;
    }
    assert_true(f.flushes >= 1 && f.flushes <= total / (16384 - WFILE_LINE_MAX) + 1);
    wfile_append(&f, "tail\n", 5);
    total += 5;
    assert_int_equal(f.lines, 3000);
    assert_int_equal(wfile_close(&f), 0);
    assert_int_equal(wfile_close(&f), 0); /* twice is fine */
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((size_t)st.st_size, total);
    {
        FILE *in = fopen(path, "r");
        char buf[64];
        int k = 0;
        assert_non_null(in);
        while (fgets(buf, sizeof(buf), in) != NULL && k < 3000) {
            unsigned v;
            assert_int_equal(sscanf(buf, "line %u", &v), 1);
            assert_int_equal(v, (unsigned)k);
            k++;
        }
        assert_int_equal(k, 3000);
        fclose(in);
    }
    unlink(path);
}

static void test_file_open_errors(void **state)
{
    wfile f;
    char err[ERR_MAX];

    assert_int_equal(wfile_open(&f, "/nonexistent-dir/x.jtl", 65536, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/nonexistent-dir/x.jtl"));
    assert_null(wfile_reserve(&f));
    assert_int_equal(wfile_close(&f), 0);
    /* A buffer smaller than a line is refused. */
    assert_int_equal(wfile_open(&f, "/tmp/quern-never", 100, err, sizeof(err)), -1);
    wfile_close(&f);
}

/* A link planted where the file goes is not followed: what it points to is
 * neither truncated nor written. */
static void test_file_no_follow(void **state)
{
    char dir[64], link[96], victim[96], err[ERR_MAX];
    struct stat st;
    wfile f;
    FILE *out;

    snprintf(dir, sizeof(dir), "/tmp/quern-test-wfile.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(victim, sizeof(victim), "%s/victim", dir);
    snprintf(link, sizeof(link), "%s/.quern-jtl.0", dir);
    out = fopen(victim, "w");
    assert_non_null(out);
    fputs("intact", out);
    fclose(out);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(wfile_open(&f, link, 65536, err, sizeof(err)), -1);
    assert_non_null(strstr(err, link));
    wfile_close(&f);
    assert_int_equal(stat(victim, &st), 0);
    assert_int_equal(st.st_size, 6);
    unlink(link);
    unlink(victim);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_buffers_until_full),
        cmocka_unit_test(test_file_open_errors),
        cmocka_unit_test(test_file_no_follow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
