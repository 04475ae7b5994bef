/* Unit tests for agent/profiler (with perfev and symtab): a child of the
 * test with a thread that spins in one function and one that waits on a
 * lock in another is profiled, and the profile names both: the spin's
 * samples, the lock wait's blocked time with the function that waited,
 * found through glibc's frames by the DWARF unwind. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/profiler.h"
#include "common/clock.h"
#include "common/err.h"
#include "common/folded.h"
#include "common/mem.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile uint64_t sink;

__attribute__((noinline)) void prof_spin_here(uint64_t until_us)
{
    uint64_t x = 1;
    while ((uint64_t)clock_mono_us() < until_us)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

__attribute__((noinline)) void prof_wait_lock(void)
{
    pthread_mutex_lock(&mu);
    pthread_mutex_unlock(&mu);
}

static void *waiter(void *arg)
{
    (void)arg;
    prof_wait_lock();
    return NULL;
}

/* The child: holds the lock 1.5 s while a thread waits for it, and spins 2.2 s. */
static void child(int ready_fd)
{
    pthread_t t;
    char c = 0;

    pthread_mutex_lock(&mu);
    if (write(ready_fd, &c, 1) != 1)
        _exit(1);
    usleep(300000); /* the profiler opens its events */
    pthread_create(&t, NULL, waiter, NULL);
    uint64_t start = (uint64_t)clock_mono_us();
    prof_spin_here(start + 1500000);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
    prof_spin_here(start + 2200000);
    _exit(0);
}

static int has(const folded *f, const char *frame)
{
    for (size_t i = 0; i < f->n; i++)
        if (strstr(f->e[i].frames, frame) != NULL)
            return 1;
    return 0;
}

static uint64_t value_with(const folded *f, const char *a, const char *b)
{
    uint64_t v = 0;
    for (size_t i = 0; i < f->n; i++)
        if (strstr(f->e[i].frames, a) != NULL && (b == NULL || strstr(f->e[i].frames, b)))
            v += f->e[i].value;
    return v;
}

static void test_child(void **state)
{
    int fds[2];
    char target[32], err[ERR_MAX], c;
    profiler *p = NULL;

    (void)state;
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child(fds[1]);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    snprintf(target, sizeof(target), "pid:%d", (int)pid);
    profiler_opts o = {.target = target, .freq = 199};
    if (profiler_start(&p, &o, err, sizeof(err)) != 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fprintf(stderr, "no perf events here: %s\n", err);
        skip();
    }
    profiler_origin(p, clock_mono_us());
    profiler_info info = profiler_about(p);
    assert_int_equal(info.procs, 1);
    assert_true(info.threads >= 1);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    profiler_stop(p);
    profiler_second *secs;
    size_t n = profiler_take(p, &secs);
    assert_true(n >= 2);
    folded cpu, off;
    uint64_t on_us = 0, off_us = 0;
    folded_init(&cpu, 1000);
    folded_init(&off, 1000);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(secs[i].second, i);
        folded_merge(&cpu, &secs[i].cpu);
        folded_merge(&off, &secs[i].off);
        on_us += secs[i].on_us;
        off_us += secs[i].off_us;
    }
    /* the spin holds most of the samples: ~1.9 s of CPU at 199 Hz */
    uint64_t spin = value_with(&cpu, "prof_spin_here", NULL);
    assert_true(spin * 10 >= cpu.total * 8);
    assert_true(spin > 150);
    /* the waiter blocked ~1.2 s in the lock, named through glibc's frames */
    uint64_t waited = value_with(&off, "prof_wait_lock", "pthread_mutex_lock");
    if (waited == 0) {
        for (size_t i = 0; i < off.n; i++)
            fprintf(stderr, "off %s %llu\n", off.e[i].frames, (unsigned long long)off.e[i].value);
    }
    assert_true(waited > 900000 && waited < 1600000);
    assert_true(has(&off, "waiter"));
    /* the threads' time: the spin ran, the waiter waited */
    assert_true(on_us > 1500000);
    assert_true(off_us >= waited);
    profiler_seconds_free(secs, n);
    folded_free(&cpu);
    folded_free(&off);
    profiler_free(p);
}

static void test_refusals(void **state)
{
    char err[ERR_MAX];
    profiler *p = NULL;

    (void)state;
    assert_int_equal(profiler_parse("comm:nginx", err, sizeof(err)), 0);
    assert_int_equal(profiler_parse("pid:42", err, sizeof(err)), 0);
    assert_int_equal(profiler_parse("comm:", err, sizeof(err)), -1);
    assert_int_equal(profiler_parse("comm:a/b", err, sizeof(err)), -1);
    assert_int_equal(profiler_parse("comm:sixteen_bytes_xx", err, sizeof(err)), -1);
    assert_int_equal(profiler_parse("pid:x", err, sizeof(err)), -1);
    assert_int_equal(profiler_parse("nginx", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "comm:NAME or pid:N"));
    profiler_opts o = {.target = "comm:no-such-proc"};
    assert_int_equal(profiler_start(&p, &o, err, sizeof(err)), -1);
    assert_null(p);
    assert_non_null(strstr(err, "no such process"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
