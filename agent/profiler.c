/* profiler — a target's processes profiled during a run; see profiler.h. */
#include "agent/profiler.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/perfev.h"
#include "agent/symtab.h"
#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"

#define OPEN_SECONDS 8    /* seconds being summed at once */
#define THREADS_MAX 65536 /* threads followed; past it a thread's time is not split */
#define STACK_TEXT (FOLDED_STACK_MAX + SYMTAB_NAME_MAX + 16)
#define OFF_STACK_BYTES 2048 /* stack copied at a switch out: the lock wait and its callers */

enum tstate { T_UNKNOWN, T_RUN, T_BLOCKED, T_RUNNABLE };

/* A thread followed through its switches. */
typedef struct tstat {
    uint32_t tid; /* 0: an empty slot */
    enum tstate st;
    uint64_t since_ns; /* in st since */
    char *stack;       /* owned: where it blocked (T_BLOCKED), NULL unknown */
    size_t stack_len;
    char *pend; /* owned: the last switch-out sample's stack, for the switch record */
    size_t pend_len;
    uint32_t seen; /* the last second it was seen in, plus one */
} tstat;

typedef struct procsym {
    uint32_t pid;
    symtab *sym; /* owned; NULL: could not be read */
} procsym;

struct profiler {
    pthread_t thr;
    int running;
    int stop;   /* set by profiler_stop, atomically */
    perfev *ev; /* owned */
    profiler_info info;
    int dwarf_cpu, dwarf_off;

    pthread_mutex_t mu;    /* guards t0_ns, done, ndone */
    int64_t t0_ns;         /* the run's second 0; 0: not yet */
    profiler_second *done; /* owned: ndone seconds complete */
    size_t ndone, capdone;

    /* the thread's own, never touched by others while it runs */
    profiler_second open[OPEN_SECONDS]; /* second first + i */
    uint32_t first;                     /* the oldest second not handed over */
    tstat *th;                          /* owned: THREADS_MAX slots */
    size_t nth;
    procsym *procs; /* owned */
    size_t nprocs;
    uint64_t unsampled_us[OPEN_SECONDS]; /* blocked time of switches not sampled, by second */
    uint64_t off_samples;                /* switch-out samples since the last second handed over */
    uint64_t period;                     /* one switch out in period is sampled */
    uint64_t ips[PERFEV_CHAIN_MAX + 1];
    char text[STACK_TEXT];
};

int profiler_parse(const char *target, char *err, size_t errlen)
{
    if (strncmp(target, "comm:", 5) == 0) {
        size_t n = strlen(target + 5);
        if (n == 0 || n > 15 || strchr(target + 5, '/') != NULL) {
            err_set(err, errlen,
                    "%s: a command name is 1 to 15 bytes, without '/' "
                    "(as in /proc/PID/comm)",
                    target);
            return -1;
        }
        return 0;
    }
    if (strncmp(target, "pid:", 4) == 0) {
        char *end;
        errno = 0;
        long v = strtol(target + 4, &end, 10);
        if (errno == 0 && end != target + 4 && *end == '\0' && v > 0 && v <= 4194304)
            return 0;
    }
    err_set(err, errlen, "%s: a target is comm:NAME or pid:N", target);
    return -1;
}

/* Whether /proc/PID is a process that ended and was not yet reaped. */
static int zombie(const char *pid)
{
    char path[300], buf[512];
    snprintf(path, sizeof(path), "/proc/%s/stat", pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
    return paren == NULL || paren[1] != ' ' || paren[2] == 'Z' || paren[2] == 'X';
}

/* The processes of the target: their pids into pids (at most max), their number. */
static size_t find_procs(const char *target, pid_t *pids, size_t max)
{
    if (strncmp(target, "pid:", 4) == 0) {
        pid_t pid = (pid_t)atol(target + 4);
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d", (int)pid);
        if (access(path, F_OK) != 0)
            return 0;
        pids[0] = pid;
        return 1;
    }
    const char *want = target + 5;
    size_t n = 0;
    DIR *d = opendir("/proc");
    struct dirent *de;
    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL && n < max) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        char path[300], comm[64];
        snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
        FILE *f = fopen(path, "re");
        if (f == NULL)
            continue;
        int got = fgets(comm, sizeof(comm), f) != NULL;
        fclose(f);
        if (!got)
            continue;
        comm[strcspn(comm, "\n")] = '\0';
        if (strcmp(comm, want) == 0 && atol(de->d_name) != (long)getpid() && !zombie(de->d_name))
            pids[n++] = (pid_t)atol(de->d_name);
    }
    closedir(d);
    return n;
}

/* The threads of the processes, appended to *tids. */
static void find_threads(const pid_t *pids, size_t n, pid_t **tids, size_t *nt)
{
    size_t cap = 0;

    *tids = NULL;
    *nt = 0;
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/task", (int)pids[i]);
        DIR *d = opendir(path);
        struct dirent *de;
        if (d == NULL)
            continue;
        while ((de = readdir(d)) != NULL) {
            if (!isdigit((unsigned char)de->d_name[0]))
                continue;
            if (*nt == cap) {
                cap = cap ? 2 * cap : 64;
                *tids = xreallocarray(*tids, cap, sizeof(**tids));
            }
            (*tids)[(*nt)++] = (pid_t)atol(de->d_name);
        }
        closedir(d);
    }
}

/* The CPUs any of the processes may run on. */
static size_t find_cpus(const pid_t *pids, size_t n, int *cpus, size_t max)
{
    cpu_set_t all, one;
    size_t k = 0;

    CPU_ZERO(&all);
    for (size_t i = 0; i < n; i++)
        if (sched_getaffinity(pids[i], sizeof(one), &one) == 0)
            CPU_OR(&all, &all, &one);
    for (int c = 0; c < CPU_SETSIZE && k < max; c++)
        if (CPU_ISSET(c, &all))
            cpus[k++] = c;
    return k;
}

static symtab *sym_for(profiler *p, uint32_t pid)
{
    for (size_t i = 0; i < p->nprocs; i++)
        if (p->procs[i].pid == pid)
            return p->procs[i].sym;
    if (p->nprocs >= 4 * PROFILER_PROCS_MAX)
        return NULL;
    p->procs = xreallocarray(p->procs, p->nprocs + 1, sizeof(*p->procs));
    p->procs[p->nprocs].pid = pid;
    p->procs[p->nprocs].sym = symtab_new((pid_t)pid);
    return p->procs[p->nprocs++].sym;
}

static tstat *thread_get(profiler *p, uint32_t tid)
{
    size_t i = (size_t)(tid * 2654435761u) & (THREADS_MAX - 1);

    for (size_t probe = 0; probe < THREADS_MAX; probe++) {
        tstat *t = &p->th[(i + probe) & (THREADS_MAX - 1)];
        if (t->tid == tid)
            return t;
        if (t->tid == 0) {
            if (p->nth >= THREADS_MAX / 2)
                return NULL;
            t->tid = tid;
            p->nth++;
            return t;
        }
    }
    return NULL;
}

/* The folded text of a record's stack, root first, into p->text: its length. */
static size_t fold(profiler *p, const perfev_rec *r, int dwarf)
{
    const uint64_t *ips = r->ips;
    size_t n = r->nips, len = 0;
    symtab *s = sym_for(p, r->pid);

    if (s == NULL)
        return (size_t)snprintf(p->text, sizeof(p->text), "[unknown]");
    if (dwarf && r->regs != NULL) {
        size_t k = symtab_unwind(s, (pid_t)r->tid, r->regs, r->stack, r->stack_len, p->ips,
                                 PERFEV_CHAIN_MAX);
        /* where the copy ran out, the kernel's walk goes on */
        if (k > 1 && k < PERFEV_CHAIN_MAX) {
            for (size_t j = 1; j < r->nips; j++)
                if (r->ips[j] == p->ips[k - 1]) {
                    for (size_t m = j + 1; m < r->nips && k < PERFEV_CHAIN_MAX; m++)
                        p->ips[k++] = r->ips[m];
                    break;
                }
        }
        if (k > 0) {
            ips = p->ips;
            n = k;
        }
    }
    for (size_t i = n; i-- > 0;) {
        size_t nl;
        const char *name = symtab_name(s, ips[i], i > 0, &nl);
        if (len + nl + 2 >= sizeof(p->text) - 16)
            break;
        if (len > 0)
            p->text[len++] = ';';
        memcpy(p->text + len, name, nl);
        len += nl;
    }
    if (r->kind == PERFEV_CPU && r->in_kernel && len + 10 < sizeof(p->text))
        len += (size_t)snprintf(p->text + len, sizeof(p->text) - len, "%s[kernel]",
                                len > 0 ? ";" : "");
    if (len == 0)
        len = (size_t)snprintf(p->text, sizeof(p->text), "[unknown]");
    p->text[len] = '\0';
    return len;
}

static int64_t origin(profiler *p)
{
    pthread_mutex_lock(&p->mu);
    int64_t t0 = p->t0_ns;
    pthread_mutex_unlock(&p->mu);
    return t0;
}

/* The open second of a time, NULL before the origin or too far ahead; a
 * time in a second already handed over counts to the oldest open one. */
static profiler_second *second_of(profiler *p, uint64_t t_ns, int64_t t0)
{
    if (t0 == 0 || (int64_t)t_ns < t0)
        return NULL;
    uint64_t s = ((uint64_t)((int64_t)t_ns - t0)) / 1000000000u;
    if (s < p->first)
        s = p->first;
    if (s >= (uint64_t)p->first + OPEN_SECONDS)
        return NULL;
    return &p->open[s % OPEN_SECONDS];
}

static void see(profiler *p, tstat *t, profiler_second *sec)
{
    if (t->seen != sec->second + 1) {
        t->seen = sec->second + 1;
        sec->threads++;
    }
}

/* Counts a thread's time in its state from since to t, over the seconds it spans. */
static void account(profiler *p, tstat *t, uint64_t t_ns, int64_t t0)
{
    if (t->st == T_UNKNOWN || t0 == 0 || t_ns <= t->since_ns) {
        t->since_ns = t_ns > t->since_ns ? t_ns : t->since_ns;
        return;
    }
    uint64_t from = t->since_ns < (uint64_t)t0 ? (uint64_t)t0 : t->since_ns;
    while (from < t_ns) {
        profiler_second *sec = second_of(p, from, t0);
        if (sec == NULL)
            break;
        uint64_t end = (uint64_t)t0 + (uint64_t)(sec->second + 1) * 1000000000u;
        uint64_t to = t_ns < end ? t_ns : end;
        uint64_t us = (to - from) / 1000u;
        see(p, t, sec);
        if (t->st == T_RUN) {
            sec->on_us += us;
        } else if (t->st == T_RUNNABLE) {
            sec->runnable_us += us;
        } else {
            sec->off_us += us;
            if (us > 0 && t->stack != NULL)
                folded_add(&sec->off, t->stack, t->stack_len, us);
            else
                p->unsampled_us[sec->second % OPEN_SECONDS] += us; /* a switch not sampled */
        }
        from = to;
    }
    t->since_ns = t_ns;
}

static void set_stack(char **dst, size_t *dlen, const char *s, size_t len)
{
    xfree(*dst);
    *dst = s != NULL ? xstrndup(s, len) : NULL;
    *dlen = s != NULL ? len : 0;
}

static void on_rec(const perfev_rec *r, void *arg)
{
    profiler *p = arg;
    int64_t t0 = origin(p);
    profiler_second *sec;
    tstat *t;

    switch (r->kind) {
    case PERFEV_CPU:
        t = thread_get(p, r->tid);
        if (t != NULL && t->st == T_UNKNOWN) { /* running since before its first switch */
            t->st = T_RUN;
            t->since_ns = r->time_ns;
        }
        sec = second_of(p, r->time_ns, t0);
        if (sec == NULL)
            return;
        size_t len = fold(p, r, p->dwarf_cpu);
        folded_add(&sec->cpu, p->text, len, 1);
        return;
    case PERFEV_OFF:
        t = thread_get(p, r->tid);
        if (t == NULL)
            return;
        len = fold(p, r, p->dwarf_off);
        set_stack(&t->pend, &t->pend_len, p->text, len);
        p->off_samples++;
        return;
    case PERFEV_OUT:
        t = thread_get(p, r->tid);
        if (t == NULL)
            return;
        account(p, t, r->time_ns, t0);
        t->st = r->preempt ? T_RUNNABLE : T_BLOCKED;
        xfree(t->stack);
        t->stack = t->pend; /* the sample comes just before its switch */
        t->stack_len = t->pend_len;
        t->pend = NULL;
        t->pend_len = 0;
        return;
    case PERFEV_IN:
        t = thread_get(p, r->tid);
        if (t == NULL)
            return;
        account(p, t, r->time_ns, t0);
        t->st = T_RUN;
        set_stack(&t->stack, &t->stack_len, NULL, 0);
        return;
    case PERFEV_EXIT:
        t = thread_get(p, r->tid);
        if (t == NULL)
            return;
        account(p, t, r->time_ns, t0);
        t->st = T_UNKNOWN;
        set_stack(&t->stack, &t->stack_len, NULL, 0);
        set_stack(&t->pend, &t->pend_len, NULL, 0);
        return;
    case PERFEV_LOST:
        sec = second_of(p, (uint64_t)clock_mono_us() * 1000u, t0);
        if (sec != NULL)
            sec->lost += r->lost;
        return;
    }
}

static void second_init(profiler_second *s, uint32_t second)
{
    memset(s, 0, sizeof(*s));
    s->second = second;
    folded_init(&s->cpu, 4 * PROFILER_STACKS);
    folded_init(&s->off, 4 * PROFILER_STACKS);
}

/* The blocked time of the switches not sampled (one in p->period is)
 * shared among the stacks of those that were, by their weight: the time is
 * exact, its stacks are a sample. A second with no sampled stack keeps it
 * as "[unsampled]". */
static void weigh(profiler_second *sec, uint64_t *unsampled)
{
    uint64_t rest = *unsampled, sampled = sec->off.total, given = 0;

    *unsampled = 0;
    if (rest == 0)
        return;
    if (sampled == 0) {
        folded_add(&sec->off, "[unsampled]", 11, rest);
        return;
    }
    for (size_t i = 0; i < sec->off.n; i++) {
        uint64_t add = (uint64_t)((double)sec->off.e[i].value * (double)rest / (double)sampled);
        sec->off.e[i].value += add;
        given += add;
    }
    sec->off.e[0].value += rest - given; /* the rounding's remainder */
    sec->off.total += rest;
}

/* One switch out in p->period is sampled, its stack copied: doubled while
 * a second's samples pass PROFILER_OFF_SAMPLES, halved under an eighth of
 * it, so that a server that switches often is not slowed by its profile. */
static void adapt(profiler *p)
{
    uint64_t n = p->off_samples, period = p->period;

    p->off_samples = 0;
    if (n > PROFILER_OFF_SAMPLES && period < PROFILER_PERIOD_MAX)
        period *= 2;
    else if (n < PROFILER_OFF_SAMPLES / 8 && period > 1)
        period /= 2;
    if (period != p->period && perfev_period(p->ev, period) == 0)
        p->period = period;
}

/* Hands the oldest open second over: every thread's time up to its end
 * counted first. */
static void hand_over(profiler *p, int64_t t0)
{
    profiler_second *sec = &p->open[p->first % OPEN_SECONDS];
    uint64_t end = (uint64_t)t0 + (uint64_t)(p->first + 1) * 1000000000u;

    for (size_t i = 0; i < THREADS_MAX; i++)
        if (p->th[i].tid != 0 && p->th[i].st != T_UNKNOWN && p->th[i].since_ns < end)
            account(p, &p->th[i], end, t0);
    weigh(sec, &p->unsampled_us[p->first % OPEN_SECONDS]);
    adapt(p);
    folded_trim(&sec->cpu, PROFILER_STACKS);
    folded_trim(&sec->off, PROFILER_STACKS);
    pthread_mutex_lock(&p->mu);
    if (p->ndone == p->capdone) {
        p->capdone = p->capdone ? 2 * p->capdone : 8;
        p->done = xreallocarray(p->done, p->capdone, sizeof(*p->done));
    }
    p->done[p->ndone++] = *sec;
    pthread_mutex_unlock(&p->mu);
    p->first++;
    second_init(&p->open[(p->first + OPEN_SECONDS - 1) % OPEN_SECONDS],
                p->first + OPEN_SECONDS - 1);
}

static void *run(void *arg)
{
    profiler *p = arg;

    while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
        perfev_wait(p->ev, 50);
        perfev_read(p->ev, on_rec, p);
        int64_t t0 = origin(p);
        if (t0 == 0)
            continue;
        int64_t now = clock_mono_us() * 1000;
        while (now - t0 >= (int64_t)(p->first + 1) * 1000000000 + PROFILER_LATE_US * 1000)
            hand_over(p, t0);
    }
    perfev_read(p->ev, on_rec, p);
    int64_t t0 = origin(p);
    if (t0 != 0) {
        int64_t now = clock_mono_us() * 1000;
        while (now - t0 > (int64_t)p->first * 1000000000) /* the last one as far as it went */
            hand_over(p, t0);
    }
    return NULL;
}

int profiler_start(profiler **out, const profiler_opts *o, char *err, size_t errlen)
{
    pid_t pids[PROFILER_PROCS_MAX], *tids = NULL;
    int cpus[256];
    size_t nt = 0;
    perfev_opts eo = {.freq = o->freq ? o->freq : 99, .offcpu = 1};
    profiler *p = NULL;

    *out = NULL;
    if (profiler_parse(o->target, err, errlen) != 0)
        return -1;
    size_t np = find_procs(o->target, pids, PROFILER_PROCS_MAX);
    if (np == 0) {
        err_set(err, errlen, "%s: no such process on this host", o->target);
        return -1;
    }
    find_threads(pids, np, &tids, &nt);
    size_t nc = find_cpus(pids, np, cpus, sizeof(cpus) / sizeof(cpus[0]));
    eo.dwarf_cpu = o->dwarf && !o->fp_only;
    eo.dwarf_off = !o->fp_only;
    eo.stack_bytes = o->dwarf ? 8192 : OFF_STACK_BYTES;
    p = xcalloc(1, sizeof(*p));
    pthread_mutex_init(&p->mu, NULL);
    if (perfev_open(&p->ev, tids, nt, cpus, nc, &eo, err, errlen) != 0) {
        xfree(tids);
        profiler_free(p);
        return -1;
    }
    xfree(tids);
    p->dwarf_cpu = eo.dwarf_cpu;
    p->dwarf_off = eo.dwarf_off;
    p->info.procs = (unsigned)np;
    p->info.threads = (unsigned)perfev_threads(p->ev);
    p->info.cpus = (unsigned)nc;
    p->info.freq = eo.freq;
    p->th = xcalloc(THREADS_MAX, sizeof(*p->th));
    p->period = 1;
    for (uint32_t i = 0; i < OPEN_SECONDS; i++)
        second_init(&p->open[i], i);
    if (pthread_create(&p->thr, NULL, run, p) != 0) {
        err_set(err, errlen, "cannot start the profiler's thread");
        profiler_free(p);
        return -1;
    }
    p->running = 1;
    *out = p;
    return 0;
}

profiler_info profiler_about(const profiler *p)
{
    return p->info;
}

void profiler_origin(profiler *p, int64_t t0_us)
{
    pthread_mutex_lock(&p->mu);
    p->t0_ns = t0_us * 1000;
    pthread_mutex_unlock(&p->mu);
}

size_t profiler_take(profiler *p, profiler_second **out)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->ndone;
    *out = p->done;
    p->done = NULL;
    p->ndone = p->capdone = 0;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void profiler_seconds_free(profiler_second *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        folded_free(&s[i].cpu);
        folded_free(&s[i].off);
    }
    xfree(s);
}

void profiler_stop(profiler *p)
{
    if (p == NULL || !p->running)
        return;
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    pthread_join(p->thr, NULL);
    p->running = 0;
    perfev_free(p->ev);
    p->ev = NULL;
}

void profiler_free(profiler *p)
{
    if (p == NULL)
        return;
    profiler_stop(p);
    perfev_free(p->ev);
    for (size_t i = 0; i < OPEN_SECONDS; i++) {
        folded_free(&p->open[i].cpu);
        folded_free(&p->open[i].off);
    }
    if (p->th != NULL)
        for (size_t i = 0; i < THREADS_MAX; i++) {
            xfree(p->th[i].stack);
            xfree(p->th[i].pend);
        }
    xfree(p->th);
    for (size_t i = 0; i < p->nprocs; i++)
        symtab_free(p->procs[i].sym);
    xfree(p->procs);
    profiler_seconds_free(p->done, p->ndone);
    pthread_mutex_destroy(&p->mu);
    xfree(p);
}
