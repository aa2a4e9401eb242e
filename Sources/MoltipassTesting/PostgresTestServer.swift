import Foundation

/// The test server `scripts/postgres-server` started (its URL and password file in the
/// environment: `scripts/test` exports them for the whole run).
///
/// PostgreSQL cases run when `MOLTIPASS_TEST_POSTGRES` is set; when it is not, they are left
/// out, except under CI (`CI` set): there they run and fail saying so, so CI never skips them
/// silently.
public enum PostgresTestServer {
    public static var baseURL: String? { nonEmpty(ProcessInfo.processInfo.environment["MOLTIPASS_TEST_POSTGRES"]) }
    public static var passwordFile: String? {
        nonEmpty(ProcessInfo.processInfo.environment["MOLTIPASS_TEST_POSTGRES_PASSWORD_FILE"])
    }
    public static var inCI: Bool { nonEmpty(ProcessInfo.processInfo.environment["CI"]) != nil }

    /// Whether the PostgreSQL cases run: a server is given, or CI must have one.
    public static var wanted: Bool { baseURL != nil || inCI }

    /// The server's URL with `schema=`; fails the test when no server is given.
    public static func url(schema: String) throws -> String {
        guard let base = baseURL else {
            throw HarnessError(
                "MOLTIPASS_TEST_POSTGRES is not set, and CI is: the PostgreSQL cases must run in CI "
                    + "(scripts/test starts a server with scripts/postgres-server)")
        }
        return base + (base.contains("?") ? "&" : "?") + "schema=\(schema)"
    }

    /// A schema name no other test uses.
    public static func freshSchema() -> String {
        "t_" + (0..<12).map { _ in String(Int.random(in: 0..<36), radix: 36) }.joined()
    }

    /// The environment a `moltipass` child needs to reach the server (the password's file).
    public static var childEnvironment: [String: String] {
        passwordFile.map { ["MOLTIPASS_STATE_PASSWORD_FILE": $0] } ?? [:]
    }

    private static func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
}
