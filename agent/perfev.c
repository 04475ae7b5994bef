/* perfev — a process's threads watched through Linux perf events; see perfev.h. */
#include "agent/perfev.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"

/* AX..IP (bits 0-8) and R8..R15 (bits 16-23) of asm/perf_regs.h. */
#define REGS_MASK (0x1ffull | (0xffull << 16))
#define REC_MAX 65536 /* a record's size is 16 bits */

/* An event's id and what its samples are. */
typedef struct evid {
    uint64_t id;
    int off;   /* 1: a context-switch event */
    int dwarf; /* its samples carry registers and stack */
} evid;

/* One CPU's ring buffer, which every event on that CPU writes into. */
typedef struct pbuf {
    int fd;                            /* borrowed from fds: the event mapped */
    struct perf_event_mmap_page *meta; /* owned: the mapping, 1 + PERFEV_BUF_PAGES pages */
    size_t map_len;
} pbuf;

struct perfev {
    int *fds;   /* owned: nfd descriptors */
    int *fdoff; /* owned: nfd, 1 for a context-switch event */
    size_t nfd, capfd;
    evid *ids; /* owned: nfd, sorted by id */
    pbuf *b;   /* owned: nb buffers, one a CPU */
    size_t nb;
    struct pollfd *pfd; /* owned: nb */
    size_t threads;
    uint8_t rec[REC_MAX]; /* a record that wraps around its buffer, copied whole */
};

static int ev_open(struct perf_event_attr *a, pid_t tid, int cpu)
{
    return (int)syscall(SYS_perf_event_open, a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void attr_fill(struct perf_event_attr *a, const perfev_opts *o, int cpu, int user_only)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = PERF_TYPE_SOFTWARE;
    a->sample_type =
        PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
    if (cpu ? o->dwarf_cpu : o->dwarf_off) {
        a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a->sample_regs_user = REGS_MASK;
        a->sample_stack_user = o->stack_bytes ? o->stack_bytes : 8192;
    }
    a->sample_id_all = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    a->inherit = 1;
    a->exclude_callchain_kernel = 1;
    a->exclude_kernel = (unsigned)user_only;
    a->exclude_hv = 1;
    a->sample_max_stack = PERFEV_CHAIN_MAX;
    a->wakeup_watermark = (uint32_t)(PERFEV_BUF_PAGES * 4096 / 4);
    a->watermark = 1;
    if (cpu) {
        a->config = PERF_COUNT_SW_CPU_CLOCK;
        a->freq = 1;
        a->sample_freq = o->freq ? o->freq : 99;
        a->task = 1; /* thread exits: a thread that ended is not blocked */
    } else {
        a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
        a->sample_period = 1;
        a->context_switch = 1;
    }
}

static const char *open_fix(int e)
{
    if (e == EACCES || e == EPERM)
        return "; as root, or with CAP_PERFMON, or with kernel.perf_event_paranoid at 2 or less "
               "for one's own processes (sysctl kernel.perf_event_paranoid=1)";
    if (e == ENOENT || e == ENOSYS || e == EOPNOTSUPP)
        return "; this kernel has no perf events (CONFIG_PERF_EVENTS)";
    if (e == ENOMEM || e == EMFILE)
        return "; raise the descriptor or locked-memory limit (ulimit -n, ulimit -l, "
               "kernel.perf_event_mlock_kb)";
    return "";
}

static int by_id(const void *a, const void *b)
{
    const evid *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Opens one event of a thread on a CPU, into that CPU's buffer: 0, or -errno. */
static int one_open(perfev *p, pbuf *b, pid_t tid, int cpu, int off, const perfev_opts *o,
                    int *user_only)
{
    struct perf_event_attr a;
    int fd, e;

    for (;;) {
        attr_fill(&a, o, !off, *user_only);
        fd = ev_open(&a, tid, cpu);
        if (fd >= 0)
            break;
        e = errno;
        if ((e == EACCES || e == EPERM) && !*user_only) {
            *user_only = 1;
            continue;
        }
        return -e;
    }
    if (b->meta == NULL) {
        b->map_len = (size_t)(1 + PERFEV_BUF_PAGES) * 4096u;
        void *m = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            e = errno;
            close(fd);
            return -e;
        }
        b->meta = m;
        b->fd = fd;
    } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, b->fd) != 0) {
        e = errno;
        close(fd);
        return -e;
    }
    uint64_t id = 0;
    if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
        e = errno;
        close(fd);
        return -e;
    }
    if (p->nfd == p->capfd) {
        p->capfd = p->capfd ? 2 * p->capfd : 16;
        p->fds = xreallocarray(p->fds, p->capfd, sizeof(*p->fds));
        p->fdoff = xreallocarray(p->fdoff, p->capfd, sizeof(*p->fdoff));
        p->ids = xreallocarray(p->ids, p->capfd, sizeof(*p->ids));
    }
    p->fds[p->nfd] = fd;
    p->fdoff[p->nfd] = off;
    p->ids[p->nfd].id = id;
    p->ids[p->nfd].off = off;
    p->ids[p->nfd].dwarf = off ? o->dwarf_off : o->dwarf_cpu;
    p->nfd++;
    return 0;
}

int perfev_open(perfev **out, const pid_t *tids, size_t n, const int *cpus, size_t ncpu,
                const perfev_opts *o, char *err, size_t errlen)
{
    perfev *p = xcalloc(1, sizeof(*p));
    int user_only = 0, last = 0;

    p->b = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(*p->b));
    p->pfd = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(*p->pfd));
    p->nb = ncpu;
    for (size_t i = 0; i < n; i++) {
        int ok = 0, rc = 0;
        for (size_t c = 0; c < ncpu && rc == 0; c++) {
            rc = one_open(p, &p->b[c], tids[i], cpus[c], 0, o, &user_only);
            if (rc == 0 && o->offcpu)
                rc = one_open(p, &p->b[c], tids[i], cpus[c], 1, o, &user_only);
            ok += rc == 0;
        }
        if (rc == -ESRCH)
            continue; /* gone since it was listed */
        if (rc != 0)
            last = -rc;
        else if (ok > 0)
            p->threads++;
    }
    if (p->threads == 0) {
        if (last != 0)
            err_set(err, errlen, "perf_event_open: %s%s", strerror(last), open_fix(last));
        else
            err_set(err, errlen, "no thread left to watch");
        perfev_free(p);
        *out = NULL;
        return -1;
    }
    qsort(p->ids, p->nfd, sizeof(*p->ids), by_id);
    for (size_t c = 0; c < p->nb; c++) {
        p->pfd[c].fd = p->b[c].meta != NULL ? p->b[c].fd : -1;
        p->pfd[c].events = POLLIN;
    }
    *out = p;
    return 0;
}

int perfev_period(perfev *p, uint64_t period)
{
    int rc = 0;
    for (size_t i = 0; i < p->nfd; i++)
        if (p->fdoff[i] && ioctl(p->fds[i], PERF_EVENT_IOC_PERIOD, &period) != 0)
            rc = -1;
    return rc;
}

size_t perfev_threads(const perfev *p)
{
    return p->threads;
}

void perfev_wait(perfev *p, int timeout_ms)
{
    if (poll(p->pfd, p->nb, timeout_ms) < 0 && errno != EINTR)
        return;
}

/* Reads a u64 at *off of a record of len bytes, advancing; 0 past its end. */
static uint64_t take64(const uint8_t *r, size_t len, size_t *off)
{
    uint64_t v = 0;

    if (*off + 8 <= len)
        memcpy(&v, r + *off, 8);
    *off += 8;
    return v;
}

static void parse_sample(perfev *p, const uint8_t *r, size_t len,
                         void (*cb)(const perfev_rec *, void *), void *arg)
{
    const struct perf_event_header *h = (const void *)r;
    static uint64_t ips[PERFEV_CHAIN_MAX + 1];
    perfev_rec rec;
    size_t off = sizeof(*h);

    memset(&rec, 0, sizeof(rec));
    uint64_t id = take64(r, len, &off);
    uint64_t pt = take64(r, len, &off);
    rec.pid = (uint32_t)pt;
    rec.tid = (uint32_t)(pt >> 32);
    rec.time_ns = take64(r, len, &off);
    uint64_t nr = take64(r, len, &off);
    if (off + nr * 8 > len)
        return;
    size_t k = 0;
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t ip;
        memcpy(&ip, r + off + i * 8, 8);
        if (ip >= (uint64_t)PERF_CONTEXT_MAX)
            continue; /* a context marker */
        if (k < PERFEV_CHAIN_MAX)
            ips[k++] = ip;
    }
    off += nr * 8;
    rec.ips = ips;
    rec.nips = k;
    evid key = {.id = id}, *hit = bsearch(&key, p->ids, p->nfd, sizeof(*p->ids), by_id);
    if (hit == NULL)
        return;
    rec.kind = hit->off ? PERFEV_OFF : PERFEV_CPU;
    if (hit->dwarf) {
        uint64_t abi = take64(r, len, &off);
        if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
            if (off + PERFEV_NREGS * 8 > len)
                return;
            rec.regs = (const uint64_t *)(const void *)(r + off);
            off += PERFEV_NREGS * 8;
        }
        uint64_t size = take64(r, len, &off);
        if (size > 0 && off + size + 8 <= len) {
            uint64_t dyn;
            memcpy(&dyn, r + off + size, 8);
            rec.stack = r + off;
            rec.stack_len = (size_t)(dyn < size ? dyn : size);
        }
        if (rec.stack == NULL)
            rec.regs = NULL;
    }
    rec.in_kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    cb(&rec, arg);
}

/* A switch record's trailer: pid/tid, time, identifier. */
static void parse_switch(const uint8_t *r, size_t len, void (*cb)(const perfev_rec *, void *),
                         void *arg)
{
    const struct perf_event_header *h = (const void *)r;
    perfev_rec rec;
    size_t off = sizeof(*h);

    memset(&rec, 0, sizeof(rec));
    uint64_t pt = take64(r, len, &off);
    rec.pid = (uint32_t)pt;
    rec.tid = (uint32_t)(pt >> 32);
    rec.time_ns = take64(r, len, &off);
    if (off > len)
        return;
    if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
        rec.kind = PERFEV_OUT;
        rec.preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
    } else {
        rec.kind = PERFEV_IN;
    }
    cb(&rec, arg);
}

static void buf_read(perfev *p, pbuf *t, void (*cb)(const perfev_rec *, void *), void *arg)
{
    struct perf_event_mmap_page *m = t->meta;
    const uint8_t *data = (const uint8_t *)m + m->data_offset;
    uint64_t size = m->data_size, head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = m->data_tail;

    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        uint64_t at = tail % size;
        if (at + sizeof(h) <= size) {
            memcpy(&h, data + at, sizeof(h));
        } else {
            size_t first = (size_t)(size - at);
            memcpy(&h, data + at, first);
            memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
        }
        if (h.size < sizeof(h) || tail + h.size > head)
            break;
        const uint8_t *r = data + at;
        if (at + h.size > size) { /* wraps: copy it whole */
            size_t first = (size_t)(size - at);
            memcpy(p->rec, data + at, first);
            memcpy(p->rec + first, data, h.size - first);
            r = p->rec;
        }
        if (h.type == PERF_RECORD_SAMPLE) {
            parse_sample(p, r, h.size, cb, arg);
        } else if (h.type == PERF_RECORD_SWITCH) {
            parse_switch(r, h.size, cb, arg);
        } else if (h.type == PERF_RECORD_EXIT) {
            perfev_rec rec;
            size_t off = sizeof(h);
            memset(&rec, 0, sizeof(rec));
            rec.kind = PERFEV_EXIT;
            uint64_t pp = take64(r, h.size, &off), tt = take64(r, h.size, &off);
            rec.pid = (uint32_t)pp;
            rec.tid = (uint32_t)tt;
            rec.time_ns = take64(r, h.size, &off);
            if (off <= h.size)
                cb(&rec, arg);
        } else if (h.type == PERF_RECORD_LOST) {
            perfev_rec rec;
            size_t off = sizeof(h) + 8;
            memset(&rec, 0, sizeof(rec));
            rec.kind = PERFEV_LOST;
            rec.lost = take64(r, h.size, &off);
            cb(&rec, arg);
        }
        tail += h.size;
    }
    __atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
}

void perfev_read(perfev *p, void (*cb)(const perfev_rec *r, void *arg), void *arg)
{
    for (size_t i = 0; i < p->nb; i++)
        if (p->b[i].meta != NULL)
            buf_read(p, &p->b[i], cb, arg);
}

void perfev_free(perfev *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->nb; i++)
        if (p->b[i].meta != NULL)
            munmap(p->b[i].meta, p->b[i].map_len);
    for (size_t i = 0; i < p->nfd; i++)
        close(p->fds[i]);
    xfree(p->fds);
    xfree(p->fdoff);
    xfree(p->ids);
    xfree(p->b);
    xfree(p->pfd);
    xfree(p);
}
