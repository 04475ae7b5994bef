#include "common/ofile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h> /* realpath */
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"

/* Temporary names tried before giving up (each taken name is another
 * process's or a leftover). */
#define OFILE_TRIES 64

/* A stream socket's path, connected to: 0 with o->fd, or -1 with errno. */
static int open_socket(ofile *o, const char *path)
{
    struct sockaddr_un sa;
    int fd;

    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path));
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    o->fd = fd;
    return 0;
}

/* A temporary file beside path: o->tmp and o->fd, with the bits of perm
 * (0666 less the umask when perm is -1). 0, or -1 with errno. */
static int open_temp(ofile *o, const char *path, int perm)
{
    static unsigned seq;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    size_t n = strlen(path) + 40;

    o->tmp = xmalloc(n);
    for (int i = 0; i < OFILE_TRIES; i++) {
        snprintf(o->tmp, n, "%.*s.%s.tmp%ld.%u", (int)dirlen, path, path + dirlen, (long)getpid(),
                 seq++);
        /* created 0666: the kernel applies the umask, as for a new file */
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (o->fd >= 0)
            break;
        if (errno != EEXIST)
            break;
    }
    if (o->fd < 0) {
        int e = errno;
        xfree(o->tmp);
        o->tmp = NULL;
        errno = e;
        return -1;
    }
    if (perm >= 0 && fchmod(o->fd, (mode_t)perm) != 0) {
        int e = errno;
        close(o->fd);
        unlink(o->tmp);
        xfree(o->tmp);
        o->tmp = NULL;
        o->fd = -1;
        errno = e;
        return -1;
    }
    return 0;
}

/* Opens what exists at target (st its kind), or creates it. 0, or -1 with
 * errno and err. */
static int open_target(ofile *o, const char *shown, const char *target, const struct stat *st,
                       char *err, size_t errlen)
{
    int rc;

    if (st == NULL) {
        rc = open_temp(o, target, -1);
    } else if (S_ISREG(st->st_mode)) {
        if (o->mode == OFILE_NEW) {
            errno = EEXIST;
            err_set(err, errlen, "%s: %s (not overwritten)", shown, strerror(errno));
            return -1;
        }
        rc = open_temp(o, target, (int)(st->st_mode & 07777));
    } else if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode)) {
        /* written through: a FIFO's open waits for its reader, as a shell's does */
        o->fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        rc = o->fd >= 0 ? 0 : -1;
    } else if (S_ISSOCK(st->st_mode)) {
        rc = open_socket(o, target);
    } else if (S_ISDIR(st->st_mode)) {
        errno = EISDIR;
        rc = -1;
    } else {
        err_set(err, errlen, "%s: a block device or special file (refused: not written onto)",
                shown);
        errno = EINVAL;
        return -1;
    }
    if (rc != 0)
        err_set(err, errlen, "%s: %s", shown, strerror(errno));
    return rc;
}

int ofile_open(ofile *o, const char *path, int mode, char *err, size_t errlen)
{
    struct stat st;
    char real[PATH_MAX];
    const char *target = path;
    int rc = -1, e;

    memset(o, 0, sizeof(*o));
    o->fd = -1;
    o->mode = mode;
    if (path == NULL || path[0] == '\0') {
        errno = ENOENT;
        err_set(err, errlen, "an empty path");
        return -1;
    }
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) {
            err_set(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        rc = open_target(o, path, path, NULL, err, errlen);
        goto out;
    }
    if (S_ISLNK(st.st_mode)) {
        if (mode == OFILE_NEW) {
            errno = EEXIST;
            err_set(err, errlen, "%s: %s (not overwritten)", path, strerror(errno));
            return -1;
        }
        const char *r = realpath(path, real);
        if (r == NULL && errno != ENOENT) {
            err_set(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        if (r == NULL) {
            /* nothing at the link's end: created through the link */
            o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
            rc = o->fd >= 0 ? 0 : -1;
            if (rc != 0)
                err_set(err, errlen, "%s: %s", path, strerror(errno));
            goto out;
        }
        target = real;
        if (stat(target, &st) != 0) {
            err_set(err, errlen, "%s: %s", path, strerror(errno));
            goto out;
        }
    }
    rc = open_target(o, path, target, &st, err, errlen);
out:
    e = errno;
    if (rc == 0)
        o->path = xstrdup(target);
    errno = e;
    return rc;
}

FILE *ofile_stream(ofile *o)
{
    if (o->f == NULL && o->fd >= 0)
        o->f = fdopen(o->fd, "w");
    return o->f;
}

/* Closes o's descriptor (its stream with it): 0, or -1 with errno. */
static int close_fd(ofile *o)
{
    int rc = 0;

    if (o->f != NULL) {
        rc = ferror(o->f) ? -1 : 0;
        if (rc != 0)
            errno = EIO;
        if (fclose(o->f) != 0)
            rc = -1;
    } else if (o->fd >= 0 && close(o->fd) != 0) {
        rc = -1;
    }
    o->f = NULL;
    o->fd = -1;
    return rc;
}

/* The temporary file onto o->path: renamed, or linked for OFILE_NEW. */
static int place(ofile *o)
{
    if (o->mode != OFILE_NEW)
        return rename(o->tmp, o->path);
    if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    /* a file system without RENAME_NOREPLACE: link fails on an existing path too */
    if (link(o->tmp, o->path) != 0)
        return -1;
    unlink(o->tmp);
    return 0;
}

static void forget(ofile *o)
{
    xfree(o->path);
    xfree(o->tmp);
    o->path = NULL;
    o->tmp = NULL;
}

int ofile_commit(ofile *o, char *err, size_t errlen)
{
    int rc = 0;

    if (o->path == NULL) {
        err_set(err, errlen, "an output file closed twice");
        return -1;
    }
    if (o->f != NULL && fflush(o->f) != 0)
        rc = -1;
    if (rc == 0 && o->tmp != NULL && fsync(o->fd) != 0)
        rc = -1;
    if (close_fd(o) != 0)
        rc = -1;
    if (rc == 0 && o->tmp != NULL && place(o) != 0)
        rc = -1;
    if (rc != 0) {
        err_set(err, errlen, "%s: %s%s", o->path, strerror(errno),
                errno == EEXIST ? " (not overwritten)" : "");
        if (o->tmp != NULL)
            unlink(o->tmp);
    }
    forget(o);
    return rc;
}

void ofile_abort(ofile *o)
{
    if (o->path == NULL)
        return;
    close_fd(o);
    if (o->tmp != NULL)
        unlink(o->tmp);
    forget(o);
}

int ofile_put(const char *path, int mode, const void *p, size_t n, char *err, size_t errlen)
{
    ofile o;
    const char *c = p;

    if (ofile_open(&o, path, mode, err, errlen) != 0)
        return -1;
    while (n > 0) {
        ssize_t w = write(o.fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err_set(err, errlen, "%s: %s", o.path, w < 0 ? strerror(errno) : "nothing written");
            ofile_abort(&o);
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return ofile_commit(&o, err, errlen);
}
