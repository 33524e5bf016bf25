// libpsl, the Public Suffix List library curl and wget use, for
// CourierCookies: is a cookie's Domain attribute a public suffix?
#ifndef COURIER_CPSL_SHIM_H
#define COURIER_CPSL_SHIM_H

#include <libpsl.h>

#endif
