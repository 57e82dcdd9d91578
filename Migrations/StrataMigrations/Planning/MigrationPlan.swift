import Foundation
import StrataCore

/// What a migration will do, computed without touching the store: the chain of steps from the
/// version the store was written with to the target version.
///
/// ```swift
/// let plan = try MigrationPlan.make(versions: company, storeMetadata: metadata)
/// print(plan)          // the dry run
/// ```
public struct MigrationPlan: Sendable, CustomStringConvertible {
    /// The version the store was written with.
    public let storeVersion: Model
    /// The version the store will be at.
    public let targetVersion: Model
    /// The steps, in order (empty when the store is already at the target).
    public let steps: [MigrationStep]

    /// Creates a plan from its steps.
    public init(storeVersion: Model, targetVersion: Model, steps: [MigrationStep]) {
        self.storeVersion = storeVersion
        self.targetVersion = targetVersion
        self.steps = steps
    }

    /// Whether there is nothing to do.
    public var isEmpty: Bool { steps.isEmpty }

    /// Plans the migration of a store with `storeMetadata` to `target` (the current version
    /// when `nil`), walking `versions` from the store's version (found by hash).
    ///
    /// - Throws: ``StrataError/Code/modelMismatch`` when the store's hash is no version of
    ///   `versions` (for example a store written by a newer app) or the store is newer than the
    ///   target; ``StrataError/Code/invalidRequest`` for an unknown target;
    ///   ``StrataError/Code/migrationNotInferable`` for a step inference cannot map (see
    ///   ``MigrationStep/infer(from:to:stage:)``).
    public static func make(
        versions: VersionedModel, storeMetadata: StoreMetadata, target: String? = nil, stages: [MigrationStage] = [],
        url: StoreURL? = nil
    ) throws -> MigrationPlan {
        let subject = url.map { "the store at \($0)" } ?? "the store"
        var location = [
            "storeHash": storeMetadata.modelVersionHash, "storeVersion": storeMetadata.modelVersionIdentifier,
            "model": versions.name,
        ]
        if let url { location["url"] = url.description }
        let targetModel: Model
        if let target {
            guard let model = versions.version(named: target) else {
                throw StrataError(
                    .invalidRequest,
                    "model '\(versions.name)' has no version '\(target)' (it has: \(versions.versions.map(\.versionIdentifier).joined(separator: ", ")))",
                    location: ["version": target, "model": versions.name])
            }
            targetModel = model
        } else {
            targetModel = versions.current
        }
        let targetIndex = versions.versions.firstIndex { $0.versionIdentifier == targetModel.versionIdentifier }!
        if targetModel.matchesVersionHash(storeMetadata.modelVersionHash) {
            return MigrationPlan(storeVersion: targetModel, targetVersion: targetModel, steps: [])
        }
        let candidates = versions.versions.indices.filter {
            versions.versions[$0].matchesVersionHash(storeMetadata.modelVersionHash)
        }
        guard let storeIndex = candidates.last(where: { $0 < targetIndex }) ?? candidates.last else {
            let newest = versions.versions.last!.versionIdentifier
            throw StrataError(
                .modelMismatch,
                "\(subject) was written with model version '\(storeMetadata.modelVersionIdentifier)' (hash \(storeMetadata.modelVersionHash)), which is none of the versions of '\(versions.name)' (\(versions.versions.map(\.versionIdentifier).joined(separator: ", "))); it may be newer than the newest version '\(newest)'. Nothing was changed; open it with a newer model",
                location: location)
        }
        guard storeIndex < targetIndex else {
            throw StrataError(
                .modelMismatch,
                "\(subject) is at version '\(versions.versions[storeIndex].versionIdentifier)', newer than the target '\(targetModel.versionIdentifier)'; migrations only go forward. Nothing was changed",
                location: location)
        }
        var steps: [MigrationStep] = []
        for i in storeIndex..<targetIndex {
            let from = versions.versions[i]
            let to = versions.versions[i + 1]
            let stage = stages.first { $0.from == from.versionIdentifier && $0.to == to.versionIdentifier }
            steps.append(try MigrationStep.infer(from: from, to: to, stage: stage))
        }
        for stage in stages
        where !steps.contains(where: {
            $0.source.versionIdentifier == stage.from && $0.destination.versionIdentifier == stage.to
        }) {
            let known = versions.versions.map(\.versionIdentifier)
            guard known.contains(stage.from), known.contains(stage.to),
                let a = known.firstIndex(of: stage.from), let b = known.firstIndex(of: stage.to), b == a + 1
            else {
                throw StrataError(
                    .invalidRequest,
                    "the custom stage \(stage.from) -> \(stage.to) does not join two consecutive versions of '\(versions.name)' (\(known.joined(separator: ", ")))",
                    location: ["stage": "\(stage.from)->\(stage.to)"])
            }
        }
        return MigrationPlan(storeVersion: versions.versions[storeIndex], targetVersion: targetModel, steps: steps)
    }

    /// The dry run: one line for the versions, then per step its changes.
    ///
    /// ```
    /// migrate from v1 to v3 in 2 steps
    /// step v1 -> v2 (inferred)
    ///   renameAttribute Employee.dateOfBirth: Employee.birthday is renamed to dateOfBirth
    ///   ...
    /// ```
    public var description: String {
        guard !steps.isEmpty else { return "nothing to do: the store is at version \(targetVersion.versionIdentifier)" }
        var lines = [
            "migrate from \(storeVersion.versionIdentifier) to \(targetVersion.versionIdentifier) in \(steps.count) step\(steps.count == 1 ? "" : "s")"
        ]
        for step in steps {
            let kind = step.stage == nil ? "inferred" : "inferred, with a custom stage"
            lines.append("step \(step.name) (\(kind))")
            if step.changes.isEmpty { lines.append("  no structural change") }
            for change in step.changes { lines.append("  \(change)") }
        }
        return lines.joined(separator: "\n")
    }

    /// The plan as compact JSON (UTF-8): `{"from": "v1", "to": "v3", "steps": [{"from", "to",
    /// "stage", "changes": [{"kind", "entity", "property", "detail"}]}]}`.
    public func jsonData() -> Data {
        Data(jsonNode().compactText().utf8)
    }

    /// The plan as a JSON node (see ``jsonData()``); `strata migrate --json` embeds it.
    package func jsonNode() -> JSONNode {
        .object([
            ("from", .string(storeVersion.versionIdentifier)),
            ("to", .string(targetVersion.versionIdentifier)),
            (
                "steps",
                .array(
                    steps.map { step in
                        .object([
                            ("from", .string(step.source.versionIdentifier)),
                            ("to", .string(step.destination.versionIdentifier)),
                            ("stage", .bool(step.stage != nil)),
                            (
                                "changes",
                                .array(
                                    step.changes.map { change in
                                        var members: [(String, JSONNode)] = [
                                            ("kind", .string(change.kind.rawValue)), ("entity", .string(change.entity)),
                                        ]
                                        if let p = change.property { members.append(("property", .string(p))) }
                                        members.append(("detail", .string(change.detail)))
                                        return .object(members)
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }
}
