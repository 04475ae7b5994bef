#include "agent/fileup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/mem.h"
#include "proto/workerfiles.h"

/* What the three files of a worker are called here and at the console. */
enum { UP_JTL, UP_DATA, UP_OUT, UP_KINDS };

struct fileup {
    int dirfd;       /**< borrowed: the run folder */
    char agent[128]; /**< the agent name, safe in a file name */
    uint64_t run_id;
    unsigned nworkers;
    unsigned item; /**< next file: worker * UP_KINDS + kind */
    int fd;        /**< owned: the file being sent, -1 between files */
    char name[200];
    int is_jtl;
    uint64_t off, size, sent;
    uint8_t *buf; /**< owned: FILEUP_CHUNK bytes */
};

fileup *fileup_new(int dirfd, unsigned nworkers, const char *agent, uint64_t run_id)
{
    fileup *u = xcalloc(1, sizeof(*u));

    u->dirfd = dirfd;
    u->nworkers = nworkers;
    u->run_id = run_id;
    u->fd = -1;
    snprintf(u->agent, sizeof(u->agent), "%s", agent != NULL && agent[0] ? agent : "agent");
    for (char *c = u->agent; *c != '\0'; c++)
        if (*c == '/' || *c == '\\' || (unsigned char)*c < 0x20 || (c == u->agent && *c == '.'))
            *c = '_';
    u->buf = xmalloc(FILEUP_CHUNK);
    return u;
}

/* Opens the next non-empty file; 0, or -1 when there is none left. */
static int next_file(fileup *u)
{
    while (u->item < u->nworkers * UP_KINDS) {
        unsigned w = u->item / UP_KINDS, kind = u->item % UP_KINDS;
        char f[64];
        struct stat st;

        u->item++;
        snprintf(f, sizeof(f),
                 kind == UP_JTL    ? WORKERFILES_JTL
                 : kind == UP_DATA ? WORKERFILES_DATA
                                   : WORKERFILES_OUT,
                 w);
        u->fd = openat(u->dirfd, f, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (u->fd < 0) {
            if (errno != ENOENT)
                log_msg(LOG_WARN, "cannot send %s of the run folder: %s", f, strerror(errno));
            continue;
        }
        if (fstat(u->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
            close(u->fd);
            u->fd = -1;
            continue;
        }
        u->size = (uint64_t)st.st_size;
        u->off = 0;
        u->is_jtl = kind == UP_JTL;
        if (kind == UP_JTL)
            snprintf(u->name, sizeof(u->name), "jtl");
        else
            snprintf(u->name, sizeof(u->name), "%s_%s-%u.log", kind == UP_DATA ? "data" : "out",
                     u->agent, w);
        return 0;
    }
    return -1;
}

int fileup_pump(fileup *u, peer *link)
{
    while (peer_alive(link) && peer_pending(link) < FILEUP_INFLIGHT) {
        Quern__Envelope env = QUERN__ENVELOPE__INIT;
        Quern__FilePart fp = QUERN__FILE_PART__INIT;
        ssize_t n;
        size_t want;
        int last;

        if (u->fd < 0 && next_file(u) != 0)
            return 1;
        want = u->size - u->off < FILEUP_CHUNK ? (size_t)(u->size - u->off) : FILEUP_CHUNK;
        n = pread(u->fd, u->buf, want, (off_t)u->off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) { /* shorter than it was, or unreadable: send what was sent */
            if (n < 0)
                log_msg(LOG_WARN, "cannot read a result file: %s", strerror(errno));
            close(u->fd);
            u->fd = -1;
            continue;
        }
        last = u->off + (uint64_t)n >= u->size;
        if (u->is_jtl && !last) {
            /* Whole lines only: parts of several agents are interleaved. */
            ssize_t cut = n;
            while (cut > 0 && u->buf[cut - 1] != '\n')
                cut--;
            if (cut > 0)
                n = cut;
        }
        fp.run_id = u->run_id;
        fp.name = u->name;
        fp.data.data = u->buf;
        fp.data.len = (size_t)n;
        fp.offset = u->off;
        fp.last = last;
        env.body_case = QUERN__ENVELOPE__BODY_FILE_PART;
        env.file_part = &fp;
        if (peer_send(link, &env) != 0)
            return 1;
        u->off += (uint64_t)n;
        u->sent += (uint64_t)n;
        if (last) {
            close(u->fd);
            u->fd = -1;
        }
    }
    return peer_alive(link) ? 0 : 1;
}

uint64_t fileup_sent(const fileup *u)
{
    return u->sent;
}

void fileup_free(fileup *u)
{
    if (u == NULL)
        return;
    if (u->fd >= 0)
        close(u->fd);
    xfree(u->buf);
    xfree(u);
}
