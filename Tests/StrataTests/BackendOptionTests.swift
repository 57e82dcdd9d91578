import Foundation
import Strata
import Testing

/// A backend from outside Strata with options of its own, one of them with a config-file key.
private struct CloudBackend: StoreBackend {
    let scheme = "cloud"
    let capabilities: BackendCapabilities = []
    var supportedOptions: [StoreBackendOption]? {
        [
            .choice(
                "consistency", ["strong", "eventual"], summary: "How reads see writers.",
                configFileKey: "cloudConsistency"),
            .integer("timeout", in: 1...60_000, unit: "milliseconds", summary: "How long a request may take."),
        ]
    }
    func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        try checkOptions(options.options, for: url)
        throw StrataError(.storeNotFound, "no cloud here")
    }
    func metadata(at url: StoreURL) throws -> StoreMetadata? { nil }
    func destroyStore(at url: StoreURL) throws {}
}

@Suite struct BackendOptionTests {
    private func parse(_ text: String, registry: StoreRegistry = BuiltInBackends.registry) throws -> [StoreDescription]
    {
        try StoreDescription.parse(Data(text.utf8), file: "/etc/app/stores.json", registry: registry)
    }

    @Test func theBuiltInBackendsDeclareTheirOptions() throws {
        let history = Set(HistoryOptions.supportedOptions.map(\.name))
        let names = try ["sqlite", "lmdb", "xml", "memory"].map { scheme in
            try BuiltInBackends.registry.backend(for: scheme).supportedOptions?.map(\.name).sorted()
        }
        #expect(Set(names[3] ?? []) == history, "the in-memory store takes the history options")
        #expect(
            names.map { $0?.filter { !history.contains($0) } } == [
                ["busyTimeout", "synchronous", "vfs"], ["durability", "mapSize", "maxMapSize", "pageCheck", "sync"],
                ["lockTimeout"],
                [],
            ])
    }

    @Test(arguments: ["sqlite", "lmdb", "xml", "memory"])
    func anUnknownOptionNamesTheOptionAndTheBackend(_ scheme: String) throws {
        let backend = try BuiltInBackends.registry.backend(for: scheme)
        let url = StoreURL(scheme: scheme, location: "/nonexistent-\(UUID().uuidString)/store")
        let model = try Model(entities: [Entity("Note", attributes: [Attribute("text", .string)])])
        let error = #expect(throws: StrataError.self) {
            _ = try backend.open(url, model: model, options: StoreOptions(options: ["journalMode": "wal"]))
        }
        #expect(error?.code == .invalidOption && error?.location["option"] == "journalMode")
        #expect(error?.location["backend"] == scheme && error?.message.contains("the \(scheme) backend") == true)
    }

    @Test func aBadValueSaysWhatTheOptionTakes() throws {
        let error = #expect(throws: StrataError.self) {
            try BuiltInBackends.registry.backend(for: "xml").checkOptions(["lockTimeout": "-5"], for: nil)
        }
        #expect(error?.code == .invalidOption && error?.location["value"] == "-5")
        #expect(error?.message.contains("a number of milliseconds from 0 to") == true)
    }

    @Test func aConfigFileOptionTheBackendLacksIsNamedWithItsPath() {
        let error = #expect(throws: StrataError.self) {
            try parse(#"{"stores": [{"url": "sqlite:a.sqlite", "options": {"mapSize": 4194304}}]}"#)
        }
        #expect(error?.code == .invalidOption && error?.location["backend"] == "sqlite")
        #expect(error?.location["option"] == "mapSize" && error?.location["path"] == "$.stores[0].options.mapSize")
        #expect(error?.location["file"] == "/etc/app/stores.json")
        let value = #expect(throws: StrataError.self) {
            try parse(#"{"stores": [{"url": "lmdb:db", "options": {"sync": "sometimes"}}]}"#)
        }
        #expect(value?.code == .invalidOption && value?.location["value"] == "\"sometimes\"")
    }

    @Test func anotherBackendsShorthandKeyIsUnknown() {
        let error = #expect(throws: StrataError.self) {
            try parse(#"{"stores": [{"url": "lmdb:db", "sqliteSynchronous": "full"}]}"#)
        }
        #expect(error?.code == .invalidConfiguration && error?.location["path"] == "$.stores[0].sqliteSynchronous")
        #expect(error?.message.contains("lmdbMapSize") == true, "the message lists the keys the LMDB store has")
    }

    @Test func anUnregisteredSchemeInAConfigFileIsNamedWithItsPath() {
        let error = #expect(throws: StrataError.self) { try parse(#"{"stores": [{"url": "cloud:bucket/app"}]}"#) }
        #expect(error?.code == .unknownStoreScheme && error?.location["path"] == "$.stores[0].url")
    }

    @Test func aNewBackendBringsItsOptionsAndConfigFileKeys() throws {
        let registry = StoreRegistry()
        registry.register(CloudBackend())
        let descriptions = try parse(
            #"{"stores": [{"url": "cloud:bucket/app", "cloudConsistency": "eventual", "options": {"timeout": 250}}]}"#,
            registry: registry)
        #expect(descriptions[0].options == ["consistency": "eventual", "timeout": "250"])
        let bad = #expect(throws: StrataError.self) {
            try parse(#"{"stores": [{"url": "cloud:b", "cloudConsistency": "sometimes"}]}"#, registry: registry)
        }
        #expect(bad?.code == .invalidOption && bad?.location["path"] == "$.stores[0].cloudConsistency")
        #expect(bad?.message.contains("one of: strong, eventual") == true)
    }

    @Test func theEnvironmentChecksTheOptionsItKeepsWithTheRegistry() throws {
        var description = try StoreDescription("sqlite:main.sqlite")
        description.options["busyTimeout"] = "soon"
        let environment = ["STRATA_STORE": "sqlite:/data/main.sqlite"]
        #expect(
            try StoreDescription.applyingEnvironment(environment, to: [description])[0].url.location
                == "/data/main.sqlite")
        let error = #expect(throws: StrataError.self) {
            try StoreDescription.applyingEnvironment(environment, to: [description], registry: BuiltInBackends.registry)
        }
        #expect(error?.code == .invalidOption && error?.location["environment"] == "STRATA_STORE")
        let unknown = #expect(throws: StrataError.self) {
            try StoreDescription.applyingEnvironment(
                ["STRATA_STORE": "cloud:x"], to: [description], registry: BuiltInBackends.registry)
        }
        #expect(unknown?.code == .unknownStoreScheme && unknown?.location["environment"] == "STRATA_STORE")
    }
}
