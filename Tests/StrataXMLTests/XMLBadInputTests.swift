import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

/// One bad file: its body after the two header lines, the line the error must name, and a
/// fragment of the message.
struct BadInputCase: CustomTestStringConvertible, Sendable {
    var name: String
    var body: String
    var line: Int
    var fragment: String
    var replacesHeader = false
    var testDescription: String { name }
}

@Suite struct XMLBadInputTests {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <strata-store format="1" modelHash="\(TestModels.allTypes.versionHash)" modelVersion="v1" storeIdentifier="S1">

        """

    static let cases: [BadInputCase] = [
        BadInputCase(
            name: "malformed XML",
            body:
                "<Item _pk=\"1\" _version=\"1\" name=\"ok\"/>\n<Item _pk=\"2\" _version=\"1\" name=\"a & b\"/>\n</strata-store>\n",
            line: 4, fragment: "not well-formed"),
        BadInputCase(
            name: "unclosed root", body: "<Item _pk=\"1\" _version=\"1\" name=\"ok\"/>\n", line: 3,
            fragment: "not well-formed"),
        BadInputCase(
            name: "wrong root element", body: "<?xml version=\"1.0\"?>\n<store format=\"1\">\n</store>\n", line: 2,
            fragment: "root element is <store>", replacesHeader: true),
        BadInputCase(
            name: "unknown entity",
            body: "<Item _pk=\"1\" _version=\"1\" name=\"ok\"/>\n<Gadget _pk=\"1\" _version=\"1\"/>\n</strata-store>\n",
            line: 4, fragment: "unknown entity <Gadget>"),
        BadInputCase(
            name: "unknown attribute",
            body: "\n\n<Item _pk=\"1\" _version=\"1\" name=\"x\" colour=\"red\"/>\n</strata-store>\n", line: 5,
            fragment: "unknown attribute 'colour'"),
        BadInputCase(
            name: "integer out of range",
            body: "<Item _pk=\"1\" _version=\"1\" name=\"x\" i16=\"70000\"/>\n</strata-store>\n", line: 3,
            fragment: "is not a valid integer16"),
        BadInputCase(
            name: "boolean of the wrong type",
            body: "<Item _pk=\"1\" _version=\"1\" name=\"x\"\n   flag=\"yes\"/>\n</strata-store>\n", line: 4,
            fragment: "\"yes\" is not a valid boolean"),
        BadInputCase(
            name: "double of the wrong type",
            body: "<Item _pk=\"1\" _version=\"1\" name=\"x\" dbl=\"1.5x\"/>\n</strata-store>\n", line: 3,
            fragment: "is not a valid double"),
        BadInputCase(
            name: "date of the wrong type",
            body: "<Item _pk=\"1\" _version=\"1\" name=\"x\" when=\"yesterday\"/>\n</strata-store>\n", line: 3,
            fragment: "is not a valid date"),
        BadInputCase(
            name: "uuid of the wrong type",
            body: "<Item _pk=\"1\" _version=\"1\" name=\"x\" ident=\"nope\"/>\n</strata-store>\n", line: 3,
            fragment: "is not a valid uuid"),
        BadInputCase(
            name: "reference to an object that does not exist",
            body:
                "<Department _pk=\"1\" _version=\"1\" name=\"d\" employees=\"1\"/>\n<Employee _pk=\"1\" _version=\"1\" name=\"a\" department=\"1\"/>\n<Employee _pk=\"2\" _version=\"1\" name=\"b\" department=\"9\"/>\n</strata-store>\n",
            line: 5, fragment: "refers to Department 9, which does not exist"),
        BadInputCase(
            name: "malformed reference list",
            body: "<Department _pk=\"1\" _version=\"1\" name=\"d\" employees=\"1,2\"/>\n</strata-store>\n", line: 3,
            fragment: "is not space-separated primary keys"),
        BadInputCase(
            name: "missing required attribute", body: "<Item _pk=\"1\" _version=\"1\"/>\n</strata-store>\n", line: 3,
            fragment: "required attribute 'name'"),
        BadInputCase(
            name: "missing primary key", body: "<Item _version=\"1\" name=\"x\"/>\n</strata-store>\n", line: 3,
            fragment: "has no _pk"),
        BadInputCase(
            name: "duplicate primary key",
            body:
                "<Item _pk=\"1\" _version=\"1\" name=\"x\"/>\n<Item _pk=\"1\" _version=\"1\" name=\"y\"/>\n</strata-store>\n",
            line: 4, fragment: "appears twice"),
        BadInputCase(
            name: "nested element",
            body:
                "<Item _pk=\"1\" _version=\"1\" name=\"x\"><Item _pk=\"2\" _version=\"1\" name=\"y\"/></Item>\n</strata-store>\n",
            line: 3, fragment: "is nested inside an object"),
        BadInputCase(
            name: "text content", body: "<Item _pk=\"1\" _version=\"1\" name=\"x\">hello</Item>\n</strata-store>\n",
            line: 3, fragment: "unexpected text"),
        BadInputCase(
            name: "undeclared entity reference", body: "<_meta key=\"k\" value=\"&foo;\"/>\n</strata-store>\n", line: 3,
            fragment: "not well-formed"),
        BadInputCase(
            name: "sequence of an unknown entity", body: "<_sequence entity=\"Gadget\" next=\"3\"/>\n</strata-store>\n",
            line: 3, fragment: "names entity 'Gadget'"),
        BadInputCase(name: "empty file", body: "", line: 1, fragment: "not well-formed", replacesHeader: true),
        // The same names in a second object, so the loader has seen them once (its fast path).
        BadInputCase(
            name: "primary key not an integer",
            body:
                "<Item _pk=\"1\" _version=\"1\" name=\"x\"/>\n<Item _pk=\"2x\" _version=\"1\" name=\"y\"/>\n</strata-store>\n",
            line: 4, fragment: "_pk '2x' is not a 64-bit integer"),
        BadInputCase(
            name: "negative version",
            body:
                "<Item _pk=\"1\" _version=\"1\" name=\"x\"/>\n<Item _pk=\"2\" _version=\"-1\" name=\"y\"/>\n</strata-store>\n",
            line: 4, fragment: "_version '-1' is not a version"),
        BadInputCase(
            name: "a string given as text and as base64",
            body:
                "<Item _pk=\"1\" _version=\"1\" name=\"x\" str=\"a\"/>\n<Item _pk=\"2\" _version=\"1\" name=\"y\" str=\"a\" str.b64=\"YQ==\"/>\n</strata-store>\n",
            line: 4, fragment: "Item.str is given twice"),
        BadInputCase(
            name: "integer of the wrong type in a later object",
            body:
                "<Item _pk=\"1\" _version=\"1\" name=\"x\" i64=\"1\"/>\n\n<Item _pk=\"2\" _version=\"1\" name=\"y\" i64=\"1.5\"/>\n</strata-store>\n",
            line: 5, fragment: "Item.i64 = \"1.5\" is not a valid integer64"),
        BadInputCase(
            name: "attribute with a namespace prefix",
            body: "<Item _pk=\"1\" _version=\"1\" name=\"x\" xml:lang=\"en\"/>\n</strata-store>\n", line: 3,
            fragment: "has a namespace prefix"),
        // An element with no attributes before any object taught the loader the canonical order
        // (whose length is 0 until then): libxml2's attribute array still holds the root's.
        BadInputCase(
            name: "an object with no attributes first", body: "<Item/>\n</strata-store>\n", line: 3,
            fragment: "<Item> has no _pk"),
        BadInputCase(
            name: "nested objects with no attributes", body: "<Item><Item></Item></Item>\n</strata-store>\n", line: 3,
            fragment: "<Item> has no _pk"),
        // Found after the parse, so their lines come from parsing the file again.
        BadInputCase(
            name: "duplicate key out of order among other elements",
            body:
                "<Item _pk=\"5\" _version=\"1\" name=\"a\"/>\n<Department _pk=\"1\" _version=\"1\" name=\"d\"/>\n\n<Item _pk=\"2\" _version=\"1\"\n  name=\"b\"/>\n<Item _pk=\"5\" _version=\"1\" name=\"c\"/>\n</strata-store>\n",
            line: 8, fragment: "<Item _pk=\"5\"> appears twice (also at line 3)"),
        BadInputCase(
            name: "reference to a missing object in a table read out of key order",
            body:
                "<Department _pk=\"1\" _version=\"1\" name=\"d\"/>\n<Employee _pk=\"3\" _version=\"1\" name=\"a\" department=\"1\"/>\n<Employee _pk=\"1\" _version=\"1\" name=\"b\"\n  department=\"9\"/>\n<Employee _pk=\"2\" _version=\"1\" name=\"c\" department=\"1\"/>\n</strata-store>\n",
            line: 6, fragment: "Employee 1.department refers to Department 9"),
        // Objects listing every property in the canonical order, after one that taught the loader
        // that order (its canonical path, which skips name resolution).
        BadInputCase(
            name: "canonical order: key not an integer", body: fullItems(["_pk": "3x"]), line: 5,
            fragment: "_pk '3x' is not a 64-bit integer"),
        BadInputCase(
            name: "canonical order: negative version", body: fullItems(["_version": "-2"]), line: 5,
            fragment: "_version '-2' is not a version"),
        BadInputCase(
            name: "canonical order: integer out of range", body: fullItems(["i16": "70000"]), line: 5,
            fragment: "Item.i16 = \"70000\" is not a valid integer16"),
        BadInputCase(
            name: "canonical order: double of the wrong type", body: fullItems(["dbl": "1.2345678x"]), line: 5,
            fragment: "Item.dbl = \"1.2345678x\" is not a valid double"),
        BadInputCase(
            name: "canonical order: boolean of the wrong type", body: fullItems(["flag": "yes"]), line: 5,
            fragment: "Item.flag = \"yes\" is not a valid boolean"),
        BadInputCase(
            name: "canonical order: uri of the wrong type", body: fullItems(["link": ""]), line: 5,
            fragment: "is not a valid uri"),
        BadInputCase(
            name: "canonical order: duplicate key", body: fullItems(["_pk": "2"]), line: 5,
            fragment: "appears twice (also at line 4)"),
        BadInputCase(
            name: "canonical order: prefixed attribute", body: fullItems(["xml:lang": "en"]), line: 5,
            fragment: "has a namespace prefix"),
    ]

    /// Three `Item`s giving every property in the canonical order, on lines 3, 4 and 5 of the
    /// file, the third with `changes` (a name not yet there is added at the end).
    static func fullItems(_ changes: [String: String]) -> String {
        let names = [
            "_pk", "_version", "name", "i16", "i32", "i64", "dbl", "flt", "dec", "str", "flag", "when", "blob", "ident",
            "link",
        ]
        func item(_ key: Int, _ changes: [String: String] = [:]) -> String {
            var values = [
                "_pk": String(key), "_version": "1", "name": "n\(key)", "i16": "-7", "i32": "123456",
                "i64": "-9000000000",
                "dbl": "966.0237957257917", "flt": "2.5", "dec": "3.25", "str": "caf\u{E9} &amp; tea", "flag": "true",
                "when": "-978307200.1234568", "blob": "AAEC", "ident": "00000000-0000-0000-0000-000000000001",
                "link": "https://example.com/a?b=1&amp;c=2",
            ]
            var order = names
            for (name, value) in changes {
                if values[name] == nil { order.append(name) }
                values[name] = value
            }
            return "<Item " + order.map { "\($0)=\"\(values[$0]!)\"" }.joined(separator: " ") + "/>\n"
        }
        return item(1) + item(2) + item(3, changes) + "</strata-store>\n"
    }

    @Test(arguments: cases)
    func badInputIsRejectedWithItsLineAndTheFileIsUntouched(_ badCase: BadInputCase) throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("store.xml")
        write((badCase.replacesHeader ? "" : Self.header) + badCase.body, to: path)
        let before = contents(path)
        let error = strataError { _ = try openStore(dir.url()) }
        #expect(error?.code == .storeCorrupt, "\(String(describing: error))")
        #expect(error?.location["line"] == String(badCase.line), "\(String(describing: error))")
        #expect(error?.location["path"] == path)
        #expect(error?.message.contains(badCase.fragment) == true, "\(String(describing: error))")
        #expect(contents(path) == before, "a bad file is never touched")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).withoutStoreLocks.sorted() == ["store.xml"],
            "nothing is created beside it")
    }

    @Test func anotherModelsFileIsAModelMismatchAndStaysUntouched() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        try store.close()
        let before = contents(dir.file("store.xml"))
        let other = try Model(
            versionIdentifier: "v2", entities: [Entity("Other", attributes: [Attribute("x", .string)])])
        let error = strataError { _ = try XMLBackend().open(dir.url(), model: other, options: StoreOptions()) }
        #expect(error?.code == .modelMismatch)
        #expect(contents(dir.file("store.xml")) == before)
    }

    @Test func aNewerFormatVersionIsRefusedAsUnsupported() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        write(
            Self.header.replacingOccurrences(of: "format=\"1\"", with: "format=\"2\"") + "</strata-store>\n",
            to: dir.file("store.xml"))
        let error = strataError { _ = try openStore(dir.url()) }
        #expect(error?.code == .unsupported)
        #expect(error?.location["line"] == "2")
    }

    @Test func attributesInAnyOrderReadTheSameAsInTheCanonicalOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        write(
            Self.header + """
                <Item _pk="1" _version="1" name="a" i64="7" dbl="0.5" str="s &amp; t"/>
                <Item str="s &amp; t" dbl="0.5" i64="7" name="a" _version="1" _pk="2"/>
                <Item name="a" _pk="3" str.b64="cyAmIHQ=" _version="1" dbl="0.5" i64="7"/>
                </strata-store>

                """, to: dir.file("store.xml"))
        let snapshots = try openStore(dir.url()).fetch(FetchRequest(entityName: "Item")).snapshots()
        #expect(snapshots.map { $0.objectID.primaryKey! } == [1, 2, 3])
        let item = TestModels.item
        for snapshot in snapshots {
            #expect(snapshot.attributes[item.attributeIndex(named: "i64")!] == .integer(7))
            #expect(snapshot.attributes[item.attributeIndex(named: "dbl")!] == .double(0.5))
            #expect(snapshot.attributes[item.attributeIndex(named: "str")!] == .string("s & t"))
            #expect(snapshot.attributes[item.attributeIndex(named: "name")!] == .string("a"))
        }
    }

    @Test func aHandEditedFileWithObjectsOutOfOrderLoadsSorted() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        write(
            Self.header
                + "<Item _pk=\"3\" _version=\"1\" name=\"c\"/>\n<Item _pk=\"1\" _version=\"2\" name=\"a\"/>\n</strata-store>\n",
            to: dir.file("store.xml"))
        let store = try openStore(dir.url())
        let keys = try store.fetch(FetchRequest(entityName: "Item")).snapshots().map { $0.objectID.primaryKey! }
        #expect(keys == [1, 3])
        #expect(
            try store.obtainPermanentIDs(for: "Item", count: 1)[0].primaryKey == 4,
            "keys continue after the largest one in the file")
    }
}
