/* profdiag — what a server's profile says limits it; see profdiag.h. */
#include "common/profdiag.h"

#include <stdio.h>
#include <string.h>

#include "common/mem.h"

static const char *const lock_names[] = {
    "pthread_mutex_lock",
    "__pthread_mutex_lock",
    "___pthread_mutex_lock",
    "pthread_mutex_timedlock",
    "pthread_mutex_clocklock",
    "__pthread_mutex_lock_full",
    "__lll_lock_wait",
    "__lll_lock_wait_private",
    "pthread_rwlock_rdlock",
    "pthread_rwlock_wrlock",
    "__pthread_rwlock_rdlock",
    "__pthread_rwlock_wrlock",
    "pthread_rwlock_timedrdlock",
    "pthread_rwlock_timedwrlock",
    "pthread_spin_lock",
    "sem_wait",
    "__new_sem_wait",
    "sem_timedwait",
    "sem_clockwait",
    "__new_sem_wait_slow64",
};

int profdiag_is_lock(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(lock_names) / sizeof(lock_names[0]); i++)
        if (strlen(lock_names[i]) == len && memcmp(lock_names[i], name, len) == 0)
            return 1;
    return 0;
}

/* Where a thread waits for work, not for a resource: its time there is no
 * one's cost, so the shares leave it out. */
static const char *const idle_names[] = {
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "poll",
    "ppoll",
    "__poll",
    "select",
    "pselect",
    "__select",
    "accept",
    "accept4",
    "__libc_accept",
    "pthread_cond_wait",
    "__pthread_cond_wait",
    "___pthread_cond_wait",
    "pthread_cond_timedwait",
    "__pthread_cond_timedwait",
    "pthread_cond_clockwait",
    "sigwait",
    "sigwaitinfo",
    "sigtimedwait",
    "pause",
    "io_uring_enter",
    "kevent",
};

int profdiag_is_idle(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(idle_names) / sizeof(idle_names[0]); i++)
        if (strlen(idle_names[i]) == len && memcmp(idle_names[i], name, len) == 0)
            return 1;
    return 0;
}

/* Whether a stack's leaf-most named frame ("[kernel]" and the like left
 * out) is an idle wait. */
int profdiag_idle_stack(const char *frames)
{
    const char *end = frames + strlen(frames);

    while (end > frames) {
        const char *p = end;
        while (p > frames && p[-1] != ';')
            p--;
        size_t len = (size_t)(end - p);
        if (len > 0 && p[0] != '[')
            return profdiag_is_idle(p, len);
        end = p > frames ? p - 1 : frames;
    }
    return 0;
}

static uint64_t idle_us(const folded *off)
{
    uint64_t v = 0;
    for (size_t k = 0; off != NULL && k < off->n; k++)
        if (profdiag_idle_stack(off->e[k].frames))
            v += off->e[k].value;
    return v;
}

static int match_lock(const char *name, size_t len, void *arg)
{
    (void)arg;
    return profdiag_is_lock(name, len);
}

/* The threads' time at work: running, runnable, or blocked on anything but
 * the wait for work. */
static double thread_us(const profdiag_in *in)
{
    double idle = (double)idle_us(in->off), t = (double)(in->on_us + in->off_us + in->runnable_us);
    return t > idle ? t - idle : 0;
}

static double lock_share(const profdiag_in *in)
{
    double t = thread_us(in);
    return t > 0 && in->off != NULL ? (double)folded_sum_if(in->off, match_lock, NULL) / t : 0;
}

/* The caller of the lock that waited most, and the lock's own name: the
 * frame before the first lock frame of each lock stack, summed by name. */
static void lock_caller(const folded *off, char *fn, size_t fnlen, char *lock, size_t locklen)
{
    folded callers;
    folded_init(&callers, 1024);
    fn[0] = lock[0] = '\0';
    for (size_t k = 0; k < off->n; k++) {
        const char *s = off->e[k].frames, *prev = NULL;
        size_t prevlen = 0;
        for (const char *p = s;;) {
            const char *semi = strchr(p, ';');
            size_t len = semi != NULL ? (size_t)(semi - p) : strlen(p);
            if (profdiag_is_lock(p, len)) {
                char key[600];
                int n = snprintf(key, sizeof(key), "%.*s;%.*s", (int)(prev != NULL ? prevlen : 9),
                                 prev != NULL ? prev : "[unknown]", (int)len, p);
                if (n > 0)
                    folded_add(&callers, key, (size_t)n < sizeof(key) ? (size_t)n : sizeof(key) - 1,
                               off->e[k].value);
                break;
            }
            if (semi == NULL)
                break;
            prev = p;
            prevlen = len;
            p = semi + 1;
        }
    }
    folded_trim(&callers, 1);
    if (callers.n > 0 && strcmp(callers.e[0].frames, FOLDED_OTHER) != 0) {
        const char *semi = strchr(callers.e[0].frames, ';');
        snprintf(fn, fnlen, "%.*s", (int)(semi - callers.e[0].frames), callers.e[0].frames);
        snprintf(lock, locklen, "%s", semi + 1);
    }
    folded_free(&callers);
}

/* "[kernel]" and "[unknown]" name no code of the server's ("[libz.so.1]" does). */
static int unnamed(const char *name, size_t len)
{
    return (len == 8 && memcmp(name, "[kernel]", 8) == 0) ||
           (len == 9 && memcmp(name, "[unknown]", 9) == 0);
}

/* The function with the most own on-CPU samples and its share. */
static double top_self(const folded *cpu, char *fn, size_t fnlen)
{
    folded_func *v;
    size_t n = folded_funcs(cpu, &v);
    uint64_t best = 0;
    size_t at = 0;

    fn[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (v[i].self > best && !unnamed(v[i].name, v[i].len)) {
            best = v[i].self;
            at = i;
        }
    if (best > 0)
        snprintf(fn, fnlen, "%.*s", (int)v[at].len, v[at].name);
    xfree(v);
    return cpu->total > 0 ? (double)best / (double)cpu->total : 0;
}

static double self_share_of(const folded *cpu, const char *fn)
{
    folded_func *v;
    size_t n = folded_funcs(cpu, &v), len = strlen(fn);
    uint64_t self = 0;

    for (size_t i = 0; i < n; i++)
        if (v[i].len == len && memcmp(v[i].name, fn, len) == 0)
            self = v[i].self;
    xfree(v);
    return cpu->total > 0 ? (double)self / (double)cpu->total : 0;
}

static double pct(double x)
{
    return 100.0 * x;
}

void profdiag_judge(const profdiag_in *before, const profdiag_in *after, profdiag *d)
{
    memset(d, 0, sizeof(*d));
    d->share_before = -1;
    /* a thread preempted wanted a CPU too: busy counts it, whoever held the CPU */
    d->busy = after->cpu_us > 0 ? (double)(after->on_us + after->runnable_us) / after->cpu_us : -1;
    if (d->busy > 1)
        d->busy = 1;
    d->lock_share = lock_share(after);
    d->top_cpu_share =
        after->cpu != NULL ? top_self(after->cpu, d->top_cpu, sizeof(d->top_cpu)) : 0;
    double lock_before = before != NULL ? lock_share(before) : 0;
    const char *at = after->label != NULL ? after->label : "this load";
    const char *was = before != NULL && before->label != NULL ? before->label : "the step before";

    if (d->lock_share >= PROFDIAG_LOCK_MIN &&
        (before == NULL || d->lock_share - lock_before >= PROFDIAG_GROWTH_MIN ||
         (d->lock_share >= PROFDIAG_LOCK_DOMINANT && d->lock_share >= lock_before))) {
        d->kind = PROFDIAG_LOCK;
        d->share = d->lock_share;
        lock_caller(after->off, d->function, sizeof(d->function), d->lock, sizeof(d->lock));
        if (before != NULL) {
            d->share_before = lock_before;
            snprintf(d->sentence, sizeof(d->sentence),
                     "the server's threads spent %.0f %% of their time waiting on a lock in %s "
                     "(%s) at %s, up from %.0f %% at %s",
                     pct(d->share), d->function, d->lock, at, pct(lock_before), was);
        } else {
            snprintf(d->sentence, sizeof(d->sentence),
                     "the server's threads spent %.0f %% of their time waiting on a lock in %s "
                     "(%s) at %s",
                     pct(d->share), d->function, d->lock, at);
        }
        return;
    }
    if (d->busy >= PROFDIAG_BUSY_MIN && d->top_cpu_share >= PROFDIAG_SELF_MIN) {
        d->kind = PROFDIAG_CPU;
        d->share = d->top_cpu_share;
        snprintf(d->function, sizeof(d->function), "%s", d->top_cpu);
        int n = snprintf(d->sentence, sizeof(d->sentence),
                         "CPU-bound: %s holds %.0f %% of the samples at %s (the server's threads "
                         "ran or waited to run %.0f %% of the time of its CPUs)",
                         d->function, pct(d->share), at, pct(d->busy));
        if (before != NULL && before->cpu != NULL && n > 0 && (size_t)n < sizeof(d->sentence)) {
            d->share_before = self_share_of(before->cpu, d->function);
            snprintf(d->sentence + n, sizeof(d->sentence) - (size_t)n, ", %.0f %% at %s",
                     pct(d->share_before), was);
        }
        return;
    }
    double t = thread_us(after);
    double runnable = t > 0 ? (double)after->runnable_us / t : 0;
    if (runnable >= PROFDIAG_LOCK_MIN) {
        d->kind = PROFDIAG_RUNNABLE;
        d->share = runnable;
        snprintf(d->sentence, sizeof(d->sentence),
                 "the server's threads waited for a CPU %.0f %% of their time at %s: more "
                 "threads ready to run than CPUs",
                 pct(runnable), at);
        return;
    }
    d->kind = PROFDIAG_NONE;
    snprintf(d->sentence, sizeof(d->sentence),
             "no dominant cause in the server's profile at %s: its busiest function, %s, holds "
             "%.0f %% of the samples, lock waits %.0f %% of its threads' time",
             at, d->top_cpu[0] ? d->top_cpu : "none", pct(d->top_cpu_share), pct(d->lock_share));
}

void profdiag_wait_name(const char *frames, char *buf, size_t len)
{
    const char *prev = NULL, *leaf = frames;
    size_t prevlen = 0;

    for (const char *p = frames;;) {
        const char *semi = strchr(p, ';');
        size_t n = semi != NULL ? (size_t)(semi - p) : strlen(p);
        if (profdiag_is_lock(p, n)) {
            snprintf(buf, len, "%.*s (%.*s)", (int)(prev != NULL ? prevlen : 9),
                     prev != NULL ? prev : "[unknown]", (int)n, p);
            return;
        }
        leaf = p;
        if (semi == NULL)
            break;
        prev = p;
        prevlen = n;
        p = semi + 1;
    }
    snprintf(buf, len, "%s", leaf);
}
