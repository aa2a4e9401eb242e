import FileSafety
import Foundation
import GRDB

extension SQLiteStateStore {
    /// A private in-memory copy of the state file at `path`, for `status` and `plan`: the
    /// simulation writes to the copy as the engine would, and the file stays byte-identical.
    ///
    /// The file is opened read-only and copied with SQLite's online backup (a consistent
    /// snapshot even while a `run` writes it); no lock file is created. A missing file gives
    /// an empty store (and is not created). A file from a newer build is refused. Blocks.
    ///
    /// Read-only state (a read-only mount, a directory this user cannot write): SQLite cannot
    /// open a WAL database read-only when its `-shm` file is missing and cannot be created,
    /// which is the case once the last writer closed it cleanly. Then the file (and a `-wal`
    /// file left behind, if any) is copied into a private temporary directory and read from
    /// there: nothing is written next to the state file.
    public static func snapshot(of path: String, busyTimeout: TimeInterval = 5) throws -> SQLiteStateStore {
        let memory = try mapping { try DatabaseQueue(configuration: configuration(busyTimeout: 0)) }
        if try stateFileExists(path) {
            try refuseDirectory(path)
            do {
                try backup(from: path, readonly: true, busyTimeout: busyTimeout, into: memory)
            } catch let error as DatabaseError where [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode) {
                guard !isWritableLocation(path) else { throw storageError(error, path: path) }
                try backupOfCopy(of: path, busyTimeout: busyTimeout, into: memory, original: error)
            } catch let error as DatabaseError {
                throw storageError(error, path: path)
            }
        }
        try migrate(memory, source: path)
        return SQLiteStateStore(memory: memory)
    }

    /// Whether there is a state file at `path`: false when there is none; an error when it
    /// cannot be told (a directory on the way this user may not search), rather than an empty state.
    public static func stateFileExists(_ path: String) throws -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return true }
        let code = errno
        if code == ENOENT { return false }
        throw StorageError.io("reading the state file", path: path, errno: code)
    }

    /// A private in-memory copy of this store (see `snapshot(of:)`).
    ///
    /// Backed up from the read connection, while no body holds it (in memory, it is the write
    /// connection too: no transaction is open during the copy).
    public func snapshot() async throws -> SQLiteStateStore {
        let memory = try Self.mapping { try DatabaseQueue(configuration: Self.configuration(busyTimeout: 0)) }
        try await Self.mapping(path: path) {
            try await readLane.exclusive { source in
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    DispatchQueue.global(qos: .userInitiated).async {
                        continuation.resume(with: Result { try source.backup(to: memory) })
                    }
                }
            }
        }
        return SQLiteStateStore(memory: memory)
    }

    /// Backs the database at `path` up into `memory`.
    static func backup(from path: String, readonly: Bool, busyTimeout: TimeInterval, into memory: DatabaseQueue) throws
    {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "moltipass-state-snapshot-source"
        let source = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? source.close() }
        try source.backup(to: memory)
    }

    /// Whether this process may write both the file at `path` and its directory (where SQLite
    /// creates `-shm` and `-wal`).
    static func isWritableLocation(_ path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        return access(path, W_OK) == 0 && access(directory.isEmpty ? "." : directory, W_OK) == 0
    }

    /// `backup(from:)` of a private copy of the file at `path` and its `-wal`, in a new 0700
    /// directory under the temporary directory, removed afterwards.
    static func backupOfCopy(
        of path: String, busyTimeout: TimeInterval, into memory: DatabaseQueue, original: DatabaseError
    ) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("moltipass-snapshot-\(UUID().uuidString)").path
        guard mkdir(directory, 0o700) == 0 else {
            throw StorageError(
                .readOnly,
                "the state file \(path) is read-only and no temporary copy could be made in "
                    + "\(FileManager.default.temporaryDirectory.path) (\(String(cString: strerror(errno)))): "
                    + "set TMPDIR to a writable directory",
                underlying: original)
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let copy = directory + "/state.sqlite"
        for suffix in ["", "-wal"] where suffix.isEmpty || FileManager.default.fileExists(atPath: path + suffix) {
            try StorageError.mappingFiles { try PrivateFile.copy(path + suffix, to: copy + suffix) }
        }
        do {
            // Read-write: a `-wal` left behind by a killed writer is recovered into the copy.
            try backup(from: copy, readonly: false, busyTimeout: busyTimeout, into: memory)
        } catch let error as DatabaseError {
            throw storageError(error, path: path)
        }
    }
}
