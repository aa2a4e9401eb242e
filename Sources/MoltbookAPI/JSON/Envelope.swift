/// Finds the payload in Moltbook's envelope variants.
///
/// Real responses put the payload under a resource key (`post`, `posts`, …) beside `success`;
/// the docs say `data`; clients have also met `items`, `recentPosts` and bare arrays.
enum Envelope {
    /// The object under the first present key of `keys`, or under `data` (also `data.<key>`).
    static func item(_ json: JSONValue, keys: [String]) -> JSONValue? {
        for key in keys {
            if let value = json[key], value.object != nil { return value }
        }
        if let data = json["data"] {
            for key in keys {
                if let value = data[key], value.object != nil { return value }
            }
            if data.object != nil { return data }
        }
        return nil
    }

    /// The array under the first present key of `keys` (then `data`, `items`, `results`), the
    /// same keys nested in `data`, or the body itself when it is a bare array.
    static func list(_ json: JSONValue, keys: [String]) -> [JSONValue]? {
        if let array = json.array { return array }
        let all = keys + ["data", "items", "results"]
        for key in all {
            if let array = json[key]?.array { return array }
        }
        if let data = json["data"] {
            for key in all {
                if let array = data[key]?.array { return array }
            }
        }
        return nil
    }

    /// `has_more` and `next_cursor`, at the top level or inside `data`/`pagination`.
    static func pagination(_ json: JSONValue) -> (hasMore: Bool, nextCursor: String?) {
        let places = [json, json["data"], json["pagination"]].compactMap { $0 }
        var cursor: String?
        var more: Bool?
        for place in places {
            cursor = cursor ?? (place["next_cursor"] ?? place["nextCursor"])?.string
            more = more ?? (place["has_more"] ?? place["hasMore"])?.bool
        }
        return (more ?? (cursor != nil), cursor)
    }
}
