#include "worker/lua/lwatch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"

/* Registry key of the watch, for the hooks. */
static const char watch_key = 'w';
/* The watch the timer's signal looks at; NULL when none runs. */
static lwatch *volatile g_watch;

#define LWATCH_SIGNAL SIGVTALRM

static lwatch *get_watch(lua_State *L)
{
    lwatch *w;

    lua_rawgetp(L, LUA_REGISTRYINDEX, &watch_key);
    w = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return w;
}

/* Raises w->msg, once formatted for the line being run. */
static void raise_msg(lua_State *L, lwatch *w, lua_Debug *ar, int load)
{
    if (!w->tripped) {
        lua_getinfo(L, "Sl", ar);
        if (load)
            err_set(w->msg, sizeof(w->msg), "%s:%d: the script did not finish loading within %d s",
                    ar->short_src, ar->currentline, (int)(LWATCH_LOAD_US / 1000000));
        else
            err_set(w->msg, sizeof(w->msg),
                    "%s:%d: the VU ran for more than %d s without yielding (no request, sleep or "
                    "think time): every VU of its worker waited",
                    ar->short_src, ar->currentline, (int)(LWATCH_RESUME_US / 1000000));
        w->tripped = 1;
    }
    lua_pushstring(L, w->msg);
    lua_error(L);
}

/* While loading: every LWATCH_COUNT instructions, then at each one once the
 * limit has passed. */
static void load_hook(lua_State *L, lua_Debug *ar)
{
    lwatch *w = get_watch(L);

    if (w == NULL || !w->loading)
        return;
    if (!w->tripped && clock_mono_us() - w->load_start_us <= LWATCH_LOAD_US)
        return;
    if (!w->tripped)
        lua_sethook(L, load_hook, LUA_MASKCOUNT, 1);
    raise_msg(L, w, ar, 1);
}

/* Set by the timer's handler on a VU's thread that held the loop too long:
 * runs at its next instruction. */
static void resume_hook(lua_State *L, lua_Debug *ar)
{
    lwatch *w = get_watch(L);

    if (w == NULL || !w->armed || w->co != L) {
        lua_sethook(L, NULL, 0, 0); /* armed as the resume ended: not held */
        return;
    }
    raise_msg(L, w, ar, 0);
}

/* The timer's handler, on the loop's thread: async-signal-safe. */
static void on_tick(int sig)
{
    lwatch *w = g_watch;
    lua_State *co;
    uint32_t seq;
    struct timespec ts;
    int64_t now;
    int saved = errno;

    (void)sig;
    if (w == NULL)
        goto out;
    co = w->co;
    seq = w->seq;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    if (co == NULL || seq != w->seen_seq) {
        w->seen_seq = co == NULL ? seq - 1 : seq; /* seq - 1: no resume is running */
        w->seen_us = now;
        goto out;
    }
    if (!w->armed && now - w->seen_us >= LWATCH_RESUME_US) {
        w->armed = 1;
        lua_sethook(co, resume_hook, LUA_MASKCOUNT, 1);
    }
out:
    errno = saved;
}

void lwatch_load_begin(lwatch *w, lua_State *L)
{
    lua_pushlightuserdata(L, w);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &watch_key);
    w->loading = 1;
    w->tripped = 0;
    w->load_start_us = clock_mono_us();
    lua_sethook(L, load_hook, LUA_MASKCOUNT, LWATCH_COUNT);
}

int lwatch_load_end(lwatch *w, lua_State *L)
{
    int tripped = w->tripped;

    /* Off: the VU threads, created from L, would inherit it. */
    lua_sethook(L, NULL, 0, 0);
    w->loading = 0;
    w->tripped = 0;
    return tripped;
}

int lwatch_timer_start(lwatch *w, char *err, size_t errlen)
{
    struct sigaction sa;
    struct sigevent sev;
    struct itimerspec its;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_tick;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    w->seen_seq = w->seq - 1;
    g_watch = w;
    /* The handler stays: a signal still pending when the timer is deleted
     * must not find the default action (which ends the process). */
    if (sigaction(LWATCH_SIGNAL, &sa, NULL) != 0) {
        err_set(err, errlen, "sigaction: %s", strerror(errno));
        g_watch = NULL;
        return -1;
    }
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID; /* to the loop's thread, not a resolver's */
    sev.sigev_signo = LWATCH_SIGNAL;
    sev._sigev_un._tid = gettid();
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &w->timer) != 0) {
        err_set(err, errlen, "timer_create: %s", strerror(errno));
        g_watch = NULL;
        return -1;
    }
    w->timer_on = 1;
    its.it_value.tv_sec = its.it_interval.tv_sec = 0;
    its.it_value.tv_nsec = its.it_interval.tv_nsec = LWATCH_TICK_NS;
    if (timer_settime(w->timer, 0, &its, NULL) != 0) {
        err_set(err, errlen, "timer_settime: %s", strerror(errno));
        lwatch_timer_stop(w);
        return -1;
    }
    return 0;
}

void lwatch_timer_stop(lwatch *w)
{
    if (w->timer_on) {
        timer_delete(w->timer);
        w->timer_on = 0;
    }
    if (g_watch == w)
        g_watch = NULL;
}

void lwatch_begin(lwatch *w, lua_State *co)
{
    w->seq++;
    w->co = co;
}

int lwatch_end(lwatch *w)
{
    lua_State *co = w->co;
    int tripped = w->tripped;

    w->co = NULL; /* from here the handler arms nothing */
    if (w->armed) {
        lua_sethook(co, NULL, 0, 0);
        w->armed = 0;
    }
    w->tripped = 0;
    return tripped;
}
