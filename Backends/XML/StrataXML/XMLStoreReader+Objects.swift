import CStrataXML
import Foundation
import StrataCore

/// How the loader turns one XML attribute of an object element into a stored value, decided once
/// per entity from the model: one plain entry per slot (no payloads to unpack), so the per-object
/// loop only switches on ``kind``.
struct XMLSlotReader {
    /// What the slot holds.
    enum Kind: UInt8 {
        /// An integer attribute, range-checked against ``minimum`` and ``maximum``.
        case integer
        /// A double attribute.
        case double
        /// A string attribute (its text may hold `&#38;` to decode).
        case string
        /// Any other attribute type, parsed by ``XMLFormat/parseValue(_:as:)``.
        case other
        /// A relationship.
        case relationship
    }

    /// What the slot holds.
    let kind: Kind
    /// The index of the attribute in ``Entity/attributes`` (or of the relationship in
    /// ``Entity/relationships``).
    let index: Int
    /// The smallest value an integer attribute's width allows.
    let minimum: Int64
    /// The largest value an integer attribute's width allows.
    let maximum: Int64

    /// The reader of `slot`.
    init(_ slot: XMLEntityLayout.Slot, layout: XMLEntityLayout) {
        var range: ClosedRange<Int64> = .min ... .max
        switch slot.kind {
        case .relationship(let r):
            kind = .relationship
            index = r
        case .attribute(let a):
            index = a
            let type = layout.attributeTypes[a]
            switch type {
            case .integer16, .integer32, .integer64:
                kind = .integer
                range = type.integerRange!
            case .double: kind = .double
            case .string: kind = .string
            default: kind = .other
            }
        }
        minimum = range.lowerBound
        maximum = range.upperBound
    }
}

/// Why an object's attribute could not be read (the message is built only on failure).
enum XMLObjectProblem {
    /// The attribute at this index of the start tag is not a valid value of its slot.
    case invalidValue(slot: Int, attributeIndex: Int)
    /// The attribute at this index of the start tag has a namespace prefix.
    case prefixed(attributeIndex: Int)
    /// The attribute at this index is not the fast path's (a base64 string, an unknown name): the
    /// general path reads or reports it.
    case unresolved(attributeIndex: Int)
}

extension XMLLoadState {
    /// The reader of the entity named `localname` (an interned pointer), or `nil` after reporting
    /// an unknown entity. The reader comes unretained: ``entityReaders`` keeps every reader
    /// alive for the parse.
    @inline(__always)
    func entityReader(_ localname: UnsafePointer<UInt8>) -> Unmanaged<XMLEntityReader>? {
        if localname == lastEntityName, let lastEntityReader { return lastEntityReader }
        return findEntityReader(localname)
    }

    /// ``entityReader(_:)`` for a name other than the last one's.
    func findEntityReader(_ localname: UnsafePointer<UInt8>) -> Unmanaged<XMLEntityReader>? {
        guard let layout else { return nil }
        let e: Int
        if let last = lastEntityReader?.takeUnretainedValue(), strcmp(localname, last.layout.cName) == 0 {
            e = layout.entityIndexByName[last.entity.name]!
        } else {
            guard let found = layout.entityIndexByName[String(cString: localname)] else {
                let name = String(cString: localname)
                fail(
                    "unknown entity <\(name)>; the model has: \(layout.entities.map(\.entity.name).sorted().joined(separator: ", "))",
                    entity: name)
                return nil
            }
            e = found
        }
        let reader = entityReaders[e]
        if reader.rows.pointee.plannedRows == 0 {
            // The file's sequence bounds the number of objects a file Strata wrote holds (keys
            // run from 1 and are never reused), and no object takes fewer than 24 bytes of it.
            reader.rows.pointee.reserve(
                rows: Int(clamping: max(1, min(sequences[e] - 1, identity.size / 24))),
                fileSize: Int(clamping: max(0, identity.size)))
        }
        lastEntityName = isInterned(localname) ? localname : nil
        lastEntityReader = Unmanaged.passUnretained(reader)
        return lastEntityReader
    }

    /// Reads one object element into its entity's columns: the hot path of a load.
    func startObject(
        _ localname: UnsafePointer<UInt8>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        guard let unretained = entityReader(localname) else { return }
        unretained._withUnsafeGuaranteedRef { reader in
            // `canonicalCount` is 0 until the order is learned: an element with no attributes
            // must not take the canonical path then.
            if attributeCount == reader.canonicalCount, attributeCount > 0, let attributes,
                startCanonicalObject(reader: reader, attributes: attributes)
            {
                return
            }
            startObjectInAnyOrder(reader: reader, attributeCount: attributeCount, attributes: attributes)
            if reader.canonicalCount == 0, !failed, attributeCount == reader.readers.count + 2, let attributes {
                reader.learnCanonicalOrder(attributes)
            }
        }
    }

    /// Reads an object element whose start tag lists `_pk`, `_version` and every property in the
    /// canonical order, under the names ``XMLEntityReader/learnCanonicalOrder(_:)`` learned (the
    /// form of every object with no `nil` in a file Strata wrote): each value goes to its column
    /// with no name resolution and no check that the column is still free (every column gets
    /// exactly one value). Returns `false`, having read nothing, when the names are not those;
    /// otherwise reads the object or reports what is wrong with it.
    @inline(__always)
    func startCanonicalObject(reader: XMLEntityReader, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>) -> Bool
    {
        let names = reader.canonicalNames
        let count = reader.canonicalCount
        for i in 0..<count where attributes[i * 5] != names[i] || attributes[i * 5 + 1] != nil { return false }
        let rows = reader.rows
        let row = rows.pointee.count
        let readers = reader.readers
        let isUnorderedToMany = reader.isUnorderedToMany
        let powers = UnsafePointer(powerTable)
        @inline(__always) func text(_ i: Int) -> UnsafeBufferPointer<UInt8> {
            let start = attributes[i * 5 + 3]!
            return UnsafeBufferPointer(start: start, count: attributes[i * 5 + 4]! - start)
        }
        guard let key = XMLFormat.parseInteger(text(0)) else {
            reportObjectProblem(
                .invalidValue(slot: -1, attributeIndex: 0), reader: reader, attributeCount: count,
                attributes: attributes)
            return true
        }
        guard let version = XMLFormat.parseInteger(text(1)), version >= 0 else {
            reportObjectProblem(
                .invalidValue(slot: -2, attributeIndex: 1), reader: reader, attributeCount: count,
                attributes: attributes)
            return true
        }
        let problem: XMLObjectProblem? = rows.pointee.columns.withUnsafeMutableBufferPointer { columnBuffer in
            let columns = columnBuffer.baseAddress!
            for slot in 0..<readers.count {
                let i = slot + 2
                let text = text(i)
                let plan = readers[slot]
                let column = columns + plan.index
                switch plan.kind {
                case .integer:
                    guard let v = XMLFormat.parseInteger(text), v >= plan.minimum && v <= plan.maximum else {
                        return .invalidValue(slot: slot, attributeIndex: i)
                    }
                    column.pointee.integerBuffer.appendAssumingUnique(v)
                case .double:
                    guard let v = XMLFormat.parseDouble(text, powers: powers) else {
                        return .invalidValue(slot: slot, attributeIndex: i)
                    }
                    column.pointee.doubleBuffer.appendAssumingUnique(v)
                case .string:
                    appendString(text, to: column)
                case .other:
                    guard appendOther(text, as: reader.layout.attributeTypes[plan.index], to: column) else {
                        return .invalidValue(slot: slot, attributeIndex: i)
                    }
                case .relationship:
                    let r = plan.index
                    let appended = rows.pointee.relationships.withUnsafeMutableBufferPointer { relationships in
                        relationships[r].append(parsing: text, sorted: isUnorderedToMany[r])
                    }
                    guard appended else { return .invalidValue(slot: slot, attributeIndex: i) }
                }
            }
            return nil
        }
        if let problem {
            reader.discardRow(row)
            reportObjectProblem(problem, reader: reader, attributeCount: count, attributes: attributes)
            return true
        }
        let attributeColumns = rows.pointee.columns.count
        let relationshipColumns = rows.pointee.relationships.count
        _ = reader.finishRow(
            row, attributesGiven: attributeColumns, relationshipsGiven: relationshipColumns, key: key, version: version)
        return true
    }

    /// Reads one object element whose attributes may come in any order, may leave properties
    /// out, and may need the general path (``startObjectGenerally(reader:attributeCount:attributes:)``).
    func startObjectInAnyOrder(
        reader: XMLEntityReader, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        let rows = reader.rows
        let row = rows.pointee.count
        let readers = reader.readers
        let names = reader.internedNames
        let slotCount = readers.count
        let keySlot = reader.keySlot
        let versionSlot = reader.versionSlot
        let isUnorderedToMany = reader.isUnorderedToMany
        let powers = UnsafePointer(powerTable)
        var key: Int64?
        var version: Int64?
        var attributesGiven = 0
        var relationshipsGiven = 0
        let problem: XMLObjectProblem? = rows.pointee.columns.withUnsafeMutableBufferPointer { columnBuffer in
            let columns = columnBuffer.baseAddress!
            var expected = 0
            for i in 0..<attributeCount {
                let base = attributes! + i * 5
                let name = base[0]!
                if base[1] != nil { return .prefixed(attributeIndex: i) }
                let start = base[3]!
                let text = UnsafeBufferPointer(start: start, count: base[4]! - start)
                let slot: Int
                if expected < slotCount && name == names[expected] {
                    slot = expected
                } else if name == names[keySlot] {
                    guard let k = XMLFormat.parseInteger(text) else {
                        return .invalidValue(slot: -1, attributeIndex: i)
                    }
                    key = k
                    continue
                } else if name == names[versionSlot] {
                    guard let v = XMLFormat.parseInteger(text), v >= 0 else {
                        return .invalidValue(slot: -2, attributeIndex: i)
                    }
                    version = v
                    continue
                } else if let found = resolveSlot(name, reader: reader) {
                    if found == -1 {
                        guard let k = XMLFormat.parseInteger(text) else {
                            return .invalidValue(slot: -1, attributeIndex: i)
                        }
                        key = k
                        continue
                    }
                    if found == -2 {
                        guard let v = XMLFormat.parseInteger(text), v >= 0 else {
                            return .invalidValue(slot: -2, attributeIndex: i)
                        }
                        version = v
                        continue
                    }
                    slot = found
                } else {
                    return .unresolved(attributeIndex: i)
                }
                expected = slot + 1
                // libxml2 refuses an attribute given twice and a name resolved here is the
                // property's own, so a column gets at most one value per object; the count
                // checks only hand anything else to the general path, which reports it.
                let plan = readers[slot]
                let column = columns + plan.index
                switch plan.kind {
                case .integer:
                    guard column.pointee.integerBuffer.count == row else { return .unresolved(attributeIndex: i) }
                    guard let v = XMLFormat.parseInteger(text), v >= plan.minimum && v <= plan.maximum else {
                        return .invalidValue(slot: slot, attributeIndex: i)
                    }
                    column.pointee.integerBuffer.appendAssumingUnique(v)
                case .double:
                    guard column.pointee.doubleBuffer.count == row else { return .unresolved(attributeIndex: i) }
                    guard let v = XMLFormat.parseDouble(text, powers: powers) else {
                        return .invalidValue(slot: slot, attributeIndex: i)
                    }
                    column.pointee.doubleBuffer.appendAssumingUnique(v)
                case .string:
                    guard column.pointee.stringCount == row else { return .unresolved(attributeIndex: i) }
                    appendString(text, to: column)
                case .other:
                    guard column.pointee.count == row else { return .unresolved(attributeIndex: i) }
                    guard appendOther(text, as: reader.layout.attributeTypes[plan.index], to: column) else {
                        return .invalidValue(slot: slot, attributeIndex: i)
                    }
                case .relationship:
                    let r = plan.index
                    let appended: Bool? = rows.pointee.relationships.withUnsafeMutableBufferPointer { relationships in
                        guard relationships[r].count == row else { return nil }
                        return relationships[r].append(parsing: text, sorted: isUnorderedToMany[r])
                    }
                    guard let appended else { return .unresolved(attributeIndex: i) }
                    guard appended else { return .invalidValue(slot: slot, attributeIndex: i) }
                    relationshipsGiven += 1
                    continue
                }
                attributesGiven += 1
            }
            return nil
        }
        if let problem {
            reader.discardRow(row)
            return reportObjectProblem(problem, reader: reader, attributeCount: attributeCount, attributes: attributes!)
        }
        finishObject(
            reader: reader, row: row, key: key, version: version, attributesGiven: attributesGiven,
            relationshipsGiven: relationshipsGiven)
    }

    /// Checks the object just read as row `row` has its key, its version and every required
    /// value, and records it (or reports what is missing). `attributesGiven` and
    /// `relationshipsGiven` count the columns it filled (`-1`: not counted).
    @inline(__always)
    func finishObject(
        reader: XMLEntityReader, row: Int, key: Int64?, version: Int64?, attributesGiven: Int = -1,
        relationshipsGiven: Int = -1
    ) {
        guard let key else {
            reader.discardRow(row)
            return fail(
                "<\(reader.entity.name)> has no _pk (primary key) attribute", entity: reader.entity.name, key: "_pk")
        }
        guard let version else {
            reader.discardRow(row)
            return fail(
                "<\(reader.entity.name) _pk=\"\(key)\"> has no _version attribute", entity: reader.entity.name,
                key: "_version")
        }
        if let a = reader.finishRow(
            row, attributesGiven: attributesGiven, relationshipsGiven: relationshipsGiven, key: key, version: version)
        {
            let entity = reader.entity
            return fail(
                "<\(entity.name) _pk=\"\(key)\"> has no value for the required attribute '\(entity.attributes[a].name)'",
                entity: entity.name, key: entity.attributes[a].name)
        }
    }

    /// The slot of an attribute name not seen at its interned pointer yet: `-1` for `_pk`, `-2`
    /// for `_version`, `nil` for anything else (a `.b64` string, an unknown name: the slow path
    /// reports or reads those). Remembers the pointer.
    func resolveSlot(_ name: UnsafePointer<UInt8>, reader: XMLEntityReader) -> Int? {
        let interned = isInterned(name)
        if strcmp(name, "_pk") == 0 {
            if interned { reader.internedNames[reader.keySlot] = name }
            return -1
        }
        if strcmp(name, "_version") == 0 {
            if interned { reader.internedNames[reader.versionSlot] = name }
            return -2
        }
        for (s, slot) in reader.layout.slots.enumerated() where strcmp(name, slot.cName) == 0 {
            if interned { reader.internedNames[s] = name }
            return s
        }
        return nil
    }

    /// Whether `name` lives in the parser's dictionary (so the same pointer always means the
    /// same name during this parse).
    func isInterned(_ name: UnsafePointer<UInt8>) -> Bool {
        guard let dictionary = context?.pointee.dict else { return false }
        return xmlDictOwns(dictionary, name) == 1
    }

    /// `text` with `&#38;` turned back into `&` when the linked libxml2 leaves it (see
    /// ``XMLFormat/saxKeepsAmpersandReferences``).
    /// Appends a string value to its column: plain ASCII without `&` as it is; `&#38;` to
    /// decode, or UTF-8 beyond ASCII, through a String, which also replaces any invalid UTF-8
    /// (libxml2 lets none through).
    @inline(__always)
    func appendString(_ text: UnsafeBufferPointer<UInt8>, to column: UnsafeMutablePointer<XMLColumn>) {
        if !column.pointee.appendAssumingUnique(ifPlainASCII: text) {
            var string = String(decoding: decodedText(text), as: UTF8.self)
            string.withUTF8 { column.pointee.appendAssumingUnique(utf8: $0) }
        }
    }

    /// Appends a value of a type kept boxed (not an integer, double or string) to its column;
    /// `false` when the text is not a value of `type`.
    @inline(__always)
    func appendOther(
        _ text: UnsafeBufferPointer<UInt8>, as type: AttributeType, to column: UnsafeMutablePointer<XMLColumn>
    ) -> Bool {
        guard let value = XMLFormat.parseValue(type == .uri ? decodedText(text) : text, as: type) else { return false }
        column.pointee.append(value, assumingUnique: true)
        return true
    }

    @inline(__always)
    func decodedText(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if keepsAmpersandReferences, let start = text.baseAddress, memchr(start, 0x26, text.count) != nil {
            return decodeAmpersands(text)
        }
        return text
    }

    /// Reports `problem` (or, for a base64 string, reads it and goes on with the object through
    /// the general path).
    func reportObjectProblem(
        _ problem: XMLObjectProblem, reader: XMLEntityReader, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    ) {
        let entity = reader.entity
        switch problem {
        case .prefixed(let i):
            let name = String(cString: attributes[i * 5]!)
            fail("attribute '\(name)' of <\(entity.name)> has a namespace prefix", entity: entity.name)
        case .invalidValue(let slot, let i):
            let (_, text, _) = attribute(attributes, i)
            let shown = String(decoding: text.prefix(80), as: UTF8.self)
            if slot == -1 {
                fail("\(entity.name)._pk '\(shown)' is not a 64-bit integer", entity: entity.name, key: "_pk")
            } else if slot == -2 {
                fail(
                    "\(entity.name)._version '\(shown)' is not a version (an integer >= 0)", entity: entity.name,
                    key: "_version")
            } else if reader.readers[slot].kind == .relationship {
                let relationship = entity.relationships[reader.readers[slot].index]
                let expectation = relationship.isToMany ? "space-separated primary keys" : "one primary key"
                fail(
                    "\(entity.name).\(relationship.name) = \"\(shown)\" is not \(expectation) of \(relationship.destination)",
                    entity: entity.name, key: relationship.name)
            } else if case .attribute(let a) = reader.layout.slots[slot].kind {
                fail(
                    "\(entity.name).\(entity.attributes[a].name) = \"\(shown)\" is not a valid \(entity.attributes[a].type.rawValue)",
                    entity: entity.name, key: entity.attributes[a].name)
            }
        case .unresolved:
            // A base64 string, a value given twice or an unknown name: read the whole element
            // again the general way, which reads the first and reports the others.
            startObjectGenerally(reader: reader, attributeCount: attributeCount, attributes: attributes)
        }
    }

    /// Reads one object element the general way: base64 strings (`NAME.b64`), and every problem
    /// the fast path (``startObject(_:attributeCount:attributes:)``) leaves to it, reported.
    func startObjectGenerally(
        reader: XMLEntityReader, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        let entityLayout = reader.layout
        // The entity itself is only needed for messages: copying it costs a dozen retains.
        var entity: Entity { entityLayout.entity }
        let row = reader.rows.pointee.count
        var key: Int64?
        var version: Int64?
        var expected = 0
        let slots = entityLayout.slots

        for i in 0..<attributeCount {
            var (name, text, prefixed) = attribute(attributes!, i, decode: false)
            if prefixed {
                return fail(
                    "attribute '\(String(cString: name))' of <\(entity.name)> has a namespace prefix",
                    entity: entity.name)
            }
            let slotIndex: Int
            if expected < slots.count && strcmp(name, slots[expected].cName) == 0 {
                slotIndex = expected
            } else if name[0] == UInt8(ascii: "_") {
                if strcmp(name, "_pk") == 0 {
                    guard let k = XMLFormat.parseInteger(text) else {
                        return fail(
                            "\(entity.name)._pk '\(String(decoding: text, as: UTF8.self))' is not a 64-bit integer",
                            entity: entity.name, key: "_pk")
                    }
                    key = k
                } else if strcmp(name, "_version") == 0 {
                    guard let v = XMLFormat.parseInteger(text), v >= 0 else {
                        return fail(
                            "\(entity.name)._version '\(String(decoding: text, as: UTF8.self))' is not a version (an integer >= 0)",
                            entity: entity.name, key: "_version")
                    }
                    version = v
                } else {
                    return fail(
                        "unknown attribute '\(String(cString: name))' of <\(entity.name)>", entity: entity.name,
                        key: String(cString: name))
                }
                continue
            } else {
                let nameText = String(cString: name)
                if let found = entityLayout.slotIndexByName[nameText] {
                    slotIndex = found
                } else if nameText.hasSuffix(XMLFormat.base64Suffix),
                    let a = entity.attributeIndex(named: String(nameText.dropLast(XMLFormat.base64Suffix.count))),
                    entity.attributes[a].type == .string
                {
                    guard reader.rows.pointee.columns[a].count == row else {
                        return fail(
                            "\(entity.name).\(entity.attributes[a].name) is given twice", entity: entity.name,
                            key: entity.attributes[a].name)
                    }
                    guard let data = Data(base64Encoded: String(decoding: text, as: UTF8.self)),
                        let string = String(data: data, encoding: .utf8)
                    else {
                        return fail(
                            "\(nameText) of <\(entity.name)> is not base64 of UTF-8 text", entity: entity.name,
                            key: entity.attributes[a].name)
                    }
                    reader.rows.pointee.columns[a].append(.string(string), assumingUnique: true)
                    continue
                } else {
                    return fail(
                        "unknown attribute '\(nameText)' of <\(entity.name)>; it has: \(slots.map { String(cString: $0.cName) }.joined(separator: ", "))",
                        entity: entity.name, key: nameText)
                }
            }
            expected = slotIndex + 1
            switch slots[slotIndex].kind {
            case .attribute(let a):
                let type = entityLayout.attributeTypes[a]
                if type == .string || type == .uri { text = attribute(attributes!, i).value }
                guard reader.rows.pointee.columns[a].count == row else {
                    return fail(
                        "\(entity.name).\(entity.attributes[a].name) is given twice", entity: entity.name,
                        key: entity.attributes[a].name)
                }
                guard let value = XMLFormat.parseValue(text, as: type) else {
                    let shown = String(decoding: text.prefix(80), as: UTF8.self)
                    return fail(
                        "\(entity.name).\(entity.attributes[a].name) = \"\(shown)\" is not a valid \(type.rawValue)",
                        entity: entity.name, key: entity.attributes[a].name)
                }
                reader.rows.pointee.columns[a].append(value, assumingUnique: true)
            case .relationship(let r):
                let relationship = entity.relationships[r]
                guard reader.rows.pointee.relationships[r].count == row else {
                    return fail(
                        "\(entity.name).\(relationship.name) is given twice", entity: entity.name,
                        key: relationship.name)
                }
                guard
                    reader.rows.pointee.relationships[r].append(
                        parsing: text, sorted: entityLayout.isUnorderedToMany[r])
                else {
                    let shown = String(decoding: text.prefix(80), as: UTF8.self)
                    let expectation = relationship.isToMany ? "space-separated primary keys" : "one primary key"
                    return fail(
                        "\(entity.name).\(relationship.name) = \"\(shown)\" is not \(expectation) of \(relationship.destination)",
                        entity: entity.name, key: relationship.name)
                }
            }
        }
        finishObject(reader: reader, row: row, key: key, version: version)
    }
}
