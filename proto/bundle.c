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
#include "common/ignore.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/version.h"

/* ---------------------------------------------------------------- packing */

/* One file of this run the folder may hold (--jtl, --token-file, ...). */
typedef struct own_file {
    dev_t dev;
    ino_t ino;
    int kind; /* BUNDLE_SKIP_OUTPUT or BUNDLE_SKIP_SECRET */
} own_file;

/* What one walk needs besides the bundle. */
typedef struct walk {
    bundle *b;        /* borrowed: the bundle being filled */
    const char *root; /* borrowed: the folder as given */
    const char *real; /* borrowed: its real path */
    int local;        /* listing for the local agent: no size limit, no data read */
    ignore *ig;       /* owned by bundle_pack: the folder's .quernignore, or NULL */
    own_file *own;    /* owned by bundle_pack: the run's own files that exist */
    size_t nown;
    uint64_t *sizes; /* owned by bundle_pack: each file's size, by index in b->files */
} walk;

static int has_suffix(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    return n > e && strcmp(name + n - e, ext) == 0;
}

/* An HTML page written by `quern report` or `quern compare`: its head
 * carries quern's generator mark within its first bytes (reports/html.c),
 * which no page of the tester's carries by accident. */
static int is_report(const char *full, const char *name)
{
    char head[512];
    ssize_t n;
    int fd;

    if (!has_suffix(name, ".html") && !has_suffix(name, ".htm"))
        return 0;
    fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    n = read(fd, head, sizeof(head) - 1);
    close(fd);
    head[n > 0 ? n : 0] = '\0';
    return strstr(head, QUERN_HTML_GENERATOR_PREFIX) != NULL;
}

/* Why a file at full (name its last component, st its stat) is never
 * shipped: BUNDLE_SKIP_OUTPUT for what quern writes (this run's files, the
 * results an earlier run left: JTL, databases, logs, reports),
 * BUNDLE_SKIP_SECRET for a token; -1 when it may be. */
static int own_kind(const walk *w, const char *full, const char *name, const struct stat *st)
{
    static const char *const ext[] = {".jtl", ".db", ".db-wal", ".db-shm", ".db-journal", ".log"};

    for (size_t i = 0; i < w->nown; i++)
        if (w->own[i].dev == st->st_dev && w->own[i].ino == st->st_ino)
            return w->own[i].kind;
    if (S_ISDIR(st->st_mode))
        return -1;
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
        if (has_suffix(name, ext[i]))
            return BUNDLE_SKIP_OUTPUT;
    if (strncmp(name, "quern-results.db", 16) == 0)
        return BUNDLE_SKIP_OUTPUT;
    /* a token file: its name says so and only its owner may read it */
    if (strcasestr(name, "token") != NULL && (st->st_mode & 077) == 0)
        return BUNDLE_SKIP_SECRET;
    return is_report(full, name) ? BUNDLE_SKIP_OUTPUT : -1;
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

/* 1 when the real path target is the folder real or under it. */
static int path_inside(const char *real, const char *target)
{
    size_t len = strlen(real);
    return strcmp(real, "/") == 0 ||
           (strncmp(target, real, len) == 0 && (target[len] == '\0' || target[len] == '/'));
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

    if (realpath(full, target) == NULL)
        return 1;
    if (path_inside(real, target))
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

/* Lists the file relp (st its stat) in the bundle, without its data. */
static void add_file(walk *w, const char *relp, const struct stat *st)
{
    bundle *b = w->b;
    Quern__BundleFile *f = xmalloc(sizeof(*f));

    quern__bundle_file__init(f);
    f->path = xstrdup(relp);
    f->mode = st->st_mode & 0755;
    b->files = xreallocarray(b->files, (b->nfiles + 1), sizeof(*b->files));
    w->sizes = xreallocarray(w->sizes, (b->nfiles + 1), sizeof(*w->sizes));
    w->sizes[b->nfiles] = (uint64_t)st->st_size;
    b->files[b->nfiles++] = f;
    b->bytes += (size_t)st->st_size;
    b->path_bytes += strlen(relp);
}

/* Adds the files under root/rel (rel "" for root itself), depth-limited. */
static int bundle_walk(walk *w, const char *rel, int depth, char *err, size_t errlen)
{
    char dirpath[PATH_MAX];
    DIR *dir;
    struct dirent *de;
    int rc = 0;

    snprintf(dirpath, sizeof(dirpath), "%s%s%s", w->root, rel[0] ? "/" : "", rel);
    dir = opendir(dirpath);
    if (dir == NULL) {
        err_set(err, errlen, "cannot read folder %s: %s", dirpath, strerror(errno));
        return -1;
    }
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        char relp[BUNDLE_PATH_MAX + 1], full[PATH_MAX];
        struct stat st;
        int kind;

        if (de->d_name[0] == '.') /* hidden: .git, .env, .quernignore itself */
            continue;
        if ((size_t)snprintf(relp, sizeof(relp), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) >=
            sizeof(relp))
            continue;
        snprintf(full, sizeof(full), "%s/%s", w->root, relp);
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            int in = link_inside(w->root, w->real, full, relp, err, errlen);
            if (in < 0) {
                rc = -1;
                break;
            }
            if (in > 0 || stat(full, &st) != 0)
                continue;
        }
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
            continue;
        kind = own_kind(w, full, de->d_name, &st);
        if (kind < 0 && ignore_match(w->ig, relp, S_ISDIR(st.st_mode)))
            kind = BUNDLE_SKIP_IGNORE;
        if (kind >= 0) {
            w->b->skipped[kind]++;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (depth < BUNDLE_DEPTH_MAX)
                rc = bundle_walk(w, relp, depth + 1, err, errlen);
            continue;
        }
        if (w->b->nfiles >= BUNDLE_LOCAL_MAX_FILES) {
            err_set(err, errlen,
                    "the scenario's folder %s holds more than %d files: move data elsewhere or "
                    "add folders to %s/" BUNDLE_IGNORE_FILE,
                    w->root, BUNDLE_LOCAL_MAX_FILES, w->root);
            rc = -1;
            break;
        }
        add_file(w, relp, &st);
    }
    closedir(dir);
    return rc;
}

/* Reads root/.quernignore when there is one: 0 (w->ig set or left NULL),
 * or -1 with err "ROOT/.quernignore:LINE: why". */
static int load_ignore(walk *w, char *err, size_t errlen)
{
    char path[PATH_MAX], *text;
    struct stat st;
    int rc;

    snprintf(path, sizeof(path), "%s/" BUNDLE_IGNORE_FILE, w->root);
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        err_set(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > IGNORE_FILE_MAX) {
        err_set(err, errlen, "%s: %s", path,
                S_ISREG(st.st_mode) ? "larger than 256 KiB" : "not a regular file");
        return -1;
    }
    if (read_whole(path, (size_t)st.st_size, (uint8_t **)&text, err, errlen) != 0)
        return -1;
    w->ig = ignore_parse(text, (size_t)st.st_size, path, err, errlen);
    rc = w->ig != NULL ? 0 : -1;
    xfree(text);
    return rc;
}

/* Notes the run's own files that exist, by device and inode: they are
 * left out wherever the folder holds them, under whatever name. */
static void note_own(walk *w, const char *const *paths, size_t n, int kind)
{
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};

    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; paths[i] != NULL && k < sizeof(side) / sizeof(side[0]); k++) {
            char p[PATH_MAX];
            struct stat st;
            snprintf(p, sizeof(p), "%s%s", paths[i], side[k]);
            if (stat(p, &st) != 0)
                continue;
            w->own = xreallocarray(w->own, (w->nown + 1), sizeof(*w->own));
            w->own[w->nown].dev = st.st_dev;
            w->own[w->nown].ino = st.st_ino;
            w->own[w->nown++].kind = kind;
        }
    }
}

/* "the scenario's folder ... is too big ...: its largest files a 20.0 MiB,
 * ...; add them to .quernignore", one line. */
static void too_big(const walk *w, char *err, size_t errlen)
{
    const bundle *b = w->b;
    size_t top[5], ntop = 0;

    for (size_t i = 0; i < b->nfiles; i++) {
        size_t j = ntop < 5 ? ntop++ : 5;
        if (j == 5 && w->sizes[i] <= w->sizes[top[4]])
            continue;
        if (j == 5)
            j = 4;
        while (j > 0 && w->sizes[top[j - 1]] < w->sizes[i]) {
            top[j] = top[j - 1];
            j--;
        }
        top[j] = i;
    }
    err_set(err, errlen,
            "the scenario's folder %s is too big to ship to agents (%zu files, "
            "%.1f MiB; at most %d files, %u MiB): its largest files",
            w->root, b->nfiles, (double)b->bytes / 1048576.0, BUNDLE_MAX_FILES,
            BUNDLE_MAX_BYTES >> 20);
    for (size_t i = 0; i < ntop; i++)
        err_append(err, errlen, "%s %s %.1f MiB", i ? "," : "", b->files[top[i]]->path,
                   (double)w->sizes[top[i]] / 1048576.0);
    err_append(err, errlen,
               "; add them to %s/" BUNDLE_IGNORE_FILE " or move them out of the folder", w->root);
}

/* The limits of what is shipped, then each file's data. */
static int bundle_fill(walk *w, char *err, size_t errlen)
{
    bundle *b = w->b;
    char full[PATH_MAX];

    if (w->local) {
        if (b->path_bytes + 16 * b->nfiles > BUNDLE_LOCAL_LIST_MAX) {
            err_set(err, errlen, "the scenario's folder %s holds too many files (%zu)", w->root,
                    b->nfiles);
            return -1;
        }
        return 0;
    }
    if (b->nfiles > BUNDLE_MAX_FILES || b->bytes > BUNDLE_MAX_BYTES) {
        too_big(w, err, errlen);
        return -1;
    }
    for (size_t i = 0; i < b->nfiles; i++) {
        Quern__BundleFile *f = b->files[i];
        snprintf(full, sizeof(full), "%s/%s", w->root, f->path);
        if (read_whole(full, (size_t)w->sizes[i], &f->data.data, err, errlen) != 0)
            return -1;
        f->data.len = (size_t)w->sizes[i];
    }
    return 0;
}

int bundle_pack(const char *script, const bundle_opts *o, bundle *b, char *err, size_t errlen)
{
    char *a = xstrdup(script), *s = xstrdup(script);
    char real[PATH_MAX];
    walk w = {b, dirname(a), real, o != NULL && o->local, NULL, NULL, 0, NULL};
    int rc = -1;

    memset(b, 0, sizeof(*b));
    if (o != NULL) {
        note_own(&w, o->outputs, o->noutputs, BUNDLE_SKIP_OUTPUT);
        note_own(&w, o->secrets, o->nsecrets, BUNDLE_SKIP_SECRET);
    }
    if (realpath(w.root, real) == NULL)
        err_set(err, errlen, "cannot read folder %s: %s", w.root, strerror(errno));
    else if (load_ignore(&w, err, errlen) == 0 && bundle_walk(&w, "", 0, err, errlen) == 0)
        rc = bundle_fill(&w, err, errlen);
    snprintf(b->script_name, sizeof(b->script_name), "%s", basename(s));
    snprintf(b->folder, sizeof(b->folder), "%s", real);
    if (rc == 0)
        log_msg(LOG_DEBUG, "bundle: %zu file(s), %zu bytes from %s", b->nfiles, b->bytes, w.root);
    else
        bundle_free(b);
    ignore_free(w.ig);
    xfree(w.own);
    xfree(w.sizes);
    xfree(a);
    xfree(s);
    return rc;
}

char *bundle_describe(const bundle *b, char *buf, size_t len)
{
    static const char *const why[BUNDLE_SKIP_KINDS] = {BUNDLE_IGNORE_FILE, "quern outputs",
                                                       "secrets"};
    size_t all = 0, used;

    used = (size_t)snprintf(buf, len, "%zu files, %zu bytes", b->nfiles, b->bytes);
    for (int k = 0; k < BUNDLE_SKIP_KINDS; k++)
        all += b->skipped[k];
    if (all > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, " (%zu skipped:", all);
    for (int k = 0, first = 1; all > 0 && k < BUNDLE_SKIP_KINDS && used < len; k++) {
        if (b->skipped[k] == 0)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s %s %zu", first ? "" : ",", why[k],
                                 b->skipped[k]);
        first = 0;
    }
    if (all > 0 && used < len)
        snprintf(buf + used, len - used, ")");
    return buf;
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
        b->files = xreallocarray(b->files, (b->nfiles + 1), sizeof(*b->files));
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
 * relative to the one before: nothing is looked up by a path from "/".
 * With link_to, the file is a symbolic link to that path instead of f's
 * data (bundle_link). */
static int write_file(int root, const Quern__BundleFile *f, const char *link_to, char *err,
                      size_t errlen)
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
    if (link_to != NULL) {
        if (symlinkat(link_to, dfd, name) != 0) {
            err_set(err, errlen, "link %s: %s", f->path, strerror(errno));
            goto out;
        }
        rc = 0;
        goto out;
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
        if (write_file(dirfd, files[i], NULL, err, errlen) != 0)
            return -1;
    return 0;
}

int bundle_link(const char *folder, Quern__BundleFile *const *files, size_t n, int dirfd, char *err,
                size_t errlen)
{
    char real[PATH_MAX];

    if (n > BUNDLE_LOCAL_MAX_FILES) {
        err_set(err, errlen, "%zu files, at most %d", n, BUNDLE_LOCAL_MAX_FILES);
        return -1;
    }
    if (folder == NULL || folder[0] != '/' || realpath(folder, real) == NULL) {
        err_set(err, errlen, "cannot read the scenario's folder %.200s: %s",
                folder != NULL ? folder : "", folder != NULL ? strerror(errno) : "none");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char src[PATH_MAX], target[PATH_MAX];
        if (!bundle_path_ok(files[i]->path)) {
            err_set(err, errlen, "refused bundle path \"%.200s\"", files[i]->path);
            return -1;
        }
        if (files[i]->data.len != 0) {
            /* a file the console made for the run (bundle_add: grpc.load's
             * descriptor sets) travels with its bytes: written, not linked */
            if (write_file(dirfd, files[i], NULL, err, errlen) != 0)
                return -1;
            continue;
        }
        /* the same rule as packing: nothing outside the folder */
        snprintf(src, sizeof(src), "%s/%s", real, files[i]->path);
        if (realpath(src, target) == NULL) {
            err_set(err, errlen, "%s: %s", src, strerror(errno));
            return -1;
        }
        if (!path_inside(real, target)) {
            err_set(err, errlen, "%s leads to %s, outside the scenario's folder", src, target);
            return -1;
        }
        if (write_file(dirfd, files[i], target, err, errlen) != 0)
            return -1;
    }
    return 0;
}
