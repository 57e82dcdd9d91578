import Foundation
import StrataCore

extension StoreDescription {
    /// The keys every store entry of a configuration file may have. A backend adds the
    /// ``StoreBackendOption/configFileKey`` of its options (`sqliteSynchronous`, `lmdbMapSize`).
    static let configFileKeys: [String] = [
        "url", "configuration", "readOnly", "createIfMissing", "migratesAutomatically",
        "infersMappingAutomatically", "options",
    ]

    /// Reads the store descriptions of a JSON configuration file (format in docs/Container.md),
    /// checking each store's options against the backend `registry` has for its scheme:
    ///
    /// ```json
    /// {
    ///   "stores": [
    ///     { "url": "sqlite:/var/data/app.sqlite", "sqliteSynchronous": "full" },
    ///     { "url": "lmdb:/var/data/archive", "configuration": "Archive", "lmdbMapSize": 268435456 }
    ///   ]
    /// }
    /// ```
    ///
    /// - Throws: ``StrataError/Code/invalidConfiguration`` naming the file, the line and column
    ///   (bad JSON) or the JSON path (`$.stores[1].readOnly`) and the offending value;
    ///   ``StrataError/Code/invalidStoreURL`` for a malformed URL, with the file and path;
    ///   ``StrataError/Code/unknownStoreScheme`` for a scheme `registry` lacks;
    ///   ``StrataError/Code/invalidOption`` for an option the backend does not have or a value it
    ///   refuses (`location` has the file, path, option, backend and value);
    ///   ``StrataError/Code/io`` when the file cannot be read.
    public static func load(contentsOf file: URL, registry: StoreRegistry) throws -> [StoreDescription] {
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw StrataError(.io, "cannot read the store configuration file \(file.path)", location: ["file": file.path], underlying: "\(error)")
        }
        return try parse(data, file: file.path, registry: registry)
    }

    /// Parses the text of a configuration file; `file` names it in errors. The rest is
    /// ``load(contentsOf:registry:)``.
    public static func parse(_ data: Data, file: String, registry: StoreRegistry) throws -> [StoreDescription] {
        let root: JSONNode
        do { root = try JSONNode.parse(data) } catch {
            throw StrataError(.invalidConfiguration, "\(file) is not valid JSON: \(error.message) at line \(error.line), column \(error.column)",
                              location: ["file": file, "line": String(error.line), "column": String(error.column)])
        }
        let reader = ConfigFileReader(file: file, registry: registry)
        guard case .object(let top) = root else { throw reader.fail("expected an object with a \"stores\" array, found \(root.kindName)", at: "$") }
        for (key, _) in top where key != "stores" {
            throw reader.fail("unknown key '\(key)'; the top level has only \"stores\"", at: "$.\(key)")
        }
        guard let storesNode = root["stores"] else { throw reader.fail("missing required array \"stores\"", at: "$") }
        guard case .array(let entries) = storesNode else { throw reader.fail("expected an array of stores, found \(storesNode.kindName)", at: "$.stores", value: storesNode) }
        guard !entries.isEmpty else { throw reader.fail("the list of stores is empty; give at least one", at: "$.stores") }
        return try entries.enumerated().map { try reader.description($1, at: "$.stores[\($0)]") }
    }
}

/// Reads one configuration file, naming the file and JSON path in every error.
struct ConfigFileReader {
    let file: String
    let registry: StoreRegistry

    func fail(_ message: String, at path: String, value: JSONNode? = nil) -> StrataError {
        var location = ["file": file, "path": path]
        if let value { location["value"] = value.compactText() }
        return StrataError(.invalidConfiguration, "\(file): \(path): \(message)", location: location)
    }

    func description(_ node: JSONNode, at path: String) throws -> StoreDescription {
        guard case .object(let members) = node else { throw fail("expected a store object, found \(node.kindName)", at: path, value: node) }
        guard let urlNode = node["url"] else { throw fail("missing required key \"url\"", at: path) }
        let urlText = try string(urlNode, at: "\(path).url")
        var description: StoreDescription
        let backend: any StoreBackend
        do {
            description = StoreDescription(url: try StoreURL.parse(urlText))
            backend = try registry.backend(for: description.url.scheme)
        } catch let error as StrataError {
            throw located(error, at: "\(path).url")
        }
        let shorthands = (backend.supportedOptions ?? []).filter { $0.configFileKey != nil }
        let keys = StoreDescription.configFileKeys + shorthands.compactMap(\.configFileKey)
        for (key, _) in members where !keys.contains(key) {
            throw fail("unknown key '\(key)'; a store of scheme \(backend.scheme) has: \(keys.joined(separator: ", "))", at: "\(path).\(key)")
        }
        if let n = node["configuration"] { description.configuration = try string(n, at: "\(path).configuration") }
        if let n = node["readOnly"] { description.isReadOnly = try bool(n, at: "\(path).readOnly") }
        if let n = node["createIfMissing"] { description.createsIfMissing = try bool(n, at: "\(path).createIfMissing") }
        if let n = node["migratesAutomatically"] { description.migratesAutomatically = try bool(n, at: "\(path).migratesAutomatically") }
        if let n = node["infersMappingAutomatically"] { description.infersMappingAutomatically = try bool(n, at: "\(path).infersMappingAutomatically") }
        if let n = node["options"] {
            guard case .object(let options) = n else { throw fail("expected an object of option names and values, found \(n.kindName)", at: "\(path).options", value: n) }
            for (name, value) in options {
                let text = try optionText(value, at: "\(path).options.\(name)")
                try check(backend, name, text, at: "\(path).options.\(name)", value: value)
                description.options[name] = text
            }
        }
        for option in shorthands {
            guard let key = option.configFileKey, let n = node[key] else { continue }
            let text = try optionText(n, at: "\(path).\(key)")
            try check(backend, option.name, text, at: "\(path).\(key)", value: n)
            description.options[option.name] = text
        }
        return description
    }

    /// Checks one option against `backend`, naming the file, path and value in the error.
    private func check(_ backend: any StoreBackend, _ name: String, _ text: String, at path: String, value: JSONNode) throws {
        do { try backend.checkOptions([name: text], for: nil) } catch let error as StrataError {
            var error = located(error, at: path)
            if error.location["value"] != nil { error.location["value"] = value.compactText() }
            throw error
        }
    }

    /// `error` with the file and JSON path added to its location and message.
    private func located(_ error: StrataError, at path: String) -> StrataError {
        var error = error
        error.location["file"] = file
        error.location["path"] = path
        error.message = "\(file): \(path): \(error.message)"
        return error
    }

    func string(_ node: JSONNode, at path: String) throws -> String {
        guard case .string(let text) = node else { throw fail("expected a string, found \(node.kindName)", at: path, value: node) }
        return text
    }

    func bool(_ node: JSONNode, at path: String) throws -> Bool {
        guard case .bool(let flag) = node else { throw fail("expected true or false, found \(node.kindName)", at: path, value: node) }
        return flag
    }

    /// An option value as the backend reads it: a string as is, an integer or a boolean as text.
    func optionText(_ node: JSONNode, at path: String) throws -> String {
        switch node {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        default: throw fail("expected a string, an integer or a boolean, found \(node.kindName)", at: path, value: node)
        }
    }
}
