import Testing

@testable import CourierCore

/// The one place durations become the integers C APIs take.
struct DurationConversionTests {
    @Test func wholeUnitsRoundDownAndMillisecondsCanRoundUp() {
        let duration = Duration.seconds(2) + .nanoseconds(1_500_001)  // 2.001500001 s
        #expect(duration.milliseconds == 2_001)
        #expect(duration.millisecondsRoundedUp == 2_002)
        #expect(duration.microseconds == 2_001_500)
        #expect(duration.nanoseconds == 2_001_500_001)
        #expect(duration.seconds == 2.001500001)
    }

    @Test func anExactMillisecondIsNotRoundedUp() {
        #expect(Duration.milliseconds(250).millisecondsRoundedUp == 250)
        #expect(Duration.zero.millisecondsRoundedUp == 0)
        #expect(Duration.nanoseconds(1).millisecondsRoundedUp == 1)
    }
}
