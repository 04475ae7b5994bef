/* Unit tests for console/gather: the JTL's thread columns are the run's
 * active VUs of the sample's second, written once that second is merged;
 * the file reaches its path whole, at gather_close. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "console/gather.h"
#include "proto/workerfiles.h"

static char path[64];

static int setup(void **state)
{
    int fd;

    snprintf(path, sizeof(path), "/tmp/quern-gather-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    unlink(path);
    return 0;
}

/* The file the JTL is written into: until gather_close, the temporary file
 * beside path (common/ofile.h), after it path itself. */
static const char *written(void)
{
    static char tmp[128];
    const char *base = strrchr(path, '/') + 1;
    glob_t g;

    snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp*", (int)(base - path), path, base);
    if (glob(tmp, 0, NULL, &g) != 0)
        return path;
    assert_int_equal(g.gl_pathc, 1);
    snprintf(tmp, sizeof(tmp), "%s", g.gl_pathv[0]);
    globfree(&g);
    return tmp;
}

/* The JTL written so far, without its header line. */
static const char *body(void)
{
    static char buf[8192];
    FILE *f = fopen(written(), "r");
    size_t n;
    char *nl;

    assert_non_null(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    nl = strchr(buf, '\n');
    assert_non_null(nl);
    assert_int_equal(strncmp(buf, WORKERFILES_JTL_HEADER "\n", strlen(WORKERFILES_JTL_HEADER) + 1),
                     0);
    return nl + 1;
}

/* Nothing has reached path itself yet. */
static void path_still_empty(void)
{
    FILE *f = fopen(path, "r");

    assert_non_null(f);
    assert_int_equal(fgetc(f), EOF);
    fclose(f);
}

static void part(gather *g, const char *data)
{
    Quern__FilePart fp = QUERN__FILE_PART__INIT;
    char err[ERR_MAX];

    fp.name = "jtl";
    fp.data.data = (uint8_t *)data;
    fp.data.len = strlen(data);
    assert_int_equal(gather_part(g, &fp, err, sizeof(err)), 0);
}

/* A worker's line for second s, its worker having own VUs active. */
static const char *line(uint64_t s, unsigned own, const char *label)
{
    static char out[2][512];
    static int i;
    char l[256];
    int at;

    i ^= 1;
    at = snprintf(l, sizeof(l), "1,2,%s,200,OK,a 1-1,text,true,,3,4,", label);
    snprintf(out[i], sizeof(out[i]), "%llu %u %d\t%s%u,%u,http://h/,1,0,0\n", (unsigned long long)s,
             own, at, l, own, own);
    return out[i];
}

static void test_rewritten_when_merged(void **state)
{
    char err[ERR_MAX];
    gather *g = gather_new(path, NULL, err, sizeof(err));
    char data[1024];

    assert_non_null(g);
    gather_second(g, 0, 12, 0);
    gather_second(g, 1, 12, 0);
    /* Known seconds: written at once, with the run's count. */
    part(g, line(1, 6, "a"));
    assert_string_equal(body(), "1,2,a,200,OK,a 1-1,text,true,,3,4,12,12,http://h/,1,0,0\n");
    /* Second 2 is not merged yet: held. */
    snprintf(data, sizeof(data), "%s%s", line(2, 6, "b"), line(1, 5, "c"));
    part(g, data);
    assert_string_equal(body(), "1,2,a,200,OK,a 1-1,text,true,,3,4,12,12,http://h/,1,0,0\n"
                                "1,2,c,200,OK,a 1-1,text,true,,3,4,12,12,http://h/,1,0,0\n");
    /* Second 2 ends with the VUs stopped: its samples count the VUs it
     * started with. */
    gather_second(g, 2, 0, 0);
    assert_non_null(strstr(body(), "1,2,b,200,OK,a 1-1,text,true,,3,4,12,12,http://h/"));
    assert_int_equal(gather_jtl_lines(g), 3);
    path_still_empty();
    snprintf(data, sizeof(data), "%s", body());
    assert_int_equal(gather_close(g, err, sizeof(err)), 0);
    gather_free(g);
    /* the JTL is at path, whole, only once closed */
    assert_string_equal(written(), path);
    assert_string_equal(body(), data);
}

/* --traceparent: the header names the workers' last column. */
static void test_traced_header(void **state)
{
    char err[ERR_MAX], buf[512];
    gather *g = gather_new_traced(path, NULL, 1, err, sizeof(err));
    FILE *f;
    size_t n;

    assert_non_null(g);
    assert_int_equal(gather_close(g, err, sizeof(err)), 0);
    gather_free(g);
    f = fopen(path, "r");
    assert_non_null(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, WORKERFILES_JTL_HEADER ",traceId\n");
}

static void test_floor_late_and_close(void **state)
{
    char err[ERR_MAX];
    gather *g = gather_new(path, NULL, err, sizeof(err));

    assert_non_null(g);
    /* Never fewer than the sample's own worker had. */
    gather_second(g, 0, 0, 0);
    part(g, line(0, 3, "own"));
    assert_non_null(strstr(body(), ",own,200,OK,a 1-1,text,true,,3,4,3,3,"));
    /* A late agent's part of a second adds to it. */
    part(g, line(5, 1, "late"));
    gather_second(g, 5, 4, 0);
    assert_non_null(strstr(body(), ",late,200,OK,a 1-1,text,true,,3,4,4,4,"));
    gather_second(g, 6, 2, 0);
    gather_second(g, 6, 3, 1);
    part(g, line(7, 1, "after"));
    /* Closing writes what is still held with what is known. */
    part(g, line(9, 2, "held"));
    assert_null(strstr(body(), ",held,"));
    assert_int_equal(gather_close(g, err, sizeof(err)), 0);
    assert_non_null(strstr(body(), ",after,200,OK,a 1-1,text,true,,3,4,5,5,"));
    assert_non_null(strstr(body(), ",held,200,OK,a 1-1,text,true,,3,4,2,2,"));
    gather_free(g);
}

/* A line without a well-formed prefix is written as it came. */
static void test_malformed(void **state)
{
    char err[ERR_MAX];
    gather *g = gather_new(path, NULL, err, sizeof(err));

    assert_non_null(g);
    part(g, "plain,line\n");
    part(g, "1 2 999\tshort,line\n"); /* offset past the line */
    part(g, "1 2 2\tabc,def\n");      /* no "2,2," there */
    part(g, "x y z\tq\nno newline");
    assert_int_equal(gather_close(g, err, sizeof(err)), 0);
    assert_string_equal(body(), "plain,line\n1 2 999\tshort,line\n1 2 2\tabc,def\n"
                                "x y z\tq\nno newline");
    gather_free(g);
    gather_second(NULL, 0, 1, 0); /* no --jtl: nothing to do */
}

/* A Grinder log part from an agent: name, offset, bytes. */
static int gpart(gather *g, const char *name, uint64_t offset, const char *data, char *err,
                 size_t errlen)
{
    Quern__FilePart fp = QUERN__FILE_PART__INIT;

    fp.name = (char *)name;
    fp.offset = offset;
    fp.data.data = (uint8_t *)data;
    fp.data.len = strlen(data);
    return gather_part(g, &fp, err, errlen);
}

/* The names an agent sends are untrusted: only data_X.log and out_X.log,
 * inside the folder, never through a link. */
static void test_grinder_names(void **state)
{
    char dir[64], err[ERR_MAX], p[128], buf[64];
    gather *g;
    FILE *f;
    size_t n;

    snprintf(dir, sizeof(dir), "/tmp/quern-gather-d-XXXXXX");
    assert_non_null(mkdtemp(dir));
    g = gather_new(NULL, dir, err, sizeof(err));
    assert_non_null(g);
    assert_int_equal(gpart(g, "data_inj1-1.log", 0, "abc", err, sizeof(err)), 0);
    assert_int_equal(gpart(g, "data_inj1-1.log", 3, "def\n", err, sizeof(err)), 0);
    snprintf(p, sizeof(p), "%s/data_inj1-1.log", dir);
    f = fopen(p, "r");
    assert_non_null(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, "abcdef\n");
    assert_int_equal(gpart(g, "out_inj1-1.log", 0, "x", err, sizeof(err)), 0);

    const char *bad[] = {"../data_x.log", "data_../../x.log", "data_a/b.log", "data_a\\b.log",
                         "data_x.txt",    "x_data_a.log",     "out_\001.log", "",
                         "data_x.log/"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (gpart(g, bad[i], 0, "x", err, sizeof(err)) != -1)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_non_null(strstr(err, "refused a result file named"));
    }
    char longname[300];
    memset(longname, 'a', sizeof(longname));
    memcpy(longname, "data_", 5);
    memcpy(longname + sizeof(longname) - 5, ".log", 5);
    assert_int_equal(gpart(g, longname, 0, "x", err, sizeof(err)), -1);
    /* an offset beyond any real log */
    assert_int_equal(gpart(g, "data_inj1-2.log", (uint64_t)1 << 51, "x", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "offset out of range"));
    /* a link planted under an allowed name is not followed */
    snprintf(p, sizeof(p), "%s/data_link-1.log", dir);
    assert_int_equal(symlink("/etc/passwd", p), 0);
    assert_int_equal(gpart(g, "data_link-1.log", 0, "x", err, sizeof(err)), -1);
    unlink(p);
    /* no --jtl: a jtl part is ignored */
    assert_int_equal(gpart(g, "jtl", 0, "1,2\n", err, sizeof(err)), 0);
    assert_int_equal(gather_close(g, err, sizeof(err)), 0);
    gather_free(g);
    snprintf(p, sizeof(p), "%s/data_inj1-1.log", dir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/out_inj1-1.log", dir);
    unlink(p);
    assert_int_equal(rmdir(dir), 0); /* nothing else was written there */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rewritten_when_merged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_floor_late_and_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_traced_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
        cmocka_unit_test(test_grinder_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
