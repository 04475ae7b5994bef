#include "proto/frame.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "proto/seal.h"

/* Smallest allocation of a buffer, and the size it shrinks back to once a
 * large frame has gone through. */
#define BUF_KEEP (64u * 1024u)
/* Free space guaranteed before each read(2). */
#define READ_CHUNK (16u * 1024u)
/* frame_reader_read_fd stops after this many bytes so one busy peer cannot
 * hold the event loop. */
#define READ_BUDGET (1024u * 1024u)

/* A byte queue: live bytes are data[start, end). Shared by reader and writer. */
struct bytebuf {
    uint8_t *data; /* owned */
    size_t cap;
    size_t start;
    size_t end;
    size_t keep; /* smallest allocation, and what it shrinks back to (0: BUF_KEEP) */
};

struct frame_reader {
    struct bytebuf in;
    size_t max_frame;
    /* Offset from in.start of the first frame header not yet checked: every
     * frame before it is complete and has a valid length. */
    size_t scan;
    size_t budget; /* bytes frame_reader_read_fd reads at most per call */
    seal *rx;      /* borrowed: opens every frame once set (frame_reader_seal) */
    int failed;
    char failmsg[128]; /* repeated by every call once failed */
    int lent;          /* 1: the frame last taken is lent out (frame_reader_next_iv) */
};

struct frame_writer {
    struct bytebuf out;
    size_t max_queued;
    seal *tx;       /* borrowed: seals every frame pushed once set (frame_writer_seal) */
    int not_socket; /* send(2) said ENOTSOCK once: use write(2) */
};

static size_t buf_used(const struct bytebuf *b)
{
    return b->end - b->start;
}

static size_t buf_keep(const struct bytebuf *b)
{
    return b->keep ? b->keep : BUF_KEEP;
}

static void buf_compact(struct bytebuf *b)
{
    size_t used = buf_used(b);

    if (b->start == 0)
        return;
    if (used > 0)
        memmove(b->data, b->data + b->start, used);
    b->start = 0;
    b->end = used;
}

/* Makes room for at least n more bytes at data + end. */
static void buf_reserve(struct bytebuf *b, size_t n)
{
    size_t used = buf_used(b);
    size_t cap;

    if (b->cap - b->end >= n)
        return;
    buf_compact(b);
    if (b->cap - b->end >= n)
        return;
    if (n > SIZE_MAX / 2 - used) {
        fprintf(stderr, "quern: buffer size overflow (%zu + %zu bytes)\n", used, n);
        abort();
    }
    /* From the buffer's usual size up: a reader whose limit was raised
     * (frame_reader_seal) grows as it would have from the start. */
    cap = b->cap > buf_keep(b) ? b->cap : buf_keep(b);
    while (cap - used < n)
        cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

/* After bytes were taken from the front: reset when empty, and give memory
 * back once a large frame has gone through. */
static void buf_consumed(struct bytebuf *b)
{
    if (b->start == b->end) {
        b->start = 0;
        b->end = 0;
    }
    if (b->cap > buf_keep(b) && buf_used(b) <= buf_keep(b) / 2) {
        buf_compact(b);
        b->data = xrealloc(b->data, buf_keep(b));
        b->cap = buf_keep(b);
    }
}

static void buf_free(struct bytebuf *b)
{
    xfree(b->data);
    b->data = NULL;
    b->cap = b->start = b->end = 0;
}

static uint32_t get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Marks the reader failed with a message that every later call repeats. */
static int reader_fail(frame_reader *r, char *err, size_t errlen)
{
    r->failed = 1;
    err_set(err, errlen, "%s", r->failmsg);
    return -1;
}

/* Checks the headers of the frames that arrived since the last check, so an
 * oversized or empty frame is refused as soon as its header is in, before
 * its body is buffered. */
static int reader_scan(frame_reader *r, char *err, size_t errlen)
{
    /* A reader that never received anything has no buffer yet. */
    const uint8_t *base = r->in.data != NULL ? r->in.data + r->in.start : NULL;
    size_t used = buf_used(&r->in);
    size_t extra = r->rx != NULL ? SEAL_TAG_LEN : 0;

    while (used - r->scan >= FRAME_HEADER_LEN) {
        uint32_t n = get_be32(base + r->scan);

        if (n == 0) {
            err_set(r->failmsg, sizeof(r->failmsg), "empty frame (length 0)");
            return reader_fail(r, err, errlen);
        }
        if (n <= extra) {
            err_set(r->failmsg, sizeof(r->failmsg),
                    "frame of %u bytes is too short to be sealed: it failed its integrity check",
                    n);
            return reader_fail(r, err, errlen);
        }
        if (n - extra > r->max_frame) {
            err_set(r->failmsg, sizeof(r->failmsg), "frame of %zu bytes exceeds maximum %zu",
                    (size_t)n - extra, r->max_frame);
            return reader_fail(r, err, errlen);
        }
        if (used - r->scan - FRAME_HEADER_LEN < n)
            break;
        r->scan += FRAME_HEADER_LEN + n;
    }
    return 0;
}

/* Sets the limit and the memory a reader keeps: a reader of small frames
 * (before authentication) keeps a buffer of about one frame and reads about
 * that much per call, so a peer that sends fast cannot make it grow. */
static void reader_limit(frame_reader *r, size_t max_frame)
{
    size_t keep;

    if (max_frame == 0)
        max_frame = 1;
    if (max_frame > UINT32_MAX - SEAL_TAG_LEN)
        max_frame = UINT32_MAX - SEAL_TAG_LEN;
    r->max_frame = max_frame;
    keep = max_frame + FRAME_HEADER_LEN + SEAL_TAG_LEN;
    if (keep < 256)
        keep = 256;
    r->in.keep = keep < BUF_KEEP ? keep : BUF_KEEP;
    r->budget = keep < READ_BUDGET ? keep : READ_BUDGET;
}

/* The frame lent out by frame_reader_next_iv is taken back: the buffer may
 * move again. Every call that changes the buffer starts with it. */
static void take_back(frame_reader *r)
{
    if (r->lent) {
        r->lent = 0;
        buf_consumed(&r->in);
    }
}

frame_reader *frame_reader_new(size_t max_frame)
{
    frame_reader *r = xcalloc(1, sizeof(*r));

    reader_limit(r, max_frame);
    return r;
}

int frame_reader_seal(frame_reader *r, seal *rx, size_t max_frame, char *err, size_t errlen)
{
    take_back(r);
    if (r->failed)
        return reader_fail(r, err, errlen);
    r->rx = rx;
    reader_limit(r, max_frame);
    r->scan = 0; /* the headers already in are checked again, as sealed frames */
    return reader_scan(r, err, errlen);
}

void frame_reader_free(frame_reader *r)
{
    if (r == NULL)
        return;
    buf_free(&r->in);
    xfree(r);
}

int frame_reader_feed(frame_reader *r, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    take_back(r);
    if (r->failed)
        return reader_fail(r, err, errlen);
    if (len == 0)
        return 0;
    buf_reserve(&r->in, len);
    memcpy(r->in.data + r->in.end, data, len);
    r->in.end += len;
    return reader_scan(r, err, errlen);
}

/* frame_reader_next's work; an Interval goes to *iv without copying when iv
 * is not NULL (interval_decode.h), the frame then lent out until the next call. */
static int next_frame(frame_reader *r, Quern__Envelope **env, interval_decode *iv, char *err,
                      size_t errlen)
{
    size_t used;
    uint8_t *base;
    size_t total;
    uint32_t n;

    take_back(r);
    used = buf_used(&r->in);
    *env = NULL;
    if (r->failed)
        return reader_fail(r, err, errlen);
    if (used < FRAME_HEADER_LEN)
        return 0;
    base = r->in.data + r->in.start;
    n = get_be32(base);
    total = FRAME_HEADER_LEN + (size_t)n;
    /* reader_scan has checked n, and has passed every complete frame. */
    if (used < total || r->scan < total)
        return 0;
    if (r->rx != NULL) {
        uint8_t *body = r->in.data + r->in.start + FRAME_HEADER_LEN;

        n -= SEAL_TAG_LEN;
        if (seal_open(r->rx, base, body, n, body + n) != 0) {
            err_set(r->failmsg, sizeof(r->failmsg),
                    "frame failed its integrity check (altered, replayed, reordered, dropped "
                    "or not from our peer)");
            return reader_fail(r, err, errlen);
        }
    }
    if (iv != NULL && interval_decode_envelope(base + FRAME_HEADER_LEN, n, iv) == 1) {
        *env = &iv->env;
        r->in.start += total;
        r->scan -= total;
        r->lent = 1;
        return 1;
    }
    *env = quern__envelope__unpack(NULL, n, base + FRAME_HEADER_LEN);
    r->in.start += total;
    r->scan -= total;
    buf_consumed(&r->in);
    if (*env == NULL) {
        if (err != NULL && errlen > 0)
            err_set(err, errlen, "frame of %u bytes is not a valid Envelope", n);
        return -1;
    }
    return 1;
}

int frame_reader_next(frame_reader *r, Quern__Envelope **env, char *err, size_t errlen)
{
    return next_frame(r, env, NULL, err, errlen);
}

int frame_reader_next_iv(frame_reader *r, Quern__Envelope **env, interval_decode *iv, char *err,
                         size_t errlen)
{
    return next_frame(r, env, iv, err, errlen);
}

void frame_env_free(Quern__Envelope *env, interval_decode *iv)
{
    if (env != NULL && iv != NULL && env == &iv->env)
        interval_decode_free(iv);
    else if (env != NULL)
        quern__envelope__free_unpacked(env, NULL);
}

ssize_t frame_reader_read_fd(frame_reader *r, int fd, char *err, size_t errlen)
{
    size_t total = 0;

    take_back(r);
    if (r->failed) {
        reader_fail(r, err, errlen);
        errno = EMSGSIZE;
        return -1;
    }
    while (total < r->budget) {
        size_t want = r->in.keep < READ_CHUNK ? r->in.keep : READ_CHUNK;
        size_t used = buf_used(&r->in), room;
        ssize_t n;

        /* Room for the whole of a large frame in one go once its length is known. */
        if (used - r->scan >= FRAME_HEADER_LEN) {
            size_t frame = FRAME_HEADER_LEN + get_be32(r->in.data + r->in.start + r->scan);
            size_t have = used - r->scan;

            if (frame > have && frame - have > want)
                want = frame - have;
        }
        buf_reserve(&r->in, want);
        room = r->in.cap - r->in.end;
        n = read(fd, r->in.data + r->in.end, room);
        if (n > 0) {
            r->in.end += (size_t)n;
            total += (size_t)n;
            if (reader_scan(r, err, errlen) < 0) {
                errno = EMSGSIZE;
                return -1;
            }
            /* A short read drained the fd (or nearly): the read that would
             * say EAGAIN is a system call per frame for nothing; the poll
             * says when more came. */
            if ((size_t)n < room)
                break;
            continue;
        }
        if (n == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (total > 0)
                break;
            return -1;
        }
        {
            int saved = errno;

            if (err != NULL && errlen > 0)
                err_set(err, errlen, "read: %s", strerror(saved));
            errno = saved;
        }
        return -1;
    }
    return (ssize_t)total;
}

size_t frame_reader_buffered(const frame_reader *r)
{
    return buf_used(&r->in);
}

size_t frame_reader_capacity(const frame_reader *r)
{
    return r->in.cap;
}

/* Packed size of env if it can travel as one frame under max_frame, else 0. */
static size_t frame_body_size(const Quern__Envelope *env, size_t max_frame)
{
    size_t n = quern__envelope__get_packed_size(env);

    if (n == 0 || n > max_frame || n > UINT32_MAX)
        return 0;
    return n;
}

ssize_t frame_encode(const Quern__Envelope *env, size_t max_frame, uint8_t **out)
{
    size_t n = frame_body_size(env, max_frame);
    uint8_t *buf;

    *out = NULL;
    if (n == 0)
        return -1;
    buf = xmalloc(FRAME_HEADER_LEN + n);
    put_be32(buf, (uint32_t)n);
    quern__envelope__pack(env, buf + FRAME_HEADER_LEN);
    *out = buf;
    return (ssize_t)(FRAME_HEADER_LEN + n);
}

frame_writer *frame_writer_new(size_t max_queued)
{
    frame_writer *w = xcalloc(1, sizeof(*w));

    w->max_queued = max_queued;
    return w;
}

void frame_writer_free(frame_writer *w)
{
    if (w == NULL)
        return;
    buf_free(&w->out);
    xfree(w);
}

void frame_writer_seal(frame_writer *w, seal *tx)
{
    w->tx = tx;
}

int frame_writer_push(frame_writer *w, const Quern__Envelope *env, size_t max_frame)
{
    size_t n = frame_body_size(env, max_frame);
    size_t pending = buf_used(&w->out);
    size_t extra = w->tx != NULL ? SEAL_TAG_LEN : 0;
    uint8_t *p;

    if (n == 0 || n > UINT32_MAX - SEAL_TAG_LEN) {
        errno = EMSGSIZE;
        return -1;
    }
    if (pending > w->max_queued || FRAME_HEADER_LEN + n + extra > w->max_queued - pending) {
        errno = ENOBUFS;
        return -1;
    }
    buf_reserve(&w->out, FRAME_HEADER_LEN + n + extra);
    p = w->out.data + w->out.end;
    put_be32(p, (uint32_t)(n + extra));
    quern__envelope__pack(env, p + FRAME_HEADER_LEN);
    if (w->tx != NULL &&
        seal_frame(w->tx, p, p + FRAME_HEADER_LEN, n, p + FRAME_HEADER_LEN + n) != 0) {
        errno = EIO;
        return -1;
    }
    w->out.end += FRAME_HEADER_LEN + n + extra;
    return 0;
}

/* One non-blocking write; MSG_NOSIGNAL so a gone peer is EPIPE, not SIGPIPE. */
static ssize_t writer_write(frame_writer *w, int fd, const uint8_t *p, size_t len)
{
    ssize_t n;

    if (!w->not_socket) {
        n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0 || errno != ENOTSOCK)
            return n;
        w->not_socket = 1;
    }
    return write(fd, p, len);
}

int frame_writer_flush(frame_writer *w, int fd)
{
    int rc = 1;

    while (w->out.start < w->out.end) {
        ssize_t n = writer_write(w, fd, w->out.data + w->out.start, buf_used(&w->out));

        if (n > 0) {
            w->out.start += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK)
            rc = 0;
        else
            rc = -1;
        break;
    }
    {
        int saved = errno;

        buf_consumed(&w->out);
        errno = saved;
    }
    return rc;
}

size_t frame_writer_pending(const frame_writer *w)
{
    return buf_used(&w->out);
}
