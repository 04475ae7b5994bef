/* lstream — the Lua object of a stream a VU reads; see lstream.h. */
#include "worker/lua/lstream.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "worker/engine/engine.h"
#include "worker/plugs/inbox.h"
#include "worker/lua/linbox.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lquern.h"
#include "worker/engine/lscript.h"
#include "worker/lua/lreqopt.h"
#include "worker/wire/reqopt.h"
#include "worker/engine/vu.h"

/* an opener's step: 1 step, 2 URL, 3 opts (or its opts_idx) */
enum { IDX_OPTS = 3 };

static int opener_opts(const lstream_opener *o)
{
    return o->opts_idx > 0 ? o->opts_idx : IDX_OPTS;
}

static inbox *stream_in(const lstream *s)
{
    return (inbox *)((char *)s->c + s->kind->in_off);
}

/* Points s's stream's slot at where (NULL: none). The slot is typed as a
 * pointer to the protocol's own stream: written as the bytes it holds. */
static void set_slot(const lstream *s, void **where)
{
    memcpy((char *)s->c + s->kind->slot_off, &where, sizeof(where));
}

static int stream_open(const lstream *s)
{
    return ((const uint8_t *)s->c)[s->kind->state_off] == s->kind->open_state;
}

/* --- the open ------------------------------------------------------------ */

/* The open of c judged as an HTTP answer: the pending sample takes the
 * wait; raises unless the answer came and was accepted. */
static void answered(lua_State *L, vu *v, const lstream_opener *o, void *c)
{
    lstream_view w;
    char msg[VU_MSG_MAX];

    if (c == NULL)
        lstream_fail(L, v, -1, 1, o->gone);
    o->view(c, &w);
    if (v->pend.step >= 0) /* no answer yet: the wait so far is its time */
        vu_sample_add(&v->pend, w.fig, w.start_us);
    if (w.waiting) {
        err_set(msg, sizeof(msg), "%s %lld ms", o->late,
                (long long)((clock_mono_us() - w.start_us) / 1000));
        if (o->give_up != NULL)
            o->give_up(c);
        lstream_fail(L, v, w.step, 1, msg);
    }
    if (!w.opened) /* closed before it opened: refused; after: next says so */
        lstream_fail(L, v, w.step, 1, w.err[0] ? w.err : o->refused);
}

/* ctx: the object's index */
static int open_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    lstream *s = lua_touserdata(L, (int)ctx);

    if (s->c != NULL)
        inbox_wait_done(stream_in(s));
    if (s->kind->opened != NULL)
        s->kind->opened(L, v, s->c);
    else
        answered(L, v, s->kind->opener, s->c);
    lua_settop(L, (int)ctx);
    return 1;
}

lstream *lstream_new(lua_State *L, const lstream_kind *k, size_t size, int64_t wait_us)
{
    lstream *s = lua_newuserdatauv(L, size, 0);

    memset(s, 0, size);
    s->kind = k;
    s->wait_us = wait_us;
    lapi_setmt(L, k);
    return s;
}

int lstream_open(lua_State *L, lstream *s, void *c, vu *v, int64_t us, int idx, const char *err)
{
    if (c == NULL) {
        v->pend.step = -1; /* nothing was sent: not a sample */
        return luaL_error(L, "%s", err);
    }
    s->c = c;
    set_slot(s, &s->c);
    return linbox_wait(L, stream_in(s), v, us, s->kind->open_wait, idx, open_k);
}

int lstream_fail(lua_State *L, vu *v, int sidx, int in_sample, const char *msg)
{
    return vu_check_fail(L, v, sidx, in_sample && v->pend.step >= 0, 1, msg);
}

/* --- the step that opens one --------------------------------------------- */

/* 1 when name is one of list's, "a, b, c". */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || strchr(name, ',') != NULL) /* no run of names, no "" at a list's end */
        return 0;
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Stack as IDX_*: reads the options (the open's wait among them) and opens. */
static int begin(lua_State *L, vu *v, const lstream_opener *o)
{
    scen *sc = engine_scens(v->eng)->scens[v->scen];
    int64_t us = LSTREAM_WAIT_US;
    int at = opener_opts(o);

    lua_settop(L, at);
    if (sc->req != NULL && (sc->req->set & REQOPT_TIMEOUT))
        us = (int64_t)sc->req->timeout_ms * 1000;
    if (lua_istable(L, at)) {
        lua_pushnil(L);
        while (lua_next(L, at) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            if (strcmp(k, "timeout") == 0)
                us = lapi_check_duration(L, -1, "timeout");
            else if (!listed(o->options, k))
                luaL_error(L, "unknown %s option \"%s\" (known: %s)", o->step, k, o->options);
            lua_pop(L, 1);
        }
    }
    return o->start(L, v, us);
}

/* ctx: the opener; the think time is over */
static int think_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);

    vu_sample_begin(v, lquern_step_index(L, 1));
    return begin(L, v, (const lstream_opener *)ctx);
}

/* step:NAME(url, opts) (upvalue 1: the opener): the checks of a VU's
 * request, then the step's sample begins (after the think time) and the
 * opener opens. */
static int l_step(lua_State *L)
{
    const lstream_opener *o = lua_touserdata(L, lua_upvalueindex(1));
    vu *v = lapi_request_vu(L, o->step, "is used", o->step);
    scen *sc;

    if (v->halting)
        return lapi_halt(L, v);
    luaL_checkstring(L, 2);
    if (o->args != NULL)
        o->args(L);
    if (!lua_isnoneornil(L, opener_opts(o)))
        luaL_checktype(L, opener_opts(o), LUA_TTABLE);
    lua_settop(L, opener_opts(o));
    lquern_vu_step(L, v, 1);
    if (v->pend.in_block)
        return begin(L, v, o); /* the block's sample takes it */
    vu_finalize(v);
    sc = engine_scens(v->eng)->scens[v->scen];
    if (v->steps_in_run > 0 && sc->think_max_us > 0) {
        vu_wait_timer(v, engine_rand_range(v->eng, sc->think_min_us, sc->think_max_us), VU_THINK);
        return lua_yieldk(L, 0, (lua_KContext)o, think_k);
    }
    vu_sample_begin(v, lquern_step_index(L, 1));
    return begin(L, v, o);
}

const reqopt *lstream_reqopt(lua_State *L, vu *v, int idx)
{
    reqopt *ro;

    if (!lua_istable(L, idx)) {
        lua_pushnil(L);
        return NULL;
    }
    ro = lreqopt_push(L);
    lreqopt_read(L, idx, lscript_dir(L), 0, ro, engine_run_reqopt(v->eng), 0);
    return ro;
}

/* --- the object's methods ------------------------------------------------ */

lstream *lstream_check(lua_State *L, const lstream_kind *k, vu *v)
{
    lstream *s = lapi_checkud(L, 1, k, k->mt);
    vu *owner;

    if (s->c != NULL) {
        owner = *(vu **)((char *)s->c + k->owner_off);
        if (owner != v) /* only the owner is woken: another would wait forever */
            /* %I: lua_pushfstring has no %u */
            luaL_error(L, "this %s belongs to VU %I", k->what, (lua_Integer)owner->gid);
    }
    return s;
}

/* Pushes the next item of s's stream: how many values, 0 none. */
static int take(lua_State *L, lstream *s)
{
    return s->c != NULL ? s->kind->push(L, s) : 0;
}

static int none(lua_State *L, lstream *s)
{
    if (s->kind->none != NULL)
        return s->kind->none(L, s);
    return linbox_none(L, s->c != NULL ? stream_in(s) : NULL);
}

static int next_k(lua_State *L, int status, lua_KContext ctx)
{
    lstream *s = lua_touserdata(L, 1);
    int n;

    if (s->c != NULL)
        inbox_wait_done(stream_in(s));
    if ((n = take(L, s)) > 0)
        return n;
    return none(L, s);
}

/* s:next([timeout]) (upvalue 1: the kind), and the iterator of a for loop
 * (upvalue 2: the object, so that it can be called alone). */
static int l_next(lua_State *L)
{
    const lstream_kind *k = lua_touserdata(L, lua_upvalueindex(1));
    vu *v = vu_current(L);
    lstream *s;
    int64_t us;
    int n;

    if (lua_type(L, lua_upvalueindex(2)) == LUA_TUSERDATA) {
        lua_settop(L, 0);
        lua_pushvalue(L, lua_upvalueindex(2));
    }
    s = lstream_check(L, k, v);
    us = s->wait_us;
    if (k->timeout_what != NULL && !lua_isnoneornil(L, 2))
        us = lapi_check_duration(L, 2, k->timeout_what);
    lua_settop(L, 1);
    if ((n = take(L, s)) > 0)
        return n;
    if (s->c == NULL || !stream_open(s) || v == NULL)
        return none(L, s);
    return linbox_next(L, stream_in(s), v, us, k->next_wait, 0, next_k);
}

/* s:close(...) (upvalue 1: the kind) */
static int l_close(lua_State *L)
{
    const lstream_kind *k = lua_touserdata(L, lua_upvalueindex(1));
    lstream *s = k->any_close ? lapi_checkud(L, 1, k, k->mt) : lstream_check(L, k, vu_current(L));

    return k->close(L, s->c);
}

void lstream_push_iter(lua_State *L, const lstream_kind *k)
{
    lua_pushlightuserdata(L, (void *)k);
    lua_pushvalue(L, 1);
    lua_pushcclosure(L, l_next, 2);
}

/* upvalue 1: the methods, 2: the kind */
static int l_index(lua_State *L)
{
    const lstream_kind *k = lua_touserdata(L, lua_upvalueindex(2));
    const char *name;
    lstream *s = lapi_index(L, k, k->mt, &name);

    if (s != NULL && !k->field(L, s, name))
        lua_pushnil(L);
    return 1;
}

static int l_gc(lua_State *L)
{
    lstream *s = lua_touserdata(L, 1);

    if (s->c != NULL)
        set_slot(s, NULL); /* the VU's list still owns it */
    return 0;
}

/* Pushes fn as a closure over k. */
static void push_fn(lua_State *L, const lstream_kind *k, lua_CFunction fn)
{
    lua_pushlightuserdata(L, (void *)k);
    lua_pushcclosure(L, fn, 1);
}

void lstream_register(lua_State *L, const lstream_kind *k, int methods)
{
    if (k->opener != NULL) {
        lua_pushlightuserdata(L, (void *)k->opener);
        lua_pushcclosure(L, l_step, 1);
        lua_setfield(L, methods, k->opener->step + strlen("step:"));
    }
    lapi_newmt(L, k, k->mt);
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, -2, "__gc");
    lua_newtable(L); /* the methods */
    if (k->methods != NULL)
        luaL_setfuncs(L, k->methods, 0);
    if (k->next != NULL) {
        push_fn(L, k, l_next);
        lua_setfield(L, -2, k->next);
    }
    push_fn(L, k, l_close);
    if (k->any_close) {
        lua_pushvalue(L, -1);
        lua_setfield(L, -4, "__close");
    }
    lua_setfield(L, -2, "close");
    lua_pushlightuserdata(L, (void *)k);
    lua_pushcclosure(L, l_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
