import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// The options every keychain command shares: where the file is and where its passphrase is.
struct KeysOptions: ParsableArguments {
    @Option(
        name: .customLong("keychain"),
        help: ArgumentHelp(
            "The keychain file (default: $MOLTIPASS_KEYCHAIN, else $XDG_CONFIG_HOME/moltipass/keychain, "
                + "else ~/.config/moltipass/keychain).",
            valueName: "path"))
    var keychain: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the passphrase (mode 0600 or 0400). Else $MOLTIPASS_PASSPHRASE_FILE, "
                + "$MOLTIPASS_PASSPHRASE, or a prompt on the terminal.",
            valueName: "path"))
    var passphraseFile: String?

    /// The keychain these options name, not yet unlocked.
    func session() throws -> KeysSession {
        try KeysSession(keychain: keychain, passphraseFile: passphraseFile)
    }
}
