import Foundation
import StrataCore

/// Reads JSON Lines (the format ``JSONLinesExporter`` writes, see docs/CLI.md) into a store.
///
/// Each non-blank line is one object:
/// `{"entity":"Employee","ref":"e1","attributes":{...},"relationships":{"department":"d1"}}`.
/// `ref` names the object within the file; relationships name refs, also refs of later lines.
/// `attributes` and `relationships` may be left out or list only some properties: a missing
/// attribute takes its model default (or `null`); a missing relationship is filled from its
/// inverse (a line saying `"department":"d1"` puts the employee into `d1`'s `employees`). When
/// both sides are written they must agree.
///
/// **All or nothing.** The whole input is parsed and checked before anything is written, then
/// every object is inserted in one save, which the store applies atomically. On the first
/// problem the import throws a ``StrataError`` whose message starts with `line N:` (and whose
/// `location` has `line`), and the store is left as it was. Memory therefore grows with the
/// input (about the size of its objects' snapshots).
public struct JSONLinesImporter: Sendable {
    /// Creates an importer.
    public init() {}

    /// What an import inserted.
    public struct Report: Sendable, Hashable {
        /// Objects inserted, by entity name.
        public var counts: [String: Int]
        /// All objects inserted.
        public var total: Int { counts.values.reduce(0, +) }
    }

    /// One object read from a line, before references are resolved.
    private struct Pending {
        var line: Int
        var entity: Int
        var ref: String
        var attributes: [Value]
        /// Per relationship: the refs written, or `nil` when the line leaves it out.
        var written: [[String]?]
        /// Per relationship: the resolved targets (indexes of pending objects).
        var targets: [[Int]?]
    }

    /// Imports `data` into `store` (see the type's documentation).
    ///
    /// - Parameter source: a name for the input in messages (a file path, `"-"` for standard input).
    /// - Throws: a ``StrataError`` naming the line: ``StrataError/Code/invalidRequest`` for text
    ///   that is not a JSON object or a duplicate or missing `ref`, ``StrataError/Code/unknownEntity``,
    ///   ``StrataError/Code/unknownKey``, ``StrataError/Code/typeMismatch``,
    ///   ``StrataError/Code/missingValue``, ``StrataError/Code/invalidObjectID`` for a ref no line
    ///   defines or sides of a relationship that disagree; and the store's own errors (a unique
    ///   constraint, ...), with nothing imported.
    @discardableResult
    public func importLines(_ data: Data, source: String = "input", into store: any PersistentStore) throws -> Report {
        let model = store.model
        var entityIndexes: [String: Int] = [:]
        for (i, entity) in model.entities.enumerated() { entityIndexes[entity.name] = i }

        // 1. Parse and check every line on its own.
        var pending: [Pending] = []
        var refs: [String: Int] = [:]
        var lineNumber = 0
        var start = data.startIndex
        while start < data.endIndex {
            let end = data[start...].firstIndex(of: 0x0A) ?? data.endIndex
            lineNumber += 1
            var lineData = data[start..<end]
            start = end < data.endIndex ? data.index(after: end) : data.endIndex
            if lineData.last == 0x0D { lineData = lineData.dropLast() }
            if lineData.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let object = try parse(Data(lineData), line: lineNumber, source: source, model: model, entityIndexes: entityIndexes)
            if let first = refs[object.ref] {
                throw Self.error(.invalidRequest, lineNumber, source, "the ref '\(object.ref)' is already defined on line \(pending[first].line)", ["ref": object.ref])
            }
            refs[object.ref] = pending.count
            pending.append(object)
        }

        // 2. Resolve references (forward ones included).
        for o in pending.indices {
            let entity = model.entities[pending[o].entity]
            for (r, relationship) in entity.relationships.enumerated() {
                guard let written = pending[o].written[r] else { continue }
                var resolved: [Int] = []
                var seen: Set<Int> = []
                for ref in written {
                    guard let target = refs[ref] else {
                        throw Self.error(.invalidObjectID, pending[o].line, source, "\(entity.name).\(relationship.name) names the ref '\(ref)', which no line defines",
                                         ["entity": entity.name, "key": relationship.name, "ref": ref])
                    }
                    let targetEntity = model.entities[pending[target].entity].name
                    guard targetEntity == relationship.destination else {
                        throw Self.error(.typeMismatch, pending[o].line, source,
                                         "\(entity.name).\(relationship.name) holds \(relationship.destination) objects, but '\(ref)' (line \(pending[target].line)) is a \(targetEntity)",
                                         ["entity": entity.name, "key": relationship.name, "ref": ref])
                    }
                    guard seen.insert(target).inserted else {
                        throw Self.error(.invalidRequest, pending[o].line, source, "\(entity.name).\(relationship.name) names '\(ref)' twice",
                                         ["entity": entity.name, "key": relationship.name, "ref": ref])
                    }
                    resolved.append(target)
                }
                pending[o].targets[r] = resolved
            }
        }

        // 3. Inverses: check the sides written on both lines agree, fill the sides left out.
        var derived: [[Int: [Int]]] = Array(repeating: [:], count: pending.count)
        // Long to-many lists are searched often (each of a department's employees asks whether
        // the department names it): as sets, built on first use.
        var sets: [Int: Set<Int>] = [:]
        func names(_ target: Int, _ inverse: Int, _ source: Int, in list: [Int]) -> Bool {
            if list.count <= 16 { return list.contains(source) }
            let key = target << 16 | inverse
            if let set = sets[key] { return set.contains(source) }
            let set = Set(list)
            sets[key] = set
            return set.contains(source)
        }
        for o in pending.indices {
            let entity = model.entities[pending[o].entity]
            for (r, relationship) in entity.relationships.enumerated() {
                guard let targets = pending[o].targets[r] else { continue }
                let destination = model.entities[entityIndexes[relationship.destination]!]
                guard let inverse = destination.relationshipIndex(named: relationship.inverse) else { continue }
                for target in targets {
                    if let back = pending[target].targets[inverse] {
                        guard names(target, inverse, o, in: back) else {
                            throw Self.error(.invalidObjectID, pending[o].line, source,
                                             "\(entity.name).\(relationship.name) names '\(pending[target].ref)', but line \(pending[target].line) does not name '\(pending[o].ref)' in its inverse \(destination.name).\(relationship.inverse)",
                                             ["entity": entity.name, "key": relationship.name, "ref": pending[target].ref])
                        }
                    } else {
                        derived[target][inverse, default: []].append(o)
                    }
                }
            }
        }
        for o in pending.indices {
            let entity = model.entities[pending[o].entity]
            for (r, relationship) in entity.relationships.enumerated() where pending[o].targets[r] == nil {
                let sources = derived[o][r] ?? []
                if !relationship.isToMany && sources.count > 1 {
                    throw Self.error(.invalidObjectID, pending[sources[1]].line, source,
                                     "'\(pending[o].ref)' (line \(pending[o].line)) has the to-one relationship \(entity.name).\(relationship.name), but lines \(pending[sources[0]].line) and \(pending[sources[1]].line) both name it in the inverse",
                                     ["entity": entity.name, "key": relationship.name, "ref": pending[o].ref])
                }
                pending[o].targets[r] = sources
            }
        }

        // 4. Keys, in file order per entity, then one save.
        var ids: [ObjectID?] = Array(repeating: nil, count: pending.count)
        var counts: [String: Int] = [:]
        for (e, entity) in model.entities.enumerated() {
            let members = pending.indices.filter { pending[$0].entity == e }
            guard !members.isEmpty else { continue }
            let keys = try store.obtainPermanentIDs(for: entity.name, count: members.count)
            for (member, id) in zip(members, keys) { ids[member] = id }
            counts[entity.name] = members.count
        }
        var inserts: [Snapshot] = []
        inserts.reserveCapacity(pending.count)
        for o in pending.indices {
            let entity = model.entities[pending[o].entity]
            let relationships: [RelationshipValue] = entity.relationships.enumerated().map { r, relationship in
                let targets = (pending[o].targets[r] ?? []).map { ids[$0]! }
                return relationship.isToMany ? .toMany(targets) : .toOne(targets.first)
            }
            inserts.append(Snapshot(objectID: ids[o]!, version: 0, attributes: pending[o].attributes, relationships: relationships))
        }
        do {
            try store.save(SaveRequest(inserts: inserts))
        } catch var error as StrataError {
            let named = error.location["object"] ?? error.location["objectID"]
            if let named, let o = ids.firstIndex(where: { $0?.uriRepresentation == named }) {
                let line = pending[o].line
                error.message = "line \(line): " + error.message + "; nothing was imported"
                error.location["line"] = String(line)
            } else {
                error.message += "; nothing was imported"
            }
            throw error
        }
        return Report(counts: counts)
    }

    /// Parses and checks one line on its own (references are resolved later).
    private func parse(_ text: Data, line: Int, source: String, model: Model, entityIndexes: [String: Int]) throws -> Pending {
        let node: JSONNode
        do {
            node = try JSONNode.parse(text)
        } catch {
            throw Self.error(.invalidRequest, line, source, "not valid JSON: column \(error.column): \(error.message)", ["column": String(error.column)])
        }
        guard case .object(let members) = node else {
            throw Self.error(.invalidRequest, line, source, "expected a JSON object, found \(node.kindName)", [:])
        }
        for (key, _) in members where !["entity", "ref", "attributes", "relationships"].contains(key) {
            throw Self.error(.unknownKey, line, source, "unknown key '\(key)' (a line has entity, ref, attributes and relationships)", ["key": key])
        }
        guard case .string(let entityName)? = node["entity"] else {
            throw Self.error(.invalidRequest, line, source, "\"entity\" must be a string naming an entity, found \(node["entity"]?.kindName ?? "nothing")", [:])
        }
        guard let e = entityIndexes[entityName] else {
            let known = model.entities.map(\.name).joined(separator: ", ")
            throw Self.error(.unknownEntity, line, source, "the model has no entity '\(entityName)' (it has \(known))", ["entity": entityName])
        }
        let entity = model.entities[e]
        guard case .string(let ref)? = node["ref"], !ref.isEmpty else {
            throw Self.error(.invalidRequest, line, source, "\"ref\" must be a non-empty string, found \(node["ref"]?.kindName ?? "nothing")", ["entity": entityName])
        }
        var attributes = entity.attributes.map { $0.defaultValue ?? .null }
        switch node["attributes"] {
        case nil, .null?: break
        case .object(let values)?:
            for (name, value) in values {
                guard let index = entity.attributeIndex(named: name) else {
                    throw Self.error(.unknownKey, line, source, "'\(entityName)' has no attribute '\(name)'", ["entity": entityName, "key": name, "ref": ref])
                }
                do {
                    attributes[index] = try JSONValueCoding.decode(value, as: entity.attributes[index].type, what: "\(entityName).\(name)")
                } catch let error as StrataError {
                    throw Self.error(error.code, line, source, error.message, ["entity": entityName, "key": name, "ref": ref])
                }
            }
        case let other?:
            throw Self.error(.typeMismatch, line, source, "\"attributes\" must be an object, found \(other.kindName)", ["entity": entityName, "ref": ref])
        }
        for (attribute, value) in zip(entity.attributes, attributes) where value.isNull && !attribute.isOptional {
            throw Self.error(.missingValue, line, source, "the required attribute \(entityName).\(attribute.name) has no value", ["entity": entityName, "key": attribute.name, "ref": ref])
        }
        var written: [[String]?] = Array(repeating: nil, count: entity.relationships.count)
        switch node["relationships"] {
        case nil, .null?: break
        case .object(let values)?:
            for (name, value) in values {
                guard let index = entity.relationshipIndex(named: name) else {
                    throw Self.error(.unknownKey, line, source, "'\(entityName)' has no relationship '\(name)'", ["entity": entityName, "key": name, "ref": ref])
                }
                let relationship = entity.relationships[index]
                let location = ["entity": entityName, "key": name, "ref": ref]
                switch (value, relationship.isToMany) {
                case (.null, false): written[index] = []
                case (.string(let target), false): written[index] = [target]
                case (.array(let items), true):
                    written[index] = try items.map { item in
                        guard case .string(let target) = item else {
                            throw Self.error(.typeMismatch, line, source, "\(entityName).\(name) must list refs (strings), found \(item.kindName)", location)
                        }
                        return target
                    }
                case (_, false):
                    throw Self.error(.typeMismatch, line, source, "\(entityName).\(name) is a to-one relationship: expected a ref (a string) or null, found \(value.kindName)", location)
                case (_, true):
                    throw Self.error(.typeMismatch, line, source, "\(entityName).\(name) is a to-many relationship: expected an array of refs, found \(value.kindName)", location)
                }
            }
        case let other?:
            throw Self.error(.typeMismatch, line, source, "\"relationships\" must be an object, found \(other.kindName)", ["entity": entityName, "ref": ref])
        }
        return Pending(line: line, entity: e, ref: ref, attributes: attributes, written: written, targets: Array(repeating: nil, count: written.count))
    }

    private static func error(_ code: StrataError.Code, _ line: Int, _ source: String, _ message: String, _ location: [String: String]) -> StrataError {
        var location = location
        location["line"] = String(line)
        location["file"] = source
        return StrataError(code, "line \(line): \(message); nothing was imported", location: location)
    }
}
