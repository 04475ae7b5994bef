/* inaddr — what an IP address is, for the access rules of the console's
 * listeners (the agent link, --metrics, --web): a loopback address needs no
 * token, any other does.
 *
 * Usage:
 *     if (!inaddr_is_loopback(res->ai_addr) && token == NULL) ... refuse */
#ifndef QUERN_INADDR_H
#define QUERN_INADDR_H

#include <sys/socket.h>

/** 1 when sa is an IPv4 address in 127.0.0.0/8 or the IPv6 loopback ::1,
 *  else 0 (other families included). */
int inaddr_is_loopback(const struct sockaddr *sa);

#endif
