import Foundation

/// The one error type Strata throws.
///
/// A struct, not an enum, so that new codes never break a caller's `switch` (the lesson of
/// swift-argument-parser's PR 299). Match on ``code``:
///
/// ```swift
/// do { try context.save() }
/// catch let error as StrataError where error.code == .conflict {
///     for conflict in error.conflicts { print(conflict) }
/// }
/// ```
///
/// Every error says *what* went wrong (``message``), *where* (``location``: a file and JSON path,
/// a line, a predicate position, an object ID and property), and *which value* when one is to blame.
public struct StrataError: Error, Sendable, Hashable {
    /// A stable, machine-matchable identifier of the kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, as printed in messages and `--json` output.
        public var rawValue: String
        /// Wraps a raw name; third-party stores may define their own codes this way.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The raw name.
        public var description: String { rawValue }

        // Model and input
        /// A model file or model definition is malformed or inconsistent.
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// A predicate's text could not be parsed.
        public static let predicateSyntax = Code(rawValue: "predicateSyntax")
        /// A predicate or sort is well formed but cannot be applied (an operator on the wrong type).
        public static let invalidPredicate = Code(rawValue: "invalidPredicate")
        /// An entity name the model does not have.
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        /// A key (attribute, relationship or key path) the entity does not have.
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// A value of the wrong type for an attribute or relationship.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A non-optional attribute or relationship has no value.
        public static let missingValue = Code(rawValue: "missingValue")
        /// One or more objects failed validation; see ``validationFailures``.
        public static let validationFailed = Code(rawValue: "validationFailed")
        /// An object ID or its URI form is malformed, temporary where a permanent one is needed,
        /// or names an object that does not exist.
        public static let invalidObjectID = Code(rawValue: "invalidObjectID")
        /// A request is malformed (a negative limit, a property to fetch that is not an attribute).
        public static let invalidRequest = Code(rawValue: "invalidRequest")

        // Saving
        /// Optimistic locking failed: objects changed in the store since they were read; see
        /// ``conflicts``. Nothing was written.
        public static let conflict = Code(rawValue: "conflict")
        /// A delete rule of `deny` blocked a delete.
        public static let deleteDenied = Code(rawValue: "deleteDenied")
        /// A unique constraint would be violated.
        public static let uniqueConstraint = Code(rawValue: "uniqueConstraint")

        // Stores
        /// A store URL is malformed.
        public static let invalidStoreURL = Code(rawValue: "invalidStoreURL")
        /// A store URL names a scheme no backend registered.
        public static let unknownStoreScheme = Code(rawValue: "unknownStoreScheme")
        /// The store does not exist and creating it was not allowed.
        public static let storeNotFound = Code(rawValue: "storeNotFound")
        /// The file or directory is not a store of the expected kind, or is damaged.
        public static let storeCorrupt = Code(rawValue: "storeCorrupt")
        /// The store was written with another model version; see ``message`` for both hashes.
        public static let modelMismatch = Code(rawValue: "modelMismatch")
        /// The store carries no model of its own (it was written before stores kept theirs), so
        /// the model must be given to open it.
        public static let storeHasNoModel = Code(rawValue: "storeHasNoModel")
        /// The store is read-only (opened so, or the file system refuses writes).
        public static let readOnly = Code(rawValue: "readOnly")
        /// Another process or connection holds the store.
        public static let storeBusy = Code(rawValue: "storeBusy")
        /// The store was closed.
        public static let storeClosed = Code(rawValue: "storeClosed")
        /// The history after a token was pruned: the reader missed changes and must fetch
        /// everything again. `location["token"]` names the token.
        public static let historyExpired = Code(rawValue: "historyExpired")
        /// The store's server could not be reached, or the connection to it was lost (a database
        /// server that is down or restarting, a wrong host or port, a connection timeout). Trying
        /// again later may succeed.
        public static let serverUnavailable = Code(rawValue: "serverUnavailable")
        /// The store's server refused the credentials: a wrong user or password, or no access.
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// An operating-system I/O failure (permission, disk full, failed sync).
        public static let io = Code(rawValue: "io")
        /// An option the backend does not understand or a value it cannot accept.
        public static let invalidOption = Code(rawValue: "invalidOption")
        /// The operation is not supported by this store or in this state.
        public static let unsupported = Code(rawValue: "unsupported")
        /// The operation was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// An internal invariant failed: a bug in Strata or a backend. Please report it.
        public static let internalInconsistency = Code(rawValue: "internalInconsistency")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence saying what went wrong, including the offending value where there is one.
    public var message: String
    /// Where it went wrong: a file path, a JSON path, `line 12`, `column 7`, an entity and key.
    /// Empty when there is nothing more precise than the message.
    public var location: [String: String]
    /// For ``Code/conflict``: every object that changed in the store since it was read.
    public var conflicts: [SaveConflict]
    /// For ``Code/validationFailed``: every failure found, across all objects of the save.
    public var validationFailures: [ValidationFailure]
    /// The underlying cause's description (an `errno` text, a SQLite message), when there is one.
    public var underlying: String?

    /// Creates an error.
    public init(
        _ code: Code,
        _ message: String,
        location: [String: String] = [:],
        conflicts: [SaveConflict] = [],
        validationFailures: [ValidationFailure] = [],
        underlying: String? = nil
    ) {
        self.code = code
        self.message = message
        self.location = location
        self.conflicts = conflicts
        self.validationFailures = validationFailures
        self.underlying = underlying
    }
}

extension StrataError: CustomStringConvertible {
    /// `code: message (key: value, ...) [underlying]`, followed by one line for each of the
    /// first five conflicts or validation failures and, when there are more, one line counting
    /// the rest by entity:
    ///
    /// ```text
    /// conflict: 1000 object(s) changed in the store since they were read; nothing was saved
    ///   - Department p1: expected version 1, store has version 2 (name: memory "A", ...)
    ///   - ...
    ///   - and 995 more conflicts on Department (990), Employee (5)
    /// ```
    ///
    /// So the text stays short however large the save; ``conflicts`` and
    /// ``validationFailures`` hold every one.
    public var description: String {
        var text = "\(code): \(message)"
        if !location.isEmpty {
            text +=
                " (" + location.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + ")"
        }
        if let underlying { text += " [\(underlying)]" }
        text += Self.listing(conflicts, noun: "conflict") { $0.objectID.entityName }
        text += Self.listing(validationFailures, noun: "validation failure") { $0.objectID.entityName }
        return text
    }

    /// How many conflicts, and how many validation failures, ``description`` shows one by one.
    static let itemsListedInDescription = 5

    /// One line per item for the first ``itemsListedInDescription`` of `items`, then one line
    /// counting the others by entity, the most frequent first.
    private static func listing<Item: CustomStringConvertible>(_ items: [Item], noun: String, entity: (Item) -> String)
        -> String
    {
        var text = ""
        for item in items.prefix(itemsListedInDescription) { text += "\n  - \(item)" }
        let others = items.dropFirst(itemsListedInDescription)
        guard !others.isEmpty else { return text }
        var counts: [String: Int] = [:]
        for item in others { counts[entity(item), default: 0] += 1 }
        let byEntity = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        text += "\n  - and \(others.count) more \(noun)\(others.count == 1 ? "" : "s") on "
        text += byEntity.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
        return text
    }
}

extension String {
    /// How many characters of one value a message shows (see ``shortenedForMessages``).
    static let messageValueLimit = 300

    /// The text, or when it is longer than ``messageValueLimit`` characters its beginning
    /// followed by its length: `[Employee p1, Employee p2, … (48213 characters)`. For values
    /// quoted in messages, whose full form stays in an error's fields.
    var shortenedForMessages: String {
        guard utf8.count > Self.messageValueLimit else { return self }
        let length = count
        guard length > Self.messageValueLimit else { return self }
        return String(prefix(Self.messageValueLimit)) + "… (\(length) characters)"
    }
}

extension StrataError: LocalizedError {
    /// The same as ``description``, so `error.localizedDescription` is useful on every platform.
    public var errorDescription: String? { description }
}
