import Foundation

/// A model with its history: the versions of a `NAME.stratamodel/` directory, oldest first.
///
/// The directory holds one JSON model file per version and a manifest, `versions.json`, that
/// lists the versions in order and names the current one:
///
/// ```
/// Company.stratamodel/
///   versions.json     {"current": "v3", "versions": ["v1", "v2", "v3"]}
///   v1.json           a model whose "version" is "v1"
///   v2.json
///   v3.json
/// ```
///
/// Migrations find the version a store was written with by its hash (``version(withHash:)``)
/// and walk the list from there to ``current``.
public struct VersionedModel: Sendable {
    /// The directory's base name without `.stratamodel` (`"Company"`).
    public let name: String
    /// Every version, oldest first.
    public let versions: [Model]
    /// The version new stores are written with.
    public let current: Model

    /// Builds a versioned model from models in order; `current` defaults to the last one.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` when a version identifier is empty or repeated,
    ///   or `current` names no version.
    public init(name: String, versions: [Model], current: String? = nil) throws {
        guard !versions.isEmpty else {
            throw StrataError(.invalidModel, "model '\(name)' has no version", location: ["model": name])
        }
        var seen: Set<String> = []
        for model in versions {
            guard !model.versionIdentifier.isEmpty else {
                throw StrataError(
                    .invalidModel, "a version of model '\(name)' has no version identifier", location: ["model": name])
            }
            guard seen.insert(model.versionIdentifier).inserted else {
                throw StrataError(
                    .invalidModel, "model '\(name)' declares version '\(model.versionIdentifier)' twice",
                    location: ["model": name, "version": model.versionIdentifier])
            }
        }
        let currentID = current ?? versions.last!.versionIdentifier
        guard let currentModel = versions.first(where: { $0.versionIdentifier == currentID }) else {
            throw StrataError(
                .invalidModel,
                "model '\(name)' names '\(currentID)' as current, but has no such version (it has: \(versions.map(\.versionIdentifier).joined(separator: ", ")))",
                location: ["model": name, "version": currentID])
        }
        self.name = name
        self.versions = versions
        self.current = currentModel
    }

    /// Reads a `NAME.stratamodel/` directory.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` naming the file: a missing manifest, a version
    ///   listed twice, a listed version without its file, a model file the manifest does not
    ///   list, a file whose `version` differs from its name, or any error inside a model file.
    public init(directory url: URL) throws {
        let manifestURL = url.appendingPathComponent("versions.json")
        let name = url.deletingPathExtension().lastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StrataError(.invalidModel, "\(url.path) is not a model directory", location: ["file": url.path])
        }
        let data: Data
        do { data = try Data(contentsOf: manifestURL) } catch {
            throw StrataError(
                .invalidModel, "\(url.path) has no readable versions.json manifest",
                location: ["file": manifestURL.path], underlying: "\(error)")
        }
        let manifest: JSONNode
        do { manifest = try JSONNode.parse(data) } catch {
            throw StrataError(
                .invalidModel, "\(manifestURL.path) is not valid JSON: \(error)",
                location: ["file": manifestURL.path, "line": String(error.line)])
        }
        func fail(_ message: String, _ path: String) -> StrataError {
            StrataError(
                .invalidModel, "\(manifestURL.path): \(message)", location: ["file": manifestURL.path, "path": path])
        }
        guard case .array(let list)? = manifest["versions"] else {
            throw fail("expected an array of version names", "$.versions")
        }
        var names: [String] = []
        for (i, item) in list.enumerated() {
            guard case .string(let version) = item, ModelFileName.isValid(version) else {
                throw fail("expected a version name (letters, digits, '.', '-', '_')", "$.versions[\(i)]")
            }
            guard !names.contains(version) else {
                throw fail("version '\(version)' is listed twice", "$.versions[\(i)]")
            }
            names.append(version)
        }
        guard !names.isEmpty else { throw fail("the list of versions is empty", "$.versions") }
        var current: String?
        if let node = manifest["current"] {
            guard case .string(let c) = node else { throw fail("expected the current version's name", "$.current") }
            current = c
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        for file in files where file.hasSuffix(".json") && file != "versions.json" {
            let version = String(file.dropLast(5))
            guard names.contains(version) else {
                throw StrataError(
                    .invalidModel,
                    "\(url.appendingPathComponent(file).path) is not listed in versions.json; add '\(version)' to the list or remove the file",
                    location: ["file": url.appendingPathComponent(file).path])
            }
        }
        var models: [Model] = []
        for version in names {
            let fileURL = url.appendingPathComponent(version + ".json")
            guard FileManager.default.fileExists(atPath: fileURL.path) else {
                throw StrataError(
                    .invalidModel, "version '\(version)' is listed in versions.json but \(fileURL.path) is missing",
                    location: ["file": fileURL.path, "version": version])
            }
            let model = try Model(contentsOf: fileURL)
            guard model.versionIdentifier == version else {
                throw StrataError(
                    .invalidModel,
                    "\(fileURL.path) declares version '\(model.versionIdentifier)', but its file name says '\(version)'",
                    location: ["file": fileURL.path, "path": "$.version"])
            }
            models.append(model)
        }
        do { try self.init(name: name, versions: models, current: current) } catch var error as StrataError {
            error.location["file"] = manifestURL.path
            throw error
        }
    }

    /// Writes the directory: the manifest and one file per version. Existing files are replaced.
    public func write(to url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let manifest = JSONNode.object([
                ("current", .string(current.versionIdentifier)),
                ("versions", .array(versions.map { .string($0.versionIdentifier) })),
            ])
            try Data(manifest.prettyText().utf8).write(
                to: url.appendingPathComponent("versions.json"), options: .atomic)
            for model in versions {
                try model.jsonData().write(
                    to: url.appendingPathComponent(model.versionIdentifier + ".json"), options: .atomic)
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(
                .io, "cannot write the model directory \(url.path)", location: ["file": url.path],
                underlying: "\(error)")
        }
    }

    /// The version whose structure has `hash`, or `nil`.
    public func version(withHash hash: String) -> Model? { versions.first { $0.matchesVersionHash(hash) } }

    /// The version named `identifier`, or `nil`.
    public func version(named identifier: String) -> Model? { versions.first { $0.versionIdentifier == identifier } }
}

/// Rules for version names used as file names.
enum ModelFileName {
    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E
                    || b == 0x2D || b == 0x5F
            } && name != "versions" && !name.hasPrefix(".")
    }
}
