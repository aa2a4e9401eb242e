import Foundation
import MoltipassTesting
import Testing

/// README.md's reference tables against the code they describe: the exit-code table against
/// `ExitStatus`, the environment variables against the sources.
struct ReadmeReferenceTests {
    static func source(_ path: String) throws -> String {
        try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// `(code, name)` of every `case name = code` in ExitStatus.swift, in order.
    static func exitStatusCases() throws -> [(Int32, String)] {
        try source("Sources/MoltipassEngine/ExitStatus.swift").split(separator: "\n").compactMap { line in
            line.wholeMatch(of: /\s+case (\w+) = (\d+)/).flatMap { match in Int32(match.2).map { ($0, String(match.1)) }
            }
        }
    }

    /// The README table "Exit codes" lists exactly ExitStatus's cases with their codes, in order,
    /// and says that 13 is `challenge solve` declining; every code of 64 and above is one sysexits.h
    /// gives the same meaning (64 usage, 65 data, 75 temporary failure, 77 permission).
    @Test func exitCodeTableMatchesExitStatus() throws {
        let rows = Readme.table(startingWith: "code", in: try Readme.section("Exit codes"))
        let documented = rows.map { (Int32($0[0]) ?? -1, $0[1]) }
        let declared = try Self.exitStatusCases()
        #expect(declared.count >= 14)
        #expect(documented.map(\.0) == declared.map(\.0))
        #expect(documented.map(\.1) == declared.map(\.1))
        let declined = rows.first { $0[0] == "13" }
        #expect(declined?[2].contains("`challenge solve`") == true)
        let sysexits: [Int32: String] = [64: "EX_USAGE", 65: "EX_DATAERR", 75: "EX_TEMPFAIL", 77: "EX_NOPERM"]
        for (code, name) in declared where code >= 64 {
            let row = rows.first { $0[0] == "\(code)" }
            #expect(sysexits[code] != nil, "\(code) \(name) is not a sysexits code of the same meaning")
            #expect(row?[2].contains(sysexits[code] ?? "?") == true, "\(code): \(row ?? [])")
        }
    }

    /// Every exit code `moltipass run --help` names is in the table.
    @Test func runHelpCodesAreDocumented() async throws {
        let help = try await ProcessRunner.run("moltipass", ["run", "--help"])
        #expect(help.status == 0)
        let words =
            /\b(\d{1,2})\s+(?:something|nothing|deferred|locked|another|paused|a write|invalid|keychain|transient|auth)/
        let named = Set(help.stdout.matches(of: words).compactMap { Int32($0.1) })
        #expect(named.count >= 8, "\(help.stdout)")
        let table = Set(
            Readme.table(startingWith: "code", in: try Readme.section("Exit codes")).compactMap { Int32($0[0]) })
        #expect(named.isSubset(of: table))
    }

    /// The `MOLTIPASS_*` variables of the README's variable table are exactly those the sources read.
    @Test func environmentVariablesMatchSources() throws {
        let rows = Readme.table(startingWith: "variable", in: try Readme.section("Running recipes"))
        let documented = Set(rows.flatMap { Readme.codeSpans($0[0]) })
        var used: Set<String> = []
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        for case let path as String in FileManager.default.enumerator(atPath: sources.path) ?? .init()
        where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            used.formUnion(text.matches(of: /MOLTIPASS_[A-Z_]+/).map { String($0.0) })
        }
        #expect(used.count >= 4)
        #expect(documented == used)
    }
}
