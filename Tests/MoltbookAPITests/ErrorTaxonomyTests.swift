import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@Suite("APIError taxonomy")
struct ErrorTaxonomyTests {
    /// Each error fixture maps to its code, whatever the body shape.
    @Test(arguments: [
        ("error-401-invalid-key.json", 401, APIError.Code.invalidKey),
        ("error-401-auth-required.json", 401, .authenticationRequired),
        ("error-401-suspended.json", 401, .suspended),
        ("error-403-suspended.json", 403, .suspended),
        ("error-403-not-claimed.json", 403, .notClaimed),
        ("error-404-post.json", 404, .notFound),
        ("error-409-name-taken.json", 409, .conflict),
        ("error-400-missing-fields.json", 400, .badRequest),
        ("error-500.json", 500, .serverError),
        ("error-429-generic.json", 429, .rateLimited),
        ("error-429-post-cooldown.json", 429, .rateLimited),
        // `success: false` on a 200 with no recognised reason: maybe applied, so not a refusal.
        ("success-false-on-200.json", 200, .unrecognized),
        ("verify-expired.json", 410, .expired),
    ])
    func classification(file: String, status: Int, code: APIError.Code) async throws {
        let (client, _) = try fixtureClient(file, status: status)
        let error = try #require(await apiError { try await client.me() })
        #expect(error.code == code)
        #expect(error.status == status)
        #expect(error.endpoint == "GET /agents/me")
    }

    /// Suspension texts give the remaining time ("ends in 10 hours", "ends in 1 day").
    @Test(arguments: [("error-401-suspended.json", 401, 36_000.0), ("error-403-suspended.json", 403, 86_400.0)])
    func suspensionTime(file: String, status: Int, seconds: Double) async throws {
        let (client, _) = try fixtureClient(file, status: status)
        let error = try #require(await apiError { try await client.createComment(postID: "p", content: "x") })
        #expect(error.code == .suspended)
        #expect(error.suspensionRemaining == seconds)
    }

    /// A validator's details reach the message (issue 33, observation 11: "Invalid request" alone
    /// hid that the title was over the server's 200).
    @Test(arguments: [
        (
            "error-400-validation-issues.json", 400,
            "Invalid request: title: String must contain at most 200 character(s)"
        ),
        ("error-422-details-list.json", 422, "Validation failed: content: Required; submolt is unknown"),
    ])
    func validationDetails(file: String, status: Int, said: String) async throws {
        let (client, _) = try fixtureClient(file, status: status)
        let error = try #require(await apiError { try await client.createComment(postID: "p", content: "x") })
        #expect(error.serverError == said)
        #expect(error.message.contains(said), "\(error.message)")
    }

    /// An invalid key tells the operator what to do.
    @Test func invalidKeyMessage() async throws {
        let (client, _) = try fixtureClient("error-401-invalid-key.json", status: 401)
        let error = try #require(await apiError { try await client.me() })
        #expect(error.message.contains("keys verify"))
    }

    /// A CloudFront HTML page is forbidden with a safe excerpt; HTML on a 200 is undecodable.
    @Test func htmlPages() async throws {
        let html: HTTPHeaders = ["Content-Type": "text/html"]
        let (forbidden, _) = try fixtureClient("html-error-403.html", status: 403, headers: html)
        let error = try #require(await apiError { try await forbidden.me() })
        #expect(error.code == .forbidden)
        #expect(error.bodyExcerpt?.contains("403 ERROR") == true)
        #expect((error.bodyExcerpt?.count ?? 0) <= 201)
        let (ok, _) = try fixtureClient("html-error-403.html", status: 200, headers: html)
        #expect(await apiError { try await ok.me() }?.code == .undecodable)
    }

    /// A 3xx is refused with a configuration message naming only the target host.
    @Test func redirectIsRefused() async throws {
        let transport = StubTransport { _ in
            HTTPResponse(status: 301, headers: ["Location": "https://evil.example/api/v1/agents/me"])
        }
        let client = try MoltbookClient(apiKey: APIKey("moltbook_sk_x"), transport: transport)
        let error = try #require(await apiError { try await client.me() })
        #expect(error.code == .redirectRefused)
        #expect(error.message.contains("evil.example"))
        #expect(transport.requests.count == 1)
    }

    /// Only www.moltbook.com over https, or loopback when allowed, can be a base URL.
    @Test(arguments: [
        ("https://www.moltbook.com/api/v1", false, true),
        ("https://moltbook.com/api/v1", false, false),
        ("http://www.moltbook.com/api/v1", false, false),
        ("https://moltbook.ai/api/v1", false, false),
        ("http://127.0.0.1:8080/api/v1", false, false),
        ("http://127.0.0.1:8080/api/v1", true, true),
        ("http://localhost:9/api/v1", true, true),
        ("http://10.0.0.1/api/v1", true, false),
        ("https://user:pw@www.moltbook.com/api/v1", false, false),
    ])
    func baseURLPolicy(url: String, loopback: Bool, accepted: Bool) throws {
        let result = Result { () throws(APIError) in
            try MoltbookClient.validate(baseURL: URL(string: url)!, allowLoopback: loopback)
        }
        #expect((try? result.get()) != nil ? accepted : !accepted)
    }

    /// Server text in errors is redacted: no key or claim token survives.
    @Test func redaction() {
        let text = "key moltbook_sk_AbCdEfGh12345678 and Bearer moltbook_sk_zz and claim moltbook_claim_TOKEN123"
        let redacted = Redactor.redact(text)
        #expect(!redacted.contains("AbCdEfGh"))
        #expect(!redacted.contains("TOKEN123"))
        #expect(!redacted.contains("moltbook_sk_zz"))
        let error = APIError(code: .badRequest, message: text, endpoint: "x", serverError: text, bodyExcerpt: text)
        #expect(!"\(error)".contains("AbCdEfGh"))
    }

    /// An API key prints as its fingerprint only.
    @Test func keyDescription() {
        let key = APIKey("moltbook_sk_SECRETsecretSECRETsecret000000\n")
        for text in [
            "\(key)", String(describing: key), String(reflecting: key),
            "\(Mirror(reflecting: key).children.map(\.value))",
        ] {
            #expect(!text.contains("SECRET"))
        }
        #expect(key.fingerprint.count == 8)
        #expect(key.withRawValue { $0 } == "moltbook_sk_SECRETsecretSECRETsecret000000")
    }
}
