import CCurl
import Dispatch
import Foundation
import Synchronization

/// An `HTTPTransport` on the system libcurl.
///
/// - Each transfer runs `curl_easy_perform` on a thread of its own, never on Swift's
///   cooperative pool; the calling task suspends on a continuation.
/// - Easy handles are pooled and a share handle holds the DNS cache, TLS sessions and the
///   connection cache, so consecutive requests to one host reuse one connection.
/// - Redirects are never followed (`CURLOPT_FOLLOWLOCATION` off): a 3xx is returned as is.
/// - Protocols are limited to https, plus http to loopback when `policy` allows it.
/// - TLS peer and host verification are always on.
public final class CurlTransport: HTTPTransport, Sendable {
    /// Tunables with safe defaults.
    public struct Configuration: Sendable {
        public var connectTimeout: Duration
        public var totalTimeout: Duration
        public var maxResponseBytes: Int
        public var userAgent: String
        public var policy: URLPolicy
        /// Handles kept idle for reuse.
        public var maxIdleHandles: Int

        public init(
            connectTimeout: Duration = .seconds(10),
            totalTimeout: Duration = .seconds(30),
            maxResponseBytes: Int = 8 << 20,
            userAgent: String = "moltipass/0.1 (+libcurl)",
            policy: URLPolicy = URLPolicy(),
            maxIdleHandles: Int = 8
        ) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.maxResponseBytes = maxResponseBytes
            self.userAgent = userAgent
            self.policy = policy
            self.maxIdleHandles = maxIdleHandles
        }
    }

    /// Counters for tests and benchmarks.
    public struct Statistics: Sendable, Equatable {
        /// Transfers performed (successful or not).
        public var transfers = 0
        /// New connections libcurl had to open (`CURLINFO_NUM_CONNECTS`, summed).
        public var newConnections = 0
    }

    public let configuration: Configuration
    private let share: CurlShare
    private let idle = Mutex<[CurlEasy]>([])
    private let stats = Mutex(Statistics())

    public init(configuration: Configuration = Configuration()) throws(TransportError) {
        let code = ccurl_global_init()
        guard code == CURLE_OK else {
            throw .other(code: Int(code.rawValue), detail: "curl_global_init failed", requestSent: false)
        }
        guard let share = CurlShare() else {
            throw .other(code: 0, detail: "curl_share_init failed", requestSent: false)
        }
        self.configuration = configuration
        self.share = share
    }

    deinit {
        for easy in idle.withLock({ $0 }) { easy.close() }
    }

    public var statistics: Statistics { stats.withLock { $0 } }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try configuration.policy.check(request.url)
        let transfer = try CurlTransfer(request: request, configuration: configuration)
        let easy = checkOutHandle()
        defer { checkIn(easy) }
        let outcome: CurlTransfer.Outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // One thread per transfer: a concurrent dispatch queue would be capped at the
                // core count, so two slow transfers would stall every other one behind them.
                let thread = Thread { [share] in
                    continuation.resume(returning: transfer.perform(on: easy, share: share))
                }
                thread.name = "moltipass.curl"
                thread.start()
            }
        } onCancel: {
            transfer.abort()
        }
        stats.withLock {
            $0.transfers += 1
            $0.newConnections += outcome.newConnections
        }
        return try outcome.result.get()
    }

    private func checkOutHandle() -> CurlEasy {
        if let easy = idle.withLock({ $0.popLast() }) { return easy }
        return CurlEasy()
    }

    private func checkIn(_ easy: CurlEasy) {
        let kept = idle.withLock { handles -> Bool in
            guard handles.count < configuration.maxIdleHandles else { return false }
            handles.append(easy)
            return true
        }
        if !kept { easy.close() }
    }
}

/// An easy handle owned by one transfer at a time (the pool hands it out exclusively).
final class CurlEasy: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer?

    init() { handle = curl_easy_init() }

    func close() {
        if let handle { curl_easy_cleanup(handle) }
    }
}

/// The share handle; libcurl serialises access through the lock callbacks in the C shim.
final class CurlShare: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    init?() {
        guard let handle = ccurl_share_new() else { return nil }
        self.handle = handle
    }

    deinit { ccurl_share_free(handle) }
}
