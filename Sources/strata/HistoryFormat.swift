import Foundation
import Strata

/// How `strata history` prints a transaction: as text for people, as one JSON object for programs.
///
/// Text:
///
/// ```
/// 7F3A...:12  2026-11-27T12:40:01.123Z  author app  context editor
///   insert  strata://7F3A.../Employee/p17
///   update  strata://7F3A.../Employee/p3  name "Ann" → "Anna", department Department/p1 → Department/p2
///   delete  strata://7F3A.../Employee/p9  kept name "Bob"
/// ```
///
/// JSON: `{"token","sequence","timestamp","author","contextName","changes":[{"kind","object",
/// "entity","key","properties":{NAME:{"old","new"}},"tombstone":{NAME:VALUE}}]}`, values encoded
/// as in JSON Lines, relationship targets as object URIs.
struct HistoryFormat {
    /// The store the history belongs to.
    let storeIdentifier: String

    func text(_ transaction: HistoryTransaction) -> String {
        var line = "\(transaction.token)  \(JSONValueCoding.formatDate(transaction.timestamp))"
        if let author = transaction.author { line += "  author \(Self.quotedIfNeeded(author))" }
        if let context = transaction.contextName { line += "  context \(Self.quotedIfNeeded(context))" }
        var text = line + "\n"
        for change in transaction.changes {
            text += "  \(change.kind.rawValue)  \(change.objectID.uriRepresentation)"
            switch change.kind {
            case .insert: break
            case .update:
                let properties = change.properties.map {
                    "\($0.name) \(Self.text($0.oldValue)) → \(Self.text($0.newValue))"
                }
                if !properties.isEmpty { text += "  " + properties.joined(separator: ", ") }
            case .delete:
                let kept = change.tombstone.sorted { $0.key < $1.key }.map { "\($0.key) \(Self.text($0.value))" }
                if !kept.isEmpty { text += "  kept " + kept.joined(separator: ", ") }
            }
            text += "\n"
        }
        return text
    }

    func json(_ transaction: HistoryTransaction) -> JSONNode {
        .object([
            ("token", .string(transaction.token.description)), ("sequence", .integer(transaction.token.sequence)),
            ("timestamp", .string(JSONValueCoding.formatDate(transaction.timestamp))),
            ("author", transaction.author.map(JSONNode.string) ?? .null),
            ("contextName", transaction.contextName.map(JSONNode.string) ?? .null),
            ("changes", .array(transaction.changes.map(json))),
        ])
    }

    private func json(_ change: HistoryChange) -> JSONNode {
        var members: [(String, JSONNode)] = [
            ("kind", .string(change.kind.rawValue)), ("object", .string(change.objectID.uriRepresentation)),
            ("entity", .string(change.entityName)), ("key", .integer(change.objectID.permanentKey)),
        ]
        switch change.kind {
        case .insert: break
        case .update:
            members.append(
                (
                    "properties",
                    .object(
                        change.properties.map {
                            ($0.name, .object([("old", Self.json($0.oldValue)), ("new", Self.json($0.newValue))]))
                        })
                ))
        case .delete:
            members.append(
                (
                    "tombstone",
                    .object(
                        change.tombstone.sorted { $0.key < $1.key }.map { ($0.key, JSONValueCoding.encode($0.value)) })
                ))
        }
        return .object(members)
    }

    private static func json(_ value: PropertyValue) -> JSONNode {
        switch value {
        case .attribute(let value): JSONValueCoding.encode(value)
        case .relationship(.toOne(let id)): id.map { .string($0.uriRepresentation) } ?? .null
        case .relationship(.toMany(let ids)): .array(ids.map { .string($0.uriRepresentation) })
        }
    }

    /// A value on one line: attributes as JSON (strings quoted, dates in ISO 8601), objects as
    /// `Entity/pN`, to-many relationships as `[Entity/p1, Entity/p2]`.
    private static func text(_ value: PropertyValue) -> String {
        func short(_ id: ObjectID) -> String { "\(id.entityName)/p\(id.permanentKey)" }
        switch value {
        case .attribute(let value): return JSONValueCoding.encode(value).compactText()
        case .relationship(.toOne(let id)): return id.map(short) ?? "null"
        case .relationship(.toMany(let ids)): return "[" + ids.map(short).joined(separator: ", ") + "]"
        }
    }

    private static func text(_ value: Value) -> String { JSONValueCoding.encode(value).compactText() }

    /// A name as it is when it has no space or quote, else as a JSON string.
    private static func quotedIfNeeded(_ text: String) -> String {
        text.isEmpty
            || text.contains(where: { $0.isWhitespace || $0 == "\"" || $0.asciiValue.map { $0 < 0x20 } == true })
            ? JSONNode.string(text).compactText() : text
    }
}
