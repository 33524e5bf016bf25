import CourierCore

/// Splits bytes arriving in chunks of any size into lines ended by LF, CRLF
/// or CR, a CRLF split across two chunks included; the line breaks are not
/// part of the lines.
///
/// A line that lies whole inside a chunk is handed over in place, without a
/// copy; only a line a chunk boundary cuts is gathered first.
struct LineSplitter: Sendable {
    private var pending: [UInt8] = []
    /// The previous chunk ended with CR: an LF opening the next one belongs to it.
    private var afterCR = false

    /// Calls `line` with each line `chunk` completes, in order; the bytes are
    /// valid only during the call.
    mutating func feed(_ chunk: some Collection<UInt8>, _ line: (UnsafeBufferPointer<UInt8>) throws -> Void)
        rethrows
    {
        let fed = try chunk.withContiguousStorageIfAvailable { bytes in
            try feed(contiguous: bytes, line)
            return true
        }
        if fed == nil {
            let copy = Array(chunk)
            try copy.withUnsafeBufferPointer { try feed(contiguous: $0, line) }
        }
    }

    private mutating func feed(
        contiguous bytes: UnsafeBufferPointer<UInt8>, _ line: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        let count = bytes.count
        var index = 0
        if afterCR, count > 0 {
            afterCR = false
            if bytes[0] == 10 { index = 1 }
        }
        var start = index
        while index < count {
            let byte = bytes[index]
            guard byte == 10 || byte == 13 else {
                index += 1
                continue
            }
            let piece = UnsafeBufferPointer(rebasing: bytes[start..<index])
            if pending.isEmpty {
                try line(piece)
            } else {
                pending.append(contentsOf: piece)
                try pending.withUnsafeBufferPointer { try line($0) }
                pending.removeAll(keepingCapacity: true)
            }
            index += 1
            if byte == 13 {
                if index < count {
                    if bytes[index] == 10 { index += 1 }
                } else {
                    afterCR = true
                }
            }
            start = index
        }
        if start < count { pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<count])) }
    }

    /// The last line, when the bytes ended without a line break.
    mutating func finish() -> [UInt8]? {
        defer { pending = [] }
        return pending.isEmpty ? nil : pending
    }
}
