import FileSafety
import Foundation
import Generation
import Keychain
import MoltbookAPI
import MoltipassEngine
import Recipes

/// Where the generators of a command get a model server's key (issue 21): a model-key entry of
/// the keychain (`moltipass keys add --model NAME`; the keychain is unlocked on first use), or
/// a key file (`key_file:`, a mounted secret: mode 0600 or 0400, like the passphrase file).
/// The key goes only to the `ChatCompletionsClient` of the recipe's own `base_url`.
public enum ModelKeyProvider {
    public static func make(keys: KeysSession?) -> GenerationService.KeyProvider {
        { source in
            switch source {
            case .keychain(let name):
                guard let keys else { throw ModelKeyFileError.noKeychain(name: name.value) }
                return try await keys.modelKey(named: name.value).bearer
            case .file(let path):
                let data = try PrivateFile.read(path, limit: ModelKey.maximumLength + 2)
                let key = ModelKey(String(decoding: data, as: UTF8.self))
                guard key.isUsable else { throw ModelKeyFileError.unusable(path: path) }
                return key.bearer
            }
        }
    }
}

/// A model key that cannot be had, in words (never the key).
public enum ModelKeyFileError: Error, CustomStringConvertible {
    case unusable(path: String)
    case noKeychain(name: String)

    public var description: String {
        switch self {
        case .unusable(let path):
            "the key file \(path) does not hold one key (1 to 4096 printable characters, no spaces)"
        case .noKeychain(let name):
            "model key \(name) is in the keychain, which this command does not open"
        }
    }
}

/// The transport of the model servers for every command that generates (`run`, `plan --generate`,
/// `generate`): https, or http to loopback (`ChatCompletionsClient.policy`); no redirects; answers
/// up to 2 MiB; a request may take as long as the longest `timeout:` a recipe allows (10
/// minutes), each step's own timeout bounding its calls. Nil when libcurl cannot start (each
/// `openai:` generation then fails with the reason).
public enum ModelTransport {
    public static func make() -> (any HTTPTransport)? {
        try? CurlTransport(
            configuration: .init(
                totalTimeout: .seconds(600), maxResponseBytes: 2 << 20, policy: ChatCompletionsClient.policy))
    }
}
