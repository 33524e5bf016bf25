import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// CPU seconds used by the whole process so far (every thread, user and system).
public func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The median; NaN for no values.
public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// Seconds in a `Duration`.
public func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
}

/// Runs blocking C on a thread of its own, never on the concurrency pool.
public func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// A field of /proc/self/status as a number (VmRSS and VmHWM in KiB, Threads).
public func statusKiB(_ field: String) -> Double {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
}

/// Resets the peak resident set (VmHWM) to the current one (Linux 4.0+).
public func resetPeakResidentSet() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// Writes a line to standard error (progress, failures).
public func report(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// What a benchmark prints, kept so that it can also be written to files.
public final class BenchReport {
    /// Every line said so far.
    public private(set) var lines: [String] = []

    /// An empty report.
    public init() {}

    /// Prints `line` and keeps it.
    public func say(_ line: String) {
        print(line)
        lines.append(line)
    }

    /// When `BENCH_OUTPUT` names a directory, writes the printed tables to
    /// `name.md` there (followed by `BENCH_MACHINE`, the machine's state as
    /// the script found it) and `chart` to `name.svg`, and says where.
    public func write(name: String, chart: BarChart) {
        guard let directory = ProcessInfo.processInfo.environment["BENCH_OUTPUT"], !directory.isEmpty else {
            return
        }
        let folder = URL(fileURLWithPath: directory)
        let markdown = folder.appendingPathComponent("\(name).md")
        let svg = folder.appendingPathComponent("\(name).svg")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let machine = ProcessInfo.processInfo.environment["BENCH_MACHINE"].map {
                ["", "## Machine", "", $0]
            }
            let text =
                (["# \(chart.title)", "", "![\(chart.caption)](\(name).svg)", ""] + lines + (machine ?? []))
                .joined(separator: "\n")
            try Data((text + "\n").utf8).write(to: markdown, options: .atomic)
            try chart.write(to: svg)
            report("wrote \(markdown.path) and \(svg.path)")
        } catch {
            report("could not write the results to \(directory): \(error)")
        }
    }
}
