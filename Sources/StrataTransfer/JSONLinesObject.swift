import Foundation
import StrataCore

/// One object as a line of JSON Lines writes it, checked on its own: its entity, ref, attribute
/// values (defaults filled in) and the refs of the relationships the line writes.
struct JSONLinesObject {
    /// The entity's position in the model.
    var entity: Int
    var ref: String
    /// Every attribute, in model order.
    var attributes: [Value]
    /// Per relationship: the refs written, or `nil` when the line leaves it out.
    var written: [[String]?]

    /// Parses `line` (references are resolved by the caller).
    ///
    /// - Throws: the errors of ``JSONLinesImporter/importLines(_:source:into:)`` that one line
    ///   shows on its own, naming the line.
    init(_ line: JSONLinesInput.Line, source: String, model: Model, entityIndexes: [String: Int]) throws {
        let number = line.number
        func error(_ code: StrataError.Code, _ message: String, _ location: [String: String] = [:]) -> StrataError {
            JSONLinesImporter.error(code, number, source, message, location)
        }
        let node: JSONNode
        do {
            node = try JSONNode.parse(bytes: line.bytes)
        } catch {
            throw JSONLinesImporter.error(
                .invalidRequest, number, source,
                "not valid JSON: column \(error.column) (byte offset \(line.offset + error.offset) in the input): \(error.message)",
                ["column": String(error.column), "offset": String(line.offset + error.offset)])
        }
        guard case .object(let members) = node else {
            throw error(.invalidRequest, "expected a JSON object, found \(node.kindName)")
        }
        for (key, _) in members where !["entity", "ref", "attributes", "relationships"].contains(key) {
            throw error(
                .unknownKey, "unknown key '\(key)' (a line has entity, ref, attributes and relationships)", ["key": key]
            )
        }
        guard case .string(let entityName)? = node["entity"] else {
            throw error(
                .invalidRequest,
                "\"entity\" must be a string naming an entity, found \(node["entity"]?.kindName ?? "nothing")")
        }
        guard let e = entityIndexes[entityName] else {
            let known = model.entities.map(\.name).joined(separator: ", ")
            throw error(
                .unknownEntity, "the model has no entity '\(entityName)' (it has \(known))", ["entity": entityName])
        }
        let entity = model.entities[e]
        guard case .string(let ref)? = node["ref"], !ref.isEmpty else {
            throw error(
                .invalidRequest, "\"ref\" must be a non-empty string, found \(node["ref"]?.kindName ?? "nothing")",
                ["entity": entityName])
        }
        var attributes = entity.attributes.map { $0.defaultValue ?? .null }
        switch node["attributes"] {
        case nil, .null?: break
        case .object(let values)?:
            for (name, value) in values {
                guard let index = entity.attributeIndex(named: name) else {
                    throw error(
                        .unknownKey, "'\(entityName)' has no attribute '\(name)'",
                        ["entity": entityName, "key": name, "ref": ref])
                }
                do {
                    attributes[index] = try JSONValueCoding.decode(
                        value, as: entity.attributes[index].type, what: "\(entityName).\(name)")
                } catch let decoding as StrataError {
                    throw error(decoding.code, decoding.message, ["entity": entityName, "key": name, "ref": ref])
                }
            }
        case let other?:
            throw error(
                .typeMismatch, "\"attributes\" must be an object, found \(other.kindName)",
                ["entity": entityName, "ref": ref])
        }
        for (attribute, value) in zip(entity.attributes, attributes) where value.isNull && !attribute.isOptional {
            throw error(
                .missingValue, "the required attribute \(entityName).\(attribute.name) has no value",
                ["entity": entityName, "key": attribute.name, "ref": ref])
        }
        var written: [[String]?] = Array(repeating: nil, count: entity.relationships.count)
        switch node["relationships"] {
        case nil, .null?: break
        case .object(let values)?:
            for (name, value) in values {
                guard let index = entity.relationshipIndex(named: name) else {
                    throw error(
                        .unknownKey, "'\(entityName)' has no relationship '\(name)'",
                        ["entity": entityName, "key": name, "ref": ref])
                }
                let relationship = entity.relationships[index]
                let location = ["entity": entityName, "key": name, "ref": ref]
                switch (value, relationship.isToMany) {
                case (.null, false): written[index] = []
                case (.string(let target), false): written[index] = [target]
                case (.array(let items), true):
                    var refs: [String] = []
                    var seen: Set<String> = []
                    for item in items {
                        guard case .string(let target) = item else {
                            throw error(
                                .typeMismatch, "\(entityName).\(name) must list refs (strings), found \(item.kindName)",
                                location)
                        }
                        guard seen.insert(target).inserted else {
                            throw error(
                                .invalidRequest, "\(entityName).\(name) names '\(target)' twice",
                                location.merging(["ref": target]) { $1 })
                        }
                        refs.append(target)
                    }
                    written[index] = refs
                case (_, false):
                    throw error(
                        .typeMismatch,
                        "\(entityName).\(name) is a to-one relationship: expected a ref (a string) or null, found \(value.kindName)",
                        location)
                case (_, true):
                    throw error(
                        .typeMismatch,
                        "\(entityName).\(name) is a to-many relationship: expected an array of refs, found \(value.kindName)",
                        location)
                }
            }
        case let other?:
            throw error(
                .typeMismatch, "\"relationships\" must be an object, found \(other.kindName)",
                ["entity": entityName, "ref": ref])
        }
        self.entity = e
        self.ref = ref
        self.attributes = attributes
        self.written = written
    }
}
