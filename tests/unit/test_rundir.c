/* Unit tests for agent/rundir: a run folder is made under $TMPDIR with the
 * bundle in it, private and ours; a refused bundle leaves nothing; the sweep
 * removes only the marked folders nobody holds; a work folder another user
 * could write into, own, or reach through a link is refused; and nothing is
 * written or removed through a link planted in the run folder. */
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
#include "common/err.h"
#include "proto/bundle.h"

/* Another user (nobody), owner of the folders that must be refused. */
#define OTHER_UID 65534

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
    rundir_remove(-1, tmp);
    unsetenv("TMPDIR");
    return 0;
}

static int exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_new_and_sweep(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char dir[PATH_MAX], path[PATH_MAX + 32], err[ERR_MAX];
    int fd;

    f.path = (char *)"data/users.csv";
    f.data.data = (uint8_t *)"id\n";
    f.data.len = 3;
    fd = rundir_new(NULL, fp, 1, dir, sizeof(dir), err, sizeof(err));
    assert_true(fd >= 0);
    assert_int_equal(strncmp(dir, tmp, strlen(tmp)), 0);
    assert_non_null(strstr(dir, "/quern-run."));
    snprintf(path, sizeof(path), "%s/data/users.csv", dir);
    assert_true(exists(path));

    /* Not marked yet: never swept. */
    assert_int_equal(rundir_sweep(NULL), 0);
    assert_int_equal(rundir_hold(fd), 0);
    snprintf(path, sizeof(path), "%s/" RUNDIR_HELD, dir);
    assert_true(exists(path));
    /* Held: kept. */
    assert_int_equal(rundir_sweep(NULL), 0);
    assert_true(exists(dir));
    /* Its holder gone (as after SIGKILL): removed. */
    close(fd);
    assert_int_equal(rundir_sweep(NULL), 1);
    assert_false(exists(dir));
}

static void test_refused(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char dir[PATH_MAX], err[ERR_MAX];

    f.path = (char *)"../escape.lua";
    assert_int_equal(rundir_new(NULL, fp, 1, dir, sizeof(dir), err, sizeof(err)), -1);
    assert_string_equal(err, "refused bundle path \"../escape.lua\"");
    assert_string_equal(dir, "");
    /* Nothing made: the temporary folder is as empty as before. */
    assert_int_equal(rmdir(tmp), 0);
    assert_int_equal(mkdir(tmp, 0700), 0);
    rundir_remove(-1, "");
    rundir_remove(-1, NULL);
}

/* An agent's --work-dir: made private when missing, refused when relative,
 * not a folder, or writable by anyone; run folders go there, not to TMPDIR. */
static void test_workdir(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char work[PATH_MAX], file[PATH_MAX + 8], dir[PATH_MAX], err[PATH_MAX + 256];
    struct stat st;
    int fd;

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
    fd = rundir_new(work, fp, 1, dir, sizeof(dir), err, sizeof(err));
    assert_true(fd >= 0);
    assert_int_equal(strncmp(dir, work, strlen(work)), 0);
    assert_int_equal(rundir_hold(fd), 0);
    close(fd);
    assert_int_equal(rundir_sweep(NULL), 0); /* TMPDIR holds no run folder */
    assert_int_equal(rundir_sweep(work), 1);

    assert_int_equal(chmod(work, 0777), 0);
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "anyone may write into it"));
    assert_int_equal(chmod(work, 01777), 0);
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), 0); /* sticky, as /tmp */
    assert_int_equal(rundir_workdir("/tmp", err, sizeof(err)), 0);

    snprintf(file, sizeof(file), "%s/file", tmp);
    close(open(file, O_WRONLY | O_CREAT, 0600));
    assert_int_equal(rundir_workdir(file, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a folder"));
    snprintf(file, sizeof(file), "%s/no/such", tmp);
    assert_int_equal(rundir_workdir(file, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "No such file"));
}

/* Writable by its group or by anyone, not sticky: refused, by name, for
 * --work-dir, for a folder above it, for $TMPDIR, and at the run's start. */
static void test_workdir_writable(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char up[PATH_MAX], work[PATH_MAX + 8], dir[PATH_MAX], want[PATH_MAX * 2], err[PATH_MAX + 256];

    snprintf(up, sizeof(up), "%s/shared", tmp);
    snprintf(work, sizeof(work), "%s/runs", up);
    assert_int_equal(mkdir(up, 0700), 0);
    assert_int_equal(chmod(up, 0777), 0);
    assert_int_equal(rundir_workdir(up, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "--work-dir %s: %s: anyone may write into it and it is not sticky (make it mode 700)",
             up, up);
    assert_string_equal(err, want);
    /* A private folder in it is no better: the one above may swap it. */
    assert_int_equal(mkdir(work, 0700), 0);
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "--work-dir %s: %s: anyone may write", work, up);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);
    assert_int_equal(rundir_new(work, fp, 0, dir, sizeof(dir), err, sizeof(err)), -1);
    assert_string_equal(dir, "");
    assert_int_equal(chmod(up, 0770), 0);
    assert_int_equal(rundir_workdir(up, err, sizeof(err)), -1);
    assert_non_null(strstr(err, ": its group may write into it and it is not sticky"));

    /* The default is held to the same rule. */
    setenv("TMPDIR", up, 1);
    assert_int_equal(rundir_workdir(NULL, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "the work folder %s ($TMPDIR): %s: its group may write", up, up);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);
    assert_int_equal(rundir_new(NULL, fp, 0, dir, sizeof(dir), err, sizeof(err)), -1);
    setenv("TMPDIR", tmp, 1);
    assert_int_equal(rundir_workdir(NULL, err, sizeof(err)), 0);
}

/* Owned by another user (nobody): refused, whichever part of the path it is. */
static void test_workdir_owner(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char other[PATH_MAX], work[PATH_MAX + 8], dir[PATH_MAX], want[PATH_MAX * 2],
        err[PATH_MAX + 256];

    if (geteuid() != 0)
        skip(); /* only root can give a folder away */
    snprintf(other, sizeof(other), "%s/nobodys", tmp);
    snprintf(work, sizeof(work), "%s/runs", other);
    assert_int_equal(mkdir(other, 0700), 0);
    assert_int_equal(mkdir(work, 0700), 0);
    assert_int_equal(chown(other, OTHER_UID, OTHER_UID), 0);
    assert_int_equal(rundir_workdir(other, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "--work-dir %s: %s belongs to uid %d, not to this agent's user (uid 0) or root: "
             "its owner could swap the scripts the agent runs",
             other, other, OTHER_UID);
    assert_string_equal(err, want);
    /* Ours, but under nobody's. */
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "--work-dir %s: %s belongs to uid %d", work, other, OTHER_UID);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);
    assert_int_equal(rundir_new(work, fp, 0, dir, sizeof(dir), err, sizeof(err)), -1);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);
    /* Even sticky, as /tmp: the owner may still do anything in it. */
    assert_int_equal(chmod(other, 01777), 0);
    assert_int_equal(rundir_workdir(other, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "belongs to uid 65534"));
}

/* A link anywhere on the way: refused, naming the link and where it leads. */
static void test_workdir_link(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char real[PATH_MAX], link[PATH_MAX], work[PATH_MAX + 8], dir[PATH_MAX], want[PATH_MAX * 3],
        err[PATH_MAX * 2];

    snprintf(real, sizeof(real), "%s/real", tmp);
    snprintf(link, sizeof(link), "%s/link", tmp);
    snprintf(work, sizeof(work), "%s/runs", link);
    assert_int_equal(mkdir(real, 0700), 0);
    assert_int_equal(symlink(real, link), 0);
    assert_int_equal(rundir_workdir(link, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "--work-dir %s: %s is a symbolic link (to %s): give the folder's own path, every "
             "part of it a real folder",
             link, link, real);
    assert_string_equal(err, want);
    /* Not made through the link either. */
    assert_int_equal(rundir_workdir(work, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "--work-dir %s: %s is a symbolic link", work, link);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);
    snprintf(want, sizeof(want), "%s/runs", real);
    assert_false(exists(want));
    assert_int_equal(rundir_new(link, fp, 0, dir, sizeof(dir), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "is a symbolic link"));
    assert_int_equal(rundir_workdir(real, err, sizeof(err)), 0);
}

/* The run folder is ours, mode 0700 whatever the umask, and its descriptor
 * is the folder its path names. */
static void test_private(void **state)
{
    char dir[PATH_MAX], err[ERR_MAX];
    struct stat byfd, bypath;
    mode_t old = umask(0);
    int fd = rundir_new(NULL, NULL, 0, dir, sizeof(dir), err, sizeof(err));

    umask(old);
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &byfd), 0);
    assert_int_equal(byfd.st_uid, geteuid());
    assert_int_equal(byfd.st_mode & 07777, 0700);
    assert_int_equal(lstat(dir, &bypath), 0);
    assert_true(S_ISDIR(bypath.st_mode));
    assert_int_equal(byfd.st_ino, bypath.st_ino);
    assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    rundir_remove(fd, dir);
    assert_false(exists(dir));
    close(fd);
}

/* A link planted in the run folder before the bundle is written there is
 * not followed: the file it points to is left alone. */
static void test_planted_link(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char dir[PATH_MAX], path[PATH_MAX + 16], victim[PATH_MAX], err[ERR_MAX], buf[16] = "";
    FILE *in;
    int fd = rundir_new(NULL, NULL, 0, dir, sizeof(dir), err, sizeof(err));

    assert_true(fd >= 0);
    snprintf(victim, sizeof(victim), "%s/victim", tmp);
    put(victim, "intact");
    snprintf(path, sizeof(path), "%s/main.lua", dir);
    assert_int_equal(symlink(victim, path), 0);
    f.path = (char *)"main.lua";
    f.data.data = (uint8_t *)"os.exit(1)";
    f.data.len = 10;
    assert_int_equal(bundle_unpack(fp, 1, fd, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "create main.lua: "));
    in = fopen(victim, "r");
    assert_non_null(in);
    assert_non_null(fgets(buf, sizeof(buf), in));
    fclose(in);
    assert_string_equal(buf, "intact");
    /* Removing the run folder removes the link, not what it points to. */
    rundir_remove(fd, dir);
    close(fd);
    assert_false(exists(dir));
    assert_true(exists(victim));
}

/* The removal goes through the run folder's descriptor: a folder put at its
 * path instead is not touched, and the run's files are gone all the same. */
static void test_remove_by_descriptor(void **state)
{
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    char dir[PATH_MAX], moved[PATH_MAX + 8], path[PATH_MAX + 32], err[ERR_MAX];
    int fd;

    f.path = (char *)"users.csv";
    f.data.data = (uint8_t *)"secret";
    f.data.len = 6;
    fd = rundir_new(NULL, fp, 1, dir, sizeof(dir), err, sizeof(err));
    assert_true(fd >= 0);
    snprintf(moved, sizeof(moved), "%s.moved", dir);
    assert_int_equal(rename(dir, moved), 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof(path), "%s/other.txt", dir);
    put(path, "not the run's");
    rundir_remove(fd, dir);
    close(fd);
    assert_true(exists(path));
    snprintf(path, sizeof(path), "%s/users.csv", moved);
    assert_false(exists(path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_new_and_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workdir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workdir_writable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workdir_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workdir_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_private, setup, teardown),
        cmocka_unit_test_setup_teardown(test_planted_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove_by_descriptor, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
