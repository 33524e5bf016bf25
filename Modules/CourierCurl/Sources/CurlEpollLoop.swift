#if os(Linux)
    import CCurl
    import CourierCore
    import Glibc

    /// The engine's socket-driven loop on Linux: libcurl tells it which sockets
    /// to watch (`CURLMOPT_SOCKETFUNCTION`) and when its next timeout falls
    /// (`CURLMOPT_TIMERFUNCTION`); epoll reports only the sockets that are
    /// ready, and `curl_multi_socket_action` serves just those. A turn costs the
    /// same with ten thousand idle connections as with none, where
    /// `curl_multi_poll` rebuilds and scans its whole descriptor set on every
    /// wake-up. Producers wake the loop through an eventfd watched beside the
    /// sockets.
    ///
    /// A socket libcurl stops watching stays in the epoll set (``Watch``): on a
    /// kept-alive connection the next request asks for it again, and removing
    /// and re-adding it cost two system calls a request. Should it turn ready
    /// while libcurl does not want it (the server closed the idle connection),
    /// it leaves the set then; a socket libcurl closes leaves it by itself, and
    /// libcurl opens every socket through ``curlOpenSocket`` so that a new
    /// socket under a closed one's number starts unregistered.
    ///
    /// Created with the engine, then used only on the engine thread (inside
    /// libcurl calls the engine makes); only ``EpollDescriptors`` crosses threads.
    final class CurlEpollLoop {
        private let descriptors: EpollDescriptors
        private let multi: UnsafeMutableRawPointer
        /// When libcurl wants `CURL_SOCKET_TIMEOUT` served; nil: no timer.
        private var deadline: ContinuousClock.Instant?
        private var readyDescriptors = [Int32](repeating: 0, count: 256)
        private var readyEvents = [UInt32](repeating: 0, count: 256)
        /// What each descriptor is registered for, by descriptor number.
        private var watches: [Watch] = []
        /// Sockets epoll refused to watch (out of memory, `max_user_watches`):
        /// served on every turn instead, with short waits, so no transfer stalls.
        private var unwatched: Set<curl_socket_t> = []

        /// Registers the callbacks on `multi`, before any transfer joins it. The
        /// loop must outlive `curl_multi_cleanup`, which still reports sockets.
        init(multi: UnsafeMutableRawPointer, descriptors: EpollDescriptors) {
            self.multi = multi
            self.descriptors = descriptors
            let context = Unmanaged.passUnretained(self).toOpaque()
            _ = courier_multi_setopt_socket_function(multi, curlSocketChanged)
            _ = courier_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
            _ = courier_multi_setopt_timer_function(multi, curlTimerChanged)
            _ = courier_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
        }

        /// One turn: libcurl's timer if due, then a wait for ready sockets (at
        /// most until the timer, and not at all unless `mayWait` or when a
        /// transfer of the `active` ones just ended), libcurl serving each, then
        /// the timer again if due. Completed transfers are then in
        /// `curl_multi_info_read`.
        func turn(mayWait: Bool, active: Int) {
            // Timers due first: a transfer just added starts now (libcurl
            // asks for an immediate timeout), without a turn of its own.
            var running = Int32(clamping: active)
            fireTimerIfDue(&running)
            // A transfer that ended just now has a message waiting: no sleep.
            let timeout = mayWait && Int(running) >= active ? waitMilliseconds() : 0
            let count = readyDescriptors.withUnsafeMutableBufferPointer { fds in
                readyEvents.withUnsafeMutableBufferPointer { events in
                    courier_epoll_wait(
                        descriptors.epoll, fds.baseAddress, events.baseAddress, Int32(fds.count), timeout)
                }
            }
            for index in 0..<max(0, Int(count)) {
                let fd = readyDescriptors[index]
                if fd == descriptors.wake {
                    courier_eventfd_drain(fd)
                    continue
                }
                guard fd >= 0, Int(fd) < watches.count, watches[Int(fd)].wanted else {
                    // Idle, or not libcurl's: out of the set until asked for again.
                    courier_epoll_unwatch(descriptors.epoll, fd)
                    if fd >= 0, Int(fd) < watches.count { watches[Int(fd)] = Watch() }
                    continue
                }
                curl_multi_socket_action(multi, fd, Self.action(for: readyEvents[index]), &running)
            }
            // libcurl checks an unwatched socket itself (mask 0) and copes
            // with one that is not ready.
            for fd in unwatched { curl_multi_socket_action(multi, fd, 0, &running) }
            fireTimerIfDue(&running)
        }

        private func fireTimerIfDue(_ running: inout Int32) {
            guard let deadline, deadline <= .now else { return }
            self.deadline = nil
            curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
        }

        /// How long a sleeping turn may wait: until libcurl's timer, at most a
        /// second (a safety net, as the poll loop's), never less than nothing.
        private func waitMilliseconds() -> Int32 {
            if !unwatched.isEmpty { return 10 }
            guard let deadline else { return 1000 }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return 0 }
            // Rounded up, so the wait never ends just before the deadline.
            return Int32(min(1000, remaining.millisecondsRoundedUp))
        }

        private static func action(for events: UInt32) -> Int32 {
            var action: Int32 = 0
            if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 {
                action |= CURL_CSELECT_IN
            }
            if events & EPOLLOUT.rawValue != 0 { action |= CURL_CSELECT_OUT }
            if events & EPOLLERR.rawValue != 0 { action |= CURL_CSELECT_ERR }
            return action
        }

        // MARK: - libcurl's callbacks (inside libcurl calls on the engine thread)

        fileprivate func watch(_ socket: curl_socket_t, what: Int32) {
            guard socket >= 0 else { return }
            let index = Int(socket)
            if index >= watches.count {
                watches += repeatElement(Watch(), count: max(index + 1, watches.count * 2) - watches.count)
            }
            let events: UInt32 =
                switch what {
                case CURL_POLL_IN: EPOLLIN.rawValue
                case CURL_POLL_OUT: EPOLLOUT.rawValue
                case CURL_POLL_INOUT: EPOLLIN.rawValue | EPOLLOUT.rawValue
                default: 0
                }
            if events == 0 {
                // Left registered (for reading only: a writable socket would
                // report itself on every turn) until wanted again or ready.
                unwatched.remove(socket)
                watches[index].wanted = false
                if watches[index].events & EPOLLOUT.rawValue != 0 {
                    courier_epoll_unwatch(descriptors.epoll, socket)
                    watches[index].events = 0
                }
                return
            }
            watches[index].wanted = true
            guard watches[index].events != events else { return }
            if courier_epoll_watch(descriptors.epoll, socket, events, watches[index].events != 0) == 0 {
                unwatched.remove(socket)
                watches[index].events = events
            } else {
                unwatched.insert(socket)
                watches[index].events = 0
            }
        }

        /// A new socket under `socket`'s number: whatever was registered under
        /// it left the set when the old socket closed.
        fileprivate func opened(_ socket: curl_socket_t) {
            unwatched.remove(socket)
            if socket >= 0, Int(socket) < watches.count { watches[Int(socket)] = Watch() }
        }

        /// What easy handles open their sockets through (``curlOpenSocket``).
        var socketOpener: CurlSocketOpener {
            CurlSocketOpener(callback: curlOpenSocket, context: Unmanaged.passUnretained(self).toOpaque())
        }

        fileprivate func setTimer(milliseconds: Int) {
            deadline = milliseconds < 0 ? nil : .now + .milliseconds(milliseconds)
        }
    }

    /// One descriptor's registration.
    private struct Watch {
        /// What the epoll set watches it for; 0: not in the set.
        var events: UInt32 = 0
        /// Whether libcurl wants it watched now.
        var wanted = false
    }

    /// The epoll instance and the eventfd that wakes it: made with the engine
    /// (so producers can wake it before its thread runs), closed after it.
    struct EpollDescriptors: Sendable {
        let epoll: Int32
        let wake: Int32

        /// Both descriptors, the eventfd already watched; nil if the system refuses.
        static func make() -> EpollDescriptors? {
            let epoll = courier_epoll_create()
            guard epoll >= 0 else { return nil }
            let wake = courier_eventfd_create()
            guard wake >= 0, courier_epoll_watch(epoll, wake, EPOLLIN.rawValue, false) == 0 else {
                if wake >= 0 { Glibc.close(wake) }
                Glibc.close(epoll)
                return nil
            }
            return EpollDescriptors(epoll: epoll, wake: wake)
        }

        /// Wakes the loop; any thread.
        func wakeUp() { courier_eventfd_signal(wake) }

        func close() {
            Glibc.close(wake)
            Glibc.close(epoll)
        }
    }

    /// CURLOPT_OPENSOCKETFUNCTION: opens the socket as libcurl would (it makes
    /// it non-blocking after), close-on-exec, and tells the loop its number is new.
    private func curlOpenSocket(
        _ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype,
        _ address: UnsafeMutablePointer<curl_sockaddr>?
    ) -> curl_socket_t {
        guard let address else { return CURL_SOCKET_BAD }
        let socket = Glibc.socket(
            address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue),
            address.pointee.protocol)
        if socket >= 0, let context {
            Unmanaged<CurlEpollLoop>.fromOpaque(context).takeUnretainedValue().opened(socket)
        }
        return socket
    }

    private func curlSocketChanged(
        _ easy: UnsafeMutableRawPointer?, _ socket: curl_socket_t, _ what: Int32,
        _ context: UnsafeMutableRawPointer?,
        _ socketContext: UnsafeMutableRawPointer?
    ) -> Int32 {
        guard let context else { return 0 }
        Unmanaged<CurlEpollLoop>.fromOpaque(context).takeUnretainedValue().watch(socket, what: what)
        return 0
    }

    private func curlTimerChanged(
        _ multi: UnsafeMutableRawPointer?, _ milliseconds: Int, _ context: UnsafeMutableRawPointer?
    ) -> Int32 {
        guard let context else { return 0 }
        Unmanaged<CurlEpollLoop>.fromOpaque(context).takeUnretainedValue().setTimer(
            milliseconds: milliseconds)
        return 0
    }
#endif
