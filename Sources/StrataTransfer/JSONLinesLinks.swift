import StrataCore

/// The relationships of an import, between object numbers of a ``JSONLinesCatalog``, kept as
/// flat sorted arrays of 8-byte links so that files of millions of lines fit in little memory.
///
/// A relationship of an object is a *slot*, `number × stride + relationship index`. The
/// relationships a line writes are marked in a bit set; their links (`slot << 32 | target`) are
/// kept until ``resolve(model:catalog:source:)`` has checked them, and the links filled in from
/// the inverse side (`slot << 32 | source`) are kept for the import's writing passes.
struct JSONLinesLinks {
    /// Slots per object: the most relationships an entity of the model has.
    let stride: Int
    /// One bit per slot: whether the object's line writes that relationship.
    private var writtenBits: [UInt64] = []
    /// The links lines write, until resolved.
    private var written: [UInt64] = []
    /// Links filled from the inverse, sorted by slot, then by the source's line.
    private(set) var derived: [UInt64] = []

    init(model: Model) {
        stride = max(1, model.entities.map(\.relationships.count).max() ?? 1)
    }

    private func slot(_ number: Int, _ relationship: Int) -> Int { number * stride + relationship }

    /// Records that object `number` writes its relationship `relationship` with `targets`.
    mutating func write(_ number: Int, _ relationship: Int, targets: [Int]) throws {
        let slot = slot(number, relationship)
        guard slot < Int(UInt32.max) else {
            throw StrataError(
                .unsupported, "the input has more objects than an import can hold; split it into several files")
        }
        while writtenBits.count <= slot / 64 { writtenBits.append(0) }
        writtenBits[slot / 64] |= 1 << UInt64(slot % 64)
        for target in targets { written.append(UInt64(slot) << 32 | UInt64(target)) }
    }

    /// Whether object `number`'s line writes its relationship `relationship`.
    func isWritten(_ number: Int, _ relationship: Int) -> Bool {
        let slot = slot(number, relationship)
        return slot / 64 < writtenBits.count && writtenBits[slot / 64] & (1 << UInt64(slot % 64)) != 0
    }

    /// The objects whose lines name object `number` in the inverse of its relationship
    /// `relationship`, which its own line leaves out, in line order.
    func derivedSources(_ number: Int, _ relationship: Int) -> [Int] {
        Self.range(of: slot(number, relationship), in: derived).map { Int(derived[$0] & 0xFFFF_FFFF) }
    }

    /// How many targets object `number` has in its relationship `relationship`, once resolved.
    private func targetCount(_ number: Int, _ relationship: Int) -> Int {
        let slot = slot(number, relationship)
        return isWritten(number, relationship)
            ? Self.range(of: slot, in: written).count : Self.range(of: slot, in: derived).count
    }

    /// The positions of the links of `slot` in `links`, sorted by slot.
    private static func range(of slot: Int, in links: [UInt64]) -> Range<Int> {
        func lowerBound(_ key: UInt64) -> Int {
            var low = 0
            var high = links.count
            while low < high {
                let middle = (low + high) / 2
                if links[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low
        }
        return lowerBound(UInt64(slot) << 32)..<lowerBound(UInt64(slot + 1) << 32)
    }

    /// Checks every link once all lines are read, and fills in the sides lines leave out: every
    /// ref is defined, names an object of the relationship's destination, both sides agree
    /// where both are written, a to-one filled from its inverse gets one target, and every
    /// object meets its relationships' rules (required, minimum and maximum count). Each error
    /// is the one of the earliest line.
    ///
    /// - Throws: the errors ``JSONLinesImporter/importLines(_:source:into:)`` lists for
    ///   relationships, naming the line.
    mutating func resolve(model: Model, catalog: JSONLinesCatalog, source: String) throws {
        var first = FirstError()
        let destinations: [[Int?]] = model.entities.map { entity in
            entity.relationships.map { relationship in model.entities.firstIndex { $0.name == relationship.destination }
            }
        }
        let inverses: [[Int?]] = model.entities.enumerated().map { e, entity in
            entity.relationships.indices.map { r in
                destinations[e][r].flatMap {
                    model.entities[$0].relationshipIndex(named: entity.relationships[r].inverse)
                }
            }
        }
        func describe(_ link: UInt64) -> (owner: Int, relationship: Int, target: Int, entity: Entity) {
            let slot = Int(link >> 32)
            let owner = slot / stride
            return (owner, slot % stride, Int(link & 0xFFFF_FFFF), model.entities[catalog.entity(owner)!])
        }

        // Every ref defined, and of the right entity.
        for link in written {
            let (owner, r, target, entity) = describe(link)
            let line = catalog.line(owner)
            let relationship = entity.relationships[r]
            let location = ["entity": entity.name, "key": relationship.name, "ref": catalog.ref(target)]
            guard let targetEntity = catalog.entity(target) else {
                first.consider(line) {
                    JSONLinesImporter.error(
                        .invalidObjectID, line, source,
                        "\(entity.name).\(relationship.name) names the ref '\(catalog.ref(target))', which no line defines",
                        location)
                }
                continue
            }
            if targetEntity != destinations[catalog.entity(owner)!][r] {
                first.consider(line) {
                    JSONLinesImporter.error(
                        .typeMismatch, line, source,
                        "\(entity.name).\(relationship.name) holds \(relationship.destination) objects, but '\(catalog.ref(target))' (line \(catalog.line(target))) is a \(model.entities[targetEntity].name)",
                        location)
                }
            }
        }
        try first.throwIfAny()

        // Both sides agree where both are written; the others are filled from the inverse.
        written.sort()
        var derived: [UInt64] = []
        for link in written {
            let (owner, r, target, entity) = describe(link)
            guard let inverse = inverses[catalog.entity(owner)!][r] else { continue }
            let back = UInt64(slot(target, inverse)) << 32 | UInt64(owner)
            if isWritten(target, inverse) {
                if Self.contains(back, in: written) { continue }
                let line = catalog.line(owner)
                let relationship = entity.relationships[r]
                first.consider(line) {
                    JSONLinesImporter.error(
                        .invalidObjectID, line, source,
                        "\(entity.name).\(relationship.name) names '\(catalog.ref(target))', but line \(catalog.line(target)) does not name '\(catalog.ref(owner))' in its inverse \(relationship.destination).\(relationship.inverse)",
                        ["entity": entity.name, "key": relationship.name, "ref": catalog.ref(target)])
                }
            } else {
                derived.append(back)
            }
        }
        try first.throwIfAny()
        derived.sort { a, b in
            a >> 32 != b >> 32
                ? a >> 32 < b >> 32 : catalog.line(Int(a & 0xFFFF_FFFF)) < catalog.line(Int(b & 0xFFFF_FFFF))
        }
        self.derived = derived

        // A to-one filled from its inverse names one object.
        var i = 1
        while i < derived.count {
            defer { i += 1 }
            guard derived[i] >> 32 == derived[i - 1] >> 32 else { continue }
            let (owner, r, second, entity) = describe(derived[i])
            let relationship = entity.relationships[r]
            guard !relationship.isToMany else { continue }
            let firstSource = Int(derived[i - 1] & 0xFFFF_FFFF)
            let line = catalog.line(second)
            first.consider(line) {
                JSONLinesImporter.error(
                    .invalidObjectID, line, source,
                    "'\(catalog.ref(owner))' (line \(catalog.line(owner))) has the to-one relationship \(entity.name).\(relationship.name), but lines \(catalog.line(firstSource)) and \(line) both name it in the inverse",
                    ["entity": entity.name, "key": relationship.name, "ref": catalog.ref(owner)])
            }
        }
        try first.throwIfAny()

        // The relationships' rules, on the final targets.
        let ruled: [[Int]] = model.entities.map { entity in
            entity.relationships.indices.filter { r in
                let relationship = entity.relationships[r]
                return relationship.isToMany
                    ? relationship.minimumCount > 0 || relationship.maximumCount > 0 : !relationship.isOptional
            }
        }
        if ruled.contains(where: { !$0.isEmpty }) {
            for number in 0..<catalog.count {
                let e = catalog.entity(number)!
                for r in ruled[e] {
                    let entity = model.entities[e]
                    let line = catalog.line(number)
                    let failures = PropertyRules.failures(
                        ofTargetCount: targetCount(number, r), for: entity.relationships[r],
                        objectID: .temporary(entityName: entity.name))
                    guard !failures.isEmpty else { continue }
                    first.consider(line) {
                        JSONLinesImporter.ruleError(
                            failures, entity: entity, ref: catalog.ref(number), line: line, source: source)
                    }
                }
            }
            try first.throwIfAny()
        }
        written = []
    }

    private static func contains(_ link: UInt64, in sorted: [UInt64]) -> Bool {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < link { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == link
    }

    /// The error of the earliest line among those found.
    private struct FirstError {
        var line = Int.max
        var error: StrataError?

        mutating func consider(_ line: Int, _ make: () -> StrataError) {
            guard line < self.line else { return }
            self.line = line
            error = make()
        }

        func throwIfAny() throws {
            if let error { throw error }
        }
    }
}
