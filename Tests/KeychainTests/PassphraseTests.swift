import Foundation
import MoltipassTesting
import Synchronization
import Testing

@testable import Keychain

@Suite struct PassphraseTests {
    static let noPrompt: @Sendable (String) throws -> String = { _ in
        Issue.record("the prompt must not be used")
        return "x"
    }

    /// Sources are tried in order: flag, MOLTIPASS_PASSPHRASE_FILE, MOLTIPASS_PASSPHRASE, terminal.
    @Test func order() throws {
        let both = ["MOLTIPASS_PASSPHRASE_FILE": "/env/file", "MOLTIPASS_PASSPHRASE": "v"]
        #expect(
            try PassphraseSource.select(passphraseFile: "/flag", environment: both, isInteractive: true)
                == .file(path: "/flag"))
        #expect(
            try PassphraseSource.select(passphraseFile: nil, environment: both, isInteractive: true)
                == .environmentFile(path: "/env/file"))
        #expect(
            try PassphraseSource.select(
                passphraseFile: nil, environment: ["MOLTIPASS_PASSPHRASE": "v"], isInteractive: true) == .environment)
        #expect(try PassphraseSource.select(passphraseFile: nil, environment: [:], isInteractive: true) == .prompt)
        #expect(
            try PassphraseSource.select(
                passphraseFile: "", environment: ["MOLTIPASS_PASSPHRASE_FILE": "", "MOLTIPASS_PASSPHRASE": ""],
                isInteractive: true) == .prompt)
    }

    /// Without a terminal and without any source, resolution fails at once and never prompts.
    @Test func nonTTYFailsFast() throws {
        let resolver = PassphraseResolver(environment: [:], isInteractive: false, prompt: Self.noPrompt)
        let started = ContinuousClock.now
        let error = Support.keychainError { _ = try resolver.passphrase() }
        #expect(error == .noPassphraseSource)
        #expect(started.duration(to: .now) < .seconds(1))
        #expect(error?.description.contains("MOLTIPASS_PASSPHRASE_FILE") == true)
    }

    /// The environment value is used as is, but for one trailing newline (LF or CRLF), which it
    /// loses as a file does (issue 34, observation 8).
    @Test(arguments: [
        ("env pass ", "env pass "), ("env pass\n", "env pass"), ("env pass\r\n", "env pass"),
        ("env pass\n\n", "env pass\n"), (" env\tpass", " env\tpass"),
    ])
    func fromEnvironment(value: String, expected: String) throws {
        let resolver = PassphraseResolver(
            environment: ["MOLTIPASS_PASSPHRASE": value], isInteractive: false, prompt: Self.noPrompt)
        #expect(try resolver.passphrase() == Passphrase(expected))
    }

    /// A passphrase file loses exactly one trailing newline (LF or CRLF).
    @Test(arguments: [
        ("pass\n", "pass"), ("pass\r\n", "pass"), ("pass", "pass"), ("pass\n\n", "pass\n"), (" pass \n", " pass "),
    ])
    func fileNewlineStripped(contents: String, expected: String) throws {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let path = dir.file("pass").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        try Support.chmod(path, 0o600)
        let resolver = PassphraseResolver(
            passphraseFile: path, environment: ["MOLTIPASS_PASSPHRASE": "ignored"], isInteractive: false,
            prompt: Self.noPrompt)
        #expect(try resolver.passphrase() == Passphrase(expected))
        let viaEnvironment = PassphraseResolver(
            environment: ["MOLTIPASS_PASSPHRASE_FILE": path], isInteractive: false, prompt: Self.noPrompt)
        #expect(try viaEnvironment.passphrase() == Passphrase(expected))
    }

    /// A group- or world-readable passphrase file is refused with the chmod that fixes it.
    @Test func looseFileRefused() throws {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let path = dir.file("pass").path
        try Data("secret-pass\n".utf8).write(to: URL(fileURLWithPath: path))
        try Support.chmod(path, 0o644)
        let resolver = PassphraseResolver(passphraseFile: path, environment: [:], isInteractive: false)
        let error = Support.keychainError { _ = try resolver.passphrase() }
        #expect(error == .insecurePermissions(path: path, mode: 0o644, what: "passphrase file"))
        #expect(error?.description.contains("chmod 600 \(path)") == true)
        #expect(error?.description.contains("secret-pass") == false)
    }

    /// A missing passphrase file is named as a passphrase file, not as a keychain.
    @Test func missingFile() throws {
        let resolver = PassphraseResolver(
            environment: ["MOLTIPASS_PASSPHRASE_FILE": "/nonexistent/moltipass-pass"], isInteractive: false)
        let error = Support.keychainError { _ = try resolver.passphrase() }
        #expect(error == .missingPassphraseFile(path: "/nonexistent/moltipass-pass"))
    }

    /// An empty passphrase file, or one holding only a newline, is an error.
    @Test(arguments: ["", "\n"])
    func emptyFileRefused(contents: String) throws {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let path = dir.file("pass").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        try Support.chmod(path, 0o600)
        let resolver = PassphraseResolver(passphraseFile: path, environment: [:], isInteractive: false)
        #expect(
            Support.keychainError { _ = try resolver.passphrase() }
                == .emptyPassphrase(source: "--passphrase-file \(path)"))
    }

    /// On a terminal, the prompt is used; a new passphrase must be typed twice the same.
    @Test func promptAndConfirmation() throws {
        let same = PassphraseResolver(environment: [:], isInteractive: true, prompt: { _ in "typed" })
        #expect(try same.passphrase() == Passphrase("typed"))
        #expect(try same.newPassphrase() == Passphrase("typed"))
        let answers = AnswerQueue(["one", "two"])
        let differing = PassphraseResolver(environment: [:], isInteractive: true, prompt: { _ in answers.next() })
        #expect(Support.keychainError { _ = try differing.newPassphrase() } == .passphraseMismatch)
    }

    /// A new passphrase from a file or the environment is not confirmed (nobody to ask).
    @Test func newPassphraseFromEnvironmentNotConfirmed() throws {
        let resolver = PassphraseResolver(
            environment: ["MOLTIPASS_PASSPHRASE": "from env"], isInteractive: true, prompt: Self.noPrompt)
        #expect(try resolver.newPassphrase() == Passphrase("from env"))
    }
}

/// Hands out canned prompt answers in order.
final class AnswerQueue: Sendable {
    private let answers: Mutex<[String]>

    init(_ answers: [String]) { self.answers = Mutex(answers) }

    func next() -> String { answers.withLock { $0.isEmpty ? "" : $0.removeFirst() } }
}
