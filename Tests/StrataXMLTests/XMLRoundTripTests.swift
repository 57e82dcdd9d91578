import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

@Suite struct XMLRoundTripTests {
    /// Values that stress every attribute type's text form.
    static let tricky: [(String, [String: Value])] = [
        (
            "extremes",
            [
                "i16": .integer(Int64(Int16.min)), "i32": .integer(Int64(Int32.max)), "i64": .integer(.min),
                "dbl": .double(.nan), "flt": .float(.infinity),
                "dec": .decimal(Decimal(string: "-12345678901234567890.123456789")!),
                "str": .string(""), "flag": .bool(false),
                "when": .date(Date(timeIntervalSinceReferenceDate: 0.1 + 0.2)),
                "blob": .binary(Data()), "ident": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
                "link": .uri(URL(string: "https://example.com/a?b=1&c=<2>#\"x\"")!),
            ]
        ),
        (
            "negative infinities and zero",
            [
                "i64": .integer(.max), "dbl": .double(-.infinity), "flt": .float(-0.0), "dec": .decimal(.nan),
                "str": .string("  leading and trailing spaces  "), "flag": .bool(true),
                "when": .date(Date(timeIntervalSinceReferenceDate: -978_307_200.123456789)),
                "blob": .binary(Data((0...255).map { UInt8($0) })), "link": .uri(URL(string: "relative/path")!),
            ]
        ),
        (
            "tiny and huge doubles",
            [
                "dbl": .double(.leastNonzeroMagnitude), "flt": .float(.greatestFiniteMagnitude),
                "str": .string("tab\tnewline\ncarriage\rreturn & <tag> \"quoted\" 'single' &amp; &#38; é 日本 🦊"),
                "when": .date(Date(timeIntervalSinceReferenceDate: 1e300)),
            ]
        ),
        (
            "characters XML cannot carry",
            [
                "str": .string("nul\u{0}bell\u{7}escape\u{1B}fffe\u{FFFE}ffff\u{FFFF}"), "dbl": .double(-Double.nan),
                "flt": .float(.nan),
            ]
        ),
        (
            "decimal with many digits",
            [
                "dec": .decimal(Decimal(string: "0.00000000000000000000000000000000001")!),
                "dbl": .double(-Double.leastNormalMagnitude),
            ]
        ),
    ]

    @Test func everyAttributeTypeRoundTripsExactlyThroughTheFile() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let ids = try store.obtainPermanentIDs(for: "Item", count: Self.tricky.count + 1)
        var inserts = Self.tricky.enumerated().map { i, item in itemSnapshot(ids[i], name: item.0, item.1) }
        inserts.append(itemSnapshot(ids.last!, name: "all nil"))
        try store.save(SaveRequest(inserts: inserts))
        try store.close()

        let reopened = try openStore(dir.url())
        let fetched = try reopened.fetch(FetchRequest(entityName: "Item")).snapshots()
        #expect(fetched.count == inserts.count)
        for (stored, original) in zip(fetched, inserts) {
            #expect(stored.objectID == original.objectID)
            #expect(stored.version == 1)
            for (a, attribute) in TestModels.item.attributes.enumerated() {
                #expect(stored.attributes[a] == original.attributes[a], "\(original.attributes[0]) \(attribute.name)")
                if case .double(let x) = stored.attributes[a], case .double(let y) = original.attributes[a], !x.isNaN {
                    #expect(x.bitPattern == y.bitPattern, "\(attribute.name) must keep its exact bits")
                }
                if case .float(let x) = stored.attributes[a], case .float(let y) = original.attributes[a], !x.isNaN {
                    #expect(x.bitPattern == y.bitPattern, "\(attribute.name) must keep its exact bits")
                }
            }
        }
    }

    @Test func objectsGivingEveryPropertyRoundTripExactlyInAnyMix() throws {
        // Objects with every attribute set take the loader's canonical-order path once it has
        // seen one; a base64 string (a different attribute name) or a nil takes the other paths
        // in between. All must read back exactly.
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let strings = [
            "plain", "caf\u{E9} \u{1F600}", "a & b < c > d \" e", "tab\tline\nreturn\r", "bell\u{7}", "",
            "0123456789abcdefghij",
        ]
        let doubles = [
            966.0237957257917, -0.30000000000000004, Double.leastNonzeroMagnitude, 1e300, 0.0, -123456.78125,
            9_999_999.999999998,
        ]
        let ids = try store.obtainPermanentIDs(for: "Item", count: 40)
        let inserts = ids.enumerated().map { i, id in
            var values: [String: Value] = [
                "i16": .integer(Int64(i % 2 == 0 ? -32768 : 32767)), "i32": .integer(Int64(i) * 1_000_003),
                "i64": .integer(i % 3 == 0 ? .min : Int64(i) * 7_000_000_000_001),
                "dbl": .double(doubles[i % doubles.count] * Double(i + 1)), "flt": .float(Float(i) / 3),
                "dec": .decimal(Decimal(i) / 8),
                "str": .string(strings[i % strings.count]), "flag": .bool(i % 2 == 0),
                "when": .date(Date(timeIntervalSinceReferenceDate: Double(i) * 1e7 + 0.125)),
                "blob": .binary(Data([UInt8(i), 0, 255])), "ident": .uuid(UUID()),
                "link": .uri(URL(string: "https://example.com/\(i)?a=1&b=2")!),
            ]
            if i == 17 { values["i32"] = nil }
            return itemSnapshot(id, name: strings[(i + 3) % strings.count], values)
        }
        try store.save(SaveRequest(inserts: inserts))
        try store.close()

        let fetched = try openStore(dir.url()).fetch(FetchRequest(entityName: "Item")).snapshots()
        #expect(fetched.count == inserts.count)
        for (stored, original) in zip(fetched, inserts) {
            #expect(stored.objectID == original.objectID)
            #expect(stored.attributes == original.attributes)
            if case .double(let x) = stored.attributes[4], case .double(let y) = original.attributes[4] {
                #expect(x.bitPattern == y.bitPattern)
            }
        }
    }

    @Test func moreThanTheFirstObjectsWithLongStringsUnderAHugeSequenceLoadExactly() throws {
        // Past the 256th object the loader moves the string bytes into room reserved from the
        // average length and the planned count (here from a hand-edited _sequence near the
        // maximum, bounded by the file's size).
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var body =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<strata-store format=\"1\" modelHash=\"\(TestModels.allTypes.versionHash)\" modelVersion=\"v1\" storeIdentifier=\"S1\">\n"
        body += "<_sequence entity=\"Item\" next=\"9000000000000000000\"/>\n"
        func name(_ key: Int) -> String {
            String(repeating: Character(UnicodeScalar(UInt8(97 + key % 26))), count: key < 256 ? 4000 : 1 + key % 300)
        }
        for key in 1...600 {
            body += "<Item _pk=\"\(key)\" _version=\"\(key % 5)\" name=\"\(name(key))\" str=\"s\(key)\"/>\n"
        }
        body += "</strata-store>\n"
        write(body, to: dir.file("store.xml"))
        let store = try openStore(dir.url())
        let fetched = try store.fetch(FetchRequest(entityName: "Item")).snapshots()
        #expect(fetched.count == 600)
        for (i, snapshot) in fetched.enumerated() {
            let key = i + 1
            #expect(snapshot.version == Int64(key % 5))
            #expect(snapshot.value(of: "name", in: TestModels.item) == .string(name(key)), "\(key)")
            #expect(snapshot.value(of: "str", in: TestModels.item) == .string("s\(key)"), "\(key)")
        }
    }

    @Test func emptyStringAndNilStayDistinct() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let ids = try store.obtainPermanentIDs(for: "Item", count: 2)
        try store.save(
            SaveRequest(inserts: [
                itemSnapshot(ids[0], name: "", ["str": .string(""), "blob": .binary(Data())]),
                itemSnapshot(ids[1], name: "x"),
            ]))
        try store.close()
        let fetched = try openStore(dir.url()).fetch(FetchRequest(entityName: "Item")).snapshots()
        let item = TestModels.item
        #expect(fetched[0].value(of: "str", in: item) == .string(""))
        #expect(fetched[0].value(of: "blob", in: item) == .binary(Data()))
        #expect(fetched[1].value(of: "str", in: item) == .null)
        #expect(fetched[1].value(of: "blob", in: item) == .null)
    }

    @Test func relationshipsRoundTripWithBothSidesAndOrderedOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let model = TestModels.allTypes
        let department = model.entity(named: "Department")!
        let employee = model.entity(named: "Employee")!
        let d = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        let e = try store.obtainPermanentIDs(for: "Employee", count: 3)
        var ds = Snapshot(objectID: d, entity: department)
        ds.attributes[0] = "Eng"
        ds.relationships[0] = .toMany([e[2], e[0], e[1]])
        ds.relationships[1] = .toMany([e[2], e[0], e[1]])
        let es = e.map { id -> Snapshot in
            var s = Snapshot(objectID: id, entity: employee)
            s.attributes[0] = .string("e\(id.primaryKey!)")
            s.relationships = [.toOne(d), .toOne(d)]
            return s
        }
        try store.save(SaveRequest(inserts: [ds] + es))
        try store.close()

        let reopened = try openStore(dir.url())
        let fetchedDepartment = try reopened.fetch(FetchRequest(entityName: "Department")).snapshots()[0]
        #expect(fetchedDepartment.relationships[0] == .toMany([e[0], e[1], e[2]]), "unordered: sorted by key")
        #expect(fetchedDepartment.relationships[1] == .toMany([e[2], e[0], e[1]]), "ordered: the user's order")
        let fetchedEmployees = try reopened.fetch(FetchRequest(entityName: "Employee")).snapshots()
        #expect(fetchedEmployees.map(\.relationships) == Array(repeating: [.toOne(d), .toOne(d)], count: 3))
    }

    @Test func keysAreNeverReusedAfterDeleteAndReopen() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let ids = try store.obtainPermanentIDs(for: "Item", count: 3)
        try store.save(SaveRequest(inserts: ids.map { itemSnapshot($0, name: "x") }))
        try store.save(SaveRequest(deletes: ids.map { SaveRequest.Delete($0, expectedVersion: 1) }))
        try store.close()
        let reopened = try openStore(dir.url())
        let next = try reopened.obtainPermanentIDs(for: "Item", count: 1)[0]
        #expect(next.primaryKey == 4)
    }

    @Test func metadataAndUserInfoSurviveReopen() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        try store.save(SaveRequest(metadataChanges: ["owner": "lxz & co <x>", "gone": nil]))
        let identifier = store.identifier
        try store.close()
        let metadata = try XMLBackend().metadata(at: dir.url())
        #expect(metadata?.storeIdentifier == identifier)
        #expect(metadata?.userInfo == ["owner": "lxz & co <x>"])
        #expect(metadata?.modelVersionHash == TestModels.allTypes.versionHash)
        #expect(metadata?.storeType == "xml")
        #expect(try XMLBackend().metadata(at: dir.url("missing.xml")) == nil)
    }
}
