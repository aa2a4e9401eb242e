import Crypto
import Foundation
import MoltbookAPI
import Recipes

/// The content-queue items an agent has taken, by what they say, not by where they stand in
/// their file (issue 18: a queue's position as a bare index re-posted an item when one was
/// prepended, again when the file was reordered, and from the start when the recipe was copied
/// under another name).
///
/// An item's fingerprint hashes its title, content and URL as written (templates unrendered),
/// so an item is the same item in any file, at any place, in any recipe of the agent; the next
/// item of a queue is its first one not taken. Stored per account with the limiter's state
/// (key `queue-items`) and written in the transaction that journals the items' posts.
///
/// Older state kept a next index per recipe and queue path: the first time a queue is planned,
/// the items before that index are taken as posted (`migrated`), once.
package struct QueueLedger: Sendable, Equatable {
    package static let stateKey = "queue-items"

    /// Fingerprints of the items taken.
    private(set) var taken: Set<String> = []
    /// `recipe|queue path` pairs whose index-based position was carried over.
    private(set) var migrated: Set<String> = []

    init() {}

    /// Reads the stored form; nil when it is not one.
    package init?(stored: Data) {
        guard let value = try? JSONValue.parse(stored), let items = value["items"]?.array,
            let migrated = value["migrated"]?.array
        else { return nil }
        taken = Set(items.compactMap(\.string))
        self.migrated = Set(migrated.compactMap(\.string))
    }

    /// The stored form (sorted, so equal ledgers store equal bytes).
    var stored: Data {
        JSONValue.object([
            "items": .array(taken.sorted().map(JSONValue.string)),
            "migrated": .array(migrated.sorted().map(JSONValue.string)),
        ]).encoded()
    }

    /// An item's identity: its title, content and URL as written.
    static func fingerprint(_ item: QueueItem) -> String {
        let text = [item.title.source, item.content?.source ?? "", item.url?.source ?? ""]
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .joined(separator: "\u{1F}")
        return SHA256.hash(data: Data(("queue-item-v1|" + text).utf8)).prefix(12).hexString
    }

    func contains(_ item: QueueItem) -> Bool { taken.contains(Self.fingerprint(item)) }

    /// The index of the queue's first item not taken (and not in `alsoTaken`), or nil.
    package func next(in queue: ContentQueue, alsoTaken: Set<String> = []) -> Int? {
        queue.items.indices.first { index in
            let print = Self.fingerprint(queue.items[index])
            return !taken.contains(print) && !alsoTaken.contains(print)
        }
    }

    mutating func take(_ fingerprints: Set<String>) { taken.formUnion(fingerprints) }

    /// Gives an item back: its post expired or was cancelled before it was sent, so the queue's
    /// next occurrence takes it again.
    mutating func giveBack(_ fingerprint: String) { taken.remove(fingerprint) }

    static func migrationKey(recipe: String, queue: String) -> String { recipe + "|" + queue }

    func hasMigrated(recipe: String, queue: String) -> Bool {
        migrated.contains(Self.migrationKey(recipe: recipe, queue: queue))
    }

    /// Carries over an index-based position: the items before `next` were posted.
    mutating func migrate(recipe: String, queue: ContentQueue, next: Int) {
        for item in queue.items.prefix(max(0, next)) { taken.insert(Self.fingerprint(item)) }
        migrated.insert(Self.migrationKey(recipe: recipe, queue: queue.path.value))
    }
}
