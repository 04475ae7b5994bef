/* Unit tests for worker/inbox and its Lua side, worker/linbox: messages taken in the order they
 * came, both bounds refusing a message whole (and taking it again once there is room), a free with
 * messages in, and the VU's wait on a real libev loop: woken by a message (through the zero timer),
 * by the end, by the source opening; not woken once the inbox is freed, nor twice when its timer
 * and a message come in the same loop iteration.
 *
 * The test includes inbox.c and linbox.c and stands in for the VU's machinery it calls:
 * vu_wait_timer arms the VU's timer on the test's loop, whose expiry does
 * what vu.c's does (the VU idle, then resumed); lcoro_resume resumes a Lua
 * coroutine whose continuation is the stream's (inbox_wait_done, then a
 * message, the end or the timeout); lapi_halt and lapi_wait_ok are lapi.c's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <unistd.h>

#include "worker/plugs/inbox.c"
#include "worker/lua/linbox.c"

#define WAIT_NEXT VU_SSENEXT /* the enum vu_wait the waits are marked with */
#define WAIT_OPEN VU_SSEOPEN

/** A message as a stream makes one: the link first, then its bytes. */
typedef struct tmsg {
    inbox_msg link;
    int id;
} tmsg;

/** The loop, the VU and its coroutine, the inbox it waits on. */
static struct {
    struct ev_loop *loop; /* owned */
    lua_State *L;         /* owned */
    lua_State *co;        /* the VU's thread, anchored on L's stack */
    vu v;
    inbox b;
    int64_t wait_us;  /* the next wait's bound */
    int what;         /* the next wait's mark */
    int resumes;      /* lcoro_resume's calls */
    char outcome[32]; /* what the continuation saw */
    int taken_id;     /* the message it took, -1 none */
} fx;

/* --- the VU's machinery, as vu.c, lcoro.c and lapi.c do it --------------- */

static void on_vu_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    fx.v.wait = VU_IDLE; /* vu.c's on_timer: a wait inside a phase ran out */
    lcoro_resume(&fx.v, 0);
}

void vu_wait_timer(vu *v, int64_t us, enum vu_wait what)
{
    v->wait = (uint8_t)what;
    ev_timer_set(&v->timer, (double)us / 1e6, 0.);
    ev_timer_start(fx.loop, &v->timer);
}

void lcoro_resume(vu *v, int nargs)
{
    int nres = 0;

    fx.resumes++;
    assert_int_equal(lua_resume(fx.co, fx.L, nargs, &nres), LUA_OK);
    snprintf(fx.outcome, sizeof(fx.outcome), "%s", lua_tostring(fx.co, -1));
    lua_settop(fx.co, 0);
}

int lapi_halt(lua_State *L, vu *v)
{
    v->wait = VU_HALT;
    return lua_yield(L, 0);
}

void lapi_wait_ok(lua_State *L, const char *what)
{
    if (!lua_isyieldable(L))
        luaL_error(L, "%s cannot wait here", what);
}

/* --- the stream's Lua side ----------------------------------------------- */

/* The continuation: what a stream's next_k does. */
static int wait_k(lua_State *L, int status, lua_KContext ctx)
{
    tmsg *m;

    inbox_wait_done(&fx.b);
    m = (tmsg *)inbox_pop(&fx.b);
    fx.taken_id = m != NULL ? m->id : -1;
    if (m != NULL) {
        xfree(m);
        lua_pushliteral(L, "message");
        return 1;
    }
    if (ctx == WAIT_OPEN && fx.b.state == INBOX_OPEN) {
        lua_pushliteral(L, "open");
        return 1;
    }
    return linbox_none(L, &fx.b); /* nil, "timeout" or "closed" */
}

/* The script's call: waits as s:next does (or as step:sse for the open). */
static int wait_fn(lua_State *L)
{
    if (fx.what == WAIT_OPEN)
        return linbox_wait(L, &fx.b, &fx.v, fx.wait_us, fx.what, WAIT_OPEN, wait_k);
    return linbox_next(L, &fx.b, &fx.v, fx.wait_us, fx.what, WAIT_NEXT, wait_k);
}

/* Starts the VU's wait: its coroutine yields inside wait_fn. */
static void start_wait(int what, int64_t us)
{
    int nres = 0;

    fx.what = what;
    fx.wait_us = us;
    lua_pushcfunction(fx.co, wait_fn);
    assert_int_equal(lua_resume(fx.co, fx.L, 0, &nres), LUA_YIELD);
    lua_pop(fx.co, nres);
    assert_ptr_equal(fx.b.waiter, &fx.v);
    assert_int_equal(fx.v.wait, what);
}

static int setup(void **state)
{
    memset(&fx, 0, sizeof(fx));
    fx.loop = ev_loop_new(EVFLAG_AUTO);
    fx.L = luaL_newstate();
    fx.co = lua_newthread(fx.L); /* anchored: stays on L's stack */
    ev_init(&fx.v.timer, on_vu_timer);
    fx.taken_id = -1;
    inbox_init(&fx.b, fx.loop, 4, 100);
    return 0;
}

static int teardown(void **state)
{
    inbox_free(&fx.b);
    ev_timer_stop(fx.loop, &fx.v.timer);
    lua_close(fx.L);
    ev_loop_destroy(fx.loop);
    return 0;
}

static tmsg *msg(int id)
{
    tmsg *m = xmalloc(sizeof(*m));

    m->id = id;
    return m;
}

static void push(int id, size_t bytes)
{
    tmsg *m = msg(id);

    assert_int_equal(inbox_push(&fx.b, &m->link, bytes), 0);
}

static int pop_id(void)
{
    tmsg *m = (tmsg *)inbox_pop(&fx.b);
    int id = m != NULL ? m->id : -1;

    xfree(m);
    return id;
}

/* Runs the loop until nothing is due now (the zero timers fire). */
static void run_due(void)
{
    ev_run(fx.loop, EVRUN_NOWAIT);
}

/* --- the queue ----------------------------------------------------------- */

static void test_order(void **state)
{
    assert_null(inbox_peek(&fx.b));
    assert_null(inbox_pop(&fx.b));
    push(1, 10);
    push(2, 0); /* an empty message counts as one */
    push(3, 5);
    assert_int_equal(fx.b.count, 3);
    assert_int_equal(fx.b.bytes, 15);
    assert_int_equal(((tmsg *)inbox_peek(&fx.b))->id, 1);
    assert_int_equal(pop_id(), 1);
    assert_int_equal(fx.b.bytes, 5);
    push(4, 1); /* after a pop, at the end still */
    assert_int_equal(pop_id(), 2);
    assert_int_equal(pop_id(), 3);
    assert_int_equal(pop_id(), 4);
    assert_int_equal(pop_id(), -1);
    assert_int_equal(fx.b.count, 0);
    assert_int_equal(fx.b.bytes, 0);
    push(5, 1); /* emptied: the tail is back at the head */
    assert_int_equal(pop_id(), 5);
}

static void test_count_bound(void **state)
{
    tmsg *m = msg(9);

    for (int i = 0; i < 4; i++)
        push(i, 1);
    assert_false(inbox_fits(&fx.b, 0));
    assert_int_equal(inbox_push(&fx.b, &m->link, 0), -1); /* refused whole */
    assert_int_equal(fx.b.count, 4);
    assert_int_equal(fx.b.bytes, 4);
    assert_int_equal(pop_id(), 0);
    assert_true(inbox_fits(&fx.b, 0)); /* room again */
    assert_int_equal(inbox_push(&fx.b, &m->link, 0), 0);
    for (int i = 1; i < 4; i++)
        assert_int_equal(pop_id(), i);
    assert_int_equal(pop_id(), 9);
}

static void test_byte_bound(void **state)
{
    tmsg *m = msg(9);

    push(1, 60);
    assert_true(inbox_fits(&fx.b, 40));
    assert_false(inbox_fits(&fx.b, 41));
    assert_false(inbox_fits(&fx.b, SIZE_MAX)); /* no wrap past the bound */
    assert_int_equal(inbox_push(&fx.b, &m->link, 41), -1);
    assert_int_equal(fx.b.count, 1);
    assert_int_equal(fx.b.bytes, 60);
    assert_int_equal(inbox_push(&fx.b, &m->link, 40), 0); /* up to the bound exactly */
    assert_int_equal(fx.b.bytes, 100);
    assert_false(inbox_fits(&fx.b, 1));
    assert_true(inbox_fits(&fx.b, 0));
    assert_int_equal(pop_id(), 1);
    assert_int_equal(pop_id(), 9);
}

static void test_free_with_messages(void **state)
{
    inbox zeroed;

    for (int i = 0; i < 3; i++)
        push(i, 7);
    inbox_clear(&fx.b); /* ASan: nothing leaks */
    assert_int_equal(fx.b.count, 0);
    assert_int_equal(fx.b.bytes, 0);
    push(7, 7); /* usable after a clear */
    push(8, 7);
    inbox_free(&fx.b); /* and the teardown frees it again: nothing twice */
    assert_null(inbox_peek(&fx.b));
    memset(&zeroed, 0, sizeof(zeroed));
    inbox_free(&zeroed); /* never initialised */
}

static void test_end_keeps_messages(void **state)
{
    inbox_open(&fx.b);
    push(1, 1);
    inbox_end(&fx.b);
    assert_true(inbox_ended(&fx.b));
    inbox_open(&fx.b); /* an ended inbox does not open again */
    assert_true(inbox_ended(&fx.b));
    assert_int_equal(pop_id(), 1);
}

/* Pushes linbox_none's two values and returns the reason. */
static const char *none_of(const inbox *b, char *out, size_t len)
{
    assert_int_equal(linbox_none(fx.L, b), 2);
    assert_true(lua_isnil(fx.L, -2));
    snprintf(out, len, "%s", lua_tostring(fx.L, -1));
    lua_pop(fx.L, 2);
    return out;
}

static void test_none(void **state)
{
    char why[16];

    assert_string_equal(none_of(NULL, why, sizeof(why)), "closed");  /* the stream is gone */
    assert_string_equal(none_of(&fx.b, why, sizeof(why)), "closed"); /* never opened */
    inbox_open(&fx.b);
    assert_string_equal(none_of(&fx.b, why, sizeof(why)), "timeout");
    inbox_end(&fx.b);
    assert_string_equal(none_of(&fx.b, why, sizeof(why)), "closed");
}

/* --- the wait ------------------------------------------------------------ */

static void test_message_wakes(void **state)
{
    inbox_open(&fx.b);
    start_wait(WAIT_NEXT, 10000000);
    inbox_wake(&fx.b); /* nothing yet: it waits on */
    assert_int_equal(fx.resumes, 0);
    push(1, 3);
    inbox_wake_soon(&fx.b); /* as from inside libcurl: not now */
    assert_int_equal(fx.resumes, 0);
    assert_true(ev_is_active(&fx.b.wake));
    run_due();
    assert_int_equal(fx.resumes, 1);
    assert_string_equal(fx.outcome, "message");
    assert_int_equal(fx.taken_id, 1);
    assert_null(fx.b.waiter);
    assert_int_equal(fx.v.wait, VU_IDLE);
    assert_false(ev_is_active(&fx.v.timer)); /* the VU's timer is stopped */
}

static void test_end_wakes(void **state)
{
    inbox_open(&fx.b);
    start_wait(WAIT_NEXT, 10000000);
    inbox_end(&fx.b); /* the stream closed with a waiter */
    inbox_wake(&fx.b);
    assert_int_equal(fx.resumes, 1);
    assert_string_equal(fx.outcome, "closed");
    assert_false(ev_is_active(&fx.v.timer));
    inbox_wake(&fx.b); /* once only */
    assert_int_equal(fx.resumes, 1);
}

static void test_open_wakes(void **state)
{
    start_wait(WAIT_OPEN, 10000000);
    inbox_wake_soon(&fx.b);
    run_due(); /* still pending: it waits on */
    assert_int_equal(fx.resumes, 0);
    inbox_open(&fx.b);
    inbox_wake(&fx.b);
    assert_int_equal(fx.resumes, 1);
    assert_string_equal(fx.outcome, "open");
}

static void test_timeout_then_late_message(void **state)
{
    inbox_open(&fx.b);
    start_wait(WAIT_NEXT, 1000);
    ev_run(fx.loop, EVRUN_ONCE); /* the VU's timer, the only watcher */
    assert_int_equal(fx.resumes, 1);
    assert_string_equal(fx.outcome, "timeout");
    assert_null(fx.b.waiter);
    push(1, 1); /* too late: nobody waits, nothing is armed */
    inbox_wake_soon(&fx.b);
    assert_false(ev_is_active(&fx.b.wake));
    inbox_wake(&fx.b);
    assert_int_equal(fx.resumes, 1);
    assert_int_equal(pop_id(), 1); /* the next call takes it */
}

static void test_timeout_and_message_at_once(void **state)
{
    inbox_open(&fx.b);
    start_wait(WAIT_NEXT, 1000);
    usleep(5000);
    ev_now_update(fx.loop);
    push(1, 1);
    inbox_wake_soon(&fx.b);
    /* both timers are due in this iteration: whichever runs first resumes
     * the VU, which takes the message; the other does nothing */
    run_due();
    assert_int_equal(fx.resumes, 1);
    assert_string_equal(fx.outcome, "message");
    assert_int_equal(fx.taken_id, 1);
    assert_false(ev_is_active(&fx.v.timer));
    assert_false(ev_is_active(&fx.b.wake));
}

static void test_free_with_waiter(void **state)
{
    inbox_open(&fx.b);
    start_wait(WAIT_NEXT, 10000000);
    push(1, 1);
    inbox_wake_soon(&fx.b);
    inbox_free(&fx.b); /* the VU's phase ended: the stream goes */
    assert_false(ev_is_active(&fx.b.wake));
    assert_null(fx.b.waiter);
    run_due();
    assert_int_equal(fx.resumes, 0); /* nobody resumed from a freed inbox */
}

static void test_other_wait_not_woken(void **state)
{
    inbox_open(&fx.b);
    start_wait(WAIT_NEXT, 10000000);
    fx.v.wait = VU_SLEEP; /* the VU waits for something else now */
    push(1, 1);
    inbox_wake(&fx.b);
    assert_int_equal(fx.resumes, 0);
    fx.v.wait = WAIT_NEXT;
    inbox_wake(&fx.b);
    assert_int_equal(fx.resumes, 1);
}

static int busy_fn(lua_State *L)
{
    return linbox_next(L, &fx.b, &fx.v, 1000, WAIT_NEXT, 0, wait_k);
}

static void test_next_busy_or_halting(void **state)
{
    int nres = 0;

    inbox_open(&fx.b);
    fx.v.wait = VU_SLEEP;
    lua_pushcfunction(fx.L, busy_fn);
    assert_int_equal(lua_pcall(fx.L, 0, 0, 0), LUA_ERRRUN);
    assert_non_null(strstr(lua_tostring(fx.L, -1), "one thing at a time"));
    lua_pop(fx.L, 1);
    assert_null(fx.b.waiter);
    fx.v.wait = VU_IDLE;
    fx.v.halting = 1;
    lua_pushcfunction(fx.co, busy_fn);
    assert_int_equal(lua_resume(fx.co, fx.L, 0, &nres), LUA_YIELD);
    assert_int_equal(fx.v.wait, VU_HALT); /* halted, not waiting */
    assert_null(fx.b.waiter);
    assert_false(ev_is_active(&fx.v.timer));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_count_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_byte_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_with_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_end_keeps_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_none, setup, teardown),
        cmocka_unit_test_setup_teardown(test_message_wakes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_end_wakes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_wakes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_then_late_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_and_message_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_with_waiter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_wait_not_woken, setup, teardown),
        cmocka_unit_test_setup_teardown(test_next_busy_or_halting, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
