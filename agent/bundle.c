#include "agent/bundle.h"

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

#define RUN_PREFIX "quern-run."

/* Where run folders live: $TMPDIR when it is an absolute path, else /tmp. */
static const char *run_parent(void)
{
    const char *tmp = getenv("TMPDIR");

    return tmp != NULL && tmp[0] == '/' ? tmp : "/tmp";
}

int bundle_path_ok(const char *path)
{
    const char *p = path, *slash;
    size_t len;

    if (path == NULL || path[0] == '\0' || path[0] == '/' || strlen(path) > BUNDLE_PATH_MAX ||
        strchr(path, '\\') != NULL)
        return 0;
    for (;;) {
        slash = strchr(p, '/');
        len = slash != NULL ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        if (slash == NULL)
            return 1;
        p = slash + 1;
    }
}

/* Creates the parent directories of rel under root. */
static int make_parents(const char *root, const char *rel, char *err, size_t errlen)
{
    char path[4096];
    size_t rootlen = strlen(root);

    if (rootlen + strlen(rel) + 2 > sizeof(path)) {
        snprintf(err, errlen, "bundle path too long: %s", rel);
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *s = path + rootlen + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "mkdir %s: %s", path, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    return 0;
}

static int write_file(const char *root, const Quern__BundleFile *f, char *err, size_t errlen)
{
    char path[4096];
    mode_t mode = f->mode != 0 ? (mode_t)(f->mode & 0755) : 0644;
    int fd;
    size_t off = 0;
    int rc = -1;

    if (make_parents(root, f->path, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof(path), "%s/%s", root, f->path);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) {
        snprintf(err, errlen, "create %s: %s", f->path, strerror(errno));
        return -1;
    }
    while (off < f->data.len) {
        ssize_t n = write(fd, f->data.data + off, f->data.len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(err, errlen, "write %s: %s", f->path, strerror(errno));
            goto out;
        }
        off += (size_t)n;
    }
    rc = 0;
out:
    close(fd);
    return rc;
}

int bundle_unpack(Quern__BundleFile *const *files, size_t n, char *dir, size_t dirlen, char *err,
                  size_t errlen)
{
    const char *tmp = run_parent();
    size_t total = 0;

    if (n > BUNDLE_MAX_FILES) {
        snprintf(err, errlen, "bundle has %zu files, at most %d allowed", n, BUNDLE_MAX_FILES);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!bundle_path_ok(files[i]->path)) {
            snprintf(err, errlen, "refused bundle path \"%.200s\"", files[i]->path);
            return -1;
        }
        total += files[i]->data.len;
        if (total > BUNDLE_MAX_BYTES) {
            snprintf(err, errlen, "bundle larger than %u bytes", BUNDLE_MAX_BYTES);
            return -1;
        }
    }
    snprintf(dir, dirlen, "%s/" RUN_PREFIX "XXXXXX", tmp);
    if (mkdtemp(dir) == NULL) {
        snprintf(err, errlen, "mkdtemp %s: %s", dir, strerror(errno));
        dir[0] = '\0';
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (write_file(dir, files[i], err, errlen) != 0) {
            bundle_remove(dir);
            dir[0] = '\0';
            return -1;
        }
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

int bundle_hold(const char *dir)
{
    int fd = hold_lock(dir), mark;

    if (fd < 0)
        return -1;
    mark = openat(fd, BUNDLE_HELD, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (mark < 0) {
        close(fd);
        return -1;
    }
    close(mark);
    return fd;
}

int bundle_sweep(void)
{
    const char *tmp = run_parent();
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
            (size_t)snprintf(mark, sizeof(mark), "%s/" BUNDLE_HELD, path) >= sizeof(mark))
            continue;
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
            lstat(mark, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        fd = hold_lock(path);
        if (fd < 0)
            continue; /* in use by a live agent or its workers */
        bundle_remove(path);
        close(fd);
        removed++;
    }
    closedir(d);
    return removed;
}

void bundle_remove(const char *dir)
{
    if (dir == NULL || dir[0] == '\0')
        return;
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
