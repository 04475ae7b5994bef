/* lstream — the Lua object of a stream a VU reads (an SSE event stream, a
 * WebSocket, a gRPC server stream), and the step that opens one.
 *
 * What it is for: lsse.c, lwebsocket.c and lgstream.c hand the script an
 * object that points at their stream (sse.h, websocket.h, gstream.h). The
 * VU's list owns the stream and frees it when the VU's phase ends, clearing
 * the object's pointer through the stream's slot: the object then answers
 * as a closed stream. What the three share is here: the object and its
 * metatable (__index, __gc), the owner check (only the stream's VU is
 * woken, so no other may wait on it), the wait for the open and for the
 * next item, each bounded by the VU's timer, and close. Each binding
 * describes its stream once, in a static lstream_kind: where its inbox, VU
 * and state are, how one item becomes Lua values, how its open is judged,
 * its fields and its own methods. step:sse and step:ws also share the step
 * that opens their stream (an lstream_opener): the checks of a request,
 * the think time, the options, the answer judged after the wait.
 *
 * Usage:
 *     static const lstream_kind kind = {.mt = "quern.EventStream", ...};
 *     lstream_register(L, &kind, methods);       (once: the metatable, step:sse)
 *     ... opener.start: s = lstream_new(L, &kind, sizeof(*s), LSTREAM_WAIT_US);
 *     c = sse_open(v, &cfg, err, sizeof(err));
 *     return lstream_open(L, s, c, v, us, IDX_CONN, err);   (the VU waits)
 * Internal to worker/. */
#ifndef QUERN_LSTREAM_H
#define QUERN_LSTREAM_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>
#include <stdint.h>

struct vu;
struct reqopt;
struct xfer_figures;

#define LSTREAM_WAIT_US 60000000 /* a step's open and a wait for an item, by default */

struct lstream_kind;

/** The Lua object, the first member of a binding's own when it has more. */
typedef struct lstream {
    void *c; /**< borrowed: the stream, owned by the VU's list, NULL once gone: its
                  protocol clears it through the stream's slot, a pointer to its own
                  type (GCC and clang let a void * alias any object pointer) */
    const struct lstream_kind *kind; /**< borrowed: static */
    int64_t wait_us;                 /**< the wait for the next item when the script gives none */
} lstream;

/** What the open of a stream on HTTP came to after its wait (lstream_opener.view). */
typedef struct lstream_view {
    const struct xfer_figures *fig; /**< borrowed: the stream's, for its sample */
    int64_t start_us;               /**< the monotonic start of its request */
    int step;                       /**< the step it counts against, -1 none */
    int waiting;                    /**< 1: no answer came */
    int opened;                     /**< 1: the answer was accepted (it may have closed since) */
    const char *err;                /**< borrowed: why it closed, "" none */
} lstream_view;

/** A step of its own that opens a stream on HTTP (step:sse, step:ws): static. */
typedef struct lstream_opener {
    const char *step;    /**< borrowed: its name in errors, "step:NAME", NAME its method */
    const char *options; /**< borrowed: the options it takes, timeout among them, as its
                              error lists them: "headers, last_event_id, timeout, ..." */
    /** Checks the URL at 2 (a string already), and what comes before the
     *  options; NULL: any string. */
    void (*args)(lua_State *L);
    int opts_idx; /**< the options' index, 0: 3 (after the URL); the stack start
                       gets is 1 step, 2 URL, ..., the options there (checked) */
    /** Stack 1 step, 2 URL, 3 opts (checked): opens the stream, us the open's
     *  longest wait (lstream_new, then lstream_open). */
    int (*start)(lua_State *L, struct vu *v, int64_t us);
    /** What the open of c came to. */
    void (*view)(void *c, lstream_view *w);
    /** Done to c when the wait ran out without an answer, before the error;
     *  NULL: nothing. */
    void (*give_up)(void *c);
    const char *gone;    /**< borrowed: the error once the stream is gone */
    const char *late;    /**< borrowed: the start of the error when no answer came, before
                              " N ms" */
    const char *refused; /**< borrowed: the error when it closed before it opened, with no
                              reason of its own */
} lstream_opener;

/** The members of a stream type T (sse, websocket, gstream) that lstream
 *  reads and writes, all named alike (in, owner, state, slot), and its
 *  state open while items may come: in an lstream_kind's initialiser. */
#define LSTREAM_AT(T, open)                                                                        \
    .in_off = offsetof(T, in), .owner_off = offsetof(T, owner), .state_off = offsetof(T, state),   \
    .slot_off = offsetof(T, slot), .open_state = (open)

/** A protocol's stream as its Lua object sees it: static, one a binding. */
typedef struct lstream_kind {
    const char *mt;   /**< borrowed: the metatable's name, "quern.EventStream" */
    const char *what; /**< borrowed: the stream in the owner check's error, "event stream" */
    const char *next; /**< borrowed: the method that takes the next item, "next", "receive";
                           NULL: none (the binding reads in methods of its own) */
    const char *timeout_what; /**< borrowed: its argument 2 in an error, "next timeout"; NULL: it
                                   takes none and waits the object's wait_us */
    size_t in_off;            /**< offsetof(the stream, in): its inbox */
    size_t owner_off;         /**< offsetof(the stream, owner): its VU */
    size_t state_off;         /**< offsetof(the stream, state), a uint8_t */
    size_t slot_off;          /**< offsetof(the stream, slot): its pointer to the object's c */
    uint8_t open_state;       /**< that state while items may come: next waits only then */
    uint8_t any_close;        /**< 1: close is __close too (a for loop's closing value), and
                                   any VU may close the stream */
    int open_wait;            /**< the VU's enum vu_wait while the stream opens */
    int next_wait;            /**< and while it waits for an item */
    /** Takes the next item out of s's stream (there is one) and pushes it:
     *  how many values, 0 none. */
    int (*push)(lua_State *L, lstream *s);
    /** next's results when no item came (s's stream may be gone); NULL: nil
     *  and "timeout" or "closed" (linbox_none). */
    int (*none)(lua_State *L, lstream *s);
    /** close's work on c (NULL once gone), its arguments from 2; returns its results. */
    int (*close)(lua_State *L, void *c);
    /** Pushes field k of s and returns 1, or returns 0: nil. */
    int (*field)(lua_State *L, lstream *s, const char *k);
    /** After the open's wait, c NULL once gone: raises unless c opened.
     *  NULL: judged as an HTTP answer by opener. */
    void (*opened)(lua_State *L, struct vu *v, void *c);
    const lstream_opener *opener; /**< borrowed: its step's, NULL: opened elsewhere */
    const luaL_Reg *methods; /**< borrowed: its own beside next and close, NULL-ended, or NULL */
} lstream_kind;

/** Creates k's metatable, its methods next, close and k's own; with an
 *  opener, its step goes into the Step's methods table at index methods. */
void lstream_register(lua_State *L, const lstream_kind *k, int methods);
/** Pushes a new object of k, size bytes (an lstream first, the rest the
 *  binding's), zeroed, without a stream yet; wait_us: its next's wait.
 *  Returns it (owned by Lua). */
lstream *lstream_new(lua_State *L, const lstream_kind *k, size_t size, int64_t wait_us);
/** s at idx is c's object, c just opened by v (NULL: refused, the reason
 *  in err, raised and not a sample): v waits at most us for the open, and
 *  resumes with the object once it is judged (the kind's opened, or its
 *  opener). Returns what the C function returns. */
int lstream_open(lua_State *L, lstream *s, void *c, struct vu *v, int64_t us, int idx,
                 const char *err);
/** The object at 1, of k (else a Lua error); raises when its stream is
 *  another VU's than v (one kept in a global). */
lstream *lstream_check(lua_State *L, const lstream_kind *k, struct vu *v);
/** A technical error of a stream's step sidx, raised like a failed check
 *  (lresponse.c): the pending sample takes it when in_sample and one is
 *  pending, else it is counted. */
int lstream_fail(lua_State *L, struct vu *v, int sidx, int in_sample, const char *msg);
/** Pushes k's next bound to the object at 1, a for loop's iterator (that
 *  may be called alone too). */
void lstream_push_iter(lua_State *L, const lstream_kind *k);
/** For o->start: pushes the connection options of the opts at idx (a
 *  reqopt, on the stack while the stream opens: its resolve list lives), or
 *  nil; returns them (owned by Lua), NULL none. */
const struct reqopt *lstream_reqopt(lua_State *L, struct vu *v, int idx);

#endif
