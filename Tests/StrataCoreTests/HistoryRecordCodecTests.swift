import Foundation
import StrataCore
import Testing

@Suite struct HistoryRecordCodecTests {
    let store = "S1"

    func id(_ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: store, primaryKey: key)
    }

    func sample() -> HistoryTransaction {
        let values: [Value] = [
            .null, .integer(-42), .integer(.max), .double(.nan), .double(-0.5), .float(3.25),
            .decimal(Decimal(string: "12345.678")!), .string("Zoë 🚀"), .bool(true), .bool(false),
            .date(Date(timeIntervalSinceReferenceDate: 1_234.5)), .binary(Data([0, 1, 255])),
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            .uri(URL(string: "https://a.example/x?y=1")!),
        ]
        var properties = values.enumerated().map { index, value in
            PropertyChange(name: "p\(index)", oldValue: .attribute(.null), newValue: .attribute(value))
        }
        properties.append(
            PropertyChange(
                name: "department", oldValue: .relationship(.toOne(nil)), newValue: .relationship(.toOne(id("Dept", 7)))
            ))
        properties.append(
            PropertyChange(
                name: "members", oldValue: .relationship(.toMany([])),
                newValue: .relationship(.toMany([id("Employee", 1), id("Employee", 1 << 40)]))))
        return HistoryTransaction(
            token: HistoryToken(storeIdentifier: store, sequence: 9),
            timestamp: Date(timeIntervalSince1970: 1_700_000_000.125), author: "importer", contextName: nil,
            changes: [
                HistoryChange(kind: .insert, objectID: id("Employee", 3)),
                HistoryChange(kind: .update, objectID: id("Employee", 4), properties: properties),
                HistoryChange(kind: .delete, objectID: id("Project", 5), tombstone: ["title": .string("Apollo")]),
            ])
    }

    @Test func aTransactionSurvivesEncodingWithEveryValueType() throws {
        let transaction = sample()
        let decoded = try HistoryRecordCodec.decode(HistoryRecordCodec.encode(transaction), token: transaction.token)
        #expect(decoded == transaction)
    }

    @Test func anInsertCostsAFewBytes() {
        let changes = (1...1_000).map { HistoryChange(kind: .insert, objectID: id("Employee", Int64($0))) }
        let record = HistoryRecordCodec.encode(
            HistoryTransaction(
                token: HistoryToken(storeIdentifier: store, sequence: 1), timestamp: Date(), changes: changes))
        #expect(record.count < 1_000 * 4 + 64)
    }

    @Test(arguments: [0, 1, 5, 20, 40])
    func aTruncatedRecordIsACorruptStoreErrorNamingTheToken(_ cut: Int) throws {
        let transaction = sample()
        let record = HistoryRecordCodec.encode(transaction)
        let error = #expect(throws: StrataError.self) {
            _ = try HistoryRecordCodec.decode(record.prefix(cut), token: transaction.token)
        }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["token"] == "S1:9")
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var generator = SystemRandomNumberGenerator()
        let record = HistoryRecordCodec.encode(sample())
        for _ in 0..<2_000 {
            var damaged = record
            for _ in 0..<3 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = .random(in: 0...255) }
            do {
                _ = try HistoryRecordCodec.decode(damaged, token: HistoryToken(storeIdentifier: store, sequence: 1))
            } catch let error as StrataError {
                #expect(error.code == .storeCorrupt)
            } catch { Issue.record("unexpected \(error)") }
        }
    }

    @Test func anUnknownFormatVersionIsRefused() throws {
        var record = HistoryRecordCodec.encode(sample())
        record[0] = 99
        let error = #expect(throws: StrataError.self) {
            _ = try HistoryRecordCodec.decode(record, token: HistoryToken(storeIdentifier: store, sequence: 2))
        }
        #expect(error?.message.contains("format version 99") == true)
    }

    @Test func tokensParseCompareAndCode() throws {
        let token = try HistoryToken(parsing: "3F2A-1:17")
        #expect(token == HistoryToken(storeIdentifier: "3F2A-1", sequence: 17))
        #expect(token.description == "3F2A-1:17")
        #expect(HistoryToken(storeIdentifier: "a", sequence: 2) < HistoryToken(storeIdentifier: "a", sequence: 10))
        let data = try JSONEncoder().encode(token)
        #expect(try JSONDecoder().decode(HistoryToken.self, from: data) == token)
        for bad in ["", "17", ":17", "a:", "a:-1", "a:x"] {
            #expect(throws: StrataError.self) { _ = try HistoryToken(parsing: bad) }
        }
    }

    @Test func historyOptionsAreReadFromBackendOptions() throws {
        #expect(try HistoryOptions(StoreOptions()) == HistoryOptions())
        let off = try HistoryOptions(StoreOptions(options: ["history": "OFF", "historyKeepDays": "7"]))
        #expect(off == HistoryOptions(isEnabled: false, keepDays: 7))
        for (name, value) in [("history", "maybe"), ("historyKeepDays", "0"), ("historyKeepTransactions", "x")] {
            let error = #expect(throws: StrataError.self) {
                _ = try HistoryOptions(StoreOptions(options: [name: value]))
            }
            #expect(error?.code == .invalidOption)
            #expect(error?.location["option"] == name)
        }
    }

    @Test func theRecorderListsOnlyChangedPropertiesAndUnorderedTargetsAsSets() throws {
        let model = try Model(
            versionIdentifier: "t",
            entities: [
                Entity(
                    "A",
                    attributes: [Attribute("x", .integer64), Attribute("y", .string, preservesValueOnDeletion: true)],
                    relationships: [Relationship("bs", to: "B", inverse: "a", toMany: true)]),
                Entity("B", attributes: [], relationships: [Relationship("a", to: "A", inverse: "bs")]),
            ])
        let recorder = HistoryChangeRecorder(model: model)
        let a = id("A", 1)
        let old = Snapshot(
            objectID: a, version: 1, attributes: [.integer(1), .string("s")],
            relationships: [.toMany([id("B", 1), id("B", 2)])])
        var new = old
        new.relationships = [.toMany([id("B", 2), id("B", 1)])]
        new.attributes[0] = .integer(2)
        #expect(
            recorder.changedProperties(from: old, to: new) == [
                PropertyChange(name: "x", oldValue: .attribute(.integer(1)), newValue: .attribute(.integer(2)))
            ])
        let changes = try recorder.changes(
            for: SaveRequest(deletes: [.init(a, expectedVersion: 1)]), storedState: { $0 == a ? old : nil })
        #expect(changes == [HistoryChange(kind: .delete, objectID: a, tombstone: ["y": .string("s")])])
        #expect(!recorder.needsStateOfDeleted("B"))
    }
}
