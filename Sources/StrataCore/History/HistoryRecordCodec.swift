import Foundation

/// The compact binary form of a ``HistoryTransaction`` that stores keep, one record per
/// transaction: a store writes ``encode(_:)``'s bytes beside the token in its save, and reads
/// them back with ``decode(_:token:)``.
///
/// Names (entities and properties) are written once per record, object keys as variable-length
/// integers, and every ID as belonging to the token's store, so an insert of one object costs a
/// few bytes. The format starts with a version byte; a record that is damaged or of an unknown
/// version decodes to ``StrataError/Code/storeCorrupt`` naming the token.
public enum HistoryRecordCodec {
    /// The format version written first in every record.
    public static let formatVersion: UInt8 = 1

    /// The record of `transaction` (its token is not part of it; the store keeps it as the key).
    public static func encode(_ transaction: HistoryTransaction) -> [UInt8] {
        var encoder = HistoryRecordEncoder(changeCount: transaction.changes.count)
        for change in transaction.changes {
            switch change.kind {
            case .insert: encoder.insert(change.objectID)
            case .update:
                encoder.update(change.objectID, propertyCount: change.properties.count)
                for property in change.properties {
                    encoder.property(property.name, old: property.oldValue, new: property.newValue)
                }
            case .delete: encoder.delete(change.objectID, tombstone: change.tombstone)
            }
        }
        return encoder.record(
            timestamp: transaction.timestamp, author: transaction.author, contextName: transaction.contextName)
    }

    /// The transaction recorded in `record` under `token`.
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` naming the token when the record is damaged.
    public static func decode(_ record: some Collection<UInt8>, token: HistoryToken) throws -> HistoryTransaction {
        let bytes = Array(record)
        var reader = HistoryRecordReader(bytes: bytes, token: token)
        let version = try reader.byte()
        guard version == formatVersion else {
            throw reader.damage("it has format version \(version); this build reads version \(formatVersion)")
        }
        let timestamp = Date(timeIntervalSince1970: Double(bitPattern: try reader.fixed64()))
        let author = try reader.optionalString()
        let contextName = try reader.optionalString()
        let nameCount = try reader.count()
        var names: [String] = []
        names.reserveCapacity(nameCount)
        for _ in 0..<nameCount { names.append(try reader.string()) }
        let changeCount = try reader.count()
        var changes: [HistoryChange] = []
        changes.reserveCapacity(changeCount)
        for _ in 0..<changeCount {
            let kind = try reader.kind()
            let id = try reader.objectID(names: names)
            var change = HistoryChange(kind: kind, objectID: id)
            switch kind {
            case .insert: break
            case .update:
                let count = try reader.count()
                change.properties.reserveCapacity(count)
                for _ in 0..<count {
                    let name = try reader.name(in: names)
                    let old = try reader.propertyValue(names: names)
                    let new = try reader.propertyValue(names: names)
                    change.properties.append(PropertyChange(name: name, oldValue: old, newValue: new))
                }
            case .delete:
                let count = try reader.count()
                for _ in 0..<count {
                    let name = try reader.name(in: names)
                    change.tombstone[name] = try reader.value()
                }
            }
            changes.append(change)
        }
        guard reader.isAtEnd else { throw reader.damage("it has \(reader.remaining) bytes after its last change") }
        return HistoryTransaction(
            token: token, timestamp: timestamp, author: author, contextName: contextName, changes: changes)
    }
}

extension HistoryChange.Kind {
    /// The kind's byte in a history record.
    fileprivate var code: UInt8 {
        switch self {
        case .insert: 0
        case .update: 1
        case .delete: 2
        }
    }
}

/// Writes one record, a change at a time, in the order of the transaction's changes: what
/// ``HistoryRecordCodec/encode(_:)`` does for a ``HistoryTransaction``, and what
/// ``HistoryChangeRecorder/record(for:timestamp:storedState:)`` does straight from a save, without
/// building the changes first. Both give the same bytes for the same changes.
struct HistoryRecordEncoder {
    private var names = HistoryNameTable()
    private var body = HistoryRecordWriter()

    /// Starts a record of `changeCount` changes; exactly that many must follow.
    init(changeCount: Int) {
        body.bytes.reserveCapacity(16 + changeCount * 4)
        body.varint(UInt64(changeCount))
    }

    /// An insert of `id`.
    mutating func insert(_ id: ObjectID) { change(.insert, id) }

    /// An update of `id` whose `propertyCount` changed properties follow (``property(_:old:new:)``
    /// or ``attribute(_:old:new:)``).
    mutating func update(_ id: ObjectID, propertyCount: Int) {
        change(.update, id)
        body.varint(UInt64(propertyCount))
    }

    /// A changed property of the update before.
    mutating func property(_ name: String, old: PropertyValue, new: PropertyValue) {
        body.varint(UInt64(names.index(of: name)))
        body.propertyValue(old, names: &names)
        body.propertyValue(new, names: &names)
    }

    /// A changed attribute of the update before: ``property(_:old:new:)`` for attribute values,
    /// without wrapping them.
    mutating func attribute(_ name: String, old: Value, new: Value) {
        body.varint(UInt64(names.index(of: name)))
        body.value(old)
        body.value(new)
    }

    /// A changed relationship of the update before.
    mutating func relationship(_ name: String, old: RelationshipValue, new: RelationshipValue) {
        body.varint(UInt64(names.index(of: name)))
        body.relationshipValue(old, names: &names)
        body.relationshipValue(new, names: &names)
    }

    /// A delete of `id`, with the values it keeps.
    mutating func delete(_ id: ObjectID, tombstone: [String: Value]) {
        change(.delete, id)
        body.varint(UInt64(tombstone.count))
        for (name, value) in tombstone.sorted(by: { $0.key < $1.key }) {
            body.varint(UInt64(names.index(of: name)))
            body.value(value)
        }
    }

    /// The whole record: its header, the names, then the changes.
    consuming func record(timestamp: Date, author: String?, contextName: String?) -> [UInt8] {
        var writer = HistoryRecordWriter()
        writer.bytes.reserveCapacity(32 + body.bytes.count + names.names.count * 16)
        writer.byte(HistoryRecordCodec.formatVersion)
        writer.fixed64(timestamp.timeIntervalSince1970.bitPattern)
        writer.optionalString(author)
        writer.optionalString(contextName)
        writer.varint(UInt64(names.names.count))
        for name in names.names { writer.string(name) }
        writer.bytes.append(contentsOf: body.bytes)
        return writer.bytes
    }

    private mutating func change(_ kind: HistoryChange.Kind, _ id: ObjectID) {
        body.byte(kind.code)
        body.varint(UInt64(names.index(of: id.entityName)))
        body.signed(id.permanentKey)
    }
}

/// The names a record uses, each written once.
private struct HistoryNameTable {
    var names: [String] = []
    var indexes: [String: Int] = [:]
    /// The last name looked up and its index: changes come in runs of one entity, and a name
    /// equal to the last one costs a comparison instead of a hash.
    var last: (name: String, index: Int)?
    /// Up to this many names, a lookup compares with each instead of hashing.
    static let linearLimit = 16

    mutating func index(of name: String) -> Int {
        if let last, last.name == name { return last.index }
        let index: Int
        if names.count <= Self.linearLimit, let found = names.firstIndex(of: name) {
            // A record names a few entities and properties: comparing is cheaper than hashing.
            index = found
        } else if names.count > Self.linearLimit, let known = indexes[name] {
            index = known
        } else {
            index = names.count
            indexes[name] = index
            names.append(name)
        }
        last = (name, index)
        return index
    }
}

/// The tags of values in a record.
private enum HistoryValueTag: UInt8 {
    case null = 0
    case integer, double, float, decimal, string, bool, date, binary, uuid, uri
    case noTarget = 20
    case target, targets
}

private struct HistoryRecordWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func fixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func data(_ data: some Collection<UInt8>) {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func string(_ text: String) { data(text.utf8) }

    mutating func optionalString(_ text: String?) {
        if let text {
            byte(1)
            string(text)
        } else {
            byte(0)
        }
    }

    mutating func value(_ value: Value) {
        switch value {
        case .null: byte(HistoryValueTag.null.rawValue)
        case .integer(let v):
            byte(HistoryValueTag.integer.rawValue)
            signed(v)
        case .double(let v):
            byte(HistoryValueTag.double.rawValue)
            fixed64(v.bitPattern)
        case .float(let v):
            byte(HistoryValueTag.float.rawValue)
            varint(UInt64(v.bitPattern))
        case .decimal(let v):
            byte(HistoryValueTag.decimal.rawValue)
            string(v.description)
        case .string(let v):
            byte(HistoryValueTag.string.rawValue)
            string(v)
        case .bool(let v):
            byte(HistoryValueTag.bool.rawValue)
            byte(v ? 1 : 0)
        case .date(let v):
            byte(HistoryValueTag.date.rawValue)
            fixed64(v.timeIntervalSinceReferenceDate.bitPattern)
        case .binary(let v):
            byte(HistoryValueTag.binary.rawValue)
            data(v)
        case .uuid(let v):
            byte(HistoryValueTag.uuid.rawValue)
            withUnsafeBytes(of: v.uuid) { bytes.append(contentsOf: $0) }
        case .uri(let v):
            byte(HistoryValueTag.uri.rawValue)
            string(v.absoluteString)
        }
    }

    mutating func propertyValue(_ value: PropertyValue, names: inout HistoryNameTable) {
        switch value {
        case .attribute(let v): self.value(v)
        case .relationship(let v): relationshipValue(v, names: &names)
        }
    }

    mutating func relationshipValue(_ value: RelationshipValue, names: inout HistoryNameTable) {
        switch value {
        case .toOne(nil): byte(HistoryValueTag.noTarget.rawValue)
        case .toOne(let id?):
            byte(HistoryValueTag.target.rawValue)
            objectID(id, names: &names)
        case .toMany(let ids):
            byte(HistoryValueTag.targets.rawValue)
            varint(UInt64(ids.count))
            for id in ids { objectID(id, names: &names) }
        }
    }

    mutating func objectID(_ id: ObjectID, names: inout HistoryNameTable) {
        varint(UInt64(names.index(of: id.entityName)))
        signed(id.permanentKey)
    }
}

private struct HistoryRecordReader {
    let bytes: [UInt8]
    let token: HistoryToken
    var offset = 0

    init(bytes: [UInt8], token: HistoryToken) {
        self.bytes = bytes
        self.token = token
    }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    func damage(_ why: String) -> StrataError {
        StrataError(
            .storeCorrupt, "the history transaction \(token) is damaged: \(why)",
            location: ["token": token.description, "offset": String(offset)])
    }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw damage("it ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte()
            guard shift < 64 else { throw damage("a number is too long") }
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    mutating func signed() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// A count no larger than the bytes left (each counted item takes at least one byte).
    mutating func count() throws -> Int {
        let value = try varint()
        guard value <= UInt64(remaining) else { throw damage("a count (\(value)) exceeds the record") }
        return Int(value)
    }

    mutating func fixed64() throws -> UInt64 {
        guard remaining >= 8 else { throw damage("it ends early") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << UInt64(index * 8) }
        offset += 8
        return value
    }

    mutating func slice() throws -> ArraySlice<UInt8> {
        let length = try count()
        defer { offset += length }
        return bytes[offset..<offset + length]
    }

    mutating func string() throws -> String {
        let slice = try self.slice()
        guard let text = String(validating: slice, as: UTF8.self) else { throw damage("a text is not UTF-8") }
        return text
    }

    mutating func optionalString() throws -> String? {
        switch try byte() {
        case 0: return nil
        case 1: return try string()
        case let flag: throw damage("an optional text has flag \(flag)")
        }
    }

    mutating func kind() throws -> HistoryChange.Kind {
        switch try byte() {
        case 0: return .insert
        case 1: return .update
        case 2: return .delete
        case let code: throw damage("a change has kind \(code)")
        }
    }

    mutating func name(in names: [String]) throws -> String {
        let index = try varint()
        guard index < UInt64(names.count) else { throw damage("a name index (\(index)) is out of range") }
        return names[Int(index)]
    }

    mutating func objectID(names: [String]) throws -> ObjectID {
        let entity = try name(in: names)
        let key = try signed()
        guard key > 0 else { throw damage("an object key (\(key)) is not positive") }
        return ObjectID(entityName: entity, storeIdentifier: token.storeIdentifier, primaryKey: key)
    }

    mutating func value() throws -> Value {
        let tag = try byte()
        guard let kind = HistoryValueTag(rawValue: tag) else { throw damage("a value has tag \(tag)") }
        return try value(kind)
    }

    mutating func value(_ tag: HistoryValueTag) throws -> Value {
        switch tag {
        case .null: return .null
        case .integer: return .integer(try signed())
        case .double: return .double(Double(bitPattern: try fixed64()))
        case .float:
            let raw = try varint()
            guard raw <= UInt64(UInt32.max) else { throw damage("a float is out of range") }
            return .float(Float(bitPattern: UInt32(raw)))
        case .decimal:
            let text = try string()
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw damage("'\(text.shortenedForMessages)' is not a decimal")
            }
            return .decimal(decimal)
        case .string: return .string(try string())
        case .bool:
            switch try byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            case let flag: throw damage("a boolean is \(flag)")
            }
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try fixed64())))
        case .binary: return .binary(Data(try slice()))
        case .uuid:
            guard remaining >= 16 else { throw damage("it ends early") }
            let b = bytes[offset..<offset + 16].map { $0 }
            offset += 16
            return .uuid(
                UUID(
                    uuid: (
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                        b[15]
                    )))
        case .uri:
            let text = try string()
            guard let url = URL(string: text) else { throw damage("'\(text.shortenedForMessages)' is not a URI") }
            return .uri(url)
        case .noTarget, .target, .targets: throw damage("a relationship value stands where an attribute value belongs")
        }
    }

    mutating func propertyValue(names: [String]) throws -> PropertyValue {
        let tag = try byte()
        guard let kind = HistoryValueTag(rawValue: tag) else { throw damage("a value has tag \(tag)") }
        switch kind {
        case .noTarget: return .relationship(.toOne(nil))
        case .target: return .relationship(.toOne(try objectID(names: names)))
        case .targets:
            let count = try self.count()
            var ids: [ObjectID] = []
            ids.reserveCapacity(count)
            for _ in 0..<count { ids.append(try objectID(names: names)) }
            return .relationship(.toMany(ids))
        default: return .attribute(try value(kind))
        }
    }
}
