import Foundation
import MoltbookAPI
import Testing

@Suite("Timestamps")
struct MoltbookDateTests {
    /// Every format Moltbook served parses to the same instant; garbage does not parse.
    @Test(arguments: [
        ("2026-06-22T21:42:16.000000+00:00", 1_782_164_536.0),
        ("2026-06-22T21:42:16Z", 1_782_164_536.0),
        ("2026-06-22 21:42:16+00", 1_782_164_536.0),
        ("2026-06-22T23:42:16+02:00", 1_782_164_536.0),
        ("2026-06-22T21:42:16.5+0000", 1_782_164_536.5),
        ("Mon, 22 Jun 2026 21:42:16 GMT", 1_782_164_536.0),
    ])
    func formats(text: String, epoch: Double) throws {
        let date = try #require(MoltbookDate.parse(text))
        #expect(abs(date.timeIntervalSince1970 - epoch) < 0.000_1)
    }

    /// Malformed stamps are rejected rather than guessed.
    @Test(arguments: ["", "yesterday", "2026-13-01T00:00:00Z", "2026-06-22T21:42:16+", "2026-06-22T21:42:16.Z"])
    func rejects(text: String) {
        #expect(MoltbookDate.parse(text) == nil)
    }

    /// Formatting round-trips with microseconds and the `+00:00` offset.
    @Test func roundTrip() throws {
        let date = Date(timeIntervalSince1970: 1_769_755_575.074832)
        let text = MoltbookDate.format(date)
        #expect(text == "2026-01-30T06:46:15.074832+00:00")
        #expect(abs(try #require(MoltbookDate.parse(text)).timeIntervalSince(date)) < 0.000_001)
    }
}
