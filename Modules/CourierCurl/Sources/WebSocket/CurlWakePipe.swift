@_spi(Locking) import CourierCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a WebSocket connection's thread sleeps and is woken: `poll` on its
/// socket and on the read end of a pipe, to which callers write a byte when
/// they queue a frame, make room for messages, or abort. A pipe rather than
/// an eventfd: the same code on Linux and macOS.
final class CurlWakePipe: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32
    /// Whether the ends are closed. Held while writing, so that a late
    /// `signal` never writes to a descriptor number since reused.
    private let closed = Locked(false)

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    var isOpen: Bool { readEnd >= 0 && writeEnd >= 0 }

    /// Wakes the thread (from any thread). A pipe that is full wakes it already.
    func signal() {
        closed.withLock { closed in
            guard !closed, writeEnd >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
    }

    /// On the connection's thread: waits until the socket is readable (when
    /// `readable`), writable (when `writable`), or the pipe is signalled;
    /// returns at once when `immediately`. Drains the pipe.
    func wait(on socket: Int32, readable: Bool, writable: Bool, immediately: Bool) {
        var events: Int16 = 0
        if readable { events |= Int16(POLLIN) }
        if writable { events |= Int16(POLLOUT) }
        var descriptors = [
            pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: events == 0 ? -1 : socket, events: events, revents: 0),
        ]
        _ = poll(&descriptors, 2, immediately ? 0 : -1)
        var sink = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &sink, sink.count) > 0 {}
    }

    /// Closes both ends; the thread's last act.
    func close() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            if readEnd >= 0 { closeDescriptor(readEnd) }
            if writeEnd >= 0 { closeDescriptor(writeEnd) }
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
    #endif
}
