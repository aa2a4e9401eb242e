import Foundation
import MoltbookAPI
import MoltipassEngine
import Synchronization

/// The transport of `plan --live`: GET requests go to the real server; any other method is
/// refused here, before the network, with a 405 the engine reads as a refusal for good (the
/// write is journaled failed in the plan's copy of the state, and the pass goes on with the
/// next write). Every refused request is kept: it is what `run` would have sent.
///
/// This is what makes `--live` read-only, whatever the engine does: no code path above it can
/// send a write.
package final class ReadOnlyTransport: HTTPTransport, Sendable {
    /// A request that was not sent.
    package struct Refused: Sendable, Equatable {
        package var method: String
        package var path: String
    }

    /// The reason in the refusal's body; a report line with it is a write that would be sent.
    package static let marker = "not sent: moltipass plan --live sends no writes"

    let inner: any HTTPTransport
    private let refused = Mutex<[Refused]>([])
    private let reads = Mutex(0)
    private let posts = Mutex<[String: PlanResult.PostRef]>([:])

    package init(inner: any HTTPTransport) { self.inner = inner }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.method == .get else {
            refused.withLock { $0.append(Refused(method: request.method.rawValue, path: request.url.path)) }
            let body = JSONValue.object(["success": .bool(false), "error": .string(Self.marker)]).encoded()
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            return HTTPResponse(status: 405, headers: headers, body: body)
        }
        reads.withLock { $0 += 1 }
        let response = try await inner.send(request)
        if (200..<300).contains(response.status) { remember(response) }
        return response
    }

    /// Requests refused so far, in order.
    package var refusedRequests: [Refused] { refused.withLock { $0 } }

    /// GET requests sent.
    package var readCount: Int { reads.withLock { $0 } }

    /// Titles and authors of the posts the server has shown (feeds, searches, a post).
    package var knownPosts: [String: PlanResult.PostRef] { posts.withLock { $0 } }

    /// Notes every post a response shows, by id.
    private func remember(_ response: HTTPResponse) {
        guard let json = response.parsedBody ?? (try? JSONValue.parse(response.body)) else { return }
        var found: [String: PlanResult.PostRef] = [:]
        Self.collect(json, into: &found, depth: 0)
        if !found.isEmpty { posts.withLock { $0.merge(found) { _, new in new } } }
    }

    /// Objects with an id and a title that read as posts, anywhere in `json`.
    static func collect(_ json: JSONValue, into found: inout [String: PlanResult.PostRef], depth: Int) {
        guard depth < 6 else { return }
        switch json {
        case .array(let items):
            for item in items { collect(item, into: &found, depth: depth + 1) }
        case .object(let fields):
            if fields["title"] != nil, let post = Post(json: json) {
                found[post.id] = PlanResult.PostRef(title: post.title, author: post.author?.name)
            }
            for (_, value) in fields { collect(value, into: &found, depth: depth + 1) }
        default:
            break
        }
    }
}
