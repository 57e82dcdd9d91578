import CStrataLMDB
import Foundation
import StrataCore
import Testing

@testable import StrataLMDB

/// A save reads only the indexed values of the records it deletes or updates
/// (`RecordCodec.indexedValues`): they must be exactly the full decoding's, and damage anywhere in
/// the record must still be refused.
@Suite struct LMDBIndexedValuesTests {
    private let model: Model
    private let layout: EntityLayout

    init() throws {
        model = try companyModel()
        var databases: [String: MDB_dbi] = [:]
        for (offset, database) in LMDBLayout.databases(for: model).enumerated() {
            databases[database.name] = MDB_dbi(offset + 2)
        }
        layout = EntityLayout(entity: model.entity(named: "Employee")!, databases: databases, storeIdentifier: "S")
    }

    /// An employee with every attribute set and every relationship filled.
    private func record() -> [UInt8] {
        let scope = ObjectID.Scope(entityName: "Employee", storeIdentifier: "S")
        let department = ObjectID.Scope(entityName: "Department", storeIdentifier: "S").id(primaryKey: 7)
        var snapshot = employee(
            scope.id(primaryKey: 3), name: "Ada Lovelace", age: 36, department: department, model: model)
        snapshot.attributes[2] = .double(1.65)
        snapshot.attributes[3] = .date(Date(timeIntervalSinceReferenceDate: 12_345.5))
        snapshot.attributes[4] = .bool(false)
        snapshot.attributes[5] = .binary(Data([1, 2, 3]))
        snapshot.attributes[6] = .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        snapshot.attributes[7] = .uri(URL(string: "https://example.com/ada")!)
        snapshot.attributes[8] = .decimal(Decimal(string: "1234.5678")!)
        snapshot.attributes[9] = .float(2.5)
        snapshot.attributes[10] = .integer(4)
        snapshot.relationships[1] = .toOne(scope.id(primaryKey: 1))
        snapshot.relationships[2] = .toMany([scope.id(primaryKey: 9), scope.id(primaryKey: 5)])
        var writer = ByteWriter(capacity: 256)
        RecordCodec.encode(snapshot, version: 4, layout: layout, into: &writer)
        return writer.bytes
    }

    @Test func indexedValuesAreTheFullDecodingsWhereAnIndexNeedsThem() throws {
        let bytes = record()
        let full = try bytes.withUnsafeBytes { try RecordCodec.decode($0, pk: 3, layout: layout) }
        let indexed = try bytes.withUnsafeBytes { try RecordCodec.indexedValues(of: $0, layout: layout) }
        let names = layout.entity.attributes.map(\.name)
        #expect(names.indices.filter { layout.isIndexed[$0] }.map { names[$0] } == ["name", "age"])
        for position in names.indices {
            #expect(indexed.attributes[position] == (layout.isIndexed[position] ? full.attributes[position] : .null))
        }
        #expect(indexed.relationships[0] == full.relationships[0])
        #expect(indexed.relationships[1] == full.relationships[1])
        #expect(indexed.relationships[2] == .toMany([]))
        #expect(full.relationships[2] != .toMany([]))
    }

    @Test(arguments: [2, 5, 8])
    func aWrongTagInAnAttributeNoIndexNeedsIsStillDamage(_ position: Int) throws {
        var bytes = record()
        // Find the attribute's tag by encoding the record with that attribute null.
        let offset = try tagOffset(of: position, in: bytes)
        bytes[offset] = 0x7F
        #expect(throws: RecordCorruption.self) {
            try bytes.withUnsafeBytes { _ = try RecordCodec.indexedValues(of: $0, layout: layout) }
        }
    }

    @Test func aRecordCutShortIsStillDamage() throws {
        let bytes = record()
        for length in [bytes.count - 1, bytes.count - 5, bytes.count / 2] {
            let cut = Array(bytes.prefix(length))
            #expect(throws: RecordCorruption.self) {
                try cut.withUnsafeBytes { _ = try RecordCodec.indexedValues(of: $0, layout: layout) }
            }
        }
    }

    /// The byte offset of the tag of the attribute at `position` (the format is in
    /// docs/LMDBStore.md): walks the fields before it with the full decoder's rules.
    private func tagOffset(of position: Int, in bytes: [UInt8]) throws -> Int {
        try bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            _ = try reader.byte()
            _ = try reader.signed()
            _ = try reader.varint()
            for type in layout.types.prefix(position) {
                let tag = try reader.byte()
                switch type {
                case .integer16, .integer32, .integer64: _ = try reader.varint()
                case .double, .date: _ = try reader.take(8)
                case .float: _ = try reader.take(4)
                case .uuid: _ = try reader.take(16)
                case .boolean: break
                default: if tag != RecordCodec.Tag.null { _ = try reader.lengthPrefixed() }
                }
            }
            return reader.offset
        }
    }
}
