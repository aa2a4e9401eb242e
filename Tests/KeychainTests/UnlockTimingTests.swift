import Foundation
import MoltipassTesting
import Testing

@testable import Keychain

/// How long one unlock takes with the default parameters. Runs only with
/// `KEYCHAIN_MEASURE=1` (it costs about a second per unlock); docs/keychain-format.md quotes it.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["KEYCHAIN_MEASURE"] == "1"))
struct UnlockTimingTests {
    /// A default-strength file opens, in under ten seconds per unlock; prints the median of five.
    @Test func strongUnlock() throws {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let path = dir.file("k").path
        try KeychainStore.create(at: path, passphrase: Support.passphrase)
        var samples: [Duration] = []
        for _ in 0..<5 {
            let started = ContinuousClock.now
            _ = try KeychainStore(path: path, passphrase: Support.passphrase).read()
            samples.append(started.duration(to: .now))
        }
        samples.sort()
        print("strong unlock (\(ScryptParameters.strong)): median \(samples[2]), min \(samples[0]), max \(samples[4])")
        #expect(samples[2] < .seconds(10))
    }
}
