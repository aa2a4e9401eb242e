/// The number words challenges use, in collapsed form (doubled letters removed: "three" is "thre"), and the ways
/// a fragment run can match one.
enum NumberLexicon {
    /// What kind of number word a match is; it decides how words combine ("twenty" + "three").
    enum Kind: Sendable, Equatable {
        case unit  // 0–9
        case teen  // 10–19
        case tens  // 20, 30, … 90
        case compound  // a fused "thirtyfive"
        case point  // the word "point" of "two point five"
    }

    /// A number word recognised in the text.
    struct Match: Sendable, Equatable {
        var value: Int
        var kind: Kind
        /// 1 for an exact word, less for a misspelling or a guess.
        var certainty: Double
        var note: String?
        /// A word read across a lone symbol whose two sides are number words of their own ("six - teen"): the
        /// symbol and the two numbers it would separate if it were the operator (6 and 10).
        var split: Split?

        struct Split: Sendable, Equatable {
            var symbol: Character
            var left: Int
            var right: Int
        }
    }

    static let words: [String: Int] = {
        let spelled = [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
        ]
        let tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
        var out: [String: Int] = [:]
        for (value, word) in spelled.enumerated() { out[ChallengeNormalizer.collapse(word)] = value }
        for (index, word) in tens.enumerated() { out[ChallengeNormalizer.collapse(word)] = (index + 2) * 10 }
        return out
    }()

    /// The first letters of number words, "point" and the listed misspellings.
    static let initials: Set<Character> = Set(
        (Array(words.keys) + Array(misspellings.keys) + ["point"]).compactMap(\.first))

    /// Misspellings seen in texts the server graded (challenges.md), collapsed.
    static let misspellings: [String: Int] = [
        "fife": 5, "fyve": 5, "fiv": 5, "tweny": 20, "twnty": 20, "thrity": 30, "thirity": 30, "thrirty": 30,
        "fourty": 40,
        "ninty": 90, "trhe": 3, "ghre": 3, "fourlen": 14, "sevem": 7,
    ]

    /// Ordinary words one edit away from a number word; they never read as numbers.
    static let stoplist: Set<String> = [
        "there", "their", "ther", "thes", "thee", "tree", "three", "fire", "fine", "file", "fier", "give", "live",
        "dive", "hive",
        "your", "hour", "pour", "tour", "sour", "flour", "fout", "nice", "line", "mine", "none", "wine", "lone",
        "tone", "bone", "gone", "done", "even", "seen", "sever", "eighth", "weight", "height", "light", "fight",
        "night", "right", "sight", "tight", "might", "eights", "sixth", "fifth", "forth", "fort", "form", "from",
        "fork", "then", "than", "tent", "twin", "twice", "hero", "here", "sixes", "fives", "nines", "weighty",
        "plenty", "forte", "fours", "sevens", "tens", "ones", "twos", "thres", "fourth", "ninth", "tenth",
        "ning", "nines", "listen", "glisten", "kiten", "miten", "biten", "writen", "goten", "faten",
        "flaten", "fasten", "moisten", "someone", "anyone", "everyone", "alone", "stone", "phone",
        "zone", "freight", "canine", "seventh", "thirsty", "twelfth", "eleventh", "lighter", "tighter",
        "fighter", "eighteenth", "sixteenth", "fifteenth", "fourteenth", "thirteenth", "nineteenth", "severe",
        "sevens", "elevens", "twelves", "forts", "forte", "fifths", "plenty", "twenties", "thirties", "forties",
        "physix", "physixs", "physixal", "physics", "physical",
    ]

    /// Whether the fragments `prefix` + `candidate` spell an ordinary word ("lis" + "ten"), so the number word at
    /// the end is not one.
    static func endsOrdinaryWord(_ prefix: String, _ candidate: String, _ following: [String] = []) -> Bool {
        let word = ChallengeNormalizer.collapse(prefix + candidate)
        let longer = ChallengeNormalizer.collapse(prefix + candidate + following.joined())
        return stoplist.contains(word) || holders.contains { longer.hasPrefix($0) && $0.count > word.count }
    }

    /// Longer words of the lobster texts that hold a number word over fragments ("an te en na": antenna).
    static let holders = ["antena", "often", "tentacle", "atention", "content", "extend", "intense", "potent"]
        .map { ChallengeNormalizer.collapse($0) }

    /// Units 1–9, teens and tens as (collapsed word, value), for the fuzzy and prefix rules.
    static let teenStems: [(String, Int)] = [
        ("thir", 13), ("four", 14), ("fif", 15), ("six", 16), ("seven", 17), ("eigh", 18), ("nine", 19),
    ]

    static func kind(of value: Int) -> Kind {
        switch value {
        case 0...9: .unit
        case 10...19: .teen
        default: value % 10 == 0 ? .tens : .compound
        }
    }

    /// An exact reading of a collapsed candidate: a number word, a listed misspelling, or a fused compound
    /// ("thirtyfive", "twenythre").
    static func exact(_ candidate: String) -> Match? {
        if let value = words[candidate] { return Match(value: value, kind: kind(of: value), certainty: 1) }
        if candidate == "point" { return Match(value: 0, kind: .point, certainty: 1) }
        if let value = misspellings[candidate], candidate.count >= 4 {
            return Match(value: value, kind: kind(of: value), certainty: 0.9, note: "misspelt \(candidate)")
        }
        let characters = Array(candidate)
        guard characters.count >= 7 else { return nil }
        for cut in 4...(characters.count - 3) {
            let left = String(characters[..<cut])
            let right = String(characters[cut...])
            guard let tens = words[left] ?? misspellings[left], tens >= 20, tens % 10 == 0 else { continue }
            guard let unit = words[right] ?? misspellings[right], (1...9).contains(unit) else { continue }
            let certainty = words[left] != nil && words[right] != nil ? 1.0 : 0.9
            return Match(value: tens + unit, kind: .compound, certainty: certainty, note: "fused \(candidate)")
        }
        return nil
    }

    /// A reading one edit (insert, delete, substitute, swap) away from a number word of four letters or more,
    /// with the same first letter (the misspellings seen keep it: "fyve", "thrity", "fourlen", "folur").
    static func fuzzy(_ candidate: String) -> Match? {
        guard candidate.count >= 4, !stoplist.contains(candidate) else { return nil }
        var found: Int?
        for (word, value) in words
        where word.count >= 4 && word.first == candidate.first && editDistanceAtMostOne(candidate, word) {
            if found != nil, found != value { return nil }
            found = value
        }
        guard let value = found else { return nil }
        return Match(value: value, kind: kind(of: value), certainty: 0.85, note: "read \(candidate) as \(value)")
    }

    /// A tens word of six letters or more misspelt by one edit with the same first letter ("thwenty"), for runs of
    /// fragments.
    static func splitTens(_ candidate: String) -> Match? {
        guard candidate.count >= 6, !stoplist.contains(candidate) else { return nil }
        for (word, value) in words where value >= 20 && value % 10 == 0 && word.count >= 6 {
            guard word.first == candidate.first, editDistanceAtMostOne(candidate, word) else { continue }
            return Match(value: value, kind: .tens, certainty: 0.8, note: "read split \(candidate) as \(value)")
        }
        return nil
    }

    /// A word with up to three letters of junk in front of a long number word ("sirthirty").
    static func junkPrefixed(_ candidate: String) -> Match? {
        guard !stoplist.contains(candidate) else { return nil }
        for (word, value) in words where word.count >= 5 && candidate.hasSuffix(word) {
            let junk = candidate.count - word.count
            if (1...3).contains(junk) {
                return Match(value: value, kind: kind(of: value), certainty: 0.8, note: "junk before \(word)")
            }
        }
        return nil
    }

    /// A teen whose middle is garbled but whose stem and ending survive ("fourfetenen" → 14).
    static func garbledTeen(_ candidate: String) -> Match? {
        guard candidate.hasSuffix("en"), candidate.count <= 12 else { return nil }
        for (stem, value) in teenStems where candidate.hasPrefix(stem) {
            let rest = candidate.dropFirst(stem.count)
            if rest.count >= 3, rest.dropLast(2).contains("t") {
                return Match(value: value, kind: .teen, certainty: 0.75, note: "garbled teen \(candidate)")
            }
        }
        return nil
    }

    /// A number word fused with "fold" ("sevenfold", "sevenfooldly"): the number and the rest of the word.
    static func withFold(_ candidate: String) -> (Match, String)? {
        guard let range = candidate.range(of: "fold") ?? candidate.range(of: "fol") else { return nil }
        let head = String(candidate[..<range.lowerBound])
        guard let match = exact(head) else { return nil }
        return (match, String(candidate[range.lowerBound...]))
    }

    /// Number words of five letters or more (collapsed), for spotting ones the reader could not read.
    static let longWords = words.filter { $0.key.count >= 5 }

    /// Whether `candidate` (collapsed letters of one to three fragments that were not read as a number) is one
    /// edit away from a long number word ("thwenty", "wenty", "sevem"): an operand may be hiding in it.
    static func nearMiss(_ candidate: String) -> Int? {
        guard candidate.count >= 4, candidate.count <= 10, !stoplist.contains(candidate), exact(candidate) == nil,
            !candidate.hasSuffix("th")
        else { return nil }
        // A fragment of an ordinary word ("dominanc e fight") is no number.
        if stoplist.contains(where: { $0.count >= 4 && (candidate.hasSuffix($0) || candidate.hasPrefix($0)) }) {
            return nil
        }
        return longWords.first { $0.key.first == candidate.first && editDistanceAtMostOne(candidate, $0.key) }?
            .value
    }

    /// A number word fused with its unit ("threecm", "fivenewtons"): the number and the unit.
    static func withUnit(_ candidate: String) -> (Match, String)? {
        let units = ["cm", "m", "newton", "noton", "neuton", "meter", "kg", "kilogram", "sec"]
        for cut in stride(from: min(candidate.count - 1, 9), through: 3, by: -1) {
            let head = String(candidate.prefix(cut))
            let rest = String(candidate.dropFirst(cut))
            guard let match = exact(head), units.contains(where: { rest.hasPrefix($0) }) else { continue }
            return (match, rest)
        }
        return nil
    }

    /// Whether the optimal-string-alignment distance between `a` and `b` is at most one.
    static func editDistanceAtMostOne(_ a: String, _ b: String) -> Bool {
        let x = Array(a)
        let y = Array(b)
        if abs(x.count - y.count) > 1 { return false }
        if x == y { return true }
        var i = 0
        while i < min(x.count, y.count), x[i] == y[i] { i += 1 }
        if x.count == y.count {
            if Array(x[(i + 1)...]) == Array(y[(i + 1)...]) { return true }
            return i + 1 < x.count && x[i] == y[i + 1] && x[i + 1] == y[i]
                && Array(x[(i + 2)...]) == Array(y[(i + 2)...])
        }
        let (long, short) = x.count > y.count ? (x, y) : (y, x)
        return Array(long[(i + 1)...]) == Array(short[i...])
    }
}
