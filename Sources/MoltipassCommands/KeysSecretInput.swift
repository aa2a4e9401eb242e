import Foundation
import Keychain
import MoltbookAPI
import MoltipassEngine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a key for `keys add`: from stdin when it is not a terminal (a pipe or a file),
/// else from a no-echo prompt. Never from the command line.
public enum KeysSecretInput {
    /// Keys longer than this are refused: 4 KiB.
    public static let maximumLength = 4096

    /// An agent's Moltbook API key.
    public static func readKey(for name: String) throws -> APIKey {
        let key = APIKey(try readSecret(prompt: "API key for \(name): ", limit: maximumLength))
        guard key.isUsable else {
            throw KeysFailure(
                .usage,
                "no usable key for \(name): pipe it on stdin (`moltipass keys add \(name) < FILE`) or type it at the "
                    + "prompt; it must be one line without spaces")
        }
        return key
    }

    /// A model server's key (`keys add --model NAME`): any printable secret, no Moltbook format.
    public static func readModelKey(named name: String) throws -> ModelKey {
        // Room for the line end after a key of the full length.
        let key = ModelKey(try readSecret(prompt: "Model key for \(name): ", limit: ModelKey.maximumLength + 2))
        guard key.isUsable else {
            throw KeysFailure(
                .usage,
                "no usable model key for \(name): pipe it on stdin (`moltipass keys add --model \(name) < FILE`) or "
                    + "type it at the prompt; it must be one line of printable ASCII without spaces, at most "
                    + "\(ModelKey.maximumLength) bytes")
        }
        return key
    }

    /// The text on stdin (at most `limit` bytes), or a line typed at the prompt.
    static func readSecret(prompt: String, limit: Int) throws -> String {
        if isatty(STDIN_FILENO) == 1 {
            return try TerminalPrompt.readSecret(prompt)
        }
        var data = Data()
        while let chunk = try FileHandle.standardInput.read(upToCount: 4096), !chunk.isEmpty {
            data.append(chunk)
            guard data.count <= limit else {
                throw KeysFailure(.usage, "the key on stdin is longer than \(maximumLength) bytes")
            }
        }
        return String(decoding: data, as: UTF8.self)
    }
}
