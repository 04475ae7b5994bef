/* duetimer — a wake-up at an absolute monotonic time; see duetimer.h. */
#include "worker/wire/duetimer.h"

#include <sys/timerfd.h>
#include <unistd.h>

/* The timerfd is readable: its count read to clear it, then the owner's
 * callback. EAGAIN (re-armed between the expiry and this read) is not a
 * wake-up. */
static void on_ready(struct ev_loop *loop, ev_io *w, int revents)
{
    duetimer *d = w->data;
    uint64_t expirations;

    (void)revents;
    if (read(d->fd, &expirations, sizeof(expirations)) != (ssize_t)sizeof(expirations))
        return;
    d->cb(loop, d);
}

void duetimer_clear(duetimer *d)
{
    d->fd = -1;
    d->cb = NULL;
    d->data = NULL;
}

int duetimer_init(duetimer *d, duetimer_cb cb, void *data)
{
    duetimer_clear(d);
    d->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (d->fd < 0)
        return -1;
    d->cb = cb;
    d->data = data;
    ev_io_init(&d->io, on_ready, d->fd, EV_READ);
    d->io.data = d;
    return 0;
}

int duetimer_arm(duetimer *d, struct ev_loop *loop, int64_t at_us)
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

void duetimer_stop(duetimer *d, struct ev_loop *loop)
{
    if (d->fd >= 0)
        ev_io_stop(loop, &d->io);
}

void duetimer_free(duetimer *d)
{
    if (d->fd >= 0)
        close(d->fd);
    duetimer_clear(d);
}
