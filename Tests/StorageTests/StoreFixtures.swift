import Foundation
import MoltipassTesting
import Storage

/// Fixed instants for table-like tests.
enum T {
    static let t0 = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
}

/// A state file in a fresh temporary directory.
struct StoreFile {
    let directory: TemporaryDirectory
    var path: String { directory.file("state.sqlite").path }

    init() throws { directory = try TemporaryDirectory(prefix: "moltipass-storage") }

    func open() async throws -> SQLiteStateStore { try await SQLiteStateStore.open(path: path) }

    func remove() { directory.remove() }
}

extension JournalIntent {
    /// A comment intent for `account` on post `p1`, step `step`.
    static func sample(_ key: String = "k1", account: String = "alice", step: Int = 0) -> JournalIntent {
        JournalIntent(
            key: key, account: account, recipe: "daily", job: "greet", occurrence: T.t0, step: step,
            action: "comment", target: "p1", contentHash: "h-\(key)", payload: Data("{\"content\":\"hi\"}".utf8))
    }
}

/// The bytes of a file, or nil when it does not exist.
func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// The permission bits of a file.
func mode(_ path: String) throws -> Int {
    try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

struct Boom: Error {}
