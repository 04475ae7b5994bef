/* inbox — a VU's bounded inbox: what a stream received and its VU has not
 * taken yet, and the VU's wait for the next of it.
 *
 * What it is for: an event stream (sse.h), a WebSocket (websocket.h) and a
 * gRPC server stream (gstream.h) receive on the loop while their VU's
 * script runs. Each queues what it received here, oldest first, under two
 * bounds, a count and bytes: a message past either is refused whole
 * (inbox_fits, inbox_push), and the stream says what then (each closes
 * itself with an error). The inbox also knows where its source is
 * (pending, open, ended: messages already in can still be taken once it
 * ended) and the one VU that waits on it: the VU yields (linbox_wait) until
 * the inbox moves on (pending to open or ended; open to a message or the
 * end) or the VU's own timer runs out, whichever comes first; the VU's
 * continuation then calls inbox_wait_done and looks. Waking never resumes
 * from inside libcurl: inbox_wake_soon arms a zero timer, inbox_wake (from
 * a loop callback) resumes at once.
 *
 * A message is a block of its stream's type, made with xmalloc, whose first
 * member is an inbox_msg: the inbox owns it from inbox_push until inbox_pop
 * hands it back, and xfrees it when cleared.
 *
 * Use:
 *     inbox_init(&c->in, loop, SSE_QUEUE_MAX, SSE_QUEUE_BYTES);
 *     if (!inbox_fits(&c->in, n)) ... over a bound: the stream closes ...
 *     m = xmalloc(sizeof(*m) + n); ...; inbox_push(&c->in, &m->link, n);
 *     inbox_wake_soon(&c->in);                    (in libcurl's callback)
 *     return linbox_next(L, &c->in, v, us, VU_SSENEXT, CTX_NEXT, next_k);
 *     ... next_k: inbox_wait_done(&c->in); m = (sse_event *)inbox_pop(&c->in);
 *     inbox_free(&c->in);
 * The Lua side of the wait (the yield, the script's call for the next
 * message, what it gets when none came) is linbox.h's: the inbox itself
 * includes no Lua header. Internal to worker/. */
#ifndef QUERN_INBOX_H
#define QUERN_INBOX_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>

struct vu;

enum inbox_state {
    INBOX_PENDING, /**< its source is not open yet: nothing comes */
    INBOX_OPEN,    /**< messages may come */
    INBOX_ENDED    /**< no more will come; those in can still be taken */
};

/** The first member of a queued message. */
typedef struct inbox_msg {
    struct inbox_msg *next; /**< owned: the next in the inbox, NULL for the last */
    size_t bytes;           /**< what it counts against the byte bound */
} inbox_msg;

/** The inbox, held inside its stream. */
typedef struct inbox {
    inbox_msg *head;      /**< owned: the oldest message, NULL none */
    inbox_msg **tail;     /**< borrowed: the link the next push fills (&head, or the last's) */
    size_t count;         /**< messages held */
    size_t bytes;         /**< their bytes */
    size_t max_count;     /**< a message beyond this many is refused */
    size_t max_bytes;     /**< and one that would take bytes past this */
    uint8_t state;        /**< enum inbox_state */
    uint8_t wait_from;    /**< the state when the waiter began to wait */
    int wait_what;        /**< the waiter's enum vu_wait while it waits here */
    struct vu *waiter;    /**< borrowed: the VU that waits on it, NULL none */
    struct ev_loop *loop; /**< borrowed: the engine's, NULL in a test that never waits */
    ev_timer wake;        /**< resumes the waiter from the loop (zero timer) */
} inbox;

/** Makes b empty and pending, with its bounds. A zeroed inbox may be freed
 *  without being initialised. */
void inbox_init(inbox *b, struct ev_loop *loop, size_t max_count, size_t max_bytes);
/** 1 when a message of bytes would be taken now, 0 when it is past a bound:
 *  asked before the message is made. */
int inbox_fits(const inbox *b, size_t bytes);
/** Appends m, counted as bytes: 0, or -1 past a bound (m stays the
 *  caller's). Wakes nobody: the caller does, from where it may. */
int inbox_push(inbox *b, inbox_msg *m, size_t bytes);
/** The oldest message, taken out (owned by the caller, xfree it), or NULL. */
inbox_msg *inbox_pop(inbox *b);
/** The oldest message, left in (owned by b), or NULL. */
inbox_msg *inbox_peek(const inbox *b);
/** Frees the messages held; the state and the waiter stay. */
void inbox_clear(inbox *b);
/** Frees the messages, stops the wake timer, forgets the waiter (which is
 *  not resumed). */
void inbox_free(inbox *b);
/** The source opened: messages may come. */
void inbox_open(inbox *b);
/** The source ended: no more messages (those in stay). Nothing once ended. */
void inbox_end(inbox *b);
/** 1 once the source ended. */
int inbox_ended(const inbox *b);
/** The waiter runs again (woken, its time ran out, or its phase ended): b
 *  forgets it. Called first by the continuation. */
void inbox_wait_done(inbox *b);
/** From inside libcurl: when a VU waits on b, resumes it from the loop
 *  soon (a zero timer), where inbox_wake decides. */
void inbox_wake_soon(inbox *b);
/** From the loop: resumes the waiter when b moved on since it began to wait
 *  and the VU still waits this wait. Called last: the script may free b's
 *  stream. */
void inbox_wake(inbox *b);
/** From the loop: resumes the waiter, whatever moved, when the VU still
 *  waits this wait: for a source that judges itself what its waiter waits
 *  for (a socket's piece, sock.h). Called last, as inbox_wake. */
void inbox_wake_any(inbox *b);

#endif
