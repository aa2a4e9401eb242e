import Foundation
import Testing

@testable import MoltipassEngine

/// Issue 33, observation 5: what follows a challenge's end, as a table of verdicts and keys.
@Suite("Challenged content: the follow-up")
struct ChallengedContentTests {
    @Test func lookingIsForVerifiedContentOrAServerThatKeepsNothing() {
        #expect(ChallengedContent.mustLook(verified: true, keepsUnverified: nil))
        #expect(ChallengedContent.mustLook(verified: false, keepsUnverified: false))
        #expect(!ChallengedContent.mustLook(verified: false, keepsUnverified: nil))
        #expect(!ChallengedContent.mustLook(verified: false, keepsUnverified: true))
    }

    @Test func followUps() {
        let key = "3d9845d82ce7a56b48b6fbe980af83e2"
        let table: [(Reconciler.Verdict, String, ChallengedContent.FollowUp)] = [
            (.applied(remoteID: "p1"), key, .kept),
            (.unknown(reason: "first page only"), key, .unknown(reason: "first page only")),
            (.notApplied(evidence: "exact"), key, .sendAgain(evidence: "exact", send: 2)),
            (.notApplied(evidence: "exact"), key + "~2", .sendAgain(evidence: "exact", send: 3)),
            (
                .notApplied(evidence: "exact"), key + "~3",
                .giveUp(reason: "the server kept none of 3 sends after their challenges (exact)")
            ),
        ]
        for (verdict, key, expected) in table {
            #expect(ChallengedContent.followUp(verdict, key: key) == expected, "\(verdict) \(key)")
        }
    }

    @Test func keysOfLaterSends() {
        #expect(ChallengedContent.key("abc", send: 2) == "abc~2")
        #expect(ChallengedContent.key("abc~2", send: 3) == "abc~3")
        #expect(ChallengedContent.sends("abc") == 1)
        #expect(ChallengedContent.sends("abc~3") == 3)
        #expect(ChallengedContent.sends("a~b") == 1)
    }
}
