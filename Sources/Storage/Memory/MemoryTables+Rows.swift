import Foundation

/// Row-level updates that keep every index in step. No checks: `MemoryAccess` checks first and
/// logs the inverse update for roll-back.
extension MemoryTables {
    mutating func putJournal(_ key: String, _ entry: JournalEntry?) {
        let old = journal[key]
        journal[key] = entry
        if let old {
            journalByAccount[old.account, default: AccountJournal()].remove(old)
        }
        if let entry {
            journalByAccount[entry.account, default: AccountJournal()].add(entry)
        }
    }

    /// Deletes `entries`, the oldest of `account`'s done bucket in its order, in one cut.
    mutating func removeDonePrefix(of account: String, _ entries: [JournalEntry]) {
        for entry in entries { journal[entry.key] = nil }
        journalByAccount[account, default: AccountJournal()].removeDonePrefix(entries)
    }

    mutating func putDedup(_ account: String, _ kind: DedupKind, _ target: String, _ records: [DedupRecord]) {
        // Modified in place (nested `default:` subscripts), so the sets are never copied.
        dedup[account, default: [:]][kind, default: DedupFacts()].put(target, records)
    }

    mutating func putChallenge(_ code: String, _ challenge: StoredChallenge?) {
        if let old = challenges[code] { challengeCodes[old.account]?.remove(code) }
        challenges[code] = challenge
        if let challenge { challengeCodes[challenge.account, default: []].insert(code) }
    }
}

extension AccountJournal {
    mutating func add(_ entry: JournalEntry) {
        buckets[JournalBucket(entry), default: OrderedKeys()].insert(Self.item(entry))
        if let target = entry.target {
            targetCounts[entry.action, default: [:]][target, default: 0] += 1
            targets[entry.action, default: []].insert(target)
        }
    }

    mutating func remove(_ entry: JournalEntry) {
        buckets[JournalBucket(entry)]?.remove(Self.item(entry))
        forgetTarget(of: entry)
    }

    /// Removes `entries`, the first of the done bucket, in one cut.
    mutating func removeDonePrefix(_ entries: [JournalEntry]) {
        buckets[.done]?.removeFirst(entries.count)
        for entry in entries { forgetTarget(of: entry) }
    }

    private mutating func forgetTarget(of entry: JournalEntry) {
        if let target = entry.target {
            let count = (targetCounts[entry.action]?[target] ?? 1) - 1
            targetCounts[entry.action]?[target] = count > 0 ? count : nil
            if count <= 0 { targets[entry.action]?.remove(target) }
        }
    }

    static func item(_ entry: JournalEntry) -> OrderedKeys.Item {
        OrderedKeys.Item(
            createdAt: entry.createdAt.timeIntervalSince1970, occurrence: entry.occurrence.timeIntervalSince1970,
            step: entry.step, key: entry.key)
    }
}

extension DedupFacts {
    mutating func put(_ target: String, _ new: [DedupRecord]) {
        for record in records[target] ?? [] {
            targetsByValue[record.value]?.remove(target)
        }
        if new.isEmpty {
            records[target] = nil
            targets.remove(target)
        } else {
            records[target] = new
            targets.insert(target)
            for record in new { targetsByValue[record.value, default: []].insert(target) }
        }
    }
}
