/* pack — the scenario's folder as a bundle; see pack.h. */
#include "console/pack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/bundle.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "console/run.h"

static int pack_skip(const char *name)
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

/* Adds the files under root/rel (rel "" for root itself), depth-limited. */
static int pack_walk(run *r, const char *root, const char *rel, int depth, size_t *total, char *err,
                     size_t errlen)
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

        if (pack_skip(de->d_name))
            continue;
        if ((size_t)snprintf(relp, sizeof(relp), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) >=
            sizeof(relp))
            continue;
        snprintf(full, sizeof(full), "%s/%s", root, relp);
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 8)
                rc = pack_walk(r, root, relp, depth + 1, total, err, errlen);
            continue;
        }
        if (!S_ISREG(st.st_mode))
            continue;
        if (r->nfiles >= BUNDLE_MAX_FILES || *total + (size_t)st.st_size > BUNDLE_MAX_BYTES) {
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
        *total += f->data.len;
        r->files = xrealloc(r->files, (r->nfiles + 1) * sizeof(*r->files));
        r->files[r->nfiles++] = f;
    }
    closedir(dir);
    return rc;
}

int pack_build(run *r, char *err, size_t errlen)
{
    char *a = xstrdup(r->o.script), *b = xstrdup(r->o.script);
    const char *root = dirname(a);
    size_t total = 0;
    int rc = pack_walk(r, root, "", 0, &total, err, errlen);

    snprintf(r->script_name, sizeof(r->script_name), "%s", basename(b));
    if (rc == 0)
        log_msg(LOG_DEBUG, "bundle: %zu file(s), %zu bytes from %s", r->nfiles, total, root);
    xfree(a);
    xfree(b);
    return rc;
}

/* ---------------------------------------------------------------- connections */
