import Foundation

/// The rows of a `MemoryStateStore`, with the indexes its queries use.
struct MemoryTables: Sendable {
    /// Two strings as one dictionary key: (account, key), (recipe, job), (recipe, queue).
    struct Pair: Hashable, Sendable {
        var first: String
        var second: String

        init(_ first: String, _ second: String) {
            self.first = first
            self.second = second
        }
    }

    var limiterState: [Pair: Data] = [:]
    /// account → limit class → hint.
    var limitHints: [String: [String: LimitHint]] = [:]
    var scheduleCursors: [Pair: Date] = [:]
    var queuePositions: [Pair: QueuePosition] = [:]
    var journal: [String: JournalEntry] = [:]
    var journalByAccount: [String: AccountJournal] = [:]
    /// account → kind → facts.
    var dedup: [String: [DedupKind: DedupFacts]] = [:]
    /// account → kind → pause.
    var pauses: [String: [PauseKind: AccountPause]] = [:]
    var challenges: [String: StoredChallenge] = [:]
    /// account → challenge codes.
    var challengeCodes: [String: Set<String>] = [:]
    /// account → content records, oldest first.
    var content: [String: [ContentRecord]] = [:]
    var leases: [String: Lease] = [:]
    var heartbeats: [String: Heartbeat] = [:]
}

/// One account's journal indexes.
struct AccountJournal: Sendable {
    /// Keys by bucket, each ordered like SQLite's `ORDER BY created_at, key`.
    var buckets: [JournalBucket: OrderedKeys] = [:]
    /// action → the targets of every entry with that action (any state).
    var targets: [String: Set<String>] = [:]
    /// action → target → how many entries name it (a target leaves `targets` with its last entry).
    var targetCounts: [String: [String: Int]] = [:]
}

/// The journal states, with `failed` split by whether a retry time is set (pending or finished).
enum JournalBucket: Sendable, Hashable, CaseIterable {
    case intent, sent, uncertain, retrying, failed, done

    init(_ entry: JournalEntry) {
        switch entry.state {
        case .intent: self = .intent
        case .sent: self = .sent
        case .uncertain: self = .uncertain
        case .done: self = .done
        case .failed: self = entry.nextAttemptAt == nil ? .failed : .retrying
        }
    }

    /// The buckets holding entries in `state`.
    static func buckets(for state: JournalState) -> [JournalBucket] {
        switch state {
        case .intent: [.intent]
        case .sent: [.sent]
        case .uncertain: [.uncertain]
        case .done: [.done]
        case .failed: [.retrying, .failed]
        }
    }

    /// Unfinished: what `pendingJournalEntries` lists.
    static let pending: [JournalBucket] = [.intent, .sent, .uncertain, .retrying]
}

/// Journal keys sorted by (created at, occurrence, step, key), as SQLite orders them.
struct OrderedKeys: Sendable {
    struct Item: Sendable {
        var createdAt: Double
        var occurrence: Double
        var step: Int
        var key: String

        static func < (lhs: Item, rhs: Item) -> Bool {
            if lhs.createdAt != rhs.createdAt { return lhs.createdAt < rhs.createdAt }
            if lhs.occurrence != rhs.occurrence { return lhs.occurrence < rhs.occurrence }
            if lhs.step != rhs.step { return lhs.step < rhs.step }
            return TextOrder.less(lhs.key, rhs.key)
        }
    }

    private(set) var items: [Item] = []

    var isEmpty: Bool { items.isEmpty }

    /// The index of the first item not before `item`.
    private func position(of item: Item) -> Int {
        // Most inserts are the newest entry: check the end first.
        if let last = items.last, last < item { return items.count }
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            if items[middle] < item { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func insert(_ item: Item) {
        items.insert(item, at: position(of: item))
    }

    mutating func removeFirst(_ count: Int) {
        items.removeFirst(count)
    }

    mutating func remove(_ item: Item) {
        let index = position(of: item)
        if index < items.count, items[index].key == item.key { items.remove(at: index) }
    }
}

/// One account's facts of one kind.
struct DedupFacts: Sendable {
    /// target → records, ordered by (recorded at, value).
    var records: [String: [DedupRecord]] = [:]
    /// Every target with a record.
    var targets: Set<String> = []
    /// value → the targets with a record of that value.
    var targetsByValue: [String: Set<String>] = [:]
}

/// Text ordering as SQLite's default `BINARY` collation compares: byte by byte (UTF-8).
enum TextOrder {
    static func less(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}

extension Date {
    /// The instant as SQLite stores it (REAL seconds since 1970) and reads it back, so a
    /// memory store returns exactly the dates a SQLite store would.
    var storedInstant: Date { Date(timeIntervalSince1970: timeIntervalSince1970) }
}

extension Optional where Wrapped == Date {
    var storedInstant: Date? { map(\.storedInstant) }
}
