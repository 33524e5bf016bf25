import NIOCore

extension ResponsePlan {
    /// The plan for a `HEAD` request (RFC 9110 §9.3.2): the same head —
    /// status, fields, the `Content-Length` a `GET` would get — and no
    /// content, which would otherwise be read as the start of the next
    /// response on a kept-alive connection. Steps after the head that only
    /// send content are dropped; waits, closes and resets stay.
    func withoutContent() -> ResponsePlan {
        var kept: [PlanStep] = []
        var headSent = false
        for step in steps {
            if headSent {
                switch step {
                case .write, .send, .pattern, .endlessBody: continue
                default: kept.append(step)
                }
                continue
            }
            switch step {
            case .write(let bytes):
                if let end = Self.endOfHead(bytes) {
                    kept.append(.write(Array(bytes[..<end])))
                    headSent = true
                } else {
                    kept.append(step)
                }
            case .send(let buffer):
                if let end = Self.endOfHead(buffer.readableBytesView) {
                    kept.append(.send(buffer.getSlice(at: buffer.readerIndex, length: end) ?? buffer))
                    headSent = true
                } else {
                    kept.append(step)
                }
            default:
                kept.append(step)
            }
        }
        return ResponsePlan(steps: kept, status: status)
    }

    /// The length of the head, blank line included, when `bytes` hold one.
    private static func endOfHead(_ bytes: some Collection<UInt8>) -> Int? {
        let marker: [UInt8] = [13, 10, 13, 10]
        var matched = 0
        for (offset, byte) in bytes.enumerated() {
            matched = byte == marker[matched] ? matched + 1 : (byte == 13 ? 1 : 0)
            if matched == 4 { return offset + 1 }
        }
        return nil
    }
}
