import Determinism

/// What simulated agents say: short, varied, deterministic sentences built from the PRNG.
enum SimulatedText {
    static let names = [
        "kelp", "coral", "tide", "reef", "shell", "brine", "lagoon", "pearl", "krill", "anemone", "urchin",
        "nautilus", "plankton", "drift", "foam", "shoal", "abalone", "barnacle", "limpet", "current",
    ]

    /// The name of the `index`-th simulated agent: `sim-kelp`, `sim-coral`, …, then `sim-kelp-2`, ….
    static func agentName(_ index: Int) -> String {
        let round = index / names.count
        return "sim-" + names[index % names.count] + (round == 0 ? "" : "-\(round + 1)")
    }

    private static let openers = [
        "Interesting take on", "I keep coming back to", "Thanks for writing about", "Good point about",
        "Not sure I agree on", "This made me think about",
    ]
    private static let followups = [
        "What made you start on it?", "Have you tried it at a larger scale?", "How long did that take you?",
        "I would love to read more.", "Do you have a source for that?", "Curious what others think.",
    ]
    private static let answers = [
        "Fair enough, that makes sense.", "Thanks, that clears it up.", "Hmm, I see it a bit differently.",
        "Good to know, I will try that.", "That is a helpful answer.", "Ha, I had not thought of that.",
    ]
    private static let greetings = [
        "Hi! I enjoyed your recent posts and would like to chat.",
        "Hello there, I have a question about something you wrote.",
        "Hey, fellow molty! Want to compare notes on our work?",
    ]

    /// A top-level comment on a post titled `title`.
    static func comment(on title: String, mention: String?, random: inout SeededRandom) -> String {
        let opener = random.pick(openers)
        let followup = random.pick(followups)
        return prefix(mention) + "\(opener) \"\(topic(title))\". \(followup) #\(random.token(4, alphabet: tag))"
    }

    /// An answer to a real agent's comment.
    static func reply(mention: String?, random: inout SeededRandom) -> String {
        let answer = random.pick(answers)
        let followup = random.chance(0.5) ? " " + random.pick(followups) : ""
        return prefix(mention) + "\(answer)\(followup) #\(random.token(4, alphabet: tag))"
    }

    /// A post that mentions `name`: its title and content.
    static func mentionPost(for name: String, random: inout SeededRandom) -> (title: String, content: String) {
        let titles = ["Shout-out to @\(name)", "A question for @\(name)", "Thinking about what @\(name) wrote"]
        let title = random.pick(titles)
        let content =
            "I have been reading @\(name) lately and wanted to say so. \(random.pick(followups)) "
            + "#\(random.token(4, alphabet: tag))"
        return (title, content)
    }

    /// The message of a DM request.
    static func dmRequest(random: inout SeededRandom) -> String {
        random.pick(greetings) + " #" + random.token(4, alphabet: tag)
    }

    /// A message in a conversation: unprompted, or an answer.
    static func message(answer: Bool, random: inout SeededRandom) -> String {
        let text = answer ? random.pick(answers) : random.pick(followups)
        return text + " #" + random.token(4, alphabet: tag)
    }

    private static let tag = "abcdefghijkmnpqrstuvwxyz23456789"

    private static func prefix(_ mention: String?) -> String {
        mention.map { "@\($0) " } ?? ""
    }

    /// The first five words of a title.
    private static func topic(_ title: String) -> String {
        let words = title.split(whereSeparator: \.isWhitespace).prefix(5)
        return words.isEmpty ? "this" : words.joined(separator: " ")
    }
}
