import CourierCookies
import CourierTesting
import Foundation
import Testing

/// A jar kept in a file: JSON, mode 0600, persistent cookies only.
struct CookieFileTests {
    let clock = TestClock(mode: .manual)

    func temporaryFile() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "courier-cookies-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appending(path: "cookies.json")
    }

    @Test func persistentCookiesSurviveAndSessionOnesDoNot() async throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let url = try #require(URL(string: "https://s.example/"))
        let jar = try CookieJar(persistingTo: file) { [clock] in clock.date }
        jar.setCookie("keep=1; Max-Age=3600; HttpOnly; SameSite=Strict", from: url)
        jar.setCookie("session=1", from: url)
        jar.setCookie(
            "wide=2; Domain=s.example; Path=/api; Secure; Expires=Wed, 21 Oct 2099 07:28:00 GMT", from: url)
        try await jar.flush()
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"format\" : \"courier-cookies\""))
        #expect(!text.contains("session"))

        let reopened = try CookieJar(persistingTo: file) { [clock] in clock.date }
        #expect(reopened.cookies.map(\.name) == ["keep", "wide"])
        let keep = try #require(reopened.cookies.first)
        #expect(keep.httpOnly && keep.sameSite == .strict && keep.hostOnly)
        #expect(
            reopened.cookies(for: try #require(URL(string: "https://www.s.example/api/x"))).map(\.name) == [
                "wide"
            ])

        // Expired by the time the file is read again: gone.
        clock.advance(by: .seconds(3600))
        let later = try CookieJar(persistingTo: file) { [clock] in clock.date }
        #expect(later.cookies.map(\.name) == ["wide"])
        // A deletion is written too.
        later.removeAll()
        try await later.flush()
        #expect(try CookieJar(persistingTo: file).cookies.isEmpty)
    }

    @Test func aBadFileIsATypedErrorAndStaysAsItIs() throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try Data("{\"not\": \"cookies\"}".utf8).write(to: file)
        #expect(throws: CookieFileError.self) { try CookieJar(persistingTo: file) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "{\"not\": \"cookies\"}")
        // A missing file is an empty jar.
        #expect(
            try CookieJar(persistingTo: file.deletingLastPathComponent().appending(path: "none.json")).cookies
                .isEmpty)
    }

    @Test func aFileThatCannotBeWrittenIsReportedByFlush() async throws {
        let file = try temporaryFile().deletingLastPathComponent().appending(path: "missing-dir/cookies.json")
        let jar = try CookieJar(persistingTo: file) { [clock] in clock.date }
        jar.setCookie("a=1; Max-Age=60", from: try #require(URL(string: "https://s.example/")))
        await #expect(throws: CookieFileError.self) { try await jar.flush() }
        #expect(jar.cookies.count == 1)  // the jar itself goes on
    }

    @Test func netscapeExportReadsLikeCurls() throws {
        let jar = CookieJar { [clock] in clock.date }
        let url = try #require(URL(string: "https://s.example/"))
        jar.setCookie("a=1; Max-Age=60; HttpOnly", from: url)
        jar.setCookie("b=2; Domain=s.example; Secure; Max-Age=60", from: url)
        jar.setCookie("session=3", from: url)
        let expiry = Int(clock.date.timeIntervalSince1970) + 60
        #expect(
            jar.netscapeText() == """
                # Netscape HTTP Cookie File

                #HttpOnly_s.example\tFALSE\t/\tFALSE\t\(expiry)\ta\t1
                .s.example\tTRUE\t/\tTRUE\t\(expiry)\tb\t2

                """)
        #expect(
            jar.netscapeText(includingSession: true).contains("s.example\tFALSE\t/\tFALSE\t0\tsession\t3"))
    }
}
