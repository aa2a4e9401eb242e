import Generation
import Testing

@Suite("Generated text")
struct GeneratedTextTests {
    @Test func aCommentHasNoTitle() {
        let text = GeneratedText(content: "A fine point.")
        #expect(text.title == nil && text.content == "A fine point.")
        #expect(text != GeneratedText(title: "T", content: "A fine point."))
    }
}
