/* intend — a sample's intended start; see intend.h. */
#include "worker/wire/intend.h"

int64_t intend_lag(int64_t due_us, int64_t start_us)
{
    return due_us > 0 && start_us > due_us ? start_us - due_us : 0;
}

int64_t intend_take(int64_t *lag_us)
{
    int64_t lag = *lag_us;

    *lag_us = 0;
    return lag;
}

uint64_t intend_response(int64_t service_us, int64_t lag_us)
{
    uint64_t s = service_us > 0 ? (uint64_t)service_us : 0;
    uint64_t l = lag_us > 0 ? (uint64_t)lag_us : 0;

    return s > UINT64_MAX - l ? UINT64_MAX : s + l;
}
