#include "agent/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "proto/bundle.h"

#define RUN_PREFIX "quern-run."
/* Random characters after the prefix, and attempts at a free name. */
#define RUN_RANDOM 6
#define RUN_TRIES 100
/* Deepest folder removed: the bundle's own depth, and what a script may add. */
#define RM_DEPTH_MAX 64

/* Where run folders live: the agent's --work-dir, else $TMPDIR when it is an
 * absolute path, else /tmp. */
static const char *rundir_parent(const char *parent)
{
    const char *tmp = getenv("TMPDIR");

    if (parent != NULL)
        return parent;
    return tmp != NULL && tmp[0] == '/' ? tmp : "/tmp";
}

/* How messages name the folder of run folders. */
static void parent_label(const char *given, const char *path, char *out, size_t len)
{
    if (given != NULL)
        snprintf(out, len, "--work-dir %s", path);
    else if (strcmp(path, "/tmp") == 0)
        snprintf(out, len, "the work folder /tmp");
    else
        snprintf(out, len, "the work folder %s ($TMPDIR)", path);
}

/* One folder on the way (shown is its path so far): a folder, owned by us
 * or root, and written into by nobody else unless sticky, where nobody can
 * rename or remove what is not theirs. */
static int check_folder(int fd, const char *shown, const char *label, char *err, size_t errlen)
{
    struct stat st;
    uid_t me = geteuid();

    if (fstat(fd, &st) != 0) {
        err_set(err, errlen, "%s: %s: %s", label, shown, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        err_set(err, errlen, "%s: %s is not a folder", label, shown);
        return -1;
    }
    if (st.st_uid != me && st.st_uid != 0) {
        err_set(err, errlen,
                "%s: %s belongs to uid %u, not to this agent's user (uid %u) or root: its owner "
                "could swap the scripts the agent runs",
                label, shown, (unsigned)st.st_uid, (unsigned)me);
        return -1;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
        err_set(err, errlen, "%s: %s: %s may write into it and it is not sticky (make it mode 700)",
                label, shown, (st.st_mode & S_IWOTH) != 0 ? "anyone" : "its group");
        return -1;
    }
    return 0;
}

/* Why name, in the folder of fd, could not be opened as a folder. */
static void open_failed(int fd, const char *name, const char *shown, const char *label, int e,
                        char *err, size_t errlen)
{
    struct stat st;
    char real[PATH_MAX];

    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        if (realpath(shown, real) != NULL)
            err_set(err, errlen,
                    "%s: %s is a symbolic link (to %s): give the folder's own path, every part "
                    "of it a real folder",
                    label, shown, real);
        else
            err_set(err, errlen, "%s: %s is a symbolic link: give the folder's own path", label,
                    shown);
    } else if (e == ENOTDIR) {
        err_set(err, errlen, "%s: %s is not a folder", label, shown);
    } else {
        err_set(err, errlen, "%s: %s: %s", label, shown, strerror(e));
    }
}

/* Opens the folder path one component at a time from "/", following no
 * symbolic link and checking each folder (check_folder); the last one is
 * made (mode 0700) when missing if make. Returns its descriptor (readable,
 * close-on-exec), or -1 with err set. */
static int open_checked(const char *path, int make, const char *label, char *err, size_t errlen)
{
    char shown[PATH_MAX] = "", name[NAME_MAX + 1];
    const char *p = path;
    size_t used = 0;
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0 || check_folder(fd, "/", label, err, errlen) != 0)
        goto fail;
    for (;;) {
        size_t len;
        int last, next;

        while (*p == '/')
            p++;
        if (*p == '\0')
            break;
        len = strcspn(p, "/");
        if (len > NAME_MAX || used + len + 2 > sizeof(shown)) {
            err_set(err, errlen, "%s: the path is too long", label);
            goto fail;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        p += len;
        if (strcmp(name, ".") == 0)
            continue;
        if (strcmp(name, "..") == 0) {
            err_set(err, errlen, "%s: a path with \"..\" in it is refused", label);
            goto fail;
        }
        used += (size_t)snprintf(shown + used, sizeof(shown) - used, "/%s", name);
        last = p[strspn(p, "/")] == '\0';
        /* Only search rights are needed on the way; the last is read. */
        next = openat(fd, name, (last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && last && make &&
            (mkdirat(fd, name, 0700) == 0 || errno == EEXIST))
            next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            open_failed(fd, name, shown, label, errno, err, errlen);
            goto fail;
        }
        close(fd);
        fd = next;
        if (check_folder(fd, shown, label, err, errlen) != 0)
            goto fail;
    }
    return fd;
fail:
    if (fd >= 0)
        close(fd);
    return -1;
}

int rundir_workdir(const char *path, char *err, size_t errlen)
{
    const char *dir = rundir_parent(path);
    char label[PATH_MAX + 64];
    int fd;

    if (path != NULL && path[0] != '/') {
        err_set(err, errlen, "--work-dir wants an absolute path, got \"%s\"", path);
        return -1;
    }
    if (strlen(dir) > PATH_MAX - 64) {
        err_set(err, errlen, "%s: the path is too long", path != NULL ? "--work-dir" : "$TMPDIR");
        return -1;
    }
    parent_label(path, dir, label, sizeof(label));
    fd = open_checked(dir, path != NULL, label, err, errlen);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* A name for a run folder: the prefix and RUN_RANDOM letters or digits. */
static void random_name(char *out, size_t len)
{
    static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned counter;
    unsigned char r[RUN_RANDOM];
    char tail[RUN_RANDOM + 1];

    if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
        struct timespec ts;
        unsigned long long x;
        clock_gettime(CLOCK_REALTIME, &ts);
        x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32) ^ counter++;
        for (size_t i = 0; i < sizeof(r); i++, x = x * 6364136223846793005ULL + 1)
            r[i] = (unsigned char)(x >> 56);
    }
    for (size_t i = 0; i < sizeof(r); i++)
        tail[i] = set[r[i] % (sizeof(set) - 1)];
    tail[RUN_RANDOM] = '\0';
    snprintf(out, len, RUN_PREFIX "%s", tail);
}

/* Removes everything inside the folder of fd, following no link (a link is
 * removed, never what it points to). */
static void empty_at(int fd, int depth)
{
    int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *de;

    if (d == NULL) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        int sub;

        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
            fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            unlinkat(fd, de->d_name, 0);
            continue;
        }
        if (depth >= RM_DEPTH_MAX)
            continue;
        sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            continue;
        empty_at(sub, depth + 1);
        close(sub);
        unlinkat(fd, de->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* Makes a fresh folder in the folder of pfd: its name in name, its
 * descriptor returned, or -1 with err set (nothing left behind). */
static int make_private(int pfd, const char *label, char *name, size_t namelen, char *err,
                        size_t errlen)
{
    struct stat st;
    int tries, fd;

    for (tries = 0; tries < RUN_TRIES; tries++) {
        random_name(name, namelen);
        if (mkdirat(pfd, name, 0700) == 0)
            break;
        if (errno != EEXIST) {
            err_set(err, errlen, "%s: cannot make a run folder in it: %s", label, strerror(errno));
            return -1;
        }
    }
    if (tries == RUN_TRIES) {
        err_set(err, errlen, "%s: no free name for a run folder after %d tries", label, RUN_TRIES);
        return -1;
    }
    fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    /* Ours and private, whatever the umask was. */
    if (fd < 0 || fchmod(fd, 0700) != 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
        (st.st_mode & 07777) != 0700) {
        err_set(err, errlen, "%s: the run folder %s is not this agent's private folder", label,
                name);
        if (fd >= 0)
            close(fd);
        unlinkat(pfd, name, AT_REMOVEDIR);
        return -1;
    }
    return fd;
}

int rundir_new(const char *parent, Quern__BundleFile *const *files, size_t n, char *dir,
               size_t dirlen, char *err, size_t errlen)
{
    return rundir_new_from(parent, NULL, files, n, dir, dirlen, err, errlen);
}

int rundir_new_from(const char *parent, const char *folder, Quern__BundleFile *const *files,
                    size_t n, char *dir, size_t dirlen, char *err, size_t errlen)
{
    const char *tmp = rundir_parent(parent);
    char label[PATH_MAX + 64], name[64];
    int pfd = -1, fd = -1;

    dir[0] = '\0';
    if (folder != NULL && folder[0] == '\0')
        folder = NULL;
    if (folder == NULL && bundle_check(files, n, err, errlen) != 0)
        return -1;
    parent_label(parent, tmp, label, sizeof(label));
    pfd = open_checked(tmp, 0, label, err, errlen);
    if (pfd < 0)
        return -1;
    fd = make_private(pfd, label, name, sizeof(name), err, errlen);
    if (fd < 0)
        goto out;
    if ((size_t)snprintf(dir, dirlen, "%s/%s", tmp, name) >= dirlen) {
        err_set(err, errlen, "%s: the path is too long", label);
        goto fail;
    }
    if (folder != NULL ? bundle_link(folder, files, n, fd, err, errlen) != 0
                       : bundle_unpack(files, n, fd, err, errlen) != 0)
        goto fail;
    goto out;
fail:
    empty_at(fd, 0);
    unlinkat(pfd, name, AT_REMOVEDIR);
    close(fd);
    fd = -1;
    dir[0] = '\0';
out:
    close(pfd);
    return fd;
}

int rundir_hold(int fd)
{
    int mark;

    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0)
        return -1;
    mark = openat(fd, RUNDIR_HELD, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (mark < 0) {
        flock(fd, LOCK_UN);
        return -1;
    }
    close(mark);
    return 0;
}

int rundir_sweep(const char *parent)
{
    const char *tmp = rundir_parent(parent);
    int pfd = open_checked(tmp, 0, "", NULL, 0), dfd;
    DIR *d;
    struct dirent *de;
    int removed = 0;

    if (pfd < 0)
        return 0;
    dfd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        if (dfd >= 0)
            close(dfd);
        close(pfd);
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        int fd;

        if (strncmp(de->d_name, RUN_PREFIX, strlen(RUN_PREFIX)) != 0)
            continue;
        fd = openat(pfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        /* Judged by what was opened, not by the name: it may have changed. */
        if (fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
            fstatat(fd, RUNDIR_HELD, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            flock(fd, LOCK_EX | LOCK_NB) != 0) { /* a live agent or its workers hold it */
            close(fd);
            continue;
        }
        empty_at(fd, 0);
        close(fd);
        if (unlinkat(pfd, de->d_name, AT_REMOVEDIR) == 0)
            removed++;
    }
    closedir(d);
    close(pfd);
    return removed;
}

void rundir_remove(int fd, const char *dir)
{
    char parent[PATH_MAX], *slash;
    const char *base;
    struct stat mine, there;
    int pfd, own = fd;

    if (dir == NULL || dir[0] == '\0')
        return;
    if ((size_t)snprintf(parent, sizeof(parent), "%s", dir) >= sizeof(parent) ||
        (slash = strrchr(parent, '/')) == NULL || slash[1] == '\0') {
        if (fd >= 0)
            empty_at(fd, 0);
        return;
    }
    *slash = '\0';
    base = slash + 1;
    pfd = open_checked(parent[0] != '\0' ? parent : "/", 0, "", NULL, 0);
    if (own < 0 && pfd >= 0)
        own = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (own >= 0) {
        empty_at(own, 0);
        /* The name goes only if it still is the folder just emptied. */
        if (pfd >= 0 && fstat(own, &mine) == 0 &&
            fstatat(pfd, base, &there, AT_SYMLINK_NOFOLLOW) == 0 && mine.st_dev == there.st_dev &&
            mine.st_ino == there.st_ino)
            unlinkat(pfd, base, AT_REMOVEDIR);
        if (own != fd)
            close(own);
    }
    if (pfd >= 0)
        close(pfd);
}
