/* inbox — a VU's bounded inbox; see inbox.h. */
#include "worker/plugs/inbox.h"

#include <string.h>

#include "common/mem.h"
#include "worker/engine/lcoro.h"
#include "worker/engine/vu.h"

static void on_wake(struct ev_loop *loop, ev_timer *w, int revents)
{
    inbox_wake((inbox *)((char *)w - offsetof(inbox, wake)));
}

void inbox_init(inbox *b, struct ev_loop *loop, size_t max_count, size_t max_bytes)
{
    memset(b, 0, sizeof(*b));
    b->tail = &b->head;
    b->max_count = max_count;
    b->max_bytes = max_bytes;
    b->state = INBOX_PENDING;
    b->loop = loop;
    ev_init(&b->wake, on_wake);
}

int inbox_fits(const inbox *b, size_t bytes)
{
    /* b->bytes never passes max_bytes: the difference does not wrap */
    return b->count < b->max_count && bytes <= b->max_bytes - b->bytes;
}

int inbox_push(inbox *b, inbox_msg *m, size_t bytes)
{
    if (!inbox_fits(b, bytes))
        return -1;
    m->next = NULL;
    m->bytes = bytes;
    *b->tail = m;
    b->tail = &m->next;
    b->count++;
    b->bytes += bytes;
    return 0;
}

inbox_msg *inbox_pop(inbox *b)
{
    inbox_msg *m = b->head;

    if (m == NULL)
        return NULL;
    b->head = m->next;
    if (b->head == NULL)
        b->tail = &b->head;
    b->count--;
    b->bytes -= m->bytes;
    m->next = NULL;
    return m;
}

inbox_msg *inbox_peek(const inbox *b)
{
    return b->head;
}

void inbox_clear(inbox *b)
{
    inbox_msg *m;

    while ((m = inbox_pop(b)) != NULL)
        xfree(m);
    b->tail = &b->head; /* a zeroed inbox too */
}

void inbox_free(inbox *b)
{
    inbox_clear(b);
    if (b->loop != NULL)
        ev_timer_stop(b->loop, &b->wake);
    b->waiter = NULL;
}

void inbox_open(inbox *b)
{
    if (b->state == INBOX_PENDING)
        b->state = INBOX_OPEN;
}

void inbox_end(inbox *b)
{
    b->state = INBOX_ENDED;
}

int inbox_ended(const inbox *b)
{
    return b->state == INBOX_ENDED;
}

void inbox_wait_done(inbox *b)
{
    b->waiter = NULL;
}

/* 1 when what the waiter waits for came: the source opened or ended, or a
 * message is in (a wait for the next one starts with none in). */
static int moved_on(const inbox *b)
{
    return b->state != b->wait_from || b->head != NULL;
}

void inbox_wake_soon(inbox *b)
{
    if (b->waiter != NULL && !ev_is_active(&b->wake)) {
        ev_timer_set(&b->wake, 0., 0.);
        ev_timer_start(b->loop, &b->wake);
    }
}

/* Resumes v, b's waiter. */
static void resume(inbox *b, vu *v)
{
    b->waiter = NULL;
    ev_timer_stop(b->loop, &v->timer);
    v->wait = VU_IDLE;
    lcoro_resume(v, 0);
}

void inbox_wake(inbox *b)
{
    vu *v = b->waiter;

    if (v != NULL && moved_on(b) && v->wait == b->wait_what)
        resume(b, v);
}

void inbox_wake_any(inbox *b)
{
    vu *v = b->waiter;

    if (v != NULL && v->wait == b->wait_what)
        resume(b, v);
}
