import MoltipassEngine

/// A failure of a `keys`, `register` or `claim` command that already knows its exit status
/// and the sentence to show the operator.
///
/// The message never contains a key or a passphrase.
public struct KeysFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exit status the command ends with.
    public var status: ExitStatus
    /// What went wrong and what to do about it.
    public var message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
