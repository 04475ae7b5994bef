/* Unit tests for common/ofile: a new path or a regular file is written into
 * a temporary file and renamed (nothing at the path until the commit, the old
 * file kept on an abort or a failure, its mode kept), a FIFO and a Unix
 * socket are written through and stay what they were, a symbolic link is
 * followed and stays a link, a directory is refused, OFILE_NEW never
 * replaces a file or a link, and no temporary file is left behind. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/err.h"
#include "common/ofile.h"

static char dir[64];

static int setup(void **state)
{
    snprintf(dir, sizeof(dir), "/tmp/quern-ofile.XXXXXX");
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void in_dir(char *path, size_t len, const char *name)
{
    snprintf(path, len, "%s/%s", dir, name);
}

/* The whole file at path, NUL-terminated, into buf. */
static const char *slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n;

    assert_non_null(f);
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Names in the folder that begin with a dot (temporary files). */
static int hidden_files(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* A new path: nothing there until the commit, then the bytes. */
static void test_new_path(void **state)
{
    char path[PATH_MAX], buf[64], err[ERR_MAX];
    struct stat st;
    ofile o;
    mode_t old = umask(022);

    in_dir(path, sizeof(path), "new.txt");
    assert_int_equal(ofile_open(&o, path, OFILE_REPLACE, err, sizeof(err)), 0);
    assert_non_null(o.tmp);
    fputs("hello", ofile_stream(&o));
    assert_int_equal(access(path, F_OK), -1); /* not yet */
    assert_int_equal(ofile_commit(&o, err, sizeof(err)), 0);
    assert_string_equal(slurp(path, buf, sizeof(buf)), "hello");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* 0666 less the umask */
    assert_int_equal(hidden_files(), 0);
    umask(old);
}

/* A regular file is replaced whole, keeps its mode; an abort keeps it as it was. */
static void test_replace_and_abort(void **state)
{
    char path[PATH_MAX], buf[64], err[ERR_MAX];
    struct stat st;
    ofile o;

    in_dir(path, sizeof(path), "old.txt");
    assert_int_equal(ofile_put(path, OFILE_REPLACE, "first", 5, err, sizeof(err)), 0);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(ofile_open(&o, path, OFILE_REPLACE, err, sizeof(err)), 0);
    fputs("half", ofile_stream(&o));
    fflush(o.f);
    assert_string_equal(slurp(path, buf, sizeof(buf)), "first"); /* readers see the old one */
    ofile_abort(&o);
    assert_string_equal(slurp(path, buf, sizeof(buf)), "first");
    assert_int_equal(hidden_files(), 0);
    assert_int_equal(ofile_put(path, OFILE_REPLACE, "second", 6, err, sizeof(err)), 0);
    assert_string_equal(slurp(path, buf, sizeof(buf)), "second");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    ofile_abort(&o); /* closed already: nothing */
}

struct reader {
    char path[PATH_MAX];
    char got[256];
    int sock; /* a listening socket to accept from, or -1 for a FIFO */
};

static void *read_all(void *arg)
{
    struct reader *r = arg;
    int fd = r->sock >= 0 ? accept(r->sock, NULL, NULL) : open(r->path, O_RDONLY);
    size_t n = 0;
    ssize_t k;

    if (fd < 0)
        return NULL;
    while (n + 1 < sizeof(r->got)) {
        k = read(fd, r->got + n, sizeof(r->got) - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    r->got[n] = '\0';
    close(fd);
    return NULL;
}

/* A FIFO is written through, stays a FIFO, its reader gets every byte;
 * OFILE_NEW writes through it too. */
static void test_fifo(void **state)
{
    struct reader r = {.sock = -1};
    char err[ERR_MAX];
    struct stat st;
    pthread_t t;

    for (int mode = OFILE_REPLACE; mode <= OFILE_NEW; mode++) {
        in_dir(r.path, sizeof(r.path), mode == OFILE_NEW ? "fifo-new" : "fifo");
        assert_int_equal(mkfifo(r.path, 0600), 0);
        assert_int_equal(pthread_create(&t, NULL, read_all, &r), 0);
        assert_int_equal(ofile_put(r.path, mode, "through a pipe", 14, err, sizeof(err)), 0);
        pthread_join(t, NULL);
        assert_string_equal(r.got, "through a pipe");
        assert_int_equal(lstat(r.path, &st), 0);
        assert_true(S_ISFIFO(st.st_mode));
    }
    assert_int_equal(hidden_files(), 0);
}

/* A Unix stream socket is connected to and written through. */
static void test_socket(void **state)
{
    struct reader r;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    char err[ERR_MAX];
    struct stat st;
    pthread_t t;

    in_dir(r.path, sizeof(r.path), "sock");
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", r.path);
    r.sock = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(r.sock >= 0);
    assert_int_equal(bind(r.sock, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(r.sock, 1), 0);
    assert_int_equal(pthread_create(&t, NULL, read_all, &r), 0);
    assert_int_equal(ofile_put(r.path, OFILE_REPLACE, "to a socket", 11, err, sizeof(err)), 0);
    pthread_join(t, NULL);
    close(r.sock);
    assert_string_equal(r.got, "to a socket");
    assert_int_equal(lstat(r.path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
}

/* A character device made here (as root) is written through and stays one. */
static void test_device(void **state)
{
    char path[PATH_MAX], err[ERR_MAX];
    struct stat st;

    in_dir(path, sizeof(path), "null");
    if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0)
        skip(); /* not root: tests/e2e/outfiles.sh makes one with sudo */
    assert_int_equal(ofile_put(path, OFILE_REPLACE, "gone", 4, err, sizeof(err)), 0);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(hidden_files(), 0);
}

/* A link is followed and stays a link; one to nothing makes its target. */
static void test_links(void **state)
{
    char link[PATH_MAX], target[PATH_MAX], dang[PATH_MAX], made[PATH_MAX];
    char buf[64], err[ERR_MAX];
    struct stat st;

    in_dir(target, sizeof(target), "target.txt");
    in_dir(link, sizeof(link), "link.txt");
    in_dir(dang, sizeof(dang), "dangling.txt");
    in_dir(made, sizeof(made), "made.txt");
    assert_int_equal(ofile_put(target, OFILE_REPLACE, "old", 3, err, sizeof(err)), 0);
    assert_int_equal(symlink("target.txt", link), 0);
    assert_int_equal(ofile_put(link, OFILE_REPLACE, "new", 3, err, sizeof(err)), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(slurp(target, buf, sizeof(buf)), "new");
    assert_int_equal(symlink("made.txt", dang), 0);
    assert_int_equal(ofile_put(dang, OFILE_REPLACE, "made", 4, err, sizeof(err)), 0);
    assert_int_equal(lstat(dang, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(slurp(made, buf, sizeof(buf)), "made");
    assert_int_equal(hidden_files(), 0);
}

/* OFILE_NEW: a new path is made; a file or a link is refused, untouched. */
static void test_new_only(void **state)
{
    char path[PATH_MAX], link[PATH_MAX], buf[64], err[ERR_MAX];
    ofile o;

    in_dir(path, sizeof(path), "script.lua");
    in_dir(link, sizeof(link), "script-link.lua");
    assert_int_equal(ofile_put(path, OFILE_NEW, "one", 3, err, sizeof(err)), 0);
    assert_int_equal(ofile_put(path, OFILE_NEW, "two", 3, err, sizeof(err)), -1);
    assert_int_equal(errno, EEXIST);
    assert_non_null(strstr(err, "not overwritten"));
    assert_non_null(strstr(err, path));
    assert_string_equal(slurp(path, buf, sizeof(buf)), "one");
    assert_int_equal(symlink("script.lua", link), 0);
    assert_int_equal(ofile_open(&o, link, OFILE_NEW, err, sizeof(err)), -1);
    assert_int_equal(errno, EEXIST);
    /* a path taken between the open and the commit is not replaced either */
    in_dir(path, sizeof(path), "raced.lua");
    assert_int_equal(ofile_open(&o, path, OFILE_NEW, err, sizeof(err)), 0);
    fputs("mine", ofile_stream(&o));
    assert_int_equal(ofile_put(path, OFILE_REPLACE, "theirs", 6, err, sizeof(err)), 0);
    assert_int_equal(ofile_commit(&o, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not overwritten"));
    assert_string_equal(slurp(path, buf, sizeof(buf)), "theirs");
    assert_int_equal(hidden_files(), 0);
}

/* A directory, a missing folder and an empty path: refused, with the path. */
static void test_refused(void **state)
{
    char path[PATH_MAX], err[ERR_MAX];
    ofile o;

    assert_int_equal(ofile_open(&o, dir, OFILE_REPLACE, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "Is a directory"));
    assert_non_null(strstr(err, dir));
    in_dir(path, sizeof(path), "no/such/folder.html");
    assert_int_equal(ofile_open(&o, path, OFILE_REPLACE, err, sizeof(err)), -1);
    assert_non_null(strstr(err, path));
    assert_int_equal(ofile_open(&o, "", OFILE_REPLACE, err, sizeof(err)), -1);
    ofile_abort(&o); /* a failed open leaves nothing to close */
    assert_int_equal(hidden_files(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_path), cmocka_unit_test(test_replace_and_abort),
        cmocka_unit_test(test_fifo),     cmocka_unit_test(test_socket),
        cmocka_unit_test(test_device),   cmocka_unit_test(test_links),
        cmocka_unit_test(test_new_only), cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
