/* loopask — a request to a server under test on loopback (loopask.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/unit/loopask.h"

void loopask(unsigned port, const char *req, char *buf, size_t len)
{
    struct sockaddr_in sa;
    ssize_t n, got = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    while (got < (ssize_t)len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
        got += n;
    buf[got] = '\0';
    close(fd);
}

unsigned loopask_refusing_port(int *fd)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);

    *fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(*fd >= 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(*fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(getsockname(*fd, (struct sockaddr *)&sa, &len), 0);
    return ntohs(sa.sin_port);
}
