import Foundation
import StrataCore
import StrataTortureKit
import Testing

/// Hostile XML store files beyond the external-entity and billion-laughs files of
/// `XMLSafetyTests`: deep nesting, huge and numerous attributes, long names, bad encodings,
/// out-of-range numbers. Each is refused with a typed error, quickly, and left untouched.
@Suite struct HostileXMLTests {
    static func root() throws -> String {
        "<strata-store format=\"1\" modelHash=\"\(try TortureModel.model().versionHash)\" modelVersion=\"torture\" storeIdentifier=\"S1\">"
    }

    static let groups = (0..<4).map { "<Group _pk=\"\($0 + 1)\" _version=\"1\" name=\"g\($0)\" revision=\"0\"/>" }
        .joined(separator: "\n")
    static let rest =
        "<Journal _pk=\"1\" _version=\"1\" lastSave=\"0\"/>\n"
        + (0..<4).map { "<Counter _pk=\"\($0 + 1)\" _version=\"1\" slot=\"\($0)\" value=\"0\"/>" }.joined(
            separator: "\n")

    /// A store file with `body` among valid objects.
    static func file(_ body: String) throws -> [UInt8] {
        Array(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(try root())\n\(groups)\n\(rest)\n\(body)\n</strata-store>\n"
                .utf8)
    }

    /// The hostile files: name, bytes.
    static func corpus() throws -> [(String, [UInt8])] {
        let deep = String(repeating: "<Item>", count: 100_000) + String(repeating: "</Item>", count: 100_000)
        let manyAttributes =
            "<Item _pk=\"1\" _version=\"1\" " + (0..<50_000).map { "a\($0)=\"x\"" }.joined(separator: " ") + "/>"
        return [
            ("100,000 nested elements", try file(deep)),
            ("100,000 nested elements outside the root", Array(("<?xml version=\"1.0\"?>\n" + deep).utf8)),
            (
                "a 12 MB attribute value",
                try file(
                    "<Item _pk=\"1\" _version=\"1\" slot=\"1\" value=\"1\" label=\""
                        + String(repeating: "A", count: 12_000_000) + "\" group=\"1\"/>")
            ),
            ("a 12 MB element name", try file("<" + String(repeating: "I", count: 12_000_000) + "/>")),
            ("50,000 attributes on one element", try file(manyAttributes)),
            (
                "a duplicated attribute",
                try file("<Item _pk=\"1\" _pk=\"2\" _version=\"1\" slot=\"1\" value=\"1\" label=\"x\" group=\"1\"/>")
            ),
            (
                "a primary key beyond Int64",
                try file(
                    "<Item _pk=\"99999999999999999999\" _version=\"1\" slot=\"1\" value=\"1\" label=\"x\" group=\"1\"/>"
                )
            ),
            (
                "a negative primary key",
                try file("<Item _pk=\"-1\" _version=\"1\" slot=\"1\" value=\"1\" label=\"x\" group=\"1\"/>")
            ),
            (
                "a value beyond Int64",
                try file(
                    "<Item _pk=\"1\" _version=\"1\" slot=\"1\" value=\"-9223372036854775809\" label=\"x\" group=\"1\"/>"
                )
            ),
            ("a sequence beyond Int64", try file("<_sequence entity=\"Item\" next=\"18446744073709551616\"/>")),
            (
                "a relationship list of 1,000,000 keys",
                try file(
                    "<Group _pk=\"9\" _version=\"1\" name=\"g9\" revision=\"0\" items=\""
                        + (0..<1_000_000).map { _ in "7" }.joined(separator: " ") + "\"/>")
            ),
            (
                "a NUL byte",
                try file("<Item _pk=\"1\" _version=\"1\" slot=\"1\" value=\"1\" label=\"a\u{0}b\" group=\"1\"/>")
            ),
            (
                "invalid UTF-8",
                try file("<Item _pk=\"1\" _version=\"1\" slot=\"1\" value=\"1\" label=\"") + [0xC3, 0x28, 0xFF]
                    + Array("\" group=\"1\"/>\n</strata-store>\n".utf8)
            ),
            (
                "a UTF-16 encoding declaration on UTF-8 bytes",
                Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n".utf8) + (try file("")).dropFirst(39)
            ),
            (
                "an unknown encoding",
                Array("<?xml version=\"1.0\" encoding=\"X-STRATA-9\"?>\n".utf8) + (try file("")).dropFirst(39)
            ),
            (
                "a parameter entity",
                Array("<?xml version=\"1.0\"?>\n<!DOCTYPE s [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]>\n".utf8)
                    + (try file("")).dropFirst(39)
            ),
            (
                "an XInclude",
                try file(
                    "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"file:///etc/passwd\" parse=\"text\"/>"
                )
            ),
            ("a processing instruction", try file("<?php system('id'); ?>")),
            ("CDATA", try file("<![CDATA[ <Item _pk=\"1\"/> ]]>")),
            ("an unterminated comment", try file("<!-- " + String(repeating: "-", count: 1_000_000))),
            ("a namespace on an object", try file("<x:Item xmlns:x=\"urn:x\" _pk=\"1\" _version=\"1\"/>")),
            ("a second root element", try file("") + Array("<strata-store/>\n".utf8)),
            ("only a BOM", [0xEF, 0xBB, 0xBF]),
            ("a BOM and nothing after the declaration", [0xEF, 0xBB, 0xBF] + Array("<?xml version=\"1.0\"?>".utf8)),
        ]
    }

    @Test func everyHostileXMLStoreFileIsRefusedWithATypedErrorQuicklyAndLeftUntouched() throws {
        var outcomes: [String: Int] = [:]
        let corpus = try Self.corpus()
        for (name, bytes) in corpus {
            let url = temporaryStoreURL("xml")
            try Data(bytes).write(to: URL(fileURLWithPath: url.location))
            let start = Date()
            let outcome: String
            do {
                let store = try TortureStores.open(url, options: StoreOptions(createsIfMissing: false))
                defer { try? store.close() }
                for entity in store.model.entities {
                    _ = try store.fetch(FetchRequest(entityName: entity.name)).snapshots()
                }
                outcome = "opened"
            } catch let error as StrataError {
                outcome = error.code.rawValue
                #expect(error.location["path"] == url.location, "\(name): \(error)")
            } catch {
                outcome = "untyped"
            }
            outcomes[outcome, default: 0] += 1
            // Two are well-formed store files: a processing instruction is ignored (never run), and
            // a negative key is a key (stores never hand one out, but may hold one).
            let harmless = ["a processing instruction", "a negative primary key"].contains(name)
            #expect(
                ["storeCorrupt", "unsupported"].contains(outcome) || (harmless && outcome == "opened"),
                "\(name): \(outcome)")
            #expect(Date().timeIntervalSince(start) < 10, "\(name) took \(Date().timeIntervalSince(start)) s")
            #expect(
                Array(try Data(contentsOf: URL(fileURLWithPath: url.location))) == bytes,
                "\(name): the file was changed")
            try? FileManager.default.removeItem(atPath: (url.location as NSString).deletingLastPathComponent)
        }
        reportCount(
            "hostile xml: \(corpus.count) inputs tried, outcomes \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        )
    }
}
