import Foundation
import StrataCore

/// The identity of a model's object in its store: SwiftData's `PersistentIdentifier`.
///
/// Pass identifiers, never models, between contexts and threads, and get the model back with
/// ``ModelContext/model(for:)``. A model inserted and not saved yet has a *temporary*
/// identifier; its first save gives it a permanent one.
///
/// Identifiers encode (`Codable`) as their URI form, `strata://STORE/Trip/p12`, and order by
/// entity, store and key.
public struct PersistentIdentifier: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The engine's object ID this identifier wraps.
    package let objectID: ObjectID

    package init(_ objectID: ObjectID) {
        self.objectID = objectID
    }

    /// The name of the model's entity (its class name unless renamed).
    public var entityName: String { objectID.entityName }
    /// The identifier of the store that holds the object.
    public var storeIdentifier: String? { objectID.isTemporary ? nil : objectID.storeIdentifier }
    /// Whether this identifier is temporary (the object is not saved yet).
    public var isTemporary: Bool { objectID.isTemporary }

    /// `Trip p12`.
    public var description: String { objectID.description }

    /// Orders by entity, store and key.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        lhs.objectID < rhs.objectID
    }

    /// Encodes the URI form as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(objectID.uriRepresentation)
    }

    /// Decodes the URI form.
    ///
    /// - Throws: `DecodingError.dataCorrupted` naming the text when it is not an identifier's
    ///   URI form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            objectID = try ObjectID(uriRepresentation: text)
        } catch {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a persistent identifier: \(error)")
        }
    }
}
