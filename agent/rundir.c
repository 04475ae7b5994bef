#include "agent/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "proto/bundle.h"

#define RUN_PREFIX "quern-run."

/* Where run folders live: the agent's --work-dir, else $TMPDIR when it is an
 * absolute path, else /tmp. */
static const char *rundir_parent(const char *parent)
{
    const char *tmp = getenv("TMPDIR");

    if (parent != NULL)
        return parent;
    return tmp != NULL && tmp[0] == '/' ? tmp : "/tmp";
}

int rundir_workdir(const char *path, char *err, size_t errlen)
{
    struct stat st;

    if (path[0] != '/') {
        err_set(err, errlen, "--work-dir wants an absolute path, got \"%s\"", path);
        return -1;
    }
    if (strlen(path) > PATH_MAX - 64) {
        err_set(err, errlen, "--work-dir: the path is too long");
        return -1;
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        err_set(err, errlen, "--work-dir %s: %s", path, strerror(errno));
        return -1;
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        err_set(err, errlen, "--work-dir %s: not a folder", path);
        return -1;
    }
    /* Others may not swap a run's folder under the agent: a folder anyone
     * can write into must be sticky, as /tmp is. */
    if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
        err_set(err, errlen, "--work-dir %s: anyone may write into it (make it mode 700)", path);
        return -1;
    }
    return 0;
}

int rundir_new(const char *parent, Quern__BundleFile *const *files, size_t n, char *dir,
               size_t dirlen, char *err, size_t errlen)
{
    const char *tmp = rundir_parent(parent);

    dir[0] = '\0';
    if (bundle_check(files, n, err, errlen) != 0)
        return -1;
    snprintf(dir, dirlen, "%s/" RUN_PREFIX "XXXXXX", tmp);
    if (mkdtemp(dir) == NULL) {
        err_set(err, errlen, "mkdtemp %s: %s", dir, strerror(errno));
        dir[0] = '\0';
        return -1;
    }
    if (bundle_unpack(files, n, dir, err, errlen) != 0) {
        rundir_remove(dir);
        dir[0] = '\0';
        return -1;
    }
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

/* The lock alone, without the mark. */
static int hold_lock(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int rundir_hold(const char *dir)
{
    int fd = hold_lock(dir), mark;

    if (fd < 0)
        return -1;
    mark = openat(fd, RUNDIR_HELD, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (mark < 0) {
        close(fd);
        return -1;
    }
    close(mark);
    return fd;
}

int rundir_sweep(const char *parent)
{
    const char *tmp = rundir_parent(parent);
    DIR *d = opendir(tmp);
    struct dirent *de;
    int removed = 0;

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        char path[PATH_MAX], mark[PATH_MAX];
        struct stat st;
        int fd;

        if (strncmp(de->d_name, RUN_PREFIX, strlen(RUN_PREFIX)) != 0 ||
            (size_t)snprintf(path, sizeof(path), "%s/%s", tmp, de->d_name) >= sizeof(path) ||
            (size_t)snprintf(mark, sizeof(mark), "%s/" RUNDIR_HELD, path) >= sizeof(mark))
            continue;
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
            lstat(mark, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        fd = hold_lock(path);
        if (fd < 0)
            continue; /* in use by a live agent or its workers */
        rundir_remove(path);
        close(fd);
        removed++;
    }
    closedir(d);
    return removed;
}

void rundir_remove(const char *dir)
{
    if (dir == NULL || dir[0] == '\0')
        return;
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
