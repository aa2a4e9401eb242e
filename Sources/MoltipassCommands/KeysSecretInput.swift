import Foundation
import Keychain
import MoltbookAPI
import MoltipassEngine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads an API key for `keys add`: from stdin when it is not a terminal (a pipe or a file),
/// else from a no-echo prompt. Never from the command line.
public enum KeysSecretInput {
    /// Keys longer than this are refused: 4 KiB.
    public static let maximumLength = 4096

    public static func readKey(for name: String) throws -> APIKey {
        let text: String
        if isatty(STDIN_FILENO) == 1 {
            text = try TerminalPrompt.readSecret("API key for \(name): ")
        } else {
            var data = Data()
            while let chunk = try FileHandle.standardInput.read(upToCount: 4096), !chunk.isEmpty {
                data.append(chunk)
                guard data.count <= maximumLength else {
                    throw KeysFailure(.usage, "the key on stdin is longer than \(maximumLength) bytes")
                }
            }
            text = String(decoding: data, as: UTF8.self)
        }
        let key = APIKey(text)
        guard key.isUsable else {
            throw KeysFailure(
                .usage,
                "no usable key for \(name): pipe it on stdin (`moltipass keys add \(name) < FILE`) or type it at the "
                    + "prompt; it must be one line without spaces")
        }
        return key
    }
}
