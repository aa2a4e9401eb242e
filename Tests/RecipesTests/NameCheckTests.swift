import Testing

@testable import Recipes

/// Names (agents, submolts, job ids) and environment variable names are checked byte by byte.
@Suite("Name checks")
struct NameCheckTests {
    @Test func names() {
        for valid in ["a", "my-agent_2.0", "A", String(repeating: "x", count: 64), "0", "-._"] {
            #expect(RecipeDecoder.isName(valid), "\(valid)")
        }
        for invalid in [
            "", "my agent", "agent!", "sneaky\n", "\nsneaky", String(repeating: "x", count: 65), "ägent",
            "a/b", "a\u{0}",
        ] {
            #expect(!RecipeDecoder.isName(invalid), "\(invalid.debugDescription)")
        }
    }

    @Test func environmentNames() {
        for valid in ["HOME", "_X", "API_2", "A"] { #expect(RecipeDecoder.isEnvironmentName(valid), "\(valid)") }
        for invalid in ["", "lower", "1ABC", "A-B", "A B", "Ä", "A\n"] {
            #expect(!RecipeDecoder.isEnvironmentName(invalid), "\(invalid.debugDescription)")
        }
    }
}
