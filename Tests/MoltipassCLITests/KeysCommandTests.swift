import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `moltipass keys …` through the built binary in a temp HOME, keys always on stdin.
@Suite("moltipass keys")
struct KeysCommandTests {
    static let alphaKey = "moltbook_sk_TESTalphaKEY0123456789abcdefghij"
    static let betaKey = "moltbook_sk_TESTbetaKEY9876543210zyxwvutsrqp"

    /// init creates a 0600 file at the XDG default; add prints name and fingerprint only;
    /// list (table and JSON) shows metadata and fingerprints, never keys; remove deletes.
    @Test func initAddListRemoveRoundTrip() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let created = try await home.run(["keys", "init", "--scrypt-log2n", "10"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("created keychain \(home.keychainPath)"))
        #expect(try KeysHome.mode(of: home.keychainPath) == 0o600)

        let added = try await home.add("alpha", key: Self.alphaKey)
        #expect(added.status == 0, "\(added.stderr)")
        let fingerprint = APIKey(Self.alphaKey).fingerprint
        #expect(added.stdout == "added alpha (key \(fingerprint))\n")
        #expect(try await home.add("beta", key: Self.betaKey).status == 0)

        let table = try await home.run(["keys", "list"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("alpha") && table.stdout.contains(fingerprint))
        #expect(table.stdout.contains("beta") && table.stdout.contains("unknown"))

        let json = try await home.listJSON()
        #expect(json.map { $0["name"]?.string } == ["alpha", "beta"])
        #expect(json.first?["key_fingerprint"]?.string == fingerprint)
        #expect(json.allSatisfy { $0["api_key"] == nil })

        let removed = try await home.run(["keys", "remove", "alpha"])
        #expect(removed.status == 0 && removed.stdout == "removed alpha\n")
        #expect(try await home.listJSON().map { $0["name"]?.string } == ["beta"])
        let missing = try await home.run(["keys", "remove", "alpha"])
        #expect(missing.status == 12)
        #expect(missing.stderr.contains("no entry named alpha"))
        home.expectNoLeak(of: [Self.alphaKey, Self.betaKey])
    }

    /// An existing name without --replace exits 14 and keeps the old key; with it, the key changes.
    @Test func existingNameNeedsReplace() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        #expect(try await home.add("alpha", key: Self.alphaKey).status == 0)
        let refused = try await home.add("alpha", key: Self.betaKey)
        #expect(refused.status == 14)
        #expect(refused.stderr.contains("already exists") && refused.stderr.contains("--replace"))
        #expect(try await home.listJSON().first?["key_fingerprint"]?.string == APIKey(Self.alphaKey).fingerprint)

        let replaced = try await home.add("alpha", key: Self.betaKey, replace: true)
        #expect(replaced.status == 0)
        #expect(replaced.stdout == "replaced alpha (key \(APIKey(Self.betaKey).fingerprint))\n")
        #expect(try await home.listJSON().first?["key_fingerprint"]?.string == APIKey(Self.betaKey).fingerprint)
        home.expectNoLeak(of: [Self.alphaKey, Self.betaKey])
    }

    /// export refuses without --reveal (exit 64, nothing on stdout); with it prints exactly the key.
    @Test func exportNeedsReveal() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        #expect(try await home.add("alpha", key: Self.alphaKey).status == 0)
        let refused = try await home.run(["keys", "export", "alpha"])
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("without --reveal"))
        let revealed = try await home.run(["keys", "export", "alpha", "--reveal"], recorded: false)
        #expect(revealed.status == 0)
        #expect(revealed.stdout == Self.alphaKey + "\n")
        #expect(!revealed.stderr.contains(Self.alphaKey))
        home.expectNoLeak(of: [Self.alphaKey])
    }

    /// `--json` on init, add, remove, passwd and export: one object on stdout with exactly the fields
    /// README's "Keychain" table documents for the command, the same facts as the line; never a key
    /// or a passphrase, except the key in export --reveal --json; a failure keeps stdout empty and
    /// its message and exit status.
    @Test func jsonReports() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let documented = documentedFields(table: "`--json` field", in: try Readme.section("Keychain"))
        func object(
            _ result: ProcessRunner.Result, _ fields: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> [String: JSONValue] {
            #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
            return try reportObject(result, fields: fields, documented: documented, sourceLocation: sourceLocation)
        }
        let alpha = APIKey(Self.alphaKey).fingerprint
        let beta = APIKey(Self.betaKey).fingerprint

        let created = try object(
            try await home.run(["keys", "init", "--scrypt-log2n", "10", "--json"]), ["result", "keychain", "scrypt"])
        #expect(created["result"]?.string == "created")
        #expect(created["keychain"]?.string == home.keychainPath)
        #expect(created["scrypt"] == .object(["log2_n": .number(10), "r": .number(8), "p": .number(1)]))

        let base = "http://127.0.0.1:8787/api/v1"
        let entryFields: Set = ["result", "keychain", "name", "key_fingerprint", "base_url"]
        let added = try object(
            try await home.run(["keys", "add", "alpha", "--base-url", base, "--json"], stdin: Self.alphaKey + "\n"),
            entryFields)
        #expect(added["result"]?.string == "added")
        #expect(added["name"]?.string == "alpha")
        #expect(added["key_fingerprint"]?.string == alpha)
        #expect(added["base_url"]?.string == base)
        #expect(added["keychain"]?.string == home.keychainPath)
        let replaced = try object(
            try await home.run(["keys", "add", "alpha", "--replace", "--json"], stdin: Self.betaKey + "\n"),
            entryFields)
        #expect(replaced["result"]?.string == "replaced")
        #expect(replaced["key_fingerprint"]?.string == beta)
        #expect(replaced["base_url"]?.string == base, "--replace without --base-url keeps the entry's")
        let listed = try #require(try await home.listJSON().first?.object)
        #expect(Set(listed.keys).isSubset(of: documented), "undocumented: \(listed.keys)")
        #expect(listed["key_fingerprint"]?.string == beta)

        let refused = try await home.run(["keys", "export", "alpha", "--json"])
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("without --reveal"))
        let revealed = try await home.run(["keys", "export", "alpha", "--reveal", "--json"], recorded: false)
        let exported = try object(revealed, ["name", "key", "key_fingerprint", "base_url", "keychain"])
        #expect(exported["key"]?.string == Self.betaKey)
        #expect(exported["key_fingerprint"]?.string == beta)
        #expect(exported["base_url"]?.string == base)
        #expect(!revealed.stderr.contains(Self.betaKey))

        let newFile = home.directory.file("new-passphrase").path
        try KeysHome.writeSecret("a whole new passphrase\n", to: newFile)
        let changed = try object(
            try await home.run(["keys", "passwd", "--new-passphrase-file", newFile, "--json"]), ["result", "keychain"])
        #expect(changed["result"]?.string == "passphrase_changed")
        #expect(changed["keychain"]?.string == home.keychainPath)

        let removed = try object(
            try await home.run(["keys", "remove", "alpha", "--passphrase-file", newFile, "--json"]),
            ["result", "keychain", "name", "key_fingerprint"])
        #expect(removed["result"]?.string == "removed")
        #expect(removed["name"]?.string == "alpha")
        #expect(removed["key_fingerprint"]?.string == beta)
        let missing = try await home.run(["keys", "remove", "alpha", "--passphrase-file", newFile, "--json"])
        #expect(missing.status == 12)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("no entry named alpha"))

        home.expectNoLeak(of: [Self.alphaKey, Self.betaKey])
        for passphrase in ["correct horse battery staple", "a whole new passphrase"] {
            #expect(!home.transcript.all.contains(passphrase), "a passphrase leaked")
        }
    }

    /// passwd re-encrypts: the old passphrase then fails with the one error (12), the new one
    /// opens the same entries.
    @Test func passwdRoundTrip() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        #expect(try await home.add("alpha", key: Self.alphaKey).status == 0)
        let newFile = home.directory.file("new-passphrase").path
        try KeysHome.writeSecret("a whole new passphrase\n", to: newFile)

        let changed = try await home.run(["keys", "passwd", "--new-passphrase-file", newFile])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.contains("changed the passphrase"))
        #expect(try KeysHome.mode(of: home.keychainPath) == 0o600)

        let old = try await home.run(["keys", "list"])
        #expect(old.status == 12)
        #expect(old.stderr.contains("cannot open keychain: wrong passphrase or the file was modified"))

        let new = try await home.run(["keys", "list", "--passphrase-file", newFile])
        #expect(new.status == 0)
        #expect(new.stdout.contains(APIKey(Self.alphaKey).fingerprint))
        let revealed = try await home.run(
            ["keys", "export", "alpha", "--reveal"], extra: ["MOLTIPASS_PASSPHRASE_FILE": newFile], recorded: false)
        #expect(revealed.stdout == Self.alphaKey + "\n")

        let noNew = try await home.run(["keys", "passwd", "--passphrase-file", newFile])
        #expect(noNew.status == 12)
        #expect(noNew.stderr.contains("--new-passphrase-file"))
        home.expectNoLeak(of: [Self.alphaKey])
    }

    /// A keychain readable by others (0644) is refused with the chmod that fixes it, exit 12.
    @Test func groupReadableKeychainRefused() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: home.keychainPath)
        let result = try await home.run(["keys", "list"])
        #expect(result.status == 12)
        #expect(result.stderr.contains("chmod 600 \(home.keychainPath)"))
        #expect(result.stdout.isEmpty)
    }

    /// Without a terminal and without any passphrase source, every key command fails with 12 and
    /// names the sources; nothing waits for input (a wait would be killed at the runner's timeout
    /// and fail the status check; no wall-clock bound here, which a loaded CI machine once broke).
    @Test(arguments: [
        ["keys", "list"], ["keys", "add", "alpha"], ["keys", "init"], ["register", "alpha", "--description", "x"],
    ])
    func noPassphraseSourceFailsFast(arguments: [String]) async throws {
        let home = try KeysHome()
        defer { home.remove() }
        if arguments != ["keys", "init"] { try await home.initKeychain() }
        let result = try await home.run(
            arguments, stdin: Self.alphaKey, extra: ["MOLTIPASS_PASSPHRASE_FILE": ""], timeout: 60)
        #expect(result.status == 12, "\(result.stderr)")
        #expect(result.stderr.contains("MOLTIPASS_PASSPHRASE_FILE or MOLTIPASS_PASSPHRASE"))
        home.expectNoLeak(of: [Self.alphaKey])
    }

    /// Passphrase sources in order: the flag beats MOLTIPASS_PASSPHRASE_FILE, which beats
    /// MOLTIPASS_PASSPHRASE; the variable alone works; a wrong one is the one error.
    @Test func passphraseSourceOrder() async throws {
        let home = try KeysHome(passphrase: "right one")
        defer { home.remove() }
        try await home.initKeychain()
        let wrongFile = home.directory.file("wrong").path
        try KeysHome.writeSecret("wrong one\n", to: wrongFile)

        let flagWins = try await home.run(
            ["keys", "list", "--passphrase-file", home.passphraseFile],
            extra: ["MOLTIPASS_PASSPHRASE_FILE": wrongFile, "MOLTIPASS_PASSPHRASE": "wrong one"])
        #expect(flagWins.status == 0)
        let fileBeatsValue = try await home.run(["keys", "list"], extra: ["MOLTIPASS_PASSPHRASE": "wrong one"])
        #expect(fileBeatsValue.status == 0)
        let value = try await home.run(
            ["keys", "list"], extra: ["MOLTIPASS_PASSPHRASE_FILE": "", "MOLTIPASS_PASSPHRASE": "right one"])
        #expect(value.status == 0)
        // Set from a file with its newline (issue 34, observation 8): the newline is not part of it.
        let withNewline = try await home.run(
            ["keys", "list"], extra: ["MOLTIPASS_PASSPHRASE_FILE": "", "MOLTIPASS_PASSPHRASE": "right one\n"])
        #expect(withNewline.status == 0, "\(withNewline.stderr)")
        let wrong = try await home.run(["keys", "list", "--passphrase-file", wrongFile])
        #expect(wrong.status == 12)
        #expect(wrong.stderr.contains("wrong passphrase or the file was modified"))
    }

    /// A group-readable passphrase file is refused (12) with the chmod fix.
    @Test func groupReadablePassphraseFileRefused() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: home.passphraseFile)
        let result = try await home.run(["keys", "list"])
        #expect(result.status == 12)
        #expect(result.stderr.contains("chmod 600 \(home.passphraseFile)"))
    }

    /// --keychain and MOLTIPASS_KEYCHAIN move the file; a missing keychain is 12 with the fix.
    @Test func keychainLocation() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let flagPath = home.path + "/elsewhere/keys"
        let missing = try await home.run(["keys", "list", "--keychain", flagPath])
        #expect(missing.status == 12)
        #expect(missing.stderr.contains("no keychain at \(flagPath); create one with `moltipass keys init`"))
        let created = try await home.run(["keys", "init", "--keychain", flagPath, "--scrypt-log2n", "10"])
        #expect(created.status == 0)
        #expect(FileManager.default.fileExists(atPath: flagPath))
        #expect(!FileManager.default.fileExists(atPath: home.keychainPath))
        let viaVariable = try await home.run(["keys", "list"], extra: ["MOLTIPASS_KEYCHAIN": flagPath])
        #expect(viaVariable.status == 0)
        #expect(viaVariable.stdout.contains("no entries in \(flagPath)"))
        let again = try await home.run(["keys", "init", "--keychain", flagPath, "--scrypt-log2n", "10"])
        #expect(again.status == 14)
    }

    /// Bad input: an invalid entry name (64), an empty key on stdin (64), an out-of-range
    /// --scrypt-log2n (64); `keys add` takes no second argument (there is no way to pass a key in argv).
    @Test func badInput() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        #expect(try await home.run(["keys", "init", "--scrypt-log2n", "40"]).status == 64)
        try await home.initKeychain()
        #expect(try await home.add("bad name", key: Self.alphaKey).status == 64)
        let empty = try await home.run(["keys", "add", "alpha"], stdin: "")
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("stdin"))
        let inArgv = try await home.run(["keys", "add", "alpha", "an-extra-argument"], stdin: Self.alphaKey)
        #expect(inArgv.status == 64)
        home.expectNoLeak(of: [Self.alphaKey])
    }
}
