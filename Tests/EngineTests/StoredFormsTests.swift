import Foundation
import Testing

@testable import MoltipassCommands
@testable import MoltipassEngine
@testable import MoltipassPlan

/// The engine's stored JSON (journal payloads, account info, `max_per_day` counts) is written by
/// `JSONWriter` and read through `JSONValue`; journals and state written by `JSONEncoder` in
/// earlier versions must read the same, and older versions (`JSONDecoder`) must read ours.
@Suite("Stored forms")
struct StoredFormsTests {
    static let writes: [PlannedWrite] = [
        PlannedWrite(kind: .post, submolt: "general", title: "Note 01:00", content: "Body\nwith \"quotes\" / é"),
        PlannedWrite(kind: .post, submolt: "links", title: "A link", url: "https://example.com/a?b=c"),
        PlannedWrite(kind: .comment, target: "p-1", content: "Reply", parentID: "c-9"),
        PlannedWrite(kind: .upvotePost, target: "p-2"),
        PlannedWrite(kind: .downvotePost, target: "p-3"),
        PlannedWrite(kind: .upvoteComment, target: "c-4"),
        PlannedWrite(kind: .follow, target: "someone"),
        PlannedWrite(kind: .unsubscribe, target: "swift"),
    ]

    /// Payloads read both ways: ours by `JSONDecoder`, `JSONEncoder`'s by ours.
    @Test(arguments: writes)
    func payloadReadsBothWays(write: PlannedWrite) throws {
        #expect(try JSONDecoder().decode(PlannedWrite.self, from: write.payload) == write)
        #expect(PlannedWrite(payload: try JSONEncoder().encode(write)) == write)
        #expect(PlannedWrite(payload: write.payload) == write)
    }

    /// What is not a payload is refused rather than half read.
    @Test(arguments: [
        #"{"target":"p-1"}"#, #"{"kind":"repost","target":"p-1"}"#, #"{"kind":"post","title":5}"#, "[]", "not json",
    ])
    func malformedPayloadIsRefused(text: String) {
        #expect(PlannedWrite(payload: Data(text.utf8)) == nil)
        #expect((try? JSONDecoder().decode(PlannedWrite.self, from: Data(text.utf8))) == nil)
    }

    /// Account info in `Codable`'s shape (seconds since 2001), known or not.
    @Test func accountInfoReadsBothWays() throws {
        for createdAt in [Date(timeIntervalSince1970: 1_772_409_600.123_456), nil] {
            let ours = AccountInfo(createdAt: createdAt)
            #expect(try JSONDecoder().decode(AccountInfo.self, from: ours.stored).createdAt == createdAt)
            let theirs = try JSONEncoder().encode(AccountInfo(createdAt: createdAt))
            #expect(AccountInfo(stored: theirs)?.createdAt == createdAt)
        }
        #expect(AccountInfo(stored: Data(#"{"createdAt":"yesterday"}"#.utf8)) == nil)
    }

    /// `max_per_day` counts written by us read back through both readers.
    @Test func dailyCountsReadBothWays() throws {
        var counts = DailyCounts()
        counts.add(DailyCounts.key("r", "comments", 0), day: "2026-03-02", 7)
        counts.add(DailyCounts.key("r", "votes", 1), day: "2026-03-01", 40)
        let decoded = try JSONDecoder().decode(DailyCounts.self, from: counts.stored)
        let reread = try #require(DailyCounts(stored: counts.stored))
        for reader in [decoded, reread] {
            #expect(reader.used(DailyCounts.key("r", "comments", 0), day: "2026-03-02") == 7)
            #expect(reader.used(DailyCounts.key("r", "votes", 1), day: "2026-03-01") == 40)
            #expect(reader.used(DailyCounts.key("r", "votes", 1), day: "2026-03-02") == 0)
        }
    }
}
