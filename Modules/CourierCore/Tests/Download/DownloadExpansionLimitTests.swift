@_spi(Transport) import CourierCore
import Foundation
import Testing

/// The rule that stops a decompression bomb on its way to disk: a first MiB
/// whatever the coded size, then at most `ratio` decoded bytes per coded one.
struct DownloadExpansionLimitTests {
    let limit = DownloadExpansionLimit(ratio: 200)

    @Test func theFirstMiBIsAllowedWhateverTheCodedSize() {
        #expect(limit.failure(decoded: DownloadExpansionLimit.allowance, coded: 1) == nil)
        #expect(limit.failure(decoded: DownloadExpansionLimit.allowance + 1, coded: 1)?.code == .bodyTooLarge)
    }

    @Test func pastItTheRatioHolds() {
        let coded: Int64 = 100_000
        #expect(limit.failure(decoded: coded * 200, coded: coded) == nil)
        let failure = limit.failure(decoded: coded * 200 + 1, coded: coded)
        #expect(failure?.code == .bodyTooLarge)
        #expect(failure?.message.contains("maxDownloadExpansion") == true)
    }

    @Test func hugeCountsDoNotOverflow() {
        #expect(limit.failure(decoded: .max, coded: .max / 2) == nil)
        #expect(DownloadExpansionLimit(ratio: 0).ratio == 1)
    }

    @Test func onlyADownloadWithABoundIsHeldToIt() {
        var options = TransportOptions()
        options.maxDownloadExpansion = 200
        #expect(options.downloadExpansionLimit == nil)
        options.destination = DownloadTarget(.temporaryDirectory.appendingPathComponent("x"))
        #expect(options.downloadExpansionLimit == DownloadExpansionLimit(ratio: 200))
        options.maxDownloadExpansion = nil
        #expect(options.downloadExpansionLimit == nil)
    }
}
