// BlueZ's libbluetooth and the kernel's Bluetooth socket ABI, as Swift sees them.
// Macros and struct initialisation Swift cannot express are wrapped as prefixed static inline
// functions (after swift-nio's CNIOLinux and GRDB's GRDBSQLite shim).
#ifndef CBLUEZ_SHIM_H
#define CBLUEZ_SHIM_H

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>

/// The L2CAP fixed channel that carries ATT on LE links (Core 5.3 Vol 3 Part A §2.1).
static const uint16_t CBlueZ_ATT_CID = 4;

/// Fills a sockaddr_l2 for an LE fixed channel. `address` is 6 bytes, least significant first
/// (bdaddr_t order); `addressType` is BDADDR_LE_PUBLIC (1) or BDADDR_LE_RANDOM (2).
static inline struct sockaddr_l2 CBlueZ_sockaddr_l2(const uint8_t *address, uint8_t addressType, uint16_t cid) {
    struct sockaddr_l2 sa;
    memset(&sa, 0, sizeof(sa));
    sa.l2_family = AF_BLUETOOTH;
    sa.l2_psm = 0;
    memcpy(&sa.l2_bdaddr, address, 6);
    sa.l2_cid = htobs(cid);
    sa.l2_bdaddr_type = addressType;
    return sa;
}

/// Connects `fd` to an L2CAP address (the cast Swift cannot spell).
static inline int CBlueZ_connect_l2(int fd, const struct sockaddr_l2 *sa) {
    return connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
}

/// Binds `fd` to an L2CAP address.
static inline int CBlueZ_bind_l2(int fd, const struct sockaddr_l2 *sa) {
    return bind(fd, (const struct sockaddr *)sa, sizeof(*sa));
}

/// Sets BT_SECURITY to the given level (BT_SECURITY_LOW = 1: no pairing demanded).
static inline int CBlueZ_set_security(int fd, uint8_t level) {
    struct bt_security security;
    memset(&security, 0, sizeof(security));
    security.level = level;
    return setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &security, sizeof(security));
}

/// Restricts an HCI socket to LE Meta events (what a scan reads); returns setsockopt's result.
static inline int CBlueZ_filter_le_meta(int dd) {
    struct hci_filter filter;
    hci_filter_clear(&filter);
    hci_filter_set_ptype(HCI_EVENT_PKT, &filter);
    hci_filter_set_event(EVT_LE_META_EVENT, &filter);
    return setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, sizeof(filter));
}

/// The adapter's address, 6 bytes least significant first, via HCIGETDEVINFO (unprivileged).
static inline int CBlueZ_adapter_address(int dev_id, uint8_t *out_address, uint32_t *out_flags) {
    struct hci_dev_info info;
    if (hci_devinfo(dev_id, &info) < 0) return -1;
    memcpy(out_address, &info.bdaddr, 6);
    *out_flags = info.flags;
    return 0;
}

/// Restricts an HCI socket to the events a command exchange needs: Command Complete (0x0E),
/// Command Status (0x0F) and, when `le_meta` is non-zero, LE Meta (0x3E: advertising reports).
static inline int CBlueZ_filter_command_events(int dd, int le_meta) {
    struct hci_filter filter;
    hci_filter_clear(&filter);
    hci_filter_set_ptype(HCI_EVENT_PKT, &filter);
    hci_filter_set_event(EVT_CMD_COMPLETE, &filter);
    hci_filter_set_event(EVT_CMD_STATUS, &filter);
    if (le_meta) hci_filter_set_event(EVT_LE_META_EVENT, &filter);
    return setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, sizeof(filter));
}

/// The first adapter that is up and whose address is not `avoid` (6 bytes, least significant
/// first): libbluetooth's hci_get_route, which chooses as the kernel does for a connection.
static inline int CBlueZ_route_avoiding(const uint8_t *avoid) {
    bdaddr_t address;
    memcpy(&address, avoid, 6);
    return hci_get_route(&address);
}

/// A non-blocking socket on BlueZ's management channel (HCI_CHANNEL_CONTROL, no controller).
/// Unprivileged sockets may send the commands the kernel marks untrusted-safe, such as Read
/// Controller Information.
static inline int CBlueZ_open_management(void) {
    int fd = socket(PF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_HCI);
    if (fd < 0) return -1;
    struct sockaddr_hci address;
    memset(&address, 0, sizeof(address));
    address.hci_family = AF_BLUETOOTH;
    address.hci_dev = HCI_DEV_NONE;
    address.hci_channel = HCI_CHANNEL_CONTROL;
    if (bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/// The LE and BR/EDR connections an adapter holds (HCIGETCONNLIST, unprivileged): up to `max`
/// peer addresses, 6 bytes each least significant first, into `out_addresses`. Returns the count.
static inline int CBlueZ_connections(int dev_id, uint8_t *out_addresses, int max) {
    int dd = hci_open_dev(dev_id);
    if (dd < 0) return -1;
    struct hci_conn_list_req *request = calloc(1, sizeof(*request) + max * sizeof(struct hci_conn_info));
    if (!request) { close(dd); errno = ENOMEM; return -1; }
    request->dev_id = dev_id;
    request->conn_num = max;
    if (ioctl(dd, HCIGETCONNLIST, (void *)request) < 0) {
        int saved = errno;
        free(request);
        close(dd);
        errno = saved;
        return -1;
    }
    int count = request->conn_num;
    for (int i = 0; i < count; i++) memcpy(out_addresses + 6 * i, &request->conn_info[i].bdaddr, 6);
    free(request);
    close(dd);
    return count;
}

#endif
