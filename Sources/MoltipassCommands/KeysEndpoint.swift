import Foundation
import Logging
import MoltbookAPI
import MoltipassEngine

/// Which Moltbook a command talks to: the real one by default, or a loopback sandbox named
/// with `--base-url`.
public enum KeysEndpoint {
    /// A client for `baseURL` (the real Moltbook when `nil`). Loopback is allowed only when the
    /// URL itself is loopback; any other host must be `https://www.moltbook.com/…`. `observer`:
    /// told of every request (the run's metrics).
    public static func client(
        baseURL text: String?, apiKey: APIKey?, logger: Logger, observer: RequestObserver? = nil
    ) throws -> MoltbookClient {
        let url = try checkedBaseURL(text)
        let loopback = isLoopback(url)
        let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: loopback)))
        do {
            return try MoltbookClient(
                baseURL: url, apiKey: apiKey, transport: transport, allowLoopback: loopback, logger: logger,
                observer: observer)
        } catch {
            throw refused(error)
        }
    }

    /// The parsed `--base-url` (the default Moltbook URL when `nil`), checked as a client would
    /// check it: `https://www.moltbook.com/…`, or a loopback sandbox. Otherwise a usage failure.
    public static func checkedBaseURL(_ text: String?) throws -> URL {
        let url = try baseURL(text)
        do {
            try MoltbookClient.validate(baseURL: url, allowLoopback: isLoopback(url))
        } catch {
            throw refused(error)
        }
        return url
    }

    static func isLoopback(_ url: URL) -> Bool {
        url.host.map(URLPolicy.isLoopback(host:)) ?? false
    }

    static func refused(_ error: APIError) -> KeysFailure {
        KeysFailure(.usage, "\(error.message); a sandbox URL must be http on loopback (127.0.0.1)")
    }

    /// The parsed `--base-url`, or the default Moltbook URL.
    public static func baseURL(_ text: String?) throws -> URL {
        guard let text, !text.isEmpty else { return MoltbookClient.defaultBaseURL }
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
            throw KeysFailure(.usage, "--base-url \(text) is not an absolute URL")
        }
        return url
    }

    /// The value stored in an entry's `base_url`: `nil` for the real Moltbook.
    public static func storedBaseURL(_ url: URL) -> String? {
        url == MoltbookClient.defaultBaseURL ? nil : url.absoluteString
    }
}
