import Foundation
import MoltbookAPI
import MoltbookSandbox
import Synchronization

/// `moltbook-sandbox --request-log FILE`: one JSON line per request the model answered, for
/// proofs that need to know who sent what when (`scripts/fleet-check`: which runner drove which
/// agent). Never a header, a key or a body.
///
/// `{"agent":"name"|null,"clock":S,"method":"POST","path":"/api/v1/posts","peer":"10.0.0.11","status":201,"time":S}`:
/// `time` is the wall clock (seconds since 1970, microseconds) when the request reached the model,
/// `clock` the sandbox's own clock then (`--now`, `--time-scale`), `agent` the agent whose key the
/// request carried (null without one, or with an unknown one), `peer` the address of the TCP
/// connection's other end (not `X-Forwarded-For`). Lines are written whole; under concurrent
/// requests they may be a little out of `time` order (sort by it).
public final class SandboxRequestLog: Sendable {
    private let handle: Mutex<FileHandle>

    /// Opens `path` for appending (created 0644 when missing).
    public init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644])
            else { throw CocoaError(.fileWriteUnknown) }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        self.handle = Mutex(handle)
    }

    /// The line for one request.
    public static func line(
        time: Date, clock: Date, agent: String?, method: String, path: String, status: Int, peer: String?
    ) -> String {
        func string(_ value: String?) -> String {
            value.map { String(decoding: JSONValue.string($0).serialized(), as: UTF8.self) } ?? "null"
        }
        func seconds(_ date: Date) -> String { String(format: "%.6f", date.timeIntervalSince1970) }
        return "{\"agent\":\(string(agent)),\"clock\":\(seconds(clock)),\"method\":\(string(method)),"
            + "\"path\":\(string(path)),\"peer\":\(string(peer)),\"status\":\(status),\"time\":\(seconds(time))}\n"
    }

    /// Appends one line; a failed write is dropped (the request is answered regardless).
    public func record(
        time: Date, clock: Date, agent: String?, method: String, path: String, status: Int, peer: String?
    ) {
        let data = Data(
            Self.line(time: time, clock: clock, agent: agent, method: method, path: path, status: status, peer: peer)
                .utf8)
        handle.withLock { handle in
            do { try handle.write(contentsOf: data) } catch {}
        }
    }

    /// Closes the file.
    public func close() {
        handle.withLock { handle in
            do { try handle.close() } catch {}
        }
    }
}
