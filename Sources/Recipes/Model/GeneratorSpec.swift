/// `generate:` on a post or comment: the text is written by the agent's own program or model
/// (issue 21) instead of a template.
///
/// ```yaml
/// generate:
///   command: [./bin/write-post, --short]    # or openai: { base_url, model, prompt, … }
///   timeout: 60s                             # 1s … 10m
///   max_output: 64k                          # bytes of stdout kept (1k … 1m)
///   attempts: 3                              # generations per occurrence when a check refuses the text
///   deny: ["(?i)as an ai language model"]    # patterns the text must not contain
///   env: [OPENAI_MODEL]                      # command only: variables passed through
/// ```
///
/// What a generator returns only fills the title and content: the action, its target and its
/// limits stay the recipe's.
public struct GeneratorSpec: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// A program: the JSON context on stdin, the text (or `{"title","content"}`) on stdout.
        case command(arguments: [String])
        /// An OpenAI-compatible chat-completions server.
        case openAI(ChatEndpoint)
    }

    /// `openai:`: where to ask and what.
    public struct ChatEndpoint: Sendable, Equatable {
        /// As written (`http://127.0.0.1:11434/v1`); the client checks its scheme and host.
        public var baseURL: Located<String>
        public var model: String
        public var system: Template?
        public var prompt: Template
        public var temperature: Double?
        public var maxTokens: Int?
        public var key: KeySource?
    }

    /// Where the model server's key comes from; none for a local server that needs none.
    public enum KeySource: Sendable, Equatable {
        /// A model-key entry of the keychain (`moltipass keys add --model NAME`).
        case keychain(name: Located<String>)
        /// A file holding the key (a mounted secret), resolved against the recipe's directory.
        case file(path: String)
    }

    public var source: Source
    public var timeoutSeconds: Int
    public var maxOutput: Int
    public var attempts: Int
    /// ICU regular expressions the generated text must not match.
    public var deny: [Located<String>]
    /// Environment variable names a command generator gets besides the fixed safe ones.
    public var environment: [String]
    /// Where `generate:` is written.
    public var mark: Mark

    public static let defaultTimeoutSeconds = 60
    public static let defaultMaxOutput = 64 * 1024
    public static let defaultAttempts = 3

    public init(
        source: Source, timeoutSeconds: Int = defaultTimeoutSeconds, maxOutput: Int = defaultMaxOutput,
        attempts: Int = defaultAttempts, deny: [Located<String>] = [], environment: [String] = [], mark: Mark
    ) {
        self.source = source
        self.timeoutSeconds = timeoutSeconds
        self.maxOutput = maxOutput
        self.attempts = attempts
        self.deny = deny
        self.environment = environment
        self.mark = mark
    }

    /// `command` or `openai`, for reports.
    public var kindName: String {
        switch source {
        case .command: "command"
        case .openAI: "openai"
        }
    }
}

/// A comment's text: a template, or written by a generator.
public enum CommentText: Sendable, Equatable {
    case template(Template)
    case generated(GeneratorSpec)

    /// The template, when the text is one.
    public var template: Template? {
        if case .template(let template) = self { return template }
        return nil
    }
}
