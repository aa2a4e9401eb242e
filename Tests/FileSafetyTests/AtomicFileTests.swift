import FileSafety
import Foundation
import MoltipassTesting
import Testing

/// Atomic replacement: whole contents or none, 0600 from the first byte, no temp left behind,
/// temp files of killed writers cleaned up.
@Suite struct AtomicFileTests {
    /// A write replaces the contents whole, with mode 0600, and leaves no temp file; a file
    /// that was 0644 comes out 0600.
    @Test func replacesWholeAndPrivate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("small.json").path
        try Files.write("old, readable by all", to: path, mode: 0o644)
        try AtomicFile.write(Data("one".utf8), to: path)
        #expect(Files.contents(path) == "one")
        #expect(try Files.mode(path) == 0o600)
        try AtomicFile.write(Data("two".utf8), to: path)
        #expect(Files.contents(path) == "two")
        #expect(try Files.names(directory.path) == ["small.json"])
    }

    /// With a mode (a metrics text file another user reads), the temp file has it before the
    /// first byte and the file keeps it; a file that was 0600 comes out with the mode.
    @Test func writesWithAGivenMode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("moltipass.prom").path
        try Files.write("old", to: path, mode: 0o600)
        let seen = Shared<[Int]>([])
        try AtomicFile.write(Data("metric 1\n".utf8), to: path, mode: 0o644) { step in
            guard step == .tempCreated else { return }
            let temps = try Files.names(directory.path).filter { $0.hasPrefix(".moltipass.prom.tmp-") }
            let modes = try temps.map { try Files.mode(directory.file($0).path) }
            seen.update { $0 += modes }
        }
        #expect(seen.current == [0o644])
        #expect(try Files.mode(path) == 0o644)
        #expect(Files.contents(path) == "metric 1\n")
        #expect(try Files.names(directory.path) == ["moltipass.prom"])
    }

    /// The temp file is 0600 while still empty (the mode is set before any data is written),
    /// and its name is the one the next writer's clean-up recognises.
    @Test func modeSetBeforeDataWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("keys.moltipass").path
        let seen = Shared<[String]>([])
        try AtomicFile.write(Data("secret".utf8), to: path) { step in
            guard step == .tempCreated || step == .tempWritten else { return }
            let temps = try Files.names(directory.path).filter { $0.hasPrefix(".keys.moltipass.tmp-") }
            guard temps.count == 1, let name = temps.first else { throw SimulatedCrash() }
            let info = try FileManager.default.attributesOfItem(atPath: directory.file(name).path)
            let size = (info[.size] as? NSNumber)?.intValue ?? -1
            let line = "\(step): \(name.count) \(try Files.mode(directory.file(name).path)) \(size)"
            seen.update { $0.append(line) }
        }
        let prefixLength = ".keys.moltipass.tmp-".count
        #expect(
            seen.current == [
                "tempCreated: \(prefixLength + 12) \(0o600) 0", "tempWritten: \(prefixLength + 12) \(0o600) 6",
            ])
        #expect(Files.contents(path) == "secret")
    }

    /// A write interrupted at any step before the rename leaves the previous contents and no
    /// temp file; the hook's own error comes out unchanged.
    @Test(arguments: [AtomicFile.Step.tempCreated, .tempWritten, .tempSynced, .beforeRename])
    func crashBeforeRenameKeepsOldFile(step: AtomicFile.Step) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("state.json").path
        try AtomicFile.write(Data("old".utf8), to: path)
        #expect(throws: SimulatedCrash()) {
            try AtomicFile.write(Data("new".utf8), to: path) { if $0 == step { throw SimulatedCrash() } }
        }
        #expect(Files.contents(path) == "old")
        #expect(try Files.names(directory.path) == ["state.json"])
    }

    /// A crash after the rename leaves the new contents complete.
    @Test func crashAfterRenameHasNewFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("state.json").path
        try AtomicFile.write(Data("old".utf8), to: path)
        #expect(throws: SimulatedCrash()) {
            try AtomicFile.write(Data("new".utf8), to: path) { if $0 == .renamed { throw SimulatedCrash() } }
        }
        #expect(Files.contents(path) == "new")
        #expect(try Files.mode(path) == 0o600)
    }

    /// Temp files of the path left by killed writers (`.NAME.tmp-` and 12 lowercase hex digits)
    /// are removed by the next write; names that only look alike are kept.
    @Test func abandonedTempsRemovedLookAlikesKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("keys.moltipass").path
        let abandoned = [".keys.moltipass.tmp-0123456789ab", ".keys.moltipass.tmp-deadbeef0000"]
        let lookAlikes = [
            "keys.moltipass.tmp-0123456789ab", ".keys.moltipass.tmp-0123456789AB", ".keys.moltipass.tmp-0123456789a",
            ".keys.moltipass.tmp-0123456789abc", ".keys.moltipass.tmp-notatempfile", ".other.tmp-0123456789ab",
            ".keys.moltipass.tmp-０１２３４５６７８９ab",
        ]
        for name in abandoned + lookAlikes { try Files.write("a stale sealed copy", to: directory.file(name).path) }
        try AtomicFile.write(Data("current".utf8), to: path)
        #expect(try Files.names(directory.path) == (lookAlikes + ["keys.moltipass"]).sorted())
        #expect(Files.contents(path) == "current")
    }

    /// A write into a missing directory fails in plain words and creates nothing.
    @Test func missingDirectoryFailsPlainly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("missing/state.json").path
        let error = Files.error { try AtomicFile.write(Data("x".utf8), to: path) }
        guard case .system(.creating, let tempPath, ENOENT) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(tempPath.hasPrefix(directory.file("missing/.state.json.tmp-").path))
        #expect(error?.description == "creating \(tempPath) failed: No such file or directory")
        #expect(try Files.names(directory.path) == [])
    }
}
