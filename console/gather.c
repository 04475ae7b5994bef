#include "console/gather.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/mem.h"
#include "worker/reqlog.h"

#define GATHER_NAME_MAX 200

struct gather {
    int jtl_fd;         /**< owned: -1 when no --jtl */
    char *jtl_path;     /**< owned */
    char *dir;          /**< owned: NULL when no --grinder-logs */
    int err;            /**< errno of the first failed JTL write */
    uint64_t jtl_lines; /**< newlines written */
};

static int write_all(int fd, const uint8_t *p, size_t n, off_t at)
{
    while (n > 0) {
        ssize_t k = at >= 0 ? pwrite(fd, p, n, at) : write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
        if (at >= 0)
            at += k;
    }
    return 0;
}

gather *gather_new(const char *jtl_path, const char *grinder_dir, char *err, size_t errlen)
{
    gather *g = xcalloc(1, sizeof(*g));
    static const char hdr[] = REQLOG_JTL_HEADER "\n";

    g->jtl_fd = -1;
    if (jtl_path != NULL) {
        g->jtl_path = xstrdup(jtl_path);
        g->jtl_fd = open(jtl_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (g->jtl_fd < 0 || write_all(g->jtl_fd, (const uint8_t *)hdr, sizeof(hdr) - 1, -1)) {
            snprintf(err, errlen, "--jtl %s: %s", jtl_path, strerror(errno));
            goto fail;
        }
    }
    if (grinder_dir != NULL) {
        struct stat st;
        if (mkdir(grinder_dir, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "--grinder-logs %s: %s", grinder_dir, strerror(errno));
            goto fail;
        }
        if (stat(grinder_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "--grinder-logs %s: not a directory", grinder_dir);
            goto fail;
        }
        g->dir = xstrdup(grinder_dir);
    }
    return g;
fail:
    gather_free(g);
    return NULL;
}

/* "data_X.log" or "out_X.log", X without '/' nor control characters. */
static int grinder_name_ok(const char *name)
{
    size_t n = strlen(name);

    if (n >= GATHER_NAME_MAX || n < 9 || strcmp(name + n - 4, ".log") != 0)
        return 0;
    if (strncmp(name, "data_", 5) != 0 && strncmp(name, "out_", 4) != 0)
        return 0;
    for (const char *c = name; *c != '\0'; c++)
        if (*c == '/' || *c == '\\' || (unsigned char)*c < 0x20)
            return 0;
    return 1;
}

int gather_part(gather *g, const Quern__FilePart *fp, char *err, size_t errlen)
{
    const char *name = fp->name != NULL ? fp->name : "";

    if (strcmp(name, "jtl") == 0) {
        if (g->jtl_fd < 0 || g->err != 0)
            return 0; /* not asked for, or already failed and reported */
        if (write_all(g->jtl_fd, fp->data.data, fp->data.len, -1) != 0) {
            g->err = errno;
            snprintf(err, errlen, "--jtl %s: %s", g->jtl_path, strerror(errno));
            return -1;
        }
        for (size_t i = 0; i < fp->data.len; i++)
            g->jtl_lines += fp->data.data[i] == '\n';
        return 0;
    }
    if (g->dir == NULL)
        return 0;
    if (!grinder_name_ok(name)) {
        snprintf(err, errlen, "refused a result file named \"%.60s\"", name);
        return -1;
    }
    if (fp->offset > (uint64_t)1 << 50) {
        snprintf(err, errlen, "%s: offset out of range", name);
        return -1;
    }
    {
        char path[PATH_MAX];
        int fd, rc;
        snprintf(path, sizeof(path), "%s/%s", g->dir, name);
        fd = open(path,
                  O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (fp->offset == 0 ? O_TRUNC : 0),
                  0644);
        if (fd < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        rc = write_all(fd, fp->data.data, fp->data.len, (off_t)fp->offset);
        if (rc != 0)
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (close(fd) != 0 && rc == 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            rc = -1;
        }
        return rc;
    }
}

uint64_t gather_jtl_lines(const gather *g)
{
    return g->jtl_lines;
}

int gather_close(gather *g, char *err, size_t errlen)
{
    int rc = g->err != 0 ? -1 : 0;

    if (g->jtl_fd >= 0) {
        if (close(g->jtl_fd) != 0 && rc == 0) {
            snprintf(err, errlen, "--jtl %s: %s", g->jtl_path, strerror(errno));
            rc = -1;
        }
        g->jtl_fd = -1;
    }
    if (rc != 0 && g->err != 0)
        snprintf(err, errlen, "--jtl %s: %s", g->jtl_path, strerror(g->err));
    return rc;
}

void gather_free(gather *g)
{
    if (g == NULL)
        return;
    if (g->jtl_fd >= 0)
        close(g->jtl_fd);
    xfree(g->jtl_path);
    xfree(g->dir);
    xfree(g);
}
