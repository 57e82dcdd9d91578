import Foundation
import StrataCore

/// The binary encoding of one record (format version 1; see docs/LMDBStore.md).
///
/// ```
/// u8      format version (1)
/// varint  object version (zigzag)
/// varint  attribute count, then per attribute: u8 tag + payload
/// varint  relationship count, then per relationship: u8 tag + payload
/// ```
/// Integers are zigzag varints; doubles, dates (seconds since 2001) and floats are their IEEE
/// bits, little-endian; strings, URIs (absolute string) and binaries are a varint length and the
/// bytes; decimals are their exact text; UUIDs 16 bytes. A to-one is absent or a primary key;
/// a to-many is a count and the primary keys (sorted for unordered relationships, the user's
/// order for ordered ones).
enum RecordCodec {
    /// The format version written by this build; a record with another first byte is refused.
    static let formatVersion: UInt8 = 1

    enum Tag {
        static let null: UInt8 = 0x00
        static let integer: UInt8 = 0x01
        static let double: UInt8 = 0x02
        static let float: UInt8 = 0x03
        static let decimal: UInt8 = 0x04
        static let decimalNaN: UInt8 = 0x05
        static let string: UInt8 = 0x06
        static let boolFalse: UInt8 = 0x07
        static let boolTrue: UInt8 = 0x08
        static let date: UInt8 = 0x09
        static let binary: UInt8 = 0x0A
        static let uuid: UInt8 = 0x0B
        static let uri: UInt8 = 0x0C
        static let noTarget: UInt8 = 0x20
        static let target: UInt8 = 0x21
        static let targets: UInt8 = 0x22
    }

    /// Appends the record of `snapshot` (an object of `layout`'s entity) at `version` to
    /// `writer`, its values in the layout's record order. The snapshot was validated.
    @inline(__always)
    static func encode(_ snapshot: Snapshot, version: Int64, layout: EntityLayout, into writer: inout ByteWriter) {
        guard let order = layout.recordOrder else {
            return encode(snapshot, version: version, relationships: layout.recordRelationships, into: &writer)
        }
        var inRecordOrder = snapshot
        inRecordOrder.attributes = order.toRecord(snapshot.attributes, order.attributes)
        inRecordOrder.relationships = order.toRecord(snapshot.relationships, order.relationships)
        encode(inRecordOrder, version: version, relationships: layout.recordRelationships, into: &writer)
    }

    /// Appends the record of `snapshot` at `version` to `writer`, its values in the snapshot's
    /// order; `relationships` are the declarations of its relationships, in the same order.
    static func encode(
        _ snapshot: Snapshot, version: Int64, relationships: [Relationship], into writer: inout ByteWriter
    ) {
        writer.byte(formatVersion)
        writer.signed(version)
        writer.varint(UInt64(snapshot.attributes.count))
        for value in snapshot.attributes { encode(value, into: &writer) }
        writer.varint(UInt64(snapshot.relationships.count))
        for (position, relationship) in snapshot.relationships.enumerated() {
            switch relationship {
            case .toOne(nil):
                writer.byte(Tag.noTarget)
            case .toOne(let target?):
                writer.byte(Tag.target)
                writer.signed(target.primaryKey ?? 0)
            case .toMany(let targets):
                writer.byte(Tag.targets)
                writer.varint(UInt64(targets.count))
                if relationships[position].isOrdered {
                    for target in targets { writer.signed(target.primaryKey ?? 0) }
                } else {
                    var keys = targets.map { $0.primaryKey ?? 0 }
                    var sorted = true
                    for i in keys.indices.dropFirst() where keys[i - 1] > keys[i] {
                        sorted = false
                        break
                    }
                    if !sorted { keys.sort() }
                    for key in keys { writer.signed(key) }
                }
            }
        }
    }

    @inline(__always)
    static func encode(_ value: Value, into writer: inout ByteWriter) {
        switch value {
        case .null: writer.byte(Tag.null)
        case .integer(let v):
            writer.byte(Tag.integer)
            writer.signed(v)
        case .double(let v):
            writer.byte(Tag.double)
            writer.fixed64(v.bitPattern)
        case .float(let v):
            writer.byte(Tag.float)
            writer.fixed32(v.bitPattern)
        case .decimal(let v):
            if v.isNaN {
                writer.byte(Tag.decimalNaN)
            } else {
                writer.byte(Tag.decimal)
                writer.string(v.description)
            }
        case .string(let v):
            writer.byte(Tag.string)
            writer.string(v)
        case .bool(let v): writer.byte(v ? Tag.boolTrue : Tag.boolFalse)
        case .date(let v):
            writer.byte(Tag.date)
            writer.fixed64(v.timeIntervalSinceReferenceDate.bitPattern)
        case .binary(let v):
            writer.byte(Tag.binary)
            writer.lengthPrefixed(v)
        case .uuid(let v):
            writer.byte(Tag.uuid)
            withUnsafeBytes(of: v.uuid) { writer.bytes.append(contentsOf: $0) }
        case .uri(let v):
            writer.byte(Tag.uri)
            writer.string(v.absoluteString)
        }
    }

    /// The object version of a record, without decoding the rest.
    @inline(__always)
    static func version(of bytes: UnsafeRawBufferPointer) throws -> Int64 {
        var reader = ByteReader(bytes)
        try checkFormat(&reader)
        return try reader.signed()
    }

    @inline(__always)
    private static func checkFormat(_ reader: inout ByteReader) throws {
        let format = try reader.byte()
        guard format == formatVersion else {
            throw RecordCorruption(
                reason: "its encoding version is \(format), but this build reads only version \(formatVersion)")
        }
    }

    /// Decodes the record of object `pk`.
    static func decode(_ bytes: UnsafeRawBufferPointer, pk: Int64, layout: EntityLayout) throws -> Snapshot {
        let (version, attributes, relationships) = try fields(of: bytes, layout: layout, indexedOnly: false)
        return Snapshot(
            objectID: layout.objectID(pk), version: version, attributes: attributes, relationships: relationships)
    }

    /// What the secondary databases of `layout` are keyed by, read from a record without building
    /// the rest (a save removing an object's old secondary entries): the attributes
    /// ``EntityLayout/isIndexed`` marks, every other one `.null`, and the to-one targets, every
    /// to-many one empty. The whole record is walked and checked as ``decode(_:pk:layout:)``
    /// checks it.
    static func indexedValues(of bytes: UnsafeRawBufferPointer, layout: EntityLayout) throws -> IndexedValues {
        let (_, attributes, relationships) = try fields(of: bytes, layout: layout, indexedOnly: true)
        return IndexedValues(attributes: attributes, relationships: relationships)
    }

    /// The version, attributes and relationships of a record; with `indexedOnly`, as
    /// ``indexedValues(of:layout:)`` describes.
    @inline(__always)
    private static func fields(of bytes: UnsafeRawBufferPointer, layout: EntityLayout, indexedOnly: Bool) throws
        -> (version: Int64, attributes: [Value], relationships: [RelationshipValue])
    {
        var reader = ByteReader(bytes)
        try checkFormat(&reader)
        let version = try reader.signed()
        let attributeCount = try reader.varint()
        let types = layout.recordTypes
        guard attributeCount == UInt64(types.count) else {
            throw RecordCorruption(reason: "it holds \(attributeCount) attributes, the entity has \(types.count)")
        }
        var attributes: [Value] = []
        attributes.reserveCapacity(types.count)
        if indexedOnly {
            let indexed = layout.recordIsIndexed
            for (position, type) in types.enumerated() {
                if indexed[position] {
                    attributes.append(try decodeValue(&reader, type: type))
                } else {
                    try skipValue(&reader, type: type)
                    attributes.append(.null)
                }
            }
        } else {
            for type in types { attributes.append(try decodeValue(&reader, type: type)) }
        }
        let relationshipCount = try reader.varint()
        let relationships = layout.recordRelationships
        guard relationshipCount == UInt64(relationships.count) else {
            throw RecordCorruption(
                reason: "it holds \(relationshipCount) relationships, the entity has \(relationships.count)")
        }
        var targets: [RelationshipValue] = []
        targets.reserveCapacity(relationships.count)
        for (position, relationship) in relationships.enumerated() {
            let destination = layout.recordDestinationScopes[position]
            let tag = try reader.byte()
            switch tag {
            case Tag.noTarget where !relationship.isToMany:
                targets.append(.toOne(nil))
            case Tag.target where !relationship.isToMany:
                let key = try reader.signed()
                targets.append(.toOne(destination.id(primaryKey: key)))
            case Tag.targets where relationship.isToMany:
                let count = try reader.varint()
                guard count <= UInt64(bytes.count) else {
                    throw RecordCorruption(reason: "a to-many count of \(count) exceeds the record")
                }
                if indexedOnly {
                    for _ in 0..<count { _ = try reader.signed() }
                    targets.append(.toMany([]))
                    continue
                }
                var ids: [ObjectID] = []
                ids.reserveCapacity(Int(count))
                for _ in 0..<count {
                    ids.append(destination.id(primaryKey: try reader.signed()))
                }
                targets.append(.toMany(ids))
            default:
                throw RecordCorruption(
                    reason:
                        "relationship '\(relationship.name)' has tag \(tag), which does not fit a \(relationship.isToMany ? "to-many" : "to-one")"
                )
            }
        }
        guard reader.isAtEnd else {
            throw RecordCorruption(reason: "\(bytes.count - reader.offset) bytes follow the last field")
        }
        if let order = layout.recordOrder {
            return (
                version, order.toDeclaration(attributes, order.attributes),
                order.toDeclaration(targets, order.relationships)
            )
        }
        return (version, attributes, targets)
    }

    /// Moves `reader` past one value of an attribute of `type`, checking its tag as
    /// ``decodeValue(_:type:)`` does, without building the value.
    @inline(__always)
    private static func skipValue(_ reader: inout ByteReader, type: AttributeType) throws {
        let tag = try reader.byte()
        switch (tag, type) {
        case (Tag.null, _), (Tag.decimalNaN, .decimal), (Tag.boolFalse, .boolean), (Tag.boolTrue, .boolean):
            return
        case (Tag.integer, .integer16), (Tag.integer, .integer32), (Tag.integer, .integer64):
            _ = try reader.varint()
        case (Tag.double, .double), (Tag.date, .date): _ = try reader.take(8)
        case (Tag.float, .float): _ = try reader.take(4)
        case (Tag.uuid, .uuid): _ = try reader.take(16)
        case (Tag.decimal, .decimal), (Tag.string, .string), (Tag.binary, .binary), (Tag.uri, .uri):
            _ = try reader.lengthPrefixed()
        default:
            throw RecordCorruption(reason: "a value with tag \(tag) does not fit a \(type.rawValue) attribute")
        }
    }

    @inline(__always)
    private static func decodeValue(_ reader: inout ByteReader, type: AttributeType) throws -> Value {
        let tag = try reader.byte()
        switch (tag, type) {
        case (Tag.null, _): return .null
        case (Tag.integer, .integer16), (Tag.integer, .integer32), (Tag.integer, .integer64):
            return .integer(try reader.signed())
        case (Tag.double, .double): return .double(Double(bitPattern: try reader.fixed64()))
        case (Tag.float, .float): return .float(Float(bitPattern: try reader.fixed32()))
        case (Tag.decimal, .decimal):
            let text = String(decoding: try reader.lengthPrefixed(), as: UTF8.self)
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw RecordCorruption(reason: "'\(text)' is not a decimal")
            }
            return .decimal(decimal)
        case (Tag.decimalNaN, .decimal): return .decimal(Decimal.nan)
        case (Tag.string, .string): return .string(String(decoding: try reader.lengthPrefixed(), as: UTF8.self))
        case (Tag.boolFalse, .boolean): return .bool(false)
        case (Tag.boolTrue, .boolean): return .bool(true)
        case (Tag.date, .date):
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.fixed64())))
        case (Tag.binary, .binary): return .binary(Data(try reader.lengthPrefixed()))
        case (Tag.uuid, .uuid):
            let raw = try reader.take(16)
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
            return .uuid(UUID(uuid: uuid))
        case (Tag.uri, .uri):
            let text = String(decoding: try reader.lengthPrefixed(), as: UTF8.self)
            guard let url = URL(string: text) else { throw RecordCorruption(reason: "'\(text)' is not a URI") }
            return .uri(url)
        default:
            throw RecordCorruption(reason: "a value with tag \(tag) does not fit a \(type.rawValue) attribute")
        }
    }
}

/// The values of a stored record that its object's secondary entries are keyed by
/// (``RecordCodec/indexedValues(of:layout:)``): attributes not in any index are `.null`, to-many
/// relationships empty.
struct IndexedValues {
    var attributes: [Value]
    var relationships: [RelationshipValue]
}
