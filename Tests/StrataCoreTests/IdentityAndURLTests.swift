import Foundation
import StrataCore
import Testing

@Suite struct IdentityAndURLTests {
    @Test func permanentIDURIRoundTrips() throws {
        let id = ObjectID(
            entityName: "Employee", storeIdentifier: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", primaryKey: 42)
        #expect(id.uriRepresentation == "strata://E621E1F8-C36C-495A-93FC-0C247A3E6E5F/Employee/p42")
        #expect(try ObjectID(uriRepresentation: id.uriRepresentation) == id)
    }

    @Test func temporaryIDURIRoundTrips() throws {
        let id = ObjectID.temporary(entityName: "Employee")
        #expect(id.isTemporary && id.primaryKey == nil)
        #expect(try ObjectID(uriRepresentation: id.uriRepresentation) == id)
    }

    @Test(arguments: [
        "", "http://x/E/p1", "strata://S/E", "strata://S/E/q1", "strata://S/E/p", "strata://S/E/pten", "strata:///E/p1",
        "strata://S/E/tnot-a-uuid", "strata://S/1E/p1", "strata://S S/E/p1", "strata://S/E/p99999999999999999999",
    ])
    func malformedIDURIIsATypedError(_ text: String) {
        let error = #expect(throws: StrataError.self) { _ = try ObjectID(uriRepresentation: text) }
        #expect(error?.code == .invalidObjectID)
        #expect(error?.location["uri"] == text)
    }

    @Test func idsOrderByEntityThenKey() {
        let a = ObjectID(entityName: "A", storeIdentifier: "s", primaryKey: 10)
        let b = ObjectID(entityName: "A", storeIdentifier: "s", primaryKey: 9)
        let c = ObjectID(entityName: "B", storeIdentifier: "s", primaryKey: 1)
        #expect([a, c, b].sorted() == [b, a, c])
    }

    @Test func storeURLsParse() throws {
        #expect(try StoreURL.parse("memory:") == StoreURL(scheme: "memory", location: ""))
        #expect(try StoreURL.parse("memory:cache") == StoreURL(scheme: "memory", location: "cache"))
        #expect(
            try StoreURL.parse("sqlite:/var/data/app.sqlite")
                == StoreURL(scheme: "sqlite", location: "/var/data/app.sqlite"))
        #expect(
            try StoreURL.parse("sqlite:///var/data/app.sqlite")
                == StoreURL(scheme: "sqlite", location: "/var/data/app.sqlite"))
        #expect(try StoreURL.parse("lmdb:relative/dir").location == "relative/dir")
        #expect(try StoreURL.parse("xml:C:with:colons").location == "C:with:colons")
        #expect(StoreURL("sqlite:/x")?.description == "sqlite:/x")
    }

    @Test(arguments: ["", "nocolon", ":path", "SQLite:/x", "sq lite:/x", "1db:/x", "sqlite://:5432/x"])
    func malformedStoreURLIsATypedError(_ text: String) {
        let error = #expect(throws: StrataError.self) { _ = try StoreURL.parse(text) }
        #expect(error?.code == .invalidStoreURL)
        #expect(error?.message.contains("SCHEME:LOCATION") == true)
    }

    @Test func unknownSchemeListsTheRegisteredOnes() throws {
        let registry = StoreRegistry()
        registry.register(StubBackend(scheme: "alpha"))
        registry.register(StubBackend(scheme: "beta"))
        let error = #expect(throws: StrataError.self) { _ = try registry.backend(for: "gamma") }
        #expect(error?.code == .unknownStoreScheme)
        #expect(error?.message.contains("alpha, beta") == true)
        #expect(registry.schemes == ["alpha", "beta"])
        registry.registerIfAbsent(StubBackend(scheme: "alpha", marker: "second"))
        #expect((try registry.backend(for: "alpha") as? StubBackend)?.marker == "first")
    }

    @Test func metadataMismatchNamesBothHashes() throws {
        let a = try Model(versionIdentifier: "v1", entities: [Entity("E", attributes: [Attribute("a", .string)])])
        let b = try Model(
            versionIdentifier: "v2", entities: [Entity("E", attributes: [Attribute("a", .string, isOptional: true)])])
        let metadata = StoreMetadata.new(storeType: "memory", model: a)
        try metadata.checkCompatible(with: a, at: StoreURL(scheme: "memory", location: ""))
        let error = #expect(throws: StrataError.self) {
            try metadata.checkCompatible(with: b, at: StoreURL(scheme: "memory", location: "x"))
        }
        #expect(error?.code == .modelMismatch)
        #expect(error?.message.contains(a.versionHash) == true && error?.message.contains(b.versionHash) == true)
        #expect(error?.message.contains("v1") == true && error?.message.contains("v2") == true)
    }
}

/// A backend that opens nothing: enough to test the registry.
struct StubBackend: StoreBackend {
    let scheme: String
    var marker = "first"
    var capabilities: BackendCapabilities { [] }
    func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        throw StrataError(.unsupported, "stub")
    }
    func metadata(at url: StoreURL) throws -> StoreMetadata? { nil }
    func destroyStore(at url: StoreURL) throws {}
}
