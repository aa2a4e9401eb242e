import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// TLS peer verification is always on: a self-signed server on loopback is refused.
@Suite("TLS verification")
struct TLSVerificationTests {
    /// `openssl s_server` with a self-signed certificate: the transfer fails with `tlsFailed` and
    /// no request is counted as sent.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
    func selfSignedRefused() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = dir.file("key.pem").path
        let cert = dir.file("cert.pem").path
        let made = try await ProcessRunner.runSystem(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                "-subj", "/CN=127.0.0.1",
            ])
        #expect(made.status == 0, "openssl req: \(made.stderr)")
        let port = 20_000 + Int.random(in: 0..<20_000)
        let server = try ChildProcess(
            program: "/usr/bin/openssl",
            ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-www", "-quiet"])
        // SIGKILL: `s_server` outlived SIGTERM and stayed behind after test runs.
        defer { server.send(SIGKILL) }
        let transport = try CurlTransport(configuration: .init(connectTimeout: .seconds(5), totalTimeout: .seconds(5)))
        let url = URL(string: "https://127.0.0.1:\(port)/")!
        var outcome: TransportError?
        for _ in 0..<50 {
            do {
                _ = try await transport.send(HTTPRequest(method: .get, url: url))
                Issue.record("a self-signed certificate was accepted")
                return
            } catch let error as TransportError {
                outcome = error
                if case .connectFailed = error {
                    try await Task.sleep(for: .milliseconds(100))  // s_server still starting
                    continue
                }
                break
            }
        }
        guard case .tlsFailed = outcome else {
            Issue.record("expected tlsFailed, got \(String(describing: outcome))")
            return
        }
        #expect(outcome?.requestMayHaveBeenProcessed == false)
    }
}
