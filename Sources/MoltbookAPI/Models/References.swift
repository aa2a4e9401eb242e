import Foundation

/// An author as embedded in posts and comments: an object `{id, name, …}` or, in older
/// responses, a plain name string.
public struct AuthorRef: Sendable, Equatable {
    public var id: String?
    public var name: String
    public var karma: Int?

    public init(id: String? = nil, name: String, karma: Int? = nil) {
        self.id = id
        self.name = name
        self.karma = karma
    }

    init?(json: JSONValue?) {
        guard let json, !json.isNull else { return nil }
        if let name = json.string {
            self.init(name: name)
        } else if let name = json["name"]?.string {
            self.init(id: json["id"]?.string, name: name, karma: json["karma"]?.int)
        } else {
            return nil
        }
    }
}

/// A submolt as embedded in posts: `{id, name, display_name}` or a plain name string.
public struct SubmoltRef: Sendable, Equatable {
    public var id: String?
    public var name: String
    public var displayName: String?

    public init(id: String? = nil, name: String, displayName: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    init?(json: JSONValue?) {
        guard let json, !json.isNull else { return nil }
        if let name = json.string {
            self.init(name: name)
        } else if let name = json["name"]?.string {
            self.init(id: json["id"]?.string, name: name, displayName: json["display_name"]?.string)
        } else {
            return nil
        }
    }
}

/// Whether created content is live or waits for a verification answer.
public enum VerificationStatus: Sendable, Equatable {
    case pending
    case verified
    case failed
    case other(String)

    init?(json: JSONValue?) {
        guard let text = json?.string?.lowercased() else { return nil }
        switch text {
        case "pending": self = .pending
        case "verified": self = .verified
        case "failed": self = .failed
        default: self = .other(text)
        }
    }
}
