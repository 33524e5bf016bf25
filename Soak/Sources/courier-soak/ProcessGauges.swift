import CSoakHeap
import Foundation

#if canImport(Glibc)
    import Glibc
    /// `RUSAGE_SELF`, typed as Glibc's `getrusage` takes it.
    private let rusageSelf = __rusage_who_t(RUSAGE_SELF.rawValue)
#elseif canImport(Darwin)
    import Darwin
    private let rusageSelf = RUSAGE_SELF
#endif

/// What the soak watches in its own process: resident memory, the heap in
/// use, open file descriptors and CPU time, read at one instant.
struct ProcessGauges {
    /// Resident set size in KiB (`VmRSS` in `/proc/self/status`).
    let residentKiB: Int
    /// Bytes allocated and not freed, in KiB (glibc's `mallinfo2`): what a
    /// leak grows, without the free memory a fragmented heap keeps resident;
    /// `nil` where glibc is not the allocator.
    let heapInUseKiB: Int?
    /// Entries in `/proc/self/fd`.
    let openFiles: Int
    /// User plus system CPU seconds so far.
    let cpuSeconds: Double

    /// Reads the gauges now.
    static func read() -> ProcessGauges {
        ProcessGauges(
            residentKiB: residentKiB(), heapInUseKiB: heapInUseKiB(), openFiles: openFiles(),
            cpuSeconds: cpuSeconds())
    }

    private static func heapInUseKiB() -> Int? {
        let bytes = soak_heap_in_use()
        return bytes < 0 ? nil : Int(bytes / 1024)
    }

    private static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
                ?? 0
        }
        return 0
    }

    private static func openFiles() -> Int {
        // The listing itself holds one descriptor while it runs; it is not counted.
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
    }

    /// What each open descriptor is (`socket`, `pipe`, `anon_inode:[eventfd]`,
    /// a path), counted: printed when descriptors are left over.
    static func openFileKinds() -> [String: Int] {
        var kinds: [String: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(
                    atPath: "/proc/self/fd/\(name)")
            else { continue }
            let kind = target.hasPrefix("socket:") ? "socket" : target.hasPrefix("pipe:") ? "pipe" : target
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(rusageSelf, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
