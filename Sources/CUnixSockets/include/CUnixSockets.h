// What Swift's Glibc module does not show of the socket layer: eventfd (sys/eventfd.h).
#ifndef CUNIXSOCKETS_H
#define CUNIXSOCKETS_H

/// A non-blocking, close-on-exec eventfd (wakes threads waiting in poll()).
int CUnixSockets_eventfd(void);

#endif
