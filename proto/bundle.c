#include "proto/bundle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"

/* ---------------------------------------------------------------- packing */

/* Names never shipped: hidden files, and the results a folder may hold. */
static int bundle_skip(const char *name)
{
    static const char *const ext[] = {".db", ".db-wal", ".db-shm", ".log"};
    size_t n = strlen(name);

    if (name[0] == '.')
        return 1;
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        size_t e = strlen(ext[i]);
        if (n > e && strcmp(name + n - e, ext[i]) == 0)
            return 1;
    }
    return 0;
}

static int read_whole(const char *path, size_t size, uint8_t **out, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint8_t *buf;
    size_t off = 0;

    if (fd < 0) {
        err_set(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    buf = xmalloc(size ? size : 1);
    while (off < size) {
        ssize_t n = read(fd, buf + off, size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err_set(err, errlen, "cannot read %s: %s", path, n < 0 ? strerror(errno) : "short");
            xfree(buf);
            close(fd);
            return -1;
        }
        off += (size_t)n;
    }
    close(fd);
    *out = buf;
    return 0;
}

/* A symbolic link at full (relp under root, whose real path is real): 0 when
 * it leads inside the folder, 1 when it leads nowhere (skipped, as nothing
 * is read), -1 with err set when it leads out of it: a link must not ship
 * a file of the host the folder does not hold (loot -> /etc/shadow). */
static int link_inside(const char *root, const char *real, const char *full, const char *relp,
                       char *err, size_t errlen)
{
    char to[PATH_MAX], target[PATH_MAX];
    ssize_t n;
    size_t len = strlen(real);

    if (realpath(full, target) == NULL)
        return 1;
    if (strcmp(real, "/") == 0 ||
        (strncmp(target, real, len) == 0 && (target[len] == '\0' || target[len] == '/')))
        return 0;
    n = readlink(full, to, sizeof(to) - 1);
    to[n > 0 ? n : 0] = '\0';
    if (strcmp(to, target) == 0)
        err_set(err, errlen,
                "%s/%s is a symbolic link to %s, outside the scenario's folder %s: not shipped "
                "(copy what it points to into the folder)",
                root, relp, target, root);
    else
        err_set(err, errlen,
                "%s/%s is a symbolic link to %s (%s), outside the scenario's folder %s: not "
                "shipped (copy what it points to into the folder)",
                root, relp, to, target, root);
    return -1;
}

/* Adds the files under root/rel (rel "" for root itself), depth-limited;
 * real is root's real path. */
static int bundle_walk(bundle *b, const char *root, const char *real, const char *rel, int depth,
                       char *err, size_t errlen)
{
    char dirpath[PATH_MAX];
    DIR *dir;
    struct dirent *de;
    int rc = 0;

    snprintf(dirpath, sizeof(dirpath), "%s%s%s", root, rel[0] ? "/" : "", rel);
    dir = opendir(dirpath);
    if (dir == NULL) {
        err_set(err, errlen, "cannot read folder %s: %s", dirpath, strerror(errno));
        return -1;
    }
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        char relp[BUNDLE_PATH_MAX + 1], full[PATH_MAX];
        struct stat st;

        if (bundle_skip(de->d_name))
            continue;
        if ((size_t)snprintf(relp, sizeof(relp), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) >=
            sizeof(relp))
            continue;
        snprintf(full, sizeof(full), "%s/%s", root, relp);
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            int in = link_inside(root, real, full, relp, err, errlen);
            if (in < 0) {
                rc = -1;
                break;
            }
            if (in > 0 || stat(full, &st) != 0)
                continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (depth < BUNDLE_DEPTH_MAX)
                rc = bundle_walk(b, root, real, relp, depth + 1, err, errlen);
            continue;
        }
        if (!S_ISREG(st.st_mode))
            continue;
        if (b->nfiles >= BUNDLE_MAX_FILES || b->bytes + (size_t)st.st_size > BUNDLE_MAX_BYTES) {
            err_set(err, errlen,
                    "the scenario's folder %s is too big to ship (at most %d files, %u MiB; "
                    "move data elsewhere)",
                    root, BUNDLE_MAX_FILES, BUNDLE_MAX_BYTES >> 20);
            rc = -1;
            break;
        }
        Quern__BundleFile *f = xmalloc(sizeof(*f));
        quern__bundle_file__init(f);
        if (read_whole(full, (size_t)st.st_size, &f->data.data, err, errlen) != 0) {
            xfree(f);
            rc = -1;
            break;
        }
        f->data.len = (size_t)st.st_size;
        f->path = xstrdup(relp);
        f->mode = st.st_mode & 0755;
        b->bytes += f->data.len;
        b->files = xrealloc(b->files, (b->nfiles + 1) * sizeof(*b->files));
        b->files[b->nfiles++] = f;
    }
    closedir(dir);
    return rc;
}

int bundle_pack(const char *script, bundle *b, char *err, size_t errlen)
{
    char *a = xstrdup(script), *s = xstrdup(script);
    const char *root = dirname(a);
    char real[PATH_MAX];
    int rc = -1;

    memset(b, 0, sizeof(*b));
    if (realpath(root, real) == NULL)
        err_set(err, errlen, "cannot read folder %s: %s", root, strerror(errno));
    else
        rc = bundle_walk(b, root, real, "", 0, err, errlen);
    snprintf(b->script_name, sizeof(b->script_name), "%s", basename(s));
    if (rc == 0)
        log_msg(LOG_DEBUG, "bundle: %zu file(s), %zu bytes from %s", b->nfiles, b->bytes, root);
    else
        bundle_free(b);
    xfree(a);
    xfree(s);
    return rc;
}

int bundle_add(bundle *b, const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    Quern__BundleFile *f = NULL;
    size_t i;

    if (!bundle_path_ok(path)) {
        err_set(err, errlen, "cannot ship %s: not a safe path of the bundle", path);
        return -1;
    }
    for (i = 0; i < b->nfiles; i++)
        if (strcmp(b->files[i]->path, path) == 0)
            break;
    if ((i == b->nfiles && b->nfiles >= BUNDLE_MAX_FILES) ||
        b->bytes - (i < b->nfiles ? b->files[i]->data.len : 0) + len > BUNDLE_MAX_BYTES) {
        err_set(err, errlen, "cannot ship %s: the bundle would pass its limits", path);
        return -1;
    }
    if (i < b->nfiles) {
        f = b->files[i];
        b->bytes -= f->data.len;
        xfree(f->data.data);
    } else {
        f = xmalloc(sizeof(*f));
        quern__bundle_file__init(f);
        f->path = xstrdup(path);
        f->mode = 0644;
        b->files = xrealloc(b->files, (b->nfiles + 1) * sizeof(*b->files));
        b->files[b->nfiles++] = f;
    }
    f->data.data = xmalloc(len ? len : 1);
    memcpy(f->data.data, data, len);
    f->data.len = len;
    b->bytes += len;
    return 0;
}

void bundle_free(bundle *b)
{
    if (b == NULL)
        return;
    for (size_t i = 0; i < b->nfiles; i++) {
        xfree(b->files[i]->path);
        xfree(b->files[i]->data.data);
        xfree(b->files[i]);
    }
    xfree(b->files);
    memset(b, 0, sizeof(*b));
}

/* ---------------------------------------------------------------- unpacking */

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

/* Opens (making it, mode 0700, when missing) the folder name in the folder
 * of dfd, following no link: a link planted there is refused. */
static int open_sub(int dfd, const char *name, const char *rel, char *err, size_t errlen)
{
    int fd;

    if (mkdirat(dfd, name, 0700) != 0 && errno != EEXIST) {
        err_set(err, errlen, "mkdir %s: %s", rel, strerror(errno));
        return -1;
    }
    fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        err_set(err, errlen, "open folder %s: %s", rel, strerror(errno));
    return fd;
}

/* Writes f under the folder of root, each folder on its way made and opened
 * relative to the one before: nothing is looked up by a path from "/". */
static int write_file(int root, const Quern__BundleFile *f, char *err, size_t errlen)
{
    char rel[BUNDLE_PATH_MAX + 1];
    mode_t mode = f->mode != 0 ? (mode_t)(f->mode & 0755) : 0644;
    char *name = rel, *slash;
    int dfd = root, fd = -1;
    size_t off = 0;
    int rc = -1;

    snprintf(rel, sizeof(rel), "%s", f->path); /* bundle_check: at most BUNDLE_PATH_MAX */
    while ((slash = strchr(name, '/')) != NULL) {
        int sub;
        *slash = '\0';
        sub = open_sub(dfd, name, rel, err, errlen);
        *slash = '/';
        if (sub < 0)
            goto out;
        if (dfd != root)
            close(dfd);
        dfd = sub;
        name = slash + 1;
    }
    fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) {
        err_set(err, errlen, "create %s: %s", f->path, strerror(errno));
        goto out;
    }
    while (off < f->data.len) {
        ssize_t n = write(fd, f->data.data + off, f->data.len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err_set(err, errlen, "write %s: %s", f->path, n < 0 ? strerror(errno) : "short");
            goto out;
        }
        off += (size_t)n;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    if (dfd != root)
        close(dfd);
    return rc;
}

int bundle_check(Quern__BundleFile *const *files, size_t n, char *err, size_t errlen)
{
    size_t total = 0;

    if (n > BUNDLE_MAX_FILES) {
        err_set(err, errlen, "bundle has %zu files, at most %d allowed", n, BUNDLE_MAX_FILES);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!bundle_path_ok(files[i]->path)) {
            err_set(err, errlen, "refused bundle path \"%.200s\"", files[i]->path);
            return -1;
        }
        total += files[i]->data.len;
        if (total > BUNDLE_MAX_BYTES) {
            err_set(err, errlen, "bundle larger than %u bytes", BUNDLE_MAX_BYTES);
            return -1;
        }
    }
    return 0;
}

int bundle_unpack(Quern__BundleFile *const *files, size_t n, int dirfd, char *err, size_t errlen)
{
    if (bundle_check(files, n, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (write_file(dirfd, files[i], err, errlen) != 0)
            return -1;
    return 0;
}
