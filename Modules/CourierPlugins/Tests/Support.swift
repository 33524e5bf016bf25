import CourierCodable
@_spi(Locking) import CourierCore
// The fixtures (User, Node.api) and the Origin server double come from
// CourierTestSupport, with the other libraries' tests.
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging

@testable import CourierPlugins

/// A logger that keeps every entry, at every level.
func capturingLogger() -> (Logger, InMemoryLogHandler) {
    let handler = InMemoryLogHandler()
    var logger = Logger(label: "courier.tests", factory: { _ in handler })
    logger.logLevel = .trace
    return (logger, handler)
}

extension InMemoryLogHandler {
    /// Every message and metadata value, as one text.
    var everything: String {
        entries.map { entry in
            "\(entry.level) \(entry.message) "
                + entry.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }.joined(separator: "\n")
    }
}
