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

    /// Whether the answer says explicitly that no page follows (`has_more: false` / `hasMore:
    /// false`, at the top level or inside `data`/`pagination`) and names no next cursor.
    static func saysEnded(_ json: JSONValue) -> Bool {
        let places = [json, json["data"], json["pagination"]].compactMap { $0 }
        let more = places.lazy.compactMap { ($0["has_more"] ?? $0["hasMore"])?.bool }.first
        return more == false && pagination(json).nextCursor == nil
    }

    /// The id of the object a create answer names, in the shapes servers use: the object's `id`
    /// (under `key`, `data` or `data.key`), `<key>_id` / `<key>Id` at the top level or in
    /// `data`, or a bare `id` there. Strings and integers both count; an empty string does not.
    static func createdID(_ json: JSONValue, key: String) -> String? {
        let places = [json[key], json["data"]?[key], json["data"], json].compactMap { $0 }
        let names = ["id", "\(key)_id", "\(key)Id", "\(key)ID"]
        for place in places where place.object != nil {
            for name in names {
                if let id = identifier(place[name]) { return id }
            }
        }
        return nil
    }

    /// Whether an answer says it succeeded (`success: true`, at the top level or in `data`).
    static func saysSuccess(_ json: JSONValue) -> Bool {
        json["success"]?.bool == true || json["data"]?["success"]?.bool == true
    }

    private static func identifier(_ value: JSONValue?) -> String? {
        guard let text = value?.string, !text.isEmpty else { return nil }
        return text
    }
}
