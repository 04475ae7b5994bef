#include "console/gather.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/dbuf.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/ofile.h"
#include "proto/workerfiles.h"

#define GATHER_NAME_MAX 200
#define GATHER_OUT_BUF (64u << 10) /* JTL bytes gathered per write() */

struct gather {
    ofile jtl;          /**< the --jtl file; jtl.fd -1 when none */
    char *jtl_path;     /**< owned */
    char *dir;          /**< owned: NULL when no --grinder-logs */
    int err;            /**< errno of the first failed JTL write */
    uint64_t jtl_lines; /**< newlines written */
    uint32_t *active;   /**< owned: the run's active VUs at the end of each second merged */
    size_t nactive;     /**< seconds below this are merged (or were skipped) */
    size_t cap_active;  /**< entries allocated in active */
    dbuf hold;          /**< JTL lines (with their prefix) waiting for their second, up to
                             GATHER_HOLD_MAX */
    char *out;          /**< owned: JTL bytes not yet written, GATHER_OUT_BUF */
    size_t out_len;
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

/* ---------------------------------------------------------------- the JTL */

static void gather_jtl_flush(gather *g)
{
    if (g->out_len > 0 && g->err == 0 &&
        write_all(g->jtl.fd, (const uint8_t *)g->out, g->out_len, -1) != 0)
        g->err = errno != 0 ? errno : EIO;
    g->out_len = 0;
}

static void gather_jtl_put(gather *g, const char *p, size_t n)
{
    if (g->err != 0)
        return;
    for (size_t i = 0; i < n; i++)
        g->jtl_lines += p[i] == '\n';
    if (g->out_len + n > GATHER_OUT_BUF)
        gather_jtl_flush(g);
    if (n > GATHER_OUT_BUF) {
        if (g->err == 0 && write_all(g->jtl.fd, (const uint8_t *)p, n, -1) != 0)
            g->err = errno != 0 ? errno : EIO;
        return;
    }
    memcpy(g->out + g->out_len, p, n);
    g->out_len += n;
}

/* A worker's line: "SECOND OWN AT\t" then the JTL line, whose grpThreads
 * column starts at AT with "OWN,OWN," (WORKERFILES_JTL_PREFIX). 0 when line (n
 * bytes) is not one; the body is what follows the tab. */
static int gather_jtl_parse(const char *line, size_t n, uint64_t *second, uint32_t *own,
                            const char **body, size_t *body_len, size_t *at, size_t *threads_len)
{
    const char *tab =
        memchr(line, '\t', n < WORKERFILES_JTL_PREFIX_MAX ? n : WORKERFILES_JTL_PREFIX_MAX);
    char pre[WORKERFILES_JTL_PREFIX_MAX], want[32];
    unsigned long long s;
    unsigned long o, a;
    int used = 0, w;

    if (tab == NULL)
        return 0;
    memcpy(pre, line, (size_t)(tab - line));
    pre[tab - line] = '\0';
    if (sscanf(pre, "%llu %lu %lu%n", &s, &o, &a, &used) != 3 || used != tab - line ||
        o > UINT32_MAX)
        return 0;
    *body = tab + 1;
    *body_len = n - (size_t)(tab + 1 - line);
    w = snprintf(want, sizeof(want), "%lu,%lu,", o, o);
    if (a > *body_len || *body_len - a < (size_t)w || memcmp(*body + a, want, (size_t)w) != 0)
        return 0;
    *second = s;
    *own = (uint32_t)o;
    *at = a;
    *threads_len = (size_t)w - 1; /* the comma after allThreads stays */
    return 1;
}

/* Whether the run's count of second k is known. */
static int gather_jtl_known(const gather *g, uint64_t k)
{
    return k < g->nactive || k >= GATHER_SECONDS_MAX;
}

/* The run's active VUs for a sample of second k whose worker had own. */
static uint32_t gather_jtl_threads(const gather *g, uint64_t k, uint32_t own)
{
    uint32_t n = k < g->nactive ? g->active[k] : 0; /* at its end */

    if (k > 0 && k - 1 < g->nactive && g->active[k - 1] > n)
        n = g->active[k - 1]; /* at its start */
    return n > own ? n : own;
}

/* Writes one line (with its newline, if it has one) as the JTL wants it. */
static void gather_jtl_write_line(gather *g, const char *line, size_t n)
{
    uint64_t k;
    uint32_t own;
    const char *body;
    size_t body_len, at, tl;
    char cols[32];
    int c;

    if (!gather_jtl_parse(line, n, &k, &own, &body, &body_len, &at, &tl)) {
        gather_jtl_put(g, line, n); /* not a worker's line: as it came */
        return;
    }
    c = snprintf(cols, sizeof(cols), "%" PRIu32 ",%" PRIu32, gather_jtl_threads(g, k, own),
                 gather_jtl_threads(g, k, own));
    gather_jtl_put(g, body, at);
    gather_jtl_put(g, cols, (size_t)c);
    gather_jtl_put(g, body + at + tl, body_len - at - tl);
}

/* Handles the lines of p (n bytes): written when their second is known,
 * held otherwise (written at once when the hold is full). */
static void gather_jtl_lines_in(gather *g, const char *p, size_t n)
{
    while (n > 0) {
        const char *eol = memchr(p, '\n', n);
        size_t len = eol != NULL ? (size_t)(eol - p) + 1 : n;
        uint64_t k;
        uint32_t own;
        const char *body;
        size_t bl, at, tl;

        if (!gather_jtl_parse(p, len, &k, &own, &body, &bl, &at, &tl) || gather_jtl_known(g, k) ||
            dbuf_put(&g->hold, p, len) != 0)
            gather_jtl_write_line(g, p, len); /* its second known, or the hold full */
        p += len;
        n -= len;
    }
}

/* Writes the held lines whose second is now known (all when every), keeping
 * the others in order. */
static void gather_jtl_release(gather *g, int every)
{
    size_t keep = 0, off = 0;

    while (off < g->hold.len) {
        const char *p = g->hold.p + off, *eol = memchr(p, '\n', g->hold.len - off);
        size_t len = eol != NULL ? (size_t)(eol - p) + 1 : g->hold.len - off;
        uint64_t k;
        uint32_t own;
        const char *body;
        size_t bl, at, tl;

        if (every || !gather_jtl_parse(p, len, &k, &own, &body, &bl, &at, &tl) ||
            gather_jtl_known(g, k)) {
            gather_jtl_write_line(g, p, len);
        } else {
            memmove(g->hold.p + keep, p, len);
            keep += len;
        }
        off += len;
    }
    dbuf_cut(&g->hold, keep);
}

void gather_second(gather *g, uint64_t second, uint32_t active_vus, int late)
{
    if (g == NULL || g->jtl.fd < 0 || second >= GATHER_SECONDS_MAX)
        return;
    if (second >= g->cap_active) {
        size_t cap = g->cap_active ? g->cap_active : 256;
        while (cap <= second)
            cap *= 2;
        g->active = xreallocarray(g->active, cap, sizeof(*g->active));
        memset(g->active + g->cap_active, 0, (cap - g->cap_active) * sizeof(*g->active));
        g->cap_active = cap;
    }
    /* A late sender's part adds to what was merged of the second. */
    g->active[second] = late ? g->active[second] + active_vus : active_vus;
    if (second >= g->nactive)
        g->nactive = (size_t)second + 1;
    if (g->hold.len > 0) {
        gather_jtl_release(g, 0);
        gather_jtl_flush(g);
    }
}

gather *gather_new(const char *jtl_path, const char *grinder_dir, char *err, size_t errlen)
{
    return gather_new_traced(jtl_path, grinder_dir, 0, err, errlen);
}

gather *gather_new_traced(const char *jtl_path, const char *grinder_dir, int traced, char *err,
                          size_t errlen)
{
    gather *g = xcalloc(1, sizeof(*g));
    static const char plain[] = WORKERFILES_JTL_HEADER "\n";
    static const char with[] = WORKERFILES_JTL_HEADER WORKERFILES_JTL_TRACE_COLUMN "\n";
    const char *hdr = traced ? with : plain;
    size_t hlen = traced ? sizeof(with) - 1 : sizeof(plain) - 1;

    g->jtl.fd = -1;
    dbuf_init(&g->hold, GATHER_HOLD_MAX);
    if (jtl_path != NULL) {
        g->jtl_path = xstrdup(jtl_path);
        char oerr[ERR_MAX];
        g->out = xmalloc(GATHER_OUT_BUF);
        if (ofile_open(&g->jtl, jtl_path, OFILE_REPLACE, oerr, sizeof(oerr)) != 0) {
            err_set(err, errlen, "--jtl %s", oerr);
            goto fail;
        }
        if (write_all(g->jtl.fd, (const uint8_t *)hdr, hlen, -1) != 0) {
            err_set(err, errlen, "--jtl %s: %s", jtl_path, strerror(errno));
            ofile_abort(&g->jtl);
            goto fail;
        }
    }
    if (grinder_dir != NULL) {
        struct stat st;
        if (mkdir(grinder_dir, 0755) != 0 && errno != EEXIST) {
            err_set(err, errlen, "--grinder-logs %s: %s", grinder_dir, strerror(errno));
            goto fail;
        }
        if (stat(grinder_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            err_set(err, errlen, "--grinder-logs %s: not a directory", grinder_dir);
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
        if (g->jtl.fd < 0 || g->err != 0)
            return 0; /* not asked for, or already failed and reported */
        gather_jtl_lines_in(g, (const char *)fp->data.data, fp->data.len);
        gather_jtl_flush(g);
        if (g->err != 0) {
            err_set(err, errlen, "--jtl %s: %s", g->jtl_path, strerror(g->err));
            return -1;
        }
        return 0;
    }
    if (g->dir == NULL)
        return 0;
    if (!grinder_name_ok(name)) {
        err_set(err, errlen, "refused a result file named \"%.60s\"", name);
        return -1;
    }
    if (fp->offset > (uint64_t)1 << 50) {
        err_set(err, errlen, "%s: offset out of range", name);
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
            err_set(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        rc = write_all(fd, fp->data.data, fp->data.len, (off_t)fp->offset);
        if (rc != 0)
            err_set(err, errlen, "%s: %s", path, strerror(errno));
        if (close(fd) != 0 && rc == 0) {
            err_set(err, errlen, "%s: %s", path, strerror(errno));
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
    char oerr[ERR_MAX];

    if (g->jtl.fd < 0)
        return 0;
    gather_jtl_release(g, 1);
    gather_jtl_flush(g);
    if (g->err != 0) {
        /* a failed write: the file named keeps what it held */
        ofile_abort(&g->jtl);
        err_set(err, errlen, "--jtl %s: %s", g->jtl_path, strerror(g->err));
        return -1;
    }
    if (ofile_commit(&g->jtl, oerr, sizeof(oerr)) != 0) {
        err_set(err, errlen, "--jtl %s", oerr);
        return -1;
    }
    return 0;
}

void gather_free(gather *g)
{
    if (g == NULL)
        return;
    if (g->jtl.fd >= 0) {
        /* a run that ends without gather_close: the lines so far are kept */
        gather_jtl_flush(g);
        ofile_commit(&g->jtl, NULL, 0);
    }
    xfree(g->jtl_path);
    xfree(g->dir);
    xfree(g->active);
    dbuf_free(&g->hold);
    xfree(g->out);
    xfree(g);
}
