/* duefd — a wake-up at an absolute monotonic time; see duefd.h. */
#include "worker/duefd.h"

#include <sys/timerfd.h>
#include <unistd.h>

/* The timerfd is readable: its count read to clear it, then the owner's
 * callback. EAGAIN (re-armed between the expiry and this read) is not a
 * wake-up. */
static void on_ready(struct ev_loop *loop, ev_io *w, int revents)
{
    duefd *d = w->data;
    uint64_t expirations;

    (void)revents;
    if (read(d->fd, &expirations, sizeof(expirations)) != (ssize_t)sizeof(expirations))
        return;
    d->cb(loop, d);
}

void duefd_clear(duefd *d)
{
    d->fd = -1;
    d->cb = NULL;
    d->data = NULL;
}

int duefd_init(duefd *d, duefd_cb cb, void *data)
{
    duefd_clear(d);
    d->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (d->fd < 0)
        return -1;
    d->cb = cb;
    d->data = data;
    ev_io_init(&d->io, on_ready, d->fd, EV_READ);
    d->io.data = d;
    return 0;
}

int duefd_arm(duefd *d, struct ev_loop *loop, int64_t at_us)
{
    struct itimerspec its = {0};

    /* A zero it_value would disarm it: the earliest time is 1 ns. */
    if (at_us <= 0) {
        its.it_value.tv_nsec = 1;
    } else {
        its.it_value.tv_sec = at_us / 1000000;
        its.it_value.tv_nsec = (long)(at_us % 1000000) * 1000;
    }
    if (timerfd_settime(d->fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
        return -1;
    if (!ev_is_active(&d->io))
        ev_io_start(loop, &d->io);
    return 0;
}

void duefd_stop(duefd *d, struct ev_loop *loop)
{
    if (d->fd >= 0)
        ev_io_stop(loop, &d->io);
}

void duefd_free(duefd *d)
{
    if (d->fd >= 0)
        close(d->fd);
    duefd_clear(d);
}
