import Foundation

/// Opaque cursors over an ordered list: "after the item with this id", falling back to a position.
///
/// The cursor is base64url of `after:<id>:<offset>`. If the item is still in the list, the next page
/// starts right after it (keyset behaviour: new items at the top do not shift the page); otherwise it
/// starts at the recorded offset.
enum SandboxPagination {
    struct Page<T> {
        var items: [T]
        var hasMore: Bool
        var nextCursor: String?
    }

    /// One page of `items`, or nil when `cursor` cannot be decoded.
    static func page<T>(_ items: [T], id: (T) -> String, limit: Int, cursor: String?) -> Page<T>? {
        var start = 0
        if let cursor, !cursor.isEmpty {
            guard let (afterID, offset) = decode(cursor) else { return nil }
            if let index = items.firstIndex(where: { id($0) == afterID }) {
                start = index + 1
            } else {
                start = min(offset, items.count)
            }
        }
        let end = min(items.count, start + limit)
        let slice = Array(items[start..<end])
        let hasMore = end < items.count
        let next = hasMore ? slice.last.map { encode(afterID: id($0), offset: end) } : nil
        return Page(items: slice, hasMore: hasMore, nextCursor: next)
    }

    /// The same page as `page(_:id:limit:cursor:)` over a lazily produced list: stops once it has
    /// seen the page and one item more (the cursor's item is searched for first; when it is gone,
    /// the whole list is read and the recorded offset used, as above).
    static func page<S: Sequence>(lazy items: S, id: (S.Element) -> String, limit: Int, cursor: String?)
        -> Page<S.Element>?
    {
        var iterator = items.makeIterator()
        var start = 0
        if let cursor, !cursor.isEmpty {
            guard let (afterID, _) = decode(cursor) else { return nil }
            var before: [S.Element] = []
            var found = false
            while let item = iterator.next() {
                before.append(item)
                if id(item) == afterID {
                    found = true
                    break
                }
            }
            guard found else { return page(before, id: id, limit: limit, cursor: cursor) }
            start = before.count
        }
        var slice: [S.Element] = []
        while slice.count < limit, let item = iterator.next() { slice.append(item) }
        let hasMore = iterator.next() != nil
        let next = hasMore ? slice.last.map { encode(afterID: id($0), offset: start + slice.count) } : nil
        return Page(items: slice, hasMore: hasMore, nextCursor: next)
    }

    /// `limit` from the query: default when absent or not a number, clamped to 1…max.
    static func limit(_ query: [String: String], default fallback: Int, max maximum: Int) -> Int {
        guard let text = query["limit"], let value = Int(text) else { return fallback }
        return min(maximum, max(1, value))
    }

    static func encode(afterID: String, offset: Int) -> String {
        // base64url without padding, byte by byte (three `replacingOccurrences` per page were a
        // visible share of a feed read).
        let base64 = Data("after:\(afterID):\(offset)".utf8).base64EncodedString().utf8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func decode(_ cursor: String) -> (String, Int)? {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else {
            return nil
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "after", let offset = Int(parts[2]), offset >= 0 else { return nil }
        return (String(parts[1]), offset)
    }

    static let invalidCursor = APIResult.badRequest("Invalid cursor", hint: "Pass next_cursor from the previous page")
}
