import FileSafety
import Foundation
import Synchronization

/// Small helpers over real files in temp directories.
enum Files {
    /// The permission bits of `path` (not following a symlink at the end).
    static func mode(_ path: String) throws -> Int {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return Int(info.st_mode & 0o7777)
    }

    static func chmod(_ path: String, _ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// Writes `text` to `path` with `mode`.
    static func write(_ text: String, to path: String, mode: Int = 0o600) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try chmod(path, mode)
    }

    static func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names in `directory`, sorted.
    static func names(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    /// Runs `body` and returns the `FileSafetyError` it threw (nil when it threw none).
    static func error(_ body: () throws -> Void) -> FileSafetyError? {
        do {
            try body()
            return nil
        } catch let error as FileSafetyError {
            return error
        } catch {
            return nil
        }
    }
}

/// What a simulated crash throws from a write hook.
struct SimulatedCrash: Error, Equatable {}

/// A value shared with closures that run on other threads.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    func update(_ change: @Sendable (inout Value) -> Void) { value.withLock { change(&$0) } }

    var current: Value { value.withLock { $0 } }
}
