#include "worker/wire/wfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"

int wfile_open(wfile *f, const char *path, size_t cap, char *err, size_t errlen)
{
    memset(f, 0, sizeof(*f));
    f->fd = -1;
    if (cap < WFILE_LINE_MAX) {
        err_set(err, errlen, "%s: buffer too small", path);
        return -1;
    }
    f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        err_set(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    f->buf = xmalloc(cap);
    f->cap = cap;
    return 0;
}

int wfile_flush(wfile *f)
{
    size_t off = 0;

    if (f->fd < 0 || f->err != 0) {
        f->len = 0;
        return f->err != 0 ? -1 : 0;
    }
    while (off < f->len) {
        ssize_t n = write(f->fd, f->buf + off, f->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            f->err = n < 0 ? errno : EIO;
            f->len = 0;
            return -1;
        }
        off += (size_t)n;
    }
    f->flushes++;
    f->len = 0;
    return 0;
}

char *wfile_reserve(wfile *f)
{
    if (f->fd < 0 || f->err != 0) {
        f->dropped++;
        return NULL;
    }
    if (f->cap - f->len < WFILE_LINE_MAX && wfile_flush(f) != 0) {
        f->dropped++;
        return NULL;
    }
    return f->buf + f->len;
}

void wfile_commit(wfile *f, size_t n)
{
    f->len += n < WFILE_LINE_MAX ? n : WFILE_LINE_MAX;
    f->lines++;
}

void wfile_append(wfile *f, const char *p, size_t n)
{
    while (n > 0 && f->fd >= 0 && f->err == 0) {
        size_t room = f->cap - f->len, k = n < room ? n : room;
        memcpy(f->buf + f->len, p, k);
        f->len += k;
        p += k;
        n -= k;
        if (f->len == f->cap && wfile_flush(f) != 0)
            return;
    }
}

int wfile_close(wfile *f)
{
    int rc = 0;

    if (f->fd >= 0) {
        rc = wfile_flush(f);
        if (close(f->fd) != 0 && rc == 0) {
            f->err = errno;
            rc = -1;
        }
        f->fd = -1;
    }
    xfree(f->buf);
    f->buf = NULL;
    f->len = f->cap = 0;
    return f->err != 0 ? -1 : rc;
}
