import Foundation

/// Where the key file lives when no `--keychain` flag is given.
public enum KeychainLocation {
    /// The variable that names the key file directly.
    public static let variable = "MOLTIPASS_KEYCHAIN"

    /// `MOLTIPASS_KEYCHAIN`, else `$XDG_CONFIG_HOME/moltipass/keychain`, else
    /// `$HOME/.config/moltipass/keychain`; `nil` when none of them is set (empty counts as unset).
    public static func defaultPath(environment: [String: String]) -> String? {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        if let explicit = value(variable) { return explicit }
        if let config = value("XDG_CONFIG_HOME") { return config + "/moltipass/keychain" }
        if let home = value("HOME") { return home + "/.config/moltipass/keychain" }
        return nil
    }
}
