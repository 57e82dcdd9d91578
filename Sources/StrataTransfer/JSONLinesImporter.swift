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
/// **Checked, then written.** The input is read twice. The first pass checks every line and
/// writes nothing: JSON and UTF-8, entities, keys and types, the model's rules (those a
/// context's save checks: required values, minimum and maximum, lengths, patterns, relationship
/// counts, unique constraints within the file and against the store), and that every reference
/// resolves within the file. On the first problem the import throws a ``StrataError`` whose
/// message starts with `line N:` (and whose `location` has `line`), and the store is left as it
/// was. The second pass reads the input again and inserts the objects in batches of
/// ``batchSize``, one save each; relationships naming objects of later batches are set by an
/// update once every object is in (and ordered relationships are put back in order), as
/// ``StoreCopier`` does. Should the store fail during that pass (a full disk), the objects
/// inserted so far are deleted again before the error is thrown. A process killed during the
/// second pass leaves the batches saved so far.
///
/// Memory: what the first pass learns, about 30 bytes per object plus its ref, and 8 bytes per
/// relationship link (the links a line writes, until checked, and those filled from inverses),
/// and one batch of objects; not the input.
public struct JSONLinesImporter: Sendable {
    /// Objects per save in the writing pass.
    public var batchSize: Int

    /// Creates an importer saving `batchSize` objects at a time.
    public init(batchSize: Int = 1_000) {
        self.batchSize = max(1, batchSize)
    }

    /// What an import inserted.
    public struct Report: Sendable, Hashable {
        /// Objects inserted, by entity name.
        public var counts: [String: Int]
        /// All objects inserted.
        public var total: Int { counts.values.reduce(0, +) }
    }

    /// Imports `data` into `store` (see the type's documentation).
    ///
    /// - Parameters:
    ///   - source: a name for the input in messages (a file path, `"-"` for standard input).
    ///   - progress: called now and then: in ``checkingPhase`` with the bytes checked of the
    ///     input's size, then in ``importingPhase`` with the objects written of those to write.
    /// - Throws: a ``StrataError`` naming the line: ``StrataError/Code/invalidRequest`` for text
    ///   that is not UTF-8 or not a JSON object (with the byte offset), a number out of range,
    ///   or a duplicate or missing `ref`; ``StrataError/Code/unknownEntity``,
    ///   ``StrataError/Code/unknownKey``, ``StrataError/Code/typeMismatch``,
    ///   ``StrataError/Code/missingValue``, ``StrataError/Code/validationFailed`` for a value or
    ///   a relationship the model's rules refuse, ``StrataError/Code/uniqueConstraint``,
    ///   ``StrataError/Code/invalidObjectID`` for a ref no line defines or sides of a
    ///   relationship that disagree; and the store's own errors, with nothing imported.
    @discardableResult
    public func importLines(
        _ data: Data, source: String = "input", into store: any PersistentStore,
        progress: (StoreProgress) -> Void = { _ in }
    ) throws -> Report {
        try run(.data(data), source: source, into: store, progress: progress)
    }

    /// Imports the JSON Lines file at `file` into `store`, reading it twice (see the type's
    /// documentation); the file must not change meanwhile. Throws as ``importLines(_:source:into:)``,
    /// and ``StrataError/Code/io`` when the file cannot be read.
    @discardableResult
    public func importLines(
        contentsOf file: URL, source: String? = nil, into store: any PersistentStore,
        progress: (StoreProgress) -> Void = { _ in }
    ) throws -> Report {
        try run(.file(file), source: source ?? file.path, into: store, progress: progress)
    }

    /// The phase of ``StoreProgress`` while the first pass checks the input; its units are bytes.
    public static let checkingPhase = "checking"
    /// The phase of ``StoreProgress`` while the second pass writes; its units are objects.
    public static let importingPhase = "importing"

    private func run(
        _ input: JSONLinesInput, source: String, into store: any PersistentStore, progress: (StoreProgress) -> Void
    ) throws -> Report {
        var plan = try check(input, source: source, store: store, progress: progress)
        var writer = JSONLinesWriting(plan: plan, store: store, source: source, batchSize: batchSize)
        do {
            try writer.write(input) { inserted in
                progress(StoreProgress(phase: Self.importingPhase, completed: inserted, total: plan.catalog.count))
            }
        } catch let failure {
            var error = failure as? StrataError ?? StrataError(.io, "\(failure)")
            do {
                try writer.removeInserted()
                if !error.message.hasSuffix("nothing was imported") { error.message += "; nothing was imported" }
            } catch let removal {
                error.message +=
                    "; removing the \(writer.insertedCount) objects imported before the failure failed too (\(removal)), so the store holds them"
                throw error
            }
            throw namingTheLine(of: error, input: input, source: source, store: store)
        }
        plan.counts = plan.counts.filter { $0.value > 0 }
        return Report(counts: plan.counts)
    }

    /// `error`, or, when it is a store's refusal of a unique value (another writer saved the
    /// value after the first pass checked it), the first pass's own report of it, run again now
    /// that the store holds that value: the line, the value and the key, where the store's
    /// message names none of them. Called with nothing of the import left in the store.
    private func namingTheLine(
        of error: StrataError, input: JSONLinesInput, source: String, store: any PersistentStore
    ) -> StrataError {
        guard error.code == .uniqueConstraint, error.location["line"] == nil else { return error }
        do {
            _ = try check(input, source: source, store: store, progress: { _ in })
        } catch let named as StrataError where named.code == .uniqueConstraint {
            return named
        } catch {}
        return error
    }

    /// The first pass: reads and checks every line, writing nothing.
    private func check(
        _ input: JSONLinesInput, source: String, store: any PersistentStore, progress: (StoreProgress) -> Void
    ) throws -> JSONLinesPlan {
        let model = store.model
        let size = input.byteCount
        var plan = JSONLinesPlan(model: model)
        var seenKeys: [[[[Value]: Int]]] = model.entities.map {
            Array(repeating: [:], count: $0.uniqueConstraints.count)
        }
        try input.forEachLine { line in
            if line.number % 1_000 == 0 {
                progress(StoreProgress(phase: Self.checkingPhase, completed: line.offset, total: size))
            }
            let object = try JSONLinesObject(line, source: source, model: model, entityIndexes: plan.entityIndexes)
            let entity = model.entities[object.entity]
            let failures = try PropertyRules.failures(
                ofAttributes: object.attributes, of: entity, objectID: .temporary(entityName: entity.name))
            if !failures.isEmpty {
                throw Self.ruleError(failures, entity: entity, ref: object.ref, line: line.number, source: source)
            }
            for (c, constraint) in entity.uniqueConstraints.enumerated() {
                let indexes = constraint.map { entity.attributeIndex(named: $0)! }
                let key = indexes.map { object.attributes[$0] }
                if key.contains(where: \.isNull) { continue }
                let shown = key.map(\.description).joined(separator: ", ")
                let location = ["entity": entity.name, "key": constraint.joined(separator: ","), "ref": object.ref]
                if let other = seenKeys[object.entity][c][key] {
                    throw Self.error(
                        .uniqueConstraint, line.number, source,
                        "\(shown) is also used by line \(other); '\(entity.name)' requires \(constraint.joined(separator: ", ")) to be unique",
                        location)
                }
                seenKeys[object.entity][c][key] = line.number
                let predicate = ObjectPredicate.and(
                    zip(constraint, key).map { .comparison(.init(.keyPath(PropertyPath($0)), .equal, .constant($1))) })
                if try store.fetch(FetchRequest(entityName: entity.name, predicate: predicate, resultType: .count))
                    .count() > 0
                {
                    throw Self.error(
                        .uniqueConstraint, line.number, source,
                        "\(shown) is already used by an object of the store; '\(entity.name)' requires \(constraint.joined(separator: ", ")) to be unique",
                        location)
                }
            }
            let (number, duplicateOf) = try plan.catalog.define(object.ref, entity: object.entity, line: line.number)
            if let duplicateOf {
                throw Self.error(
                    .invalidRequest, line.number, source,
                    "the ref '\(object.ref)' is already defined on line \(duplicateOf)", ["ref": object.ref])
            }
            plan.counts[entity.name, default: 0] += 1
            for (r, refs) in object.written.enumerated() {
                guard let refs else { continue }
                var targets: [Int] = []
                targets.reserveCapacity(refs.count)
                for ref in refs { targets.append(try plan.catalog.mention(ref)) }
                try plan.links.write(number, r, targets: targets)
            }
        }
        try plan.links.resolve(model: model, catalog: plan.catalog, source: source)
        return plan
    }

    /// The error of an object that breaks the model's rules.
    static func ruleError(_ failures: [ValidationFailure], entity: Entity, ref: String, line: Int, source: String)
        -> StrataError
    {
        let reasons = failures.map { "\(entity.name).\($0.property ?? "") \($0.reason)" }.joined(separator: "; ")
        var error = error(
            .validationFailed, line, source, "'\(ref)' breaks the model's rules: \(reasons)",
            ["entity": entity.name, "key": failures[0].property ?? "", "ref": ref])
        error.validationFailures = failures
        return error
    }

    static func error(
        _ code: StrataError.Code, _ line: Int, _ source: String, _ message: String, _ location: [String: String]
    ) -> StrataError {
        var location = location
        location["line"] = String(line)
        location["file"] = source
        return StrataError(code, "line \(line): \(message); nothing was imported", location: location)
    }
}

/// What the checking pass of an import learned, for the writing pass.
struct JSONLinesPlan {
    let model: Model
    let entityIndexes: [String: Int]
    var catalog = JSONLinesCatalog()
    var links: JSONLinesLinks
    /// Objects by entity name.
    var counts: [String: Int] = [:]

    init(model: Model) {
        self.model = model
        var indexes: [String: Int] = [:]
        for (i, entity) in model.entities.enumerated() { indexes[entity.name] = i }
        entityIndexes = indexes
        links = JSONLinesLinks(model: model)
        counts = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name, 0) })
    }
}
