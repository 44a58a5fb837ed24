// libsystemd's sd-bus, as Swift sees it: the D-Bus client the BlueZDBus target speaks to bluetoothd with.
// Only sd-bus's non-variadic calls are used (sd_bus_message_append_basic, open_container, read_basic, …);
// what Swift cannot spell is wrapped here as prefixed static inline functions (after GRDB's GRDBSQLite shim).
#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

/// SD_BUS_ERROR_NULL: an empty error to be filled by sd-bus.
static inline sd_bus_error CSystemd_error_null(void) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    return error;
}

/// CLOCK_MONOTONIC in microseconds: the scale sd_bus_get_timeout answers in.
static inline uint64_t CSystemd_monotonic_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/// A duplicate of `fd` that survives the message it came in (sd-bus closes a message's descriptors with it).
static inline int CSystemd_dup_cloexec(int fd) {
    return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

#endif
