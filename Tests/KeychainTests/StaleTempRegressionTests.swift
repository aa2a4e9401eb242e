import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@testable import Keychain

/// Found by `scripts/reliability/keyfile` (docs/reliability.md): `keys add` and `keys passwd`
/// killed with SIGKILL between writing their temp file and the rename leave it behind.
@Suite struct StaleTempRegressionTests {
    /// A temp file left by a killed writer is a full sealed copy under the passphrase of its
    /// time; the next write removes it, so after a passphrase change no file in the directory
    /// opens with the old passphrase. Files that only look alike are left alone.
    @Test func nextWriteRemovesAbandonedTemps() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        let sealed = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let abandoned = dir.file(".keys.moltipass.tmp-0123456789ab")
        try sealed.write(to: abandoned)
        try Support.chmod(abandoned.path, 0o600)
        let unrelated = [
            "keys.moltipass.tmp-0123456789ab", ".keys.moltipass.tmp-notatempfile", ".other.tmp-0123456789ab",
        ]
        for name in unrelated { try Data("keep".utf8).write(to: dir.file(name)) }
        // The abandoned copy opens with the current passphrase, like the file itself.
        #expect(try KeychainStore(path: abandoned.path, passphrase: Support.passphrase).read().entries.count == 1)

        let retired = Support.passphrase
        _ = try store.changePassphrase(to: Passphrase("the new passphrase"))

        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(!names.contains(".keys.moltipass.tmp-0123456789ab"))
        #expect(Set(unrelated).isSubset(of: Set(names)))
        for name in names where name != "keys.moltipass.lock" {
            let path = dir.file(name).path
            #expect(
                Support.keychainError { _ = try KeychainStore(path: path, passphrase: retired).read() } != nil,
                "\(name) still opens with the retired passphrase")
        }
        #expect(
            try KeychainStore(path: store.path, passphrase: Passphrase("the new passphrase")).read().entries.count == 1)
    }
}
