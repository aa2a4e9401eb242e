import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 33, observation 11, through the binary: `keys verify` on a server without
/// `/agents/status` (404) takes `/agents/me`'s word instead of failing (it exited 1).
@Suite("keys verify: a server without /agents/status")
struct KeysVerifyWithoutStatusTests {
    @Test func theKeyWorksWhenMeAnswers() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("no_status")
        try await fixture.admin(
            .post, "faults",
            .object([
                "mode": .string("html_error"), "status": .number(404),
                "path_prefix": .string("/api/v1/agents/status"), "count": .number(10),
            ]))
        let verified = try await fixture.home.run(["keys", "verify", "no_status", "--json"])
        #expect(verified.status == 0, "\(verified.stderr)")
        let report = try JSONValue.parse(Data(verified.stdout.utf8))
        #expect(report["claim_status"]?.string == "claimed", "\(verified.stdout)")
    }
}
