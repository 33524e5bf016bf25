import Testing

@testable import CourierURLSession

/// FoundationNetworking's comma-joined `Set-Cookie` taken back apart.
struct SetCookieSplitterTests {
    @Test func datesWithCommasStayInsideTheirCookie() {
        let joined =
            "session=abc; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/,theme=dark; Max-Age=3600, id=7"
        #expect(
            SetCookieSplitter.split(joined) == [
                "session=abc; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/", "theme=dark; Max-Age=3600",
                "id=7",
            ])
    }

    @Test func aCommaInsideAValueIsNotASeparator() {
        // "b" has no "=" before a ";", so it cannot start a cookie.
        #expect(SetCookieSplitter.split("list=a,b; Path=/") == ["list=a,b; Path=/"])
        // An attribute with "=" after a ";" does not start one either.
        #expect(
            SetCookieSplitter.split("x=1; Expires=Thu, 01 Jan 2027 00:00:00 GMT") == [
                "x=1; Expires=Thu, 01 Jan 2027 00:00:00 GMT"
            ])
    }

    @Test func oneCookieAndEmptyPiecesSurvive() {
        #expect(SetCookieSplitter.split("only=1") == ["only=1"])
        #expect(SetCookieSplitter.split("") == [""])
        // A name that is not a token ("a b") does not start a cookie.
        #expect(SetCookieSplitter.split("k=v,a b=c") == ["k=v,a b=c"])
    }
}
