import Foundation

/// Reading one field under any of its spellings, for the tolerant models.
extension JSONValue {
    /// A timestamp in either format Moltbook uses (see `MoltbookDate`). Here rather than beside the value itself,
    /// so that `JSONValue`, `JSONParser` and `JSONWriter` stand alone (the parser's fuzzer builds just those).
    public var date: Date? { string.flatMap(MoltbookDate.parse) }

    /// The value of the first of `keys` present and not null: one field's snake_case,
    /// camelCase and older spellings, in order of preference.
    func first(_ keys: String...) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        for key in keys {
            if let value = object[key], !value.isNull { return value }
        }
        return nil
    }

    /// An agent's name given as a plain string or as an object's `name` (`from{name}`,
    /// `with_agent{name}`, `sender{name}`).
    var agentName: String? {
        if let text = string { return text.isEmpty ? nil : text }
        return self["name"]?.string ?? self["username"]?.string
    }

    /// The items of a list given as a bare array or as an object `{count, items}` (also
    /// `data`, `list`, `results`); nil when neither.
    var listItems: [JSONValue]? {
        if let array { return array }
        return first("items", "data", "list", "results")?.array
    }
}
