import Foundation

/// The JSON model format (documented in `docs/ModelFormat.md`).
///
/// ```json
/// {
///   "format": "strata-model", "formatVersion": 1, "version": "v1",
///   "entities": [
///     { "name": "Employee",
///       "attributes": [ { "name": "name", "type": "string", "validation": { "minLength": 1 } },
///                       { "name": "height", "type": "double", "optional": true } ],
///       "relationships": [ { "name": "department", "destination": "Department",
///                            "inverse": "employees", "deleteRule": "nullify" } ] }
///   ]
/// }
/// ```
extension Model {
    /// The format version this build reads and writes.
    public static let jsonFormatVersion: Int64 = 1

    /// Reads a model from the JSON format.
    ///
    /// - Parameter source: the file the data came from, named in errors.
    /// - Throws: ``StrataError/Code/invalidModel`` naming `source`, the JSON path (`$.entities[1].attributes[0].type`)
    ///   and what is wrong; JSON syntax errors give the line and column.
    public init(jsonData data: Data, source: String = "<memory>") throws {
        let root: JSONNode
        do { root = try JSONNode.parse(data) } catch {
            throw StrataError(
                .invalidModel, "\(source) is not valid JSON: \(error)",
                location: ["file": source, "line": String(error.line), "column": String(error.column)])
        }
        do {
            self = try ModelJSONReader(source: source).read(root)
        } catch var error as StrataError {
            error.location["file"] = source
            if error.code == .invalidModel, !error.message.hasPrefix(source) {
                error.message = "\(source): \(error.message)"
            }
            throw error
        }
    }

    /// Reads a model from a JSON file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw StrataError(
                .invalidModel, "cannot read the model file \(url.path)", location: ["file": url.path],
                underlying: "\(error)")
        }
        try self.init(jsonData: data, source: url.path)
    }

    /// The model in the JSON format: stable (same model, same bytes), pretty-printed, with only
    /// the fields that differ from their defaults.
    public func jsonData() -> Data {
        Data(jsonNode().prettyText().utf8)
    }

    /// The model as a ``JSONNode``.
    package func jsonNode() -> JSONNode {
        var root: [(String, JSONNode)] = [
            ("format", .string("strata-model")), ("formatVersion", .integer(Self.jsonFormatVersion)),
        ]
        root.append(("version", .string(versionIdentifier)))
        root.append(("entities", .array(entities.map(Self.node(for:)))))
        if !configurations.isEmpty {
            root.append(
                (
                    "configurations",
                    .object(configurations.keys.sorted().map { ($0, .array(configurations[$0]!.map(JSONNode.string))) })
                ))
        }
        return .object(root)
    }

    private static func node(for entity: Entity) -> JSONNode {
        var members: [(String, JSONNode)] = [("name", .string(entity.name))]
        if let r = entity.renamingIdentifier { members.append(("renamingIdentifier", .string(r))) }
        members.append(
            (
                "attributes",
                .array(
                    entity.attributes.map { a in
                        var m: [(String, JSONNode)] = [("name", .string(a.name)), ("type", .string(a.type.rawValue))]
                        if a.isOptional { m.append(("optional", .bool(true))) }
                        if let d = a.defaultValue { m.append(("default", JSONValueCoding.encode(d))) }
                        if let r = a.renamingIdentifier { m.append(("renamingIdentifier", .string(r))) }
                        if a.preservesValueOnDeletion { m.append(("preservesValueOnDeletion", .bool(true))) }
                        if !a.validation.isEmpty {
                            var v: [(String, JSONNode)] = []
                            if let x = a.validation.minimum { v.append(("min", JSONValueCoding.encode(x))) }
                            if let x = a.validation.maximum { v.append(("max", JSONValueCoding.encode(x))) }
                            if let x = a.validation.minimumLength { v.append(("minLength", .integer(Int64(x)))) }
                            if let x = a.validation.maximumLength { v.append(("maxLength", .integer(Int64(x)))) }
                            if let x = a.validation.pattern { v.append(("pattern", .string(x))) }
                            m.append(("validation", .object(v)))
                        }
                        return .object(m)
                    })
            ))
        if !entity.relationships.isEmpty {
            members.append(
                (
                    "relationships",
                    .array(
                        entity.relationships.map { r in
                            var m: [(String, JSONNode)] = [
                                ("name", .string(r.name)), ("destination", .string(r.destination)),
                                ("inverse", .string(r.inverse)),
                            ]
                            if r.isToMany { m.append(("toMany", .bool(true))) }
                            if r.isOrdered { m.append(("ordered", .bool(true))) }
                            if !r.isOptional { m.append(("optional", .bool(false))) }
                            if r.deleteRule != .nullify { m.append(("deleteRule", .string(r.deleteRule.rawValue))) }
                            if r.minimumCount != 0 { m.append(("minCount", .integer(Int64(r.minimumCount)))) }
                            if r.maximumCount != 0 { m.append(("maxCount", .integer(Int64(r.maximumCount)))) }
                            if let x = r.renamingIdentifier { m.append(("renamingIdentifier", .string(x))) }
                            return .object(m)
                        })
                ))
        }
        if !entity.uniqueConstraints.isEmpty {
            members.append(
                ("uniqueConstraints", .array(entity.uniqueConstraints.map { .array($0.map(JSONNode.string)) })))
        }
        if !entity.indexes.isEmpty {
            members.append(
                (
                    "indexes",
                    .array(
                        entity.indexes.map {
                            .object([
                                ("name", .string($0.name)), ("properties", .array($0.properties.map(JSONNode.string))),
                            ])
                        })
                ))
        }
        return .object(members)
    }
}

/// Reads the JSON model format, tracking the JSON path of every node for error messages.
private struct ModelJSONReader {
    let source: String

    func fail(_ message: String, at path: String) -> StrataError {
        StrataError(.invalidModel, "\(message) at \(path)", location: ["path": path])
    }

    func object(_ node: JSONNode, at path: String, allowed: Set<String>) throws -> [(String, JSONNode)] {
        guard case .object(let members) = node else {
            throw fail("expected an object, found \(node.kindName)", at: path)
        }
        for (key, _) in members where !allowed.contains(key) {
            throw fail("unknown key '\(key)' (allowed: \(allowed.sorted().joined(separator: ", ")))", at: path)
        }
        return members
    }

    func string(_ node: JSONNode?, at path: String, required: Bool = true) throws -> String? {
        guard let node else {
            if required { throw fail("missing required string", at: path) }
            return nil
        }
        guard case .string(let s) = node else { throw fail("expected a string, found \(node.kindName)", at: path) }
        return s
    }

    func bool(_ node: JSONNode?, at path: String, default value: Bool) throws -> Bool {
        guard let node else { return value }
        guard case .bool(let b) = node else { throw fail("expected true or false, found \(node.kindName)", at: path) }
        return b
    }

    func int(_ node: JSONNode?, at path: String) throws -> Int? {
        guard let node else { return nil }
        guard case .integer(let i) = node, let v = Int(exactly: i) else {
            throw fail("expected an integer, found \(node.kindName)", at: path)
        }
        return v
    }

    func array(_ node: JSONNode?, at path: String) throws -> [JSONNode] {
        guard let node else { return [] }
        guard case .array(let items) = node else { throw fail("expected an array, found \(node.kindName)", at: path) }
        return items
    }

    func strings(_ node: JSONNode?, at path: String) throws -> [String] {
        try array(node, at: path).enumerated().map { i, item in try string(item, at: "\(path)[\(i)]")! }
    }

    func read(_ root: JSONNode) throws -> Model {
        let members = try object(
            root, at: "$", allowed: ["format", "formatVersion", "version", "entities", "configurations"])
        let top = JSONNode.object(members)
        if let format = try string(top["format"], at: "$.format", required: false), format != "strata-model" {
            throw fail("'\(format)' is not a Strata model; expected \"strata-model\"", at: "$.format")
        }
        if let formatNode = top["formatVersion"] {
            guard case .integer(let v) = formatNode else {
                throw fail("expected an integer, found \(formatNode.kindName)", at: "$.formatVersion")
            }
            guard v == Model.jsonFormatVersion else {
                throw fail(
                    "format version \(v) is not supported by this Strata (it reads version \(Model.jsonFormatVersion))",
                    at: "$.formatVersion")
            }
        }
        let version = try string(top["version"], at: "$.version", required: false) ?? ""
        guard top["entities"] != nil else { throw fail("missing required array 'entities'", at: "$") }
        let entities = try array(top["entities"], at: "$.entities").enumerated().map {
            try entity($1, at: "$.entities[\($0)]")
        }
        var configurations: [String: [String]] = [:]
        if let node = top["configurations"] {
            for (name, list) in try object(node, at: "$.configurations", allowed: Set(try objectKeys(node))) {
                configurations[name] = try strings(list, at: "$.configurations.\(name)")
            }
        }
        return try Model(versionIdentifier: version, entities: entities, configurations: configurations)
    }

    func objectKeys(_ node: JSONNode) throws -> [String] {
        guard case .object(let members) = node else {
            throw fail("expected an object, found \(node.kindName)", at: "$.configurations")
        }
        return members.map(\.0)
    }

    func entity(_ node: JSONNode, at path: String) throws -> Entity {
        let e = JSONNode.object(
            try object(
                node, at: path,
                allowed: ["name", "attributes", "relationships", "uniqueConstraints", "indexes", "renamingIdentifier"]))
        let name = try string(e["name"], at: "\(path).name")!
        let attributes = try array(e["attributes"], at: "\(path).attributes").enumerated().map {
            try attribute($1, at: "\(path).attributes[\($0)]")
        }
        let relationships = try array(e["relationships"], at: "\(path).relationships").enumerated().map {
            try relationship($1, at: "\(path).relationships[\($0)]")
        }
        let unique = try array(e["uniqueConstraints"], at: "\(path).uniqueConstraints").enumerated().map {
            try strings($1, at: "\(path).uniqueConstraints[\($0)]")
        }
        let indexes = try array(e["indexes"], at: "\(path).indexes").enumerated().map { i, node -> Entity.Index in
            let p = "\(path).indexes[\(i)]"
            let x = JSONNode.object(try object(node, at: p, allowed: ["name", "properties"]))
            return Entity.Index(
                name: try string(x["name"], at: "\(p).name")!,
                properties: try strings(x["properties"], at: "\(p).properties"))
        }
        return Entity(
            name, attributes: attributes, relationships: relationships, uniqueConstraints: unique, indexes: indexes,
            renamingIdentifier: try string(e["renamingIdentifier"], at: "\(path).renamingIdentifier", required: false))
    }

    func attribute(_ node: JSONNode, at path: String) throws -> Attribute {
        let a = JSONNode.object(
            try object(
                node, at: path,
                allowed: [
                    "name", "type", "optional", "default", "renamingIdentifier", "validation",
                    "preservesValueOnDeletion",
                ]))
        let name = try string(a["name"], at: "\(path).name")!
        let typeName = try string(a["type"], at: "\(path).type")!
        guard let type = AttributeType(rawValue: typeName) else {
            throw fail(
                "'\(typeName)' is not an attribute type (use one of: \(AttributeType.allCases.map(\.rawValue).joined(separator: ", ")))",
                at: "\(path).type")
        }
        func value(_ key: String) throws -> Value? {
            guard let node = a[key] else { return nil }
            do { return try JSONValueCoding.decode(node, as: type, what: "the value") } catch let e as StrataError {
                throw fail(e.message, at: "\(path).\(key)")
            }
        }
        var rules = AttributeValidation()
        if let v = a["validation"] {
            let vp = "\(path).validation"
            let r = JSONNode.object(
                try object(v, at: vp, allowed: ["min", "max", "minLength", "maxLength", "pattern"]))
            func bound(_ key: String) throws -> Value? {
                guard let node = r[key] else { return nil }
                do { return try JSONValueCoding.decode(node, as: type, what: "the value") } catch let e as StrataError {
                    throw fail(e.message, at: "\(vp).\(key)")
                }
            }
            rules = AttributeValidation(
                minimum: try bound("min"), maximum: try bound("max"),
                minimumLength: try int(r["minLength"], at: "\(vp).minLength"),
                maximumLength: try int(r["maxLength"], at: "\(vp).maxLength"),
                pattern: try string(r["pattern"], at: "\(vp).pattern", required: false))
        }
        return Attribute(
            name, type, isOptional: try bool(a["optional"], at: "\(path).optional", default: false),
            defaultValue: try value("default"),
            renamingIdentifier: try string(a["renamingIdentifier"], at: "\(path).renamingIdentifier", required: false),
            validation: rules,
            preservesValueOnDeletion: try bool(
                a["preservesValueOnDeletion"], at: "\(path).preservesValueOnDeletion", default: false))
    }

    func relationship(_ node: JSONNode, at path: String) throws -> Relationship {
        let r = JSONNode.object(
            try object(
                node, at: path,
                allowed: [
                    "name", "destination", "inverse", "toMany", "ordered", "optional", "deleteRule", "minCount",
                    "maxCount", "renamingIdentifier",
                ]))
        let ruleName = try string(r["deleteRule"], at: "\(path).deleteRule", required: false) ?? "nullify"
        guard let rule = Relationship.DeleteRule(rawValue: ruleName) else {
            throw fail(
                "'\(ruleName)' is not a delete rule (use one of: \(Relationship.DeleteRule.allCases.map(\.rawValue).joined(separator: ", ")))",
                at: "\(path).deleteRule")
        }
        return Relationship(
            try string(r["name"], at: "\(path).name")!,
            to: try string(r["destination"], at: "\(path).destination")!,
            inverse: try string(r["inverse"], at: "\(path).inverse")!,
            toMany: try bool(r["toMany"], at: "\(path).toMany", default: false),
            ordered: try bool(r["ordered"], at: "\(path).ordered", default: false),
            isOptional: try bool(r["optional"], at: "\(path).optional", default: true),
            deleteRule: rule,
            minimumCount: try int(r["minCount"], at: "\(path).minCount") ?? 0,
            maximumCount: try int(r["maxCount"], at: "\(path).maxCount") ?? 0,
            renamingIdentifier: try string(r["renamingIdentifier"], at: "\(path).renamingIdentifier", required: false))
    }
}
