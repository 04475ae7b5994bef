/* Unit tests for common/profdiag: each rule (a lock that grew, a CPU-bound
 * function, threads waiting for a CPU, nothing dominant) and the waits for
 * work left out of the threads' time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/folded.h"
#include "common/profdiag.h"

static void add(folded *f, const char *s, uint64_t v)
{
    folded_add(f, s, strlen(s), v);
}

/* 4 threads over 2 s, 1 CPU: a pool of workers that wait in epoll_wait
 * when idle; lock_us of their time in seq_next's mutex. */
static void lockish(folded *cpu, folded *off, profdiag_in *in, uint64_t lock_us, uint64_t idle_us,
                    const char *label)
{
    folded_init(cpu, 100);
    folded_init(off, 100);
    add(cpu, "start_thread;worker_main;serve_request;seq_next", 60);
    add(cpu, "start_thread;worker_main;serve_request;[kernel]", 40);
    add(off, "start_thread;worker_main;serve_request;seq_next;__pthread_mutex_lock;__lll_lock_wait",
        lock_us);
    add(off, "start_thread;worker_main;epoll_wait", idle_us);
    add(off, "start_thread;worker_main;serve_request;seq_next;clock_nanosleep", 1000000);
    memset(in, 0, sizeof(*in));
    in->cpu = cpu;
    in->off = off;
    in->on_us = 8000000 - lock_us - idle_us - 1000000;
    in->off_us = lock_us + idle_us + 1000000;
    in->cpu_us = 2e6;
    in->label = label;
}

static void test_lock(void **state)
{
    folded c1, o1, c2, o2;
    profdiag_in before, after;
    profdiag d;

    (void)state;
    lockish(&c1, &o1, &before, 100000, 5000000, "2 VUs");
    lockish(&c2, &o2, &after, 4500000, 1000000, "8 VUs");
    profdiag_judge(&before, &after, &d);
    assert_int_equal(d.kind, PROFDIAG_LOCK);
    assert_string_equal(d.function, "seq_next");
    assert_string_equal(d.lock, "__pthread_mutex_lock");
    /* the idle second in epoll_wait is no one's: 4.5 s of the 7 s at work */
    assert_true(d.share > 0.64 && d.share < 0.65);
    assert_true(d.share_before > 0.03 && d.share_before < 0.04);
    assert_non_null(
        strstr(d.sentence, "waiting on a lock in seq_next (__pthread_mutex_lock) at 8 VUs"));
    assert_non_null(strstr(d.sentence, "up from 3 % at 2 VUs"));
    /* a dominant lock already before the knee is still the cause */
    profdiag_judge(&after, &after, &d);
    assert_int_equal(d.kind, PROFDIAG_LOCK);
    /* a lesser one that did not grow is not named */
    folded c3, o3;
    profdiag_in mid;
    lockish(&c3, &o3, &mid, 2500000, 1000000, "8 VUs");
    profdiag_judge(&mid, &mid, &d);
    assert_int_not_equal(d.kind, PROFDIAG_LOCK);
    folded_free(&c3);
    folded_free(&o3);
    folded_free(&c1);
    folded_free(&o1);
    folded_free(&c2);
    folded_free(&o2);
}

static void test_cpu(void **state)
{
    folded cpu, off, cpu0;
    profdiag_in in, in0;
    profdiag d;

    (void)state;
    folded_init(&cpu, 100);
    folded_init(&off, 100);
    folded_init(&cpu0, 100);
    add(&cpu, "main;serve;find_item", 830);
    add(&cpu, "main;serve;[kernel]", 170);
    add(&off, "main;epoll_wait", 100000);
    add(&cpu0, "main;serve;find_item", 400);
    add(&cpu0, "main;serve;[kernel]", 600);
    memset(&in, 0, sizeof(in));
    in.cpu = &cpu;
    in.off = &off;
    in.on_us = 1900000;
    in.off_us = 100000;
    in.cpu_us = 2e6;
    in.label = "2000/s";
    in0 = in;
    in0.cpu = &cpu0;
    in0.label = "1000/s";
    profdiag_judge(&in0, &in, &d);
    assert_int_equal(d.kind, PROFDIAG_CPU);
    assert_string_equal(d.function, "find_item");
    assert_non_null(strstr(d.sentence, "CPU-bound: find_item holds 83 % of the samples at 2000/s"));
    assert_non_null(strstr(d.sentence, "40 % at 1000/s"));
    /* the same samples on an idle CPU: not CPU-bound */
    in.on_us = 200000;
    profdiag_judge(NULL, &in, &d);
    assert_int_equal(d.kind, PROFDIAG_NONE);
    assert_non_null(strstr(d.sentence, "no dominant cause"));
    /* "[kernel]" is never the function named */
    folded_reset(&cpu);
    add(&cpu, "main;serve;[kernel]", 900);
    add(&cpu, "main;serve;parse", 100);
    in.on_us = 1900000;
    profdiag_judge(NULL, &in, &d);
    assert_string_equal(d.top_cpu, "parse");
    assert_int_equal(d.kind, PROFDIAG_NONE);
    folded_free(&cpu);
    folded_free(&off);
    folded_free(&cpu0);
}

static void test_runnable(void **state)
{
    folded cpu, off;
    profdiag_in in;
    profdiag d;

    (void)state;
    folded_init(&cpu, 10);
    folded_init(&off, 10);
    add(&cpu, "main;a", 20);
    add(&cpu, "main;b", 20);
    add(&cpu, "main;c", 20);
    add(&cpu, "main;d", 20); /* no function holds PROFDIAG_SELF_MIN */
    memset(&in, 0, sizeof(in));
    in.cpu = &cpu;
    in.off = &off;
    in.on_us = 1000000;
    in.runnable_us = 3000000;
    in.cpu_us = 4e6;
    in.label = "16 VUs";
    profdiag_judge(NULL, &in, &d);
    assert_int_equal(d.kind, PROFDIAG_RUNNABLE);
    assert_non_null(strstr(d.sentence, "waited for a CPU 75 % of their time at 16 VUs"));
    folded_free(&cpu);
    folded_free(&off);
}

static void test_names(void **state)
{
    (void)state;
    assert_true(profdiag_is_lock("__lll_lock_wait", 15));
    assert_true(profdiag_is_lock("pthread_rwlock_wrlock", 21));
    assert_false(profdiag_is_lock("pthread_mutex_unlock", 20));
    assert_true(profdiag_idle_stack("a;epoll_wait;[kernel]"));
    assert_true(profdiag_idle_stack("start_thread;acceptor;accept4"));
    assert_false(profdiag_idle_stack("a;epoll_wait;read"));
    assert_false(profdiag_idle_stack("[kernel]"));
    char buf[64];
    profdiag_wait_name("main;seq_next;__pthread_mutex_lock;__lll_lock_wait", buf, sizeof(buf));
    assert_string_equal(buf, "seq_next (__pthread_mutex_lock)");
    profdiag_wait_name("main;serve;read", buf, sizeof(buf));
    assert_string_equal(buf, "read");
    profdiag_wait_name("sem_wait", buf, sizeof(buf));
    assert_string_equal(buf, "[unknown] (sem_wait)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock),
        cmocka_unit_test(test_cpu),
        cmocka_unit_test(test_runnable),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
