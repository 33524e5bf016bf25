import CCurl
import CourierCore

/// The multi handle's pointer.
struct MultiHandle: @unchecked Sendable {
    // Safe: every libcurl call on this handle runs on the engine thread,
    // except `curl_multi_wakeup`, which libcurl documents as safe to call from
    // any thread while the handle lives; the handle is cleaned up only after
    // the thread has left its loop, the queue refuses new work (`stopped`),
    // and every wake-up a producer claimed before that has returned
    // (`wakersInFlight` back to zero).
    let pointer: UnsafeMutableRawPointer
}

#if os(Linux)
    /// The epoll loop, made with the engine and handed to its thread.
    struct EngineThreadLoop: @unchecked Sendable {
        // Safe: made in the engine's initialiser before the thread starts,
        // then used only by the engine thread (and by libcurl's callbacks
        // inside the engine thread's calls); other threads never touch it.
        let loop: CurlEpollLoop
    }
#endif

/// One loop iteration's completions, resumed together.
struct Completions: Sendable {
    let items: [CurlCompletion]
}
