// libmnl (Debian's libmnl-dev, the netfilter project's minimalistic netlink
// library) and the kernel's rtnetlink definitions, for CourierReachability's
// Linux monitor; plus what Swift cannot import from them: macros, eventfd,
// and setns, which glibc declares only under _GNU_SOURCE (not defined here:
// it would change fd_set and clash with the other modules' view of it).
#ifndef COURIER_CMNL_SHIM_H
#define COURIER_CMNL_SHIM_H

#include <net/if.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

static const int courier_mnl_cb_ok = MNL_CB_OK;
static const int courier_mnl_cb_stop = MNL_CB_STOP;
static const int courier_mnl_cb_error = MNL_CB_ERROR;

/// The receive buffer size libmnl recommends.
static inline size_t courier_mnl_buffer_size(void) { return MNL_SOCKET_BUFFER_SIZE; }

/// The groups the monitor listens to: links, IPv4 and IPv6 routes.
static inline unsigned int courier_rtnetlink_groups(void) {
    return RTMGRP_LINK | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
}

extern int setns(int fd, int nstype);

/// Moves the calling thread into the network namespace open at `fd`
/// (0x40000000 is CLONE_NEWNET, from <sched.h> under _GNU_SOURCE).
static inline int courier_setns_network(int fd) { return setns(fd, 0x40000000); }

/// An eventfd to wake the monitor's thread, closed on exec.
static inline int courier_eventfd(void) { return eventfd(0, EFD_CLOEXEC); }

/// The first next hop of an RTA_MULTIPATH payload, or NULL.
static inline const struct rtnexthop *courier_rtnh_first(const void *payload, size_t length) {
    const struct rtnexthop *hop = (const struct rtnexthop *)payload;
    return RTNH_OK(hop, (int)length) ? hop : NULL;
}

/// The next hop after `hop` within `remaining` bytes (counted from `hop`), or NULL.
static inline const struct rtnexthop *courier_rtnh_next(const struct rtnexthop *hop, size_t *remaining) {
    size_t step = RTNH_ALIGN(hop->rtnh_len);
    if (hop->rtnh_len < sizeof(struct rtnexthop) || step >= *remaining) return NULL;
    *remaining -= step;
    const struct rtnexthop *next = RTNH_NEXT(hop);
    return RTNH_OK(next, (int)*remaining) ? next : NULL;
}

#endif
