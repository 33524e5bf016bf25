import Foundation
import Testing

@testable import CourierCookies

/// RFC 6265 §5.2 parsing and §5.1.1 dates.
struct SetCookieParsingTests {
    @Test func nameValueAndAttributes() throws {
        let cookie = try #require(
            SetCookie.parse(
                "  sid = a b c ; Path=/api; DOMAIN=.Example.COM; secure; HttpOnly; SameSite=lax; Max-Age=60; x=y"
            ))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "a b c")
        #expect(cookie.path == "/api")
        #expect(cookie.domain == "example.com")
        #expect(cookie.secure && cookie.httpOnly)
        #expect(cookie.sameSite == .lax)
        #expect(cookie.maxAge == 60)
    }

    @Test func whatIsIgnored() {
        #expect(SetCookie.parse("no-equals-sign") == nil)
        #expect(SetCookie.parse("=value") == nil)
        #expect(SetCookie.parse("a=b\r\nX-Injected: 1") == nil)
        #expect(SetCookie.parse("a=\u{0}") == nil)
        #expect(SetCookie.parse("big=" + String(repeating: "x", count: 4094)) == nil)
        #expect(SetCookie.parse("fits=" + String(repeating: "x", count: 4091)) != nil)
        // A Domain that is not a host name refuses the cookie; an empty one is ignored.
        #expect(SetCookie.parse("a=1; Domain=exa mple.com") == nil)
        #expect(SetCookie.parse("a=1; Domain=bücher.de") == nil)
        #expect(SetCookie.parse("a=1; Domain=")?.domain == nil)
        // A Path not starting with "/" falls back to the default path.
        #expect(SetCookie.parse("a=1; Path=relative")?.path == nil)
        // An unknown SameSite is dropped; Max-Age that is not a number too.
        #expect(SetCookie.parse("a=1; SameSite=Sometimes")?.sameSite == nil)
        #expect(SetCookie.parse("a=1; Max-Age=1e3")?.maxAge == nil)
        #expect(SetCookie.parse("a=1; Max-Age=-5")?.maxAge == -5)
        #expect(SetCookie.parse("a=1; Max-Age=99999999999999999999")?.maxAge == .max)
    }

    @Test(arguments: [
        "Wed, 21 Oct 2026 07:28:00 GMT",
        "Wednesday, 21-Oct-26 07:28:00 GMT",
        "Wed Oct 21 07:28:00 2026",
        "21 oct 2026 7:28:0",
        "Oct-21-2026 07:28:00 UTC",
    ])
    func datesInTheFormsServersSend(text: String) throws {
        let date = try #require(CookieDate.parse(Substring(text)))
        #expect(date == Date(timeIntervalSince1970: 1_792_567_680))
    }

    @Test func datesThatAreNotDates() {
        for text in [
            "Wed, 31 Feb 2026 07:28:00 GMT", "Wed, 21 Oct 1600 07:28:00 GMT", "Wed, 21 Oct 2026 24:00:00 GMT",
            "Wed, 21 Oct 2026", "tomorrow", "",
        ] {
            #expect(CookieDate.parse(Substring(text)) == nil, "\(text)")
        }
        #expect(CookieDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(CookieDate.parse("29 Feb 2024 00:00:00") != nil)
        #expect(CookieDate.parse("29 Feb 2100 00:00:00") == nil)
    }
}
