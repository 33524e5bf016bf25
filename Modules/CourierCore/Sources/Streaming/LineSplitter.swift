/// Splits bytes arriving in chunks of any size into lines ended by LF, CRLF
/// or CR, a CRLF split across two chunks included; the line breaks are not
/// part of the lines.
struct LineSplitter: Sendable {
    private var pending: [UInt8] = []
    /// The previous chunk ended with CR: an LF opening the next one belongs to it.
    private var afterCR = false

    /// The lines `chunk` completes, in order.
    mutating func feed(_ chunk: some Collection<UInt8>, _ line: (ArraySlice<UInt8>) throws -> Void) rethrows {
        for byte in chunk {
            if afterCR {
                afterCR = false
                if byte == 10 { continue }
            }
            switch byte {
            case 10:
                try line(pending[...])
                pending.removeAll(keepingCapacity: true)
            case 13:
                try line(pending[...])
                pending.removeAll(keepingCapacity: true)
                afterCR = true
            default:
                pending.append(byte)
            }
        }
    }

    /// The last line, when the bytes ended without a line break.
    mutating func finish() -> ArraySlice<UInt8>? {
        defer { pending.removeAll() }
        return pending.isEmpty ? nil : pending[...]
    }
}
