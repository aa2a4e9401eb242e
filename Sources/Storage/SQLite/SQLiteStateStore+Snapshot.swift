import Foundation
import GRDB

extension SQLiteStateStore {
    /// A private in-memory copy of the state file at `path`, for `plan`: the simulation writes
    /// to the copy as the engine would, and the file stays byte-identical.
    ///
    /// The file is opened read-only and copied with SQLite's online backup (a consistent
    /// snapshot even while a `run` writes it); no lock file is created. A missing file gives
    /// an empty store (and is not created). A file from a newer build is refused. Blocks.
    public static func snapshot(of path: String, busyTimeout: TimeInterval = 5) throws -> SQLiteStateStore {
        let memory = try mapping { try DatabaseQueue(configuration: configuration(busyTimeout: 0)) }
        if FileManager.default.fileExists(atPath: path) {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(busyTimeout)
            configuration.label = "moltipass-state-snapshot-source"
            try mapping {
                let source = try DatabaseQueue(path: path, configuration: configuration)
                defer { try? source.close() }
                try source.backup(to: memory)
            }
        }
        try migrate(memory, source: path)
        return SQLiteStateStore(memory: memory)
    }

    /// A private in-memory copy of this store (see `snapshot(of:)`).
    public func snapshot() async throws -> SQLiteStateStore {
        let source = writer
        let memory = try Self.mapping { try DatabaseQueue(configuration: Self.configuration(busyTimeout: 0)) }
        try await Self.mapping {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(with: Result { try source.backup(to: memory) })
                }
            }
        }
        return SQLiteStateStore(memory: memory)
    }
}
