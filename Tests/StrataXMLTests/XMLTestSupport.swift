import Foundation
import StrataCore
import StrataTestSupport

@testable import StrataXML

extension TemporaryDirectory {
    /// An `xml:` URL for `name` inside the directory.
    func url(_ name: String = "store.xml") -> StoreURL { StoreURL(scheme: "xml", location: file(name)) }
}

/// The models the tests use.
enum TestModels {
    /// Every attribute type, optional, plus a required name; and a department/employee pair with
    /// to-one, to-many and ordered to-many relationships.
    static let allTypes: Model = {
        let attributes: [Attribute] = [
            Attribute("name", .string),
            Attribute("i16", .integer16, isOptional: true),
            Attribute("i32", .integer32, isOptional: true),
            Attribute("i64", .integer64, isOptional: true),
            Attribute("dbl", .double, isOptional: true),
            Attribute("flt", .float, isOptional: true),
            Attribute("dec", .decimal, isOptional: true),
            Attribute("str", .string, isOptional: true),
            Attribute("flag", .boolean, isOptional: true),
            Attribute("when", .date, isOptional: true),
            Attribute("blob", .binary, isOptional: true),
            Attribute("ident", .uuid, isOptional: true),
            Attribute("link", .uri, isOptional: true),
        ]
        return try! Model(
            versionIdentifier: "v1",
            entities: [
                Entity("Item", attributes: attributes),
                Entity(
                    "Department", attributes: [Attribute("name", .string)],
                    relationships: [
                        Relationship("employees", to: "Employee", inverse: "department", toMany: true),
                        Relationship("ranking", to: "Employee", inverse: "rankedIn", toMany: true, ordered: true),
                    ]),
                Entity(
                    "Employee",
                    attributes: [Attribute("name", .string), Attribute("badge", .integer32, isOptional: true)],
                    relationships: [
                        Relationship("department", to: "Department", inverse: "employees"),
                        Relationship("rankedIn", to: "Department", inverse: "ranking"),
                    ], uniqueConstraints: [["badge"]]),
            ])
    }()

    /// The `Item` entity.
    static var item: Entity { allTypes.entity(named: "Item")! }
}

/// Builds an `Item` snapshot with `name` and the given values (others nil).
func itemSnapshot(_ id: ObjectID, name: String, _ values: [String: Value] = [:]) -> Snapshot {
    let entity = TestModels.item
    var snapshot = Snapshot(objectID: id, entity: entity)
    snapshot.attributes[entity.attributeIndex(named: "name")!] = .string(name)
    for (key, value) in values { snapshot.attributes[entity.attributeIndex(named: key)!] = value }
    return snapshot
}

/// Opens the store at `url` with the all-types model.
func openStore(_ url: StoreURL, options: StoreOptions = StoreOptions()) throws -> XMLStore {
    try XMLBackend().openStore(url, model: TestModels.allTypes, options: options)
}

/// The bytes of the file at `path`.
func contents(_ path: String) -> [UInt8] {
    (FileManager.default.contents(atPath: path).map { Array($0) }) ?? []
}

/// Writes `text` to `path`.
func write(_ text: String, to path: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
}

extension Array where Element == String {
    /// The names without the store locks' files (`NAME.strata-lock`), which stay beside a store
    /// that was opened until the store is deleted.
    var withoutStoreLocks: [String] { filter { !$0.hasSuffix(".strata-lock") } }
}
