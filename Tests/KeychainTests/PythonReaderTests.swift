import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@testable import Keychain

/// scripts/keychain-reader.py is a second implementation written only from
/// docs/keychain-format.md. These tests run when python3 with `cryptography` is installed.
@Suite(.enabled(if: PythonReader.available, "needs python3 with the cryptography package"))
struct PythonReaderTests {
    /// The Python reader decodes every frozen vector (format versions 1 and 2) to the entries in
    /// vectors.json, model keys with their kind, no key printed.
    @Test func decodesVectors() async throws {
        let vectors = try FixtureVectorTests.vectors()
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        for vector in vectors.vectors {
            let path = try FixtureVectorTests.privateCopy(vector.file, in: dir)
            let passphrase = vectors.passphrase
            let result = try await offloaded { try PythonReader.run(["read", path], passphrase: passphrase) }
            #expect(result.status == 0, "\(result.stderr)")
            let decoded = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(decoded?["version"] as? Int == Int(vector.formatVersion ?? 1))
            #expect(decoded?["generation"] as? Int == Int(vector.generation))
            #expect(decoded?["cipher"] as? String == vector.cipher)
            let entries = decoded?["entries"] as? [[String: Any]] ?? []
            #expect(entries.map { $0["name"] as? String } == vector.entries.map(\.name))
            for (got, expected) in zip(entries, vector.entries) {
                #expect(got["key_fingerprint"] as? String == APIKey(expected.apiKey).fingerprint)
                #expect(got["kind"] as? String == expected.kind)
                #expect(got["claim_status"] as? String == expected.claimStatus)
                #expect(got["agent_id"] as? String == expected.agentID)
                #expect(got["updated_at"] as? String == expected.updatedAt)
            }
            #expect(!result.stdout.contains("moltbook_sk"))
            #expect(!result.stdout.contains("sk-FIXTURE"))
        }
    }

    /// An agent added by the Python writer to the version 2 vector keeps the file version 2 and
    /// its model keys; Swift reads the result with both namespaces intact.
    @Test func pythonWriterKeepsModelKeys() async throws {
        let vectors = try FixtureVectorTests.vectors()
        let vector = try #require(vectors.vectors.first { $0.formatVersion == 2 })
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let path = try FixtureVectorTests.privateCopy(vector.file, in: dir)
        let keyFile = dir.file("key-input").path
        try Data("moltbook_sk_FIXTUREPYTHON000000\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        let passphrase = vectors.passphrase
        let script = PythonReader.script.path
        let status = try await offloaded {
            try PythonReader.run(
                ["/bin/sh", "-c", "python3 '\(script)' add '\(path)' local-ollama < '\(keyFile)'"],
                passphrase: passphrase, script: nil
            ).status
        }
        #expect(status == 0)
        let contents = try KeychainStore(path: path, passphrase: Passphrase(passphrase)).read()
        #expect(contents.formatVersion == 2)
        #expect(contents.generation == vector.generation + 1)
        #expect(contents.entries.map(\.name) == ["local-ollama", "reef_scout"])
        #expect(try contents.key(for: "local-ollama") == APIKey("moltbook_sk_FIXTUREPYTHON000000"))
        #expect(try contents.modelKey(named: "local-ollama") == ModelKey("sk-FIXTURE0ollama0not0real"))
        #expect(contents.modelEntries.map(\.name) == ["local-ollama", "reef_scout"])
    }

    /// The Python reader reports a wrong passphrase with the one error and exit status 1.
    @Test func wrongPassphrase() async throws {
        let vectors = try FixtureVectorTests.vectors()
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let path = try FixtureVectorTests.privateCopy(vectors.vectors[0].file, in: dir)
        let result = try await offloaded { try PythonReader.run(["read", path], passphrase: "not it") }
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot open keychain: wrong passphrase or the file was modified"))
    }

    /// Adds from two Python processes and from this process, all at once, all land: the
    /// lock on `<file>.lock` is honoured across processes (and Swift reads what Python wrote).
    @Test func concurrentAddsFromProcessesAllLand() async throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let keyFile = dir.file("key-input").path
        try Data("moltbook_sk_FIXTUREPYTHON000000\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        try Support.chmod(keyFile, 0o600)
        let perProcess = 5
        let script = PythonReader.script.path
        let loops = (0..<2).map { worker in
            "for i in $(seq 1 \(perProcess)); do python3 '\(script)' add '\(store.path)' py\(worker)-$i < '\(keyFile)' "
                + "|| exit 1; done"
        }
        let passphrase = String(decoding: Support.passphrase.bytes, as: UTF8.self)
        let processes = try loops.map { try PythonReader.start(["/bin/sh", "-c", $0], passphrase: passphrase) }
        // The slow writes block: off the cooperative pool.
        let swiftAdds = try await offloaded { () throws -> Int in
            // Hold each Swift write open for 40 ms inside its critical section, and keep writing
            // while the Python processes run: without the lock, their adds would be overwritten.
            let slow = KeychainStore(
                path: store.path, passphrase: { Support.passphrase },
                writeHook: { if $0 == .tempWritten { usleep(40_000) } })
            var swiftAdds = 0
            while processes.contains(where: \.isRunning) || swiftAdds < 3 {
                try slow.add(name: "swift-\(swiftAdds)", key: Support.fakeKey("S"), now: Support.t0)
                swiftAdds += 1
            }
            return swiftAdds
        }
        var statuses: [Int32?] = []
        for process in processes { statuses.append(await process.waitForExit(timeout: 120)) }
        #expect(statuses == [0, 0])
        let contents = try store.read()
        #expect(contents.entries.count == 2 * perProcess + swiftAdds)
        #expect(contents.generation == UInt64(1 + 2 * perProcess + swiftAdds))
        #expect(
            contents.entry(named: "py1-\(perProcess)")?.keyFingerprint
                == APIKey("moltbook_sk_FIXTUREPYTHON000000").fingerprint)
    }
}

/// Runs scripts/keychain-reader.py. The passphrase goes through the environment, never argv.
enum PythonReader {
    static let script = Fixtures.packageRoot.appendingPathComponent("scripts/keychain-reader.py")

    static let available: Bool =
        (try? run(["python3", "-c", "import cryptography"], passphrase: "", script: nil).status) == 0

    /// The environment of every run: PATH (python3 may be a pyenv shim) and the passphrase.
    static func environment(_ passphrase: String) -> [String: String] {
        ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "MOLTIPASS_PASSPHRASE": passphrase]
    }

    /// Starts `arguments` (through `/usr/bin/env`) in the background, output discarded.
    static func start(_ arguments: [String], passphrase: String) throws -> ChildProcess {
        try ChildProcess(program: "/usr/bin/env", arguments, environment: environment(passphrase))
    }

    /// Runs the reader script with `arguments` (or, with `script: nil`, `arguments` themselves) to completion,
    /// blocking: call it off the cooperative pool.
    static func run(_ arguments: [String], passphrase: String, script: URL? = script) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let result = try ProcessRunner.runSystemBlocking(
            "/usr/bin/env", (script.map { ["python3", $0.path] } ?? []) + arguments,
            environment: environment(passphrase), timeout: 120)
        return (result.status, result.stdout, result.stderr)
    }
}
