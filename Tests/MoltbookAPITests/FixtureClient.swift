import Foundation
import MoltbookAPI
import MoltipassTesting

/// A client that answers every call with one fixture file, for decoding tests.
func fixtureClient(
    _ name: String, status: Int = 200, headers: HTTPHeaders = ["Content-Type": "application/json"]
) throws -> (MoltbookClient, StubTransport) {
    let body = try Fixtures.data("api/\(name)")
    let transport = StubTransport(status: status, headers: headers, body: body)
    let client = try MoltbookClient(apiKey: APIKey("moltbook_sk_unit_test_key_0000000000000000"), transport: transport)
    return (client, transport)
}

/// 2026-03-01T10:00:00Z, the instant the fixtures' relative hints are measured from.
let fixtureNow = Date(timeIntervalSince1970: 1_772_359_200)
