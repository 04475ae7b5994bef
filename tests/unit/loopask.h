/* loopask — a request to a server under test on 127.0.0.1: the bytes sent
 * as they are, the answer read until the server closes the connection or
 * the buffer is full. A failed connect or write fails the calling test.
 * Also a port where nobody answers.
 * Link tests/unit/loopask.c. */
#ifndef QUERN_TESTS_LOOPASK_H
#define QUERN_TESTS_LOOPASK_H

#include <stddef.h>

/* Sends req to 127.0.0.1:port and reads the answer into buf (len bytes,
 * NUL-ended, cut to fit). */
void loopask(unsigned port, const char *req, char *buf, size_t len);

/* A port of 127.0.0.1 where a connect is refused: a socket bound to it but
 * not listening, held in *fd (close it when done) so that no one else takes
 * the port meanwhile. */
unsigned loopask_refusing_port(int *fd);

#endif
