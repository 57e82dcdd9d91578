import Foundation
import StrataCore

/// The history's elements in the file, and the transactions they hold:
///
/// ```xml
/// <_history prunedThrough="2">
/// <_transaction sequence="3" timestamp="786000000.25" author="importer" context="background">
/// <_insert entity="Note" pk="7"/>
/// <_update entity="Note" pk="1">
/// <_change property="title" type="string" old="draft" new="final"/>
/// <_change property="folder" type="toOne" entity="Folder" old="1" new="2"/>
/// </_update>
/// <_delete entity="Note" pk="2">
/// <_kept attribute="title" type="string" value="todo"/>
/// </_delete>
/// </_transaction>
/// </_history>
/// ```
///
/// `timestamp` is a date as the format writes dates (seconds since 2001-01-01, shortest
/// round-trip form). A value's `type` names its case (`integer`, `double`, `float`, `decimal`,
/// `string`, `boolean`, `date`, `binary`, `uuid`, `uri`; `null` when no value is there) and its
/// text is the format's text of that type, left out when `nil`; a string XML cannot carry goes in
/// base64 under `old.b64`, `new.b64` or `value.b64`. A relationship's `type` is `toOne` or
/// `toMany`, `entity` its targets' entity, and the values their keys (a to-many's separated by
/// spaces, empty when it has none).
enum XMLHistoryCoding {
    static let transactionElement = "_transaction"
    static let changeElement = "_change"
    static let keptElement = "_kept"
    static let toOneType = "toOne"
    static let toManyType = "toMany"

    /// The element name of each kind of change.
    static func elementName(_ kind: HistoryChange.Kind) -> String {
        switch kind {
        case .insert: "_insert"
        case .update: "_update"
        case .delete: "_delete"
        }
    }

    // MARK: Writing

    /// The `<_transaction>` element of `transaction`.
    static func element(for transaction: HistoryTransaction) -> XMLHistoryElement {
        var attributes: [(name: String, value: String)] = [
            ("sequence", String(transaction.token.sequence)),
            ("timestamp", XMLFormat.text(of: .date(transaction.timestamp))),
        ]
        if let author = transaction.author { attributes.append(("author", author)) }
        if let context = transaction.contextName { attributes.append(("context", context)) }
        let changes = transaction.changes.map { change in
            var element = XMLHistoryElement(
                elementName(change.kind),
                [("entity", change.objectID.entityName), ("pk", String(change.objectID.permanentKey))])
            for property in change.properties {
                var attributes: [(name: String, value: String)] = [("property", property.name)]
                switch (property.oldValue, property.newValue) {
                case (.relationship(let old), .relationship(let new)):
                    let toMany: Bool
                    if case .toMany = old { toMany = true } else { toMany = false }
                    attributes.append(("type", toMany ? toManyType : toOneType))
                    if let entity = (old.targets + new.targets).first?.entityName {
                        attributes.append(("entity", entity))
                    }
                    append(old, "old", to: &attributes)
                    append(new, "new", to: &attributes)
                case (let old, let new):
                    let oldValue = old.attributeValue
                    let newValue = new.attributeValue
                    attributes.append(("type", oldValue.isNull ? newValue.typeName : oldValue.typeName))
                    append(oldValue, "old", to: &attributes)
                    append(newValue, "new", to: &attributes)
                }
                element.children.append(XMLHistoryElement(changeElement, attributes))
            }
            for (name, value) in change.tombstone.sorted(by: { $0.key < $1.key }) {
                var attributes: [(name: String, value: String)] = [("attribute", name), ("type", value.typeName)]
                append(value, "value", to: &attributes)
                element.children.append(XMLHistoryElement(keptElement, attributes))
            }
            return element
        }
        return XMLHistoryElement(transactionElement, attributes, children: changes)
    }

    private static func append(_ value: Value, _ name: String, to attributes: inout [(name: String, value: String)]) {
        switch value {
        case .null: return
        case .string(let text) where !XMLFormat.isXMLSafe(text.utf8):
            attributes.append((name + XMLFormat.base64Suffix, Data(text.utf8).base64EncodedString()))
        default: attributes.append((name, XMLFormat.text(of: value)))
        }
    }

    private static func append(
        _ value: RelationshipValue, _ name: String, to attributes: inout [(name: String, value: String)]
    ) {
        switch value {
        case .toOne(nil): return
        case .toOne(let target?): attributes.append((name, String(target.permanentKey)))
        case .toMany(let targets):
            attributes.append((name, targets.map { String($0.permanentKey) }.joined(separator: " ")))
        }
    }

    // MARK: Reading

    /// The commit time of a `<_transaction>` element, or `nil` when it cannot be read.
    static func timestamp(of element: XMLHistoryElement) -> Date? {
        guard let text = element["timestamp"], case .date(let date)? = parse(text, as: .date) else { return nil }
        return date
    }

    /// The transaction a `<_transaction>` element holds, as token `token`.
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` naming the token and `path` when the element
    ///   is damaged.
    static func transaction(from element: XMLHistoryElement, token: HistoryToken, path: String) throws
        -> HistoryTransaction
    {
        func damage(_ why: String) -> StrataError {
            StrataError(
                .storeCorrupt, "the history transaction \(token) in \(path) is damaged: \(why)",
                location: ["path": path, "token": token.description])
        }
        guard let timestamp = timestamp(of: element) else {
            throw damage("its timestamp '\(element["timestamp"] ?? "")' is not a date")
        }
        var changes: [HistoryChange] = []
        changes.reserveCapacity(element.children.count)
        for child in element.children {
            guard let kind = HistoryChange.Kind.allCases.first(where: { elementName($0) == child.name }) else {
                throw damage(
                    "<\(child.name)> is not a change (\(HistoryChange.Kind.allCases.map { "<\(elementName($0))>" }.joined(separator: ", ")))"
                )
            }
            guard let entity = child["entity"], let pk = child["pk"].flatMap({ Int64($0) }) else {
                throw damage("<\(child.name)> needs an 'entity' and a 'pk'")
            }
            var change = HistoryChange(
                kind: kind,
                objectID: ObjectID(entityName: entity, storeIdentifier: token.storeIdentifier, primaryKey: pk))
            for grandchild in child.children {
                switch (kind, grandchild.name) {
                case (.update, changeElement):
                    guard let name = grandchild["property"], let type = grandchild["type"] else {
                        throw damage("<\(changeElement)> needs a 'property' and a 'type'")
                    }
                    let old: PropertyValue
                    let new: PropertyValue
                    if type == toOneType || type == toManyType {
                        let targets = grandchild["entity"] ?? ""
                        func relationship(_ text: String?) throws -> RelationshipValue {
                            var keys: [Int64] = []
                            for word in (text ?? "").split(separator: " ") {
                                guard let key = Int64(word) else { throw damage("'\(word)' is not a key of \(name)") }
                                keys.append(key)
                            }
                            let ids = keys.map {
                                ObjectID(entityName: targets, storeIdentifier: token.storeIdentifier, primaryKey: $0)
                            }
                            if type == toManyType { return .toMany(ids) }
                            guard ids.count <= 1 else { throw damage("the to-one \(name) lists \(ids.count) keys") }
                            return .toOne(ids.first)
                        }
                        old = .relationship(try relationship(grandchild["old"]))
                        new = .relationship(try relationship(grandchild["new"]))
                    } else {
                        old = .attribute(try value(grandchild, "old", type: type, damage: damage))
                        new = .attribute(try value(grandchild, "new", type: type, damage: damage))
                    }
                    change.properties.append(PropertyChange(name: name, oldValue: old, newValue: new))
                case (.delete, keptElement):
                    guard let name = grandchild["attribute"], let type = grandchild["type"] else {
                        throw damage("<\(keptElement)> needs an 'attribute' and a 'type'")
                    }
                    change.tombstone[name] = try value(grandchild, "value", type: type, damage: damage)
                default:
                    throw damage("<\(grandchild.name)> does not belong in <\(child.name)>")
                }
            }
            changes.append(change)
        }
        return HistoryTransaction(
            token: token, timestamp: timestamp, author: element["author"], contextName: element["context"],
            changes: changes)
    }

    /// The value in attribute `name` (or its base64 form) of `element`, of the type named `type`.
    private static func value(
        _ element: XMLHistoryElement, _ name: String, type: String, damage: (String) -> StrataError
    ) throws -> Value {
        if type == "string", let base64 = element[name + XMLFormat.base64Suffix] {
            guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else {
                throw damage("\(name)\(XMLFormat.base64Suffix) is not base64 of UTF-8 text")
            }
            return .string(text)
        }
        guard let text = element[name] else { return .null }
        guard let attributeType = attributeType(named: type) else {
            throw damage("'\(type)' is not a value type")
        }
        guard let value = parse(text, as: attributeType) else {
            throw damage("\(name)=\"\(text.prefix(40))\" is not a valid \(type)")
        }
        return value
    }

    /// The attribute type whose values have the case named `name` (``Value/typeName``).
    private static func attributeType(named name: String) -> AttributeType? {
        switch name {
        case "integer": .integer64
        case "double": .double
        case "float": .float
        case "decimal": .decimal
        case "string": .string
        case "boolean": .boolean
        case "date": .date
        case "binary": .binary
        case "uuid": .uuid
        case "uri": .uri
        default: nil
        }
    }

    private static func parse(_ text: String, as type: AttributeType) -> Value? {
        var text = text
        return text.withUTF8 { XMLFormat.parseValue($0, as: type) }
    }
}

extension PropertyValue {
    /// The attribute value, or `.null` for a relationship's.
    fileprivate var attributeValue: Value {
        if case .attribute(let value) = self { return value }
        return .null
    }
}
