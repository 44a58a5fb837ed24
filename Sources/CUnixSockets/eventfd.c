#include "CUnixSockets.h"
#include <sys/eventfd.h>

int CUnixSockets_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}
