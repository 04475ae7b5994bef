/* Unit tests for agent/rundir: a run folder is made under $TMPDIR with the
 * bundle in it, a refused bundle leaves nothing, and the sweep removes only
 * the marked folders nobody holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/rundir.h"

static char tmp[64];

static int setup(void **state)
{
    snprintf(tmp, sizeof(tmp), "/tmp/quern-test-rundir.XXXXXX");
    if (mkdtemp(tmp) == NULL)
        return -1;
    setenv("TMPDIR", tmp, 1);
    return 0;
}

static int teardown(void **state)
{
    rundir_remove(tmp);
    unsetenv("TMPDIR");
    return 0;
}

static int exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

static void test_new_and_sweep(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char dir[PATH_MAX], path[PATH_MAX + 32], err[256];
    int hold;

    f.path = (char *)"data/users.csv";
    f.data.data = (uint8_t *)"id\n";
    f.data.len = 3;
    assert_int_equal(rundir_new(NULL, fp, 1, dir, sizeof(dir), err, sizeof(err)), 0);
    assert_int_equal(strncmp(dir, tmp, strlen(tmp)), 0);
    assert_non_null(strstr(dir, "/quern-run."));
    snprintf(path, sizeof(path), "%s/data/users.csv", dir);
    assert_true(exists(path));

    /* Not marked yet: never swept. */
    assert_int_equal(rundir_sweep(NULL), 0);
    hold = rundir_hold(dir);
    assert_true(hold >= 0);
    snprintf(path, sizeof(path), "%s/" RUNDIR_HELD, dir);
    assert_true(exists(path));
    /* Held: kept. */
    assert_int_equal(rundir_sweep(NULL), 0);
    assert_true(exists(dir));
    /* Its holder gone (as after SIGKILL): removed. */
    close(hold);
    assert_int_equal(rundir_sweep(NULL), 1);
    assert_false(exists(dir));
}

static void test_refused(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char dir[PATH_MAX], err[256];

    f.path = (char *)"../escape.lua";
    assert_int_equal(rundir_new(NULL, fp, 1, dir, sizeof(dir), err, sizeof(err)), -1);
    assert_string_equal(err, "refused bundle path \"../escape.lua\"");
    assert_string_equal(dir, "");
    /* Nothing made: the temporary folder is as empty as before. */
    assert_int_equal(rmdir(tmp), 0);
    assert_int_equal(mkdir(tmp, 0700), 0);
    rundir_remove("");
    rundir_remove(NULL);
}

/* An agent's --work-dir: made private when missing, refused when relative,
 * not a folder, or writable by anyone; run folders go there, not to TMPDIR. */
static void test_workdir(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char work[PATH_MAX], file[PATH_MAX + 8], dir[PATH_MAX], err[PATH_MAX + 128];
    struct stat st;
    int hold;

    snprintf(work, sizeof(work), "%s/work", tmp);
    assert_int_equal(rundir_workdir("relative/dir", err, sizeof(err)), -1);
    assert_string_equal(err, "--work-dir wants an absolute path, got \"relative/dir\"");
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), 0);
    assert_int_equal(stat(work, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), 0); /* exists: fine */

    f.path = (char *)"s.lua";
    f.data.data = (uint8_t *)"x";
    f.data.len = 1;
    assert_int_equal(rundir_new(work, fp, 1, dir, sizeof(dir), err, sizeof(err)), 0);
    assert_int_equal(strncmp(dir, work, strlen(work)), 0);
    hold = rundir_hold(dir);
    close(hold);
    assert_int_equal(rundir_sweep(NULL), 0); /* TMPDIR holds no run folder */
    assert_int_equal(rundir_sweep(work), 1);

    assert_int_equal(chmod(work, 0777), 0);
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "anyone may write into it"));
    assert_int_equal(chmod(work, 01777), 0);
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), 0); /* sticky, as /tmp */

    snprintf(file, sizeof(file), "%s/file", tmp);
    close(open(file, O_WRONLY | O_CREAT, 0600));
    assert_int_equal(rundir_workdir(file, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a folder"));
    snprintf(file, sizeof(file), "%s/no/such", tmp);
    assert_int_equal(rundir_workdir(file, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_new_and_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workdir, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
