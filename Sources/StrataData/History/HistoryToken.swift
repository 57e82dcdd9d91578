import Foundation
import StrataCore

/// A position in a store's history: SwiftData's `HistoryToken`.
///
/// Keep the token of the last transaction you processed (tokens are `Codable`) and fetch the
/// transactions after it next time. Do not declare new conformances: a ``ModelContext`` reads
/// ``DefaultHistoryToken``s only.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The type of the token's value within its store.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The identifier of the store whose history the token is a position in.
    var storeIdentifier: String { get }
    /// The token's value within its store.
    var tokenValue: TokenType? { get }
}

/// The token of a transaction in a Strata store's history: SwiftData's `DefaultHistoryToken`.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// descriptor.predicate = #Predicate { $0.token > lastToken }
/// let transactions = try context.fetchHistory(descriptor)
/// lastToken = transactions.last?.token ?? lastToken
/// ```
///
/// A token names one store and a transaction's place in that store's history; the tokens of one
/// store grow with each save, survive closing and reopening the store, and compare in the order
/// the saves committed (tokens of different stores order by store identifier). It encodes as
/// the single string `<store>:<sequence>`, the form the `strata history` tool prints and takes.
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// The engine's token.
    package let token: StrataCore.HistoryToken

    package init(_ token: StrataCore.HistoryToken) {
        self.token = token
    }

    /// The identifier of the store whose history this token is a position in.
    public var storeIdentifier: String { token.storeIdentifier }
    /// The transaction's sequence number in its store's history: 1 for the first recorded save.
    public var tokenValue: Int64? { token.sequence }
    /// `<store>:<sequence>`.
    public var id: String { token.description }
    /// `<store>:<sequence>`.
    public var description: String { token.description }

    /// Orders by store identifier, then by commit order within the store.
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        lhs.token < rhs.token
    }

    /// Encodes `<store>:<sequence>` as one string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(token.description)
    }

    /// Decodes `<store>:<sequence>`.
    ///
    /// - Throws: `DecodingError.dataCorrupted` naming the text when it is not a token.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            token = try StrataCore.HistoryToken(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a history token (<store>:<sequence>)")
        }
    }
}
