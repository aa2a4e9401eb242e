import Foundation
import MoltbookSandbox

/// The sandbox dialect a test run targets: `MOLTIPASS_TEST_DIALECT` (`moltbook.com`, `oss-1.0`,
/// `minimal-mock`); unset or empty means `moltbook.com`.
///
/// Tests that are not about one particular server start their sandbox in `TestDialect.current`, so
/// the same suite can be run against every dialect:
/// `MOLTIPASS_TEST_DIALECT=oss-1.0 swift test --skip-build`.
public enum TestDialect {
    /// The environment variable naming the dialect.
    public static let variable = "MOLTIPASS_TEST_DIALECT"

    /// The dialect named by `MOLTIPASS_TEST_DIALECT`; stops the test run on a name that is not one.
    public static var current: SandboxDialect {
        let value = ProcessInfo.processInfo.environment[variable]
        guard let dialect = dialect(named: value) else {
            fatalError("\(variable)=\(value ?? "") is not a sandbox dialect; use one of: \(SandboxDialect.names)")
        }
        return dialect
    }

    /// The dialect a value of the variable names: nil or empty gives `.moltbookCom`; nil for an unknown name.
    public static func dialect(named value: String?) -> SandboxDialect? {
        guard let value, !value.isEmpty else { return .moltbookCom }
        return SandboxDialect(rawValue: value)
    }
}
