import Foundation
import Strata
import StrataLMDB
import Testing

/// A file store's URL may carry the backend's options as its query (`lmdb:data?durability=full`):
/// they are honoured as options, never taken as part of the file name, and a bad one is refused.
@Suite struct StoreURLQueryOptionsTests {
    private let model: Model

    init() throws {
        model = try Model(entities: [Entity("Note", attributes: [Attribute("text", .string)])])
    }

    /// A fresh directory, and what it holds afterwards.
    private func inDirectory(_ body: (String) throws -> Void) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.path)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func theQueryOfAPlainLocationIsParsedAsOptions() throws {
        let url = try StoreURL.parse("lmdb:./data?durability=full&mapSize=1048576")
        #expect(url.location == "./data")
        #expect(url.query == ["durability": "full", "mapSize": "1048576"])
        #expect(url.description == "lmdb:./data?durability=full&mapSize=1048576")
        #expect(try StoreURL.parse(url.description) == url)
        let absolute = try StoreURL.parse("sqlite:/var/x.sqlite?synchronous=full")
        #expect(absolute.location == "/var/x.sqlite" && absolute.query == ["synchronous": "full"])
        #expect(try StoreURL.parse(absolute.description) == absolute)
    }

    @Test func aFileNameWithAQuestionMarkIsWrittenPercentEncoded() throws {
        let url = try StoreURL.parse("sqlite:///tmp/a%3Fb.sqlite")
        #expect(url.location == "/tmp/a?b.sqlite" && url.query.isEmpty)
    }

    @Test(arguments: ["sqlite:x?=1", "sqlite:x?a=1&a=2", "lmdb:x?a=%zz"])
    func aMalformedQueryIsRefused(_ text: String) {
        let error = #expect(throws: StrataError.self) { _ = try StoreURL.parse(text) }
        #expect(error?.code == .invalidStoreURL && error?.location["part"] == "query")
    }

    @Test func lmdbHonoursTheDurabilityOfItsURLAndNamesTheDirectoryWithoutTheQuery() throws {
        let files = try inDirectory { directory in
            let store = try LMDBBackend().openStore(
                StoreURL.parse("lmdb:\(directory)/data?durability=full"), model: model, options: StoreOptions())
            defer { try? store.close() }
            #expect(store.commitFlushes.metaPage)
        }
        #expect(files == ["data", "data.strata-lock"])
    }

    @Test(arguments: [
        ("sqlite", "store.sqlite", "synchronous=full"), ("lmdb", "store", "mapSize=1048576"),
        ("xml", "store.xml", "lockTimeout=500"),
    ])
    func eachFileBackendOpensTheStoreTheQueryDoesNotName(_ scheme: String, _ name: String, _ query: String) throws {
        let files = try inDirectory { directory in
            try BuiltInBackends.registry.open(StoreURL.parse("\(scheme):\(directory)/\(name)?\(query)"), model: model)
                .close()
            // The same store without the query: it exists, nothing else was made.
            #expect(
                try BuiltInBackends.registry.backend(for: scheme).metadata(
                    at: StoreURL.parse("\(scheme):\(directory)/\(name)")) != nil)
        }
        #expect(!files.contains { $0.contains("?") || $0.contains("=") }, "\(files)")
        #expect(files.contains(name))
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func anUnknownOptionInTheQueryIsRefusedAndNothingIsCreated(_ scheme: String) throws {
        let files = try inDirectory { directory in
            let error = #expect(throws: StrataError.self) {
                try BuiltInBackends.registry.open(StoreURL.parse("\(scheme):\(directory)/s?journal=off"), model: model)
                    .close()
            }
            #expect(error?.code == .invalidOption && error?.location["option"] == "journal")
        }
        #expect(files.isEmpty)
    }

    @Test func anOptionGivenTwiceWithTwoValuesIsRefused() throws {
        let files = try inDirectory { directory in
            let error = #expect(throws: StrataError.self) {
                try BuiltInBackends.registry.open(
                    StoreURL.parse("lmdb:\(directory)/s?durability=full"), model: model,
                    options: StoreOptions(options: ["durability": "normal"])
                ).close()
            }
            #expect(error?.code == .invalidOption && error?.location["option"] == "durability")
            // The same value twice is no conflict.
            try BuiltInBackends.registry.open(
                StoreURL.parse("lmdb:\(directory)/s?durability=full"), model: model,
                options: StoreOptions(options: ["durability": "full"])
            ).close()
        }
        #expect(files == ["s", "s.strata-lock"])
    }

    @Test func theInMemoryStoreTakesNoQuery() throws {
        let error = #expect(throws: StrataError.self) {
            try BuiltInBackends.registry.open(StoreURL.parse("memory:notes?durability=full"), model: model).close()
        }
        #expect(error?.code == .invalidStoreURL && error?.location["part"] == "query")
    }

    @Test func aQueryIsNoOtherStoreForTheCopyOntoItself() throws {
        try _ = inDirectory { directory in
            let backend = try BuiltInBackends.registry.backend(for: "sqlite")
            let plain = try StoreURL.parse("sqlite:\(directory)/a.sqlite")
            try BuiltInBackends.registry.open(plain, model: model).close()
            #expect(
                try backend.overlaps(
                    StoreURL.parse("sqlite:\(directory)/a.sqlite?synchronous=full"), with: plain, of: backend))
            let memory = try BuiltInBackends.registry.backend(for: "memory")
            #expect(try memory.overlaps(StoreURL.parse("memory:a?x=1"), with: StoreURL.parse("memory:a"), of: memory))
        }
    }
}
