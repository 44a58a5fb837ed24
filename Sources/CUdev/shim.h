// libudev, for Bluetooth adapter enumeration and hot-plug monitoring.
#ifndef CUDEV_SHIM_H
#define CUDEV_SHIM_H
#include <libudev.h>
#endif
