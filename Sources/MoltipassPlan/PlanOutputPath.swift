import Foundation
import MoltipassEngine

/// Checks a file `plan` will write (`--html FILE`) before the simulation starts, so a typo in
/// a path costs a second, not a simulated month followed by a system error.
public enum PlanOutputPath {
    /// Nil when `path` can be written: its directory exists and is writable, and the path is
    /// not a directory nor an unwritable file. Otherwise what is wrong, in words.
    public static func problem(_ path: String, flag: String) -> String? {
        guard !path.isEmpty else { return "\(flag) needs a file name" }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "\(flag) \(path) is a directory; give a file name" }
            if access(path, W_OK) != 0 { return "\(flag) \(path) exists and is not writable" }
            return nil
        }
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            return "\(flag) \(path): the directory \(directory) does not exist"
        }
        guard isDirectory.boolValue else { return "\(flag) \(path): \(directory) is not a directory" }
        if access(directory, W_OK | X_OK) != 0 { return "\(flag) \(path): the directory \(directory) is not writable" }
        return nil
    }

    /// Writes `text` to `path` atomically; a failure is a `PlanError` naming the path and the
    /// reason (no system error text).
    public static func write(_ text: String, to path: String, flag: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw PlanError(
                "\(flag) \(path): could not write the file (\(problem(path, flag: flag) ?? "write failed"))")
        }
    }
}
