/// A position in a store's persistent history: the transaction a save appended.
///
/// Tokens of one store grow by one with each recorded save, survive closing and reopening the
/// store, and compare in the order the saves committed. Keep the last token you processed (it is
/// `Codable`) and ask for the history after it next time. Its text form, `<store>:<sequence>`,
/// is what the `strata history` tool prints and accepts.
public struct HistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The identifier of the store whose history this is.
    public var storeIdentifier: String
    /// The transaction's position in that store's history: 1 for the first recorded save.
    public var sequence: Int64

    /// Creates a token.
    public init(storeIdentifier: String, sequence: Int64) {
        self.storeIdentifier = storeIdentifier
        self.sequence = sequence
    }

    /// Reads the text form `<store>:<sequence>`.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` naming the text when it is not of that form.
    public init(parsing text: String) throws {
        guard let colon = text.lastIndex(of: ":"), let sequence = Int64(text[text.index(after: colon)...]),
            colon != text.startIndex, sequence >= 0
        else {
            throw StrataError(
                .invalidRequest, "'\(text.shortenedForMessages)' is not a history token (<store>:<sequence>)",
                location: ["token": text])
        }
        self.init(storeIdentifier: String(text[..<colon]), sequence: sequence)
    }

    /// `<store>:<sequence>`.
    public var description: String { "\(storeIdentifier):\(sequence)" }

    /// Orders by store identifier, then by sequence: within one store, the commit order.
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        lhs.storeIdentifier != rhs.storeIdentifier
            ? lhs.storeIdentifier < rhs.storeIdentifier : lhs.sequence < rhs.sequence
    }
}
