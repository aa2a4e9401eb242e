import FileSafety
import Foundation

extension StorageError {
    /// `error` as a storage failure: a lock timeout keeps its own code, every other file
    /// problem is `.io`. The message is the file error's plain description.
    init(_ error: FileSafetyError) {
        switch error {
        case .lockTimeout: self.init(.lockTimeout, error.description, underlying: error)
        default: self.init(.io, error.description, underlying: error)
        }
    }

    /// Runs `body`, turning a `FileSafetyError` into a `StorageError`; other errors pass through.
    static func mappingFiles<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FileSafetyError {
            throw StorageError(error)
        }
    }
}
